"""The tuned hyperparameters as one vector: which ones, their order, their box, their meaning.

The optimiser works on ``u``: the base-2 logarithms of the positive
hyperparameters (C, gamma or one gamma per feature, the class bounds C_± and
margins m_±) followed, for the hyperparameter-bias method, by the raw threshold
``theta_0`` (docs/gradient-protocol.md sec 4: the grid is uniform in log space, and
the log keeps every value positive). A :class:`Space` maps ``u`` to the SVM it
describes (per-point bounds and margins, the feature scales of the ARD kernel)
and maps gradients in the hyperparameters back to gradients in ``u``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

#: The positive hyperparameters that can be tuned, and their log2 boxes (note, section 4).
LOG2_BOUNDS: dict[str, tuple[float, float]] = {
    "C": (-5.0, 15.0),
    "gamma": (-15.0, 3.0),
    "C_pos": (-5.0, 15.0),
    "C_neg": (-5.0, 15.0),
    "m_pos": (-5.0, 5.0),
    "m_neg": (-5.0, 5.0),
}
#: The ARD kernel's per-feature widths have a wider lower bound: a feature can be switched off.
ARD_LOG2_BOUNDS: tuple[float, float] = (-20.0, 3.0)
#: Where a run starts unless told otherwise (the paper: C = gamma = 1).
DEFAULT_START: dict[str, float] = {
    "C": 1.0,
    "gamma": 1.0,
    "theta0": 0.0,
    "C_pos": 1.0,
    "C_neg": 1.0,
    "m_pos": 1.0,
    "m_neg": 1.0,
}
KERNELS: tuple[str, ...] = ("rbf", "ard")


@dataclass(frozen=True)
class Hyperparameters:
    """One SVM's hyperparameters: every value, tuned or fixed.

    ``gamma`` has one entry per feature (all equal for the Gaussian kernel);
    the class bounds are ``C_pos`` and ``C_neg`` (for a common ``C``, ``C``
    times the class weights).
    """

    C_pos: float
    C_neg: float
    m_pos: float
    m_neg: float
    gamma: np.ndarray
    theta0: float
    C: float = field(default=float("nan"))

    def bounds(self, y: np.ndarray) -> np.ndarray:
        """Each training point's upper bound ``C_i``."""
        return np.where(y > 0, self.C_pos, self.C_neg)

    def margins(self, y: np.ndarray) -> np.ndarray:
        """Each training point's margin ``m_i`` (LIBSVM's linear term is ``-m``)."""
        return np.where(y > 0, self.m_pos, self.m_neg)

    def scale(self, X: np.ndarray) -> np.ndarray:
        """The features the Gaussian kernel of width 1 sees: ``x * sqrt(gamma)``."""
        return X * np.sqrt(self.gamma)

    @classmethod
    def from_dict(cls, params: Mapping[str, object], n_features: int) -> Hyperparameters:
        """From a mapping like ``best_params_``: missing class bounds default to ``C``, the rest to the start values."""
        value = {**DEFAULT_START, **dict(params)}
        C = float(value["C"]) if "C" in params else float("nan")
        gamma = np.broadcast_to(np.asarray(value["gamma"], dtype=np.float64), (n_features,)).copy()
        return cls(
            C_pos=float(params.get("C_pos", value["C"])),
            C_neg=float(params.get("C_neg", value["C"])),
            m_pos=float(value["m_pos"]),
            m_neg=float(value["m_neg"]),
            gamma=gamma,
            theta0=float(value["theta0"]),
            C=C,
        )

    def as_dict(self, kernel: str) -> dict[str, object]:
        """Plain values for tables: ``gamma`` a float for the Gaussian kernel, an array for ARD."""
        gamma = self.gamma.copy() if kernel == "ard" else float(self.gamma[0])
        return {
            "C": self.C,
            "gamma": gamma,
            "theta0": self.theta0,
            "C_pos": self.C_pos,
            "C_neg": self.C_neg,
            "m_pos": self.m_pos,
            "m_neg": self.m_neg,
        }


