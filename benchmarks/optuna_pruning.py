"""Optuna with pruning inside the SVM fit against the same study without it, on w1a.

Both studies run ``--trials`` RBF trials (C and gamma log-uniform over the
thesis's ranges, TPE with one seed) on one stratified 60/20/20 split of w1a.
Each trial's ``SMOClassifier`` checks its validation accuracy every
``--interval`` iterations; with pruning, Optuna's median pruner hears each
check (:func:`esmo.tuning.pruning.pruning_callback`) and may end the fit
there. Printed for each study: total SMO iterations, wall time, pruned trials,
the best validation accuracy and its trial's test accuracy; then the ratios.

Usage: ``python benchmarks/optuna_pruning.py [--mirror DIR] [--trials 50]``
(needs the ``optuna`` extra).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import optuna
from sklearn.model_selection import train_test_split

from esmo import SMOClassifier
from esmo.data.libsvm import load, minmax_normalise
from esmo.tuning.pruning import pruning_callback


def run_study(data, n_trials: int, interval: int, prune: bool, seed: int) -> dict:
    """One study; every trial's iterations are counted, pruned or not."""
    X_tr, y_tr, X_val, y_val, X_te, y_te = data
    iterations = []
    test_of = {}

    def objective(trial: optuna.Trial) -> float:
        clf = SMOClassifier(
            C=trial.suggest_float("C", 2.0**-5, 2.0**15, log=True),
            gamma=trial.suggest_float("gamma", 2.0**-15, 2.0**3, log=True),
            early_stopping=prune,
            n_iter_no_change=10**9,  # only the pruner stops a fit
            validation_interval=interval,
        )
        callback = pruning_callback(trial) if prune else None
        clf.fit(X_tr, y_tr, X_val=X_val, y_val=y_val, callback=callback)
        iterations.append(clf.n_iter_)
        if clf.stopped_by_callback_:
            raise optuna.TrialPruned()
        test_of[trial.number] = clf.score(X_te, y_te)
        return clf.score(X_val, y_val)

    pruner = (
        optuna.pruners.MedianPruner(n_startup_trials=5) if prune else optuna.pruners.NopPruner()
    )
    study = optuna.create_study(
        direction="maximize", sampler=optuna.samplers.TPESampler(seed=seed), pruner=pruner
    )
    start = time.perf_counter()
    study.optimize(objective, n_trials=n_trials)
    seconds = time.perf_counter() - start
    states = [t.state for t in study.trials]
    return {
        "iterations": int(np.sum(iterations)),
        "seconds": seconds,
        "pruned": states.count(optuna.trial.TrialState.PRUNED),
        "best_val": study.best_value,
        "best_test": test_of[study.best_trial.number],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/datasets/libsvm"))
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--interval", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    X, y = load(args.mirror / "w1a", "w1a")
    X = minmax_normalise(X)
    X_tr, X_rest, y_tr, y_rest = train_test_split(
        X, y, test_size=0.4, stratify=y, random_state=args.seed
    )
    X_val, X_te, y_val, y_te = train_test_split(
        X_rest, y_rest, test_size=0.5, stratify=y_rest, random_state=args.seed
    )
    data = (X_tr, y_tr, X_val, y_val, X_te, y_te)
    SMOClassifier(max_iter=5).fit(X_tr[:50], y_tr[:50])  # compile before timing
    rows = {
        name: run_study(data, args.trials, args.interval, prune, args.seed)
        for name, prune in (("no pruning", False), ("in-solver pruning", True))
    }
    print(f"w1a, {args.trials} RBF trials, checks every {args.interval} iterations")
    print(
        f"{'study':<20}{'iterations':>12}{'seconds':>10}{'pruned':>8}{'best val':>10}{'its test':>10}"
    )
    for name, r in rows.items():
        print(
            f"{name:<20}{r['iterations']:>12}{r['seconds']:>10.2f}{r['pruned']:>8}"
            f"{r['best_val']:>10.4f}{r['best_test']:>10.4f}"
        )
    base, pruned = rows["no pruning"], rows["in-solver pruning"]
    print(
        f"pruning / no pruning: iterations {pruned['iterations'] / base['iterations']:.3f}, "
        f"seconds {pruned['seconds'] / base['seconds']:.3f}"
    )


if __name__ == "__main__":
    main()
