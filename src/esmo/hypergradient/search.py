"""``GradientSearchCV``: tune an SVM's hyperparameters by quasi-Newton on a smoothed k-fold objective.

The paper's method (Keerthi, Sindhwani and Chapelle 2006) as the protocol
note decides it (docs/gradient-protocol.md, section 4): scipy's
L-BFGS-B on the log2 hyperparameters, inside the grid's box, from C = gamma =
1; the paper's stopping rule (relative changes of ``f`` and of the point both
below ``rtol``, after ``min_iter`` iterations) applied in a callback, with
scipy's own tolerances off; at most ``max_fun`` evaluations, line-search trials
included. Every evaluated point and its cost are recorded in ``history_``.
"""

from __future__ import annotations

import time
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.optimize import minimize
from sklearn.model_selection import StratifiedKFold
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data

from esmo.early_stopping import EarlyStopping
from esmo.estimators.base import SVMClassifierBase
from esmo.hypergradient.fold import INNER_MAX_ITER
from esmo.hypergradient.model import fit_svm
from esmo.hypergradient.objective import (
    INNER_SOLVES,
    CrossValidationObjective,
    Evaluation,
    InnerSolve,
)
from esmo.hypergradient.space import KERNELS, Space
from esmo.hypergradient.validation import OBJECTIVES
from esmo.solver.params import SOLVER_CONSTRAINTS, SolverParams
from esmo.solver.smo import blas_controller
from esmo.solver.tracking import SMOOTHING_T

#: How the sigmoid is set: threshold 0 and scale t / sigma (direct), the threshold tuned as a
#: hyperparameter (bias), or both fitted to each fold's outputs by Platt's likelihood (minimisation).
SIGMOIDS: tuple[str, ...] = ("direct", "bias", "minimisation")
#: The inner early-stopping rule when none is given: the thesis's rule on the outer objective,
#: checked every 100 iterations (the rule the inexact-solve study measured on Splice and Adult).
DEFAULT_INNER_EARLY_STOPPING = EarlyStopping(
    patience=5, tol=0.0, interval=100, metric="smoothed_error"
)


class _BudgetSpent(Exception):
    """``max_fun`` evaluations were made."""


class _NonFinite(Exception):
    """An evaluation gave a NaN or infinite value or gradient."""


