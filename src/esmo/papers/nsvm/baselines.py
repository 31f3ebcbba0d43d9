"""The two baselines the NSVM paper omits: esmo's SMO on the raw features, kernel Pegasos without a network.

Each returns one record per method (test accuracy and errors, steps, CPU seconds,
the chosen hyperparameters), in the form of the NSVM runs' records.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold

from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.estimators.smo_classifier import SMOClassifier


def _grid(low_high: list[float], step: float) -> np.ndarray:
    return 2.0 ** np.arange(low_high[0], low_high[1] + 1e-9, step)


def _record(method: str, clf: Any, X_test, y_test, cpu: float, **extra: Any) -> dict[str, Any]:
    pred = clf.predict(X_test)
    return {
        "method": method,
        "test_accuracy": float(np.mean(pred == y_test)),
        "test_errors": int(np.sum(pred != y_test)),
        "n_test": int(len(y_test)),
        "fit_cpu_seconds": cpu,
        **extra,
    }


def smo_baseline(
    X, y, X_test, y_test, *, log2_C, log2_gamma, log2_step, folds, seed, **solver: Any
) -> dict:
    """An RBF SVM (esmo's SMO, with bias): (C, gamma) by stratified k-fold CV on a log2 grid.

    ``solver`` holds further ``SMOClassifier`` parameters (the workflow's ``shrinking``).
    """
    t0 = time.process_time()
    search = GridSearchCV(
        SMOClassifier(kernel="rbf", **solver),
        {"C": _grid(log2_C, log2_step), "gamma": _grid(log2_gamma, log2_step)},
        cv=StratifiedKFold(folds, shuffle=True, random_state=seed),
    ).fit(X, y)
    cpu = time.process_time() - t0
    best = search.best_params_
    return _record(
        "smo", search.best_estimator_, X_test, y_test, cpu, n_train=len(y),
        C=float(best["C"]), gamma=float(best["gamma"]), n_steps=int(search.best_estimator_.n_iter_),
    )  # fmt: skip


def pegasos_baselines(X, y, tune, X_test, y_test, *, lam, epochs, log2_gamma, seed) -> list[dict]:
    """Kernel Pegasos on the raw features: the paper's kernel (gamma = 1), and gamma tuned on
    the tuning rows over ``2^log2_gamma`` (integer steps; ties to the smaller gamma),
    each for ``epochs`` passes' worth of steps."""
    steps = max(1, round(epochs * len(y)))
    t0 = time.process_time()
    paper = PegasosClassifier(lam=lam, gamma=1.0, n_steps=steps, random_state=seed).fit(X, y)
    records = [
        _record(
            "pegasos_gamma1",
            paper,
            X_test,
            y_test,
            time.process_time() - t0,
            n_train=len(y),
            gamma=1.0,
            n_steps=steps,
        )  # fmt: skip
    ]
    t0 = time.process_time()
    rest = np.setdiff1d(np.arange(len(y)), tune)
    part_steps = max(1, round(epochs * len(rest)))
    scores = []
    gammas = _grid(log2_gamma, 1.0)
    for gamma in gammas:
        clf = PegasosClassifier(lam=lam, gamma=gamma, n_steps=part_steps, random_state=seed)
        scores.append(clf.fit(X[rest], y[rest]).score(X[tune], y[tune]))
    gamma = float(gammas[int(np.argmax(scores))])
    tuned = PegasosClassifier(lam=lam, gamma=gamma, n_steps=steps, random_state=seed).fit(X, y)
    records.append(
        _record(
            "pegasos_tuned",
            tuned,
            X_test,
            y_test,
            time.process_time() - t0,
            n_train=len(y),
            gamma=gamma,
            n_steps=steps,
            val_accuracy=float(max(scores)),
        )  # fmt: skip
    )
    return records
