"""Model selection by minimum description length (Singh and Arandjelović), without validation data.

:mod:`~esmo.mdl.description_length` is the description length of a fitted SVM
in bits; :mod:`~esmo.mdl.grid_fits` fits one training set at many (C, gamma),
each gamma's kernel once; :class:`~esmo.mdl.search.MDLSearch` picks the pair of
least description length; :mod:`~esmo.mdl.cross_validation` is the k-fold CV
baseline through the same fits, so their costs compare. The choices the paper
leaves open: docs/mdl-protocol.md.
"""
