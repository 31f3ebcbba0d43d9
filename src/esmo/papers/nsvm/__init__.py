"""The NSVM paper (Simon and Radons 2023): neural SVMs and kernel Pegasos, and beyond it.

Jobs: :mod:`~.experiment` (splits, classifiers from config, the learning-rate
choice, one run's record, retrains at early-stopping stops), :mod:`~.baselines`
(SMO and kernel Pegasos without a network), :mod:`~.e1_runs` (kernel Pegasos
inside the thesis's E1 random search). Analysis: :mod:`~.analysis`,
:mod:`~.e1_analysis`; figures: :mod:`~.figures`. The methods are the library's
:mod:`esmo.nsvm` and :mod:`esmo.solver.pegasos`; the protocol docs/nsvm-protocol.md.
"""
