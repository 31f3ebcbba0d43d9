"""A 5-fold CV path over 50 values of C for one gamma: shared kernel work against separate fits.

Issue 31's search goal, measured side by side in one process on each dataset
(min-max scaled, RBF, tol 1e-3, shrinking, ``gamma = 1 / d``, C log-uniformly
spaced over the benchmark's box [2^-10, 2^10]; CPU seconds, all threads):

- ``warm``: :func:`esmo.tuning.path.fit_path`, one kernel matrix for every
  fold and C, each C warm-started from the one below, active-set rounds first
  (SMO where they do not converge);
- ``seed``: the same warm starts with SMO alone (``active_set=False``);
- ``cold``: the same without warm starts, whose scores and iterations
  must equal the separate fits' (checked, printed as ``equal``);
- ``separate``: 250 ``SMOClassifier`` fits, one per (C, fold), as a search
  without sharing runs them;
- ``grid svc``: ``GridSearchCV(SVC(gamma=g), {"C": Cs}, cv=StratifiedKFold(5),
  refit=False)``, what a scikit-learn user runs; its mean CV scores set beside
  the path's;
- ``single``: the mean of one ``SMOClassifier`` fit on all the rows per C (the
  unit of "single-fit equivalents").

``single``, ``warm``, ``seed``, the wall-time line and the early-stopping
line keep the fewest seconds of ``--repeats`` runs (default 3); the rest run
once. Early stopping's price is a few percent of the path, about as much as one
run's noise: without ``--early-stopping`` the seeded path is timed in turns with
early stopping that never triggers (one of each per round), and more repeats
read it more steadily.

A second line per dataset counts the fits the active-set rounds gave and each
path's SMO iterations; a third gives wall seconds of the warm path on one
thread and on ``--n-jobs`` (default 2: its folds side by side), and whether
the two give the same numbers.

With ``--early-stopping P`` every fit (paths and separate fits) is
early-stopped at patience P (interval ``--interval``, default 1) on its fold's
held-out points (SMO's iterations then: no active-set rounds). Without it, a
last line per dataset prices early stopping that never triggers (patience
10^9, interval ``--interval``, default 64): the seeded path with it against
the seeded path without, the same iterations.

Usage: ``python benchmarks/bench_path.py [--mirror DIR] [--datasets a1a w1a ...]
[--n-cs 50] [--rows N] [--early-stopping P] [--interval R] [--n-jobs J] [--repeats K]
[--skip-grid]``.
"""

from __future__ import annotations

import argparse
import functools
import time
from pathlib import Path

import bench_scale  # the sibling script (benchmarks/ is on sys.path when run)
import numpy as np
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.svm import SVC

from esmo.early_stopping import EarlyStopping
from esmo.estimators.smo_classifier import SMOClassifier
from esmo.tuning.path import fit_path

DEFAULT_MIRROR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "libsvm"
FOLDS = 5
#: runs of each cheap timing (single fits, the warm and seeded paths, wall times, early
#: stopping's price), the fewest seconds kept: one run of a path moved the ratios by up to 10 %
REPEATS = 3


def load(mirror: Path, name: str, rows: int | None) -> tuple[np.ndarray, np.ndarray]:
    """A LIBSVM file of the mirror, dense and min-max scaled; a stratified draw of ``rows``."""
    return bench_scale.load(mirror, rows, name, n_features=None)


def timed(clock, function, *args, **kwargs):
    """``function``'s result and the seconds ``clock`` counted while it ran."""
    start = clock()
    out = function(*args, **kwargs)
    return out, clock() - start


def cpu(function, *args, **kwargs):
    """``function``'s result and its CPU seconds (every thread of the process)."""
    return timed(time.process_time, function, *args, **kwargs)


