"""The SMO engine: kernels and the kernel-row store, the solver loop and its steps, the reference solvers.

Needs numpy and numba only. The loop (:mod:`esmo.solver.smo`) is a short driver
over named steps, each a screen long, as in LIBSVM's ``Solver``: working-set
selection (:mod:`~esmo.solver.working_set`), the pair and gradient update
(:mod:`~esmo.solver.update`), the bias (:mod:`~esmo.solver.rho`) and the
early-stopping hook (:mod:`~esmo.solver.tracking`).
"""
