"""
A cross-validated path over C, the kernel work shared
=====================================================

``GridSearchCV(SVC(gamma=g), {"C": Cs}, cv=5)`` fits ``5 * len(Cs)`` SVMs, and
each computes its own kernel values, although they depend on neither ``C``
nor the fold. :func:`esmo.tuning.path.fit_path` computes the kernel matrix of
the training set once for every fold and every ``C``, and starts each ``C``
from the last one's solution scaled to its box. Without warm starts every fit
is the one ``SMOClassifier`` makes on the fold, to the bit; with them each fit
meets the same tolerance from a nearer start.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import SVC

from esmo.tuning.path import fit_path

X, y = load_breast_cancer(return_X_y=True)
X = MinMaxScaler().fit_transform(X)
Cs = 2.0 ** np.linspace(-5, 12, 30)
gamma = 1.0 / X.shape[1]
folds = StratifiedKFold(5)

fit_path(X[:60], y[:60], Cs[:2], gamma)  # compile the solver outside the timings

# %%
# The path, cold and warm, beside scikit-learn's grid search
# ----------------------------------------------------------

start = time.process_time()
grid = GridSearchCV(SVC(gamma=gamma), {"C": list(Cs)}, cv=folds, refit=False).fit(X, y)
grid_seconds = time.process_time() - start
cold = fit_path(X, y, Cs, gamma, folds, warm_start=False)
warm = fit_path(X, y, Cs, gamma, folds)

print(f"GridSearchCV(SVC): {grid_seconds:.2f} CPU s for {5 * len(Cs)} fits")
print(f"fit_path, cold:    {cold.seconds:.2f} CPU s, {cold.n_iter.sum():,} SMO iterations")
print(f"fit_path, warm:    {warm.seconds:.2f} CPU s, {warm.n_iter.sum():,} SMO iterations")
print(f"kernel values computed by the path: {warm.kernel_evaluations:,}")
gap = np.abs(cold.mean_scores - grid.cv_results_["mean_test_score"]).max()
print(f"largest difference of a mean CV score, cold path against SVC's: {gap:.2g}")
print(f"best C: grid {grid.best_params_['C']:.4g}, cold {cold.best_C:.4g}, warm {warm.best_C:.4g}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.semilogx(
    Cs, grid.cv_results_["mean_test_score"], "k-", lw=3, alpha=0.3, label="GridSearchCV(SVC)"
)
ax1.semilogx(Cs, cold.mean_scores, "o", label="fit_path, cold")
ax1.semilogx(Cs, warm.mean_scores, "x", label="fit_path, warm")
ax1.set_xlabel("C")
ax1.set_ylabel("mean 5-fold CV accuracy")
ax1.legend()
ax2.loglog(Cs, cold.n_iter.sum(axis=1), "o-", label="cold")
ax2.loglog(Cs, warm.n_iter.sum(axis=1), "x-", label="warm from the last C")
ax2.set_xlabel("C")
ax2.set_ylabel("SMO iterations over the 5 folds")
ax2.legend()
fig.tight_layout()
plt.show()

# %%
# The large values of C take most of the iterations: the dual gets harder as
# the box widens, and a warm start shortens that end of the path less than
# its beginning. ``benchmarks/bench_path.py`` measures the path on LIBSVM's
# data beside separate fits and ``GridSearchCV(SVC)``; the budget benchmark
# runs its grid this way as the method ``esmo_path``.
