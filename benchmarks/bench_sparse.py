"""Sparse against dense input to SMOClassifier: the same model, its time and memory side by side.

For each case (w1a, a1a, and w8a = w1a + w1a.t pooled, the gradient paper's
pool, 49,749 x 300 at about 4 % nonzeros, subsampled stratified to ``--rows``)
the same SMOClassifier is fitted on the features as a dense array and as CSR,
each in a fresh process that parses the LIBSVM files straight into its own
representation (the sparse one never writes the points out densely). Reported
per representation: the fit's wall time (fastest of ``--repeats``, after a
warm-up fit that compiles), the peak of the memory the fit allocates
(tracemalloc, on top of the data), the data's own size, the process's peak
resident set (``ru_maxrss``: interpreter, numba and data included), the
iterations; then whether the two models are equal to the bit (``dual_coef_``,
``intercept_``, ``n_iter_``) and whether the decision values on the held-out
rows are (for w1a and a1a the test files ``w1a.t``, ``a1a.t``).

Usage: ``python benchmarks/bench_sparse.py [--mirror DIR] [--rows 10000] [--repeats 3]``
(``--rows 0`` fits the whole w8a pool). Timings depend on the machine and its
load; the ratios sparse / dense are the point.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import train_test_split

DEFAULT_MIRROR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "libsvm"
#: (name, training files, held-out files, SMOClassifier parameters)
CASES = [
    ("w1a rbf", ["w1a"], ["w1a.t"], {"kernel": "rbf", "C": 8.0, "gamma": 0.05}),
    ("w1a linear", ["w1a"], ["w1a.t"], {"kernel": "linear", "C": 8.0}),
    ("a1a rbf", ["a1a"], ["a1a.t"], {"kernel": "rbf", "C": 8.0, "gamma": 0.05}),
    ("a1a linear", ["a1a"], ["a1a.t"], {"kernel": "linear", "C": 1.0}),
    ("w8a rbf", ["w1a", "w1a.t"], None, {"kernel": "rbf", "C": 8.0, "gamma": 0.05}),
]


def _read(mirror: Path, names: list[str]) -> tuple[sp.csr_matrix, np.ndarray]:
    """The files' points as CSR (parsed sparse, never written out) and labels in {-1, +1}."""
    from esmo.data.libsvm import get_spec

    parts = [
        load_svmlight_file(
            os.fspath(mirror / name), n_features=get_spec(name).n_features, zero_based=False
        )
        for name in names
    ]
    X = sp.vstack([X for X, _ in parts], format="csr")
    y = np.concatenate([labels for _, labels in parts])
    return X, np.where(y > 0, 1, -1)


def _data(case: tuple, mirror: Path, rows: int) -> tuple:
    """``(X_train, y_train, X_held_out)`` of a case, as CSR."""
    _, train, held_out, _ = case
    X, y = _read(mirror, train)
    if held_out is not None:
        return X, y, _read(mirror, held_out)[0]
    if rows and rows < y.size:  # w8a: a stratified subsample, the rest held out
        fit_rows, rest = train_test_split(
            np.arange(y.size), train_size=rows, stratify=y, random_state=0
        )
        return X[np.sort(fit_rows)], y[np.sort(fit_rows)], X[np.sort(rest)]
    return X, y, X


def _nbytes(X) -> int:
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def measure(case_index: int, representation: str, mirror: Path, rows: int, repeats: int, out: Path):
    """One representation of one case, in this process: times, memory, the model's arrays."""
    from esmo import SMOClassifier

    case = CASES[case_index]
    X, y, X_held = _data(case, mirror, rows)
    if representation == "dense":
        X, X_held = X.toarray(), X_held.toarray()
    params = case[3]
    SMOClassifier(**params).fit(X[:300], y[:300])  # compiles (or loads the cache) untimed
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        model = SMOClassifier(**params).fit(X, y)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    SMOClassifier(**params).fit(X, y)
    fit_peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    start = time.perf_counter()
    decision = model.decision_function(X_held)
    predict_seconds = time.perf_counter() - start
    np.savez(
        out,
        decision=decision,
        dual_coef=model.dual_coef_,
        intercept=model.intercept_,
        n_iter=np.atleast_1d(model.n_iter_),
    )
    summary = {
        "n": int(X.shape[0]),
        "d": int(X.shape[1]),
        "density": float(sp.csr_matrix(X).nnz / (X.shape[0] * X.shape[1])),
        "fit_seconds": min(times),
        "predict_seconds": predict_seconds,
        "fit_peak_mb": fit_peak / 2**20,
        "data_mb": (_nbytes(X) + _nbytes(X_held)) / 2**20,
        "maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "n_iter": int(np.sum(model.n_iter_)),
        "n_held_out": int(X_held.shape[0]),
    }
    out.with_suffix(".json").write_text(json.dumps(summary))


