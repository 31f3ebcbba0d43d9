"""Gradient-based tuning of SVM hyperparameters (Keerthi, Sindhwani and Chapelle, NIPS 2006).

The validation function is smoothed (:mod:`~esmo.hypergradient.validation`),
its gradient in every hyperparameter comes from one linear solve per fold
(:mod:`~esmo.hypergradient.fold`, :mod:`~esmo.hypergradient.adjoint`), summed
over the folds (:mod:`~esmo.hypergradient.objective`), and L-BFGS-B minimises
it (:class:`GradientSearchCV`); :func:`grid_search_cv` is the paper's baseline.
The method and every open choice: docs/gradient-protocol.md.
"""

from esmo.hypergradient.grid import LOG2_C_GRID, LOG2_GAMMA_GRID, best_grid_cell, grid_search_cv
from esmo.hypergradient.model import KernelSVM, fit_svm
from esmo.hypergradient.search import GradientSearchCV
from esmo.hypergradient.space import Hyperparameters, Space

__all__ = [
    "LOG2_C_GRID",
    "LOG2_GAMMA_GRID",
    "GradientSearchCV",
    "Hyperparameters",
    "KernelSVM",
    "Space",
    "best_grid_cell",
    "fit_svm",
    "grid_search_cv",
]
