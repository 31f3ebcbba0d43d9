"""A cross-validated path over ``C`` for one ``gamma``, with the kernel work shared.

``GridSearchCV(SVC)`` over ``k`` folds and ``len(Cs)`` values fits ``k *
len(Cs)`` SVMs, each computing its own kernel values, although the values
depend on neither ``C`` nor the fold. :func:`fit_path` computes the kernel
matrix of the whole training set once (:class:`~esmo.solver.shared_kernel.SharedKernel`)
and every fit reads gathers of it; each fold's held-out kernel values, which
its scores (and its early stopping) read, are computed once per fold too (the
scores' for the points that are ever support vectors, when first they are). Along
the ascending ``Cs``, each fit may start from the last one's final state with
its alphas scaled by the ratio of the two ``C`` (``warm_start``; DeCoste and
Wagstaff's alpha seeding): scaling keeps them feasible (``y'a = 0``, inside the
larger box), keeps the bounded ones at the bound, and scales the gradient with
them (and, under early stopping, the held-out decision sums the last fit
tracked), so a warm start computes no kernel value. From there, a fit without early
stopping first tries active-set rounds (``active_set``;
:mod:`esmo.solver.active_set`): the last fit's statuses guessed, the free
alphas solved for at once; SMO runs only where the rounds do not converge.
At large ``C``, where SMO takes tens of thousands of iterations, a few rounds
do (measured in ``benchmarks/bench_path.py``). Where the rounds fail at three
values of ``C`` in a row, a fold leaves the next 1, then 3, 7, ... values to
SMO alone until they converge again (:func:`rounds_to_skip`): on 6,000 points of
w1a.t most of their fits failed after 30 rounds, which cost more than SMO.

Exactness: with ``warm_start=False`` every fit is the fit
``SMOClassifier(C=C, gamma=gamma, ...)`` makes on the fold, to the bit
(iterations, alphas, rho), and its score is that estimator's held-out
accuracy (decision values from float64 kernel values, both up to the
summation order, so equal signs except within ~1e-15 of zero). With
``warm_start=True`` each fit meets the same stopping rule (``tol``) from
another start, so its alphas are another ``tol``-accurate solution of the same
dual (whether SMO or the active-set rounds found it: the rounds' result is
taken only when it meets SMO's stopping rule): scores agree with the cold
path's except on points the two solutions put on different sides of the
margin. Under early stopping, a warm start's held-out sums are the last fit's
tracked sums scaled, not summed afresh from its alphas: they carry the
rounding of every update since the path's first fit, as one long run's do.
So do a warm fit's scores: its decision values are the last fit's scaled, plus
the rows of the points whose coefficient moved otherwise (at a bound or zero,
a coefficient scales with ``C`` to an ulp or two, :data:`SCALED`).
"""

from __future__ import annotations

import functools
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.model_selection import check_cv
from sklearn.utils.validation import check_X_y

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet
from esmo.estimators.base import check_classes, encode_labels, resolve_gamma, resolve_n_jobs
from esmo.solver import active_set
from esmo.solver.compile import jit
from esmo.solver.kernels import FeatureOrderRows, feature_order_rows
from esmo.solver.params import SolverParams
from esmo.solver.predictions import decisions_from_rows
from esmo.solver.row_cache import count_afresh
from esmo.solver.shared_kernel import SharedKernel
from esmo.solver.smo import blas_controller, run_smo
from esmo.solver.state import G_BAR_VALID, SolverState, scaled_alphas, seeded_state


