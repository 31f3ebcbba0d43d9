"""Neural SVMs: theta gradients against finite differences, each algorithm on an easy problem,
the reduction to kernel Pegasos, the exact early-stopping sweep, and bad input."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

if os.environ.get("CI"):
    import torch  # CI installs esmo[nsvm]: a missing torch fails there, it is not skipped
else:
    torch = pytest.importorskip("torch", reason="the NSVM tests need esmo[nsvm] (PyTorch)")
from sklearn.datasets import make_classification  # noqa: E402
from sklearn.utils._param_validation import InvalidParameterError  # noqa: E402
from torch import nn  # noqa: E402

from esmo.early_stopping import EarlyStopping  # noqa: E402
from esmo.nsvm.estimators import (  # noqa: E402
    NSVM1Classifier,
    NSVM2Classifier,
    NSVM3Classifier,
    NSVM4Classifier,
    TrainingDiverged,
)
from esmo.nsvm.losses import alignment, nsvm3_loss, rbf  # noqa: E402
from esmo.nsvm.networks import FeatureMap, mnist_cnn, ringnorm_mlp  # noqa: E402
from esmo.solver.pegasos import pegasos_decision, run_pegasos  # noqa: E402

torch.set_num_threads(1)


def directional_check(loss_fn, params, seed=0, eps=1e-6):
    """Autograd's directional derivative of ``loss_fn`` against a central finite difference."""
    gen = torch.Generator().manual_seed(seed)
    directions = [torch.randn(p.shape, generator=gen, dtype=p.dtype) for p in params]
    # a unit direction: a step of eps moves no pre-activation across a ReLU or max-pool kink
    norm = torch.sqrt(sum((v * v).sum() for v in directions))
    directions = [v / norm for v in directions]
    loss = loss_fn()
    grads = torch.autograd.grad(loss, params)
    analytic = sum((g * v).sum() for g, v in zip(grads, directions, strict=True)).item()
    with torch.no_grad():
        for p, v in zip(params, directions, strict=True):
            p += eps * v
        up = loss_fn().item()
        for p, v in zip(params, directions, strict=True):
            p -= 2 * eps * v
        down = loss_fn().item()
        for p, v in zip(params, directions, strict=True):
            p += eps * v
    numeric = (up - down) / (2 * eps)
    assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-8)


def test_mlp_nsvm1_gradient_matches_finite_differences():
    torch.manual_seed(0)
    F = FeatureMap(ringnorm_mlp(6), normalize=1.0).double()
    x = torch.randn(1, 6, dtype=torch.float64)
    Z = torch.randn(5, 20, dtype=torch.float64)
    c = torch.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=torch.float64)
    directional_check(
        lambda: -1.0 / (1e-2 * 7) * (rbf(Z, F(x), 1.0)[:, 0] @ c), list(F.parameters())
    )


def test_cnn_gradient_through_both_kernel_arguments_matches_finite_differences():
    torch.manual_seed(1)
    F = FeatureMap(mnist_cnn(), normalize=2**0.5).double().eval()  # eval: no dropout masks
    X = torch.randn(4, 1, 28, 28, dtype=torch.float64)
    c = torch.tensor([1.0, -2.0, 1.0], dtype=torch.float64)

    def loss():  # NSVM-2's objective: gradient through every support embedding
        B = F(X)
        return -(rbf(B[:3], B[3:], 1.0)[:, 0] @ c)

    directional_check(loss, list(F.parameters()))


def test_nsvm3_loss_and_alignment_gradients_match_finite_differences():
    torch.manual_seed(2)
    F = ringnorm_mlp(5).double()
    X = torch.randn(8, 5, dtype=torch.float64)
    y = torch.tensor([1.0, -1, 1, -1, 1, 1, -1, -1], dtype=torch.float64)
    a = torch.tensor([0.0, 0.25, 0.5, 0, 0.25, 0, 0.75, 0.25], dtype=torch.float64)
    params = list(F.parameters())
    directional_check(lambda: nsvm3_loss(rbf(F(X), F(X), 0.1), y, a, 1.0), params)
    directional_check(lambda: (1 - alignment(rbf(F(X), F(X), 0.1), y)) ** 2, params, seed=3)