class GradientSearchCV(SVMClassifierBase):
    """Gradient-based tuning of C, gamma (or one gamma per feature), class bounds, margins and threshold.

    Parameters
    ----------
    objective : {"error", "weighted_error", "f_measure", "nll"}
        The validation function, smoothed by a sigmoid and pooled over the folds
        (minimised; the F-measure as ``-F``). ``classes_[1]`` is the positive class.
        ``nll`` (the sigmoid's negative log-likelihood) needs ``sigmoid="minimisation"``.
    sigmoid : {"direct", "bias", "minimisation"}
        ``direct``: threshold ``theta_0 = 0``; ``bias``: ``theta_0`` is tuned too;
        ``minimisation``: Platt's sigmoid fitted to each fold (``error`` is then
        the paper's probabilistic error rate), predictions at ``theta_0 = 0``.
    kernel : {"rbf", "ard"}
        Gaussian kernel, or ARD-Gaussian with one width per feature.
    tune : tuple of str
        The positive hyperparameters tuned, among C, gamma, C_pos, C_neg, m_pos, m_neg.
    class_weight : dict or None
        Fixed ratio of the class bounds under a common ``C``: ``C_± = C w_±``.
    negative_cost : float
        The weighted error's cost of a negative's mistake relative to a positive's.
    start : dict or None
        Start values overriding C = gamma = 1, theta0 = 0, C_pos = C_neg = 1,
        m_pos = m_neg = 1 (ARD: gamma may hold one value per feature).
    cv : int or list of (train, validation) index pairs
        The fixed folds; an int gives ``StratifiedKFold(cv, shuffle=True, random_state)``.
    max_fun, min_iter, rtol : the budget and the paper's stopping rule.
    sharpness : float
        ``t`` in the sigmoid's scale ``theta_1 = t / sigma``; by default the one
        the solver's smoothed early-stopping objectives use
        (:data:`esmo.solver.tracking.SMOOTHING_T`), which ``inner="early_stopped"``
        on a smoothed metric requires.
    tol, max_iter, shrinking : SMO's KKT tolerance, iteration limit and shrinking for every fit.
    solver : {"fan", "fan_plain"}
        The folds' SMO: esmo's (the default), or appendix A's plain NumPy transcription
        of Fan, Chen and Lin's (:func:`esmo.solver.reference.plain_fan_smo`: two kernel
        rows computed per iteration, nothing cached), the slow SMO that shows what share
        of the tuning time an unoptimised solver takes. It solves the plain problem only
        (one C, unit margins: no tuned class bounds or margins, no class_weight) from
        scratch, exactly (``inner="exact"``, no ``warm_start``); the refit uses esmo's.
    inner : {"exact", "early_stopped", "tol_schedule"}
        How the folds' SMO fits are solved (:mod:`esmo.hypergradient.objective`).
    inner_early_stopping : EarlyStopping or None
        The rule of ``inner="early_stopped"`` (default: patience 5, tol 0,
        every 100 iterations, on the smoothed error).
    warm_start : bool
        Start each fold's SMO from its previous alphas.
    refit : bool
        Retrain on all the data at the best point (needed by ``predict``).
    random_state : int or None
        Seeds the folds when ``cv`` is an int.

    Attributes
    ----------
    best_params_
    best_score_
        The smoothed objective.
    cv_scores_
        Hard pooled error, weighted error and F at the best point.
    history_
        One entry per evaluation, a dict of arrays like ``cv_results_``.
    n_evaluations_
        The paper's nf.
    n_iter_
        L-BFGS-B iterations.
    cost_
        CPU seconds of the tuning on one BLAS thread: SMO, the adjoint solves, the rest.
    termination_
        A name of :data:`TERMINATIONS`.
    refit_seconds_
    model_
        The refit :class:`~esmo.hypergradient.model.KernelSVM`.
    classes_
    """

    _parameter_constraints: dict = {
        "objective": [StrOptions(set(OBJECTIVES))],
        "sigmoid": [StrOptions(set(SIGMOIDS))],
        "kernel": [StrOptions(set(KERNELS))],
        "tune": [tuple, list],
        "class_weight": [dict, None],
        "negative_cost": [Interval(Real, 0, None, closed="neither")],
        "start": [dict, None],
        "cv": [Interval(Integral, 2, None, closed="left"), list],
        "max_fun": [Interval(Integral, 1, None, closed="left")],
        "min_iter": [Interval(Integral, 0, None, closed="left")],
        "rtol": [Interval(Real, 0, None, closed="left")],
        "sharpness": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "shrinking": SOLVER_CONSTRAINTS["shrinking"],
        "inner": [StrOptions(set(INNER_SOLVES))],
        "solver": [StrOptions({"fan", "fan_plain"})],
        "inner_early_stopping": [EarlyStopping, None],
        "warm_start": ["boolean"],
        "refit": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        objective: str = "error",
        sigmoid: str = "direct",
        kernel: str = "rbf",
        tune: tuple[str, ...] = ("C", "gamma"),
        class_weight: dict | None = None,
        negative_cost: float = 1.0,
        start: dict | None = None,
        cv: int | list = 5,
        max_fun: int = 30,
        min_iter: int = 3,
        rtol: float = 1e-3,
        sharpness: float = SMOOTHING_T,
        tol: float = SolverParams.tol,
        max_iter: int = INNER_MAX_ITER,
        shrinking: bool = SolverParams.shrinking,
        solver: str = "fan",
        inner: str = "exact",
        inner_early_stopping: EarlyStopping | None = None,
        warm_start: bool = False,
        refit: bool = True,
        random_state: Any = None,
    ) -> None:
        self.objective = objective
        self.sigmoid = sigmoid
        self.kernel = kernel
        self.tune = tune
        self.class_weight = class_weight
        self.negative_cost = negative_cost
        self.start = start
        self.cv = cv
        self.max_fun = max_fun
        self.min_iter = min_iter
        self.rtol = rtol
        self.sharpness = sharpness
        self.tol = tol
        self.max_iter = max_iter
        self.shrinking = shrinking
        self.solver = solver
        self.inner = inner
        self.inner_early_stopping = inner_early_stopping
        self.warm_start = warm_start
        self.refit = refit
        self.random_state = random_state

    def _check_plain_solver(self) -> None:
        """``solver='fan_plain'`` solves the plain problem from scratch: refuse what it cannot."""
        if self.solver != "fan_plain":
            return
        plain = {"C", "gamma", "theta0"}
        problems = []
        if set(self.tune) - plain:
            problems.append(f"tune={tuple(self.tune)} (only C, gamma and theta0)")
        if self.class_weight is not None:
            problems.append("class_weight")
        if self.inner != "exact":
            problems.append(f"inner={self.inner!r} (only 'exact')")
        if self.warm_start:
            problems.append("warm_start=True")
        if self.kernel != "rbf":
            problems.append(f"kernel={self.kernel!r} (only 'rbf')")
        if problems:
            raise ValueError(
                "solver='fan_plain' (appendix A's plain SMO) solves one C with unit margins "
                f"from scratch; it cannot take {', '.join(problems)}: use solver='fan'."
            )

    def fit(self, X: Any, y: Any) -> GradientSearchCV:
        """Tune on ``(X, y)`` by the k-fold objective, then (``refit``) train on all of it."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        if self.objective == "nll" and self.sigmoid != "minimisation":
            raise ValueError(
                "objective='nll' is the likelihood of Platt's fitted sigmoid: use it with "
                "sigmoid='minimisation'."
            )
        self._check_plain_solver()
        self._set_classes(y)
        y_signed = self._signs(y, "y")
        folds = self._folds(X, y_signed)
        space = Space(
            self.tune,
            X.shape[1],
            kernel=self.kernel,
            tune_theta0=self.sigmoid == "bias",
            class_weight=_signed_weights(self.class_weight, self.classes_),
            start=self.start,
        )
        u0 = space.initial()
        inner = InnerSolve(
            mode=self.inner,
            tol=self.tol,
            max_iter=self.max_iter,
            early_stopping=self.inner_early_stopping or DEFAULT_INNER_EARLY_STOPPING,
            warm_start=self.warm_start,
            shrinking=self.shrinking,
            solver=self.solver,
        )
        objective = CrossValidationObjective(
            X,
            y_signed,
            folds,
            space,
            objective=self.objective,
            sigmoid="fitted" if self.sigmoid == "minimisation" else "scaled",
            sharpness=self.sharpness,
            negative_cost=self.negative_cost,
            inner=inner,
        )
        # one BLAS thread: CPU seconds then count one core's work, not threads spinning
        with blas_controller().limit(limits=1, user_api="blas"):
            evaluations, self.n_iter_, self.termination_ = self._minimise(objective, space, u0)
        best = min(range(len(evaluations)), key=lambda k: evaluations[k].value)
        h = space.decode(evaluations[best].u)
        self.best_index_ = best
        self.best_params_ = h.as_dict(self.kernel)
        self.best_score_ = evaluations[best].value
        self.cv_scores_ = dict(evaluations[best].hard)
        self.n_evaluations_ = len(evaluations)
        self.history_ = _history(evaluations, space)
        self.cost_ = _cost(evaluations)
        if self.refit:
            start = time.process_time()
            self.model_ = fit_svm(
                X, y_signed, h, tol=self.tol, max_iter=self.max_iter, shrinking=self.shrinking
            )
            self.refit_seconds_ = time.process_time() - start
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """The refit model's ``o(x) - theta_0``: positive predicts ``classes_[1]``."""
        check_is_fitted(self, "model_")
        X = validate_data(self, X, reset=False, dtype=np.float64, order="C")
        return self.model_.decision_function(X)

    def predict(self, X: Any) -> np.ndarray:
        """``classes_[1]`` where ``o(x) > theta_0``, else ``classes_[0]``."""
        positive = self.decision_function(X) > 0.0
        return self.classes_[positive.astype(int)]

    def _folds(self, X: np.ndarray, y: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        if isinstance(self.cv, list):
            folds = [(np.asarray(train), np.asarray(val)) for train, val in self.cv]
        else:
            splitter = StratifiedKFold(self.cv, shuffle=True, random_state=self.random_state)
            folds = list(splitter.split(X, y))
        needs_both = self.objective in ("f_measure", "weighted_error")
        for k, (train, val) in enumerate(folds):
            if np.unique(y[train]).shape[0] < 2:
                raise ValueError(
                    f"Fold {k}'s training part holds one class only; an SVM needs both. "
                    "Use stratified folds (cv as an int) or fewer folds."
                )
            if needs_both and np.unique(y[val]).shape[0] < 2:
                raise ValueError(
                    f"Fold {k}'s validation part holds one class only, so the {self.objective} "
                    "of that fold is undefined. Use stratified folds (cv as an int) with no more "
                    "folds than the smaller class has points."
                )
        return folds

    def _minimise(self, objective: CrossValidationObjective, space: Space, u0: np.ndarray):
        """Run L-BFGS-B with the paper's stopping rule: every evaluation, the iterations, why it ended."""
        evaluations: list[Evaluation] = []
        iterates = [u0]
        values: list[float] = []

        def fun(u: np.ndarray) -> tuple[float, np.ndarray]:
            if len(evaluations) >= self.max_fun:
                raise _BudgetSpent
            evaluation = objective.evaluate(u)
            evaluations.append(evaluation)
            if not (np.isfinite(evaluation.value) and np.all(np.isfinite(evaluation.gradient))):
                raise _NonFinite
            if len(values) == 0:
                values.append(evaluation.value)
            return evaluation.value, evaluation.gradient

        def stop_rule(intermediate_result: Any) -> None:
            u, value = np.array(intermediate_result.x), float(intermediate_result.fun)
            previous_u, previous_value = iterates[-1], values[-1]
            iterates.append(u)
            values.append(value)
            small_f = abs(value - previous_value) <= self.rtol * abs(previous_value)
            small_u = np.linalg.norm(u - previous_u) <= self.rtol * (
                1.0 + np.linalg.norm(previous_u)
            )
            if len(iterates) - 1 >= self.min_iter and small_f and small_u:
                raise StopIteration

        try:
            result = minimize(
                fun,
                u0,
                jac=True,
                method="L-BFGS-B",
                bounds=space.box(),
                callback=stop_rule,
                options={
                    "maxfun": 10 * self.max_fun,
                    "maxiter": 10 * self.max_fun,
                    "ftol": 0.0,
                    "gtol": 0.0,
                },
            )
        except _BudgetSpent:
            return evaluations, len(iterates) - 1, "max_fun"
        except _NonFinite:
            bad = evaluations.pop()
            if not evaluations:
                # bad input, not arithmetic gone wrong: a ValueError naming what to check
                raise ValueError(
                    f"The objective or its gradient is not finite at the start point "
                    f"(value {bad.value!r}): every output is equal when X's features are "
                    "constant; drop the constant columns of X, or check X for NaN."
                ) from None
            return evaluations, len(iterates) - 1, "non_finite"
        return evaluations, len(iterates) - 1, _termination(result.message)


#: L-BFGS-B's messages (fragments, upper case) and the names ``termination_`` gives them.
TERMINATIONS: dict[str, str] = {
    "STOPITERATION": "converged",  # the paper's rule, raised by the callback
    "ABNORMAL": "line_search_failed",  # no step decreased f: the best point so far is kept
    "PROJECTED GRADIENT": "zero_gradient",
    "RELATIVE REDUCTION": "no_decrease",  # with ftol = 0: f did not decrease at all
    "ITERATIONS REACHED": "iteration_limit",
    "EVALUATIONS EXCEEDS": "max_fun",
}


def _termination(message: str) -> str:
    """scipy's message as a name of :data:`TERMINATIONS` (the message itself if unknown)."""
    text = str(message).upper().replace("_", " ")
    return next((name for key, name in TERMINATIONS.items() if key in text), str(message))


def _signed_weights(class_weight: dict | None, classes: np.ndarray) -> dict[int, float] | None:
    """A class_weight keyed by the user's labels, re-keyed by +1 (classes_[1]) and -1."""
    if class_weight is None:
        return None
    unknown = [label for label in class_weight if label not in classes]
    if unknown:
        raise ValueError(
            f"class_weight names {unknown!r}, which are not classes of y ({classes.tolist()})."
        )
    signs = {classes[1]: 1, classes[0]: -1}
    return {signs[label]: float(weight) for label, weight in class_weight.items()}


def _history(evaluations: list[Evaluation], space: Space) -> dict[str, np.ndarray]:
    """One entry per evaluation, like ``cv_results_`` (``pandas.DataFrame(history_)`` gives the table)."""
    rows = []
    for k, ev in enumerate(evaluations, start=1):
        h = space.decode(ev.u)
        rows.append(
            {
                "evaluation": k,
                "f": ev.value,
                "grad_norm": float(np.linalg.norm(ev.gradient))
                if ev.gradient is not None
                else np.nan,
                "log2_C": float(np.log2(h.C)) if np.isfinite(h.C) else np.nan,
                "log2_gamma": float(np.mean(np.log2(h.gamma))),
                "theta0": h.theta0,
                "C_pos": h.C_pos,
                "C_neg": h.C_neg,
                "m_pos": h.m_pos,
                "m_neg": h.m_neg,
                "cv_error": ev.hard["error"],
                "cv_f_measure": ev.hard["f_measure"],
                "cv_weighted_error": ev.hard["weighted_error"],
                "smo_seconds": ev.smo_seconds,
                "solve_seconds": ev.solve_seconds,
                "gradient_seconds": ev.gradient_seconds,
                "seconds": ev.seconds,
                "smo_iterations": ev.smo_iterations,
                "iteration_limit_hits": ev.iteration_limit_hits,
            }
        )
    return {key: np.array([row[key] for row in rows]) for key in rows[0]}


def _cost(evaluations: list[Evaluation]) -> dict[str, float]:
    """The tuning's CPU seconds by part, SMO iterations and fits (the refit excluded)."""
    return {
        "smo_seconds": sum(ev.smo_seconds for ev in evaluations),
        "solve_seconds": sum(ev.solve_seconds for ev in evaluations),
        "gradient_seconds": sum(ev.gradient_seconds for ev in evaluations),
        "seconds": sum(ev.seconds for ev in evaluations),
        "smo_iterations": int(sum(ev.smo_iterations for ev in evaluations)),
        "fits": int(sum(ev.n_fits for ev in evaluations)),
    }
