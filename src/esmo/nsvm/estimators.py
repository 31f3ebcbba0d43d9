"""The four NSVM training algorithms (Simon and Radons 2023, sec 4) as scikit-learn classifiers.

Every classifier predicts with ``g(x) = (1/(lam T)) sum_j c_j K(z_j, F(x))``:
stored or support embeddings ``z_j`` with coefficients ``c_j = alpha_j y_j``,
and the feature map ``F`` (the user's network, optionally normalised). ``g(x) >= 0``
predicts ``classes_[1]``. The choices the paper leaves open (optimiser, its
settings, clipping, dropout handling, sampling) follow the project's protocol
note ``docs/nsvm-protocol.md``: SGD with momentum and weight decay, the global
gradient norm clipped at ``clip_norm``, dropout active only in the forward
pass that is differentiated.

Early stopping (beyond the paper): ``early_stopping`` takes one
:class:`~esmo.early_stopping.EarlyStopping` (the fit stops where it stops) or
several (a sweep: the fit runs all ``n_steps`` and ``early_stopping_`` holds
every configuration's stop, exactly, since stopping never changes the path
for a fixed seed). Every ``interval`` steps the validation objective of the
current ``g`` is read by the state machines SMO and Pegasos use.
"""

from __future__ import annotations

import copy
import dataclasses
import time
from collections.abc import Callable, Sequence
from numbers import Integral, Real
from typing import Any

import numpy as np
import torch
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted, validate_data
from torch import nn

from esmo.early_stopping import EarlyStopping, EarlyStoppingSet, Metric
from esmo.estimators.base import SVMClassifierBase
from esmo.nsvm.losses import alignment, nsvm3_loss, rbf
from esmo.nsvm.networks import FeatureMap, check_network_output
from esmo.solver.pegasos import (
    LAM,
    check_pegasos_configs,
    pegasos_check,
    record_objectives,
    run_pegasos,
    start_pegasos_tracking,
    sweep_pegasos,
    tracked_outcomes,
)
from esmo.solver.sweep import SweepResult
from esmo.solver.tracking import NEXT_EVENT, STOP_ITER, make_tracker

_DTYPES = {"float32": torch.float32, "float64": torch.float64}
_CHUNK = 1024  # rows per forward pass when embedding many points


#: A parameter this large, and larger than every input, means the steps diverged rather
#: than that the inputs need scaling (a network initialised by torch starts below 1).
_DIVERGED_PARAMETER = 1e6


class TrainingDiverged(ValueError):
    """An NSVM fit whose network or coefficients left the finite numbers (a learning rate too
    large, a lam too small): the learning-rate search counts it as a loss, not a crash."""


_COMMON_CONSTRAINTS: dict = {
    "network": [nn.Module, callable],
    "input_shape": [tuple, list, None],
    "lam": [Interval(Real, 0, None, closed="neither")],
    "gamma": [Interval(Real, 0, None, closed="neither")],
    "n_steps": [Interval(Integral, 1, None, closed="left")],
    "lr": [Interval(Real, 0, None, closed="left")],
    "momentum": [Interval(Real, 0, 1, closed="left")],
    "weight_decay": [Interval(Real, 0, None, closed="left")],
    "clip_norm": [Interval(Real, 0, None, closed="neither"), None],
    "normalize": [Interval(Real, 0, None, closed="neither"), None],
    "early_stopping": "no_validation",
    "dtype": [StrOptions(set(_DTYPES))],
    "random_state": ["random_state"],
    "diagnostic_interval": [Interval(Integral, 1, None, closed="left"), None],
}


class _Tracking:
    """Early-stopping configurations read on the validation (and test) decision values of ``g``."""

    def __init__(self, spec: Any, y_val: np.ndarray, y_test: np.ndarray | None, m: int, T: int):
        single = isinstance(spec, EarlyStopping)
        self.configs = EarlyStoppingSet.of([spec] if single else spec)
        if len(self.configs) == 0:
            raise ValueError("early_stopping holds no configuration; pass None instead.")
        if self.configs.restore_best.any():
            raise ValueError(
                "restore_best is not supported by the NSVM classifiers (the network is not "
                "kept at every check); use restore_best=False."
            )
        y_eval = np.concatenate([y_val, y_test if y_test is not None else np.empty(0)])
        check_pegasos_configs(self.configs)
        self.tr = make_tracker(self.configs, y_eval, len(y_val), np.zeros(m), single)
        start_pegasos_tracking(self.tr, T)
        self.single = single
        self.has_test = y_test is not None
        self.dummy_alpha = np.zeros(m)
        self.start = time.perf_counter()
        #: wall seconds since the fit began, at each check step
        self.seconds: dict[int, float] = {}

    def due(self, t: int) -> bool:
        return t == self.tr.counters[NEXT_EVENT]

    def check(self, t: int, lam: float, sums: np.ndarray) -> bool:
        """Record the unscaled sums ``sums`` (validation then test) at step ``t``; True: stop now."""
        self.seconds[t] = time.perf_counter() - self.start
        self.tr.S[:] = sums
        return bool(pegasos_check(self.tr, t, lam, self.dummy_alpha))

    def outcomes(self, n_steps: int, sums: np.ndarray) -> SweepResult:
        pred = sums >= 0
        positive = self.tr.y_eval > 0
        n_val = self.tr.n_val
        ref_val = float(np.mean(pred[:n_val] == positive[:n_val]))
        ref_test = float(np.mean(pred[n_val:] == positive[n_val:])) if self.has_test else np.nan
        return tracked_outcomes(self.tr, n_steps, ref_val, ref_test, kernel_rows=0)


