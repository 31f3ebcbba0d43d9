"""The one linear solve of the hypergradient: ``P_r' d = rho`` (paper eq. 14).

``P_r = [[Q_uu, -y_u], [y_u', 0]]`` with ``Q_uu = diag(y_u) K_uu diag(y_u)``
is not symmetric, but in ``t = y_u * d_u`` and ``w_b = -d_b`` the system is
``[[K_uu, -1], [-1', 0]] (t, w_b) = (y_u * rho_u, rho_b)``, symmetric.
Duplicate training rows make ``K_uu`` singular (a Splice fold has 16
duplicates, the binary Adult features many more): their rows of the system
are equal, and so are their right-hand sides (``y_i rho_i`` is the same
validation sum for every copy of ``x_i``). So the system is solved on the
distinct free points only (``t_g`` the sum over a group of copies), and each
copy gets ``t_g / k_g``: the minimum-norm solution, at the cost of the distinct
points. Every piece of the gradient reads ``d`` through the group sums, so the
choice among solutions does not matter. The note's rule (section 4) then
applies: dense LU while the system has at most 3000 rows, checked by its
reciprocal condition number; least squares when LU fails or ``rcond <
1e-12`` (nearly equal points); MINRES above the size limit.
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


def symmetric_system(K: np.ndarray) -> np.ndarray:
    """``[[K, -1], [-1', 0]]``."""
    m = K.shape[0]
    S = np.empty((m + 1, m + 1))
    S[:m, :m] = K
    S[:m, m] = -1.0
    S[m, :m] = -1.0
    S[m, m] = 0.0
    return S


def solve_adjoint(
    X_u: np.ndarray, K_uu: np.ndarray, y_u: np.ndarray, rho: np.ndarray
) -> tuple[np.ndarray, str]:
    """``d`` with ``P_r' d = rho``, and the method used (one of :data:`METHODS`).

    ``X_u`` are the free points' features (to find copies), ``K_uu`` their kernel.
    """
    _, first, group, copies = np.unique(
        X_u, axis=0, return_index=True, return_inverse=True, return_counts=True
    )
    group = group.reshape(-1)
    rhs = np.append((y_u * rho[:-1])[first], rho[-1])
    solution, method = _solve_symmetric(symmetric_system(K_uu[np.ix_(first, first)]), rhs)
    d_u = y_u * (solution[:-1] / copies)[group]
    return np.append(d_u, -solution[-1]), method


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
