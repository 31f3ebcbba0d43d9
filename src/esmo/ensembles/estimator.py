"""``SVMEnsembleClassifier``: B sub-ensembles of T = 1/tp RBF SVMs on disjoint shares, voting.

Nevado, Martinez-Munoz and Suarez (ICANN 2022), algorithm 1, with the choices
of protocol sec 2 and 4 (`docs/ensembles-protocol.md`):

- ``m = round(tp N)`` rows per grid-search half and ``T = round(1/tp)`` parts;
- D_b (2m rows): consecutive blocks of one permutation when B of them fit in
  the training set (``tp B <= 1/2``), else B independent draws without
  replacement (a share missing two rows of a class per fold is redrawn
  stratified); a stratified, shuffled 2-fold split of each;
- a new partition of the training set for every b (``sampling='structured'``,
  ``array_split`` of a permutation), or T independent samples of m rows
  without replacement (``sampling='subbagging'``, sec 4.1);
- the B T members vote; a tie goes to the sign of the summed decision values,
  then to the training majority class.

Randomness comes from two streams of one seed: the search stream (D_b, folds,
halving subsamples, random grid ties) and the parts stream. Two ensembles with
the same ``random_state`` and different ``sampling`` therefore share D_b and
every (C_b, gamma_b): fig 1's paired comparison (:meth:`with_sampling` refits
only the members).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from esmo.early_stopping import J_HIGH
from esmo.ensembles.grid import (
    GRID_SEARCHES,
    GRID_TIES,
    FitLog,
    SVMSettings,
    as_grid,
    cross_validated_search,
    halving_search,
    pick,
)
from esmo.estimators.base import SVMClassifierBase
from esmo.solver import sparse
from esmo.solver.params import NO_LIMIT, SOLVER_CONSTRAINTS, SolverParams
from esmo.tuning.halving import stratified_rows

#: Fewest rows of each class a grid-search fold or a share must hold.
MIN_PER_CLASS = 2


def _round(x: float) -> int:
    """Round half up (Python's ``round`` rounds half to even)."""
    return int(np.floor(x + 0.5))


def share_size_problem(
    train_proportion: float, class_counts: Any, labels: Any = None
) -> str | None:
    """Why ``train_proportion`` cannot split rows of these class counts, or None.

    A grid-search share has ``m = round(tp n)`` rows, split into two stratified
    folds: it needs at least two rows of each class, and each class must expect
    at least ``MIN_PER_CLASS`` rows in a share. The estimator refuses such a
    fit before any work, and the workflow checks its configured cells with the
    same function before any job runs.
    """
    counts = np.asarray(class_counts, dtype=np.int64)
    n = int(counts.sum())
    m = _round(train_proportion * n)
    fix = f"raise train_proportion (now {train_proportion}) or train on more rows (now {n})"
    if m < 2 * MIN_PER_CLASS:
        return (
            f"train_proportion={train_proportion} gives grid-search folds of m = {m} rows, "
            f"fewer than {2 * MIN_PER_CLASS} (two of each class); {fix}"
        )
    expected = counts * m / n
    if (expected < MIN_PER_CLASS).any():
        k = int(np.argmin(expected))
        label = k if labels is None else np.asarray(labels).tolist()[k]
        return (
            f"train_proportion={train_proportion} leaves on average {expected[k]:.2f} rows of "
            f"class {label!r} (of {int(counts[k])}) in each share of m = {m} rows, fewer than "
            f"{MIN_PER_CLASS}; {fix}"
        )
    return None


class SVMEnsembleClassifier(SVMClassifierBase):
    """Structured subbagging of RBF SVMs with per-sub-ensemble grid search.

    Parameters
    ----------
    n_subensembles : int
        B, the number of sub-ensembles (>= 1).
    train_proportion : float
        tp in (0, 0.5]: each member trains on ``round(tp N)`` rows, and there are
        ``T = round(1/tp)`` members per sub-ensemble.
    C_grid, gamma_grid : sequence of float or None
        The grid's values; None is the paper's (2^-5, 2^-3, ..., 2^15 and
        2^-15, ..., 2^3). Points are searched C outer, gamma inner, ascending.
    sampling : {'structured', 'subbagging'}
        Members on the T disjoint parts of a partition, or on T random samples.
    grid_search : {'exhaustive', 'early_stopped', 'halving'}
        The paper's 2-fold search; the same with every fit early-stopped on its
        validation half; or successive halving on one half, validated on the other.
    grid_tie : {'first', 'last', 'random'}
        Which of equally scored grid points is chosen.
    es_patience, es_tol, es_interval : int, float, int
        The early-stopping rule of ``grid_search='early_stopped'`` (on validation
        accuracy; by default the thesis's j_high, :data:`esmo.early_stopping.J_HIGH`:
        p = 109, es_tol = 0.000229, r = 1), checked by the rules of every
        configuration (:func:`esmo.early_stopping.validate_configurations`).
    sh_min_samples : int
        Fewest training rows of a successive-halving round. At 10, Magic04's
        tp = 0.01 searches (50 training rows a half) ran four rounds on 10 rows,
        where no point beats the majority class, and chose majority-level points
        in 3-5 of 10 sub-ensembles (accuracy 66.6-79.9 %); at 20, 81.2-81.9 %
        against 81.7-82.7 % with no subsampling, at about the same search time.
    tol, max_iter, cache_size_mb, shrinking :
        The SMO solver's settings for every fit (its defaults:
        :class:`~esmo.solver.params.SolverParams`).
    random_state : int, RandomState or None

    Attributes
    ----------
    classes_, n_features_in_
    members_ : list of B lists of T fitted ``SMOClassifier`` (or constant models
        for a part holding one class)
    subensemble_params_ : ndarray (B, 2), each sub-ensemble's chosen (C, gamma)
    majority_level_choices_ : ndarray (B,) of bool, whether that choice's validation
        accuracy was no better than always predicting the majority class (warned
        when it holds for half of them or more: their vote is then likely one class)
    grid_ : ndarray (GSize, 2)
    grid_scores_ : ndarray (B, GSize)
    shares_ : list of B index arrays (D_b)
    share_folds_ : their 2-fold splits (positions within D_b)
    parts_ : list of B lists of T index arrays
    n_parts_ : T
    share_rows_ : m
    fits_ : dict of arrays, one entry per fit (:data:`esmo.ensembles.grid.FIT_FIELDS`)
    cost_, search_cost_, member_cost_ : dict of totals (fits, SMO iterations,
        kernel evaluations, CPU and wall seconds), overall and per stage
    n_iter_ : SMO iterations summed over every fit
    majority_class_ : the training majority class (the last vote tie-break)
    """

    # the early-stopping parameters: each one's EarlyStopping field
    _es_params = {"es_patience": "patience", "es_tol": "tol", "es_interval": "interval"}
    _accept_sparse = sparse.SPARSE_FORMATS

    _parameter_constraints: dict = {
        "n_subensembles": [Interval(Integral, 1, None, closed="left")],
        "train_proportion": [Interval(Real, 0, 0.5, closed="right")],
        "C_grid": ["array-like", None],
        "gamma_grid": ["array-like", None],
        "sampling": [StrOptions({"structured", "subbagging"})],
        "grid_search": [StrOptions(set(GRID_SEARCHES))],
        "grid_tie": [StrOptions(set(GRID_TIES))],
        # checked in fit by the early-stopping rules (esmo.early_stopping), under these names
        **dict.fromkeys(_es_params, "no_validation"),
        "sh_min_samples": [Interval(Integral, 2 * MIN_PER_CLASS, None, closed="left")],
        "tol": SOLVER_CONSTRAINTS["tol"],
        "max_iter": SOLVER_CONSTRAINTS["max_iter"],
        "cache_size_mb": SOLVER_CONSTRAINTS["cache_size_mb"],
        "shrinking": SOLVER_CONSTRAINTS["shrinking"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_subensembles: int = 10,
        train_proportion: float = 0.1,
        C_grid: Any = None,
        gamma_grid: Any = None,
        sampling: str = "structured",
        grid_search: str = "exhaustive",
        grid_tie: str = "first",
        es_patience: int = J_HIGH.patience,
        es_tol: float = J_HIGH.tol,
        es_interval: int = J_HIGH.interval,
        sh_min_samples: int = 20,
        tol: float = SolverParams.tol,
        max_iter: int = SolverParams.max_iter,
        cache_size_mb: float = SolverParams.cache_size_mb,
        shrinking: bool = SolverParams.shrinking,
        random_state: Any = None,
    ) -> None:
        self.n_subensembles = n_subensembles
        self.train_proportion = train_proportion
        self.C_grid = C_grid
        self.gamma_grid = gamma_grid
        self.sampling = sampling
        self.grid_search = grid_search
        self.grid_tie = grid_tie
        self.es_patience = es_patience
        self.es_tol = es_tol
        self.es_interval = es_interval
        self.sh_min_samples = sh_min_samples
        self.tol = tol
        self.max_iter = max_iter
        self.cache_size_mb = cache_size_mb
        self.shrinking = shrinking
        self.random_state = random_state

    def _settings(self) -> SVMSettings:
        """The fits' settings; the early-stopping parameters checked by their rules."""
        es = self._early_stopping_config()
        return SVMSettings(
            tol=self.tol,
            max_iter=self.max_iter,
            cache_size_mb=self.cache_size_mb,
            shrinking=self.shrinking,
            es_patience=es.patience,
            es_tol=es.tol,
            es_interval=es.interval,
        )

    def fit(self, X: Any, y: Any) -> SVMEnsembleClassifier:
        """Draw the shares, run the B grid searches, then train the B T members."""
        self._validate_params()
        settings = self._settings()
        X, y = self._validate_X(X, y)
        self._set_classes(y)
        self.grid_ = as_grid(self.C_grid, self.gamma_grid)
        n = y.shape[0]
        B, tp = self.n_subensembles, self.train_proportion
        m, T = _round(tp * n), _round(1.0 / tp)
        self._check_sizes(y, m, T)
        self.share_rows_, self.n_parts_ = m, T
        labels, counts = np.unique(y, return_counts=True)
        self.majority_class_ = labels[np.argmax(counts)]
        self._seed_ = int(check_random_state(self.random_state).randint(np.iinfo(np.int32).max))
        search_rng, _ = self._streams()
        shares, folds, sub_seeds = self._draw_shares(y, n, m, B, search_rng)
        self.shares_, self.share_folds_ = shares, folds
        log = FitLog()
        self.grid_scores_ = np.empty((B, len(self.grid_)))
        chosen = np.empty((B, 2))
        majority_level = np.zeros(B, dtype=bool)
        for b, (share, split) in enumerate(zip(shares, folds, strict=True)):
            rng = np.random.default_rng(sub_seeds[b])
            Xb, yb = X[share], y[share]
            first_fit = len(log.records)
            if self.grid_search == "halving":
                scores = halving_search(
                    Xb, yb, self.grid_, *split[0], settings, log, rng,
                    min_samples=self.sh_min_samples, subensemble=b,
                )  # fmt: skip
            else:
                scores = cross_validated_search(
                    Xb, yb, self.grid_, split, settings, log,
                    early_stopped=self.grid_search == "early_stopped", subensemble=b,
                )  # fmt: skip
            self.grid_scores_[b] = scores
            k = pick(scores, self.grid_tie, rng)
            chosen[b] = self.grid_[k]
            searched = FitLog(log.records[first_fit:])  # this sub-ensemble's search fits
            majority_level[b] = self._no_better_than_majority(searched, chosen[b], yb, split)
        self.subensemble_params_ = chosen
        self.majority_level_choices_ = majority_level
        self._warn_majority_level(majority_level)
        self._fit_members(X, y, log)
        return self

    def _no_better_than_majority(
        self, searched: FitLog, point: np.ndarray, yb: np.ndarray, split: list
    ) -> bool:
        """Whether a sub-ensemble's chosen point scored at most what always predicting the
        majority class scores on the validation rows it was scored on: the mean over the two
        folds, or (halving) the last round's, on the first split's validation half.
        ``searched`` holds that sub-ensemble's search fits only."""
        fits = searched.table()
        if not fits["C"].size:  # a one-point grid under halving is chosen without a fit
            return False
        accuracy = fits["val_accuracy"][(fits["C"] == point[0]) & (fits["gamma"] == point[1])]
        folds = split
        if self.grid_search == "halving":
            folds, accuracy = split[:1], accuracy[-1:]
        majority = [np.unique(yb[val], return_counts=True)[1].max() / val.size for _, val in folds]
        return bool(np.mean(accuracy) <= np.mean(majority) + 1e-12)

    def _warn_majority_level(self, majority_level: np.ndarray) -> None:
        """Warn when half the sub-ensembles or more chose a point no better than the majority
        class on validation: if their members all vote the majority class, the others can
        outvote them only on a tie, and the ensemble is then a majority-class model."""
        k = int(majority_level.sum())
        if 2 * k >= majority_level.size:
            warnings.warn(
                f"{k} of {majority_level.size} sub-ensembles chose a (C, gamma) whose "
                "validation accuracy is no better than always predicting the majority class "
                f"(train_proportion={self.train_proportion}, grid_search={self.grid_search!r}); "
                "the ensemble may predict one class. Raise train_proportion"
                + (" or sh_min_samples" if self.grid_search == "halving" else "")
                + ", or widen the grid.",
                UserWarning,
                stacklevel=3,
            )

    def _streams(self) -> tuple[np.random.Generator, np.random.Generator]:
        """The search stream and the parts stream of this fit's seed."""
        search, parts = np.random.SeedSequence(self._seed_).spawn(2)
        return np.random.default_rng(search), np.random.default_rng(parts)

    def _check_sizes(self, y: np.ndarray, m: int, T: int) -> None:
        """Fail before any fit when tp cannot give every share and fold two rows of each class."""
        labels, counts = np.unique(y, return_counts=True)
        problem = share_size_problem(self.train_proportion, counts, labels)
        if problem:
            raise ValueError(problem + ".")

    def _draw_shares(
        self, y: np.ndarray, n: int, m: int, B: int, rng: np.random.Generator
    ) -> tuple[list[np.ndarray], list[list[tuple[np.ndarray, np.ndarray]]], np.ndarray]:
        """D_b for every b, its 2-fold split and a seed for its search; checked before any fit."""
        if 2 * m * B <= n:  # tp B <= 1/2: B disjoint blocks of one permutation
            perm = rng.permutation(n)
            shares = [perm[2 * m * b : 2 * m * (b + 1)] for b in range(B)]
        else:
            shares = [rng.choice(n, size=min(2 * m, n), replace=False) for _ in range(B)]
        fold_seeds = rng.integers(np.iinfo(np.int32).max, size=B)
        sub_seeds = rng.integers(np.iinfo(np.int32).max, size=B)
        folds = []
        for b, share in enumerate(shares):
            labels, counts = np.unique(y[share], return_counts=True)
            if labels.size < 2 or counts.min() < 2 * MIN_PER_CLASS:
                # a tiny share (protocol sec 4, fig 2's N = 100): draw it stratified instead
                share = shares[b] = stratified_rows(
                    y, share.size, rng, min_per_class=2 * MIN_PER_CLASS, draw="rounded"
                )
            yb = y[share]
            labels, counts = np.unique(yb, return_counts=True)
            if labels.size < 2 or counts.min() < 2 * MIN_PER_CLASS:
                found = dict(zip(labels.tolist(), counts.tolist(), strict=True))
                raise ValueError(
                    f"grid-search share D_{b} ({share.size} rows) holds class counts {found}: a "
                    f"fold would get fewer than {MIN_PER_CLASS} rows of a class; raise "
                    f"train_proportion (now {self.train_proportion}) or train on more rows."
                )
            cv = StratifiedKFold(2, shuffle=True, random_state=int(fold_seeds[b]))
            folds.append(list(cv.split(np.zeros(yb.size), yb)))
        return shares, folds, sub_seeds

    def _fit_members(self, X: np.ndarray, y: np.ndarray, log: FitLog) -> None:
        """Train T members per sub-ensemble on its parts; then the cost attributes."""
        n, m, T = y.shape[0], self.share_rows_, self.n_parts_
        _, rng = self._streams()
        settings = self._settings()
        self.members_, self.parts_ = [], []
        for b, (C, gamma) in enumerate(self.subensemble_params_):
            if self.sampling == "structured":
                parts = np.array_split(rng.permutation(n), T)
            else:
                parts = [rng.choice(n, size=m, replace=False) for _ in range(T)]
            members = []
            for t, part in enumerate(parts):
                model, _ = log.fit(
                    settings.svm(C, gamma), X[part], y[part], stage="member", subensemble=b, index=t
                )
                members.append(model)
            self.members_.append(members)
            self.parts_.append(parts)
        self._fit_log = log
        self.fits_ = log.table()
        self._warn_cut_members()
        self.cost_ = log.totals()
        self.search_cost_ = log.totals("search")
        self.n_iter_ = int(self.cost_["n_iter"])  # SMO iterations over all fits
        self.member_cost_ = log.totals("member")

    def _warn_cut_members(self) -> None:
        """Warn when members stopped at the iteration limit: the vote is of unconverged SVMs
        (at ``max_iter=0`` every member has zero alphas and the ensemble predicts one class).
        A search fit cut by the limit only scores a grid point and is recorded, not warned."""
        member = np.asarray(self.fits_["stage"]) == "member"
        cut = int(np.asarray(self.fits_["max_iter_reached"])[member].sum())
        if cut:
            limit = f"max_iter={self.max_iter}"
            if self.max_iter == NO_LIMIT:
                limit = "LIBSVM's own limit max(10**7, 100 n) (max_iter=-1)"
            warnings.warn(
                f"{cut} of {int(member.sum())} member SVMs stopped at {limit} before reaching "
                f"tol={self.tol}; the ensemble votes with unconverged members. Raise max_iter "
                "or tol.",
                ConvergenceWarning,
                stacklevel=3,
            )

    def with_sampling(self, X: Any, y: Any, sampling: str) -> SVMEnsembleClassifier:
        """This ensemble's searches with members refitted under ``sampling`` (fig 1's other arm).

        Equal to fitting a clone with ``sampling`` changed on the same data and
        ``random_state``, without repeating the B grid searches (their records are kept).
        """
        check_is_fitted(self)
        other = clone(self).set_params(sampling=sampling)
        other._validate_params()
        X, y = other._validate_X(X, y)
        for name in (
            "classes_", "grid_", "share_rows_", "n_parts_", "majority_class_", "_seed_",
            "shares_", "share_folds_", "grid_scores_", "subensemble_params_",
            "majority_level_choices_",
        ):  # fmt: skip
            setattr(other, name, getattr(self, name))
        log = FitLog([r for r in self._fit_log.records if r[0] == "search"])
        other._fit_members(X, y, log)
        return other

    def vote(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """Per row: the number of members voting ``classes_[1]`` and the sum of decision values."""
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        votes = np.zeros(X.shape[0], dtype=np.int64)
        total = np.zeros(X.shape[0])
        for members in self.members_:
            for member in members:
                if hasattr(member, "label"):  # a constant member
                    votes += member.label == self.classes_[1]
                    continue
                d = member.decision_function(X, check_input=False)  # X checked above
                votes += d >= 0
                total += d
        return votes, total

    def decision_function(self, X: Any) -> np.ndarray:
        """The vote margin ``2 v - B T`` (v: votes for ``classes_[1]``); a tie is +-1/2.

        A tie takes the sign of the summed decision values, or, when that is 0,
        of the training majority class. Positive means ``classes_[1]``.
        """
        votes, total = self.vote(X)
        margin = 2.0 * votes - sum(len(members) for members in self.members_)
        tie = margin == 0
        majority = 0.5 if self.majority_class_ == self.classes_[1] else -0.5
        margin[tie] = np.where(total[tie] != 0, 0.5 * np.sign(total[tie]), majority)
        return margin

    def predict(self, X: Any) -> np.ndarray:
        """The majority vote of the members, ties broken as in :meth:`decision_function`."""
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(np.intp)]
