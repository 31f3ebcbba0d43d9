"""The MDL paper (Singh and Arandjelović): MDL against k-fold CV on WDBC, and beyond it.

Data: :mod:`~.wdbc`. Jobs: :mod:`~.comparison` (one WDBC split, and MDL on the
thesis's E1 folds), :mod:`~.stopping` (the description length as a
validation-free early-stopping rule). Analysis and figures: :mod:`~.analysis`.
The method is the library's :mod:`esmo.mdl`; the protocol docs/mdl-protocol.md.
"""
