"""
An early-stopped fit
====================

:class:`~esmo.SMOClassifier` is LIBSVM's SMO algorithm with early stopping
inside the solver loop: every ``validation_interval`` iterations it reads the
validation accuracy of the current iterate (O(n_val) per check, the decision
values are kept up to date as the solver moves) and stops after
``n_iter_no_change`` checks in a row without an improvement larger than
``es_tol``.

This example fits one noisy problem to convergence, records the validation
accuracy at every check through the per-check ``callback``, and marks where
early stopping with three patiences ends the same run.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MinMaxScaler

from esmo import SMOClassifier

X, y = make_classification(
    n_samples=3000, n_features=20, n_informative=6, flip_y=0.1, class_sep=0.8, random_state=0
)
X = MinMaxScaler().fit_transform(X)
X_rest, X_test, y_rest, y_test = train_test_split(X, y, test_size=0.25, random_state=0)
X_train, X_val, y_train, y_val = train_test_split(X_rest, y_rest, test_size=1 / 3, random_state=0)

# %%
# The whole run, watched
# ----------------------
# With ``early_stopping=True`` and a patience too large to run out, the fit
# runs to convergence while the callback sees every check. A callback that
# returns a true value would end the fit there (that is how Optuna's pruner
# plugs in); this one only records.

checks = []


def record(info):
    checks.append((info.n_iter, info.val_accuracy, info.gap))
    return False


params = dict(kernel="rbf", C=100.0, gamma=1.0, validation_interval=20)
full = SMOClassifier(early_stopping=True, n_iter_no_change=10**9, **params)
full.fit(X_train, y_train, X_val=X_val, y_val=y_val, callback=record)
print(f"to convergence: {full.n_iter_} iterations, test accuracy {full.score(X_test, y_test):.3f}")

# %%
# Early stopping
# --------------
# The same problem with three patiences. Early stopping never changes the
# SMO path, only where it ends, so each stop is a point on the curve above.

stopped = {}
for patience in (5, 20, 100):
    clf = SMOClassifier(early_stopping=True, n_iter_no_change=patience, es_tol=1e-3, **params)
    clf.fit(X_train, y_train, X_val=X_val, y_val=y_val)
    stopped[patience] = clf
    print(
        f"patience {patience:>3}: stopped early {clf.stopped_early_}, {clf.n_iter_} iterations, "
        f"test accuracy {clf.score(X_test, y_test):.3f}"
    )

# %%
# The validation accuracy and the solver's own stopping criterion (the
# maximal KKT violation, which must fall below ``tol``) along the run:

iters, val_acc, gap = zip(*checks, strict=True)
fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(7, 6))
ax1.plot(iters, val_acc, lw=1, color="0.3")
for (patience, clf), colour in zip(stopped.items(), ("C0", "C1", "C2"), strict=True):
    ax1.axvline(clf.n_iter_, color=colour, ls="--", label=f"stop, patience {patience}")
ax1.set_ylabel("validation accuracy")
ax1.legend(loc="lower right")
ax2.loglog(iters, gap, lw=1, color="0.3")
ax2.axhline(full.tol, color="C3", ls=":", label="tol")
ax2.set_xlabel("SMO iteration")
ax2.set_ylabel("KKT violation m(a) - M(a)")
ax2.legend()
fig.suptitle(f"C = {params['C']}, gamma = {params['gamma']}: {full.n_iter_} iterations to converge")
fig.tight_layout()
plt.show()

# %%
# The validation accuracy levels off long before the solver converges; how
# much of the test accuracy early stopping keeps depends on the patience.
# The thesis's experiments (:doc:`/thesis-protocol`) measure that trade
# over hundreds of configurations, and :doc:`plot_one_run_sweep` shows how
# one run gives all of them at once.
