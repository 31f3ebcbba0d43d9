"""The timing rules of the thesis's timed experiments (E3, E4, appendix A, fig 1.1).

Only ``fit`` is timed (``esmo.tuning.search`` wraps each fit in
``time.perf_counter``). Numba compiles on a function's first call, which would
charge seconds of compilation to whichever fit comes first; every timed
experiment therefore fits each estimator variant once on :func:`warm_up_rows`
before timing anything.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

#: Rows per class of the warm-up fit: enough for an SVM, quick to solve.
WARM_UP_PER_CLASS = 4


def total_iterations(estimator: Any) -> int:
    """Iterations of a fitted estimator; SVC reports one count per class pair (one here)."""
    return int(np.sum(estimator.n_iter_))


def warm_up_rows(y: np.ndarray, per_class: int = WARM_UP_PER_CLASS) -> np.ndarray:
    """The first ``per_class`` rows of each class: enough for an SVM fit, quick to solve."""
    return np.sort(np.concatenate([np.flatnonzero(y == c)[:per_class] for c in np.unique(y)]))


def timed_fit(estimator: Any, X: Any, y: Any) -> float:
    """Seconds of ``estimator.fit(X, y)``; a fit cut at ``max_iter`` on purpose warns no one."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        estimator.fit(X, y)
        return time.perf_counter() - start
