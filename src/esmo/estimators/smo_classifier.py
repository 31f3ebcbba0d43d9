"""``SMOClassifier``: the SMO solvers behind a scikit-learn classifier, with early stopping."""

from __future__ import annotations

import hashlib
import time
import warnings
from collections.abc import Callable
from itertools import combinations
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.class_weight import compute_class_weight
from sklearn.utils.multiclass import _ovr_decision_function
from sklearn.utils.validation import check_is_fitted

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet, reads_validation
from esmo.estimators import base
from esmo.estimators.base import SVMClassifierBase, check_kernel_finite
from esmo.estimators.probability import binary_probability, couple, platt_slope, winner_first
from esmo.solver import sparse
from esmo.solver.inputs import as_sample_weight
from esmo.solver.kernels import kernel_matrix
from esmo.solver.params import NO_LIMIT, SOLVER_CONSTRAINTS, SolverParams
from esmo.solver.result import CheckInfo, SolverResult
from esmo.solver.smo import run_smo, warm_state
from esmo.solver.state import SolverState
from esmo.solver.tracking import EVALUATIONS

_SOLVERS = ("fan", "keerthi", "fan_plain", "keerthi_own_rule")


def _digest(*arrays: Any) -> str:
    """A fingerprint of arrays (dense, or sparse by their CSR parts); None entries skipped."""
    digest = hashlib.sha256()
    for X in arrays:
        if X is None:
            continue
        parts = (X.data, X.indices, X.indptr, np.array(X.shape)) if sparse.is_sparse(X) else (X,)
        for a in parts:
            digest.update(np.ascontiguousarray(a).view(np.uint8))
    return digest.hexdigest()


def _problem_key(points: str, y: np.ndarray, weight: np.ndarray, params: SolverParams) -> tuple:
    """What a warm start must find unchanged to continue a run exactly: data (``points``, the
    digest of X), kernel, bounds, shrinking."""
    return points, _digest(y, weight), params.kernel, params.gamma, params.C, params.shrinking


#: Folds of the held-out decision values Platt's sigmoid is fitted to (SVC's five).
PLATT_FOLDS = 5