def separate_fits(X, y, Cs, gamma, es: EarlyStopping | None):
    """One SMOClassifier per (C, fold), scored on the held-out fold."""
    folds = list(StratifiedKFold(FOLDS).split(X, y))
    scores, n_iter = np.empty((len(Cs), FOLDS)), np.empty((len(Cs), FOLDS), np.int64)
    kw = {}
    if es is not None:
        kw = dict(early_stopping=True, n_iter_no_change=es.patience, es_tol=es.tol,
                  validation_interval=es.interval, es_evaluation="incremental")  # fmt: skip
    for c, C in enumerate(Cs):
        for k, (train, held_out) in enumerate(folds):
            model = SMOClassifier(C=C, gamma=gamma, **kw)
            val = {"X_val": X[held_out], "y_val": y[held_out]} if es is not None else {}
            model.fit(X[train], y[train], **val)
            scores[c, k], n_iter[c, k] = model.score(X[held_out], y[held_out]), model.n_iter_
    return scores, n_iter


def alternated(clock, *calls):
    """Each call's last result and the fewest seconds ``clock`` counted for it over
    :data:`REPEATS` rounds, the calls taking turns within a round: a drift in the machine's
    speed then moves them alike (early stopping's price, a few percent, is a ratio of two)."""
    seconds: list[list[float]] = [[] for _ in calls]
    results: list = [None] * len(calls)
    for _ in range(REPEATS):
        for k, call in enumerate(calls):
            results[k], spent = timed(clock, call)
            seconds[k].append(spent)
    return [(result, min(spent)) for result, spent in zip(results, seconds, strict=True)]


def fewest(clock, function, *args, **kwargs):
    """``function``'s result and the fewest seconds ``clock`` counted over :data:`REPEATS` runs."""
    return alternated(clock, functools.partial(function, *args, **kwargs))[0]


def least_cpu(function, *args, **kwargs):
    """``function``'s result and its fewest CPU seconds over :data:`REPEATS` runs."""
    return fewest(time.process_time, function, *args, **kwargs)


def single_fits(X, y, Cs, gamma) -> float:
    """Mean over the Cs of the CPU seconds of one fit on all the rows (the fewest of :data:`REPEATS`)."""
    seconds = [least_cpu(SMOClassifier(C=C, gamma=gamma).fit, X, y)[1] for C in Cs]
    return float(np.mean(seconds))


def grid_svc(X, y, Cs, gamma):
    grid = GridSearchCV(SVC(gamma=gamma), {"C": list(Cs)}, cv=StratifiedKFold(FOLDS), refit=False)
    grid.fit(X, y)
    return grid.cv_results_["mean_test_score"]