def test_alignment_is_one_for_the_ideal_kernel():
    y = torch.tensor([1.0, 1.0, -1.0])
    assert alignment(torch.outer(y, y), y).item() == pytest.approx(1.0)
    a = torch.zeros(3)
    # the proxy term is 0 when a = 0 on the batch, so the loss is minus the alignment
    assert nsvm3_loss(torch.outer(y, y), y, a, 1.0).item() == pytest.approx(-1.0)


class Identity(nn.Module):
    """F(x) = x, with one parameter that gets a zero gradient, so theta never moves."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.zeros(1, dtype=torch.float64))

    def forward(self, x):
        return x + 0.0 * self.w


def test_nsvm1_with_a_fixed_identity_network_is_kernel_pegasos():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3))
    y = np.where(X[:, 0] * X[:, 2] > 0, 1.0, -1.0)
    clf = NSVM1Classifier(
        network=Identity, lam=1e-2, gamma=0.5, n_steps=400, normalize=None, dtype="float64",
        random_state=9,
    )  # fmt: skip
    clf.fit(X, y)
    seed = np.random.RandomState(9).randint(2**31 - 1)
    ref, _ = run_pegasos(
        X, y, lam=1e-2, n_steps=400, gamma=0.5, random_state=np.random.RandomState(seed)
    )
    assert clf.n_violations_ == ref.n_violations
    np.testing.assert_allclose(
        clf.decision_function(X), pegasos_decision(X, y, ref.alpha, 1e-2, 400, X, 0.5, "rbf")
    )


@pytest.fixture(scope="module")
def easy():
    """Two blobs 6 standard deviations apart in 4 dimensions."""
    rng = np.random.default_rng(5)
    y = np.repeat([-1.0, 1.0], 150)
    X = rng.normal(size=(300, 4)) + 3.0 * y[:, None]
    order = rng.permutation(300)
    X, y = X[order], y[order]
    return X[:200], y[:200], X[200:], y[200:]


#: each algorithm with step counts that solve the easy problem
ON_EASY = {
    "nsvm1": lambda: NSVM1Classifier(n_steps=600),
    "nsvm2": lambda: NSVM2Classifier(n_steps=1000),
    "nsvm3": lambda: NSVM3Classifier(n_steps=60, batch_size=8),
    "nsvm4": lambda: NSVM4Classifier(n_steps=60, part2_steps=600, batch_size=8),
}


@pytest.mark.parametrize("make", ON_EASY.values(), ids=ON_EASY.keys())
def test_each_algorithm_solves_an_easy_problem(easy, make):
    X, y, Xt, yt = easy
    clf = make().set_params(network=lambda: ringnorm_mlp(4), random_state=0)
    clf.fit(X, np.where(y > 0, "b", "a"))
    assert clf.score(Xt, np.where(yt > 0, "b", "a")) >= 0.97
    assert clf.n_theta_updates_ >= 1


@pytest.mark.parametrize("make", ON_EASY.values(), ids=ON_EASY.keys())
def test_kernel_diagnostics_leave_the_fit_alone_and_match_the_final_network(easy, make):
    """Sec 6's diagnostics: recording them changes no bit of the fit, and the last one (at the
    last step of training the network) equals the batch's kernel under the fitted network."""
    X, y, Xt, _ = easy
    plain = make().set_params(network=lambda: ringnorm_mlp(4), random_state=0).fit(X, y)
    diag = make().set_params(network=lambda: ringnorm_mlp(4), random_state=0)
    diag.set_params(diagnostic_interval=10).fit(X, y)
    np.testing.assert_array_equal(diag.decision_function(Xt), plain.decision_function(Xt))
    d = diag.diagnostics_
    T = diag.n_steps
    np.testing.assert_array_equal(d["step"], np.arange(10, T + 1, 10))
    rows = np.sort(np.random.default_rng(diag_seed(diag)).permutation(len(y))[:256])
    with torch.no_grad():
        E = diag.feature_map_(torch.as_tensor(X[rows], dtype=torch.float32)).double().numpy()
    K = np.exp(-diag.gamma * ((E[:, None, :] - E[None, :, :]) ** 2).sum(-1))
    b = len(rows)
    assert d["mean_offdiag_kernel"][-1] == pytest.approx((K.sum() - b) / (b * (b - 1)), rel=1e-5)
    yb = y[rows]
    expected = yb @ K @ yb / (b * np.sqrt((K * K).sum()))
    assert d["alignment"][-1] == pytest.approx(expected, rel=1e-5)
    assert "diagnostics_" in plain.__dict__ and plain.diagnostics_["step"].size == 0


