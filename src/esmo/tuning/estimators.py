"""Random search, successive halving and Hyperband over (C, gamma), as scikit-learn estimators.

Each search is one of the budget benchmark's methods (docs/benchmark-protocol.md
sec 5), usable outside the workflow like ``HalvingRandomSearchCV``: ``fit``,
then ``best_params_``, ``best_estimator_``, ``cv_results_``, and what the
search spent, ``cost_`` and ``trace_`` (:mod:`esmo.tuning.budgeted`).

- :class:`RandomSearchSVM` is the thesis's random search (E3), run by
  :func:`esmo.tuning.search.random_search` itself.
- :class:`SuccessiveHalvingSVM` with ``resource="n_samples"`` is the thesis's
  successive halving (E4, eq. 2.21-2.22), run by
  :func:`esmo.tuning.search.successive_halving`; with ``resource="n_iter"`` the
  budget is SMO iterations and a surviving fit *resumes* (``warm_start``
  continues a fit cut by ``max_iter`` exactly) instead of restarting, which
  scikit-learn's halving cannot do for SVC.
- :class:`HyperbandSVM` is Hyperband (Li, Jamieson, DeSalvo, Rostamizadeh and
  Talwalkar, "Hyperband: a novel bandit-based approach to hyperparameter
  optimization", JMLR 18(185), 2018, algorithm 1) with the same resumed
  iteration budgets: brackets of successive halving, from many configurations
  on a small budget to a few on the largest.

The iteration searches run their rounds in the one successive-halving engine,
:func:`esmo.tuning.halving.run_halving`.
"""

from __future__ import annotations

import warnings
from numbers import Integral
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.tuning.budgeted import BudgetedSVMSearch, CostLedger, MeteredFit, sample_candidates
from esmo.tuning.halving import MIN_PER_CLASS, HalvingRound, run_halving
from esmo.tuning.search import random_search, successive_halving, successive_halving_schedule

#: The resources :class:`SuccessiveHalvingSVM` can spend.
RESOURCES = ("n_samples", "n_iter")
#: ``max_resources="auto"``: the largest iteration budget is this many SMO iterations per
#: training row. LIBSVM's iteration count grows about linearly with the rows; at twice
#: their number most fits over HPOBench's box converge (w1a, breast cancer), so the
#: last round mostly finishes the fits it resumes.
AUTO_ITERATIONS_PER_ROW = 2
#: ``min_resources="auto"`` of Hyperband: the largest budget over ``eta**4``, the
#: paper's five brackets (R = 81 with eta = 3).
AUTO_HYPERBAND_RATIO_EXPONENT = 4

_POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]


def _largest_power(eta: int, limit: int) -> int:
    """The largest ``s`` with ``eta**s <= limit`` (integer arithmetic: no rounding of logs)."""
    s = 0
    while eta ** (s + 1) <= limit:
        s += 1
    return s


