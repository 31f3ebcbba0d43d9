"""Appendix A's reference solvers: Keerthi's SMO and a plain transcription of Fan et al.

Both solve the same C-SVC dual as LIBSVM and :mod:`esmo.solver.smo`::

    min_a 0.5 a'Qa - e'a   s.t.  0 <= a_i <= C,  y'a = 0,   Q_ij = y_i y_j K(x_i, x_j)

with LIBSVM's stopping rule ``m(a) - M(a) < tol``, its two-variable update and
clipping (``Solver::Solve`` in LIBSVM's ``svm.cpp``), and its bias
(``Solver::calculate_rho``). They differ only in how the working set is chosen:

* :func:`keerthi_smo` takes the maximal violating pair (Keerthi et al., 2001),
  the first-order rule, on a precomputed kernel matrix; it stops on LIBSVM's
  rule or, as an option, on Keerthi et al.'s own (:data:`KEERTHI_STOPPING_RULES`);
* :func:`plain_fan_smo` takes Fan, Chen and Lin's (2005) second-order rule
  (WSS 2) and computes each kernel row when it needs it, as the thesis's
  unoptimised version did. In exact arithmetic it visits the same working sets
  as LIBSVM (``SVC(shrinking=False)``), ties included: like LIBSVM it takes the
  last index among equal candidates.

They are deliberately simple baselines for timing and correctness checks, not
fast solvers; use :func:`esmo.solver.smo.solve_smo` for real work.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics.pairwise import linear_kernel, rbf_kernel

from esmo.solver.inputs import as_problem
from esmo.solver.params import SolverParams
from esmo.solver.result import SolverResult
from esmo.solver.working_set import TAU

#: :func:`keerthi_smo`'s stopping rules. ``"libsvm"``: ``m(a) - M(a) < tol`` and
#: LIBSVM's bias, as every other solver here. ``"keerthi"``: Keerthi et al.'s
#: (2001) approximate optimality ``b_low <= b_up + 2 tol`` (a violation bound
#: twice LIBSVM's, met with equality too) and their threshold ``(b_low + b_up) / 2``.
KEERTHI_STOPPING_RULES = ("libsvm", "keerthi")


def _check_problem(
    X: np.ndarray, y: np.ndarray, **solver_params: object
) -> tuple[np.ndarray, np.ndarray, SolverParams, int]:
    """The inputs both solvers share, checked by the rules every solver uses; the iteration limit."""
    params = SolverParams(**solver_params)
    X, y = as_problem(X, y)
    return X, y, params, params.iteration_limit(X.shape[0])


def dual_objective(alpha: np.ndarray, y: np.ndarray, K: np.ndarray) -> float:
    """Dual objective ``0.5 a'Qa - e'a`` with ``Q = (y y') * K``; lower is better."""
    ay = np.asarray(alpha, dtype=np.float64) * np.asarray(y, dtype=np.float64)
    return float(0.5 * ay @ np.asarray(K) @ ay - np.sum(alpha))


def _up_low_masks(alpha: np.ndarray, y: np.ndarray, C: float) -> tuple[np.ndarray, np.ndarray]:
    """``I_up`` (``-y_t`` may still grow along ``y_t``) and ``I_low`` (may shrink).

    Bounds are tested like LIBSVM's ``update_alpha_status``: ``a >= C`` is at the
    upper bound, ``a <= 0`` at the lower bound.
    """
    below_c = alpha < C
    above_0 = alpha > 0
    positive = y > 0
    i_up = np.where(positive, below_c, above_0)
    i_low = np.where(positive, above_0, below_c)
    return i_up, i_low


def _violation_bounds(
    minus_yg: np.ndarray, i_up: np.ndarray, i_low: np.ndarray
) -> tuple[float, float]:
    """``m(a) = max_{I_up} -y G`` and ``M(a) = min_{I_low} -y G`` (inf when empty)."""
    m = float(np.max(minus_yg, where=i_up, initial=-np.inf))
    M = float(np.min(minus_yg, where=i_low, initial=np.inf))
    return m, M


def _update_pair(
    i: int,
    j: int,
    alpha: np.ndarray,
    G: np.ndarray,
    y: np.ndarray,
    C: float,
    quad: float,
) -> tuple[float, float]:
    """New ``(a_i, a_j)`` after minimising the dual along the pair, clipped to the box.

    Follows LIBSVM's ``Solver::Solve``: take the unconstrained Newton step along
    the direction that keeps ``y'a`` fixed, then move back onto the box edge that
    was crossed while keeping ``a_i - a_j`` (labels differ) or ``a_i + a_j``
    (labels equal) unchanged. ``quad = K_ii + K_jj - 2 K_ij`` is the curvature.
    """
    if quad <= 0:
        quad = TAU
    a_i, a_j = float(alpha[i]), float(alpha[j])
    if y[i] != y[j]:
        delta = (-G[i] - G[j]) / quad
        diff = a_i - a_j  # conserved
        a_i += delta
        a_j += delta
        if diff > 0:
            if a_j < 0:
                a_j, a_i = 0.0, diff
        elif a_i < 0:
            a_i, a_j = 0.0, -diff
        if diff > 0:  # C_i - C_j == 0: one C for both classes
            if a_i > C:
                a_i, a_j = C, C - diff
        elif a_j > C:
            a_j, a_i = C, C + diff
    else:
        delta = (G[i] - G[j]) / quad
        total = a_i + a_j  # conserved
        a_i -= delta
        a_j += delta
        if total > C:
            if a_i > C:
                a_i, a_j = C, total - C
        elif a_j < 0:
            a_j, a_i = 0.0, total
        if total > C:
            if a_j > C:
                a_j, a_i = C, total - C
        elif a_i < 0:
            a_i, a_j = 0.0, total
    return a_i, a_j


def _calculate_rho(alpha: np.ndarray, G: np.ndarray, y: np.ndarray, C: float) -> float:
    """LIBSVM's bias: mean ``y G`` over free vectors, else the midpoint of the KKT bounds."""
    yg = y * G
    at_upper = alpha >= C
    at_lower = alpha <= 0
    free = ~(at_upper | at_lower)
    if np.any(free):
        return float(np.mean(yg[free]))
    # rho must lie in [lb, ub]: bounded vectors on the "upper" side of the
    # hyperplane cap it from above, those on the other side from below.
    caps_above = (at_lower & (y > 0)) | (at_upper & (y < 0))
    ub = float(np.min(yg, where=caps_above, initial=np.inf))
    lb = float(np.max(yg, where=~caps_above, initial=-np.inf))
    return (ub + lb) / 2


def _finish(
    alpha: np.ndarray,
    G: np.ndarray,
    y: np.ndarray,
    C: float,
    n_iter: int,
    hit_limit: bool,
    rho: float | None = None,
) -> SolverResult:
    """The result at ``alpha``; ``rho`` defaults to LIBSVM's bias."""
    # G = Qa - e, so 0.5 a'Qa - e'a = 0.5 a'(G - e); no kernel matrix needed.
    objective = float(0.5 * alpha @ (G - 1.0))
    return SolverResult(
        alpha=alpha,
        rho=_calculate_rho(alpha, G, y, C) if rho is None else rho,
        n_iter=n_iter,
        max_iter_reached=hit_limit,
        stopped_early=False,
        objective=objective,
    )


def keerthi_bounds(
    alpha: np.ndarray, G: np.ndarray, y: np.ndarray, C: float
) -> tuple[float, float]:
    """Keerthi et al.'s ``(b_up, b_low)`` at ``alpha``, from the gradient ``G = Qa - e``.

    With ``F_i = sum_j a_j y_j K_ij - y_i = y_i G_i``, ``b_up = min F`` over
    ``I_0 u I_1 u I_2`` (free, or at a bound from which ``F_i >= b`` is
    required) and ``b_low = max F`` over ``I_0 u I_3 u I_4``. These sets are
    LIBSVM's ``I_up`` and ``I_low``, so ``b_up = -m(a)``, ``b_low = -M(a)`` and
    ``b_low - b_up = m(a) - M(a)``, the maximal violation.
    """
    i_up, i_low = _up_low_masks(alpha, y, C)
    m, M = _violation_bounds(-y * G, i_up, i_low)
    return -m, -M


def keerthi_smo(
    X: np.ndarray, y: np.ndarray, *, stopping: str = "libsvm", **solver_params: object
) -> SolverResult:
    """Keerthi et al.'s (2001) SMO with maximal-violating-pair selection.

    Each iteration updates the pair ``i = argmax_{I_up} -y G``,
    ``j = argmin_{I_low} -y G`` (first-order information only), which is why it
    usually needs more iterations than Fan et al.'s second-order rule. This is
    the paper's "worst violating pair" (its modification 2) taken over all
    samples at every step, as Fan et al. (2005, WSS 1) state it, not through
    Platt's examine-all/examine-free loops. The kernel matrix is precomputed
    once; memory grows as ``n_samples**2``.

    ``stopping`` (:data:`KEERTHI_STOPPING_RULES`) picks the end:

    * ``"libsvm"`` (default): ``m(a) - M(a) < tol`` and LIBSVM's bias, the rule
      of every other solver in esmo, so only the working set differs;
    * ``"keerthi"``: Keerthi et al.'s own, ``b_low <= b_up + 2 tol``
      (:func:`keerthi_bounds`), and their threshold ``rho = (b_low + b_up) / 2``.
      The same ``tol`` allows twice LIBSVM's violation, so it stops sooner.

    ``X`` has one row per sample, ``y`` labels in {-1, +1}; ``solver_params`` are
    the fields of :class:`~esmo.solver.params.SolverParams` (``kernel, C, gamma,
    tol, max_iter``; the kernel-store ones are not used), with the same meaning
    and defaults as for :func:`esmo.solver.smo.solve_smo`.
    """
    if stopping not in KEERTHI_STOPPING_RULES:
        raise ValueError(
            f"stopping must be one of {list(KEERTHI_STOPPING_RULES)}, got {stopping!r}: "
            "'libsvm' is m(a) - M(a) < tol, 'keerthi' is Keerthi et al.'s b_low <= b_up + 2 tol"
        )
    own_rule = stopping == "keerthi"
    X, y, params, max_iter = _check_problem(X, y, **solver_params)
    kernel, C, gamma, tol = params.kernel, params.C, params.gamma, params.tol
    K = linear_kernel(X) if kernel == "linear" else rbf_kernel(X, gamma=gamma)
    n = X.shape[0]
    alpha = np.zeros(n)
    G = -np.ones(n)  # gradient Qa - e at a = 0
    n_iter = 0
    hit_limit = False
    while True:
        i_up, i_low = _up_low_masks(alpha, y, C)
        minus_yg = -y * G
        m, M = _violation_bounds(minus_yg, i_up, i_low)
        # b_low - b_up = m - M (keerthi_bounds)
        if (m - M <= 2.0 * tol) if own_rule else (m - M < tol):
            break
        if n_iter >= max_iter:
            hit_limit = True
            break
        i = int(np.argmax(np.where(i_up, minus_yg, -np.inf)))
        j = int(np.argmin(np.where(i_low, minus_yg, np.inf)))
        quad = K[i, i] + K[j, j] - 2.0 * K[i, j]
        a_i, a_j = _update_pair(i, j, alpha, G, y, C, quad)
        d_i, d_j = a_i - alpha[i], a_j - alpha[j]
        alpha[i], alpha[j] = a_i, a_j
        # Q[:, t] = y * y_t * K[:, t]
        G += y * (K[:, i] * (y[i] * d_i) + K[:, j] * (y[j] * d_j))
        n_iter += 1
    # Keerthi et al.'s threshold b = (b_up + b_low) / 2 is LIBSVM's rho: f = sum a y K - rho
    rho = -(m + M) / 2 if own_rule else None
    return _finish(alpha, G, y, C, n_iter, hit_limit, rho)


def _kernel_row(X: np.ndarray, t: int, kernel: str, gamma: float) -> np.ndarray:
    """``K(x_s, x_t)`` for every sample s, computed afresh (no cache)."""
    x_t = X[t : t + 1]
    row = linear_kernel(X, x_t) if kernel == "linear" else rbf_kernel(X, x_t, gamma=gamma)
    return row[:, 0]


def _last_argmax(values: np.ndarray) -> int:
    """Index of the maximum, the last one among ties (LIBSVM scans with ``>=``)."""
    return values.size - 1 - int(np.argmax(values[::-1]))


def plain_fan_smo(X: np.ndarray, y: np.ndarray, **solver_params: object) -> SolverResult:
    """Fan, Chen and Lin's (2005) SMO, transcribed plainly from their pseudocode.

    Working-set selection WSS 2: ``i = argmax_{I_up} -y G``; then among
    ``t in I_low`` with ``b_it = m(a) + y_t G_t > 0`` the ``j`` minimising
    ``-b_it**2 / a_it``, ``a_it = K_ii + K_tt - 2 K_it`` (``TAU`` if not
    positive). Kernel rows ``K[:, i]`` and ``K[:, j]`` are recomputed every
    iteration: nothing is cached, so the cost per iteration is two kernel rows,
    as in the thesis's unoptimised version. Parameters as in :func:`keerthi_smo`.
    """
    X, y, params, max_iter = _check_problem(X, y, **solver_params)
    kernel, C, gamma, tol = params.kernel, params.C, params.gamma, params.tol
    n = X.shape[0]
    # The diagonal enters every curvature a_it; LIBSVM keeps it too (QD).
    diag = np.ones(n) if kernel == "rbf" else np.einsum("ij,ij->i", X, X)
    alpha = np.zeros(n)
    G = -np.ones(n)
    n_iter = 0
    hit_limit = False
    while True:
        i_up, i_low = _up_low_masks(alpha, y, C)
        minus_yg = -y * G
        m, M = _violation_bounds(minus_yg, i_up, i_low)
        if m - M < tol:
            break
        # i: maximal violation from I_up
        i = _last_argmax(np.where(i_up, minus_yg, -np.inf))
        K_i = _kernel_row(X, i, kernel, gamma)
        # j: largest second-order decrease among the violating partners in I_low
        b = m - minus_yg
        candidates = i_low & (b > 0)
        if not np.any(candidates):
            break  # no partner decreases the objective: LIBSVM stops here too
        a = diag[i] + diag - 2.0 * K_i
        a = np.where(a > 0, a, TAU)
        gain = np.where(candidates, -(b * b) / np.where(candidates, a, 1.0), np.inf)
        j = _last_argmax(-gain)
        if n_iter >= max_iter:
            hit_limit = True
            break
        a_i, a_j = _update_pair(i, j, alpha, G, y, C, diag[i] + diag[j] - 2.0 * K_i[j])
        d_i, d_j = a_i - alpha[i], a_j - alpha[j]
        alpha[i], alpha[j] = a_i, a_j
        K_j = _kernel_row(X, j, kernel, gamma)
        G += y * (K_i * (y[i] * d_i) + K_j * (y[j] * d_j))
        n_iter += 1
    return _finish(alpha, G, y, C, n_iter, hit_limit)
