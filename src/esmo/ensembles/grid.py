"""The (C, gamma) grid and the searches over it, with the cost of every fit recorded.

The paper tunes every SVM by an exhaustive grid search (sec 4): C = 2^q for
q = -5, -3, ..., 15 and gamma = 2^p for p = -15, -13, ..., 3 (110 points),
scored by the mean validation accuracy over the folds. Besides the paper's
exhaustive search this module runs the two cheaper searches of protocol sec 7:
every fit early-stopped on the fold it is validated on (``early_stopped``), and
successive halving over the grid points (``halving``) on one train/validation
split.

Cost accounting: every fit is timed (process CPU seconds and wall seconds)
around the fit and its validation prediction, as sec 4.2 counts them, and
records its SMO iterations and kernel evaluations (:class:`FitLog`).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from esmo.early_stopping import J_HIGH
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver.params import SolverParams
from esmo.tuning.halving import HalvingRound, run_halving, stratified_rows

#: The searches over the grid (protocol sec 7).
GRID_SEARCHES = ("exhaustive", "early_stopped", "halving")
#: How a tie between equally scored grid points is broken (protocol sec 4).
GRID_TIES = ("first", "last", "random")
#: The fields of one fit's record, in :class:`FitLog` order.
FIT_FIELDS = (
    "stage",
    "subensemble",
    "index",
    "C",
    "gamma",
    "n_rows",
    "n_iter",
    "kernel_evaluations",
    "cpu_seconds",
    "wall_seconds",
    "max_iter_reached",
    "stopped_early",
    "val_accuracy",
)
#: The cost totals :meth:`FitLog.totals` reports.
COST_FIELDS = ("n_fits", "n_iter", "kernel_evaluations", "cpu_seconds", "wall_seconds")


def paper_grid(step: int = 2) -> np.ndarray:
    """The grid as rows ``(C, gamma)``, C ascending outer and gamma ascending inner.

    ``step`` is the exponent step: 2 gives the paper's 11 x 10 = 110 points; 4
    gives the CI smoke's 6 x 5 = 30 on the same range.
    """
    if isinstance(step, bool) or not isinstance(step, int | np.integer) or step < 1:
        raise ValueError(f"step must be a positive integer, got {step!r}")
    C = 2.0 ** np.arange(-5, 16, step)
    gamma = 2.0 ** np.arange(-15, 4, step)
    return np.array([(c, g) for c in C for g in gamma])


def as_grid(C_grid: Sequence[float] | None, gamma_grid: Sequence[float] | None) -> np.ndarray:
    """The product of the two value lists (C outer, each sorted ascending); None means the paper's."""
    paper = paper_grid()
    C = np.unique(paper[:, 0]) if C_grid is None else np.sort(np.asarray(C_grid, float).ravel())
    g = (
        np.unique(paper[:, 1])
        if gamma_grid is None
        else np.sort(np.asarray(gamma_grid, float).ravel())
    )
    for name, values in (("C_grid", C), ("gamma_grid", g)):
        if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
            raise ValueError(
                f"{name} must hold one or more finite positive values, got {values.tolist()}"
            )
    return np.array([(c, gg) for c in C for gg in g])


@dataclass(frozen=True)
class SVMSettings:
    """What every fit of a search shares: the solver's limits and the early-stopping rule.

    The defaults are the solver's (:class:`~esmo.solver.params.SolverParams`) and
    the thesis's j_high rule (:data:`esmo.early_stopping.J_HIGH`).
    """

    tol: float = SolverParams.tol
    max_iter: int = SolverParams.max_iter
    cache_size_mb: float = SolverParams.cache_size_mb
    shrinking: bool = SolverParams.shrinking
    es_patience: int = J_HIGH.patience
    es_tol: float = J_HIGH.tol
    es_interval: int = J_HIGH.interval

    def svm(self, C: float, gamma: float, *, early_stopping: bool = False) -> SMOClassifier:
        """An unfitted RBF ``SMOClassifier`` with these settings (accuracy-based stopping)."""
        return SMOClassifier(
            kernel="rbf",
            C=float(C),
            gamma=float(gamma),
            tol=self.tol,
            max_iter=self.max_iter,
            cache_size_mb=self.cache_size_mb,
            shrinking=self.shrinking,
            early_stopping=early_stopping,
            n_iter_no_change=self.es_patience,
            es_tol=self.es_tol,
            validation_interval=self.es_interval,
            es_metric="accuracy",
        )


class ConstantMember:
    """The model of a training part holding a single class: it predicts that class."""

    def __init__(self, label: Any) -> None:
        self.label = label

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        return np.zeros(X.shape[0])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return np.full(X.shape[0], self.label)


