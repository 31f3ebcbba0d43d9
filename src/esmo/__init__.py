"""esmo: budget-aware SVM training with early stopping inside the SMO solver.

The public names are imported lazily, so ``import esmo`` stays cheap and does
not trigger numba compilation; the first use of a name imports its module.
"""

from __future__ import annotations

import importlib
from typing import Any

#: The release, written once here (pyproject.toml reads it; CITATION.cff and CHANGELOG.md
#: name it too, and a test holds them to it).
__version__ = "0.2.0"

# public name -> module that defines it
_EXPORTS: dict[str, str] = {
    "SMOClassifier": "esmo.estimators.smo_classifier",
    "EarlyStopping": "esmo.early_stopping",
    "EarlyStoppingSet": "esmo.early_stopping",
    "sweep_early_stopping": "esmo.solver.sweep",
    "SweepResult": "esmo.solver.sweep",
    "SolverParams": "esmo.solver.params",
    "SolverResult": "esmo.solver.result",
    "solve_smo": "esmo.solver.smo",
    "kernel_matrix": "esmo.solver.kernels",
    "RandomSearchSVM": "esmo.tuning.estimators",
    "SuccessiveHalvingSVM": "esmo.tuning.estimators",
    "HyperbandSVM": "esmo.tuning.estimators",
    "OptunaSearchSVM": "esmo.tuning.optuna_search",
    "MDLSearch": "esmo.mdl.search",
    "SVMEnsembleClassifier": "esmo.ensembles.estimator",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'esmo' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
