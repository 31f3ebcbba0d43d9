"""Appendix A's solver comparison: the timed runs, the per-solver summary, the thesis's orderings.

:func:`compare_solvers` times every solver on one fold. The runs table stacks
its tables with their
``dataset`` and ``fold`` (one row per dataset, solver and run: ``solver, n_iter,
seconds, test_accuracy``); every dataset is summarised apart. The thesis prints
accuracies only; for iterations and seconds it states orderings (sec A.1.2 and
fig A.1's caption). :data:`THESIS_ORDERINGS` writes each one down as a comparison
of means over the runs and :func:`solver_orderings` says which hold.

The thesis names four solvers; esmo runs two variants of two of them
(:data:`READINGS`): the thesis's LIBSVM used shrinking and its Keerthi solver
Keerthi et al.'s own stopping rule (``libsvm_shrinking``, ``keerthi_own_rule``);
esmo's like-for-like variants use LIBSVM's algorithm without shrinking and
LIBSVM's stopping rule (``libsvm``, ``keerthi``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score
from sklearn.svm import SVC

from esmo.estimators.smo_classifier import SMOClassifier
from esmo.papers.common.tables import require_columns
from esmo.papers.thesis.timed_fits import timed_fit, total_iterations, warm_up_rows
from esmo.solver.params import SolverParams

#: Appendix A's solvers: ``SMOClassifier``'s reference and numba solvers, and LIBSVM
#: through scikit-learn's SVC without shrinking (``libsvm``, esmo's algorithm) and with
#: it (``libsvm_shrinking``, SVC's default and the thesis's LIBSVM). ``keerthi`` stops
#: on LIBSVM's rule, ``keerthi_own_rule`` on Keerthi et al.'s (the thesis's Keerthi).
SOLVERS = ("keerthi_own_rule", "keerthi", "fan_plain", "fan", "libsvm_shrinking", "libsvm")


#: The SVC solvers of appendix A and their ``shrinking`` flag.
_LIBSVM_SHRINKING = {"libsvm": False, "libsvm_shrinking": True}


#: Kernel cache of LIBSVM in appendix A: large enough to hold w1a's whole kernel matrix,
#: as the numba solver precomputes it, so neither solver recomputes kernel rows.
LIBSVM_CACHE_MB = 2000.0


def make_solver(
    solver: str,
    *,
    C: float,
    gamma: float,
    tol: float,
    max_iter: int,
    shrinking: bool = SolverParams.shrinking,
) -> Any:
    """Appendix A's unfitted estimator for ``solver`` (one of :data:`SOLVERS`), RBF kernel.

    ``shrinking`` is that of esmo's ``'fan'`` (the reference solvers never shrink;
    the two SVC solvers' is their name's).
    """
    if solver in _LIBSVM_SHRINKING:
        return SVC(
            kernel="rbf",
            C=C,
            gamma=gamma,
            tol=tol,
            shrinking=_LIBSVM_SHRINKING[solver],
            cache_size=LIBSVM_CACHE_MB,
            max_iter=max_iter,
        )
    return SMOClassifier(
        kernel="rbf",
        C=C,
        gamma=gamma,
        tol=tol,
        max_iter=max_iter,
        solver=solver,
        shrinking=shrinking,
    )


def compare_solvers(
    X_tr: Any,
    y_tr: Any,
    X_te: Any,
    y_te: Any,
    *,
    C: float,
    gamma: float,
    tol: float,
    solvers: Sequence[str] = SOLVERS,
    max_iter: int = SolverParams.max_iter,
    shrinking: bool = SolverParams.shrinking,
) -> pd.DataFrame:
    """Appendix A on one fold: iterations, seconds and test accuracy of each SMO solver.

    ``'keerthi_own_rule'``, ``'keerthi'``, ``'fan_plain'`` and ``'fan'`` are
    ``SMOClassifier``'s solvers; ``'libsvm'`` and ``'libsvm_shrinking'`` are
    scikit-learn's ``SVC`` without and with shrinking, both with a cache of
    :data:`LIBSVM_CACHE_MB` MB (only shrinking differs); ``'fan'`` shrinks with
    ``shrinking``. Each solver is fitted once on a few
    rows before its timed fit, so compilation (numba) and first-call set-up are
    excluded. Returns ``solver, n_iter, seconds, test_accuracy, max_iter_reached``.
    """
    unknown = [s for s in solvers if s not in SOLVERS]
    if unknown or not solvers:
        raise ValueError(f"unknown solvers {unknown}; choose from {list(SOLVERS)}")
    y_tr = np.asarray(y_tr)
    tiny = warm_up_rows(y_tr)
    rows = []
    for solver in solvers:
        make = lambda s=solver: make_solver(  # noqa: E731
            s, C=C, gamma=gamma, tol=tol, max_iter=max_iter, shrinking=shrinking
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            make().fit(X_tr[tiny], y_tr[tiny])
        model = make()
        seconds = timed_fit(model, X_tr, y_tr)
        n_iter = total_iterations(model)
        rows.append(
            {
                "solver": solver,
                "n_iter": n_iter,
                "seconds": seconds,
                "test_accuracy": float(accuracy_score(y_te, model.predict(X_te))),
                "max_iter_reached": bool(
                    getattr(model, "max_iter_reached_", 0 <= max_iter <= n_iter)
                ),
            }
        )
    return pd.DataFrame(rows)


#: The thesis's solver names -> esmo's appendix A solvers, per reading of the thesis.
READINGS: dict[str, dict[str, str]] = {
    # what the thesis ran: LIBSVM with shrinking, Keerthi stopping on its own rule
    "thesis": {
        "keerthi": "keerthi_own_rule",
        "fan_plain": "fan_plain",
        "fan": "fan",
        "libsvm": "libsvm_shrinking",
    },
    # every solver on LIBSVM's stopping rule, LIBSVM without shrinking (esmo's algorithm)
    "libsvm_rule": {
        "keerthi": "keerthi",
        "fan_plain": "fan_plain",
        "fan": "fan",
        "libsvm": "libsvm",
    },
}

#: Two accuracies are "the same" when they agree at the thesis's printed precision,
#: 0.01 % (it prints 97.13 ± 0.34 for both Fan versions): half of that, as a fraction.
SAME_ACCURACY = 0.005 / 100

#: Two iteration counts are "the same" within 1 %: the thesis reads them off a log axis.
SAME_ITERATIONS = 0.01

#: The dataset of the thesis's appendix A: its values stand beside this dataset's rows only.
THESIS_DATASET = "w1a"

_MEASURES = ("n_iter", "seconds", "test_accuracy")
_RELATIONS = ("less", "greater", "same")


@dataclass(frozen=True)
class Ordering:
    """One ordering the thesis states: ``left`` relates to ``right`` on a measure's mean.

    ``left`` and ``right`` are the thesis's solver names (keys of a reading).
    ``less``: every left mean is below every right mean; ``greater``: above;
    ``same``: every pair agrees within :data:`SAME_ACCURACY` (accuracy) or
    :data:`SAME_ITERATIONS` relative (iterations).
    """

    name: str
    section: str
    claim: str
    measure: str
    relation: str
    left: tuple[str, ...]
    right: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.measure not in _MEASURES or self.relation not in _RELATIONS:
            raise ValueError(f"ordering {self.name!r}: unknown measure or relation")
        if self.relation == "same" and self.measure == "seconds":
            raise ValueError(f"ordering {self.name!r}: no tolerance for equal seconds")


#: The orderings of appendix A, each with the words the thesis uses.
THESIS_ORDERINGS: tuple[Ordering, ...] = (
    Ordering(
        "libsvm_fewest_iterations",
        "A.1.2, fig A.1",
        "LIBSVM converges in fewer iterations than both Fan's and Keerthi's implementations",
        "n_iter",
        "less",
        ("libsvm",),
        ("keerthi", "fan_plain", "fan"),
    ),
    Ordering(
        "libsvm_fastest",
        "A.1.2, fig A.1",
        "LIBSVM completes the fastest of the four tested SMO versions",
        "seconds",
        "less",
        ("libsvm",),
        ("keerthi", "fan_plain", "fan"),
    ),
    Ordering(
        "fan_fewer_iterations_than_keerthi",
        "A.1.2",
        "Fan et al.'s SMO achieves faster convergence in iterations (than Keerthi's)",
        "n_iter",
        "less",
        ("fan_plain", "fan"),
        ("keerthi",),
    ),
    Ordering(
        "fan_faster_than_keerthi",
        "A.1.2",
        "Fan et al.'s SMO achieves faster convergence in wall-clock time (than Keerthi's)",
        "seconds",
        "less",
        ("fan_plain", "fan"),
        ("keerthi",),
    ),
    Ordering(
        "fan_more_accurate_than_keerthi",
        "A.1.2",
        "Fan's version achieves higher accuracy than Keerthi's (97.13 vs 93.82 %)",
        "test_accuracy",
        "greater",
        ("fan_plain", "fan"),
        ("keerthi",),
    ),
    Ordering(
        "fan_more_accurate_than_libsvm",
        "A.1.2",
        "Fan's algorithm leads to a slightly higher accuracy than LIBSVM (97.13 vs 97.05 %)",
        "test_accuracy",
        "greater",
        ("fan_plain", "fan"),
        ("libsvm",),
    ),
    Ordering(
        "optimised_fan_same_iterations",
        "A.1.2, fig A.1",
        "the optimised version requires the same number of iterations as plain Fan",
        "n_iter",
        "same",
        ("fan",),
        ("fan_plain",),
    ),
    Ordering(
        "optimised_fan_as_accurate",
        "A.1.2",
        "the optimised version matches the accuracy of plain Fan",
        "test_accuracy",
        "same",
        ("fan",),
        ("fan_plain",),
    ),
    Ordering(
        "optimised_fan_faster",
        "A.1.2",
        "the optimised version runs considerably faster than plain Fan",
        "seconds",
        "less",
        ("fan",),
        ("fan_plain",),
    ),
)

#: Columns of :func:`solver_orderings`.
ORDERING_COLUMNS = [
    "dataset",
    "reading",
    "ordering",
    "section",
    "claim",
    "measure",
    "relation",
    "left",
    "right",
    "left_mean",
    "right_mean",
    "holds",
]

#: Columns of :func:`solver_summary` (accuracies in %, std with ``ddof=0``).
SUMMARY_COLUMNS = [
    "dataset",
    "solver",
    "n_runs",
    "n_iter_mean",
    "n_iter_std",
    "seconds_mean",
    "seconds_std",
    "test_accuracy_mean",
    "test_accuracy_std",
    "thesis_test_accuracy_mean",
    "thesis_test_accuracy_std",
]


def _check_runs(runs: pd.DataFrame) -> None:
    require_columns(runs, ["dataset", "solver", "fold", *_MEASURES], "runs")
    if runs.empty:
        raise ValueError("runs is empty: pass compare_solvers' tables of every run")
    if runs.duplicated(["dataset", "solver", "fold"]).any():
        raise ValueError(
            "runs has several rows for one (dataset, solver, fold); was a run stacked twice?"
        )
    for dataset, part in runs.groupby("dataset"):
        folds = part.groupby("solver")["fold"].apply(frozenset)
        if folds.nunique() != 1:
            raise ValueError(
                f"on {dataset}, the solvers ran on different runs "
                f"({folds.map(sorted).to_dict()}); their means compare only over the same "
                "runs: rerun the missing ones"
            )


def solver_summary(runs: pd.DataFrame, thesis: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per dataset and solver: runs, mean and std (``ddof=0``) of iterations, seconds, accuracy (%).

    ``thesis`` is the thesis-values table (``esmo.papers.thesis.reproduction``); its
    ``appendix_a.{solver}.test_accuracy_mean``/``_std`` fill the thesis columns
    of :data:`THESIS_DATASET`'s rows (NaN elsewhere, and for a solver it has no
    value for). Datasets and solvers keep their order in ``runs``.
    """
    _check_runs(runs)
    keys = ["dataset", "solver"]
    grouped = runs.assign(test_accuracy=100.0 * runs["test_accuracy"]).groupby(keys, sort=False)
    out = grouped.size().rename("n_runs").to_frame()
    for measure in _MEASURES:
        out[f"{measure}_mean"] = grouped[measure].mean()
        out[f"{measure}_std"] = grouped[measure].std(ddof=0)
    out = out.reset_index()
    values = {} if thesis is None else dict(zip(thesis["key"], thesis["value"], strict=True))
    for stat in ("mean", "std"):
        key = "appendix_a." + out["solver"] + f".test_accuracy_{stat}"
        value = key.map(values).astype(float)
        out[f"thesis_test_accuracy_{stat}"] = value.where(out["dataset"] == THESIS_DATASET)
    return out[SUMMARY_COLUMNS]


