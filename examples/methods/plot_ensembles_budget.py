"""
SVM ensembles on a budget
=========================

Nevado, Martinez-Munoz and Suarez (ICANN 2022) replace one SVM tuned by a
K-fold grid search with B sub-ensembles of T = 1/tp small RBF SVMs: each
sub-ensemble picks its own (C, gamma) by a 2-fold grid search on 2 tp N
rows, and its T members train on the T disjoint parts of the training set.
Many small fits cost far less than one large one, since an SVM fit grows
faster than linearly with its rows.

:class:`~esmo.SVMEnsembleClassifier` is that method; its ``grid_search``
also offers two searches beyond the paper: every grid fit early-stopped on
its validation half, or successive halving. Here they are set against the
paper's baseline, a single SVM tuned by 10-fold grid search on a subsample,
on Breiman's Twonorm.
"""

import matplotlib.pyplot as plt
import numpy as np

from esmo import SMOClassifier, SVMEnsembleClassifier
from esmo.data.breiman import twonorm
from esmo.ensembles.grid import paper_grid
from esmo.ensembles.single_svm import tune_single_svm

rng = np.random.default_rng(0)
X_train, y_train = twonorm(4000, rng)
X_test, y_test = twonorm(4000, rng)
grid = paper_grid(step=4)  # the paper's range, every other point: 6 x 5 = 30 (C, gamma)
C_values, gamma_values = np.unique(grid[:, 0]), np.unique(grid[:, 1])

SMOClassifier().fit(X_train[:50], y_train[:50])  # numba compiles once, outside the costs

# %%
# The ensembles
# -------------
# Five sub-ensembles of 20 members (tp = 0.05: 200 rows each) with each of
# the three grid searches.

results = {}
for search in ("exhaustive", "early_stopped", "halving"):
    ensemble = SVMEnsembleClassifier(
        n_subensembles=5,
        train_proportion=0.05,
        C_grid=C_values,
        gamma_grid=gamma_values,
        grid_search=search,
        random_state=0,
    ).fit(X_train, y_train)
    results[f"ensemble, {search}"] = (ensemble.score(X_test, y_test), ensemble.cost_)

# %%
# The single SVMs
# ---------------
# 10-fold grid search over the same 30 points, then a refit, on the first
# N rows (the paper's single SVM on a subsample of growing size).

for n in (200, 400, 800):
    tuned = tune_single_svm(X_train[:n], y_train[:n], grid, n_folds=10, random_state=0)
    results[f"single SVM, N = {n}"] = (tuned.model.score(X_test, y_test), tuned.log.totals())

for label, (accuracy, cost) in results.items():
    print(
        f"{label:28} test accuracy {accuracy:.4f}  fits {int(cost['n_fits']):>5}  "
        f"kernel evaluations {cost['kernel_evaluations']:.3g}  CPU {cost['cpu_seconds']:.2f} s"
    )

# %%
# Accuracy against cost
# ---------------------

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for k, (label, (accuracy, cost)) in enumerate(results.items()):
    marker = "o" if label.startswith("ensemble") else "s"
    ax1.scatter(cost["cpu_seconds"], accuracy, marker=marker, s=60, color=f"C{k}", label=label)
    ax2.scatter(cost["kernel_evaluations"], accuracy, marker=marker, s=60, color=f"C{k}")
ax1.set_xlabel("CPU seconds (search and training)")
ax1.set_ylabel("test accuracy")
ax2.set_xlabel("kernel evaluations")
for ax in (ax1, ax2):
    ax.set_xscale("log")
ax1.legend(fontsize="small")
fig.tight_layout()
plt.show()

# %%
# Early stopping pays where fits are long; on fits of a few hundred rows it
# can cost more than it saves, since a tracked fit computes every kernel
# row's validation columns too (compare the kernel evaluations above). Each
# ensemble's record of every fit is ``ensemble.fits_``, and
# ``ensemble.subensemble_params_`` holds each sub-ensemble's (C, gamma).
#
# The protocol (:doc:`/ensembles-protocol`) fixes the paper's open choices,
# and the workflow's target ``ensembles`` reproduces its table 1 and
# figures 1-4 on six datasets.
