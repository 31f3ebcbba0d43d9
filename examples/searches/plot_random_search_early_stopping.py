"""
Random search with early stopping against RandomizedSearchCV(SVC)
=================================================================

:class:`~esmo.RandomSearchSVM` is the thesis's random search over (C, gamma)
of an RBF SVM: sampled configurations, each fitted on a training part and
scored on a stratified holdout, the best refitted on all the data. With
``early_stopping=True`` every fit stops on its holdout accuracy (the
thesis's RS+ES, with its configuration j_high: patience 109, tolerance
0.000229, a check every iteration).

Here both run beside scikit-learn's ``RandomizedSearchCV(SVC())`` on the
same holdout split and the same log-uniform distributions, and the
searches' anytime records (``trace_``: the incumbent after every
evaluation, against the CPU seconds spent so far) are drawn.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import loguniform
from sklearn.datasets import make_classification
from sklearn.model_selection import PredefinedSplit, RandomizedSearchCV, train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

from esmo import RandomSearchSVM, SMOClassifier

X, y = make_classification(
    n_samples=2000, n_features=12, n_informative=6, flip_y=0.05, random_state=7
)
X = StandardScaler().fit_transform(X)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=0)
space = {"C": loguniform(2.0**-5, 2.0**15), "gamma": loguniform(2.0**-15, 2.0**3)}
n_iter = 60

SMOClassifier().fit(X_train[:50], y_train[:50])  # numba compiles once, outside the timings

# %%
# esmo's searches, with and without early stopping
# ------------------------------------------------
# Both draw the same 60 configurations (same ``random_state``) and hold out
# the same rows.

searches = {}
for label, early_stopping in (("RS", False), ("RS+ES", True)):
    search = RandomSearchSVM(
        param_distributions=space, n_iter=n_iter, early_stopping=early_stopping, random_state=0
    )
    searches[label] = search.fit(X_train, y_train)

# %%
# RandomizedSearchCV(SVC) on the same holdout
# -------------------------------------------
# ``PredefinedSplit`` gives scikit-learn's search the holdout esmo's searches
# made (the rows ``cv_results_`` did not train on are the same for all).

rs = searches["RS"]
fold = np.full(len(y_train), -1)
train_part, val_part = train_test_split(
    np.arange(len(y_train)),
    test_size=rs.validation_fraction,
    stratify=y_train,
    random_state=0,
)
fold[val_part] = 0
start = time.process_time()
sklearn_search = RandomizedSearchCV(
    SVC(), space, n_iter=n_iter, cv=PredefinedSplit(fold), random_state=0
).fit(X_train, y_train)
sklearn_seconds = time.process_time() - start

# %%
# What each spent, and what it found
# ----------------------------------

rows = []
for label, search in searches.items():
    rows.append((label, search.cost_["cpu_seconds"], search.cost_["n_iter"], search))
for label, cpu, iterations, search in rows:
    print(
        f"{label:6} CPU {cpu:6.2f} s  SMO iterations {iterations:>9,}  "
        f"holdout {search.best_score_:.3f}  test {search.score(X_test, y_test):.3f}  "
        f"C={search.best_params_['C']:.3g} gamma={search.best_params_['gamma']:.3g}"
    )
print(
    f"RandomizedSearchCV(SVC) CPU {sklearn_seconds:6.2f} s  "
    f"holdout {sklearn_search.best_score_:.3f}  test {sklearn_search.score(X_test, y_test):.3f}"
)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
for label, search in searches.items():
    trace = search.trace_
    ax1.step(trace["cpu_seconds"], trace["selection_score"], where="post", label=label)
ax1.plot(sklearn_seconds, sklearn_search.best_score_, "k*", ms=12, label="RandomizedSearchCV(SVC)")
ax1.set_xscale("log")
ax1.set_xlabel("CPU seconds spent")
ax1.set_ylabel("holdout accuracy of the incumbent")
ax1.legend(loc="lower right")
labels = [*searches, "RandomizedSearchCV\n(SVC)"]
cpu = [s.cost_["cpu_seconds"] for s in searches.values()] + [sklearn_seconds]
ax2.bar(labels, cpu, color=["C0", "C1", "0.4"])
ax2.set_ylabel("CPU seconds, refit included")
fig.tight_layout()
plt.show()

# %%
# Early stopping cuts the long SMO runs, those of the configurations with
# large C, short; the search then ranks the configurations by the holdout
# accuracy of their stopped models, so its choice may differ from plain
# random search's. Whether the saving is worth it is what the thesis's score
# S weighs (accuracy against cost, :doc:`/thesis-protocol`, section 6), and
# its experiment E3 measures over datasets and folds.