def _computed_by_part1(f_val: np.ndarray, y_val: np.ndarray) -> float:
    raise TypeError(
        "validation_alignment is computed by NSVM-4's Part I from the network's validation "
        "kernel, not from decision values; use it through NSVM4Classifier(part1_early_stopping=)."
    )


#: NSVM-4's Part I objective (docs/nsvm-protocol.md sec 7): the kernel-target alignment of the
#: validation rows under the current network, higher is better.
PART1_OBJECTIVE = Metric("validation_alignment", _computed_by_part1, higher_is_better=True)


class _Part1Tracking:
    """NSVM-4's Part I early stopping: one configuration's state machine (the solvers') read on
    the validation alignment after the steps its rule checks (1, r + 1, ... when published)."""

    def __init__(
        self, config: EarlyStopping, X_val: torch.Tensor, y_val: torch.Tensor, m: int, T: int
    ):
        if config.restore_best:
            raise ValueError(
                "restore_best is not supported by part1_early_stopping (the network is not kept "
                "at every check); use restore_best=False."
            )
        configs = EarlyStoppingSet.of([dataclasses.replace(config, metric=PART1_OBJECTIVE)])
        self.tr = make_tracker(configs, y_val.double().numpy(), len(y_val), np.zeros(m), True)
        start_pegasos_tracking(self.tr, T)
        self.code = int(configs.metric[0])
        self.X_val, self.y_val = X_val, y_val.double()
        self.dummy_alpha = np.zeros(m)
        #: the validation alignment at every check step
        self.alignments: dict[int, float] = {}

    def stops(self, t: int, E_val: Callable[[], torch.Tensor], gamma: float) -> bool:
        """At a check step: record the alignment of ``E_val()``'s kernel; True: stop here."""
        if t != self.tr.counters[NEXT_EVENT]:
            return False
        E = E_val()
        a = float(alignment(rbf(E, E, gamma).double(), self.y_val))
        self.alignments[t] = a
        objectives = np.full(self.tr.bars.shape[0], np.nan)
        objectives[self.code] = a
        return bool(record_objectives(self.tr, t, objectives, np.nan, self.dummy_alpha))


