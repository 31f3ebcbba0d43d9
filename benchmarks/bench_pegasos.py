"""Benchmark kernel Pegasos (esmo.solver.pegasos, numba) against a plain NumPy loop.

Both run the same algorithm on the same drawn indices: the unscaled sums ``S`` of
every training point, moved by one vectorised kernel row per violation (NumPy)
or by a compiled loop (numba); both must end with the same ``alpha``. Prints
steps per second of each and their ratio, for a few sizes (generated Ringnorm,
20 features, lam = 1e-4 and gamma = 1/20 as in a tuned Pegasos). Not a test:
timings depend on the machine. Also times the sweep over 100 early-stopping
configurations against one plain run.

Usage: ``python benchmarks/bench_pegasos.py [--quick]``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from esmo.data.breiman import ringnorm_delve
from esmo.early_stopping import EarlyStopping
from esmo.solver.pegasos import draw_indices, run_pegasos, sweep_pegasos


def numpy_pegasos(X, y, lam, gamma, indices):
    """Kernel Pegasos in plain NumPy: one vectorised kernel row per violation."""
    alpha = np.zeros(len(y))
    S = np.zeros(len(y))
    for t, i in enumerate(indices, start=1):
        if t == 1 or y[i] * S[i] < lam * (t - 1):
            alpha[i] += 1
            S += y[i] * np.exp(-gamma * np.sum((X - X[i]) ** 2, axis=1))
    return alpha


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one small size only")
    args = parser.parse_args()
    sizes = [(1000, 20_000)] if args.quick else [(1000, 20_000), (3000, 60_000), (6660, 133_200)]
    lam, gamma = 1e-4, 0.05
    # compile (numba caches to disk) both paths before anything is timed
    X0, y0 = ringnorm_delve(50, random_state=0)
    run_pegasos(X0, y0, lam=lam, n_steps=10, gamma=gamma)
    sweep_pegasos(X0, y0, X0, y0, [EarlyStopping(1, 0.0)], lam=lam, n_steps=10, gamma=gamma)
    print(
        f"{'m':>6} {'T':>8} {'violations':>10} {'numba steps/s':>14} {'numpy steps/s':>14} {'ratio':>7}"
    )
    for m, T in sizes:
        X, y = ringnorm_delve(m, random_state=1)
        X = (X - X.mean(0)) / X.std(0, ddof=1)
        idx = draw_indices(m, T, 2)
        t0 = time.perf_counter()
        res, _ = run_pegasos(X, y, lam=lam, n_steps=T, gamma=gamma, indices=idx)
        t_numba = time.perf_counter() - t0
        t0 = time.perf_counter()
        alpha = numpy_pegasos(X, y, lam, gamma, idx)
        t_numpy = time.perf_counter() - t0
        assert np.array_equal(alpha, res.alpha), "numba and NumPy paths differ"
        print(
            f"{m:>6} {T:>8} {res.n_violations:>10} {T / t_numba:>14.0f} {T / t_numpy:>14.0f} "
            f"{t_numpy / t_numba:>7.1f}"
        )
    m, T = sizes[0]
    X, y = ringnorm_delve(m + 400, random_state=3)
    configs = [
        EarlyStopping(p, tol, interval=r)
        for p in range(10)
        for tol in (0, 0.005)
        for r in (100, 200, 500, 1000, 2000)
    ]
    t0 = time.perf_counter()
    run_pegasos(X[:m], y[:m], lam=lam, n_steps=T, gamma=gamma, random_state=4)
    t_plain = time.perf_counter() - t0
    t0 = time.perf_counter()
    sweep_pegasos(
        X[:m], y[:m], X[m:], y[m:], configs, lam=lam, n_steps=T, gamma=gamma, random_state=4
    )
    t_sweep = time.perf_counter() - t0
    print(f"sweep of {len(configs)} configurations / plain run: {t_sweep / t_plain:.2f}x")


if __name__ == "__main__":
    main()
