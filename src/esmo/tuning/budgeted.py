"""What every budget-aware SVM search shares: the space, the holdout, the metered fits, the trace.

The searches of :mod:`esmo.tuning.estimators` and
:mod:`esmo.tuning.optuna_search` tune (C, gamma) of an RBF
:class:`~esmo.estimators.smo_classifier.SMOClassifier` on one stratified
holdout of the training data, each spending its compute its own way (samples,
SMO iterations, pruned trials). The budget benchmark
(docs/benchmark-protocol.md sec 3-4) compares them by the accuracy they reach
for what they spend, so every search records its cost the same way, here:

- **the space** (:func:`search_space`): ``param_distributions`` as in
  ``RandomizedSearchCV`` (a scipy distribution, a list, or a ``(low, high)``
  pair read as log-uniform bounds), HPOBench's box (:data:`DEFAULT_SPACE`) for
  what it leaves out; an empty range is refused before any fit;
- **the holdout**: ``validation_fraction`` of the rows, stratified and seeded
  by ``random_state`` (the split :class:`SMOClassifier` makes for its own early
  stopping), or the ``X_val, y_val`` given to ``fit``; both parts must hold
  every class;
- **the metered fit** (:class:`MeteredFit`): CPU seconds by
  ``time.process_time`` (every thread of the process), SMO iterations and
  kernel values (the fit's ``n_kernel_evaluations_`` plus the holdout
  prediction's rows times support vectors) of one evaluation;
- **the incumbent** (:func:`outranks`): an evaluation on a larger budget
  outranks any on a smaller one, then the higher holdout accuracy, then the
  earlier evaluation (the thesis's tie rule);
- **what ``fit`` leaves**: ``best_params_``, ``best_score_``, ``best_index_``,
  ``best_estimator_`` (the best configuration refitted on all of ``X``, ``y``,
  its cost charged), ``cv_results_``, ``cost_`` and ``trace_``.

``trace_`` has one row per evaluation in the order done, then (with
``refit=True``) one for the refit: the cost spent until that row ended
(cumulative CPU seconds, SMO iterations, kernel values, evaluations, fits) and
the incumbent at that point (``C``, ``gamma``, ``selection_score``) with
``incumbent_changed`` where it changed. The last row is the whole fit's cost,
its bookkeeping included, and equals ``cost_``; the benchmark's anytime
records (protocol sec 4) are its rows where the incumbent changed, and its
last.

numba compiles the solver on its first call (then caches it on disk): fit one
small SMOClassifier before timing a search, or the compilation is charged.
"""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats
from sklearn.base import MetaEstimatorMixin, clone
from sklearn.model_selection import ParameterSampler
from sklearn.utils import check_random_state

from esmo.early_stopping import J_HIGH, EarlyStopping
from esmo.estimators import base
from esmo.estimators.base import RefittedSearchMixin, SVMClassifierBase
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.solver import sparse

#: The hyperparameters the searches tune.
SEARCHED = ("C", "gamma")
#: HPOBench's SVM box (docs/benchmark-protocol.md sec 2): C and gamma log-uniform in
#: [2^-10, 2^10], the space of a name ``param_distributions`` leaves out.
DEFAULT_SPACE: dict[str, tuple[float, float]] = {
    "C": (2.0**-10, 2.0**10),
    "gamma": (2.0**-10, 2.0**10),
}
#: scipy's names of the distributions whose bounds Optuna can sample between, and
#: whether on a log scale.
BOUNDED_FAMILIES = {"loguniform": True, "reciprocal": True, "uniform": False}

#: Columns of ``trace_``, one row per evaluation (then the refit).
TRACE_COLUMNS = [
    "stage",
    "index",
    "config_id",
    "score",
    "cpu_seconds",
    "n_iter",
    "kernel_evaluations",
    "n_evaluations",
    "n_fits",
    "C",
    "gamma",
    "selection_score",
    "incumbent_changed",
]


