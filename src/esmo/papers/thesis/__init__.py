"""The thesis (early stopping inside SMO for SVM hyperparameter tuning): E1-E4, appendices A and B.

Data: :mod:`~.splits` (the stratified 60/20/20 folds), :mod:`~.blobs` (E2's
Gaussian blobs). Jobs: :mod:`~.sweep_jobs` (E1, E2, appendix B, E4's sweeps),
:mod:`~.hpo` (the timed searches of E3 and E4), :mod:`~.solver_comparison`
(appendix A). Analysis: :mod:`~.scoring` (random-search outcomes, the score S,
wins, j_low/j_high/j_avg), :mod:`~.significance` (Wilcoxon and Holm),
:mod:`~.pareto`, :mod:`~.reproduction` (the judged table beside the thesis),
:mod:`~.figures`. The protocol: docs/thesis-protocol.md.
"""