def _holds(ordering: Ordering, left: np.ndarray, right: np.ndarray) -> bool:
    if ordering.relation == "less":
        return bool(left.max() < right.min())
    if ordering.relation == "greater":
        return bool(left.min() > right.max())
    gap = np.abs(left[:, None] - right[None, :])
    if ordering.measure == "n_iter":
        return bool(np.all(gap <= SAME_ITERATIONS * np.maximum(left[:, None], right[None, :])))
    return bool(np.all(gap <= SAME_ACCURACY))


def solver_orderings(
    runs: pd.DataFrame,
    readings: Mapping[str, Mapping[str, str]] = READINGS,
    orderings: Sequence[Ordering] = THESIS_ORDERINGS,
) -> pd.DataFrame:
    """Which of the thesis's orderings hold in ``runs``, per dataset and reading of its solvers.

    A reading maps the thesis's names (``keerthi``, ``fan_plain``, ``fan``,
    ``libsvm``) to solvers of ``runs``; a reading some of whose solvers did not
    run is left out, and at least one must remain. Means are over the runs.
    ``left_mean`` and ``right_mean`` are the extreme means the relation compares
    (``less``: largest left, smallest right), accuracies in %; ``left`` and
    ``right`` name the solvers. Returns :data:`ORDERING_COLUMNS`.
    """
    _check_runs(runs)
    rows = []
    for dataset, part in runs.groupby("dataset", sort=False):
        rows += _dataset_orderings(dataset, part, readings, orderings)
    return pd.DataFrame(rows, columns=ORDERING_COLUMNS)