@dataclass(frozen=True)
class Dimension:
    """One searched hyperparameter: what :class:`ParameterSampler` draws from, and its bounds.

    ``log`` is True (log-uniform) or False (uniform) between ``low`` and
    ``high``, or None for a list of values (``choices``) or a distribution of
    another family (bounds from its support; Optuna cannot sample it).
    """

    name: str
    sampler: Any
    low: float
    high: float
    log: bool | None
    choices: tuple = ()


def _dimension(name: str, value: Any) -> Dimension:
    where = f"param_distributions[{name!r}]"
    if isinstance(value, tuple):
        if len(value) != 2 or not all(isinstance(v, Real) for v in value):
            raise ValueError(f"{where} = {value!r}: give log-uniform bounds as (low, high)")
        low, high = float(value[0]), float(value[1])
        if not (0 < low < high < math.inf):
            raise ValueError(
                f"{where} = {value!r} is an empty or non-positive range; give (low, high) with "
                f"0 < low < high, e.g. {DEFAULT_SPACE[name]}"
            )
        return Dimension(name, stats.loguniform(low, high), low, high, True)
    if isinstance(value, list | np.ndarray):
        choices = tuple(float(v) for v in value)
        if not choices or not all(0 < v < math.inf for v in choices):
            raise ValueError(f"{where} = {value!r}: give a non-empty list of positive values")
        return Dimension(name, list(choices), min(choices), max(choices), None, choices)
    if not callable(getattr(value, "rvs", None)):
        raise TypeError(
            f"{where} must be a scipy distribution (with rvs), a list of values or (low, high) "
            f"log-uniform bounds, got {type(value).__name__}"
        )
    low, high = (float(b) for b in value.support()) if hasattr(value, "support") else (0, math.inf)
    if not (0 <= low < high):
        raise ValueError(
            f"{where} has the support [{low}, {high}]: an empty range (low >= high, or arguments "
            "the distribution refuses) or negative values; e.g. scipy.stats.loguniform(low, high) "
            "with 0 < low < high"
        )
    family = getattr(getattr(value, "dist", None), "name", None)
    return Dimension(name, value, low, high, BOUNDED_FAMILIES.get(family))


def search_space(param_distributions: Mapping[str, Any] | None) -> dict[str, Dimension]:
    """The checked space over :data:`SEARCHED`: the given distributions, :data:`DEFAULT_SPACE` else."""
    given = dict(param_distributions or {})
    unknown = sorted(set(given) - set(SEARCHED))
    if unknown:
        raise ValueError(
            f"param_distributions names {unknown}; the searches tune {list(SEARCHED)} of an RBF "
            "SVM (set other SMOClassifier settings on the estimator)"
        )
    return {name: _dimension(name, given.get(name, DEFAULT_SPACE[name])) for name in SEARCHED}


def sample_candidates(space: Mapping[str, Dimension], n: int, random_state: Any) -> list[dict]:
    """``n`` configurations drawn by scikit-learn's ``ParameterSampler`` (floats, keys C, gamma)."""
    sampler = ParameterSampler(
        {d.name: d.sampler for d in space.values()}, n, random_state=random_state
    )
    return [{name: float(params[name]) for name in SEARCHED} for params in sampler]


def integer_seed(random_state: Any) -> int | None:
    """An int seed for libraries that take one (Optuna): the int itself, or one drawn from the state."""
    if random_state is None or isinstance(random_state, Integral):
        return random_state
    return int(check_random_state(random_state).randint(np.iinfo(np.int32).max))