def diag_seed(clf) -> int:
    """The seed a fit draws from its ``random_state`` (as ``_NSVM.fit`` does)."""
    from sklearn.utils import check_random_state

    return check_random_state(clf.random_state).randint(2**31 - 1)


def test_sweep_equals_separate_early_stopped_fits(easy):
    X, y, Xt, yt = easy
    Xv, yv = X[150:], y[150:]
    configs = [EarlyStopping(1, 0.0, interval=50), EarlyStopping(3, 0.0, interval=100)]
    kw = {"network": lambda: ringnorm_mlp(4), "n_steps": 800, "random_state": 3}
    sweep = NSVM1Classifier(**kw, early_stopping=configs).fit(X[:150], y[:150], Xv, yv, Xt, yt)
    # checks happen (the published rule's first one after step 1, the initial coefficient;
    # a loop from step 2 once skipped them all and no configuration ever stopped)
    stops = sweep.early_stopping_.stop_iter
    assert sweep.early_stopping_.stopped_early.all()
    assert [(s - 1) % config.interval for s, config in zip(stops, configs, strict=True)] == [0, 0]
    for c, config in enumerate(configs):
        one = NSVM1Classifier(**kw, early_stopping=config).fit(X[:150], y[:150], Xv, yv)
        assert one.n_steps_ == sweep.early_stopping_.stop_iter[c]
        assert one.stopped_early_ == sweep.early_stopping_.stopped_early[c]
        assert one.score(Xt, yt) == sweep.early_stopping_.test_accuracy[c]


def test_bad_inputs_name_the_fix():
    rng = np.random.default_rng(0)
    images = rng.normal(size=(6, 784))
    y = np.array([0, 1] * 3)
    cnn = NSVM3Classifier(network=mnist_cnn, input_shape=(1, 28, 28), n_steps=2, batch_size=2)
    with pytest.raises(ValueError, match="input_shape=\\(1, 28, 28\\) needs 784"):
        cnn.fit(images[:, :700], y)
    wrong = NSVM3Classifier(network=mnist_cnn, input_shape=(1, 7, 7), n_steps=2, batch_size=2)
    with pytest.raises(ValueError, match="Pass input_shape matching the network"):
        wrong.fit(images[:, :49], y)
    no_flatten = NSVM3Classifier(
        network=lambda: nn.Sequential(*list(mnist_cnn())[:-1]),
        input_shape=(1, 28, 28), n_steps=2, batch_size=2,
    )  # fmt: skip
    with pytest.raises(ValueError, match="End it with torch.nn.Flatten"):
        no_flatten.fit(images, y)
    mlp = {"network": lambda: ringnorm_mlp(4)}
    with pytest.raises(InvalidParameterError, match="'lam' parameter"):
        NSVM1Classifier(**mlp, lam=0.0).fit(images[:, :4], y)
    with pytest.raises(InvalidParameterError, match="'n_steps' parameter"):
        NSVM2Classifier(**mlp, n_steps=0).fit(images[:, :4], y)
    with pytest.raises(ValueError, match="no trainable parameters"):  # hypothesis's find
        NSVM1Classifier(network=nn.Flatten, n_steps=5).fit(images[:, :4], y)
    # hypothesis's find: lam = 1e-300 scales the network's steps to inf, its parameters to NaN
    with pytest.raises(ValueError, match="Training diverged.*raise lam"):
        NSVM1Classifier(
            network=lambda: nn.Linear(4, 3), lam=1e-300, gamma=1e-300, n_steps=20, random_state=0
        ).fit(np.zeros((8, 4)), y[[0, 1] * 4])  # a violation within 20 steps (both classes drawn)
    # hypothesis's finds: float32 overflows (gamma = 1e300 is inf there; |x| = 3.4e38 too)
    with pytest.raises(ValueError, match="overflows float32.*dtype='float64'"):
        NSVM1Classifier(**mlp, gamma=1e300, n_steps=2).fit(images[:, :4], y)
    with pytest.raises(ValueError, match="non-finite features.*scale the features"):
        huge = np.vstack([np.full((1, 4), 3.4e38), images[1:, :4]])
        NSVM1Classifier(network=_Doubling, n_steps=2).fit(huge, y)  # 2 * 3.4e38 is inf


