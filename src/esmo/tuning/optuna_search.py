"""``OptunaSearchSVM``: Optuna's TPE over (C, gamma), each trial pruned inside its SMO fit.

Optuna's own scikit-learn search, ``OptunaSearchCV``, prunes only estimators
with ``partial_fit``, so an SVM trial always runs to the end. esmo's solver
hands every early-stopping check to a callback
(:func:`esmo.tuning.pruning.pruning_callback`, docs/optuna.md): the trial
reports its holdout accuracy at each check and the pruner can stop the fit
there, inside SMO. This is the budget benchmark's ``esmo_optuna``
(docs/benchmark-protocol.md sec 5).

Optuna is an optional dependency (``pip install esmo[optuna]``): importing
this module does not need it, fitting does.
"""

from __future__ import annotations

import importlib
from contextlib import contextmanager
from numbers import Integral
from typing import Any

from sklearn.utils._param_validation import Interval

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.tuning.budgeted import BudgetedSVMSearch, Dimension, integer_seed
from esmo.tuning.pruning import pruning_callback

#: The pruner ``pruner="median"`` builds: Optuna's ``MedianPruner`` with its defaults
#: (no pruning in the first 5 trials; then a trial stops at a check where its holdout
#: accuracy is below the median of the earlier trials' at the same SMO iteration).
DEFAULT_PRUNER = "median"


def import_optuna() -> Any:
    """The ``optuna`` module, or an ImportError that says how to install it."""
    try:
        return importlib.import_module("optuna")
    except ImportError as error:
        raise ImportError(
            "OptunaSearchSVM needs optuna, an optional dependency of esmo: "
            "pip install esmo[optuna] (or pip install optuna)"
        ) from error


@contextmanager
def _quiet(optuna: Any):
    """Optuna's per-trial INFO lines off while the search runs (its verbosity is global)."""
    verbosity = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        yield
    finally:
        optuna.logging.set_verbosity(verbosity)


def _suggest(trial: Any, dimension: Dimension) -> float:
    if dimension.choices:
        return float(trial.suggest_categorical(dimension.name, list(dimension.choices)))
    return trial.suggest_float(dimension.name, dimension.low, dimension.high, log=dimension.log)


class OptunaSearchSVM(BudgetedSVMSearch):
    """Optuna's TPE over (C, gamma), every trial an SMO fit that its pruner can stop inside SMO.

    Each trial fits an SMOClassifier on the training part at the
    configuration TPE (seeded by ``random_state``) suggests; at each of the
    fit's checks it reports the holdout accuracy (step = the SMO iteration),
    and the pruner may end the fit there: a pruned trial's iterations are
    charged, it gets no score (``cv_results_['pruned']``) and cannot be handed
    back. A completed trial is scored on the holdout. Without a pruner the
    fits run to convergence (or to their early stop); a fit the pruner did
    not stop equals the same fit without it.

    Parameters
    ----------
    n_trials : int
        How many trials Optuna runs.
    pruner : 'median', None or an Optuna pruner
        'median' is Optuna's ``MedianPruner()`` (:data:`DEFAULT_PRUNER`); None
        turns pruning off (the fits then run without checks unless
        ``early_stopping`` is set).
    pruning_interval : int
        SMO iterations between the pruner's looks (the fit's checks), when the
        search has no ``early_stopping``; with it, the pruner looks at each
        early-stopping check (``EarlyStopping.interval``; j_high's is 1,
        every iteration, which makes each check a Python call: slow).

    ``param_distributions`` must give Optuna bounds: ``(low, high)``,
    ``scipy.stats.loguniform`` or ``uniform``, or a list. The shared
    parameters and the attributes: :class:`~esmo.tuning.budgeted.BudgetedSVMSearch`;
    ``cv_results_`` adds ``pruned``, and ``study_`` is the Optuna study.
    """

    _parameter_constraints: dict = {
        **BudgetedSVMSearch._parameter_constraints,
        "n_trials": [Interval(Integral, 1, None, closed="left")],
        "pruner": "no_validation",  # 'median', None or an Optuna pruner: checked in fit
        "pruning_interval": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        estimator: SMOClassifier | None = None,
        param_distributions: dict | None = None,
        *,
        n_trials: int = 20,
        pruner: Any = DEFAULT_PRUNER,
        pruning_interval: int = 100,
        **shared: Any,
    ) -> None:
        super().__init__(estimator, param_distributions, **shared)
        self.n_trials = n_trials
        self.pruner = pruner
        self.pruning_interval = pruning_interval

    def _plan(self, space, y_train):
        optuna = import_optuna()
        for dimension in space.values():
            if not dimension.choices and dimension.log is None:
                raise ValueError(
                    f"param_distributions[{dimension.name!r}] is a distribution Optuna cannot "
                    "sample from bounds; give (low, high) log-uniform bounds, "
                    "scipy.stats.loguniform(low, high), scipy.stats.uniform or a list"
                )
        if self.pruner is None:
            pruner = optuna.pruners.NopPruner()
        elif isinstance(self.pruner, str) and self.pruner == DEFAULT_PRUNER:
            pruner = optuna.pruners.MedianPruner()
        elif isinstance(self.pruner, optuna.pruners.BasePruner):
            pruner = self.pruner
        else:
            raise ValueError(
                f"pruner must be {DEFAULT_PRUNER!r}, None (no pruning) or an optuna pruner, got "
                f"{self.pruner!r}"
            )
        return optuna, pruner, list(space.values())

    def _search(self, plan, ledger, data):
        optuna, pruner, dimensions = plan
        X_train, y_train, X_val, y_val = data
        settings: dict[str, Any] = {}
        fit_params = self._fit_params(X_val, y_val)
        if self.pruner is not None and self.early_stopping is False:
            # checks for the pruner only: never stop on patience (n_iter_no_change=0)
            settings = {
                "early_stopping": True,
                "n_iter_no_change": 0,
                "validation_interval": self.pruning_interval,
            }
            fit_params = {"X_val": X_val, "y_val": y_val}

        def objective(trial: Any) -> float:
            params = {d.name: _suggest(trial, d) for d in dimensions}
            metered = self._metered(trial.number, params, ledger, **settings)
            callback = pruning_callback(trial) if self.pruner is not None else None
            metered.fit(X_train, y_train, callback=callback, **fit_params)
            if metered.estimator.stopped_by_callback_:
                metered.record_unscored().extra = {"pruned": True}
                raise optuna.TrialPruned()
            evaluation = metered.evaluate(X_val, y_val)
            evaluation.extra = {"pruned": False}
            return evaluation.score

        sampler = optuna.samplers.TPESampler(seed=integer_seed(self.random_state))
        with _quiet(optuna):
            study = optuna.create_study(direction="maximize", sampler=sampler, pruner=pruner)
            study.optimize(objective, n_trials=self.n_trials)
        self.study_ = study