@dataclass
class Evaluation:
    """One configuration scored on the holdout at one budget, with what it cost.

    ``budget`` is what the search granted (rows or SMO iterations; 0 for a
    search with one budget for all); ``elapsed`` the search's CPU seconds when
    the evaluation ended; ``fitted`` whether an SMO fit ran (a survivor that had
    converged is scored again without one); ``eligible`` whether it may become
    the incumbent (a pruned trial may not); ``extra`` its search's own
    ``cv_results_`` columns.
    """

    config_id: int
    params: dict[str, float]
    score: float = math.nan
    budget: float = 0.0
    n_iter: int = 0
    kernel_evaluations: int = 0
    cpu_seconds: float = 0.0
    elapsed: float = math.nan
    fitted: bool = True
    stopped_early: bool = False
    max_iter_reached: bool = False
    eligible: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def outranks(a: Evaluation, b: Evaluation | None) -> bool:
    """Whether ``a`` beats the incumbent ``b``: a larger budget, else a strictly higher score.

    A larger budget wins whatever the scores: a fit on more samples or SMO
    iterations is the better-founded estimate (successive halving and Hyperband
    hand back the best of their largest budget). On equal budgets equal scores
    keep ``b``, the earlier evaluation.
    """
    if not a.eligible:
        return False
    return b is None or a.budget > b.budget or (a.budget == b.budget and a.score > b.score)


class CostLedger:
    """A search's evaluations in the order done, each stamped with the CPU seconds spent so far."""

    def __init__(self) -> None:
        self.start = time.process_time()
        self.evaluations: list[Evaluation] = []

    def seconds(self) -> float:
        """CPU seconds since the search began (``time.process_time``: every thread)."""
        return time.process_time() - self.start

    def add(self, evaluation: Evaluation) -> Evaluation:
        evaluation.elapsed = self.seconds()
        self.evaluations.append(evaluation)
        return evaluation


class MeteredFit:
    """A candidate's SMOClassifier whose fit and holdout scoring are charged to a ledger.

    ``fit`` then ``predict`` (or :meth:`evaluate`) make one
    :class:`Evaluation`, recorded when the prediction ends; it is also the
    ``make_estimator`` product the thesis's drivers
    (:func:`esmo.tuning.search.random_search`, ``successive_halving``) fit and
    score, so the estimators run on them unchanged. A fit continued by
    ``warm_start`` is charged only the iterations it added. The search checked
    the data and the settings once, so each fit and prediction skips the checks
    (``check_input=False``, as the ensembles' grid searches do): on small
    budgets they would cost as much as SMO.
    """

    def __init__(self, estimator: SMOClassifier, ledger: CostLedger, config_id: int) -> None:
        self.estimator = estimator
        self.ledger = ledger
        self.config_id = config_id
        self.params = {name: float(estimator.get_params()[name]) for name in SEARCHED}
        self.score = math.nan
        self._start = 0.0
        self._before = 0

    @property
    def n_iter_(self) -> int:
        return self.estimator.n_iter_

    @property
    def stopped_early_(self) -> bool:
        return self.estimator.stopped_early_

    @property
    def done(self) -> bool:
        """Converged or stopped early: more iterations would not change it."""
        return hasattr(self.estimator, "n_iter_") and not self.estimator.max_iter_reached_

    def fit(self, X: np.ndarray, y: np.ndarray, **fit_params: Any) -> MeteredFit:
        self._start = time.process_time()
        resumed = self.estimator.warm_start and hasattr(self.estimator, "n_iter_")
        self._before = self.estimator.n_iter_ if resumed else 0
        self.estimator.fit(X, y, check_input=False, **fit_params)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        predictions = self.estimator.predict(X, check_input=False)
        self._record(X.shape[0])
        return predictions

    def evaluate(self, X_val: np.ndarray, y_val: np.ndarray) -> Evaluation:
        """Score the fitted model on the holdout (its accuracy) and record the evaluation."""
        predictions = self.estimator.predict(X_val, check_input=False)
        self.score = float(np.mean(predictions == y_val))
        evaluation = self._record(X_val.shape[0])
        evaluation.score = self.score
        return evaluation

    def record_unscored(self) -> Evaluation:
        """Record a fit that is not scored (a pruned trial): its cost, no score, not eligible."""
        evaluation = self._record(0)
        evaluation.eligible = False
        return evaluation

    def record_unchanged(self) -> Evaluation:
        """Record the model scored again without a fit (it converged): its score, no cost."""
        est = self.estimator
        return self.ledger.add(
            Evaluation(
                self.config_id,
                self.params,
                self.score,
                fitted=False,
                stopped_early=bool(est.stopped_early_),
                max_iter_reached=bool(est.max_iter_reached_),
            )
        )

    def _record(self, n_predicted: int) -> Evaluation:
        est = self.estimator
        kernel_values = est.n_kernel_evaluations_ + est.support_.shape[0] * n_predicted
        return self.ledger.add(
            Evaluation(
                self.config_id,
                self.params,
                n_iter=int(est.n_iter_ - self._before),
                kernel_evaluations=int(kernel_values),
                cpu_seconds=time.process_time() - self._start,
                stopped_early=bool(est.stopped_early_),
                max_iter_reached=bool(est.max_iter_reached_),
            )
        )


