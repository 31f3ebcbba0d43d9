"""
A neural SVM (NSVM-4), stopped early
====================================

Simon and Radons (2023) train a kernel SVM on features learnt by a neural
network, ``K(x, x') = exp(-gamma ||F(x) - F(x')||^2)``, with Pegasos. Their
fourth algorithm, NSVM-4, does it in two parts: Part I trains the network
``F`` to align its kernel with the labels (the loss ``(1 - A)^2`` of the
kernel-target alignment A, on mini-batches); Part II freezes it and runs
kernel Pegasos on its features.

:class:`~esmo.nsvm.estimators.NSVM4Classifier` is that algorithm (PyTorch
for the network, esmo's numba Pegasos for Part II). Beyond the paper, both
parts can stop early: Part I on the validation alignment
(``part1_early_stopping``), Part II on the validation accuracy; given
several configurations, Part II is one exact sweep. This example needs
PyTorch (the ``nsvm`` extra) and runs on Breiman's Ringnorm with the paper's
network for it.
"""

import matplotlib.pyplot as plt
import numpy as np
import torch

from esmo import EarlyStopping
from esmo.data.breiman import ringnorm
from esmo.nsvm.estimators import NSVM4Classifier
from esmo.nsvm.networks import ringnorm_mlp

torch.set_num_threads(1)  # batches of 16 rows: one thread is faster than two
rng = np.random.default_rng(0)
X_train, y_train = ringnorm(1000, rng)
X_val, y_val = ringnorm(400, rng)
X_test, y_test = ringnorm(2000, rng)
mean, std = X_train.mean(axis=0), X_train.std(axis=0)  # standardised on the training rows
X_train, X_val, X_test = ((part - mean) / std for part in (X_train, X_val, X_test))

# %%
# Part I for a fixed number of steps, Part II swept
# -------------------------------------------------
# ``ringnorm_mlp`` is the paper's 20-40-30-20-20 ReLU network; a function
# returning the network (or a module) is re-initialised under
# ``random_state``. ``diagnostic_interval`` records the alignment of a fixed
# training batch along Part I (the paper's section 6).

configs = [EarlyStopping(patience=p, tol=0.0, interval=500) for p in (1, 2, 5, 10)]
nsvm = NSVM4Classifier(
    network=ringnorm_mlp,
    gamma=1.0,
    n_steps=600,
    part2_steps=20_000,
    early_stopping=configs,
    diagnostic_interval=25,
    random_state=0,
).fit(X_train, y_train, X_val=X_val, y_val=y_val, X_test=X_test, y_test=y_test)
sweep = nsvm.early_stopping_
print(f"Part II to {nsvm.n_steps_} steps: test accuracy {nsvm.score(X_test, y_test):.4f}")
for config, stop, accuracy in zip(configs, sweep.stop_iter, sweep.test_accuracy, strict=True):
    print(f"  patience {config.patience:>2}: stops at step {stop:>6}, test accuracy {accuracy:.4f}")

# %%
# Part I stopped on the validation alignment
# ------------------------------------------

stopped = NSVM4Classifier(
    network=ringnorm_mlp,
    gamma=1.0,
    n_steps=600,
    part2_steps=20_000,
    part1_early_stopping=EarlyStopping(patience=3, tol=0.0, interval=25),
    random_state=0,
).fit(X_train, y_train, X_val=X_val, y_val=y_val)
print(
    f"Part I stopped early: {stopped.part1_stopped_early_} after {stopped.n_part1_steps_} of 600 "
    f"steps; test accuracy {stopped.score(X_test, y_test):.4f}"
)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
diagnostics = nsvm.diagnostics_
ax1.plot(diagnostics["step"], diagnostics["alignment"], label="alignment (training batch)")
ax1.plot(diagnostics["step"], diagnostics["mean_offdiag_kernel"], label="mean off-diagonal K")
ax1.axvline(stopped.n_part1_steps_, color="C3", ls="--", label="Part I's early stop")
ax1.set_xlabel("Part I step")
ax1.legend()
ax2.scatter(sweep.stop_iter, sweep.test_accuracy, color="C3", label="Part II's early stops")
ax2.axhline(nsvm.score(X_test, y_test), color="0.3", ls="--", label="all 20,000 steps")
ax2.set_xscale("log")
ax2.set_xlabel("Part II (Pegasos) step")
ax2.set_ylabel("test accuracy")
ax2.legend(loc="lower right")
fig.tight_layout()
plt.show()

# %%
# NSVM-1 to NSVM-3 (:class:`~esmo.nsvm.estimators.NSVM1Classifier` ...)
# train the network and the SVM together, and cost far more per step. The
# protocol is :doc:`/nsvm-protocol`; the workflow's target ``nsvm``
# reproduces the paper's four algorithms on Ringnorm and MNIST 0/1.
