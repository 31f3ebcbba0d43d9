"""The metric table (esmo.early_stopping.BUILT_IN_METRICS) against what the compiled tracker does.

Oracle: each metric's definition, computed here with NumPy on fresh float64
decision values of the model cut after each check's iteration, and its direction
as that definition implies (a score improves upwards, a loss downwards). The
tracker must file a metric's value under the code the table gives it, which is
the slot a configuration reading that metric steps its state machine on, and
that state machine must improve in the table's direction.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import pytest
from conftest import DATASETS
from scipy.special import expit

from esmo.early_stopping import (
    BUILT_IN_METRICS,
    METRICS,
    BuiltInMetric,
    EarlyStopping,
    EarlyStoppingSet,
    _by_code,
)
from esmo.solver import smo
from esmo.solver.params import SolverParams
from esmo.solver.rho import LOWER
from esmo.solver.smo import decision_values, run_smo
from esmo.solver.tracking import (
    BEST_ITER,
    INCREMENTAL,
    make_tracker,
    record_check,
    start_tracking,
)

X, Y = DATASETS["synthetic"]
X_TR, Y_TR, X_VAL, Y_VAL = X[:200], Y[:200], X[200:], Y[200:]
PARAMS = SolverParams(kernel="rbf", C=20.0, gamma=0.8, kernel_dtype=np.float64)
R = 3  # published rule: checks after iterations 1, 4, 7, ...
N_CHECKS = 8


class Model(NamedTuple):
    """The iterate after some iterations: its alphas and fresh decision values."""

    alpha: np.ndarray
    f_train: np.ndarray
    f_val: np.ndarray


@functools.cache
def _model_after(n_iter: int) -> Model:
    """The model of the plain run cut after ``n_iter`` iterations (the tracked run's path)."""
    cut, _ = run_smo(X_TR, Y_TR, SolverParams(**{**PARAMS.__dict__, "max_iter": n_iter}))
    f_train = decision_values(X_TR, Y_TR, cut, X_TR, "rbf", PARAMS.gamma)
    f_val = decision_values(X_TR, Y_TR, cut, X_VAL, "rbf", PARAMS.gamma)
    return Model(cut.alpha, f_train, f_val)


def _accuracy(m: Model) -> float:
    return float(np.mean((m.f_val > 0) == (Y_VAL > 0)))


def _hinge(m: Model) -> float:
    return float(np.mean(np.maximum(0.0, 1.0 - Y_VAL * m.f_val)))


def _description_length(m: Model) -> float:
    """The MDL paper's ``DL_h / n`` in bits: half ``log2 n`` per support vector plus the logistic loss."""
    n = len(Y_TR)
    bits = 0.5 * np.count_nonzero(m.alpha > 0) * np.log2(n)
    return float((bits + np.sum(np.log2(1.0 + np.exp(-Y_TR * m.f_train)))) / n)


def _soft_counts(m: Model) -> np.ndarray:
    """The direct method's smoothed correctness ``sigmoid(t / sigma * y f)``, t = 10."""
    sigma = m.f_val.std()
    margin = Y_VAL * m.f_val
    return expit(10.0 / sigma * margin) if sigma > 0 else (margin > 0).astype(float)


def _smoothed_error(m: Model) -> float:
    return float(np.mean(1.0 - _soft_counts(m)))


def _f_measure(m: Model) -> float:
    s, pos = _soft_counts(m), Y_VAL > 0
    tp, fp = s[pos].sum(), (1.0 - s[~pos]).sum()
    return float(2.0 * tp / (pos.sum() + tp + fp))


class Definition(NamedTuple):
    """A metric as its papers define it: its value, its direction, its field of CheckInfo."""

    value: Callable[[Model], float]
    higher_is_better: bool
    check_info_field: str


DEFINITIONS = {
    "accuracy": Definition(_accuracy, True, "val_accuracy"),
    "hinge": Definition(_hinge, False, "val_hinge"),
    "mdl_logistic": Definition(_description_length, False, "dl_per_point"),
    "smoothed_error": Definition(_smoothed_error, False, "val_smoothed_error"),
    "f_measure": Definition(_f_measure, True, "val_f_measure"),
}


def test_every_built_in_metric_has_a_definition_here():
    """A metric added to the table must be added to this oracle too."""
    assert sorted(DEFINITIONS) == sorted(METRICS) == sorted(m.name for m in BUILT_IN_METRICS)


@pytest.mark.parametrize("evaluation", ["incremental", "fresh"])
@pytest.mark.parametrize("metric", BUILT_IN_METRICS, ids=lambda m: m.name)
def test_the_tracker_files_each_metric_under_its_code(metric, evaluation, monkeypatch):
    """At every check, the value the state machine reads for a configuration of this metric
    (``last`` at the configuration's code) is the metric's definition, and so is the hook's."""
    seen = []
    check_info = smo.check_info

    def spy(y, tr, state):  # the tracker as the hook sees it, after each check
        info = check_info(y, tr, state)
        seen.append((int(tr.metric[0]), float(tr.last[tr.metric[0]]), info))
        return info

    monkeypatch.setattr(smo, "check_info", spy)
    configs = EarlyStoppingSet.of([EarlyStopping(10**9, 0.0, R, metric.name)])
    run_smo(
        X_TR,
        Y_TR,
        PARAMS,
        configs=configs,
        X_val=X_VAL,
        y_val=Y_VAL,
        evaluation=evaluation,
        callback=lambda info: len(seen) == N_CHECKS,
    )
    assert len(seen) == N_CHECKS
    definition = DEFINITIONS[metric.name]
    for code, tracked, info in seen:
        expected = definition.value(_model_after(info.n_iter))
        where = f"{metric.name} (code {metric.code}) after iteration {info.n_iter}"
        assert code == metric.code, where
        assert tracked == pytest.approx(expected, rel=1e-9, abs=1e-12), where
        assert getattr(info, definition.check_info_field) == pytest.approx(
            expected, rel=1e-9, abs=1e-12
        ), where


def _improves(metric: str, first: float, second: float) -> bool:
    """Whether the compiled state machine of one ``metric`` configuration counts a move of its
    value from ``first`` (one check) to ``second`` (the next) as an improvement."""
    configs = EarlyStoppingSet.of([EarlyStopping(5, 0.0, 1, metric)])  # checks at 1, 2, ...
    y = np.array([1.0, -1.0])
    tr = make_tracker(configs, y, 2, -np.ones(2), stop_when_all_stopped=True)
    start_tracking(tr, y, -np.ones(2), np.full(2, LOWER, np.int8), 100, 0)
    objectives = np.full(len(METRICS), np.nan)
    for n_iter, value in ((1, first), (2, second)):
        objectives[configs.metric[0]] = value
        record_check(tr, n_iter, objectives, np.nan, 0.0, np.zeros(2), INCREMENTAL)
    assert tr.out_iter[0, BEST_ITER] in (1, 2)  # the first check always improves
    return bool(tr.out_iter[0, BEST_ITER] == 2)


@pytest.mark.parametrize("metric", BUILT_IN_METRICS, ids=lambda m: m.name)
def test_the_state_machine_improves_in_the_tables_direction_which_is_the_definitions(metric):
    rises, falls = _improves(metric.name, 0.5, 0.625), _improves(metric.name, 0.5, 0.375)
    assert (rises, falls) == (metric.higher_is_better, not metric.higher_is_better)
    assert metric.higher_is_better == DEFINITIONS[metric.name].higher_is_better, metric.name


@pytest.mark.parametrize(
    "table",
    [
        [BuiltInMetric("a", 0, True), BuiltInMetric("b", 2, False)],
        [BuiltInMetric("a", 1, True), BuiltInMetric("b", 1, False)],
        [BuiltInMetric("a", 0, True), BuiltInMetric("a", 1, False)],
    ],
    ids=["a gap", "a repeated code", "a repeated name"],
)
def test_a_table_with_a_gap_or_a_repeat_is_refused(table):
    """The tracker keeps one value per code in arrays of len(table); users' codes follow."""
    with pytest.raises(ValueError, match="distinct names and the codes 0..1"):
        _by_code(table)


def test_the_table_may_list_its_rows_in_any_order():
    rows = list(reversed(BUILT_IN_METRICS))
    assert [m.name for m in _by_code(rows)] == list(METRICS)