class BudgetedSVMSearch(RefittedSearchMixin, MetaEstimatorMixin, SVMClassifierBase):
    """The base of the budget-aware searches over (C, gamma) of an RBF SMOClassifier.

    A subclass samples or proposes its candidates in :meth:`_plan` (which
    also checks its budgets: every check runs before the first fit) and
    evaluates them in :meth:`_search`, recording each evaluation in the
    ledger; this class checks the input, splits the holdout, picks the
    incumbent, refits it and writes the results (see the module).

    Parameters shared by every search
    ---------------------------------
    estimator : SMOClassifier or None
        The solver settings of every fit (tol, max_iter, cache_size_mb,
        class_weight ...); ``SMOClassifier()`` if None. Its C and gamma are the
        searched ones; it must use the RBF kernel and ``solver='fan'``, and
        leave ``early_stopping`` and ``warm_start`` to the search.
    param_distributions : dict or None
        ``{"C": ..., "gamma": ...}``: scipy distributions or lists as in
        ``RandomizedSearchCV``, or ``(low, high)`` log-uniform bounds; a name left
        out takes HPOBench's box, log-uniform in [2^-10, 2^10].
    early_stopping : bool or EarlyStopping
        Stop each candidate's fit on its holdout accuracy: True is the thesis's
        j_high (:data:`esmo.early_stopping.J_HIGH`: patience 109, es_tol 0.000229,
        every iteration), or give an :class:`~esmo.early_stopping.EarlyStopping`.
    validation_fraction : float
        The share of the rows held out (stratified) to score the candidates, when
        ``fit`` gets no ``X_val, y_val``.
    refit : bool
        Refit the best configuration on all of ``X, y`` as ``best_estimator_``
        (solved to the estimator's tol, without early stopping or an iteration
        budget: the SVM at the chosen (C, gamma), as scikit-learn's searches
        refit); its cost is charged (protocol sec 3).
    random_state : int, RandomState or None
        Seeds the holdout split and the candidates (and the search's own draws).

    Attributes
    ----------
    best_params_
    best_score_
        Holdout accuracy.
    best_index_
        Into ``cv_results_``.
    best_estimator_
        With ``refit``.
    cv_results_
        One entry per evaluation: ``params``, ``param_C``, ``param_gamma``, ``config_id``,
        ``mean_test_score``, ``std_test_score``, ``split0_test_score``,
        ``rank_test_score`` (rank 1 is ``best_index_``; by budget, then score),
        ``n_iter``, ``kernel_evaluations``, ``cpu_seconds``, ``stopped_early``,
        ``max_iter_reached``, and each search's own.
    cost_
        ``cpu_seconds``, ``n_iter``, ``kernel_evaluations``, ``n_evaluations``,
        ``n_fits`` of the whole fit, and the refit's ``refit_cpu_seconds``,
        ``refit_n_iter``, ``refit_kernel_evaluations``.
    trace_
        :data:`TRACE_COLUMNS`.
    classes_, n_features_in_
    """

    _es_params: dict[str, str] = {}  # early stopping is one parameter here, checked as such
    _accept_sparse = sparse.SPARSE_FORMATS  # rows taken by index: CSR stays CSR
    _parameter_constraints: dict = {
        "estimator": [SMOClassifier, None],
        "param_distributions": [dict, None],
        "early_stopping": ["boolean", EarlyStopping],
        "validation_fraction": base.VALIDATION_FRACTION_CONSTRAINT,
        "refit": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        estimator: SMOClassifier | None = None,
        param_distributions: Mapping[str, Any] | None = None,
        early_stopping: bool | EarlyStopping = False,
        validation_fraction: float = base.VALIDATION_FRACTION,
        refit: bool = True,
        random_state: Any = None,
    ) -> None:
        self.estimator = estimator
        self.param_distributions = param_distributions
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.refit = refit
        self.random_state = random_state

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A search's ``__init__(self, ..., **shared)`` gets its own parameters and the shared ones.

        scikit-learn reads an estimator's parameters from its ``__init__``
        signature (``get_params``, ``clone``, the repr); a search lists its own
        and passes ``**shared`` on to this class, and its signature (what
        ``inspect.signature`` and ``help`` show) lists both, the shared ones
        keyword-only, instead of every search repeating them.
        """
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is None:
            return
        own = inspect.signature(init)
        kept = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
        if len(kept) == len(own.parameters):
            return
        names = {p.name for p in kept}
        shared = inspect.signature(BudgetedSVMSearch.__init__).parameters.values()
        kept += [p.replace(kind=p.KEYWORD_ONLY) for p in shared if p.name not in names]
        init.__signature__ = own.replace(parameters=kept)

    # -- what a subclass provides ------------------------------------------------------------

    def _plan(self, space: dict[str, Dimension], y_train: np.ndarray) -> Any:
        """The candidates and budgets, every check of them done (before any fit)."""
        raise NotImplementedError

    def _search(self, plan: Any, ledger: CostLedger, data: tuple[np.ndarray, ...]) -> None:
        """Evaluate the plan on ``data = (X_train, y_train, X_val, y_val)``, recording in ``ledger``."""
        raise NotImplementedError

    # -- fit ----------------------------------------------------------------------------------

    def fit(self, X: Any, y: Any, X_val: Any = None, y_val: Any = None) -> BudgetedSVMSearch:
        """Search on ``(X, y)``: candidates scored on a holdout of it (or on ``X_val, y_val``)."""
        ledger = CostLedger()  # the search's own work starts here
        self._validate_params()
        X, y = self._validate_X(X, y)
        self._set_classes(y)
        space = search_space(self.param_distributions)
        self._smo = self._template()
        data = self._holdout(X, y, X_val, y_val)
        plan = self._plan(space, data[1])
        self._search(plan, ledger, data)
        self._conclude(ledger, X, y)
        return self

    def _template(self) -> SMOClassifier:
        """The estimator every fit clones, checked (before any fit)."""
        template = SMOClassifier() if self.estimator is None else self.estimator
        template._validate_params()
        fixes = {
            "kernel": ("rbf", "the searches tune an RBF SVM: set kernel='rbf'"),
            "solver": ("fan", "warm starts and early stopping need solver='fan'"),
            "early_stopping": (False, "set the search's early_stopping instead"),
            "warm_start": (False, "the search decides which fits resume"),
        }
        for name, (wanted, fix) in fixes.items():
            if getattr(template, name) != wanted:
                raise ValueError(f"estimator has {name}={getattr(template, name)!r}; {fix}")
        return template

    def _early_stopping_settings(self) -> dict[str, Any]:
        """SMOClassifier's early-stopping parameters for ``early_stopping``."""
        if self.early_stopping is False:
            return {"early_stopping": False}
        rule = J_HIGH if self.early_stopping is True else self.early_stopping
        return {"early_stopping": True} | {
            name: getattr(rule, attr) for name, attr in base.ES_PARAMS.items()
        }

    def _fit_params(self, X_val: np.ndarray, y_val: np.ndarray) -> dict[str, Any]:
        """What each candidate's ``fit`` gets: the holdout, when it stops early on it."""
        return {"X_val": X_val, "y_val": y_val} if self.early_stopping is not False else {}

    def _candidate(self, params: Mapping[str, float], **settings: Any) -> SMOClassifier:
        """A fresh SMOClassifier at ``params`` with the search's early stopping (or ``settings``)."""
        settings = self._early_stopping_settings() | settings
        return clone(self._smo).set_params(**params, **settings)

    def _metered(self, config_id: int, params: Mapping[str, float], ledger: CostLedger, **settings):
        return MeteredFit(self._candidate(params, **settings), ledger, config_id)

    def _holdout(self, X: np.ndarray, y: np.ndarray, X_val: Any, y_val: Any) -> tuple:
        """``(X_train, y_train, X_val, y_val)``: the given holdout, or a stratified split of ``X``."""
        self._check_validation_pair(X_val, y_val)
        if X_val is not None:
            X_val, y_val = self._check_validation_data(X_val, y_val)
            parts = (X, y, X_val, y_val)
        else:
            self._check_split_sizes(y)
            (X_train, y_train), (X_val, y_val) = self._split_validation(X, y)
            parts = (X_train, y_train, X_val, y_val)
        for name, labels in (("training part", parts[1]), ("holdout", parts[3])):
            missing = np.setdiff1d(self.classes_, labels)
            if missing.size:
                raise ValueError(
                    f"the {name} ({labels.size} rows) holds no row of class(es) "
                    f"{missing.tolist()}; both parts need both classes: change "
                    f"validation_fraction (now {self.validation_fraction}) or pass X_val and "
                    "y_val holding both classes"
                )
        return parts

    def _check_split_sizes(self, y: np.ndarray) -> None:
        """The stratified split can give each part every class (else a clear error, no fit)."""
        classes, counts = np.unique(y, return_counts=True)
        n_holdout = math.ceil(self.validation_fraction * y.size)
        if counts.min() < 2:
            raise ValueError(
                f"class {classes[np.argmin(counts)]!r} has a single row, which cannot be in both "
                "the training part and the holdout; give more rows of it or pass X_val and y_val"
            )
        if n_holdout < classes.size:
            raise ValueError(
                f"validation_fraction={self.validation_fraction} holds out {n_holdout} of "
                f"{y.size} rows, too few for a row of each of {classes.size} classes; raise "
                "validation_fraction or pass X_val and y_val"
            )
        if y.size - n_holdout < classes.size:
            raise ValueError(
                f"validation_fraction={self.validation_fraction} leaves {y.size - n_holdout} of "
                f"{y.size} rows to train on, too few for a row of each of {classes.size} "
                "classes; lower validation_fraction"
            )

    # -- results ------------------------------------------------------------------------------

    def _conclude(self, ledger: CostLedger, X: np.ndarray, y: np.ndarray) -> None:
        """The incumbent, the refit and every fitted attribute from the ledger."""
        evaluations = ledger.evaluations
        incumbents = _incumbents(evaluations)
        if incumbents[-1] < 0:
            raise ValueError(
                "no evaluation can be handed back (every trial was pruned); raise the number "
                "of trials or give the pruner start-up trials"
            )
        self.best_index_ = int(incumbents[-1])
        best = evaluations[self.best_index_]
        self.best_params_ = dict(best.params)
        self.best_score_ = float(best.score)
        self.cv_results_ = _cv_results(evaluations)
        rows = _trace_rows(evaluations, incumbents)
        refit = {"refit_cpu_seconds": 0.0, "refit_n_iter": 0, "refit_kernel_evaluations": 0}
        if self.refit:
            start = time.process_time()
            model = self._candidate(self.best_params_, early_stopping=False).fit(X, y)
            refit = {
                "refit_cpu_seconds": time.process_time() - start,
                "refit_n_iter": int(model.n_iter_),
                "refit_kernel_evaluations": int(model.n_kernel_evaluations_),
            }
            self.best_estimator_ = model
            rows.append(
                rows[-1]
                | {
                    "stage": "refit",
                    "index": self.best_index_,
                    "config_id": best.config_id,
                    "score": math.nan,
                    "cpu_seconds": ledger.seconds(),
                    "n_iter": rows[-1]["n_iter"] + refit["refit_n_iter"],
                    "kernel_evaluations": rows[-1]["kernel_evaluations"]
                    + refit["refit_kernel_evaluations"],
                    "n_fits": rows[-1]["n_fits"] + 1,
                    "incumbent_changed": False,
                }
            )
        trace = pd.DataFrame(rows, columns=TRACE_COLUMNS)
        # the last row is the whole fit, its bookkeeping included
        trace.loc[trace.index[-1], "cpu_seconds"] = ledger.seconds()
        last = trace.iloc[-1]
        self.trace_ = trace
        self.cost_ = {
            "cpu_seconds": float(last["cpu_seconds"]),
            "n_iter": int(last["n_iter"]),
            "kernel_evaluations": int(last["kernel_evaluations"]),
            "n_evaluations": int(last["n_evaluations"]),
            "n_fits": int(last["n_fits"]),
            **refit,
        }


