"""
Kernel Pegasos, with early stopping
===================================

Kernel Pegasos (Shalev-Shwartz et al.) trains an SVM without bias by
stochastic sub-gradient steps: at step t it draws one training point and,
if the current model violates its margin, counts it once more into the
model. Its cost is set by the number of steps T, not by convergence, which
makes T the thing to stop early. Simon and Radons (2023) build their neural
SVMs on it.

:class:`~esmo.estimators.pegasos_classifier.PegasosClassifier` is esmo's
(numba) kernel Pegasos; :func:`~esmo.solver.pegasos.sweep_pegasos` gives
every early-stopping configuration's stop from one run, exactly, as
:func:`~esmo.sweep_early_stopping` does for SMO. Here both run on Breiman's
Ringnorm beside esmo's SMO at the same C.
"""

import matplotlib.pyplot as plt
import numpy as np

from esmo import EarlyStopping, SMOClassifier
from esmo.data.breiman import ringnorm
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.solver.pegasos import sweep_pegasos

rng = np.random.default_rng(1)
X_train, y_train = ringnorm(1500, rng)
X_val, y_val = ringnorm(500, rng)
X_test, y_test = ringnorm(3000, rng)
C, gamma = 1.0, 0.05

# %%
# Accuracy against the number of steps
# ------------------------------------
# ``C`` sets ``lam = 1 / (C m)``: the C-SVM without bias.

steps = np.unique(np.logspace(2, 5, 10).astype(int))
accuracy = [
    PegasosClassifier(C=C, gamma=gamma, n_steps=int(T), random_state=0)
    .fit(X_train, y_train)
    .score(X_test, y_test)
    for T in steps
]
smo = SMOClassifier(C=C, gamma=gamma).fit(X_train, y_train)
print(f"SMO: {smo.n_iter_} iterations, test accuracy {smo.score(X_test, y_test):.4f}")
print(f"Pegasos, T = {steps[-1]}: test accuracy {accuracy[-1]:.4f}")

# %%
# Early stopping, swept in one run
# --------------------------------
# Checks every 500 steps on the validation accuracy, with patience 1 to 20,
# all tracked in one Pegasos run of the largest T.

configs = [EarlyStopping(patience=p, tol=0.0, interval=500) for p in (1, 2, 3, 5, 10, 20)]
sweep = sweep_pegasos(
    X_train,
    y_train,
    X_val,
    y_val,
    configs,
    X_test=X_test,
    y_test=y_test,
    lam=1.0 / (C * len(y_train)),
    n_steps=int(steps[-1]),
    gamma=gamma,
    random_state=0,
)
print(sweep.table.assign(patience=[c.patience for c in configs]).to_string())

fig, ax = plt.subplots(figsize=(7, 4.5))
ax.semilogx(steps, accuracy, "o-", label="Pegasos, T steps")
ax.axhline(smo.score(X_test, y_test), color="0.3", ls="--", label="SMO, to convergence")
ax.scatter(
    sweep.stop_iter, sweep.test_accuracy, color="C3", zorder=3, label="early stops (patience 1-20)"
)
ax.set_xlabel("steps T")
ax.set_ylabel("test accuracy")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %%
# The NSVM paper's protocol (:doc:`/nsvm-protocol`, section 7) replaces its
# fixed step counts by such early stopping; the workflow's target ``nsvm``
# also runs kernel Pegasos inside the thesis's random search and counts its
# cost in kernel evaluations against SMO's.
