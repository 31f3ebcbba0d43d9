"""The gradient paper (Keerthi, Sindhwani and Chapelle, NIPS 2006): gradient-based tuning.

Data: :mod:`~.data` (the paper's datasets by role, one seed's draw). Jobs:
:mod:`~.cells` (one cell's tuning run and its test scores), :mod:`~.inexact`
(beyond the paper: early-stopped and warm-started inner solves). Analysis:
:mod:`~.analysis` (tables 1-3, fig 1, claims, the reproduction),
:mod:`~.inexact_analysis`. The method is the library's :mod:`esmo.hypergradient`;
the protocol docs/gradient-protocol.md.
"""