@dataclass(frozen=True)
class CVPath:
    """Held-out accuracy and cost of every (``C``, fold) fit of :func:`fit_path`.

    ``scores``, ``n_iter`` (SMO's iterations), ``rounds`` (active-set rounds
    tried), ``by_active_set`` (whether those rounds gave the fit, SMO running
    otherwise), ``objective`` (the dual objective each fit ends at) and
    ``stopped_early`` have one row per ``C`` (ascending) and one column per
    fold. ``kernel_evaluations`` counts every kernel value
    the path computed: the shared matrix once, and each fold's held-out values
    of the points that were ever support vectors (:class:`HeldOutRows`).
    ``fit_seconds`` holds each fit's CPU seconds (its run and its score, on its
    fold's thread) and ``seconds`` the whole path's (every thread), the shared
    matrix included.
    """

    Cs: np.ndarray
    gamma: float
    scores: np.ndarray
    n_iter: np.ndarray
    rounds: np.ndarray
    by_active_set: np.ndarray
    objective: np.ndarray
    stopped_early: np.ndarray
    fit_seconds: np.ndarray
    kernel_evaluations: int
    warm_start: bool
    seconds: float

    @property
    def mean_scores(self) -> np.ndarray:
        """Each ``C``'s mean held-out accuracy over the folds."""
        return self.scores.mean(axis=1)

    @property
    def best_C(self) -> float:
        """The ``C`` of the best mean score; ties go to the smallest (the widest margin)."""
        return float(self.Cs[int(np.argmax(self.mean_scores))])