class Space:
    """The layout of ``u``: the tuned names in order, ``gamma`` expanded per feature for ARD.

    ``tune`` names the positive hyperparameters tuned (a subset of
    :data:`LOG2_BOUNDS`'s keys; ``C`` excludes ``C_pos`` and ``C_neg``);
    ``theta0`` is appended when ``tune_theta0``. ``class_weight`` fixes the
    ratio of the class bounds when a common ``C`` is used (``C_± = C w_±``).
    """

    def __init__(
        self,
        tune: Sequence[str],
        n_features: int,
        *,
        kernel: str = "rbf",
        tune_theta0: bool = False,
        class_weight: Mapping[int, float] | None = None,
        start: Mapping[str, object] | None = None,
    ) -> None:
        self.tune = tuple(tune)
        self.kernel = kernel
        self.n_features = n_features
        self.tune_theta0 = tune_theta0
        if class_weight and {"C_pos", "C_neg"} & set(self.tune):
            raise ValueError(
                "class_weight fixes the ratio of the class bounds under a common C; it has no "
                "meaning when the class bounds C_pos/C_neg are tuned themselves: drop one of them."
            )
        self.class_weight = {1: 1.0, -1: 1.0, **dict(class_weight or {})}
        self._check()
        self.start = {**DEFAULT_START, **dict(start or {})}
        self.slices: dict[str, slice] = {}
        at = 0
        for name in self.tune:
            width = n_features if (name == "gamma" and kernel == "ard") else 1
            self.slices[name] = slice(at, at + width)
            at += width
        if tune_theta0:
            self.slices["theta0"] = slice(at, at + 1)
            at += 1
        self.size = at

    def _check(self) -> None:
        unknown = [name for name in self.tune if name not in LOG2_BOUNDS]
        if unknown or len(set(self.tune)) != len(self.tune) or not self.tune:
            raise ValueError(
                f"tune must name distinct hyperparameters among {sorted(LOG2_BOUNDS)}, got "
                f"{list(self.tune)!r}; the threshold theta0 is tuned by sigmoid='bias'."
            )
        if "C" in self.tune and {"C_pos", "C_neg"} & set(self.tune):
            raise ValueError(
                "tune holds both C and a class bound (C_pos/C_neg): tune either the common C "
                "(with class_weight for a fixed ratio) or the two class bounds."
            )
        if self.kernel not in KERNELS:
            raise ValueError(f"kernel must be one of {KERNELS}, got {self.kernel!r}.")
        bad = {k: w for k, w in self.class_weight.items() if k not in (1, -1) or not w > 0}
        if bad:
            raise ValueError(
                f"class_weight must map the labels 1 and -1 to positive weights, got {bad!r}."
            )

    def box(self) -> list[tuple[float | None, float | None]]:
        """L-BFGS-B's bounds on ``u``: the log2 boxes, ``theta0`` unbounded."""
        bounds: list[tuple[float | None, float | None]] = []
        for name in self.tune:
            low_high = (
                ARD_LOG2_BOUNDS if (name == "gamma" and self.kernel == "ard") else LOG2_BOUNDS[name]
            )
            bounds += [low_high] * (self.slices[name].stop - self.slices[name].start)
        if self.tune_theta0:
            bounds.append((None, None))
        return bounds

    def initial(self) -> np.ndarray:
        """``u`` at the start values; a clear error if one lies outside its box."""
        u = np.empty(self.size)
        for name in self.tune:
            value = np.broadcast_to(
                np.asarray(self.start[name], dtype=np.float64),
                (self.slices[name].stop - self.slices[name].start,),
            )
            if not np.all(np.isfinite(value) & (value > 0)):
                raise ValueError(
                    f"start[{name!r}] must be positive and finite, got {self.start[name]!r}."
                )
            u[self.slices[name]] = np.log2(value)
        if self.tune_theta0:
            u[self.slices["theta0"]] = float(self.start["theta0"])
        for k, ((low, high), value) in enumerate(zip(self.box(), u, strict=True)):
            if low is not None and not low <= value <= high:
                name = self.name_of(k)
                raise ValueError(
                    f"The start point of {name} is 2^{value:.4g}, outside its box "
                    f"[2^{low:g}, 2^{high:g}]; start inside the box (esmo.hypergradient.space.LOG2_BOUNDS)."
                )
        return u

    def name_of(self, k: int) -> str:
        """The hyperparameter entry ``k`` of ``u`` belongs to (``gamma[t]`` for ARD)."""
        for name, part in self.slices.items():
            if part.start <= k < part.stop:
                return f"gamma[{k - part.start}]" if part.stop - part.start > 1 else name
        raise IndexError(k)

    def decode(self, u: np.ndarray) -> Hyperparameters:
        """The SVM that ``u`` describes (fixed values from ``start``)."""
        value = {name: self.start[name] for name in DEFAULT_START}
        for name in self.tune:
            part = np.exp2(u[self.slices[name]])
            value[name] = part if name == "gamma" else float(part[0])
        if self.tune_theta0:
            value["theta0"] = float(u[self.slices["theta0"]][0])
        gamma = np.broadcast_to(
            np.asarray(value["gamma"], dtype=np.float64), (self.n_features,)
        ).copy()
        common = "C_pos" not in self.tune and "C_neg" not in self.tune
        C = float(value["C"])
        C_pos = C * self.class_weight[1] if common else float(value["C_pos"])
        C_neg = C * self.class_weight[-1] if common else float(value["C_neg"])
        return Hyperparameters(
            C_pos=C_pos,
            C_neg=C_neg,
            m_pos=float(value["m_pos"]),
            m_neg=float(value["m_neg"]),
            gamma=gamma,
            theta0=float(value["theta0"]),
            C=C if common else float("nan"),
        )

    def chain(self, h: Hyperparameters, partials: Mapping[str, object]) -> np.ndarray:
        """``df/du`` from the partial derivatives in the hyperparameters themselves.

        ``partials`` holds ``C_pos``, ``C_neg``, ``m_pos``, ``m_neg`` (scalars),
        ``gamma`` (one per feature for ARD, else their sum) and ``theta0``. In log2 space ``df/du =
        theta ln 2 df/dtheta``; a common ``C`` collects both class bounds.
        """
        grad = np.empty(self.size)
        ln2 = np.log(2.0)
        for name in self.tune:
            part = self.slices[name]
            if name == "C":
                d = float(partials["C_pos"]) * h.C_pos + float(partials["C_neg"]) * h.C_neg
            elif name == "gamma" and self.kernel == "ard":
                d = np.asarray(partials["gamma"]) * h.gamma
            elif name == "gamma":  # one common width: partials["gamma"] is the sum over features
                d = float(np.sum(partials["gamma"])) * float(h.gamma[0])
            else:
                d = float(partials[name]) * getattr(h, name)
            grad[part] = ln2 * np.asarray(d)
        if self.tune_theta0:
            grad[self.slices["theta0"]] = float(partials["theta0"])
        return grad
