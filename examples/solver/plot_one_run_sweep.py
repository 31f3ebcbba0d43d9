"""
One run, many early-stopping configurations
===========================================

Early stopping never changes the SMO path, only where it ends. So
:func:`~esmo.sweep_early_stopping` runs the solver once to convergence while
it tracks the state machines of many early-stopping configurations, and
returns for each one exactly what a separate early-stopped fit would have
produced: the stop iteration and the validation and test accuracy there.

This example sweeps 60 configurations (patience, tolerance and check
interval) in one run, checks three of them against separate fits, and
compares the time with fitting all 60 one by one.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from esmo import EarlyStopping, solve_smo, sweep_early_stopping

X, y = make_classification(
    n_samples=2500, n_features=10, n_informative=5, flip_y=0.15, random_state=3
)
y = np.where(y == 1, 1.0, -1.0)  # the solver's functions take labels in {-1, +1}
X_fit, X_test, y_fit, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=1)
X_train, X_val, y_train, y_val = train_test_split(
    X_fit, y_fit, test_size=0.3, stratify=y_fit, random_state=1
)

# %%
# The configurations
# ------------------
# Patience from 1 to 1000 checks, two tolerances, three check intervals.

configs = [
    EarlyStopping(patience=p, tol=tol, interval=r)
    for p in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    for tol in (0.0, 1e-2)
    for r in (1, 10, 50)
]
solver = dict(kernel="rbf", C=1000.0, gamma=0.1, tol=1e-3)
# numba compiles the solver at its first call (then caches it on disk); a tiny sweep
# first keeps the compilation out of the timings below
sweep_early_stopping(
    X_train[:40], y_train[:40], X_val, y_val, configs[:2], X_test=X_test, y_test=y_test
)

start = time.perf_counter()
sweep = sweep_early_stopping(
    X_train, y_train, X_val, y_val, configs, X_test=X_test, y_test=y_test, **solver
)
sweep_seconds = time.perf_counter() - start
table = sweep.table
table["patience"] = [c.patience for c in configs]
table["interval"] = [c.interval for c in configs]
print(f"the run to convergence: {sweep.reference['n_iter']} iterations")
print(table.head(8).to_string())

# %%
# Exact, configuration by configuration
# -------------------------------------
# A separate early-stopped fit of any configuration stops at the same
# iteration with the same model.

for k in (0, 13, 47):
    one = solve_smo(X_train, y_train, early_stopping=configs[k], X_val=X_val, y_val=y_val, **solver)
    print(f"{configs[k]}: separate fit {one.n_iter} iterations, sweep {sweep.stop_iter[k]}")
    assert one.n_iter == sweep.stop_iter[k]

# %%
# What one run saves
# ------------------

start = time.perf_counter()
for config in configs:
    solve_smo(X_train, y_train, early_stopping=config, X_val=X_val, y_val=y_val, **solver)
separate_seconds = time.perf_counter() - start
print(f"one sweep {sweep_seconds:.2f} s, {len(configs)} separate fits {separate_seconds:.2f} s")

# %%
# Where each configuration stops, and the test accuracy of its model:

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4), width_ratios=(2, 1))
for r, marker in zip((1, 10, 50), "os^", strict=True):
    part = table[table["interval"] == r]
    points = ax1.scatter(
        part["stop_iter"],
        part["test_accuracy"],
        c=np.log10(part["patience"]),
        marker=marker,
        cmap="viridis",
        label=f"interval r = {r}",
    )
ax1.axhline(sweep.reference["test_accuracy"], color="0.5", ls="--", label="run to convergence")
ax1.set_xscale("log")
ax1.set_xlabel("stop iteration")
ax1.set_ylabel("test accuracy at the stop")
ax1.legend(loc="lower right")
fig.colorbar(points, ax=ax1, label="log10 patience")
ax2.bar(
    ["one sweep", f"{len(configs)} fits"], [sweep_seconds, separate_seconds], color=["C0", "C1"]
)
ax2.set_ylabel("wall seconds")
fig.tight_layout()
plt.show()

# %%
# The thesis's experiment E1 sweeps 100 such configurations for each of 400
# SVM configurations per dataset and fold this way (:doc:`/thesis-protocol`,
# section 5). ``EarlyStoppingSet.of(configs)`` validates a list once, for a
# search that sweeps the same configurations for many SVMs.