def _incumbents(evaluations: list[Evaluation]) -> np.ndarray:
    """The position of the incumbent after each evaluation (-1 while there is none)."""
    out = np.full(len(evaluations), -1)
    best = -1
    for i, evaluation in enumerate(evaluations):
        if outranks(evaluation, evaluations[best] if best >= 0 else None):
            best = i
        out[i] = best
    return out


def _trace_rows(evaluations: list[Evaluation], incumbents: np.ndarray) -> list[dict[str, Any]]:
    """``trace_``'s search rows: each evaluation, the cost up to its end, the incumbent after it."""
    rows = []
    n_iter = kernel_evaluations = n_fits = 0
    for i, (evaluation, k) in enumerate(zip(evaluations, incumbents, strict=True)):
        n_iter += evaluation.n_iter
        kernel_evaluations += evaluation.kernel_evaluations
        n_fits += evaluation.fitted
        incumbent = evaluations[k] if k >= 0 else None
        rows.append(
            {
                "stage": "search",
                "index": i,
                "config_id": evaluation.config_id,
                "score": evaluation.score,
                "cpu_seconds": evaluation.elapsed,
                "n_iter": n_iter,
                "kernel_evaluations": kernel_evaluations,
                "n_evaluations": i + 1,
                "n_fits": n_fits,
                "C": incumbent.params["C"] if incumbent else math.nan,
                "gamma": incumbent.params["gamma"] if incumbent else math.nan,
                "selection_score": incumbent.score if incumbent else math.nan,
                "incumbent_changed": bool(k == i),
            }
        )
    return rows