class _Doubling(nn.Module):
    """``F(x) = w x`` with ``w = 2`` at the start: float32's largest values overflow."""

    def __init__(self) -> None:
        super().__init__()
        self.w = nn.Parameter(torch.tensor(2.0))

    def forward(self, x):
        return self.w * x


def test_learning_rate_search_keeps_the_best_smaller_lr_and_skips_diverged_fits(
    monkeypatch, tmp_path
):
    """The note's rule on hand-set tuning accuracies: best wins, ties go to the smaller lr, a
    diverged fit scores NaN and is never chosen; if all diverge, the error names the fix."""
    from esmo.nsvm.estimators import TrainingDiverged
    from esmo.papers.nsvm import experiment

    accuracy = {1e-4: 0.8, 3e-4: 0.9, 1e-3: 0.9, 3e-3: None}  # None: diverges

    class Stub:
        def __init__(self, lr):
            self.lr = lr

        def fit(self, X, y):
            if accuracy[self.lr] is None:
                raise TrainingDiverged("diverged")
            return self

        def score(self, X, y):
            return accuracy[self.lr]

    monkeypatch.setattr(experiment, "classifier", lambda d, a, settings, s, k: Stub(settings["lr"]))
    split = {"X_train": np.zeros((10, 2)), "y_train": np.arange(10) % 2, "tune": np.arange(4)}
    table = experiment.tune_learning_rate(
        "ringnorm", "nsvm1", {}, split, [3e-3, 1e-3, 3e-4, 1e-4], 0, 1
    )
    assert table["lr"].tolist() == [1e-4, 3e-4, 1e-3, 3e-3]
    np.testing.assert_array_equal(table["tune_accuracy"], [0.8, 0.9, 0.9, np.nan])
    assert experiment.chosen_learning_rates(table) == {"nsvm1": 3e-4}
    table.to_csv(tmp_path / "tuning.csv", index=False)  # as the workflow's tuning job writes it
    tuned = experiment.with_tuned_learning_rates(
        {"nsvm1": {"lr": 1.0, "n_steps": 5}}, str(tmp_path / "tuning.csv")
    )
    assert tuned == {"nsvm1": {"lr": 3e-4, "n_steps": 5}}
    with pytest.raises(ValueError, match="every learning rate .* diverged.*smaller values"):
        experiment.tune_learning_rate("ringnorm", "nsvm1", {}, split, [3e-3], 0, 1)


@pytest.mark.parametrize(("patience", "tol"), [(1, 0.0), (2, 0.0), (2, 0.01)])
def test_part1_early_stopping_stops_where_the_rule_stops_on_the_alignments(easy, patience, tol):
    """NSVM-4's Part I stopped on the validation alignment: the stop is the replayed rule's on the
    alignments a run that never stops records; up to it the two runs are the same run."""
    from stopping_rules import replay_stop

    X, y, _, _ = easy
    Xv, yv = X[150:], y[150:]
    kw = dict(network=lambda: ringnorm_mlp(4), n_steps=200, part2_steps=100, batch_size=8)
    kw["random_state"] = 0
    never = NSVM4Classifier(**kw, part1_early_stopping=EarlyStopping(10**9, 0.0, interval=10))
    never.fit(X[:150], y[:150], Xv, yv)
    values = never.part1_alignment_
    assert sorted(values) == list(range(1, 201, 10)) and not never.part1_stopped_early_
    stop = replay_stop(
        values.__getitem__, patience=patience, tol=tol, interval=10, higher=True,
        rule="published", last=200,
    )  # fmt: skip
    es = NSVM4Classifier(**kw, part1_early_stopping=EarlyStopping(patience, tol, interval=10))
    es.fit(X[:150], y[:150], Xv, yv)
    assert stop is not None and es.n_part1_steps_ == stop and es.part1_stopped_early_
    assert es.part1_alignment_ == {t: a for t, a in values.items() if t <= stop}
    with pytest.raises(ValueError, match="part1_early_stopping needs X_val and y_val"):
        NSVM4Classifier(**kw, part1_early_stopping=EarlyStopping(1, 0.0)).fit(X, y)


