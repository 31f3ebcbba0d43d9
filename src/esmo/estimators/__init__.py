"""scikit-learn compatible estimators built on the solvers of :mod:`esmo.solver`."""