def main() -> None:
    global REPEATS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--datasets", nargs="+", default=["german.numer", "a1a", "w1a"])
    parser.add_argument("--n-cs", type=int, default=50)
    parser.add_argument("--rows", type=int, default=None, help="a stratified draw of this many")
    parser.add_argument("--early-stopping", type=int, default=None, metavar="P")
    parser.add_argument("--interval", type=int, default=None, metavar="R")
    parser.add_argument("--n-jobs", type=int, default=2, help="threads of the wall-time line")
    parser.add_argument("--skip-grid", action="store_true", help="no GridSearchCV(SVC)")
    parser.add_argument("--repeats", type=int, default=REPEATS, help="runs of each cheap timing")
    args = parser.parse_args()
    REPEATS = args.repeats  # read by fewest() and the timings built on it
    Cs = 2.0 ** np.linspace(-10, 10, args.n_cs)
    interval = args.interval or (1 if args.early_stopping else 64)
    es = EarlyStopping(args.early_stopping, 0.0, interval) if args.early_stopping else None
    warm_up = np.random.default_rng(0).normal(size=(60, 3))
    for rule in (None, es or EarlyStopping(10**9, 0.0, interval)):  # compile outside the timings
        fit_path(warm_up, warm_up[:, 0] > 0, [1.0, 2.0], 0.5, early_stopping=rule)
    SMOClassifier().fit(warm_up, warm_up[:, 0] > 0)
    print(f"{FOLDS}-fold CV over {args.n_cs} C in [2^-10, 2^10], gamma = 1/d, CPU seconds")
    print(
        f"early stopping: {'none' if es is None else f'patience {es.patience}, interval {interval}'}\n"
    )
    head = (f"{'dataset':>13} {'n x d':>11} {'single':>7} {'warm':>7} {'seed':>7} {'cold':>7} {'separate':>9} "
            f"{'grid svc':>9} {'warm/single':>11} {'grid/warm':>9} {'equal':>6} {'|warm-cold|':>11} "
            f"{'|path-svc|':>10}")  # fmt: skip
    print(head)
    for name in args.datasets:
        X, y = load(args.mirror, name, args.rows)
        gamma = 1.0 / X.shape[1]
        single = single_fits(X, y, Cs, gamma)
        warm, t_warm = least_cpu(fit_path, X, y, Cs, gamma, FOLDS, early_stopping=es)
        seeded = functools.partial(fit_path, X, y, Cs, gamma, FOLDS, active_set=False)
        if es is None:  # timed in turns with early stopping that never triggers: its price
            never = EarlyStopping(10**9, 0.0, interval)
            (seed, t_seed), (tracked, t_tracked) = alternated(
                time.process_time, seeded, functools.partial(seeded, early_stopping=never)
            )
        else:
            seed, t_seed = least_cpu(seeded, early_stopping=es)
        cold, t_cold = cpu(fit_path, X, y, Cs, gamma, FOLDS, warm_start=False, early_stopping=es)
        (scores, n_iter), t_sep = cpu(separate_fits, X, y, Cs, gamma, es)
        equal = np.array_equal(scores, cold.scores) and np.array_equal(n_iter, cold.n_iter)
        svc_gap, t_grid = float("nan"), float("nan")
        if not args.skip_grid:
            svc_scores, t_grid = cpu(grid_svc, X, y, Cs, gamma)
            svc_gap = float(np.abs(svc_scores - cold.mean_scores).max())
        gap = float(np.abs(warm.mean_scores - cold.mean_scores).max())
        print(
            f"{name:>13} {f'{X.shape[0]}x{X.shape[1]}':>11} {single:7.3f} {t_warm:7.2f} "
            f"{t_seed:7.2f} {t_cold:7.2f} {t_sep:9.2f} {t_grid:9.2f} {t_warm / single:11.1f} "
            f"{t_grid / t_warm:9.1f} {str(equal):>6} {gap:11.4f} {svc_gap:10.4f}",
            flush=True,
        )
        print(
            f"{'':>13} fits by active-set rounds: {warm.by_active_set.sum()} of "
            f"{warm.by_active_set.size} ({warm.rounds.sum():,} rounds); SMO iterations: warm "
            f"{warm.n_iter.sum():,}, seed {seed.n_iter.sum():,}, cold {cold.n_iter.sum():,}; "
            f"kernel values {warm.kernel_evaluations:,}; best C warm {warm.best_C:.4g}, "
            f"cold {cold.best_C:.4g}",
            flush=True,
        )
        path = functools.partial(fit_path, X, y, Cs, gamma, FOLDS, early_stopping=es)
        one, t_one = fewest(time.perf_counter, path, n_jobs=1)
        many, t_many = fewest(time.perf_counter, path, n_jobs=args.n_jobs)
        same = all(np.array_equal(getattr(one, f), getattr(many, f))
                   for f in ("scores", "n_iter", "objective"))  # fmt: skip
        print(
            f"{'':>13} wall: warm path {t_one:.2f} s on 1 thread, {t_many:.2f} s on {args.n_jobs} "
            f"({t_one / t_many:.2f}x); same numbers: {same}",
            flush=True,
        )
        if es is None:
            same = np.array_equal(tracked.n_iter, seed.n_iter)
            print(
                f"{'':>13} early stopping that never triggers (interval {interval}): "
                f"{t_tracked:.2f} s against {t_seed:.2f} s, {t_tracked / t_seed:.3f} x the "
                f"seeded path; same iterations: {same}",
                flush=True,
            )


if __name__ == "__main__":
    main()