class _NSVM(SVMClassifierBase):
    """What the four algorithms share: inputs, the network, the optimiser, prediction, tracking."""

    _parameter_constraints: dict = dict(_COMMON_CONSTRAINTS)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = False
        return tags

    # -- set-up ---------------------------------------------------------------------------
    def _tensor(self, X: np.ndarray) -> torch.Tensor:
        shape = tuple(self.input_shape) if self.input_shape is not None else (X.shape[1],)
        if int(np.prod(shape)) != X.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} columns but input_shape={shape} needs {int(np.prod(shape))}; "
                "give each image as one row of prod(input_shape) values (e.g. 784 columns for "
                "input_shape=(1, 28, 28))."
            )
        return torch.as_tensor(X, dtype=_DTYPES[self.dtype]).reshape(-1, *shape)

    def _make_feature_map(self, x_probe: torch.Tensor) -> FeatureMap:
        """The network, freshly initialised under the fit's seed, wrapped with the normalisation."""
        if isinstance(self.network, nn.Module):
            net = copy.deepcopy(self.network)
            for module in net.modules():
                if hasattr(module, "reset_parameters"):
                    module.reset_parameters()
        else:
            net = self.network()
            if not isinstance(net, nn.Module):
                raise ValueError(
                    f"network must be a torch.nn.Module or a function returning one, got a "
                    f"function returning {type(net).__name__}."
                )
        F = FeatureMap(net, self.normalize).to(_DTYPES[self.dtype])
        F.eval()
        self.n_features_out_ = check_network_output(F, x_probe, self.input_shape)
        return F

    def _embed(self, F: FeatureMap, X: torch.Tensor) -> torch.Tensor:
        """``F(X)`` in eval mode without gradients, in chunks."""
        F.eval()
        with torch.no_grad():
            return torch.cat([F(X[s : s + _CHUNK]) for s in range(0, X.shape[0], _CHUNK)])

    def _step(self, F: FeatureMap, opt: torch.optim.Optimizer, loss: torch.Tensor) -> None:
        opt.zero_grad()
        loss.backward()
        if self.clip_norm is not None:
            nn.utils.clip_grad_norm_(F.parameters(), self.clip_norm)
        opt.step()
        self.n_theta_updates_ += 1

    def fit(
        self,
        X: Any,
        y: Any,
        X_val: Any = None,
        y_val: Any = None,
        X_test: Any = None,
        y_test: Any = None,
    ) -> _NSVM:
        """Train on ``(X, y)``. ``(X_val, y_val)`` feed ``early_stopping``; ``(X_test, y_test)``,
        if given, are only scored at every check (for reports), never trained or stopped on."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, order="C")
        self._resolve_gamma(X, self.dtype)  # inf in the network's dtype: NaN kernels
        self._set_classes(y)
        ys = self._signs(y, "y")
        seed = check_random_state(self.random_state).randint(2**31 - 1)
        torch.manual_seed(seed)
        rng = np.random.RandomState(seed)
        Xt = self._tensor(X)
        F = self._make_feature_map(Xt[:2])
        eval_X, tracking = None, None
        if self.early_stopping is not None:
            if X_val is None or y_val is None:
                raise ValueError("early_stopping needs X_val and y_val in fit.")
            X_val, y_val = self._check_validation_data(X_val, y_val)
            parts = [X_val]
            yv = self._signs(y_val, "y_val")
            yt = None
            if X_test is not None:
                X_test, y_test = self._check_validation_data(X_test, y_test, "test")
                parts.append(X_test)
                yt = self._signs(y_test, "y_test")
            eval_X = self._tensor(np.vstack(parts))
            tracking = _Tracking(self.early_stopping, yv, yt, X.shape[0], self._tracked_steps())
        opt = torch.optim.SGD(
            F.parameters(), lr=self.lr, momentum=self.momentum, weight_decay=self.weight_decay
        )
        self.n_theta_updates_ = 0
        self.stopped_early_ = False
        yt_train = torch.as_tensor(ys, dtype=_DTYPES[self.dtype])
        self._start_diagnostics(Xt, yt_train, seed)
        cpu0, wall0 = time.process_time(), time.perf_counter()
        if tracking is not None:
            tracking.start = wall0
        self._train(F, opt, Xt, yt_train, rng, eval_X, tracking)
        del self._diag_batch
        self.diagnostics_ = {k: np.array(v) for k, v in self.__dict__.pop("_diagnosed").items()}
        self.fit_cpu_seconds_ = time.process_time() - cpu0
        self.fit_seconds_ = time.perf_counter() - wall0
        self._check_finite(F, Xt)
        self.largest_training_input_ = float(np.abs(X).max())
        self.feature_map_ = F.eval()
        return self

    def _check_finite(self, F: FeatureMap, X: torch.Tensor) -> None:
        """Refuse a fit whose model is not finite, so predictions are never silent NaNs.

        The network's steps scale with ``1 / (lam t)``: a tiny ``lam`` (or a large
        ``lr``) can push its parameters to inf or NaN, or so large that the
        features overflow. Rows too large for the dtype overflow the network's
        features, or their squared distances overflow the kernel even where the
        features are finite. One extra pass over the training rows (after the
        timed fit) computes the decision values the model predicts with; the
        message names the likelier cause: the parameters' size against the
        inputs'.
        """
        finite = all(bool(torch.isfinite(p).all()) for p in F.parameters())
        if not (finite and np.isfinite(self.scale_) and bool(torch.isfinite(self.coef_).all())):
            raise TrainingDiverged(
                f"Training diverged: the network's parameters or the SVM's coefficients are not "
                f"finite (lam={self.lam:g}, lr={self.lr:g}, dtype={self.dtype}). The network's "
                "steps scale with 1 / (lam t): raise lam, lower lr, or set clip_norm."
            )
        E = self._embed(F, X)
        features_finite = bool(torch.isfinite(E).all())
        decision = self._sums(F, X, self.support_embeddings_, self.coef_) * self.scale_
        bad = int(np.sum(~np.isfinite(decision)))
        if features_finite and not bad:
            return
        largest_x = float(X.abs().max())
        largest_theta = max(float(p.detach().abs().max()) for p in F.parameters())
        what = (
            "some training rows to non-finite features"
            if not features_finite
            else f"the training rows to features whose kernel values are not finite on {bad} of "
            f"{X.shape[0]} rows (largest |F(x)| = {float(E.abs().max()):.3g})"
        )
        if largest_theta > _DIVERGED_PARAMETER and largest_theta > largest_x:
            raise TrainingDiverged(
                f"The network maps {what} in {self.dtype}: its parameters grew to "
                f"{largest_theta:.3g} while the inputs stay within {largest_x:.3g}, so the "
                f"training steps diverged (lr={self.lr:g}, lam={self.lam:g}): lower lr, raise "
                "lam, or set clip_norm."
            )
        raise ValueError(
            f"The network maps {what} in {self.dtype} (largest |X| = {largest_x:.3g}); scale "
            "the features (e.g. sklearn.preprocessing.StandardScaler), set normalize, or set "
            "dtype='float64'."
        )

    def _tracked_steps(self) -> int:
        return self.n_steps

    def _stops(self, tracking, t: int, F: FeatureMap, eval_X, support: Callable) -> bool:
        """Check after step ``t`` if one is due; True: stop here. ``support()`` gives the current
        model's ``(Z, c)``, built only for a check. Step 1 is the initial coefficient(s), so the
        published rule's first check (after step 1) comes before the step loop."""
        if tracking is None or not tracking.due(t):
            return False
        return tracking.check(t, self.lam, self._sums(F, eval_X, *support()))

    def _start_diagnostics(self, X: torch.Tensor, y: torch.Tensor, seed: int) -> None:
        """Fix the diagnostics' batch: up to 256 training rows from a generator of its own."""
        rows = np.sort(np.random.default_rng(seed).permutation(X.shape[0])[:256])
        self._diag_batch = (X[rows], y[rows])
        self._diagnosed: dict[str, list] = {"step": [], "mean_offdiag_kernel": [], "alignment": []}

    def _diagnose(self, F: FeatureMap, t: int) -> None:
        """At every ``diagnostic_interval``-th step: the batch's mean off-diagonal kernel value
        and alignment under the current network (eval mode: no dropout mask is drawn)."""
        if self.diagnostic_interval is None or t % self.diagnostic_interval:
            return
        X, y = self._diag_batch
        E = self._embed(F, X)
        K = rbf(E, E, self.gamma).double()
        b = K.shape[0]
        off = float((K.sum() - K.diagonal().sum()) / (b * (b - 1))) if b > 1 else np.nan
        self._diagnosed["step"].append(t)
        self._diagnosed["mean_offdiag_kernel"].append(off)
        self._diagnosed["alignment"].append(float(alignment(K, y.double())))

    def _sums(self, F: FeatureMap, X: torch.Tensor, Z: torch.Tensor, c: torch.Tensor) -> np.ndarray:
        """Unscaled decision values ``sum_j c_j K(z_j, F(x))`` of the rows of ``X``."""
        E = self._embed(F, X)
        out = [rbf(E[s : s + _CHUNK], Z, self.gamma) @ c for s in range(0, E.shape[0], _CHUNK)]
        return torch.cat(out).double().numpy()

    def _finish_tracking(self, tracking, n_steps, F, eval_X, Z, c) -> None:
        if tracking is not None:
            self.early_stopping_ = tracking.outcomes(n_steps, self._sums(F, eval_X, Z, c))
            self.check_seconds_ = dict(tracking.seconds)

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """``g(x) = (1/(lam T)) sum_j c_j K(z_j, F(x))``; >= 0 means ``classes_[1]``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        sums = self._sums(self.feature_map_, self._tensor(X), self.support_embeddings_, self.coef_)
        decision = sums * self.scale_
        bad = ~np.isfinite(decision)
        if bad.any():
            raise ValueError(
                f"The decision values of {int(bad.sum())} of {bad.size} rows are not finite in "
                f"{self.dtype}: their features overflow the kernel (largest |X| = "
                f"{float(np.abs(X).max()):.3g}; the training rows reached "
                f"{self.largest_training_input_:.3g}). Scale these rows as the training rows "
                "were, or set dtype='float64'."
            )
        return decision

    def predict(self, X: Any) -> np.ndarray:
        positive = self.decision_function(X) >= 0
        return self.classes_[positive.astype(np.intp)]


_EXTRA_DOC = """
    Parameters
    ----------
    network : torch.nn.Module or callable returning one
        F_theta: maps a batch of inputs of ``input_shape`` to (batch, n_features)
        feature vectors. A module is copied and re-initialised under ``random_state``.
    input_shape : tuple or None
        Shape of one input; rows of X are reshaped to it (None: vectors of X's width).
    lam : float
        Pegasos's regularisation weight (> 0).
    gamma : float
        Kernel width of ``K(a, b) = exp(-gamma ||a - b||^2)``.
    n_steps : int
        T, the number of steps (>= 1).
    lr, momentum, weight_decay, clip_norm : the theta optimiser (SGD; clip None: off).
    normalize : float or None
        Scale s of ``F(x) = s net(x) / max(||net(x)||, 1e-8)``; None: no normalisation.
    early_stopping : None, EarlyStopping or a sequence of them (see the module).
    dtype : {'float32', 'float64'}
    random_state : int, RandomState or None
        Seeds the initialisation, the sampling and the dropout masks.
    diagnostic_interval : int or None
        Every this many steps (of Part I for NSVM-4), record in ``diagnostics_``
        the mean off-diagonal kernel value and the kernel-target alignment of a
        fixed batch of up to 256 training rows (the paper's sec 6: K -> I is
        overfitting, K -> 11' underfitting). None: no diagnostics. The batch is
        drawn from its own generator and embedded in eval mode, so the fit is
        the same with or without them.
"""


class NSVM1Classifier(_NSVM):
    __doc__ = (
        "NSVM-1 (the paper's Algorithm 1): Pegasos on stored embeddings; on every margin "
        "violation the new embedding is stored and theta steps on the new point's term.\n"
        + _EXTRA_DOC
    )

    def __init__(
        self,
        network: Any = None,
        input_shape: tuple | None = None,
        lam: float = LAM,
        gamma: float = 1.0,
        n_steps: int = 80_000,
        lr: float = 1e-4,
        momentum: float = 0.9,
        weight_decay: float = 1e-4,
        clip_norm: float | None = 10.0,
        normalize: float | None = 1.0,
        early_stopping: Any = None,
        dtype: str = "float32",
        random_state: Any = None,
        diagnostic_interval: int | None = None,
    ) -> None:
        self.network = network
        self.input_shape = input_shape
        self.lam = lam
        self.gamma = gamma
        self.n_steps = n_steps
        self.lr = lr
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_norm = clip_norm
        self.normalize = normalize
        self.early_stopping = early_stopping
        self.dtype = dtype
        self.random_state = random_state
        self.diagnostic_interval = diagnostic_interval

    def _train(self, F, opt, X, y, rng, eval_X, tracking) -> None:
        m, T, lam, gamma = X.shape[0], self.n_steps, self.lam, self.gamma
        idx = rng.randint(0, m, size=T)
        Z = torch.empty(T, self.n_features_out_, dtype=X.dtype)
        c = torch.empty(T, dtype=X.dtype)
        Z[0] = self._embed(F, X[idx[0] : idx[0] + 1])[0]
        c[0] = y[idx[0]]
        count = 1
        steps = T
        if self._stops(tracking, 1, F, eval_X, lambda: (Z[:1], c[:1])):
            steps, self.stopped_early_ = 1, True
        for t in range(2, steps + 1):
            i = int(idx[t - 1])
            xi = X[i : i + 1]
            with torch.no_grad():
                z = F(xi)
                s = float(rbf(Z[:count], z, gamma)[:, 0] @ c[:count])
            yi = float(y[i])
            if yi * s < lam * (t - 1):
                F.train()
                k = rbf(Z[:count], F(xi), gamma)[:, 0]
                self._step(F, opt, -yi / (lam * (t - 1)) * (k @ c[:count]))
                F.eval()
                Z[count] = z[0]
                c[count] = yi
                count += 1
            self._diagnose(F, t)
            if self._stops(tracking, t, F, eval_X, lambda n=count: (Z[:n], c[:n])):
                steps, self.stopped_early_ = t, True
                break
        self.n_steps_ = steps
        self.n_violations_ = count
        self.support_embeddings_, self.coef_ = Z[:count].clone(), c[:count].clone()
        self.scale_ = 1.0 / (lam * steps)
        self._finish_tracking(tracking, steps, F, eval_X, self.support_embeddings_, self.coef_)


class _PerPointNSVM(_NSVM):
    """NSVM-2 and NSVM-3: one coefficient per training point; the output re-embeds the support set."""

    def _set_output(self, F, X, y, alpha, steps, tracking, eval_X) -> None:
        sv = np.flatnonzero(alpha > 0)
        self.alpha_ = alpha
        self.support_ = sv
        self.n_steps_ = steps
        self.support_embeddings_ = self._embed(F, X[sv])
        self.coef_ = torch.as_tensor(alpha[sv], dtype=X.dtype) * y[sv]
        self.scale_ = 1.0 / (self.lam * steps)
        self._finish_tracking(tracking, steps, F, eval_X, self.support_embeddings_, self.coef_)


class NSVM2Classifier(_PerPointNSVM):
    __doc__ = (
        "NSVM-2 (the paper's Algorithm 2): one Pegasos coefficient per training point; on a "
        "violation theta steps through every support embedding and the new point.\n" + _EXTRA_DOC
    )

    def __init__(
        self,
        network: Any = None,
        input_shape: tuple | None = None,
        lam: float = LAM,
        gamma: float = 1.0,
        n_steps: int = 70_000,
        lr: float = 1e-4,
        momentum: float = 0.9,
        weight_decay: float = 1e-4,
        clip_norm: float | None = 10.0,
        normalize: float | None = 1.0,
        early_stopping: Any = None,
        dtype: str = "float32",
        random_state: Any = None,
        diagnostic_interval: int | None = None,
    ) -> None:
        self.network = network
        self.input_shape = input_shape
        self.lam = lam
        self.gamma = gamma
        self.n_steps = n_steps
        self.lr = lr
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_norm = clip_norm
        self.normalize = normalize
        self.early_stopping = early_stopping
        self.dtype = dtype
        self.random_state = random_state
        self.diagnostic_interval = diagnostic_interval

    def _train(self, F, opt, X, y, rng, eval_X, tracking) -> None:
        m, T, lam, gamma = X.shape[0], self.n_steps, self.lam, self.gamma
        idx = rng.randint(0, m, size=T)
        alpha = np.zeros(m)
        alpha[idx[0]] = 1.0
        sv = np.array([idx[0]])
        Zsv = self._embed(F, X[sv])
        c = torch.as_tensor(alpha[sv], dtype=X.dtype) * y[sv]
        steps = T
        self.n_violations_ = 1
        if self._stops(tracking, 1, F, eval_X, lambda: (Zsv, c)):
            steps, self.stopped_early_ = 1, True
        for t in range(2, steps + 1):
            i = int(idx[t - 1])
            with torch.no_grad():
                s = float(rbf(Zsv, F(X[i : i + 1]), gamma)[:, 0] @ c)
            yi = float(y[i])
            if yi * s < lam * (t - 1):
                self.n_violations_ += 1
                F.train()
                B = F(torch.cat([X[sv], X[i : i + 1]]))
                k = rbf(B[:-1], B[-1:], gamma)[:, 0]
                self._step(F, opt, -yi / (lam * (t - 1)) * (k @ c))
                alpha[i] += 1.0
                sv = np.flatnonzero(alpha > 0)
                Zsv = self._embed(F, X[sv])
                c = torch.as_tensor(alpha[sv], dtype=X.dtype) * y[sv]
            self._diagnose(F, t)
            if self._stops(tracking, t, F, eval_X, lambda Z=Zsv, c=c: (Z, c)):
                steps, self.stopped_early_ = t, True
                break
        self._set_output(F, X, y, alpha, steps, tracking, eval_X)


class NSVM3Classifier(_PerPointNSVM):
    __doc__ = (
        "NSVM-3 (the paper's Algorithm 3): mini-batches of k distinct points; coefficients "
        "grow by 1/k per violation and theta steps at every step on mu times a norm proxy "
        "minus the kernel-target alignment.\n" + _EXTRA_DOC + "    batch_size : int (k >= 2)\n"
        "    mu : float (> 0)\n"
    )

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "batch_size": [Interval(Integral, 2, None, closed="left")],
        "mu": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(
        self,
        network: Any = None,
        input_shape: tuple | None = None,
        lam: float = LAM,
        gamma: float = 1.0,
        n_steps: int = 4_600,
        batch_size: int = 16,
        mu: float = 1.0,
        lr: float = 1e-2,
        momentum: float = 0.9,
        weight_decay: float = 1e-4,
        clip_norm: float | None = 10.0,
        normalize: float | None = None,
        early_stopping: Any = None,
        dtype: str = "float32",
        random_state: Any = None,
        diagnostic_interval: int | None = None,
    ) -> None:
        self.network = network
        self.input_shape = input_shape
        self.lam = lam
        self.gamma = gamma
        self.n_steps = n_steps
        self.batch_size = batch_size
        self.mu = mu
        self.lr = lr
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_norm = clip_norm
        self.normalize = normalize
        self.early_stopping = early_stopping
        self.dtype = dtype
        self.random_state = random_state
        self.diagnostic_interval = diagnostic_interval

    def _train(self, F, opt, X, y, rng, eval_X, tracking) -> None:
        m, T, lam, gamma, k = X.shape[0], self.n_steps, self.lam, self.gamma, self.batch_size
        if k > m:
            raise ValueError(f"batch_size={k} exceeds the {m} training points; lower it.")
        alpha = np.zeros(m)
        alpha[rng.choice(m, k, replace=False)] = 1.0 / k
        steps = T
        self.n_violations_ = k

        def support():
            sv = np.flatnonzero(alpha > 0)
            return self._embed(F, X[sv]), torch.as_tensor(alpha[sv], dtype=X.dtype) * y[sv]

        if self._stops(tracking, 1, F, eval_X, support):
            steps, self.stopped_early_ = 1, True
        for t in range(2, steps + 1):
            A = rng.choice(m, k, replace=False)
            sv = np.flatnonzero(alpha > 0)
            c = torch.as_tensor(alpha[sv], dtype=X.dtype) * y[sv]
            with torch.no_grad():
                Zsv = self._embed(F, X[sv])
                s = (rbf(F(X[A]), Zsv, gamma) @ c).double().numpy()
            yA = y[A]
            viol = yA.double().numpy() * s < lam * (t - 1)
            alpha[A[viol]] += 1.0 / k
            self.n_violations_ += int(viol.sum())
            F.train()
            B = F(X[A])
            a = torch.as_tensor(alpha[A], dtype=X.dtype)
            self._step(F, opt, nsvm3_loss(rbf(B, B, gamma), yA, a, self.mu))
            F.eval()
            self._diagnose(F, t)
            if self._stops(tracking, t, F, eval_X, support):
                steps, self.stopped_early_ = t, True
                break
        self._set_output(F, X, y, alpha, steps, tracking, eval_X)


class NSVM4Classifier(_NSVM):
    __doc__ = (
        "NSVM-4 (the paper's Algorithm 4): theta trained first on the kernel-target alignment "
        "(loss (1 - A)^2, ``n_steps`` mini-batch steps), then kernel Pegasos (numba) on the "
        "frozen features for ``part2_steps`` steps. ``early_stopping`` applies to Part II, "
        "exactly (one Pegasos sweep).\n"
        + _EXTRA_DOC
        + "    batch_size : int (k >= 2)\n    part2_steps : int (>= 1)\n"
        "    part1_early_stopping : EarlyStopping or None\n"
        "        Stop Part I on the validation alignment (higher is better; the configuration's\n"
        "        metric is ignored) with its patience, tol, interval and rule; needs X_val and\n"
        "        y_val in fit. Part II then trains on the stopped network's features\n"
        "        (``n_part1_steps_``, ``part1_stopped_early_``, ``part1_alignment_``).\n"
    )

    _parameter_constraints: dict = {
        **_COMMON_CONSTRAINTS,
        "batch_size": [Interval(Integral, 2, None, closed="left")],
        "part2_steps": [Interval(Integral, 1, None, closed="left")],
        "part1_early_stopping": [EarlyStopping, None],
    }

    def __init__(
        self,
        network: Any = None,
        input_shape: tuple | None = None,
        lam: float = LAM,
        gamma: float = 1.0,
        n_steps: int = 4_200,
        part2_steps: int = 33_500,
        batch_size: int = 16,
        lr: float = 1e-2,
        momentum: float = 0.9,
        weight_decay: float = 1e-4,
        clip_norm: float | None = 10.0,
        normalize: float | None = None,
        early_stopping: Any = None,
        dtype: str = "float32",
        random_state: Any = None,
        diagnostic_interval: int | None = None,
        part1_early_stopping: EarlyStopping | None = None,
    ) -> None:
        self.network = network
        self.input_shape = input_shape
        self.lam = lam
        self.gamma = gamma
        self.n_steps = n_steps
        self.part2_steps = part2_steps
        self.part1_early_stopping = part1_early_stopping
        self.batch_size = batch_size
        self.lr = lr
        self.momentum = momentum
        self.weight_decay = weight_decay
        self.clip_norm = clip_norm
        self.normalize = normalize
        self.early_stopping = early_stopping
        self.dtype = dtype
        self.random_state = random_state
        self.diagnostic_interval = diagnostic_interval

    def _tracked_steps(self) -> int:
        return self.part2_steps

    def fit(self, X, y, X_val=None, y_val=None, X_test=None, y_test=None) -> NSVM4Classifier:
        # Part II's tracking is Pegasos's own: keep the evaluation data for it
        self._eval_raw = (X_val, y_val, X_test, y_test)
        saved, self.early_stopping = self.early_stopping, None
        try:
            super().fit(X, y)
        finally:
            self.early_stopping = saved
        self._part2_early_stopping(self.__dict__.pop("_eval_raw"))
        return self

    def _train(self, F, opt, X, y, rng, eval_X, tracking) -> None:
        m, k = X.shape[0], self.batch_size
        if k > m:
            raise ValueError(f"batch_size={k} exceeds the {m} training points; lower it.")
        part1 = self._part1_tracking(m)
        start = time.perf_counter()
        steps = self.n_steps
        for t in range(1, self.n_steps + 1):
            A = rng.choice(m, k, replace=False)
            F.train()
            B = F(X[A])
            self._step(F, opt, (1.0 - alignment(rbf(B, B, self.gamma), y[A])) ** 2)
            self._diagnose(F, t)
            if part1 is not None and part1.stops(
                t, lambda: self._embed(F, part1.X_val), self.gamma
            ):
                steps = t
                break
        self.part1_stopped_early_ = part1 is not None and bool(part1.tr.out_iter[0, STOP_ITER] >= 0)
        self.part1_alignment_ = part1.alignments if part1 is not None else {}
        F.eval()
        self.part1_seconds_ = time.perf_counter() - start
        self._Z = self._embed(F, X).double().numpy()
        self._y = y.double().numpy()
        self._pegasos_seed = int(rng.randint(2**31 - 1))
        self.n_part1_steps_ = steps
        self._part2(self.part2_steps, X)

    def _part1_tracking(self, m: int) -> _Part1Tracking | None:
        """Part I's early stopping on the validation rows given to ``fit``, or None."""
        if self.part1_early_stopping is None:
            return None
        X_val, y_val = self._eval_raw[:2]
        if X_val is None or y_val is None:
            raise ValueError("part1_early_stopping needs X_val and y_val in fit.")
        X_val, y_val = self._check_validation_data(X_val, y_val)
        X_val = self._tensor(X_val)
        y_val = torch.as_tensor(self._signs(y_val, "y_val"), dtype=X_val.dtype)
        return _Part1Tracking(self.part1_early_stopping, X_val, y_val, m, self.n_steps)

    def _part2(self, steps: int, X: torch.Tensor) -> None:
        result, _ = run_pegasos(
            self._Z, self._y, lam=self.lam, n_steps=steps, gamma=self.gamma,
            random_state=self._pegasos_seed,
        )  # fmt: skip
        sv = np.flatnonzero(result.alpha > 0)
        self.alpha_ = result.alpha
        self.support_ = sv
        self.n_steps_ = steps
        self.n_violations_ = result.n_violations
        self.support_embeddings_ = torch.as_tensor(self._Z[sv], dtype=X.dtype)
        self.coef_ = torch.as_tensor(result.alpha[sv] * self._y[sv], dtype=X.dtype)
        self.scale_ = 1.0 / (self.lam * steps)

    def _part2_early_stopping(self, eval_raw) -> None:
        X_val, y_val, X_test, y_test = eval_raw
        if self.early_stopping is None or not hasattr(self, "_Z"):
            return
        if X_val is None or y_val is None:
            raise ValueError("early_stopping needs X_val and y_val in fit.")
        spec = self.early_stopping
        configs = [spec] if isinstance(spec, EarlyStopping) else spec

        def features(A):
            return self._embed(self.feature_map_, self._tensor(A)).double().numpy()

        X_val, y_val = self._check_validation_data(X_val, y_val)
        test = {}
        if X_test is not None:
            X_test, y_test = self._check_validation_data(X_test, y_test, "test")
            test = {"X_test": features(X_test), "y_test": self._signs(y_test, "y_test")}
        start = time.perf_counter()
        sweep = sweep_pegasos(
            self._Z, self._y, features(X_val), self._signs(y_val, "y_val"), configs,
            lam=self.lam, n_steps=self.part2_steps, gamma=self.gamma,
            random_state=self._pegasos_seed, **test,
        )  # fmt: skip
        self.early_stopping_ = sweep
        self.part2_sweep_seconds_ = time.perf_counter() - start
        if isinstance(spec, EarlyStopping) and sweep.stopped_early[0]:
            self.stopped_early_ = True
            self._part2(int(sweep.stop_iter[0]), self.support_embeddings_)


def make_classifier(algorithm: str, **params: Any) -> _NSVM:
    """The classifier of ``algorithm`` ('nsvm1'..'nsvm4') with ``params``."""
    classes: dict[str, Callable[..., _NSVM]] = {
        "nsvm1": NSVM1Classifier,
        "nsvm2": NSVM2Classifier,
        "nsvm3": NSVM3Classifier,
        "nsvm4": NSVM4Classifier,
    }
    if algorithm not in classes:
        raise ValueError(f"algorithm must be one of {sorted(classes)}, got {algorithm!r}.")
    return classes[algorithm](**params)


__all__: Sequence[str] = [
    "NSVM1Classifier",
    "NSVM2Classifier",
    "NSVM3Classifier",
    "NSVM4Classifier",
    "TrainingDiverged",
    "make_classifier",
]