class SMOClassifier(SVMClassifierBase):
    """SVM trained by SMO, optionally stopped early on validation data.

    With ``solver='fan'`` this is LIBSVM's algorithm (the iterations of ``SVC()``,
    or of ``SVC(shrinking=False)`` with ``shrinking=False``), plus early stopping
    inside the loop.
    Samples are grouped by class as LIBSVM does, so ties break alike. More than
    two classes are handled one-vs-one, as SVC: one binary SVM per pair of
    classes (``estimators_``), prediction by their votes.

    Sparse ``X`` (scipy.sparse CSR or CSC; scikit-learn converts other formats
    to CSR, as for SVC) stays sparse through the solver, whose sums over the
    nonzero features run in the same order as over dense rows: a fit on sparse
    ``X`` equals the fit on ``X.toarray()`` to the bit (``n_iter_``, ``support_``,
    ``dual_coef_``, ``intercept_``), with ``support_vectors_`` in CSR.
    ``decision_function`` on sparse ``X`` sums over the nonzero features instead
    of a BLAS product: the dense input's values up to their last bits (to the
    bit where the products are exact, as on binary features).

    Differences from SVC: with ``probability=True`` Platt's sigmoid passes
    through the origin (so ``predict_proba``'s most probable class is always
    ``predict``'s); no precomputed, polynomial or sigmoid kernels; ``support_``
    keeps the training order within a binary problem (SVC groups it by class).

    Parameters
    ----------
    kernel : {'rbf', 'linear'}
    C : float
        Box constraint, > 0.
    gamma : 'scale', 'auto' or float
        RBF width; 'scale' is ``1 / (n_features * X.var())`` as in SVC.
    tol : float
        SMO stopping tolerance on the maximal KKT violation ``m(a) - M(a)``.
    max_iter : int
        Iteration limit (pair updates) for every solver; -1 (SVC's default) leaves
        LIBSVM's own limit, ``max(10^7, 100 n)``. Hitting it warns and sets
        ``max_iter_reached_``.
    early_stopping : bool
        Stop on the validation objective (protocol section 5).
    n_iter_no_change : int
        Patience p, counted in checks.
    es_tol : float
        Minimum improvement of the objective that resets the patience.
    validation_interval : int
        Check interval r: the objective is evaluated every r iterations.
    es_metric : {'accuracy', 'hinge', 'mdl_logistic', 'smoothed_error', 'f_measure'} or Metric
        The objective early stopping reads: validation accuracy, hinge loss,
        sigmoid-smoothed error or F-measure (the gradient-tuning paper's),
        or the training set's logistic description length (the MDL paper's
        code, from the solver's gradient): no validation split, no tracking cost;
        or a :class:`esmo.early_stopping.Metric` of the user's.
    restore_best : bool
        Return the best checked iterate instead of the one at the stop.
    es_rule : {'published', 'text'}
        'published' (the thesis's code, and ``n_iter_no_change`` as in
        scikit-learn's SGD): checks after iterations 1, r + 1, ..., the first
        sets the baseline, and the fit stops at the ``n_iter_no_change``-th
        check in a row without improvement (0: never). 'text': the thesis's
        algorithm 1 as printed (checks at r, 2r, ..., baseline 0, stop at the
        ``n_iter_no_change + 1``-th); see :data:`esmo.early_stopping.RULES`.
    es_evaluation : {'auto', 'incremental', 'fresh'}
        How checks read the validation decision values: moved by each
        iteration's two changed alphas, computed afresh from the alphas at each
        check (the thesis's own cost model; no tracking cost between checks),
        or 'auto': afresh for large intervals. Outcomes agree up to the last
        bits of the decision values.
    validation_fraction : float
        Share of the training data held out (stratified) for early stopping
        when ``fit`` gets no ``X_val``.
    solver : {'fan', 'keerthi', 'fan_plain', 'keerthi_own_rule'}
        The numba solver, or appendix A's reference solvers (no early stopping):
        'keerthi' stops on LIBSVM's rule, 'keerthi_own_rule' on Keerthi et al.'s
        ``b_low <= b_up + 2 tol`` (``esmo.solver.reference.keerthi_smo``).
    cache_size_mb : float
        Memory budget of the kernel rows (computed on demand; LRU if not all fit).
        At least two rows, the working pair's: a smaller budget is refused. With
        shrinking on large problems, copies of the rows' active columns take up to
        a quarter more (``esmo.solver.active_view``). The rows' buffer is kept
        for the next fit after this one (``esmo.solver.row_memory``;
        ``row_memory.release()`` frees it).
    shrinking : bool
        LIBSVM's shrinking, as SVC's: bounded points that cannot enter the next
        working pair are set aside (``esmo.solver.shrinking``). Same model, a
        path of its own: ``SVC(shrinking=...)``'s iterations either way. Only
        ``solver='fan'``; the reference solvers never shrink.
    n_jobs : int or None
        Threads that fill each long kernel row of dense points and share
        each iteration's passes over many active points, or over every point
        without shrinking (scikit-learn's meaning: None is one, -1 every core). The fit is the
        same to the bit for any value; it pays from several thousand points on
        otherwise idle cores. Only ``solver='fan'``.
    random_state : int, RandomState or None
        Seeds the internal validation split.
    class_weight : dict, 'balanced' or None
        Multiplies ``C`` per class, as in SVC: point ``t`` gets the upper bound
        ``C * class_weight[y_t] * sample_weight[t]``; 'balanced' weighs each
        class by ``n_samples / (2 * its count)``.
    warm_start : bool
        Start from the previous fit's solution. When only ``max_iter`` or the
        early-stopping settings changed (same data, kernel, ``C`` and weights)
        and the previous fit had ``warm_start=True`` too (only then is its
        problem fingerprinted), the solver continues exactly where it stopped:
        a fit cut by ``max_iter=k`` and then continued equals the uninterrupted fit, and
        ``n_iter_`` and ``max_iter`` count from the cold start. Otherwise (new
        ``C``, ``gamma``, weights or data of the same size) it starts from the
        previous alphas clipped into the new box, ``y'a = 0`` repaired, and
        counts its iterations from 0. Only ``solver='fan'``.
    max_time : float or None
        Wall-clock budget of one fit in seconds (the thesis code's ``time_lim``):
        the fit ends at the first look at the clock past it and sets
        ``max_time_reached_``. The one stopping rule that depends on the machine,
        so results under it are not reproducible. Only ``solver='fan'``.
    probability : bool
        Fit Platt probabilities on held-out decision values (5-fold CV inside
        ``fit``, as SVC) for ``predict_proba``; the sigmoid passes through the
        origin, so the most probable class is always ``predict``'s
        (``esmo.estimators.probability``).
    decision_function_shape : {'ovr', 'ovo'}
        With more than two classes, ``decision_function`` returns one column per
        pair of classes ('ovo', positive for the pair's first class, as LIBSVM) or
        per class ('ovr', the votes plus a confidence, as SVC's default).
    verbose : int
        > 0 prints one line per binary fit: iterations, support vectors, how it
        stopped and its wall time.

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_, rho_
        The model. With two classes,
        ``decision_function(x) = dual_coef_ @ K(support_vectors_, x) + intercept_``;
        a value >= 0 predicts ``classes_[1]`` (LIBSVM's rule). With more, the
        attributes have SVC's one-vs-one layout (``dual_coef_`` of shape
        ``(n_classes - 1, n_SV)``, one intercept per pair). ``coef_`` (below) holds
        the primal weights of the linear kernel.
    n_iter_, stopped_early_, max_iter_reached_, max_time_reached_, stopped_by_callback_
        The iterations of the fit and how it ended; with more than two classes,
        one value per pair.
    gamma_, class_weight_
        The resolved ``gamma`` and class weights.
    n_kernel_evaluations_
        Kernel values the fit computed; 0 for the reference solvers.
    estimators_
        With more than two classes, the binary SVMs.
    n_features_in_
    """

    # one-vs-one for more than two classes; classes_[0] is LIBSVM's internal +1
    _multiclass = True
    _positive_class = 0
    _es_params = base.ES_PARAMS
    _accept_sparse = sparse.SPARSE_FORMATS

    _parameter_constraints: dict = {
        **{
            name: SOLVER_CONSTRAINTS[name]
            for name in ("kernel", "C", "tol", "max_iter", "cache_size_mb", "shrinking")
        },
        "n_jobs": [Integral, None],
        "gamma": base.GAMMA_CONSTRAINT,
        "early_stopping": ["boolean"],
        # checked in fit by the early-stopping rules (esmo.early_stopping), under these names
        **dict.fromkeys(base.ES_PARAMS, "no_validation"),
        "es_evaluation": [StrOptions(set(EVALUATIONS))],
        "validation_fraction": base.VALIDATION_FRACTION_CONSTRAINT,
        "solver": [StrOptions(set(_SOLVERS))],
        "random_state": ["random_state"],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "max_time": [Interval(Real, 0, None, closed="neither"), None],
        "probability": ["boolean"],
        "decision_function_shape": [StrOptions({"ovr", "ovo"})],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        kernel: str = SolverParams.kernel,
        C: float = SolverParams.C,
        gamma: str | float = "scale",
        tol: float = SolverParams.tol,
        max_iter: int = SolverParams.max_iter,
        early_stopping: bool = False,
        n_iter_no_change: int = base.N_ITER_NO_CHANGE,
        es_tol: float = base.ES_TOL,
        validation_interval: int = EarlyStopping.interval,
        es_metric: str = EarlyStopping.metric,
        restore_best: bool = EarlyStopping.restore_best,
        es_rule: str = EarlyStopping.rule,
        es_evaluation: str = "auto",
        validation_fraction: float = base.VALIDATION_FRACTION,
        solver: str = "fan",
        cache_size_mb: float = SolverParams.cache_size_mb,
        shrinking: bool = SolverParams.shrinking,
        n_jobs: int | None = None,
        random_state: Any = None,
        class_weight: dict | str | None = None,
        warm_start: bool = False,
        max_time: float | None = None,
        probability: bool = False,
        decision_function_shape: str = "ovr",
        verbose: int = 0,
    ) -> None:
        self.kernel = kernel
        self.C = C
        self.gamma = gamma
        self.tol = tol
        self.max_iter = max_iter
        self.early_stopping = early_stopping
        self.n_iter_no_change = n_iter_no_change
        self.es_tol = es_tol
        self.validation_interval = validation_interval
        self.es_metric = es_metric
        self.restore_best = restore_best
        self.es_rule = es_rule
        self.es_evaluation = es_evaluation
        self.validation_fraction = validation_fraction
        self.solver = solver
        self.cache_size_mb = cache_size_mb
        self.shrinking = shrinking
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.max_time = max_time
        self.probability = probability
        self.decision_function_shape = decision_function_shape
        self.verbose = verbose

    def fit(
        self,
        X: Any,
        y: Any,
        sample_weight: Any = None,
        X_val: Any = None,
        y_val: Any = None,
        callback: Callable[[CheckInfo], Any] | None = None,
        check_input: bool = True,
    ) -> SMOClassifier:
        """Train on ``(X, y)``; early stopping reads ``(X_val, y_val)`` or an internal split.

        ``sample_weight`` multiplies ``C`` per training point, as in SVC.
        ``callback`` is called at every early-stopping check with a
        :class:`~esmo.solver.result.CheckInfo` (iteration, validation accuracy
        and hinge loss, KKT gap); a true return ends the fit (an HPO pruner's
        hook: docs/optuna.md). It needs ``early_stopping=True``; a large
        ``n_iter_no_change`` leaves the stopping to the callback alone.

        ``check_input=False`` skips the checks of the parameters and of ``X``,
        ``y`` and ``X_val`` (as ``DecisionTreeClassifier.fit``'s): for callers
        that fit many small SVMs on data they validated once (the ensembles'
        grid searches), where the checks cost more than SMO (about 1 ms against
        0.2 ms on 50 points). The caller promises valid parameters, float64
        C-ordered arrays of finite values (or canonical CSR, as
        :func:`esmo.solver.sparse.as_csr` leaves it) and a 1-D ``y`` of two or
        more classes.
        """
        if check_input:
            self._validate_params()
        es = self._early_stopping_config()
        if check_input:
            X, y = self._validate_X(X, y)
            self._set_classes(y)
        else:
            self.n_features_in_ = X.shape[1]
            self.__dict__.pop("feature_names_in_", None)  # as validate_data does for an array
            self.classes_ = np.unique(y)
        self._check_solver_options(callback)
        self._check_validation_pair(X_val, y_val)
        labels, kept = y, None  # class weights count every point, zero weights too (as SVC)
        if sample_weight is not None:
            sample_weight, kept = self._zero_weights_dropped(y, sample_weight)
        if kept is not None:
            X, y, sample_weight = X[kept], y[kept], sample_weight[kept]
        self._fit_kept(X, y, sample_weight, labels, X_val, y_val, callback, check_input, es)
        if kept is not None:  # support_ indexes the training set as given, as SVC's does
            self.support_ = kept[self.support_].astype(np.int32)
        if self.probability:
            self._fit_probability(X, y, sample_weight, X_val, y_val)
        return self

    def _fit_probability(self, X, y, sample_weight, X_val, y_val) -> None:
        """Platt's slopes from 5-fold held-out decision values (SVC's protocol), one per pair."""
        _, counts = np.unique(y, return_counts=True)
        n_folds = min(PLATT_FOLDS, int(counts.min()))
        if n_folds < 2:
            raise ValueError(
                f"probability=True fits its sigmoid on held-out decision values and needs at "
                f"least 2 points of each class; the smallest class has {int(counts.min())}."
            )
        seed = check_random_state(self.random_state).randint(np.iinfo(np.int32).max)
        folds = StratifiedKFold(n_folds, shuffle=True, random_state=seed).split(X, y)
        held_out = np.empty(
            (y.shape[0], max(1, len(self.classes_) * (len(self.classes_) - 1) // 2))
        )
        fold_params = {"probability": False, "warm_start": False, "verbose": 0}
        for train, test in folds:
            model = clone(self).set_params(**fold_params, decision_function_shape="ovo")
            weight = None if sample_weight is None else np.asarray(sample_weight)[train]
            model.fit(X[train], y[train], sample_weight=weight, X_val=X_val, y_val=y_val)
            held_out[test] = model.decision_function(X[test]).reshape(test.shape[0], -1)
        if len(self.classes_) == 2:
            self.probA_ = np.array([platt_slope(held_out[:, 0], y == self.classes_[1])])
        else:
            slopes = []
            for p, (i, j) in enumerate(combinations(range(len(self.classes_)), 2)):
                pair = (y == self.classes_[i]) | (y == self.classes_[j])
                slopes.append(platt_slope(held_out[pair, p], y[pair] == self.classes_[i]))
            self.probA_ = np.array(slopes)
        self.probB_ = np.zeros_like(self.probA_)  # SVC's layout: the sigmoids' intercepts

    def _zero_weights_dropped(self, y: np.ndarray, sample_weight: Any) -> tuple[Any, Any]:
        """The weights checked, and the rows of positive weight when some weight is zero.

        SVC (LIBSVM's ``remove_zero_weight``) trains without zero-weight points:
        bagging's bootstrap counts and scikit-learn's checks rely on that. The
        class weights still count every point, as SVC computes them before LIBSVM
        drops any.
        """
        w = np.asarray(sample_weight, dtype=np.float64)
        if w.ndim == 1 and w.shape[0] == y.shape[0] and np.all(np.isfinite(w)):
            if np.any(w < 0):
                raise ValueError(
                    f"sample_weight must be non-negative, got {float(w[w < 0][0])!r} at index "
                    f"{int(np.flatnonzero(w < 0)[0])}."
                )
            if np.any(w == 0):
                kept = np.flatnonzero(w > 0)
                remaining = np.unique(y[kept])
                if remaining.shape[0] < self.classes_.shape[0]:
                    lost = sorted(set(self.classes_.tolist()) - set(remaining.tolist()), key=str)
                    raise ValueError(
                        f"sample_weight is zero for every point of class(es) {lost}: an SVM "
                        "needs every class of y among its points of positive weight; give them "
                        "weight or drop the class from y."
                    )
                return w, kept
        return w, None  # a malformed weight vector is refused by as_sample_weight, by name

    def _fit_kept(
        self, X, y, sample_weight, labels, X_val, y_val, callback, check_input, es
    ) -> None:
        """The fit on the points of positive weight (all of them, in most fits); ``labels``
        are every point's, for the class weights."""
        if self.classes_.shape[0] > 2:
            self._fit_one_vs_one(X, y, sample_weight, labels, X_val, y_val, callback)
            return
        start = time.perf_counter()
        if X_val is not None and not (self.early_stopping and reads_validation(self.es_metric)):
            warnings.warn(
                "X_val and y_val are ignored: no validation objective is read (early_stopping "
                f"={self.early_stopping}, es_metric={self.es_metric!r}); set early_stopping=True "
                "with es_metric 'accuracy' or 'hinge' to stop on them, or stop passing them.",
                UserWarning,
                stacklevel=2,
            )
        y_int = self._signs(y, "y")
        weight = self._point_weights(y, sample_weight, labels)
        self.gamma_ = self._resolve_gamma(X)
        check_kernel_finite(X, self.kernel, self.gamma_)
        params = SolverParams(
            kernel=self.kernel,
            C=self.C,
            gamma=self.gamma_,
            tol=self.tol,
            max_iter=self.max_iter,
            cache_size_mb=self.cache_size_mb,
            shrinking=self.shrinking,
            n_jobs=base.resolve_n_jobs(self.n_jobs),
        )
        validation = None
        if self.early_stopping and reads_validation(es.metric):
            X, y_int, weight, validation = self._validation_data(
                X, y_int, weight, X_val, y_val, check_input
            )
        # LIBSVM groups samples by class (classes_[0] first, order kept within a class)
        order = np.argsort(-y_int, kind="stable")
        X_s, y_s, w_s = X[order], y_int[order], weight[order]
        # the problem's fingerprint (a hash of the data) is taken only when a warm start
        # may read it: the default fit pays nothing for the feature
        points = _digest(X_s) if self.warm_start else None  # X hashed once, for both keys
        key = _problem_key(points, y_s, w_s, params) if self.warm_start else None
        state = self._starting_state(X_s, y_s, w_s, params, key)
        run = {
            "sample_weight": w_s,
            "state": state,
            "callback": callback,
            "max_time": self.max_time,
            "row_store": self._kept_rows(points, validation) if self.warm_start else None,
        }
        result = self._solve(X_s, y_s, params, es if self.early_stopping else None, validation, run)
        alpha = np.empty_like(result.alpha)
        alpha[order] = result.alpha
        self._set_model(X, y_int, alpha, result)
        self._warm = (key, result.state)
        if self.verbose:
            how = "stopped early" if result.stopped_early else "converged"
            how = "hit max_iter" if result.max_iter_reached else how
            print(
                f"[SMOClassifier] {self.classes_.tolist()}: {result.n_iter} iterations, "
                f"{self.support_.shape[0]} support vectors, {how}, "
                f"{time.perf_counter() - start:.3f} s",
                flush=True,
            )

    def _fit_one_vs_one(
        self,
        X: np.ndarray,
        y: np.ndarray,
        sample_weight: Any,
        labels: np.ndarray,
        X_val: Any,
        y_val: Any,
        callback,
    ) -> SMOClassifier:
        """One binary SVM per pair of classes (LIBSVM's order), combined in SVC's layout.

        Each pair's problem is LIBSVM's: the two classes' points in training order,
        the pair's first class as +1, ``C`` times its class weight (computed on all
        of ``y``, as SVC) and the sample weights, and one ``gamma`` for every pair.
        """
        k = self.classes_.shape[0]
        self.gamma_ = self._resolve_gamma(X)
        check_kernel_finite(X, self.kernel, self.gamma_)
        weight = as_sample_weight(sample_weight, y.shape[0])
        self.class_weight_ = np.ones(k)
        if self.class_weight is not None:
            self._point_weights(y, None, labels)  # checks and sets class_weight_ over all
        index = np.searchsorted(self.classes_, y)
        weight = weight * self.class_weight_[index]
        if X_val is not None:
            X_val, y_val = self._check_validation_data(X_val, y_val)
        previous = getattr(self, "estimators_", None)
        reuse = self.warm_start and previous is not None and len(previous) == k * (k - 1) // 2
        sub_params = {"gamma": self.gamma_, "class_weight": None, "decision_function_shape": "ovr"}
        estimators = []
        for p, (i, j) in enumerate(combinations(range(k), 2)):
            pair = (index == i) | (index == j)
            sub = previous[p] if reuse else clone(self)
            sub.set_params(**{**self.get_params(), **sub_params})
            val = {}
            if X_val is not None:
                keep = np.isin(y_val, self.classes_[[i, j]])
                val = {"X_val": X_val[keep], "y_val": y_val[keep]}
            sub.fit(
                X[pair],
                y[pair],
                sample_weight=weight[pair],
                callback=callback,
                check_input=False,  # X, X_val and the parameters were checked above
                **val,
            )
            estimators.append(sub)
        self.estimators_ = estimators
        self._set_one_vs_one_model(X, index)
        return self

    def _set_one_vs_one_model(self, X: np.ndarray, index: np.ndarray) -> None:
        """SVC's attributes from the pairs: support vectors by class, (k-1, n_SV) coefficients."""
        k = self.classes_.shape[0]
        n = X.shape[0]
        # coefficient of each training point in each pair, LIBSVM's sign (+ for the first class)
        coef = np.zeros((k - 1, n))
        for (i, j), sub in zip(combinations(range(k), 2), self.estimators_, strict=True):
            pair = np.flatnonzero((index == i) | (index == j))
            points = pair[sub.support_]
            values = -sub.dual_coef_[0]
            first = index[points] == i
            # a point of class c keeps its coefficient against class o in row o (o < c) or o - 1
            coef[j - 1, points[first]] = values[first]
            coef[i, points[~first]] = values[~first]
        is_support = np.any(coef != 0, axis=0)
        order = np.lexsort((np.arange(n), index))  # by class, then training order
        self.support_ = order[is_support[order]].astype(np.int32)
        self.support_vectors_ = X[self.support_]
        self.n_support_ = np.bincount(index[self.support_], minlength=k).astype(np.int32)
        self.dual_coef_ = coef[:, self.support_]
        self.intercept_ = np.array([-sub.intercept_[0] for sub in self.estimators_])
        self.rho_ = -self.intercept_
        for name in ("n_iter_", "stopped_early_", "max_iter_reached_", "max_time_reached_"):
            setattr(self, name, np.array([getattr(sub, name) for sub in self.estimators_]))
        self.stopped_by_callback_ = np.array([sub.stopped_by_callback_ for sub in self.estimators_])

    def _check_solver_options(self, callback: Any) -> None:
        """The options only the numba solver has, and the callback's need for checks."""
        if self.solver != "fan":
            for option in ("early_stopping", "warm_start", "max_time"):
                if getattr(self, option) not in (False, None):
                    raise ValueError(
                        f"{option} is only supported by solver='fan', not {self.solver!r}; "
                        f"unset {option} or use solver='fan'."
                    )
        if callback is not None and not self.early_stopping:
            raise ValueError(
                "callback is called at early-stopping checks, and early_stopping=False makes "
                "none; set early_stopping=True (a large n_iter_no_change leaves the stopping "
                "to the callback)."
            )
        if callback is not None and not callable(callback):
            raise TypeError(f"callback must be callable, got {type(callback).__name__}.")

    def _point_weights(self, y: np.ndarray, sample_weight: Any, labels: np.ndarray) -> np.ndarray:
        """Each point's multiplier of ``C``: its class weight (counted over ``labels``, every
        training point's) times its sample weight."""
        weight = as_sample_weight(sample_weight, y.shape[0])
        if self.class_weight is None:
            self.class_weight_ = np.ones(2)
            return weight
        if isinstance(self.class_weight, dict):
            absent = set(self.class_weight) - set(self.classes_.tolist())
            if absent:
                raise ValueError(
                    f"class_weight names class(es) {sorted(absent, key=str)} that are not in y "
                    f"(classes {self.classes_.tolist()}); use the labels of y as keys."
                )
        self.class_weight_ = compute_class_weight(
            self.class_weight, classes=self.classes_, y=labels
        )
        if not np.all(np.isfinite(self.class_weight_) & (self.class_weight_ > 0)):
            raise ValueError(
                f"class_weight must be positive and finite, got {self.class_weight!r}; "
                "an SVM cannot ignore a whole class."
            )
        return weight * self.class_weight_[np.searchsorted(self.classes_, y)]

    def _starting_state(
        self,
        X: np.ndarray,
        y: np.ndarray,
        weight: np.ndarray,
        params: SolverParams,
        key: tuple | None,
    ) -> SolverState | None:
        """None (a cold start), the previous fit's state to continue, or a state seeded from it.

        ``key`` is this fit's problem fingerprint; the previous fit's is None when it
        was made without ``warm_start``, and its alphas then seed this fit.
        """
        previous = getattr(self, "_warm", None)
        if not self.warm_start or previous is None or previous[1] is None:
            return None
        previous_key, state = previous
        if state.alpha.shape[0] != y.shape[0]:
            raise ValueError(
                f"warm_start=True needs the same training set as the previous fit "
                f"({state.alpha.shape[0]} points), got {y.shape[0]}; set warm_start=False "
                "to fit from scratch."
            )
        if previous_key is not None and previous_key == key:
            return SolverState(*(a.copy() for a in state))
        return warm_state(X, y, state.alpha, params, sample_weight=weight)

    def _kept_rows(self, points: str, validation: tuple | None) -> dict:
        """The kernel-row store kept for warm starts: the previous fit's, while the points (their
        digest ``points``) and validation points are the same (its rows then serve this fit:
        none is computed twice)."""
        key = (points, None if validation is None else _digest(validation[0]))
        kept = getattr(self, "_rows", None)
        if kept is None or kept[0] != key:
            kept = self._rows = (key, {})
        return kept[1]

    def __getstate__(self) -> dict:
        """Pickled without the kept kernel rows (up to ``cache_size_mb``): a warm start after
        unpickling computes them again."""
        state = super().__getstate__()
        state.pop("_rows", None)
        return state

    def _validation_data(
        self,
        X: np.ndarray,
        y_int: np.ndarray,
        weight: np.ndarray,
        X_val: Any,
        y_val: Any,
        check_input: bool = True,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
        """The training part (points, signs, weights) and ``(X_val, y_val)``: given, or split off."""
        if X_val is None:
            (X, y_int, weight), validation = self._split_validation(X, y_int, weight)
            return X, y_int, weight, validation
        if check_input:
            X_val, y_val = self._check_validation_data(X_val, y_val)
        return X, y_int, weight, (X_val, self._signs(y_val, "y_val"))

    def _solve(
        self,
        X: np.ndarray,
        y: np.ndarray,
        params: SolverParams,
        es: EarlyStopping | None,
        validation: tuple[np.ndarray, np.ndarray] | None,
        run: dict[str, Any],
    ) -> SolverResult:
        """The chosen solver's result on samples grouped by class, as LIBSVM orders them.

        ``run`` holds :func:`run_smo`'s weights, starting state, callback and time budget.
        """
        if self.solver != "fan":
            if sparse.is_sparse(X):
                raise ValueError(
                    f"solver={self.solver!r} (appendix A's reference solvers) takes dense X only; "
                    "use solver='fan' for sparse X, or pass X.toarray()."
                )
            if np.any(run["sample_weight"] != 1.0):
                raise ValueError(
                    f"class_weight and sample_weight need solver='fan'; solver={self.solver!r} "
                    "solves the unweighted problem only."
                )
            from esmo.solver import reference

            names = ("kernel", "C", "gamma", "tol", "max_iter")
            given = {name: getattr(params, name) for name in names}
            if self.solver == "fan_plain":
                return reference.plain_fan_smo(X, y, **given)
            stopping = "keerthi" if self.solver == "keerthi_own_rule" else "libsvm"
            return reference.keerthi_smo(X, y, stopping=stopping, **given)
        if es is None:
            return run_smo(X, y, params, **run)[0]
        X_val, y_val = validation if validation is not None else (None, None)
        configs = EarlyStoppingSet.of([es])
        return run_smo(
            X,
            y,
            params,
            **run,
            configs=configs,
            X_val=X_val,
            y_val=y_val,
            evaluation=self.es_evaluation,
        )[0]

    def _set_model(
        self, X: np.ndarray, y_int: np.ndarray, alpha: np.ndarray, result: SolverResult
    ) -> None:
        """The fitted attributes, in SVC's orientation: positive values mean ``classes_[1]``."""
        self.support_ = np.flatnonzero(alpha > 0).astype(np.int32)
        self.support_vectors_ = X[self.support_]
        # classes_[0] has the internal sign +1
        self.n_support_ = np.array(
            [
                np.count_nonzero(y_int[self.support_] > 0),
                np.count_nonzero(y_int[self.support_] < 0),
            ],
            dtype=np.int32,
        )
        self.dual_coef_ = (-alpha[self.support_] * y_int[self.support_])[None, :]
        self.intercept_ = np.array([result.rho])
        self.rho_ = result.rho
        self.n_iter_ = result.n_iter
        self.n_kernel_evaluations_ = result.kernel_evaluations
        self.stopped_early_ = result.stopped_early
        self.max_iter_reached_ = result.max_iter_reached
        self.max_time_reached_ = result.max_time_reached
        self.stopped_by_callback_ = result.stopped_by_callback
        if result.max_iter_reached:
            limit = f"max_iter={self.max_iter}"
            if self.max_iter == NO_LIMIT:
                limit = "LIBSVM's own limit max(10**7, 100 n) (max_iter=-1)"
            warnings.warn(
                f"SMO stopped after {result.n_iter} iterations, at {limit}, before reaching "
                f"tol={self.tol}; raise max_iter or tol.",
                ConvergenceWarning,
                stacklevel=3,
            )

    @property
    def coef_(self) -> np.ndarray:
        """The primal weights of the linear kernel, one row per binary problem (as SVC)."""
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        if self.classes_.shape[0] > 2:
            return -np.vstack([sub.coef_ for sub in self.estimators_])
        if sparse.is_sparse(self.support_vectors_):  # sparse @ dense: a dense array
            return np.asarray((self.support_vectors_.T @ self.dual_coef_.T).T)
        return self.dual_coef_ @ self.support_vectors_

    def decision_function(self, X: Any, check_input: bool = True) -> np.ndarray:
        """Signed distance-like score; >= 0 means ``classes_[1]``.

        With more than two classes: one column per pair (``'ovo'``, positive for
        the pair's first class) or per class (``'ovr'``), as ``decision_function_shape``.
        ``check_input=False`` skips the checks of the model and ``X``, as in :meth:`fit`.
        """
        if check_input:
            check_is_fitted(self)
            X = self._validate_X(X, reset=False)
        if self.classes_.shape[0] > 2:
            ovo = -np.column_stack(
                [sub.decision_function(X, check_input=False) for sub in self.estimators_]
            )
            if self.decision_function_shape == "ovo":
                return ovo
            return _ovr_decision_function(ovo < 0, -ovo, self.classes_.shape[0])
        if self.support_.shape[0] == 0:
            return np.full(X.shape[0], self.intercept_[0])
        K = kernel_matrix(X, self.support_vectors_, self.kernel, self.gamma_)
        return K @ self.dual_coef_[0] + self.intercept_[0]

    def predict(self, X: Any, check_input: bool = True) -> np.ndarray:
        """``classes_[1]`` where the decision value is >= 0, else ``classes_[0]``.

        With more than two classes, LIBSVM's vote: each pair votes for its first
        class where its value is > 0, else for its second; ties go to the class first
        in ``classes_``. ``check_input`` as in :meth:`decision_function`.
        """
        if check_input:
            check_is_fitted(self)
            X = self._validate_X(X, reset=False)
        if self.classes_.shape[0] > 2:
            ovo = -np.column_stack(
                [sub.decision_function(X, check_input=False) for sub in self.estimators_]
            )
            votes = np.zeros((ovo.shape[0], self.classes_.shape[0]), dtype=np.intp)
            for p, (i, j) in enumerate(combinations(range(self.classes_.shape[0]), 2)):
                votes[:, i] += ovo[:, p] > 0
                votes[:, j] += ovo[:, p] <= 0
            return self.classes_[np.argmax(votes, axis=1)]
        decision = self.decision_function(X, check_input=False)
        return self.classes_[(decision >= 0).astype(np.intp)]

    @available_if(lambda self: self.probability)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities (``classes_`` order) whose largest is always ``predict``'s class.

        Binary: ``P(classes_[1]) = expit(a f)`` with Platt's slope ``a > 0``
        (``probA_``) and no intercept. More classes: each pair's sigmoid the same
        way, coupled as LIBSVM couples them, the vote's winner leading
        (:mod:`esmo.estimators.probability`).
        """
        check_is_fitted(self, "probA_")
        X = self._validate_X(X, reset=False)
        if self.classes_.shape[0] == 2:
            p1 = binary_probability(self.decision_function(X, check_input=False), self.probA_[0])
            return np.column_stack([1.0 - p1, p1])
        ovo = -np.column_stack(
            [sub.decision_function(X, check_input=False) for sub in self.estimators_]
        )
        # P(i | i or j): a value of exactly 0 votes for j, so it stays just below 1/2
        pairwise = np.where(ovo == 0, np.nextafter(0.5, 0.0), expit(self.probA_ * ovo))
        coupled = couple(pairwise, self.classes_.shape[0])
        winner = np.searchsorted(self.classes_, self.predict(X, check_input=False))
        return winner_first(coupled, winner)[0]

    @available_if(lambda self: self.probability)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """The logarithm of :meth:`predict_proba`."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X))
