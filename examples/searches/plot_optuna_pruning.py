"""
Optuna pruning inside the SVM fit
=================================

An SVM fit is one long solver call, so a hyperparameter framework can
usually prune it only before it starts or after it ends. esmo's solver
pauses at every early-stopping check and hands the check to a callback, so
an Optuna trial's pruner can stop the fit inside SMO, at the iteration where
its validation accuracy falls behind the other trials'.

:class:`~esmo.OptunaSearchSVM` runs such a study as one scikit-learn
estimator (Optuna's TPE sampler, the median pruner by default). This example
runs the same 40 trials with and without pruning and draws what each trial
spent. The callback itself is :func:`esmo.tuning.pruning.pruning_callback`;
:doc:`/optuna` shows it in a hand-written Optuna objective.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from esmo import OptunaSearchSVM, SMOClassifier

digits = load_digits()
X = digits.data / 16.0
y = digits.target >= 5  # the digits 5-9 against 0-4
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=2)
space = {"C": (2.0**-5, 2.0**15), "gamma": (2.0**-15, 2.0**3)}  # log-uniform bounds

SMOClassifier().fit(X_train[:50], y_train[:50])  # numba compiles once, outside the costs

# %%
# The two studies
# ---------------
# The pruner looks at each trial every ``pruning_interval`` SMO iterations;
# a pruned trial's iterations are charged, and it cannot be chosen.

studies = {}
for label, pruner in (("no pruning", None), ("median pruner", "median")):
    search = OptunaSearchSVM(
        param_distributions=space, n_trials=40, pruner=pruner, pruning_interval=50, random_state=0
    )
    studies[label] = search.fit(X_train, y_train)
    print(
        f"{label:14} SMO iterations {search.cost_['n_iter']:>9,}  "
        f"CPU {search.cost_['cpu_seconds']:.2f} s  "
        f"pruned {int(np.sum(search.cv_results_['pruned']))}  "
        f"holdout {search.best_score_:.3f}  test {search.score(X_test, y_test):.3f}"
    )

# %%
# Every trial's iterations
# ------------------------

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
for ax, (label, search) in zip((ax1, ax2), studies.items(), strict=True):
    results = search.cv_results_
    pruned = np.asarray(results["pruned"], dtype=bool)
    trial = np.arange(len(pruned))
    ax.bar(trial[~pruned], results["n_iter"][~pruned], color="C0", label="completed")
    ax.bar(trial[pruned], results["n_iter"][pruned], color="C3", label="pruned inside SMO")
    ax.set_yscale("log")
    ax.set_xlabel("trial")
    ax.set_title(f"{label}: {search.cost_['n_iter']:,} iterations")
    ax.legend()
ax1.set_ylabel("SMO iterations of the trial")
fig.tight_layout()
plt.show()

# %%
# A fit the pruner did not stop is identical to the fit without it; one it
# stopped at iteration k equals the fit with ``max_iter=k``. The study's
# record is ``search.study_``, and ``trace_`` holds the cost after every
# trial, as for every search of :mod:`esmo.tuning`.