def test_part1_rows_refuse_a_reference_whose_part1_stopped():
    """The nsvm4_part1 rows compare with NSVM-4 trained to the end; a shorter run is refused."""
    from types import SimpleNamespace

    from esmo.papers.nsvm.experiment import part1_early_stopping

    stopped = SimpleNamespace(n_part1_steps_=2001)
    data = (np.zeros((4, 20)), np.array([-1.0, 1.0] * 2)) * 3
    with pytest.raises(ValueError, match="Part I to the end .2001 steps of 4200"):
        part1_early_stopping(
            "ringnorm", {"n_steps": 4200}, data, [EarlyStopping(1, 0.0)], 0, 1.0, 1.0, stopped
        )


@pytest.fixture
def toy(monkeypatch, easy):
    """A split of the easy problem under the dataset name 'toy' (a 4-input MLP), with settings
    small enough to fit often: NSVM-1, NSVM-4 (Part I 10, Part II 30 steps)."""
    from esmo.papers.nsvm import experiment

    monkeypatch.setitem(experiment.NETWORKS, "toy", (lambda: ringnorm_mlp(4), None))
    X, y, Xt, yt = easy
    split = {"X_train": X, "y_train": y, "X_test": Xt, "y_test": yt, "tune": np.arange(150, 200)}
    settings = {
        "nsvm1": {"n_steps": 30, "lr": 1e-3},
        "nsvm4": {"n_steps": 10, "part2_steps": 30, "batch_size": 8, "lr": 1e-2},
    }
    return split, settings


def _stops_table(rows: list[tuple]) -> pd.DataFrame:
    """Early-stopping rows (method, patience, stop, paper T, Part II stop); Part II's T 30."""
    columns = ["method", "patience", "stop_step", "paper_steps", "part2_stop_step"]
    table = pd.DataFrame(rows, columns=columns).assign(es_tol=0.0)
    return table.assign(part2_paper_steps=np.where(table["method"] == "nsvm4_part1", 30, np.nan))


#: stops sharing fits: (row, its retrain's fit, its paper-T fit) as (algorithm, steps, Part II)
SHARED_STOPS = [
    (("nsvm1", 1, 11, 30, None), ("nsvm1", 11, None), ("nsvm1", 30, None)),
    (("nsvm1", 2, 11, 30, None), ("nsvm1", 11, None), ("nsvm1", 30, None)),
    (("nsvm1", 3, 30, 30, None), ("nsvm1", 30, None), ("nsvm1", 30, None)),
    # NSVM-4 stops Part II, Part I at its T (10); nsvm4_part1 stops both
    (("nsvm4", 1, 11, 30, None), ("nsvm4", 10, 11), ("nsvm4", 10, 30)),
    (("nsvm4_part1", 1, 5, 10, 11), ("nsvm4", 5, 11), ("nsvm4", 10, 30)),
    (("nsvm4_part1", 2, 10, 10, 11), ("nsvm4", 10, 11), ("nsvm4", 10, 30)),
    (("pegasos", 1, 21, 40, None), ("pegasos", 21, None), ("pegasos", 40, None)),
    (("pegasos", 2, 40, 40, None), ("pegasos", 40, None), ("pegasos", 40, None)),
]


