"""esmo's budget-aware searches side by side on w1a: accuracy against the compute spent.

One stratified 80/20 train/test split of w1a (min-max scaled on the training
part, the test part with the same map; docs/benchmark-protocol.md sec 1).
Every search sees the training part only, tunes (C, gamma) over HPOBench's box
on its own stratified holdout, refits its choice on the whole training part
(charged) and is scored once on the test part. Printed per search: the best
holdout accuracy, the test accuracy of the refitted model, the CPU seconds
(``time.process_time``, the whole ``fit``), SMO iterations and kernel values
(the refit included), evaluations and fits. numba is compiled before timing.

Usage: ``python benchmarks/budgeted_searches.py [--mirror DIR] [--seed 0] [--candidates 32]``
(Optuna rows need the ``optuna`` extra).
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

from sklearn.model_selection import train_test_split

from esmo import (
    HyperbandSVM,
    OptunaSearchSVM,
    RandomSearchSVM,
    SMOClassifier,
    SuccessiveHalvingSVM,
)
from esmo.data.libsvm import load, minmax_normalise


def searches(n: int, seed: int) -> dict:
    """The searches compared: ``n`` configurations (or trials) each, one seed."""
    common = {"random_state": seed}
    out = {
        "RS": RandomSearchSVM(n_iter=n, **common),
        "RS+ES (j_high)": RandomSearchSVM(n_iter=n, early_stopping=True, **common),
        "SH n_samples": SuccessiveHalvingSVM(n_candidates=n, **common),
        "SH n_iter": SuccessiveHalvingSVM(n_candidates=n, resource="n_iter", **common),
        "Hyperband": HyperbandSVM(**common),
    }
    if importlib.util.find_spec("optuna") is not None:
        out["Optuna, no pruning"] = OptunaSearchSVM(n_trials=n, pruner=None, **common)
        out["Optuna, median pruner"] = OptunaSearchSVM(n_trials=n, **common)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/datasets/libsvm"))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--candidates", type=int, default=32)
    args = parser.parse_args()
    X, y = load(args.mirror / "w1a", "w1a")
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=0.2, stratify=y, random_state=args.seed
    )
    X_te, X_tr = minmax_normalise(X_te, fit=X_tr), minmax_normalise(X_tr, fit=X_tr)
    # compile every solver variant the searches use (plain, early-stopped, with a callback)
    for settings in ({}, {"early_stopping": True}):
        SMOClassifier(**settings).fit(X_tr[:200], y_tr[:200])
    SMOClassifier(early_stopping=True).fit(X_tr[:200], y_tr[:200], callback=lambda info: True)
    print(
        f"w1a: {y_tr.size} training rows, {y_te.size} test rows, {X.shape[1]} features; "
        f"{args.candidates} configurations per search, seed {args.seed}"
    )
    header = ("search", "holdout", "test", "cpu s", "SMO iter", "kernel values", "evals", "fits")
    print(f"{header[0]:<24}" + "".join(f"{h:>14}" for h in header[1:]))
    for name, search in searches(args.candidates, args.seed).items():
        search.fit(X_tr, y_tr)
        cost = search.cost_
        print(
            f"{name:<24}{search.best_score_:>14.4f}{search.score(X_te, y_te):>14.4f}"
            f"{cost['cpu_seconds']:>14.2f}{cost['n_iter']:>14,}{cost['kernel_evaluations']:>14.3g}"
            f"{cost['n_evaluations']:>14}{cost['n_fits']:>14}"
        )


if __name__ == "__main__":
    main()