def _cv_results(evaluations: list[Evaluation]) -> dict[str, Any]:
    """``cv_results_`` (scikit-learn's layout): one entry per evaluation, in the order done."""
    scores = np.array([e.score for e in evaluations], dtype=float)
    # rank 1 + how many eligible evaluations outrank it; the ineligible rank last
    eligible = [e for e in evaluations if e.eligible]
    rank = np.array(
        [
            1 + sum(outranks(o, e) for o in eligible) if e.eligible else len(eligible) + 1
            for e in evaluations
        ],
        dtype=np.int32,
    )
    results: dict[str, Any] = {
        "params": [dict(e.params) for e in evaluations],
        **{f"param_{name}": np.array([e.params[name] for e in evaluations]) for name in SEARCHED},
        "config_id": np.array([e.config_id for e in evaluations]),
        "split0_test_score": scores,
        "mean_test_score": scores.copy(),
        "std_test_score": np.where(np.isnan(scores), np.nan, 0.0),
        "rank_test_score": rank,
        "n_iter": np.array([e.n_iter for e in evaluations], dtype=np.int64),
        "kernel_evaluations": np.array([e.kernel_evaluations for e in evaluations], dtype=np.int64),
        "cpu_seconds": np.array([e.cpu_seconds for e in evaluations]),
        "stopped_early": np.array([e.stopped_early for e in evaluations]),
        "max_iter_reached": np.array([e.max_iter_reached for e in evaluations]),
    }
    for key in dict.fromkeys(k for e in evaluations for k in e.extra):
        results[key] = np.array([e.extra[key] for e in evaluations])
    return results