def _geometric_rounds(n: int, max_budget: int, eta: int, s: int) -> list[HalvingRound]:
    """Li et al.'s successive halving in ``s + 1`` rounds: ``floor(n / eta**i)`` fits of ``R / eta**(s - i)``."""
    return [HalvingRound(n // eta**i, max_budget // eta ** (s - i)) for i in range(s + 1)]


def iteration_halving_schedule(
    n_candidates: int, max_resources: int, eta: int
) -> list[HalvingRound]:
    """Successive halving on iterations: each round keeps ``1 / eta`` and multiplies the budget by eta.

    ``s = floor(log_eta n_candidates)``; round i runs ``floor(n / eta**i)``
    candidates on ``floor(max_resources / eta**(s - i))`` SMO iterations, so
    the last round runs 1 to ``eta - 1`` candidates on ``max_resources``: the
    rounds of one Hyperband bracket (Li et al. 2018, the inner loop of
    algorithm 1). A first round below one iteration is refused.
    """
    s = _largest_power(eta, n_candidates)
    rounds = _geometric_rounds(n_candidates, max_resources, eta, s)
    if rounds[0].budget < 1:
        raise ValueError(
            f"max_resources={max_resources} is below one SMO iteration per fit in the first "
            f"round: {n_candidates} candidates with eta={eta} take {s + 1} rounds, the first on "
            f"max_resources / {eta**s}; raise max_resources to at least {eta**s} or lower "
            "n_candidates"
        )
    return rounds


def hyperband_brackets(
    max_resources: int, eta: int, min_resources: int = 1
) -> list[list[HalvingRound]]:
    """Hyperband's brackets (Li et al. 2018, algorithm 1), the most explorative first.

    With ``R = max_resources / min_resources`` and ``s_max = floor(log_eta R)``,
    bracket ``s = s_max, ..., 0`` starts ``n = ceil((s_max + 1) / (s + 1) *
    eta**s)`` configurations on ``r = R eta**-s`` and runs successive halving:
    round i keeps ``floor(n eta**-i)`` of them on ``r eta**i``. Budgets are in
    the unit of the caller (SMO iterations): ``floor(max_resources /
    eta**(s - i))``, at least ``min_resources``. For R = 81, eta = 3 this is the
    paper's table 1.
    """
    if min_resources < 1 or max_resources < min_resources:
        raise ValueError(
            f"Hyperband needs 1 <= min_resources <= max_resources, got min_resources="
            f"{min_resources}, max_resources={max_resources}: a budget below one SMO iteration "
            "is no fit; raise max_resources or lower min_resources"
        )
    s_max = _largest_power(eta, max_resources // min_resources)
    brackets = []
    for s in range(s_max, -1, -1):
        n = -(-(s_max + 1) * eta**s // (s + 1))  # ceil, in integers
        brackets.append(_geometric_rounds(n, max_resources, eta, s))
    return brackets


def _run_thesis_driver(
    search: BudgetedSVMSearch,
    driver: Any,
    candidates: list[dict[str, float]],
    ledger: CostLedger,
    data: tuple[np.ndarray, ...],
    **kwargs: Any,
) -> None:
    """Run one of the thesis's drivers (E3/E4) on metered SMOClassifiers, scores into the ledger."""
    X_train, y_train, X_val, y_val = data

    def make(row: pd.Series) -> MeteredFit:
        config_id = int(row["config_id"])
        return search._metered(config_id, candidates[config_id], ledger)

    configs = pd.DataFrame(candidates, columns=["C", "gamma"])
    result = driver(
        make,
        configs.rename_axis("config_id").reset_index(),
        X_train,
        y_train,
        X_val,
        y_val,
        fit_params=search._fit_params(X_val, y_val),
        **kwargs,
    )
    # the driver scores each fit right after the prediction that recorded it: the same order
    for evaluation, trial in zip(ledger.evaluations, result.trials.itertuples(), strict=True):
        evaluation.score = float(trial.val_accuracy)
        if driver is successive_halving:
            evaluation.budget = float(trial.n_samples)
            evaluation.extra = {"iter": int(trial.round), "n_resources": int(trial.n_samples)}


def _resumed_halving(
    search: BudgetedSVMSearch,
    candidates: dict[int, dict[str, float]],
    schedule: list[HalvingRound],
    ledger: CostLedger,
    data: tuple[np.ndarray, ...],
    extra: dict[str, Any] | None = None,
) -> dict[int, SMOClassifier]:
    """Successive halving on SMO iterations in which a survivor's fit resumes where it stopped.

    Round t continues each survivor's SMOClassifier (``warm_start=True``, the
    same training part) up to the round's budget, so its total iterations are
    those of one fit to its last budget; a fit that converged or stopped early
    is scored again without a fit. ``candidates`` maps config ids to
    parameters; ``extra`` adds ``cv_results_`` columns. Returns the last
    round's fitted models by config id.
    """
    X_train, y_train, X_val, y_val = data
    fit_params = search._fit_params(X_val, y_val)
    fits: dict[int, MeteredFit] = {}

    def fit_and_score(t: int, config_id: int, budget: int) -> tuple[float, Any]:
        if config_id not in fits:
            fits[config_id] = search._metered(
                config_id, candidates[config_id], ledger, warm_start=True
            )
        metered = fits[config_id]
        if metered.done:
            evaluation = metered.record_unchanged()
        else:
            metered.estimator.set_params(max_iter=budget)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)  # budgets are meant to cut fits
                metered.fit(X_train, y_train, **fit_params)
            evaluation = metered.evaluate(X_val, y_val)
        evaluation.budget = float(budget)
        evaluation.extra = {**(extra or {}), "iter": t, "n_resources": int(budget)}
        return evaluation.score, evaluation

    ids = list(candidates)
    run = run_halving(ids, schedule, lambda budget: budget, fit_and_score, tie="first")
    last = len(schedule) - 1
    return {
        ids[t.candidate]: fits[ids[t.candidate]].estimator for t in run.trials if t.round == last
    }


def _auto_max_resources(max_resources: int | str, n_train: int) -> int:
    return AUTO_ITERATIONS_PER_ROW * n_train if max_resources == "auto" else int(max_resources)


class RandomSearchSVM(BudgetedSVMSearch):
    """The thesis's random search (E3): ``n_iter`` sampled configurations, each fitted once.

    Every configuration is fitted on the training part and scored on the
    holdout; the best holdout accuracy wins, ties to the earlier one. With
    ``early_stopping`` (True: the thesis's j_high) each fit stops on the
    holdout accuracy: the thesis's RS+ES. The search is
    :func:`esmo.tuning.search.random_search`, the function behind E3's tables,
    so this estimator and E3 cannot drift apart.

    Parameters
    ----------
    n_iter : int
        How many configurations are sampled (``RandomizedSearchCV``'s name).

    The shared parameters and the attributes: :class:`~esmo.tuning.budgeted.BudgetedSVMSearch`.
    """

    _parameter_constraints: dict = {
        **BudgetedSVMSearch._parameter_constraints,
        "n_iter": _POSITIVE_INT,
    }

    def __init__(
        self,
        estimator: SMOClassifier | None = None,
        param_distributions: dict | None = None,
        *,
        n_iter: int = 10,
        **shared: Any,
    ) -> None:
        super().__init__(estimator, param_distributions, **shared)
        self.n_iter = n_iter

    def _plan(self, space, y_train):
        return sample_candidates(space, self.n_iter, self.random_state)

    def _search(self, plan, ledger, data):
        _run_thesis_driver(self, random_search, plan, ledger, data)


class SuccessiveHalvingSVM(BudgetedSVMSearch):
    """Successive halving over sampled configurations, on training rows or on SMO iterations.

    ``resource="n_samples"`` is the thesis's E4 (eq. 2.21-2.22, run by
    :func:`esmo.tuning.search.successive_halving`): k candidates, round t keeps
    ``floor(k / 2**t)`` of them and fits each afresh on a stratified subsample
    of ``floor(n / k_t)`` training rows, the last one on all of them.

    ``resource="n_iter"`` spends SMO iterations instead, which only a solver
    that can pause and resume can offer: round i keeps ``floor(k / eta**i)``
    candidates and multiplies the iteration budget by ``eta``, up to
    ``max_resources`` in the last round (:func:`iteration_halving_schedule`),
    and every survivor *continues* its fit on the whole training part
    (``SMOClassifier(warm_start=True)`` with a larger ``max_iter`` continues
    exactly), so a configuration costs the iterations of one fit to its last
    budget, not the sum over its rounds. A fit that converged (or stopped
    early) before its budget is done: later rounds score it again for free.
    Without early stopping a survivor's model equals one fresh fit to its last
    budget; with it, a resumed fit starts its patience again at the resume.

    Parameters
    ----------
    n_candidates : int or 'exhaust'
        How many configurations are sampled for the first round; 'exhaust'
        (samples only): as many as the training part allows, the first round
        training each on two rows of each class (scikit-learn's
        ``HalvingRandomSearchCV`` has the same option).
    resource : {'n_samples', 'n_iter'}
        What a round's budget counts.
    eta : int
        ``resource='n_iter'`` only: each round keeps ``1 / eta`` of the
        candidates and multiplies the budget by eta. Default 2, the thesis's
        halving (scikit-learn's ``factor`` defaults to 3; Hyperband's eta is 3).
    max_resources : int or 'auto'
        ``resource='n_iter'`` only: the last round's SMO iterations per fit;
        'auto' is :data:`AUTO_ITERATIONS_PER_ROW` per training row.

    The shared parameters and the attributes: :class:`~esmo.tuning.budgeted.BudgetedSVMSearch`;
    ``cv_results_`` adds each evaluation's round ``iter`` and budget
    ``n_resources``. With ``resource='n_iter'``, ``final_round_estimators_``
    holds the last round's resumed fits (on the training part) by config id.
    """

    _parameter_constraints: dict = {
        **BudgetedSVMSearch._parameter_constraints,
        "n_candidates": [*_POSITIVE_INT, StrOptions({"exhaust"})],
        "resource": [StrOptions(set(RESOURCES))],
        "eta": [Interval(Integral, 2, None, closed="left")],
        "max_resources": [*_POSITIVE_INT, StrOptions({"auto"})],
    }

    def __init__(
        self,
        estimator: SMOClassifier | None = None,
        param_distributions: dict | None = None,
        *,
        n_candidates: int | str = 32,
        resource: str = "n_samples",
        eta: int = 2,
        max_resources: int | str = "auto",
        **shared: Any,
    ) -> None:
        super().__init__(estimator, param_distributions, **shared)
        self.n_candidates = n_candidates
        self.resource = resource
        self.eta = eta
        self.max_resources = max_resources

    def _plan(self, space, y_train):
        n_candidates = self.n_candidates
        if n_candidates == "exhaust":
            if self.resource != "n_samples":
                raise ValueError(
                    "n_candidates='exhaust' counts the candidates the training rows allow; "
                    "with resource='n_iter' give a number"
                )
            n_candidates = max(1, y_train.size // (MIN_PER_CLASS * np.unique(y_train).size))
        candidates = sample_candidates(space, n_candidates, self.random_state)
        if self.resource == "n_iter":
            budget = _auto_max_resources(self.max_resources, y_train.size)
            return candidates, iteration_halving_schedule(len(candidates), budget, self.eta)
        for name, default in (("eta", 2), ("max_resources", "auto")):
            value = getattr(self, name)
            if value != default:
                raise ValueError(
                    f"{name}={value!r} applies to resource='n_iter'; the thesis's halving on "
                    "samples halves the candidates (eta=2) and ends on all training rows "
                    f"(max_resources='auto'): leave {name} at its default or set resource='n_iter'"
                )
        classes, counts = np.unique(y_train, return_counts=True)
        try:
            if counts.min() < MIN_PER_CLASS:
                raise ValueError(
                    f"the training part holds {counts.min()} row(s) of class "
                    f"{classes[np.argmin(counts)]!r}; a subsample needs {MIN_PER_CLASS}"
                )
            successive_halving_schedule(
                len(candidates), y_train.size, min_samples=MIN_PER_CLASS * classes.size
            )
        except ValueError as error:
            raise ValueError(
                f"n_candidates={self.n_candidates} on {y_train.size} training rows: {error} "
                "(lower n_candidates or validation_fraction, or give more rows)"
            ) from error
        return candidates

    def _search(self, plan, ledger, data):
        if self.resource == "n_samples":
            _run_thesis_driver(
                self, successive_halving, plan, ledger, data, random_state=self.random_state
            )
            return
        candidates, schedule = plan
        self.final_round_estimators_ = _resumed_halving(
            self, dict(enumerate(candidates)), schedule, ledger, data
        )


class HyperbandSVM(BudgetedSVMSearch):
    """Hyperband over (C, gamma) with SMO iterations as the resource, survivors resuming their fits.

    Li et al. (JMLR 2018) hedge successive halving's one guess of how many
    configurations to start and how small a budget tells them apart: bracket
    ``s = s_max, ..., 0`` starts ``ceil((s_max + 1) / (s + 1) * eta**s)``
    fresh configurations on ``R eta**-s`` iterations and halves them by eta
    up to ``R`` (:func:`hyperband_brackets`; ``R = max_resources /
    min_resources``). Each bracket is :class:`SuccessiveHalvingSVM`'s
    iteration halving, so survivors resume their fits. Every bracket ends on
    ``max_resources``; the configuration handed back is the best of all fits
    on that largest budget (algorithm 1 returns the best loss seen at any
    budget; a fit cut at ``R / 81`` iterations is a poor estimate of the SVM's
    accuracy, so a larger budget outranks a smaller one, as everywhere in
    :mod:`esmo.tuning`).

    Parameters
    ----------
    max_resources : int or 'auto'
        R: the largest budget, in SMO iterations; 'auto' is
        :data:`AUTO_ITERATIONS_PER_ROW` per training row.
    min_resources : int or 'auto'
        The smallest budget, in SMO iterations; 'auto' is ``max_resources /
        eta**4`` (at least 1): five brackets, as the paper's R = 81, eta = 3.
    eta : int
        The halving rate; 3, the paper's.

    The shared parameters and the attributes: :class:`~esmo.tuning.budgeted.BudgetedSVMSearch`;
    ``cv_results_`` adds ``bracket`` (s), ``iter`` and ``n_resources``;
    ``final_round_estimators_`` holds each bracket's last-round fits by config id.
    """

    _parameter_constraints: dict = {
        **BudgetedSVMSearch._parameter_constraints,
        "max_resources": [*_POSITIVE_INT, StrOptions({"auto"})],
        "min_resources": [*_POSITIVE_INT, StrOptions({"auto"})],
        "eta": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        estimator: SMOClassifier | None = None,
        param_distributions: dict | None = None,
        *,
        max_resources: int | str = "auto",
        min_resources: int | str = "auto",
        eta: int = 3,
        **shared: Any,
    ) -> None:
        super().__init__(estimator, param_distributions, **shared)
        self.max_resources = max_resources
        self.min_resources = min_resources
        self.eta = eta

    def _plan(self, space, y_train):
        largest = _auto_max_resources(self.max_resources, y_train.size)
        smallest = self.min_resources
        if smallest == "auto":
            smallest = max(1, largest // self.eta**AUTO_HYPERBAND_RATIO_EXPONENT)
        brackets = hyperband_brackets(largest, self.eta, smallest)
        n = sum(bracket[0].n_candidates for bracket in brackets)
        return brackets, sample_candidates(space, n, self.random_state)

    def _search(self, plan, ledger, data):
        brackets, candidates = plan
        self.final_round_estimators_ = {}
        first = 0
        for bracket in brackets:
            ids = range(first, first + bracket[0].n_candidates)
            self.final_round_estimators_ |= _resumed_halving(
                self,
                {i: candidates[i] for i in ids},
                bracket,
                ledger,
                data,
                {"bracket": len(bracket) - 1},
            )
            first = ids.stop
