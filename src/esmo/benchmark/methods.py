"""The methods the benchmark compares (docs/benchmark-protocol.md sec 5), by name.

An adapter takes ``(budget, space, X_train, y_train, seed)`` and returns a
:class:`MethodResult`: the model the method hands back, its evaluation trace
(:mod:`esmo.benchmark.trace`) and its final cost. ``budget`` holds the
method's own keys (``benchmark.budgets.<method>``) and the protocol's shared
ones it reads (``n_folds``, ``holdout_fraction``, ``early_stopping``);
``space`` is sec 2's box and grid step.

Cost (sec 3): CPU seconds (``time.process_time``, every thread of the
process) of the work each evaluation does and of the final refit, as each
method's own record gives them:

- scikit-learn's searches (``grid_svc``, ``random_svc``, ``halving_svc``,
  ``sklearnex_svc``) and ``optuna_svc`` fit :class:`TimedSVC`, an SVC whose
  ``fit`` and ``score`` are timed into a log (the searches clone their
  estimator, so the log is a module-level list keyed by the ``log_key``
  parameter); the cost of a candidate is its folds' fits and scores, the
  final cost the whole log, the refit included. The searches run with
  ``n_jobs=1``, so the log is in evaluation order: candidate-major (a
  candidate's folds together), halving iteration by iteration;
- the thesis's searches and those beyond it (esmo.tuning's estimators), and
  Pegasos's search (:mod:`esmo.benchmark.pegasos_search`), their ``trace_``
  and ``cost_``;
- ``esmo_gradient`` its ``history_`` (CPU seconds per evaluation) and refit;
- ``esmo_ensemble`` its fit log (every fit's CPU seconds);
- ``esmo_mdl`` the CPU seconds of the whole search, shared out over the
  candidates in proportion to the wall time ``MDLSearch`` records for each,
  then the refit;
- ``esmo_path`` each gamma's path's CPU seconds, shared out over its C in
  proportion to their fits' CPU seconds, then the refit.

The bookkeeping between evaluations (a search's own loop, Optuna's sampler)
is not in these records.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.stats import loguniform
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.metrics import accuracy_score
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, StratifiedKFold
from sklearn.svm import SVC

from esmo.benchmark.pegasos_search import PegasosRandomSearch
from esmo.benchmark.trace import FINAL_KEYS, TRACE_COLUMNS, make_trace
from esmo.early_stopping import EarlyStopping
from esmo.ensembles.estimator import SVMEnsembleClassifier
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.hypergradient.search import GradientSearchCV
from esmo.hypergradient.space import LOG2_BOUNDS
from esmo.mdl.search import MDLSearch
from esmo.tuning.estimators import HyperbandSVM, RandomSearchSVM, SuccessiveHalvingSVM
from esmo.tuning.optuna_search import OptunaSearchSVM
from esmo.tuning.path import fit_path


@dataclass(frozen=True)
class SearchSpace:
    """Sec 2's box (log2 bounds of C and gamma) and the grid step of the methods that use a grid."""

    log2_C: tuple[float, float]
    log2_gamma: tuple[float, float]
    grid_step: float = 2

    @classmethod
    def from_config(cls, box: Mapping[str, Any], grid_step: float) -> SearchSpace:
        return cls(tuple(box["log2_C"]), tuple(box["log2_gamma"]), grid_step)

    def grid(self) -> tuple[list[float], list[float]]:
        """C and gamma values: 2^low, 2^(low + step), ... up to 2^high, each ascending."""
        return tuple(  # type: ignore[return-value]
            [float(2.0**e) for e in np.arange(low, high + 1e-9, self.grid_step)]
            for low, high in (self.log2_C, self.log2_gamma)
        )

    def distributions(self) -> dict[str, Any]:
        """C and gamma log-uniform over the box (scipy distributions, as the searches take)."""
        return {
            "C": loguniform(2.0 ** self.log2_C[0], 2.0 ** self.log2_C[1]),
            "gamma": loguniform(2.0 ** self.log2_gamma[0], 2.0 ** self.log2_gamma[1]),
        }


