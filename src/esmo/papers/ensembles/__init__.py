"""The ensembles paper (Nevado, Martinez-Munoz and Suarez, ICANN 2022): SVM ensembles on a budget.

Jobs: :mod:`~.cells` (one repetition's split and one cell's fits). Analysis:
:mod:`~.analysis` (table 1, slopes, claims, variants, the reproduction);
figures: :mod:`~.figures`. The method is the library's :mod:`esmo.ensembles`;
the protocol docs/ensembles-protocol.md.
"""
