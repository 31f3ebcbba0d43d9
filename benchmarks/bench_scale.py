"""esmo against scikit-learn-intelex's SVC (oneDAL) where compute matters: a1a.t, 20,000 rows.

Issue 31's table, measured side by side in one process: the same stratified
draw of a1a.t (min-max scaled), RBF, tol 1e-3, each library's defaults (esmo
with shrinking, as SVC), the same C and gamma, the fastest of ``--repeats``
alternating fits per configuration. Reported per configuration: wall and CPU
seconds of each (CPU over all threads, so a two-thread library is charged for
both), esmo / sklearnex on each, and the share of training points both
predict alike. The configurations are the issue's: (log2 C, log2 gamma) =
(5.5, 0.07), (1.6, -0.14) and (7.3, -6.0), the long fit (262,912 iterations,
about 7,000 support vectors) where a batched working set pays.

sklearnex is the optional ``anchors`` extra (``pip install -e ".[anchors]"``);
without it only esmo's times are printed, with a note. Timings depend on the
machine and its load: read the ratios, measured in the same run.

``--n-jobs -1`` lets esmo fill its kernel rows on every core, as oneDAL uses
them (the fit is the same to the bit for any ``n_jobs``).

Usage: ``python benchmarks/bench_scale.py [--mirror DIR] [--rows 20000] [--repeats 2] [--n-jobs N]``.
"""

from __future__ import annotations

import argparse
import functools
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_svmlight_file
from sklearn.model_selection import train_test_split

from esmo.data.libsvm import minmax_normalise
from esmo.estimators.smo_classifier import SMOClassifier

DEFAULT_MIRROR = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "libsvm"
#: (log2 C, log2 gamma) of issue 31's table
CONFIGS = [(5.5, 0.07), (1.6, -0.14), (7.3, -6.0)]


def load(
    mirror: Path, rows: int | None, name: str = "a1a.t", n_features: int | None = 123
) -> tuple[np.ndarray, np.ndarray]:
    """A LIBSVM file of the mirror, dense and min-max scaled, labels +-1; a stratified draw
    of ``rows`` (``benchmarks/bench_path.py`` reads its datasets this way too)."""
    X, labels = load_svmlight_file(str(mirror / name), n_features=n_features, zero_based=False)
    X = minmax_normalise(X.toarray())
    y = np.where(labels > 0, 1, -1)
    if rows and rows < len(y):
        keep, _ = train_test_split(np.arange(len(y)), train_size=rows, stratify=y, random_state=0)
        X, y = X[keep], y[keep]
    return X, y


def _timed_fit(model, X: np.ndarray, y: np.ndarray) -> tuple[float, float, np.ndarray]:
    cpu, wall = time.process_time(), time.perf_counter()
    model.fit(X, y)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return wall, cpu, model.predict(X)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=DEFAULT_MIRROR)
    parser.add_argument("--rows", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--n-jobs", type=int, default=None, help="esmo's n_jobs (default: one)")
    args = parser.parse_args()
    try:
        from sklearnex.svm import SVC as OneDalSVC
    except ImportError:
        OneDalSVC = None
        print("sklearnex is not installed (pip install -e '.[anchors]'): esmo alone\n")
    X, y = load(args.mirror, args.rows)
    SMOClassifier(C=1.0, gamma=0.1).fit(X[:300], y[:300])  # compile outside the timings
    print(
        f"a1a.t: {len(y)} x {X.shape[1]}, min of {args.repeats} alternating fits, "
        f"esmo n_jobs={args.n_jobs}\n"
    )
    header = f"{'log2 C':>7} {'log2 g':>7} {'esmo wall':>10} {'esmo cpu':>9}"
    if OneDalSVC is not None:
        header += f" {'onedal wall':>12} {'onedal cpu':>11} {'wall ratio':>11} {'cpu ratio':>10} {'agree':>7}"
    print(header)
    totals = np.zeros(4)
    for log2_c, log2_g in CONFIGS:
        params = {"C": 2.0**log2_c, "gamma": 2.0**log2_g, "tol": 1e-3}
        makers = {"esmo": functools.partial(SMOClassifier, n_jobs=args.n_jobs)}
        if OneDalSVC is not None:
            makers["onedal"] = OneDalSVC
        best: dict[str, tuple[float, float, np.ndarray]] = {}
        for _ in range(args.repeats):
            for name, make in makers.items():
                run = _timed_fit(make(**params), X, y)
                if name not in best or run[0] < best[name][0]:
                    best[name] = run
        line = f"{log2_c:7.1f} {log2_g:7.2f} {best['esmo'][0]:10.2f} {best['esmo'][1]:9.2f}"
        totals[:2] += best["esmo"][:2]
        if OneDalSVC is not None:
            wall, cpu, pred = best["onedal"]
            totals[2:] += (wall, cpu)
            agree = float(np.mean(pred == best["esmo"][2]))
            line += (
                f" {wall:12.2f} {cpu:11.2f} {best['esmo'][0] / wall:11.2f}"
                f" {best['esmo'][1] / cpu:10.2f} {agree:7.4f}"
            )
        print(line, flush=True)
    if OneDalSVC is not None:
        print(
            f"\nall configurations: esmo / oneDAL wall {totals[0] / totals[2]:.2f}, "
            f"cpu {totals[1] / totals[3]:.2f}"
        )


if __name__ == "__main__":
    main()
