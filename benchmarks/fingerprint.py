"""Fingerprint of the solver's outputs: proof that a refactoring changed no result.

``write`` runs a fixed set of fits and early-stopping sweeps on the eight LIBSVM
datasets (both kernels, both early-stopping metrics, several check intervals,
``restore_best``) through esmo's public API only, and saves every output array
(alpha, rho, n_iter, objective; stop iterations, stopped-early flags and the
four accuracies of each sweep) to one ``.npz`` file. ``compare`` reports every
array that differs between two such files, to the bit, and exits 1 if any does.

Before and after a change::

    git stash; python benchmarks/fingerprint.py write before.npz; git stash pop
    python benchmarks/fingerprint.py write after.npz
    python benchmarks/fingerprint.py compare before.npz after.npz

The data come from the offline LIBSVM copies (``--mirror``, default
``../shared/datasets/libsvm``), min-max scaled, split 60/20/20 by a fixed
permutation.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file

from esmo import EarlyStopping, solve_smo, sweep_early_stopping
from esmo.data.libsvm import THESIS_DATASETS

# the thesis's eight LIBSVM datasets (not the gradient paper's test files)
DATASETS = THESIS_DATASETS
# (kernel, C, gamma): three RBF and two linear SVMs per dataset
SVMS = (
    ("rbf", 1.0, 0.5),
    ("rbf", 32.0, 4.0),
    ("rbf", 0.1, 0.05),
    ("linear", 0.5, 1.0),
    ("linear", 8.0, 1.0),
)
MAX_ITER = 200_000
# the solver without shrinking, as every fingerprint before shrinking existed (the library's
# default is now on): the fingerprints of older commits stay comparable
SHRINKING = False
CONFIGS = [
    EarlyStopping(patience=p, tol=t, interval=r, metric=m)
    for m in ("accuracy", "hinge")
    for r in (1, 7, 64)
    for p in (0, 1, 5, 50)
    for t in (0.0, 1e-3)
]
SINGLE_FITS = (
    EarlyStopping(patience=3, tol=0.0, interval=1, metric="accuracy", restore_best=True),
    EarlyStopping(patience=2, tol=1e-3, interval=5, metric="hinge", restore_best=True),
    EarlyStopping(patience=10, tol=0.0, interval=2, metric="accuracy"),
)


def load_split(mirror: Path, name: str) -> tuple[np.ndarray, ...]:
    """``(X_train, y_train, X_val, y_val, X_test, y_test)``: min-max scaled, labels +-1, 60/20/20."""
    X, y = load_svmlight_file(str(mirror / name))
    X = X.toarray()
    span = X.max(axis=0) - X.min(axis=0)
    X = (X - X.min(axis=0)) / np.where(span > 0, span, 1.0)
    y = np.where(y == y.max(), 1.0, -1.0)
    order = np.random.default_rng(0).permutation(y.size)
    a, b = int(0.6 * y.size), int(0.8 * y.size)
    parts = (order[:a], order[a:b], order[b:])
    return tuple(arr for idx in parts for arr in (X[idx], y[idx]))


def fingerprint(mirror: Path) -> dict[str, np.ndarray]:
    """Every output array of the fixed set of fits and sweeps, keyed by what produced it."""
    out: dict[str, np.ndarray] = {}
    for name in DATASETS:
        X_tr, y_tr, X_val, y_val, X_te, y_te = load_split(mirror, name)
        for kernel, C, gamma in SVMS:
            key = f"{name}/{kernel}/C={C}/gamma={gamma}"
            params = dict(kernel=kernel, C=C, gamma=gamma, max_iter=MAX_ITER, shrinking=SHRINKING)
            plain = solve_smo(X_tr, y_tr, **params)
            out[f"{key}/alpha"] = plain.alpha
            out[f"{key}/rho_iter_objective"] = np.array(
                [plain.rho, plain.n_iter, plain.objective, plain.max_iter_reached]
            )
            for k, es in enumerate(SINGLE_FITS):
                fit = solve_smo(X_tr, y_tr, early_stopping=es, X_val=X_val, y_val=y_val, **params)
                out[f"{key}/es{k}/alpha"] = fit.alpha
                out[f"{key}/es{k}/rho_iter"] = np.array(
                    [fit.rho, fit.n_iter, fit.stopped_early, fit.max_iter_reached]
                )
            sweep = sweep_early_stopping(
                X_tr, y_tr, X_val, y_val, CONFIGS, X_test=X_te, y_test=y_te, **params
            )
            for column in sweep.table.columns:
                out[f"{key}/sweep/{column}"] = sweep.table[column].to_numpy()
            out[f"{key}/sweep/reference"] = np.array(
                [sweep.reference[k] for k in sorted(sweep.reference)], dtype=np.float64
            )
        print(f"{name}: done", flush=True)
    return out


def compare(a: Path, b: Path) -> int:
    """Print every array that differs between two fingerprints; the number of differences."""
    with np.load(a) as fa, np.load(b) as fb:
        keys_a, keys_b = set(fa.files), set(fb.files)
        differ = sorted(keys_a ^ keys_b)
        for key in sorted(keys_a & keys_b):
            x, y = fa[key], fb[key]
            if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
                differ.append(key)
        for key in differ:
            print(f"differs: {key}")
        print(f"{len(keys_a & keys_b)} arrays compared, {len(differ)} differ")
        return len(differ)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    write = sub.add_parser("write", help="run the fixed set and save it")
    write.add_argument("output", type=Path)
    write.add_argument(
        "--mirror",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared" / "datasets" / "libsvm",
    )
    cmp = sub.add_parser("compare", help="compare two saved fingerprints, to the bit")
    cmp.add_argument("a", type=Path)
    cmp.add_argument("b", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        np.savez(args.output, **fingerprint(args.mirror))
        return 0
    return 1 if compare(args.a, args.b) else 0


if __name__ == "__main__":
    sys.exit(main())