def check_Cs(Cs: Any) -> np.ndarray:
    """``Cs`` as a strictly ascending array of positive finite values, or an error naming the fix."""
    values = np.asarray(Cs, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(
            f"Cs must be a non-empty 1-D sequence of values of C, got shape {values.shape}."
        )
    if not np.all(np.isfinite(values) & (values > 0)):
        raise ValueError(
            f"Cs must be positive and finite, got {values[~(values > 0)][:3].tolist()}."
        )
    if np.any(np.diff(values) <= 0):
        raise ValueError(
            "Cs must be strictly ascending (the path warm-starts each C from the one below); "
            "pass np.unique(Cs)."
        )
    return values


def _folds(cv: Any, X: Any, y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """scikit-learn's folds (``StratifiedKFold`` for an int), each training part holding both classes."""
    folds = list(check_cv(cv, y, classifier=True).split(X, y))
    for k, (train, _) in enumerate(folds):
        if np.unique(y[train]).size < 2:
            raise ValueError(
                f"Fold {k}'s training part holds one class only; use fewer folds, or a "
                "stratified splitter (cv=int gives StratifiedKFold)."
            )
    return folds


def fit_path(
    X: Any,
    y: Any,
    Cs: Any,
    gamma: float | str = "scale",
    cv: Any = 5,
    *,
    warm_start: bool = True,
    active_set: bool | None = None,
    early_stopping: EarlyStopping | None = None,
    kernel: str = "rbf",
    tol: float = 1e-3,
    max_iter: int = -1,
    shrinking: bool = True,
    cache_size_mb: float = 1024.0,
    n_jobs: int | None = None,
) -> CVPath:
    """Every ``C`` of ``Cs`` (ascending) on every fold of ``cv``, one shared kernel matrix for all.

    ``y`` holds two classes; ``cv`` is what ``GridSearchCV`` takes (an int means
    ``StratifiedKFold``, unshuffled). ``early_stopping`` stops each fit on its
    fold's held-out points, read incrementally (``es_evaluation='incremental'``
    of :class:`~esmo.estimators.smo_classifier.SMOClassifier`).
    ``active_set`` (None: wherever it applies) lets each warm start try
    active-set rounds before SMO; they apply to warm starts without early
    stopping, which needs SMO's iterations to stop between. The kernel
    matrix of ``n`` points takes ``4 n^2`` bytes and each fold's gather up to as
    much again; ``cache_size_mb`` must hold the matrix and a gather per fold run
    at once. The active-set rounds' factor adds up to ``8 m^2`` bytes per fold
    run at once for ``m`` free points (``m`` above
    :data:`~esmo.solver.active_set.MAX_FREE`: SMO runs). ``n_jobs`` threads
    compute the matrix, then run that many folds side by side (each fold's fits
    on one thread, its own path, BLAS held to one thread meanwhile), so every
    number but the seconds is the same for any ``n_jobs``. See the module's
    docstring for what equals separate fits.
    """
    start = time.process_time()
    Cs = check_Cs(Cs)
    rounds_apply = bool(warm_start) and early_stopping is None
    if active_set and not rounds_apply:
        raise ValueError(
            "active_set=True needs warm_start=True and no early_stopping (its rounds start from "
            "the last fit's solution and have no iterations to stop between); leave active_set "
            "at None to use it wherever it applies."
        )
    use_rounds = rounds_apply and active_set is not False
    X, labels = check_X_y(X, y, accept_sparse="csr", dtype=np.float64, order="C")
    classes = check_classes(labels, "fit_path")
    signs = encode_labels(labels, classes, "y", 0)  # +1 for classes[0], as SMOClassifier
    gamma_ = resolve_gamma(gamma, X)
    threads = resolve_n_jobs(n_jobs)
    folds = _folds(cv, X, labels)
    workers = min(threads, len(folds))
    shared = SharedKernel(X, kernel, gamma_, cache_size_mb=cache_size_mb, n_jobs=threads,
                          gathers=workers)  # fmt: skip
    # one thread per fit: its rows are all in place, and the folds share the cores
    base = SolverParams(kernel=kernel, gamma=gamma_, tol=tol, max_iter=max_iter,
                        cache_size_mb=cache_size_mb, shrinking=shrinking, n_jobs=1)  # fmt: skip
    configs = EarlyStoppingSet.of([early_stopping]) if early_stopping is not None else None
    one_fold = functools.partial(
        _fold_path, X, signs, shared, base, Cs, warm_start, use_rounds, configs
    )
    with blas_controller().limit(limits=1, user_api="blas"):  # a fold's fits on its thread
        if workers > 1:
            with ThreadPoolExecutor(workers) as pool:
                paths = list(pool.map(one_fold, folds))
        else:
            paths = [one_fold(fold) for fold in folds]
    columns = [np.stack([path[name] for path in paths], axis=1) for name in _FOLD_COLUMNS]
    values = shared.kernel_evaluations + sum(path["values"] for path in paths)
    shared.release()  # read by no fit any more: the next search's memory
    return CVPath(Cs, gamma_, *columns, int(values), bool(warm_start),
                  time.process_time() - start)  # fmt: skip


#: what :func:`_fold_path` gives per ``C``, in :class:`CVPath`'s order
_FOLD_COLUMNS = (
    "scores", "n_iter", "rounds", "by_active_set", "objective", "stopped_early", "fit_seconds"
)  # fmt: skip


def _fold_path(
    X: Any,
    signs: np.ndarray,
    shared: SharedKernel,
    base: SolverParams,
    Cs: np.ndarray,
    warm_start: bool,
    use_rounds: bool,
    configs: EarlyStoppingSet | None,
    fold: tuple[np.ndarray, np.ndarray],
) -> dict[str, Any]:
    """Every ``C`` on one fold, in ascending order: its columns of :class:`CVPath`.

    Reads only its own gather of the shared matrix, so folds may run on threads
    side by side and give the same numbers in any order. A fit's seconds are
    its thread's CPU time.
    """
    train, held_out = fold
    grouping = np.argsort(-signs[train], kind="stable")  # LIBSVM's grouping by class
    order = train[grouping]
    X_fit, y_fit, y_out = X[order], signs[order], signs[held_out]
    K_out = HeldOutRows(X_fit, grouping, X[held_out], base.kernel, base.gamma,
                        shared.prepared(order, held_out))  # fmt: skip
    fold_rows = shared.rows(order, held_out if configs else held_out[:0], base)
    run: dict[str, Any] = {"rows": fold_rows}
    if configs is not None:
        run |= {"configs": configs, "X_val": X[held_out], "y_val": y_out,
                "evaluation": "incremental"}  # fmt: skip
    out = {name: np.empty(len(Cs)) for name in _FOLD_COLUMNS}
    out["n_iter"], out["rounds"] = np.empty(len(Cs), np.int64), np.zeros(len(Cs), np.int64)
    out["stopped_early"], out["by_active_set"] = np.zeros(len(Cs), bool), np.zeros(len(Cs), bool)
    K_fit = fold_rows.data[:, : len(order)]  # the fit's own rows and columns
    src = active_set.RowSource.of(fold_rows)  # the rows the rounds read: gathered when first read
    factor = active_set.Factor(len(order), active_set.MAX_FREE) if use_rounds else None
    state = None  # the last fit's final state
    sums = None  # its tracked sums at the held-out points, while early stopping tracks them
    failed, rest = 0, 0  # the rounds' failures in a row; values of C left to SMO alone
    for c, C in enumerate(Cs):
        fit_start = time.thread_time()
        last, state, result = state, None, None
        warm = warm_start and last is not None
        ratio = C / Cs[c - 1] if warm else 0.0  # 0: a cold start, its score summed afresh
        if warm:
            if factor is not None and rest == 0:  # the rounds from the last state scaled
                result, out["rounds"][c] = active_set.solve_scaled(
                    factor, K_fit, y_fit, last, ratio, C, base.tol, src
                )
                failed = 0 if result is not None else failed + 1
                rest = rounds_to_skip(failed)
            elif factor is not None:
                rest -= 1
            if result is None:  # SMO from the same start
                state = scaled_state(last, y_fit, ratio, C)
                sums = None if sums is None else ratio * sums  # Q (r a) = r Q a
        else:
            sums = None
        out["by_active_set"][c] = result is not None
        if result is None:
            if state is not None and not state.counts[G_BAR_VALID] and base.shrinking:
                state.G_bar[:] = active_set.bounded_gradient(K_fit, src, y_fit, state.alpha, C)
                state.counts[G_BAR_VALID] = 1  # the rounds' states: from the fold's rows
            count_afresh(fold_rows)  # its rows as the last fits left them: the counters from 0
            result, tracking = run_smo(
                X_fit, y_fit, replace(base, C=float(C)), state=state, eval_sums=sums, **run
            )
            sums = None if tracking is None else tracking.eval_sums
        state = result.state
        out["n_iter"][c], out["stopped_early"][c] = result.n_iter, result.stopped_early
        out["objective"][c] = result.objective
        out["scores"][c] = K_out.accuracy(result.alpha, y_fit, result.rho, y_out, ratio)
        out["fit_seconds"][c] = time.thread_time() - fit_start
    shared.give_back(fold_rows)  # read by no fit any more: the next fold's gather
    out["values"] = K_out.evaluations
    return out


def rounds_to_skip(failed: int) -> int:
    """Values of ``C`` a fold leaves to SMO alone after its active-set rounds failed at ``failed``
    values in a row: none after one or two (the first warm starts of a path often fail, and the
    next converge), then 1, 3, 7, ..., so a fold where they keep failing tries them at ever
    fewer values."""
    return 2 ** (failed - 2) - 1 if failed > 2 else 0


class HeldOutRows:
    """A fold's kernel values at its held-out points, a row per training point, for the scores.

    The float64 sums the shared matrix rounds (at a sparse cost: a BLAS
    product took twice as long on w1a). A row is computed the first time its
    point is a support vector, as a score reads no other: over w1a's 50 values
    of C a fold's support vectors are a fifth of its points. The rows are read
    from the fit's points ``X_fit`` (no copy of the fold's own), whose point
    ``i`` is the fold's training point ``grouping[i]``; they are kept in the
    fold's order, the order a score sums in.
    """

    def __init__(
        self, X_fit: Any, grouping: np.ndarray, X_out: Any, kernel: str, gamma: float,
        prepared: tuple[np.ndarray, ...] | None = None,
    ) -> None:  # fmt: skip
        self.kernel = FeatureOrderRows(X_fit, X_out, kernel, gamma, prepared=prepared)
        self.grouping = grouping
        self.values = np.empty((X_fit.shape[0], X_out.shape[0]))  # rows never read stay unset
        self.filled = np.zeros(X_fit.shape[0], dtype=bool)
        self.coef = np.zeros(X_fit.shape[0])  # the last fit's coefficients, the fold's order
        self.sums = np.zeros(X_out.shape[0])  # ... and its decision values without rho

    def accuracy(
        self, alpha: np.ndarray, y_fit: np.ndarray, rho: float, y_out: np.ndarray,
        ratio: float = 0.0,
    ) -> float:  # fmt: skip
        """The held-out accuracy ``SMOClassifier.score`` gives for the fit ``(alpha, rho)``
        (its decision values up to the summation order), the rows it reads computed first.

        With ``ratio`` (a warm start: ``C`` over the last fit's), the decision
        values are the last fit's times ``ratio`` plus the rows of the points
        whose coefficient moved otherwise: a point at a bound, or at zero, in
        both fits has a coefficient that scales with ``C``, so only the free
        points' rows and those of points whose status changed are read.
        """
        k = self.kernel
        return float(
            _accuracy(self.values, self.filled, k.points, k.cols, k.sq_a, k.sq_b, k.code, k.gamma,
                      k.table, self.grouping, alpha, y_fit, rho, y_out, self.coef, self.sums,
                      ratio)
        )  # fmt: skip

    @property
    def evaluations(self) -> int:
        """Kernel values computed so far."""
        return int(self.filled.sum()) * self.values.shape[1]


def scaled_state(state: SolverState, y: np.ndarray, ratio: float, C: float) -> SolverState:
    """The last fit's final ``state`` with its alphas times ``ratio``, for the box ``[0, C]``.

    No kernel value is computed: ``Q (r a) = r Q a``, so the gradient is the
    old one scaled (``G = p + r (G_old - p)``, ``p = -1``), and so is ``G_bar``
    (the bounded alphas stay bounded, each bound times ``r``). A free alpha
    stays below the new bound even where rounding would lift it there.
    """
    alpha, Q_times = scaled_alphas(
        state.alpha, state.G, state.status, ratio, C, np.nextafter(C, 0.0)
    )
    n = len(y)
    seeded = seeded_state(alpha, y, np.full(n, C), -np.ones(n), Q_times)
    if state.counts[G_BAR_VALID]:
        seeded.G_bar[:] = ratio * state.G_bar
        seeded.counts[G_BAR_VALID] = 1
    return seeded


#: a coefficient within this share of the last one times the ratio of the two ``C`` counts as
#: scaled (a bound times the ratio is the new bound up to an ulp or two)
SCALED = 8 * np.finfo(np.float64).eps


@jit(nogil=True)
def _accuracy(values, filled, points, cols, sq_a, sq_b, code, gamma, table, grouping, alpha,
              y_fit, rho, y_out, last_coef, sums, ratio):  # fmt: skip
    """:meth:`HeldOutRows.accuracy` in one compiled call (a dozen numpy calls took a tenth of
    w1a's path): the fit's coefficients back in the fold's order, the rows of its new support
    vectors (fit point ``i``'s into the fold's row ``grouping[i]``), the decision values
    (SVC's orientation; from the last ones when ``ratio > 0``), then the share predicted right.
    ``last_coef`` and ``sums`` become this fit's."""
    coef = np.empty(alpha.shape[0])
    for i in range(alpha.shape[0]):
        coef[grouping[i]] = -alpha[i] * y_fit[i]
    new = np.flatnonzero((alpha != 0.0) & ~filled[grouping])  # fit points, ascending
    if new.shape[0]:
        rows = feature_order_rows(points, cols, new, values.shape[1], sq_a, sq_b, code, gamma,
                                  table)  # fmt: skip
        for r in range(new.shape[0]):
            values[grouping[new[r]]] = rows[r]
            filled[grouping[new[r]]] = True
    if ratio > 0.0:
        moved = coef - ratio * last_coef
        for s in range(moved.shape[0]):
            if abs(moved[s]) <= SCALED * abs(coef[s]):
                moved[s] = 0.0
        f = decisions_from_rows(values, moved, 0.0) + ratio * sums
    else:
        f = decisions_from_rows(values, coef, 0.0)
    last_coef[:] = coef
    sums[:] = f
    right = 0
    for c in range(y_out.shape[0]):
        right += (-1.0 if f[c] + rho >= 0 else 1.0) == y_out[c]  # classes[1] (sign -1) where f >= 0
    return right / y_out.shape[0]
