"""The result every SMO variant returns, so estimators and benchmarks treat them alike."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class SolverResult:
    """Dual solution of ``min 0.5 a'Qa - e'a, 0 <= a <= C, y'a = 0``.

    ``alpha`` holds the dual variables (non-negative, not multiplied by y), ``rho``
    is LIBSVM's bias so that ``f(x) = sum_i alpha_i y_i K(x_i, x) - rho``.
    ``n_iter`` counts pair updates; ``max_iter_reached`` tells whether the solver
    stopped on its iteration limit rather than on the KKT tolerance;
    ``stopped_early`` whether validation-based early stopping ended the run.
    """

    alpha: np.ndarray
    rho: float
    n_iter: int
    max_iter_reached: bool
    stopped_early: bool = False
    objective: float = float("nan")
