"""
Warm starts and regularisation paths
====================================

``SMOClassifier(warm_start=True)`` starts a fit from the previous one's
solution. Two cases:

* only ``max_iter`` (or the early-stopping settings) changed: the solver
  continues *exactly* where it stopped, so a fit cut at ``max_iter=k`` and
  continued equals the uninterrupted fit. Successive halving on SMO
  iterations (``SuccessiveHalvingSVM(resource="n_iter")``, ``HyperbandSVM``)
  resumes its survivors this way instead of refitting them;
* ``C``, ``gamma`` or the weights changed: the fit starts from the previous
  alphas clipped into the new box (the equality constraint repaired), which
  along a path of nearby values is a good start.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from esmo import SMOClassifier

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
X, X_test, y, y_test = train_test_split(X, y, test_size=0.3, stratify=y, random_state=4)

# %%
# A fit continued is the fit uninterrupted
# ----------------------------------------

once = SMOClassifier(C=100.0, gamma=0.05, shrinking=False).fit(X, y)
resumed = SMOClassifier(C=100.0, gamma=0.05, shrinking=False, max_iter=200, warm_start=True)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # it warns that it hit max_iter
    resumed.fit(X, y)
print(f"cut at {resumed.n_iter_} iterations (max_iter_reached_ = {resumed.max_iter_reached_})")
resumed.set_params(max_iter=-1).fit(X, y)
print(f"continued to {resumed.n_iter_} iterations; one fit took {once.n_iter_}")
print("same dual coefficients:", np.array_equal(resumed.dual_coef_, once.dual_coef_))

# %%
# A path over C
# -------------
# Twenty values of C, each fitted from scratch and from the previous value's
# solution.

Cs = np.logspace(-1, 4, 20)
cold_iters, warm_iters, accuracy = [], [], []
warm = SMOClassifier(gamma=0.05, warm_start=True)
for C in Cs:
    cold = SMOClassifier(C=C, gamma=0.05).fit(X, y)
    warm.set_params(C=C).fit(X, y)
    cold_iters.append(cold.n_iter_)
    warm_iters.append(warm.n_iter_)
    accuracy.append(warm.score(X_test, y_test))
print(f"iterations over the path: cold {sum(cold_iters):,}, warm {sum(warm_iters):,}")

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 4))
ax1.loglog(Cs, cold_iters, "o-", label="cold start")
ax1.loglog(Cs, warm_iters, "s-", label="warm start from the previous C")
ax1.set_xlabel("C")
ax1.set_ylabel("SMO iterations")
ax1.legend()
ax2.semilogx(Cs, accuracy, "k.-")
ax2.set_xlabel("C")
ax2.set_ylabel("test accuracy")
fig.tight_layout()
plt.show()

# %%
# A warm start from another C counts its iterations from 0, and the model it
# converges to is the SVM at the new C (to the solver's tolerance), whatever
# the start. ``max_time`` (a wall-clock budget per fit) ends a fit the same
# resumable way, but depends on the machine.