def _dataset_orderings(
    dataset: str,
    runs: pd.DataFrame,
    readings: Mapping[str, Mapping[str, str]],
    orderings: Sequence[Ordering],
) -> list[dict]:
    means = runs.groupby("solver")[list(_MEASURES)].mean()
    ran = set(means.index)
    usable = {name: roles for name, roles in readings.items() if set(roles.values()) <= ran}
    if not usable:
        raise ValueError(
            f"no reading of the thesis's solvers ran in full on {dataset}: runs has "
            f"{sorted(ran)}, the readings need {[sorted(r.values()) for r in readings.values()]}; "
            "add the missing solvers to thesis.appendix_a.solvers"
        )
    rows = []
    for reading, roles in usable.items():
        for ordering in orderings:
            left = [roles[name] for name in ordering.left]
            right = [roles[name] for name in ordering.right]
            scale = 100.0 if ordering.measure == "test_accuracy" else 1.0
            lv = means.loc[left, ordering.measure].to_numpy(float)
            rv = means.loc[right, ordering.measure].to_numpy(float)
            pick_left, pick_right = (
                (np.max, np.min) if ordering.relation == "less" else (np.min, np.max)
            )
            rows.append(
                {
                    "dataset": dataset,
                    "reading": reading,
                    "ordering": ordering.name,
                    "section": ordering.section,
                    "claim": ordering.claim,
                    "measure": ordering.measure,
                    "relation": ordering.relation,
                    "left": ", ".join(left),
                    "right": ", ".join(right),
                    "left_mean": scale * float(pick_left(lv)),
                    "right_mean": scale * float(pick_right(rv)),
                    "holds": _holds(ordering, lv, rv),
                }
            )
    return rows