@dataclass
class FitLog:
    """One record per SVM fit (fields :data:`FIT_FIELDS`), appended as the fits run."""

    records: list[tuple] = field(default_factory=list)

    def fit(
        self,
        svm: SMOClassifier,
        X: np.ndarray,
        y: np.ndarray,
        *,
        stage: str,
        subensemble: int,
        index: int,
        X_val: np.ndarray | None = None,
        y_val: np.ndarray | None = None,
    ) -> tuple[Any, float]:
        """Fit ``svm`` (and score it on the validation rows, if given), timed; the model and accuracy.

        ``X`` and ``X_val`` are rows of data the estimator validated once
        (float64, C-ordered), so the fit skips scikit-learn's per-call checks,
        which cost several times SMO itself on the searches' small parts.
        Early stopping reads the validation rows when ``svm.early_stopping`` is
        set. A training part with a single class gives a :class:`ConstantMember`
        (no fit, no cost). Hitting ``max_iter`` is recorded, not warned.
        """
        if np.all(y == y[0]):
            model: Any = ConstantMember(y[0])
            acc = float(np.mean(y_val == y[0])) if y_val is not None else float("nan")
            self.records.append(
                (
                    stage,
                    subensemble,
                    index,
                    svm.C,
                    svm.gamma,
                    y.size,
                    0,
                    0,
                    0.0,
                    0.0,
                    False,
                    False,
                    acc,
                )
            )
            return model, acc
        cpu, wall = time.process_time(), time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            if svm.early_stopping:
                svm.fit(X, y, X_val=X_val, y_val=y_val, check_input=False)
            else:
                svm.fit(X, y, check_input=False)
        acc = (
            float(np.mean(svm.predict(X_val, check_input=False) == y_val))
            if X_val is not None
            else float("nan")
        )
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        self.records.append(
            (
                stage,
                subensemble,
                index,
                svm.C,
                svm.gamma,
                y.size,
                svm.n_iter_,
                svm.n_kernel_evaluations_,
                cpu,
                wall,
                svm.max_iter_reached_,
                svm.stopped_early_,
                acc,
            )
        )
        return svm, acc

    def table(self) -> dict[str, np.ndarray]:
        """The records as one array per field."""
        columns = list(zip(*self.records, strict=True)) if self.records else [()] * len(FIT_FIELDS)
        return {name: np.asarray(col) for name, col in zip(FIT_FIELDS, columns, strict=True)}

    def totals(self, stage: str | None = None) -> dict[str, float]:
        """Fits, iterations, kernel evaluations and seconds summed over one stage (or all)."""
        rows = [r for r in self.records if stage is None or r[0] == stage]
        idx = {name: FIT_FIELDS.index(name) for name in COST_FIELDS[1:]}
        return {
            "n_fits": len(rows),
            **{name: float(sum(r[i] for r in rows)) for name, i in idx.items()},
        }


def pick(scores: np.ndarray, tie: str, rng: np.random.Generator) -> int:
    """The index of the best score; ties go to the first, last or a random one of the best."""
    best = np.flatnonzero(scores == scores.max())
    if tie == "first":
        return int(best[0])
    if tie == "last":
        return int(best[-1])
    return int(rng.choice(best))


def cross_validated_search(
    X: np.ndarray,
    y: np.ndarray,
    grid: np.ndarray,
    folds: Sequence[tuple[np.ndarray, np.ndarray]],
    settings: SVMSettings,
    log: FitLog,
    *,
    early_stopped: bool = False,
    subensemble: int = -1,
) -> np.ndarray:
    """Mean validation accuracy of every grid point over ``folds`` (train, validation indices).

    With ``early_stopped`` each fit stops early on the fold it is validated on,
    and its score is the accuracy of the model at the stop.
    """
    scores = np.zeros(len(grid))
    for g, (C, gamma) in enumerate(grid):
        for k, (train, val) in enumerate(folds):
            _, acc = log.fit(
                settings.svm(C, gamma, early_stopping=early_stopped),
                X[train],
                y[train],
                stage="search",
                subensemble=subensemble,
                index=k,
                X_val=X[val],
                y_val=y[val],
            )
            scores[g] += acc / len(folds)
    return scores


def halving_schedule(n_candidates: int, n_rows: int, min_samples: int) -> list[HalvingRound]:
    """Rounds ``(k_t, n_t)`` of successive halving: ``k_t = floor(k / 2^t) >= 2`` candidates.

    Round t trains ``k_t`` candidates on ``max(min_samples, round(n_rows / k_t))``
    rows (at most ``n_rows``). The round with a single candidate left is not
    run: it would fit the choice without changing it.
    """
    rounds = []
    k = n_candidates
    while k >= 2:
        rounds.append(
            HalvingRound(k, int(min(n_rows, max(min_samples, np.floor(n_rows / k + 0.5)))))
        )
        k //= 2
    return rounds


def halving_search(
    X: np.ndarray,
    y: np.ndarray,
    grid: np.ndarray,
    train: np.ndarray,
    val: np.ndarray,
    settings: SVMSettings,
    log: FitLog,
    rng: np.random.Generator,
    *,
    min_samples: int = 10,
    subensemble: int = -1,
) -> np.ndarray:
    """Successive halving over the grid on one split; scores are each point's last-round accuracy.

    All candidates of a round share one stratified subsample of the training
    rows (``rng`` draws it); the best ``k_{t+1}`` go on (ties to the earlier grid
    point). A point's score is its validation accuracy in the last round it ran,
    plus the round number, so that the survivors of later rounds rank above all
    others; the caller picks among the best by its grid tie rule. The rounds run
    in the one loop of :mod:`esmo.tuning.halving`.
    """

    def fit_and_score(t: int, g: int, sub: np.ndarray) -> tuple[float, tuple]:
        _, acc = log.fit(
            settings.svm(*grid[g]), X[sub], y[sub], stage="search", subensemble=subensemble,
            index=t, X_val=X[val], y_val=y[val],
        )  # fmt: skip
        return acc, log.records[-1]

    run = run_halving(
        range(len(grid)),
        halving_schedule(len(grid), train.size, min_samples),
        lambda n_rows: train[stratified_rows(y[train], n_rows, rng, draw="rounded")],
        fit_and_score,
        tie="first",
    )
    scores = np.full(len(grid), -np.inf)
    for trial in run.trials:
        scores[trial.candidate] = trial.round + trial.score
    return scores