@dataclass
class MethodResult:
    """What one method's run gives the benchmark.

    ``model`` is the handed-back fitted model (``predict``); ``trace`` one row
    per evaluation (:data:`~esmo.benchmark.trace.TRACE_COLUMNS`); ``final``
    the whole cost and the model's hyperparameters and score
    (:data:`~esmo.benchmark.trace.FINAL_KEYS`); ``incumbent_model(C, gamma)``
    an unfitted model of the method's kind at an incumbent's hyperparameters
    (None: the method's incumbents have none). ``search`` is the fitted search
    object and ``log`` the timed calls behind the cost, where there are any.
    """

    model: Any
    trace: pd.DataFrame
    final: dict[str, float]
    incumbent_model: Callable[[float, float], Any] | None
    search: Any = None
    log: list[FitRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


class MethodUnavailable(RuntimeError):
    """The method's library is not installed: the run is skipped with a note, no record."""


class MethodFailed(RuntimeError):
    """The method itself gave up on the data (e.g. every fit of a halving round failed on
    subsamples holding one class): the run leaves no record, and its log says why."""


Adapter = Callable[[Mapping[str, Any], SearchSpace, np.ndarray, np.ndarray, int], MethodResult]


# --- scikit-learn's SVC, timed -------------------------------------------------------------


@dataclass(frozen=True)
class FitRecord:
    """One timed call of a :class:`TimedSVC`: ``fit`` or ``score``."""

    call: str
    C: float
    gamma: float
    n_rows: int
    cpu_seconds: float
    n_iter: float


#: The timed calls of every :class:`TimedSVC`, by its ``log_key`` (the searches clone estimators).
FIT_LOGS: dict[str, list[FitRecord]] = {}
_log_keys = itertools.count()


def _svc_class(backend: str) -> type:
    if backend == "sklearn":
        return SVC
    try:
        from sklearnex.svm import SVC as IntelSVC
    except ImportError as exc:
        raise MethodUnavailable(
            "scikit-learn-intelex is not installed (pip install 'esmo[anchors]')"
        ) from exc
    return IntelSVC


class TimedSVC(ClassifierMixin, BaseEstimator):
    """An RBF SVC (scikit-learn's, or scikit-learn-intelex's with ``backend="sklearnex"``)
    whose ``fit`` and ``score`` append their CPU seconds to ``FIT_LOGS[log_key]``."""

    def __init__(
        self,
        log_key: str = "",
        C: float = 1.0,
        gamma: float | str = "scale",
        tol: float = 1e-3,
        backend: str = "sklearn",
    ) -> None:
        self.log_key = log_key
        self.C = C
        self.gamma = gamma
        self.tol = tol
        self.backend = backend

    def _record(self, call: str, n_rows: int, seconds: float, n_iter: float = np.nan) -> None:
        record = FitRecord(call, float(self.C), float(self.gamma), n_rows, seconds, n_iter)
        FIT_LOGS.setdefault(self.log_key, []).append(record)

    def fit(self, X: Any, y: Any) -> TimedSVC:
        svc = _svc_class(self.backend)(kernel="rbf", C=self.C, gamma=self.gamma, tol=self.tol)
        start = time.process_time()
        try:
            svc.fit(X, y)
        finally:  # a failed fit cost its seconds too
            n_iter = float(np.sum(svc.n_iter_)) if hasattr(svc, "n_iter_") else np.nan
            self._record("fit", len(y), time.process_time() - start, n_iter)
        self.model_, self.classes_ = svc, svc.classes_
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self.model_.predict(X)

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        start = time.process_time()
        accuracy = float(accuracy_score(y, self.model_.predict(X), sample_weight=sample_weight))
        self._record("score", len(y), time.process_time() - start)
        return accuracy


def _fit_tasks(log: list[FitRecord]) -> list[list[FitRecord]]:
    """The log cut into tasks: each fit with the scores that follow it."""
    tasks: list[list[FitRecord]] = []
    for record in log:
        if record.call == "fit" or not tasks:
            tasks.append([])
        tasks[-1].append(record)
    return tasks


def trace_from_log(
    log: list[FitRecord],
    results: Mapping[str, Any],
    n_splits: int,
    *,
    levels: Any = None,
    refit: bool = True,
) -> pd.DataFrame:
    """The trace of a search over :class:`TimedSVC` from its log and its ``cv_results_``.

    ``results`` holds ``params`` and ``mean_test_score`` in evaluation order;
    each candidate took ``n_splits`` fits (and their scores), the refit one
    more fit at the end. ``levels`` (halving: ``n_resources``) makes the
    incumbent the best of the largest level so far.
    """
    tasks = _fit_tasks(log)
    n = len(results["params"])
    if len(tasks) != n * n_splits + int(refit):
        raise RuntimeError(
            f"the fit log holds {len(tasks)} fits for {n} candidates x {n_splits} folds"
            f"{' and a refit' if refit else ''}: did the search run with n_jobs=1?"
        )
    per_task = [(sum(r.cpu_seconds for r in task), task[0].n_iter) for task in tasks]
    cost = np.array(per_task[: n * n_splits]).reshape(n, n_splits, 2).sum(axis=1)
    return make_trace(
        cost[:, 0],
        cost[:, 1],
        None,
        [p["C"] for p in results["params"]],
        [p["gamma"] for p in results["params"]],
        results["mean_test_score"],
        levels=levels,
    )


def _final_from_log(log: list[FitRecord], n_evaluations: int, params: Mapping, score: float):
    fits = [r.n_iter for r in log if r.call == "fit"]
    return {
        "cpu_seconds": float(sum(r.cpu_seconds for r in log)),
        "n_iter": float(np.sum(fits)),
        "kernel_evaluations": np.nan,
        "n_evaluations": n_evaluations,
        "C": float(params["C"]),
        "gamma": float(params["gamma"]),
        "selection_score": float(score),
    }


def _svc(C: float, gamma: float) -> SVC:
    return SVC(kernel="rbf", C=C, gamma=gamma)


def _folds(budget: Mapping[str, Any], seed: int) -> StratifiedKFold:
    return StratifiedKFold(int(budget["n_folds"]), shuffle=True, random_state=int(seed))


def _sklearn_search(make_search: Callable[[TimedSVC], Any], backend: str = "sklearn") -> Adapter:
    """An adapter running a scikit-learn search over :class:`TimedSVC`."""

    def adapter(budget, space, X, y, seed) -> MethodResult:
        _svc_class(backend)  # an uninstalled backend is skipped before any work
        key = f"search-{next(_log_keys)}"
        FIT_LOGS[key] = []
        try:
            search = make_search(TimedSVC(log_key=key, backend=backend), budget, space, seed)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", UserWarning)  # failed fits: scored NaN, logged
                try:
                    search.fit(X, y)
                except ValueError as exc:  # scikit-learn's "All the N fits failed."
                    if "fits failed" not in str(exc):
                        raise
                    reason = str(exc).strip().splitlines()[0]
                    raise MethodFailed(
                        f"{type(search).__name__}: {reason} {_failure(exc)}"
                    ) from exc
            log = FIT_LOGS[key]
        finally:
            FIT_LOGS.pop(key, None)
        results = search.cv_results_
        levels = results.get("n_resources")
        trace = trace_from_log(log, results, search.n_splits_, levels=levels)
        score = results["mean_test_score"][search.best_index_]
        final = _final_from_log(log, len(trace), search.best_params_, score)
        return MethodResult(search.best_estimator_, trace, final, _svc, search=search, log=log)

    return adapter


def _failure(exc: ValueError) -> str:
    """The error scikit-learn's message reports for the failed fits (its last line)."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return f"({lines[-1].strip()})" if len(lines) > 1 else ""


def _grid_svc(estimator, budget, space, seed):
    C, gamma = space.grid()
    return GridSearchCV(
        estimator, {"C": C, "gamma": gamma}, cv=_folds(budget, seed), n_jobs=1, refit=True
    )


def _random_svc(estimator, budget, space, seed):
    return RandomizedSearchCV(
        estimator, space.distributions(), n_iter=int(budget["n_iter"]), cv=_folds(budget, seed),
        n_jobs=1, refit=True, random_state=int(seed),
    )  # fmt: skip


def _halving_svc(estimator, budget, space, seed):
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingRandomSearchCV

    return HalvingRandomSearchCV(
        estimator, space.distributions(), n_candidates=int(budget["n_candidates"]),
        factor=budget["factor"], resource="n_samples", cv=_folds(budget, seed), n_jobs=1,
        refit=True, random_state=int(seed),
    )  # fmt: skip


def optuna_svc(budget, space, X, y, seed) -> MethodResult:
    """Optuna's TPE (seeded) over C and gamma, each trial's value its k-fold CV accuracy."""
    import optuna
    from sklearn.model_selection import cross_val_score

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    key = f"optuna-{next(_log_keys)}"
    FIT_LOGS[key] = []
    folds = _folds(budget, seed)
    bounds = {"C": 2.0 ** np.asarray(space.log2_C), "gamma": 2.0 ** np.asarray(space.log2_gamma)}

    def objective(trial) -> float:
        params = {name: trial.suggest_float(name, *b, log=True) for name, b in bounds.items()}
        model = TimedSVC(log_key=key, **params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return float(np.mean(cross_val_score(model, X, y, cv=folds, n_jobs=1)))

    try:
        sampler = optuna.samplers.TPESampler(seed=int(seed))
        study = optuna.create_study(direction="maximize", sampler=sampler)
        study.optimize(objective, n_trials=int(budget["n_trials"]))
        best = study.best_trial
        model = TimedSVC(log_key=key, **best.params).fit(X, y)
        log = FIT_LOGS[key]
    finally:
        FIT_LOGS.pop(key, None)
    trials = study.trials
    results = {
        "params": [t.params for t in trials],
        "mean_test_score": [np.nan if t.value is None else t.value for t in trials],
    }
    trace = trace_from_log(log, results, folds.get_n_splits())
    final = _final_from_log(log, len(trace), best.params, best.value)
    return MethodResult(model, trace, final, _svc, search=study, log=log)


# --- esmo's methods ------------------------------------------------------------------------


def _smo(C: float, gamma: float) -> SMOClassifier:
    return SMOClassifier(kernel="rbf", C=C, gamma=gamma)


def _timed_refit(model: Any, X: np.ndarray, y: np.ndarray) -> float:
    start = time.process_time()
    model.fit(X, y)
    return time.process_time() - start


def esmo_mdl(budget, space, X, y, seed) -> MethodResult:
    """MDLSearch on sec 2's grid (every candidate on all the training rows, no validation data)."""
    C, gamma = space.grid()
    search = MDLSearch(SMOClassifier(kernel="rbf"), {"C": C, "gamma": gamma}, refit=False)
    start = time.process_time()
    search.fit(X, y)
    seconds = time.process_time() - start
    res = search.cv_results_
    params = res["params"]
    # MDLSearch fits the candidates of one gamma together (its kernel once), in first-appearance order
    first = {}
    for k, p in enumerate(params):
        first.setdefault(p["gamma"], k)
    order = sorted(range(len(params)), key=lambda k: (first[params[k]["gamma"]], k))
    wall = (res["mean_fit_time"] + res["kernel_time"])[order]
    trace = make_trace(
        seconds * wall / wall.sum(), res["n_iter"][order], None,
        [params[k]["C"] for k in order], [params[k]["gamma"] for k in order],
        -res["description_length"][order], ties=order,
    )  # fmt: skip
    model = _smo(**search.best_params_)
    refit_seconds = _timed_refit(model, X, y)
    final = {
        "cpu_seconds": seconds + refit_seconds,
        "n_iter": float(res["n_iter"].sum() + np.sum(model.n_iter_)),
        "kernel_evaluations": np.nan,
        "n_evaluations": len(params),
        "C": float(search.best_params_["C"]),
        "gamma": float(search.best_params_["gamma"]),
        "selection_score": float(search.best_score_),
    }
    return MethodResult(model, trace, final, _smo, search=search)


def esmo_path(budget, space, X, y, seed) -> MethodResult:
    """Sec 2's grid as one cross-validated C path per gamma (:func:`esmo.tuning.path.fit_path`):
    the kernel matrix once per gamma for every fold and C, each C warm-started from the one below.

    The folds are ``grid_svc``'s. A path's scores are known when its last fold
    ends, so its CPU seconds (the shared matrix included) are shared out over
    its C in proportion to their fits' seconds; its kernel values are counted
    at its first C, when they are computed. Ties go to the first in
    ``GridSearchCV``'s order (C, then gamma).
    """
    C_grid, gammas = space.grid()
    rows = []
    for g, gamma in enumerate(gammas):
        try:
            path = fit_path(X, y, C_grid, gamma, _folds(budget, seed))
        except ValueError as exc:
            if "shared kernel matrix" not in str(exc):
                raise
            raise MethodFailed(str(exc)) from exc
        per_C = path.fit_seconds.sum(axis=1)
        shares = per_C / per_C.sum() if per_C.sum() > 0 else np.full(len(C_grid), 1 / len(C_grid))
        for c, C in enumerate(C_grid):
            rows.append({
                "cpu_seconds": path.seconds * shares[c],
                "n_iter": float(path.n_iter[c].sum()),
                "kernel_evaluations": float(path.kernel_evaluations if c == 0 else 0),
                "C": C, "gamma": gamma, "score": float(path.mean_scores[c]),
                "tie": c * len(gammas) + g,
            })  # fmt: skip
    table = pd.DataFrame(rows)
    trace = make_trace(
        table["cpu_seconds"], table["n_iter"], table["kernel_evaluations"], table["C"],
        table["gamma"], table["score"], ties=table["tie"],
    )  # fmt: skip
    last = trace.iloc[-1]
    model = _smo(float(last["C"]), float(last["gamma"]))
    refit_seconds = _timed_refit(model, X, y)
    final = {
        "cpu_seconds": float(last["cpu_seconds"]) + refit_seconds,
        "n_iter": float(last["n_iter"]) + float(np.sum(model.n_iter_)),
        "kernel_evaluations": float(last["kernel_evaluations"]) + model.n_kernel_evaluations_,
        "n_evaluations": len(table),
        "C": float(last["C"]),
        "gamma": float(last["gamma"]),
        "selection_score": float(last["selection_score"]),
    }
    return MethodResult(model, trace, final, _smo)


def _gradient(inner: str) -> Adapter:
    def adapter(budget, space, X, y, seed) -> MethodResult:
        """GradientSearchCV on k-fold CV, from C = gamma = 1, in its own box (LOG2_BOUNDS)."""
        search = GradientSearchCV(
            cv=int(budget["n_folds"]), max_fun=int(budget["max_fun"]), inner=inner,
            random_state=int(seed),
        )  # fmt: skip
        search.fit(X, y)
        h = search.history_
        trace = make_trace(
            h["seconds"], h["smo_iterations"], None, 2.0 ** h["log2_C"], 2.0 ** h["log2_gamma"],
            1.0 - h["f"],
        )  # fmt: skip
        final = {
            "cpu_seconds": float(h["seconds"].sum() + search.refit_seconds_),
            "n_iter": float(h["smo_iterations"].sum() + search.model_.n_iter),
            "kernel_evaluations": np.nan,
            "n_evaluations": int(search.n_evaluations_),
            "C": float(search.best_params_["C"]),
            "gamma": float(search.best_params_["gamma"]),
            "selection_score": 1.0 - float(search.best_score_),
        }
        notes = []
        box = (LOG2_BOUNDS["C"], LOG2_BOUNDS["gamma"])
        if box != (tuple(space.log2_C), tuple(space.log2_gamma)):
            notes.append(f"GradientSearchCV searches its own box log2 (C, gamma) in {box}")
        return MethodResult(search, trace, final, _smo, search=search, notes=notes)

    return adapter


def _ensemble(grid_search: str) -> Adapter:
    def adapter(budget, space, X, y, seed) -> MethodResult:
        """SVMEnsembleClassifier with sec 2's grid; one record: an ensemble has no incumbent
        before its members are trained, and no (C, gamma) of its own."""
        C, gamma = space.grid()
        model = SVMEnsembleClassifier(
            n_subensembles=int(budget["n_subensembles"]),
            train_proportion=float(budget["train_proportion"]), C_grid=C, gamma_grid=gamma,
            grid_search=grid_search, random_state=int(seed),
        )  # fmt: skip
        model.fit(X, y)
        fits = model.fits_
        search = fits["stage"] == "search"
        # an evaluation: a grid point's 2-fold CV, or its fit in one halving round
        n_evaluations = int(search.sum()) // (2 if grid_search == "exhaustive" else 1)
        scores = []
        for b, (C_b, gamma_b) in enumerate(model.subensemble_params_):
            chosen = search & (fits["subensemble"] == b) & (fits["C"] == C_b)
            chosen &= fits["gamma"] == gamma_b
            rows = np.flatnonzero(chosen)
            if grid_search == "halving":  # the last round it ran
                rows = rows[fits["index"][rows] == fits["index"][rows].max()]
            scores.append(float(np.mean(fits["val_accuracy"][rows])))
        cost = model.cost_
        final = {
            "cpu_seconds": float(cost["cpu_seconds"]),
            "n_iter": float(cost["n_iter"]),
            "kernel_evaluations": float(cost["kernel_evaluations"]),
            "n_evaluations": n_evaluations,
            "C": np.nan,
            "gamma": np.nan,
            "selection_score": float(np.mean(scores)),
        }
        trace = pd.DataFrame([{"order": 0, **final}], columns=TRACE_COLUMNS)
        return MethodResult(model, trace, final, None, search=model)

    return adapter


def _smo_incumbents(budget: Mapping[str, Any], seed: int, n_rows: int) -> Callable:
    return _smo


def trace_estimator(
    build: Callable[[Mapping[str, Any], SearchSpace, int], Any],
    incumbents: Callable[[Mapping[str, Any], int, int], Callable] = _smo_incumbents,
) -> Adapter:
    """The adapter of any search estimator exposing ``trace_``, ``cost_`` and ``best_estimator_``.

    ``build(budget, space, seed)`` makes the unfitted estimator, and
    ``incumbents(budget, seed, n_rows)`` the incumbents' model factory
    (default: ``SMOClassifier(C, gamma)``). The estimator's ``trace_`` has
    one row per evaluation with :data:`~esmo.benchmark.trace.TRACE_COLUMNS`
    but ``order`` (the row's position is its order); rows whose ``stage`` is
    ``"refit"`` are left out (the final record holds the refit). Its ``cost_``
    has the totals ``cpu_seconds``, ``n_iter``, ``kernel_evaluations``,
    ``n_evaluations``, the final refit included; ``best_params_`` C and gamma,
    ``best_score_`` the pick's score by its criterion.
    """

    def adapter(budget, space, X, y, seed) -> MethodResult:
        search = build(budget, space, seed)
        search.fit(X, y)
        trace = search.trace_
        missing = [c for c in TRACE_COLUMNS[1:] if c not in trace.columns]
        missing += [k for k in FINAL_KEYS[:4] if k not in search.cost_]
        if missing:
            raise ValueError(
                f"{type(search).__name__} lacks {missing} in trace_/cost_; the benchmark reads "
                f"trace_ columns {TRACE_COLUMNS[1:]} and cost_ keys {FINAL_KEYS[:4]}"
            )
        if "stage" in trace.columns:
            trace = trace[trace["stage"] != "refit"]
        trace = trace.reset_index(drop=True).assign(order=lambda t: np.arange(len(t)))
        final = {key: float(search.cost_[key]) for key in FINAL_KEYS[:4]}
        final |= {k: float(search.best_params_[k]) for k in ("C", "gamma")}
        final["selection_score"] = float(search.best_score_)
        make = incumbents(budget, seed, len(y))
        return MethodResult(
            search.best_estimator_, trace[TRACE_COLUMNS], final, make, search=search
        )

    return adapter


def _rule(budget: Mapping[str, Any]) -> EarlyStopping:
    """The protocol's early-stopping rule (``benchmark.early_stopping``) as a configuration."""
    rule = budget["early_stopping"]
    return EarlyStopping(
        patience=int(rule["patience"]), tol=float(rule["es_tol"]), interval=int(rule["interval"])
    )


def _tuning(search: str, *, early: bool = False, **fixed: Any) -> Callable:
    """A build of one of esmo.tuning's searches: its budget, sec 2's box, the holdout share,
    the protocol's early-stopping rule where ``early``."""
    cls = {
        "random": RandomSearchSVM,
        "halving": SuccessiveHalvingSVM,
        "hyperband": HyperbandSVM,
        "optuna": OptunaSearchSVM,
    }[search]

    def build(budget, space, seed):
        counts = {"random": "n_iter", "halving": "n_candidates", "optuna": "n_trials"}
        sized = {counts[search]: int(budget["n_configs"])} if search in counts else {}
        return cls(
            param_distributions=space.distributions(),
            validation_fraction=float(budget["holdout_fraction"]),
            early_stopping=_rule(budget) if early else False,
            random_state=int(seed),
            **sized,
            **fixed,
        )

    return build


def _pegasos_search(budget, space, seed):
    """The NSVM paper's method: kernel Pegasos's random search, early-stopped on a holdout."""
    return PegasosRandomSearch(
        n_configs=int(budget["n_configs"]), log2_C=space.log2_C, log2_gamma=space.log2_gamma,
        early_stopping=budget["early_stopping"], holdout_fraction=float(budget["holdout_fraction"]),
        epochs=float(budget["epochs"]), random_state=int(seed),
    )  # fmt: skip


def _pegasos_incumbents(budget: Mapping[str, Any], seed: int, n_rows: int) -> Callable:
    """Kernel Pegasos at an incumbent's (C, gamma): ``epochs`` passes over the rows, no stopping."""
    steps = max(1, round(float(budget["epochs"]) * n_rows))
    return lambda C, gamma: PegasosClassifier(C=C, gamma=gamma, n_steps=steps, random_state=seed)


@dataclass(frozen=True)
class Method:
    """A registered method: its adapter and the config keys it reads.

    ``budget``: its keys under ``benchmark.budgets.<name>``, of which
    ``counts`` count fits or evaluations (at least one); ``shared``: the
    protocol's keys it reads (``n_folds``, ``holdout_fraction``,
    ``early_stopping``); ``grid``: it searches sec 2's grid (reads the grid
    step); ``compiled``: it runs numba code (warmed up first).
    """

    name: str
    adapter: Adapter
    budget: tuple[str, ...] = ()
    counts: tuple[str, ...] = ()
    shared: tuple[str, ...] = ()
    grid: bool = False
    compiled: bool = True


_CV = {"shared": ("n_folds",), "compiled": False}  # scikit-learn and Optuna over SVC
_HOLDOUT = {"budget": ("n_configs",), "counts": ("n_configs",), "shared": ("holdout_fraction",)}
_HOLDOUT_ES = {**_HOLDOUT, "shared": ("holdout_fraction", "early_stopping")}
_ENSEMBLE = {"budget": ("n_subensembles", "train_proportion"), "counts": ("n_subensembles",)}
_GRADIENT = {"budget": ("max_fun",), "counts": ("max_fun",), "shared": ("n_folds",)}
_N_ITER = {"budget": ("n_iter",), "counts": ("n_iter",)}

#: Sec 5's methods by name, each with its adapter and the config keys it reads.
#:
#: :meta hide-value:
METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("grid_svc", _sklearn_search(_grid_svc), grid=True, **_CV),
        Method("random_svc", _sklearn_search(_random_svc), **_N_ITER, **_CV),
        Method(
            "halving_svc",
            _sklearn_search(_halving_svc),
            budget=("n_candidates", "factor"),
            counts=("n_candidates",),
            **_CV,
        ),
        Method("optuna_svc", optuna_svc, budget=("n_trials",), counts=("n_trials",), **_CV),
        Method("sklearnex_svc", _sklearn_search(_random_svc, "sklearnex"), **_N_ITER, **_CV),
        # the thesis's searches and beyond them (esmo.tuning's estimators)
        Method("esmo_rs", trace_estimator(_tuning("random")), **_HOLDOUT),
        Method("esmo_rs_es", trace_estimator(_tuning("random", early=True)), **_HOLDOUT_ES),
        Method("esmo_sh", trace_estimator(_tuning("halving")), **_HOLDOUT),
        Method("esmo_sh_es", trace_estimator(_tuning("halving", early=True)), **_HOLDOUT_ES),
        Method("esmo_sh_iter", trace_estimator(_tuning("halving", resource="n_iter")), **_HOLDOUT),
        Method(
            "esmo_hyperband", trace_estimator(_tuning("hyperband")), shared=("holdout_fraction",)
        ),
        Method("esmo_optuna", trace_estimator(_tuning("optuna")), **_HOLDOUT),
        Method("esmo_gradient", _gradient("exact"), **_GRADIENT),
        Method("esmo_gradient_es", _gradient("early_stopped"), **_GRADIENT),
        Method("esmo_mdl", esmo_mdl, grid=True),
        Method("esmo_path", esmo_path, grid=True, shared=("n_folds",)),
        Method("esmo_ensemble", _ensemble("exhaustive"), grid=True, **_ENSEMBLE),
        Method("esmo_ensemble_halving", _ensemble("halving"), grid=True, **_ENSEMBLE),
        Method(
            "esmo_pegasos_es",
            trace_estimator(_pegasos_search, _pegasos_incumbents),
            **{**_HOLDOUT_ES, "budget": ("n_configs", "epochs")},
        ),
    )
}


def get_method(name: str) -> Method:
    """The registered method ``name``, with a clear error for an unknown one."""
    if name in METHODS:
        return METHODS[name]
    raise KeyError(f"unknown method {name!r}; known: {', '.join(METHODS)}")
