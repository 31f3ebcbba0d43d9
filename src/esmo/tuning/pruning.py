"""Pruning inside an SVM fit: a hook that hands each early-stopping check to an HPO trial.

An Optuna trial (or anything with ``report(value, step)`` and
``should_prune()``) gets the validation objective at every check of the SMO
loop, and its pruner ends the fit there, inside the solver. Optuna itself is
not imported: the hook only calls the trial's two methods. The example is
docs/optuna.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from esmo.solver.result import CheckInfo

#: The objectives a trial can be told at a check, by their CheckInfo field.
OBJECTIVES: tuple[str, ...] = CheckInfo._fields[1:-1]


def pruning_callback(trial: Any, objective: str = "val_accuracy") -> Callable[[CheckInfo], bool]:
    """The ``callback`` of ``SMOClassifier.fit`` that reports to ``trial`` and prunes.

    Each check reports ``objective`` (a :class:`CheckInfo` field the fit's
    ``es_metric`` computes) at step = the SMO iteration; the fit ends
    when the trial's pruner says so (``trial.should_prune()``). After the fit,
    ``stopped_by_callback_`` tells whether it was pruned; raise Optuna's
    ``TrialPruned`` then, as its documentation asks.
    """
    if objective not in OBJECTIVES:
        raise ValueError(f"objective must be one of {OBJECTIVES}, got {objective!r}.")
    for method in ("report", "should_prune"):
        if not callable(getattr(trial, method, None)):
            raise TypeError(
                f"trial needs a {method}() method (an optuna.trial.Trial), got "
                f"{type(trial).__name__}."
            )

    def prune_at_check(info: CheckInfo) -> bool:
        trial.report(getattr(info, objective), step=info.n_iter)
        return bool(trial.should_prune())

    return prune_at_check