def ordering_claims(orderings: pd.DataFrame, reading: str = "thesis") -> pd.DataFrame:
    """The orderings as claims of the reproduction table (``esmo.papers.thesis.reproduction``).

    One claim ``appendix_a.{ordering}`` per thesis ordering, judged on
    :data:`THESIS_DATASET` under ``reading`` (by default the thesis's solvers:
    LIBSVM with shrinking, Keerthi on its own rule); ``holds`` is None (not
    measured) where that dataset or reading did not run. Columns: the first
    five of ``esmo.papers.thesis.reproduction.CLAIM_COLUMNS``.
    """
    require_columns(orderings, ORDERING_COLUMNS, "orderings")
    if reading not in READINGS:
        raise ValueError(f"reading must be one of {list(READINGS)}, got {reading!r}")
    rows = orderings[(orderings["dataset"] == THESIS_DATASET) & (orderings["reading"] == reading)]
    judged = rows.set_index("ordering")
    out = []
    for ordering in THESIS_ORDERINGS:
        claim = {
            "claim": f"appendix_a.{ordering.name}",
            "section": ordering.section,
            "statement": ordering.claim,
        }
        if ordering.name in judged.index:
            row = judged.loc[ordering.name]
            unit = " %" if ordering.measure == "test_accuracy" else ""
            claim["measure"] = (
                f"{ordering.measure}, {ordering.relation}: {row['left']} {row['left_mean']:.4g}"
                f"{unit} vs {row['right']} {row['right_mean']:.4g}{unit}"
            )
            claim["holds"] = bool(row["holds"])
        else:
            claim["measure"] = f"not run on {THESIS_DATASET} with the {reading} reading's solvers"
            claim["holds"] = None
        out.append(claim)
    return pd.DataFrame(out, columns=["claim", "section", "statement", "measure", "holds"])