def _independent_accuracy(split, method: str, steps: int, part2: int | None) -> float:
    """Test accuracy of the algorithm fitted from scratch on the whole training set."""
    X, y, Xt, yt = (split[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    if method == "pegasos":  # the solver and the decision rule, without the classifier
        ref, _ = run_pegasos(X, y, lam=1e-2, n_steps=steps, gamma=1 / X.shape[1], random_state=7)
        f = pegasos_decision(X, y, ref.alpha, 1e-2, steps, Xt, 1 / X.shape[1], "rbf")
        return float(np.mean(np.where(f >= 0, 1.0, -1.0) == yt))
    mlp = {"network": lambda: ringnorm_mlp(4), "random_state": 7}
    if method == "nsvm1":
        return NSVM1Classifier(**mlp, n_steps=steps, lr=1e-3).fit(X, y).score(Xt, yt)
    clf = NSVM4Classifier(**mlp, n_steps=steps, part2_steps=part2, batch_size=8, lr=1e-2)
    return clf.fit(X, y).score(Xt, yt)


def test_retrain_at_stops_equals_independent_fits_once_per_distinct_stop(monkeypatch, toy):
    """The retrain at a stop is the algorithm fitted for that many steps on the whole training
    set (tuning rows included), bit for bit; rows sharing a fit share one run; same seeds,
    same table."""
    from esmo.papers.nsvm import experiment

    split, settings = toy
    stops = _stops_table([row for row, _, _ in SHARED_STOPS])
    fitted = []
    fit = experiment._fit_accuracy
    monkeypatch.setattr(
        experiment, "_fit_accuracy", lambda key, *a: fitted.append(key) or fit(key, *a)
    )
    table = experiment.retrain_at_stops("toy", settings, split, stops, 7, 1.0, 1e-2)
    distinct = list(dict.fromkeys(k for _, *keys in SHARED_STOPS for k in keys))
    assert fitted == distinct  # each once, in the table's order
    expected = {key: _independent_accuracy(split, *key) for key in distinct}
    assert table["test_accuracy_retrained"].tolist() == [expected[k] for _, k, _ in SHARED_STOPS]
    assert table["test_accuracy_at_paper_steps"].tolist() == [
        expected[k] for _, _, k in SHARED_STOPS
    ]
    assert table["retrain_steps"].tolist() == [  # NSVM-4's count Part II, as nsvm_train's
        steps if part2 is None else part2 for _, (_, steps, part2), _ in SHARED_STOPS
    ]
    assert (table["retrained_from"] == "fit").all()
    again = experiment.retrain_at_stops("toy", settings, split, stops, 7, 1.0, 1e-2)
    pd.testing.assert_frame_equal(again, table)


def test_retrain_reuses_nsvm_train_runs_at_the_papers_t(monkeypatch, toy):
    """nsvm_train's records (whole training set, paper's T, diagnostics on) stand in for the
    fits at the paper's T: the same accuracy as fitting, and no fit; other lr is refused."""
    from esmo.papers.nsvm import experiment

    split, settings = toy
    X, y, Xt, yt = (split[k] for k in ("X_train", "y_train", "X_test", "y_test"))
    records = []
    for method in ("nsvm1", "nsvm4"):  # as rule nsvm_train records them
        clf = experiment.classifier("toy", method, settings[method], 7, 1.0)
        clf.set_params(diagnostic_interval=5)
        records.append({"method": method, **experiment.fit_record(clf, X, y, Xt, yt)})
    runs = pd.DataFrame(records)
    stops = _stops_table([("nsvm1", 1, 30, 30, None), ("nsvm4", 1, 30, 30, None)])
    fitted = experiment.retrain_at_stops("toy", settings, split, stops, 7, 1.0, 1e-2)
    monkeypatch.setattr(experiment, "_fit_accuracy", lambda *a: pytest.fail("fitted again"))
    reused = experiment.retrain_at_stops("toy", settings, split, stops, 7, 1.0, 1e-2, runs)
    assert reused["test_accuracy_retrained"].tolist() == runs["test_accuracy"].tolist()
    assert reused["test_accuracy_retrained"].tolist() == fitted["test_accuracy_retrained"].tolist()
    assert (reused["retrained_from"] == "nsvm_train").all()
    with pytest.raises(ValueError, match="lr=0.5.*pass the nsvm_train runs of this split"):
        experiment.retrain_at_stops(
            "toy", settings, split, stops, 7, 1.0, 1e-2, runs.assign(lr=0.5)
        )


@pytest.mark.parametrize(
    ("row", "match"),
    [
        (("nsvm1", 1, 0, 30, None), "stop_step of nsvm1 .* >= 1, got 0"),
        (("nsvm4_part1", 1, 5, 10, None), "part2_stop_step of nsvm4_part1 .* got (None|nan)"),
        (("nsvm9", 1, 5, 10, None), "unknown method 'nsvm9'"),
    ],
)
def test_retrain_refuses_bad_stops(toy, row, match):
    from esmo.papers.nsvm.experiment import retrain_at_stops

    split, settings = toy
    with pytest.raises(ValueError, match=match):
        retrain_at_stops("toy", settings, split, _stops_table([row]), 7, 1.0, 1e-2)


def test_part1_rows_early_stop_part2_as_a_separate_fit_does(toy):
    """The nsvm4_part1 rows: Part I stopped on the alignment, then Part II stopped by the same
    configuration; each equals NSVM-4 fitted alone with both settings, and the end is the
    tracked run's."""
    from esmo.papers.nsvm.experiment import (
        classifier,
        early_stopping_configs,
        part1_early_stopping,
        tuning_parts,
    )

    split, settings = toy
    settings = {**settings["nsvm4"], "n_steps": 40, "part2_steps": 300}
    X, y, Xv, yv = tuning_parts(split)
    Xt, yt = split["X_test"], split["y_test"]
    configs = early_stopping_configs([1, 10**6], [0.0], 10)
    full = classifier("toy", "nsvm4", settings, 7, 2.0).set_params(early_stopping=configs)
    full.fit(X, y, Xv, yv, Xt, yt)
    rows = part1_early_stopping("toy", settings, (X, y, Xv, yv, Xt, yt), configs, 7, 1.0, 2.0, full)
    assert rows["part2_paper_steps"].eq(300).all() and rows["part2_max_steps"].eq(600).all()
    assert rows["part2_stopped_early"].tolist() == [True, False]  # patience 10^6 never stops
    assert rows["test_accuracy_at_end"].eq(full.score(Xt, yt)).all()
    for row, config in zip(rows.itertuples(), configs, strict=True):
        alone = NSVM4Classifier(
            network=lambda: ringnorm_mlp(4), n_steps=80, part2_steps=600, batch_size=8, lr=1e-2,
            random_state=7, part1_early_stopping=config, early_stopping=config,
        ).fit(X, y, Xv, yv)  # fmt: skip
        assert (row.stop_step, row.part2_stop_step) == (alone.n_part1_steps_, alone.n_steps_)
        assert row.test_accuracy == alone.score(Xt, yt)
        np.testing.assert_array_equal(
            alone.decision_function(Xt), NSVM4Classifier(
                network=lambda: ringnorm_mlp(4), n_steps=alone.n_part1_steps_,
                part2_steps=alone.n_steps_, batch_size=8, lr=1e-2, random_state=7,
            ).fit(X, y).decision_function(Xt),
        )  # fmt: skip
    # the never-stopping configuration is the tracked run
    assert rows["test_accuracy"].iloc[1] == rows["test_accuracy_at_end"].iloc[1]


def test_early_stopping_table_sets_the_retrain_beside_the_stop():
    """Per configuration: the retrain's accuracy and the paper-T one (%, means over seeds) beside
    the stop's; nsvm4_part1's steps saved count both parts; a missing retrain row is refused."""
    from esmo.papers.nsvm.analysis import early_stopping_table

    keys = {"dataset": "toy", "patience": 1, "es_tol": 0.0}
    outcomes = pd.DataFrame(
        {
            "method": ["nsvm1", "nsvm1", "nsvm4_part1"], "seed": [0, 1, 0],
            "stop_step": [10, 20, 5], "paper_steps": [30, 30, 10], "max_steps": 30,
            "part2_stop_step": [np.nan, np.nan, 15], "part2_paper_steps": [np.nan, np.nan, 30],
            "stopped_early": True, "val_accuracy": 0.5, "test_accuracy": [0.8, 0.9, 0.7],
            "test_accuracy_at_end": 0.6, "seconds_at_stop": 1.0, "seconds_at_end": 2.0,
        }
    ).assign(**keys)  # fmt: skip
    retrain = outcomes[["method", "seed"]].assign(
        **keys, test_accuracy_retrained=[0.5, 0.7, 0.25], test_accuracy_at_paper_steps=0.75
    )
    table = early_stopping_table(outcomes, retrain.iloc[::-1]).set_index("method")
    np.testing.assert_allclose(table["test_accuracy"], [85.0, 70.0])
    np.testing.assert_allclose(table["test_accuracy_retrained"], [60.0, 25.0])
    np.testing.assert_allclose(table["test_accuracy_at_paper_steps"], [75.0, 75.0])
    np.testing.assert_allclose(table["steps_saved"], [0.5, 0.5])
    assert table.loc["nsvm4_part1", "total_steps_saved"] == 0.5  # 1 - (5 + 15) / (10 + 30)
    assert np.isnan(table.loc["nsvm1", "total_steps_saved"])
    with pytest.raises(ValueError, match="retrain lacks rows.*rerun rule nsvm_retrain"):
        early_stopping_table(outcomes, retrain.iloc[1:])


@pytest.mark.parametrize(
    "cls", [NSVM1Classifier, NSVM2Classifier, NSVM3Classifier, NSVM4Classifier]
)
@pytest.mark.parametrize("scale", [1e20, 1e30])
def test_no_algorithm_returns_nan_decision_values(cls, scale):
    """Features scaled by 1e20 (1e30) with normalize=None: NSVM-1/2 fitted without a word and
    returned NaN decision values for 15 (80) of 80 rows, which predict mapped to one class
    (issue 35, item 4). Every algorithm now refuses the fit and names the cause."""
    X, y = make_classification(80, n_features=20, random_state=0)
    extra = {"part2_steps": 50} if cls is NSVM4Classifier else {}
    clf = cls(network=lambda: ringnorm_mlp(20), normalize=None, n_steps=50, random_state=0)
    with pytest.raises(ValueError, match="scale the features|Training diverged"):
        clf.set_params(**extra).fit(X * scale, y)


def test_a_diverging_learning_rate_is_named_not_the_inputs():
    """lr = 1e8 blew the parameters up to ~1e12 on inputs within 4.4: the old message blamed
    the input scaling ('largest |X| = 4.43; scale the features')."""
    X, y = make_classification(80, n_features=20, random_state=0)
    clf = NSVM1Classifier(network=lambda: ringnorm_mlp(20), lr=1e8, n_steps=50, random_state=0)
    with pytest.raises(TrainingDiverged, match=r"parameters grew to .*lower lr") as info:
        clf.fit(X, y)
    assert "scale the features" not in str(info.value)


def test_rows_whose_decision_values_overflow_are_refused_at_predict():
    """A model fitted on scaled rows meets unscaled ones: a clear error, never a NaN."""
    X, y = make_classification(80, n_features=20, random_state=0)
    clf = NSVM1Classifier(
        network=lambda: ringnorm_mlp(20), normalize=None, n_steps=50, random_state=0
    ).fit(X, y)
    assert np.isfinite(clf.decision_function(X)).all()
    with pytest.raises(ValueError, match=r"decision values of \d+ of 80 rows are not finite"):
        clf.predict(X * 1e38)  # some rows exceed float32: inf features, NaN kernel sums


def _linear_features():
    """A picklable network (a module-level function: the checks pickle the estimator)."""
    return nn.LazyLinear(3)


@pytest.mark.parametrize(
    "estimator",
    [
        NSVM1Classifier(network=_linear_features, n_steps=20, random_state=0, dtype="float64"),
        NSVM2Classifier(network=_linear_features, n_steps=20, random_state=0, dtype="float64"),
        NSVM3Classifier(
            network=_linear_features, n_steps=20, batch_size=4, random_state=0, dtype="float64"
        ),
        NSVM4Classifier(
            network=_linear_features,
            n_steps=20,
            part2_steps=20,
            batch_size=4,
            random_state=0,
            dtype="float64",
        ),
    ],
    ids=["nsvm1", "nsvm2", "nsvm3", "nsvm4"],
)
def test_nsvms_pass_scikit_learns_checks(estimator):
    """All 56 checks, none expected to fail, in float64. (In float32, the default, the
    subset-invariance check's rtol of 1e-7 is below float32's resolution: a network's
    batched products round differently for a subset of the rows.)"""
    from sklearn.utils.estimator_checks import check_estimator

    results = check_estimator(estimator, on_fail=None)
    assert [r["check_name"] for r in results if r["status"] == "failed"] == []