def _run(case_index: int, representation: str, args: argparse.Namespace, folder: Path) -> dict:
    out = folder / f"{case_index}-{representation}.npz"
    command = [
        sys.executable, __file__, "--one", str(case_index), representation,
        "--mirror", os.fspath(args.mirror), "--rows", str(args.rows),
        "--repeats", str(args.repeats), "--out", os.fspath(out),
    ]  # fmt: skip
    subprocess.run(command, check=True)
    summary = json.loads(out.with_suffix(".json").read_text())
    with np.load(out) as arrays:
        summary["arrays"] = {key: arrays[key] for key in arrays.files}
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--rows", type=int, default=10_000, help="w8a rows fitted (0: all)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--one", nargs=2, metavar=("CASE", "REPRESENTATION"), help=argparse.SUPPRESS
    )
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        measure(int(args.one[0]), args.one[1], args.mirror, args.rows, args.repeats, args.out)
        return 0
    from esmo.data.libsvm import load_pooled

    pooled, _ = load_pooled([args.mirror / "w1a", args.mirror / "w1a.t"], ["w1a", "w1a.t"])
    same = np.array_equal(pooled, _read(args.mirror, ["w1a", "w1a.t"])[0].toarray())
    print(f"w8a pool: {pooled.shape[0]} x {pooled.shape[1]}, equal to load_pooled's: {same}")
    del pooled
    header = (
        f"{'case':<11} {'n':>6} {'d':>4} {'nnz %':>6} {'iter':>6} {'model':>6} {'f(x)':>6} "
        f"{'fit s dense':>11} {'sparse':>7} {'ratio':>6} {'fit MB dense':>12} {'sparse':>7} "
        f"{'ratio':>6} {'data MB dense':>13} {'sparse':>7} {'maxrss MB dense':>15} {'sparse':>7} "
        f"{'predict s dense':>15} {'sparse':>7}"
    )
    lines = []
    failed = False
    with tempfile.TemporaryDirectory() as folder:
        for k, case in enumerate(CASES):
            dense, sparse_ = (_run(k, rep, args, Path(folder)) for rep in ("dense", "sparse"))
            a, b = dense["arrays"], sparse_["arrays"]
            model_equal = all(
                np.array_equal(a[key], b[key]) for key in ("dual_coef", "intercept", "n_iter")
            )
            bits = np.array_equal(a["decision"], b["decision"])
            gap = float(np.max(np.abs(a["decision"] - b["decision"]), initial=0.0))
            failed |= not model_equal
            lines.append(
                f"{case[0]:<11} {dense['n']:>6} {dense['d']:>4} {100 * dense['density']:>6.2f} "
                f"{dense['n_iter']:>6} {'equal' if model_equal else 'DIFF':>6} "
                f"{'bits' if bits else f'{gap:.0e}':>6} "
                f"{dense['fit_seconds']:>11.3f} {sparse_['fit_seconds']:>7.3f} "
                f"{sparse_['fit_seconds'] / dense['fit_seconds']:>6.2f} "
                f"{dense['fit_peak_mb']:>12.1f} {sparse_['fit_peak_mb']:>7.1f} "
                f"{sparse_['fit_peak_mb'] / dense['fit_peak_mb']:>6.2f} "
                f"{dense['data_mb']:>13.1f} {sparse_['data_mb']:>7.1f} "
                f"{dense['maxrss_mb']:>15.0f} {sparse_['maxrss_mb']:>7.0f} "
                f"{dense['predict_seconds']:>15.3f} {sparse_['predict_seconds']:>7.3f}"
            )
            print(lines[-1] if len(lines) > 1 else f"{header}\n{lines[-1]}", flush=True)
    print(
        "\nmodel: dual_coef_, intercept_ and n_iter_ equal to the bit; f(x): decision values on "
        "the held-out rows equal to the bit, or their largest difference; ratios are sparse / "
        "dense; fit MB is the peak the fit allocates (tracemalloc), data MB the training and "
        "held-out points."
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
