"""Neural SVMs (Simon and Radons 2023): a network's features fed to a kernel SVM, trained by Pegasos.

Needs PyTorch, the optional extra ``esmo[nsvm]`` (the CPU build: see the README);
the kernel Pegasos part is esmo's numba solver (:mod:`esmo.solver.pegasos`).
:mod:`~esmo.nsvm.networks` holds the paper's two networks, :mod:`~esmo.nsvm.losses`
the kernel and the theta objectives, :mod:`~esmo.nsvm.estimators` the four
training algorithms as scikit-learn classifiers.
"""
