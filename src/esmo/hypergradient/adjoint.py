"""The one linear solve of the hypergradient: ``P_r' d = rho`` (paper eq. 14).

``P_r = [[Q_uu, -y_u], [y_u', 0]]`` is not symmetric, but ``S = diag(I, -1)
P_r`` is, so ``P_r' d = rho`` is solved as ``S w = rho`` with ``d = diag(I, -1)
w``. Duplicate training rows make ``Q_uu`` singular (a Splice fold has 16
duplicates); the system then stays consistent, because duplicates get equal
entries of ``rho``, and its minimum-norm solution is the right one. The note's
rule (section 4): dense LU while ``|I_u| + 1 <= 3000``, checked by its
reciprocal condition number; least squares when LU fails or ``rcond <
1e-12``; MINRES on ``S`` above the size limit.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import minres

#: Largest system solved by dense LU; larger ones go to MINRES.
DENSE_LIMIT = 3000
#: Below this reciprocal condition number the LU solution is not trusted.
MIN_RCOND = 1e-12
#: How the system was solved, as recorded in a fold's cost.
METHODS: tuple[str, ...] = ("lu", "lstsq", "minres")


def symmetric_system(Q_uu: np.ndarray, y_u: np.ndarray) -> np.ndarray:
    """``S = [[Q_uu, -y_u], [-y_u', 0]]``."""
    m = y_u.shape[0]
    S = np.empty((m + 1, m + 1))
    S[:m, :m] = Q_uu
    S[:m, m] = -y_u
    S[m, :m] = -y_u
    S[m, m] = 0.0
    return S


def solve_adjoint(Q_uu: np.ndarray, y_u: np.ndarray, rho: np.ndarray) -> tuple[np.ndarray, str]:
    """``d`` with ``P_r' d = rho``, and the method used (one of :data:`METHODS`)."""
    S = symmetric_system(Q_uu, y_u)
    w, method = _solve_symmetric(S, rho)
    w[-1] = -w[-1]
    return w, method


def _solve_symmetric(S: np.ndarray, rhs: np.ndarray) -> tuple[np.ndarray, str]:
    if S.shape[0] > DENSE_LIMIT:
        w, info = minres(S, rhs, rtol=1e-10, maxiter=10 * S.shape[0])
        if info == 0 and np.all(np.isfinite(w)):
            return w, "minres"
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", scipy.linalg.LinAlgWarning)
                lu, piv = scipy.linalg.lu_factor(S, check_finite=False)
            anorm = np.abs(S).sum(axis=0).max()
            rcond, _ = scipy.linalg.lapack.dgecon(lu, anorm, norm="1")
            if rcond >= MIN_RCOND:
                return scipy.linalg.lu_solve((lu, piv), rhs, check_finite=False), "lu"
        except (scipy.linalg.LinAlgError, scipy.linalg.LinAlgWarning, ValueError):
            pass
    # QR with column pivoting: the minimum-norm solution, two to three times faster than the SVD
    w = scipy.linalg.lstsq(S, rhs, cond=MIN_RCOND, check_finite=False, lapack_driver="gelsy")[0]
    return w, "lstsq"
