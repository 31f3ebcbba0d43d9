"""Early-stopping configurations (protocol section 5): the vocabulary, and its rules in one place.

An :class:`EarlyStopping` is one configuration; an :class:`EarlyStoppingSet`
holds K of them as parallel arrays, the form the solver tracks. Both, and the
configuration tables of the workflow, are validated by one function,
:func:`validate_configurations`, so a rule and its message exist once.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

import numpy as np


class BuiltInMetric(NamedTuple):
    """A built-in objective: its name, the code the compiled tracker files its value under, its direction."""

    name: str
    code: int
    higher_is_better: bool


#: The objectives a configuration can read: the one place a built-in metric's name, code
#: and direction are declared (:data:`METRICS`, :data:`METRIC_CODES`, the direction of
#: :attr:`EarlyStoppingSet.higher_is_better` and the codes the compiled tracker reads,
#: ``esmo.solver.tracking.ACCURACY`` ..., all derive from it). Accuracy, hinge and the
#: gradient-tuning paper's sigmoid-smoothed error and F-measure are read on the validation
#: data; ``mdl_logistic``, the logistic description length of the MDL paper
#: (docs/mdl-protocol.md section 7), on the training data alone, from the
#: gradient the solver keeps: no validation data, no kernel values.
BUILT_IN_METRICS: tuple[BuiltInMetric, ...] = (
    BuiltInMetric("accuracy", 0, higher_is_better=True),
    BuiltInMetric("hinge", 1, higher_is_better=False),
    BuiltInMetric("mdl_logistic", 2, higher_is_better=False),
    BuiltInMetric("smoothed_error", 3, higher_is_better=False),
    BuiltInMetric("f_measure", 4, higher_is_better=True),
)


def _by_code(table: Sequence[BuiltInMetric]) -> tuple[BuiltInMetric, ...]:
    """The table in code order, once its codes are checked to be 0..n-1 and its names distinct.

    The compiled tracker keeps one value per code in arrays of ``n`` entries, and a
    user's :class:`Metric` takes the codes from ``n`` on, so the codes must fill 0..n-1.
    """
    ordered = tuple(sorted(table, key=lambda m: m.code))
    codes, names = [m.code for m in ordered], [m.name for m in ordered]
    if codes != list(range(len(ordered))) or len(set(names)) != len(names):
        raise ValueError(
            f"The built-in metrics need distinct names and the codes 0..{len(ordered) - 1}, "
            f"got codes {codes} for names {names}."
        )
    return ordered


_BY_CODE = _by_code(BUILT_IN_METRICS)
#: The built-in metrics' names; a metric's code is its index.
METRICS: tuple[str, ...] = tuple(m.name for m in _BY_CODE)
#: A built-in metric's code, by name.
METRIC_CODES: Mapping[str, int] = MappingProxyType({m.name: m.code for m in _BY_CODE})
#: Per built-in metric, in code order, whether it improves upwards.
_HIGHER_IS_BETTER: tuple[bool, ...] = tuple(m.higher_is_better for m in _BY_CODE)
#: The built-in metric that needs no validation data.
TRAINING_METRICS: frozenset[str] = frozenset({"mdl_logistic"})

#: The two readings of the thesis's stopping rule (docs/thesis-protocol.md section 5); a rule's
#: code is its index. ``published``, the thesis author's code (GitHub idekker1/SMO_ES,
#: ``SMO_ES.fit``) and scikit-learn's ``n_iter_no_change``: checks after iterations 1,
#: r + 1, 2r + 1, ..., the first check sets the baseline, and the run stops at the
#: p-th consecutive check without improvement (p = 0: never). ``text``, the thesis's
#: algorithm 1 as printed: checks at iterations r, 2r, ..., the baseline is an
#: accuracy of 0 (a hinge loss of +inf) at iteration 0, and the run stops at the
#: (p + 1)-th check without improvement.
RULES: tuple[str, ...] = ("published", "text")
_RULE_CODES = {name: code for code, name in enumerate(RULES)}


@dataclass(frozen=True)
class Metric:
    """A user's early-stopping objective: ``function(f_val, y_val) -> float``.

    ``f_val`` holds the validation decision values ``f(x) = sum_i a_i y_i
    K(x_i, x) - rho`` of the current iterate (computed afresh at each check, so
    sweeps stay exact), ``y_val`` the labels in {-1, +1}. ``higher_is_better``
    says which way it improves (by more than ``tol``). Pass it as an
    :class:`EarlyStopping`'s ``metric``; e.g. the validation ROC AUC::

        Metric("auc", lambda f, y: roc_auc_score(y, f), higher_is_better=True)
    """

    name: str
    function: Callable[[np.ndarray, np.ndarray], float]
    higher_is_better: bool

    def __post_init__(self) -> None:
        if not callable(self.function):
            raise TypeError(
                f"Metric {self.name!r}: function must be callable (f_val, y_val) -> float, "
                f"got {type(self.function).__name__}."
            )
        if self.name in METRIC_CODES:
            raise ValueError(
                f"Metric name {self.name!r} is a built-in metric's; pass the string "
                f"{self.name!r} instead, or choose another name."
            )


def reads_validation(metric: str | Metric) -> bool:
    """Whether a metric is evaluated on validation data (all but ``mdl_logistic``)."""
    return metric not in TRAINING_METRICS


@dataclass(frozen=True)
class EarlyStopping:
    """One early-stopping configuration.

    Every ``interval`` (r) iterations the bias is recomputed and ``metric`` is
    evaluated: validation accuracy (improvement when ``O - O_best > tol``),
    mean validation hinge loss (improvement when ``O_best - O > tol``), or the
    training set's logistic description length in bits per point,
    ``DL_h / n = (1/2 #SV log2 n + sum_i log2(1 + exp(-y_i f_i))) / n``
    (improvement when ``O_best - O > tol``; needs no validation data), or the
    gradient-tuning paper's sigmoid-smoothed validation error (downwards) or
    F-measure (upwards; :func:`esmo.solver.tracking.smoothed_objectives`), or a
    user's :class:`Metric`. An improvement resets the remaining patience to
    ``patience`` and records the best iterate; otherwise patience drops by one,
    and the run stops at the ``patience``-th check in a row without improvement
    (``rule="published"``, the default; the thesis's code and scikit-learn's
    ``n_iter_no_change``) or at the ``patience + 1``-th (``rule="text"``; see
    :data:`RULES`). The model returned is the iterate at the stop, or with
    ``restore_best`` the best iterate. If the solver converges (or hits
    ``max_iter``) first, the converged model is returned.
    """

    patience: int
    tol: float
    interval: int = 1
    metric: str | Metric = "accuracy"
    restore_best: bool = False
    rule: str = RULES[0]

    def __post_init__(self) -> None:
        arrays = validate_configurations(
            {
                "patience": [self.patience],
                "tol": [self.tol],
                "interval": [self.interval],
                "metric": [self.metric],
                "restore_best": [self.restore_best],
                "rule": [self.rule],
            }
        )
        # normalise numpy scalars so configurations compare and hash alike
        object.__setattr__(self, "patience", int(arrays["patience"][0]))
        object.__setattr__(self, "interval", int(arrays["interval"][0]))
        object.__setattr__(self, "tol", float(arrays["tol"][0]))
        object.__setattr__(self, "restore_best", bool(arrays["restore_best"][0]))
        object.__setattr__(self, "rule", RULES[arrays["rule"][0]])

    @classmethod
    def _checked(cls, arrays: dict[str, np.ndarray]) -> EarlyStopping:
        """The configuration in entry 0 of arrays :func:`validate_configurations` returned."""
        es = object.__new__(cls)
        object.__setattr__(es, "patience", int(arrays["patience"][0]))
        object.__setattr__(es, "tol", float(arrays["tol"][0]))
        object.__setattr__(es, "interval", int(arrays["interval"][0]))
        object.__setattr__(es, "metric", metric_of(arrays, 0))
        object.__setattr__(es, "restore_best", bool(arrays["restore_best"][0]))
        object.__setattr__(es, "rule", RULES[arrays["rule"][0]])
        return es


@dataclass(frozen=True)
class EarlyStoppingSet:
    """K early-stopping configurations as validated parallel arrays.

    ``metric`` holds codes: indices into :data:`METRICS`, then into
    ``custom_metrics`` (the :class:`Metric` objects, in order of first use);
    ``rule`` holds indices into :data:`RULES` (default: all ``published``).
    Build it once per search with :meth:`of` and pass it to every sweep of that
    search: validating a table of 100 configurations costs about as much as a
    whole fit on the smallest LIBSVM datasets.
    """

    patience: np.ndarray
    tol: np.ndarray
    interval: np.ndarray
    metric: np.ndarray
    restore_best: np.ndarray | None = None
    custom_metrics: tuple[Metric, ...] = ()
    rule: np.ndarray | None = None

    def __post_init__(self) -> None:
        n = np.shape(self.patience)[0] if np.ndim(self.patience) else 0
        given = {
            "patience": self.patience,
            "tol": self.tol,
            "interval": self.interval,
            "metric": self.metric,
            "restore_best": np.zeros(n, bool) if self.restore_best is None else self.restore_best,
            "rule": np.full(n, RULES[0]) if self.rule is None else self.rule,
        }
        for name, a in validate_configurations(given, custom=self.custom_metrics).items():
            object.__setattr__(self, name, a)

    def __len__(self) -> int:
        return self.patience.shape[0]

    @property
    def needs_validation(self) -> bool:
        """Whether some configuration reads validation data (all metrics but mdl_logistic)."""
        return bool((self.metric != METRIC_CODES["mdl_logistic"]).any())

    @property
    def higher_is_better(self) -> np.ndarray:
        """Per metric code (built-ins, then ``custom_metrics``), whether it improves upwards."""
        custom = [m.higher_is_better for m in self.custom_metrics]
        return np.array([*_HIGHER_IS_BETTER, *custom], dtype=np.bool_)

    @classmethod
    def of(cls, configs: EarlyStoppingSet | Sequence[EarlyStopping] | Any) -> EarlyStoppingSet:
        """Validate ``configs``: :class:`EarlyStopping` objects, or a table (a pandas DataFrame).

        A table needs columns ``patience`` and ``es_tol`` and may have
        ``interval`` (default 1), ``metric`` (default accuracy),
        ``restore_best`` (default False) and ``rule`` (default published).
        """
        if isinstance(configs, EarlyStoppingSet):
            return configs
        if hasattr(configs, "columns"):
            return cls._of_table(configs)
        out = list(configs)
        for c in out:
            if not isinstance(c, EarlyStopping):
                raise TypeError(
                    "configs must hold EarlyStopping objects or be a DataFrame, got an "
                    f"element of type {type(c).__name__}."
                )
        if len(out) == 1 and isinstance(out[0].metric, str):
            return _single_set(out[0])
        return cls._of_checked(out)

    @classmethod
    def _of_checked(cls, out: list[EarlyStopping]) -> EarlyStoppingSet:
        """The set of ``out``, unchecked: each EarlyStopping was checked when it was made."""
        checked = object.__new__(cls)
        codes, custom = _metric_codes([c.metric for c in out])
        for name, values, dtype in (
            ("patience", [c.patience for c in out], np.int64),
            ("tol", [c.tol for c in out], np.float64),
            ("interval", [c.interval for c in out], np.int64),
            ("metric", codes, np.int64),
            ("restore_best", [c.restore_best for c in out], np.bool_),
            ("rule", [_RULE_CODES[c.rule] for c in out], np.int64),
        ):
            object.__setattr__(checked, name, np.array(values, dtype=dtype))
        object.__setattr__(checked, "custom_metrics", custom)
        return checked

    @classmethod
    def _of_table(cls, table: Any) -> EarlyStoppingSet:
        missing = {"patience", "es_tol"} - set(table.columns)
        if missing:
            raise ValueError(
                f"The configuration table lacks column(s) {sorted(missing)}; it needs "
                "patience and es_tol (interval, metric, restore_best and rule are optional)."
            )
        n = len(table)

        def column(name: str, default: Any) -> np.ndarray:
            return table[name].to_numpy() if name in table.columns else np.full(n, default)

        return cls(
            column("patience", 0),
            column("es_tol", 0.0),
            column("interval", 1),
            column("metric", "accuracy"),
            column("restore_best", False),
            rule=column("rule", RULES[0]),
        )


@functools.lru_cache(maxsize=256)
def _single_set(config: EarlyStopping) -> EarlyStoppingSet:
    """One configuration's set, shared by equal configurations (built-in metrics only).

    An early-stopped fit tracks one configuration, and a search fits many with
    equal ones (``SMOClassifier`` makes its configuration anew per fit): the set,
    and the tracker layout cached on it, are then built once, not per fit. No
    step writes a set's arrays, so sharing one is safe.
    """
    return EarlyStoppingSet._of_checked([config])


def _metric_codes(
    metrics: Sequence[Any], custom: tuple[Metric, ...] = ()
) -> tuple[np.ndarray, tuple[Metric, ...]]:
    """Codes of metric names and :class:`Metric` objects (-1: unknown), and the custom ones.

    A custom metric's code is ``len(METRICS)`` plus its place among the
    custom metrics, in order of first use (after those ``custom`` already holds).
    """
    custom = list(custom)
    codes = np.empty(len(metrics), dtype=np.int64)
    for k, m in enumerate(metrics):
        if isinstance(m, Metric):
            if m not in custom:
                custom.append(m)
            codes[k] = len(METRICS) + custom.index(m)
        else:
            codes[k] = METRIC_CODES.get(str(m), -1)
    return codes, tuple(custom)


def metric_of(arrays: dict[str, Any], k: int) -> str | Metric:
    """The metric of entry ``k`` of :func:`validate_configurations`'s arrays: name or object."""
    code = int(arrays["metric"][k])
    if code < len(METRICS):
        return METRICS[code]
    return arrays["custom_metrics"][code - len(METRICS)]


def _whole(values: Any, name: str, low: int, what: str) -> np.ndarray:
    """Whole numbers ``>= low`` as int64 (booleans, strings and fractions rejected)."""
    v = np.asarray(values)
    if v.size and (v.dtype == bool or v.dtype.kind not in "iuf"):
        raise ValueError(f"{name} must hold {what}, got {v.ravel()[0]!r}.")
    if v.dtype.kind == "f":
        ok = np.isfinite(v) & (v >= low) & (v == np.floor(v)) & (v < 2.0**63)
    else:
        ok = v >= low
    if not ok.all():
        raise ValueError(f"{name} must hold {what}, got {v[~ok][0]!r}.")
    return v.astype(np.int64)


#: How the rules name each field in their messages; a caller with other names passes its own.
LABELS: dict[str, str] = {
    "patience": "patience",
    "tol": "tol (es_tol)",
    "interval": "interval (the check interval r)",
    "metric": "metric",
    "restore_best": "restore_best",
    "rule": "rule",
}


def validate_configurations(
    given: dict[str, Any],
    labels: dict[str, str] | None = None,
    custom: tuple[Metric, ...] = (),
) -> dict[str, Any]:
    """The early-stopping rules, once: writable contiguous arrays of the solver's dtypes.

    ``given`` maps each field to a 1-D sequence (``rule`` may be left out: all
    ``published``); ``labels`` names the fields in the messages (``SMOClassifier`` passes its parameter names). numba compiles
    (and caches) a second solver for read-only or other-typed arrays, hence the
    copies.
    """
    label = {**LABELS, **(labels or {})}
    if "rule" not in given:
        given = {**given, "rule": np.full(np.shape(given["patience"]), RULES[0])}
    shapes = {name: np.shape(v) for name, v in given.items()}
    if len(set(shapes.values())) != 1 or len(shapes["patience"]) != 1:
        raise ValueError(
            "patience, tol, interval, metric, restore_best and rule must be 1-D and of one length, "
            f"got shapes {shapes}."
        )
    patience = _whole(given["patience"], label["patience"], 0, "non-negative integers")
    interval = _whole(given["interval"], label["interval"], 1, "positive integers")
    try:
        tol = np.array(given["tol"], dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{label['tol']} must hold numbers, got {given['tol']!r}.") from None
    ok = np.isfinite(tol) & (tol >= 0)
    if not ok.all():
        raise ValueError(
            f"{label['tol']} must be a non-negative finite number, got {tol[~ok][0]!r}."
        )
    metric = np.asarray(given["metric"], dtype=object if _holds_metric(given) else None)
    if metric.dtype.kind in "iu":
        codes = metric.astype(np.int64)
        unknown = (codes < 0) | (codes >= len(METRICS) + len(custom))
    else:
        codes, custom = _metric_codes(list(metric), tuple(custom))
        unknown = codes < 0
    if unknown.any():
        raise ValueError(
            f"{label['metric']} must be one of {METRICS} or an esmo.early_stopping.Metric, "
            f"got {metric[unknown][0]!r}."
        )
    restore = np.asarray(given["restore_best"])
    if restore.size and restore.dtype != bool:
        raise ValueError(f"{label['restore_best']} must hold booleans, got {restore.ravel()[0]!r}.")
    rule = _rule_codes(given["rule"], label["rule"])
    return {
        "patience": patience,
        "tol": tol,
        "interval": interval,
        "metric": codes,
        "restore_best": restore.astype(bool, copy=True),
        "rule": rule,
        "custom_metrics": tuple(custom),
    }


def _rule_codes(values: Any, label: str) -> np.ndarray:
    """Codes of rule names (or of codes already), any other value rejected with the choices."""
    v = np.asarray(values)
    if v.dtype.kind in "iu":
        codes = v.astype(np.int64)
        bad = (codes < 0) | (codes >= len(RULES))
    else:
        codes = np.array([_RULE_CODES.get(str(r), -1) for r in v.ravel()], dtype=np.int64)
        bad = codes < 0
    if bad.any():
        raise ValueError(
            f"{label} must be one of {RULES} (see esmo.early_stopping.RULES), "
            f"got {v.ravel()[bad][0]!r}."
        )
    return codes


def _holds_metric(given: dict[str, Any]) -> bool:
    """Whether the metric column holds :class:`Metric` objects (kept as objects, not strings)."""
    return any(isinstance(m, Metric) for m in np.ravel(np.asarray(given["metric"], dtype=object)))


#: The thesis's j_high (sec 4.2; workflow/data/thesis/thesis_values.csv): the configuration
#: of best mean RBF score on the high-complexity datasets (a1a, splice). The ensembles'
#: early-stopped grid search uses it by default (``SVMEnsembleClassifier``, ``SVMSettings``).
J_HIGH = EarlyStopping(patience=109, tol=0.000229, interval=1)
