"""Malformed input thrown at every estimator and at every reader of outside data.

Each estimator gets arbitrary small data (NaN, inf, huge, tiny values, wrong
dtypes, 0-3 classes, empty) and extreme parameters; it must raise a clear error
naming a parameter or the data, or return finite decision values
(:func:`malformed.clear_error_or_finite`); on well-formed data with moderate
parameters, inside each estimator's documented domain (:func:`promised`), it
must fit without any error (:func:`malformed.fits_finitely`).
The readers behind the workflow's download and preparation scripts get
truncated and bit-flipped copies of valid files; each must refuse them with an
error naming the file, or parse values that the registry check then refuses.
(``SMOClassifier``, ``solve_smo`` and the sweep are in ``test_reliability.py``.)
"""

from __future__ import annotations

import gzip
import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from malformed import ANY_DATA, DATA_WORDS, EXTREME, PARAMETER, SETTINGS, moderate, verdict
from sklearn.datasets import dump_svmlight_file

from esmo import MDLSearch, SMOClassifier, SVMEnsembleClassifier
from esmo.data import libsvm, mnist, uci
from esmo.ensembles.estimator import share_size_problem
from esmo.estimators.pegasos_classifier import PegasosClassifier
from esmo.hypergradient.search import GradientSearchCV
from esmo.hypergradient.space import LOG2_BOUNDS
from esmo.mdl.description_length import SIGMA2_READINGS

STEPS = st.one_of(st.integers(1, 300), st.sampled_from([-2, 0]))  # hypothesis favours the first


def _pegasos(patience, **params):
    es = {} if patience is None else {"early_stopping": True, "n_iter_no_change": patience}
    return PegasosClassifier(random_state=0, **params, **es)


def _mdl_search(C, gamma, sigma2):
    return MDLSearch(SMOClassifier(max_iter=5000), {"C": [C, 1.0], "gamma": [gamma]}, sigma2=sigma2)


def _nsvm(algorithm: int, **params):
    import torch

    from esmo.nsvm import estimators

    cls = getattr(estimators, f"NSVM{algorithm}Classifier")
    batch = {"batch_size": 4} if algorithm in (3, 4) else {}  # mini-batches fit the small data
    return cls(network=lambda: torch.nn.LazyLinear(3), random_state=0, **batch, **params)


#: each estimator with extreme (valid or not) parameters, unfitted
ESTIMATORS = {
    "pegasos": st.builds(
        _pegasos,
        lam=PARAMETER,
        gamma=PARAMETER,
        n_steps=STEPS,
        kernel=st.sampled_from(["rbf", "linear"]),
        patience=st.one_of(st.none(), st.integers(-2, 5)),
    ),
    "svm_ensemble": st.builds(
        lambda C, gamma, **params: SVMEnsembleClassifier(
            C_grid=[C], gamma_grid=[gamma], max_iter=5000, random_state=0, **params
        ),
        C=PARAMETER,
        gamma=PARAMETER,
        n_subensembles=st.one_of(st.integers(1, 2), st.just(0)),
        train_proportion=st.one_of(st.sampled_from([0.25, 0.5]), EXTREME, st.just(0.51)),
        grid_search=st.sampled_from(["exhaustive", "early_stopped", "halving"]),
    ),
    "mdl_search": st.builds(
        _mdl_search, C=PARAMETER, gamma=PARAMETER, sigma2=st.sampled_from(sorted(SIGMA2_READINGS))
    ),
    "gradient_search": st.builds(
        lambda C, gamma, cv: GradientSearchCV(
            start={"C": C, "gamma": gamma}, cv=cv, max_fun=3, max_iter=5000, random_state=0
        ),
        C=PARAMETER,
        gamma=PARAMETER,
        cv=st.one_of(st.integers(2, 3), st.just(1)),
    ),
    **{
        f"nsvm{k}": st.builds(
            _nsvm,
            st.just(k),
            lam=PARAMETER,
            gamma=PARAMETER,
            n_steps=STEPS.map(lambda t: min(t, 30)),
        )
        for k in (1, 2, 3, 4)
    },
}


def promised(name: str, estimator, X, y) -> bool:
    """Whether the estimator promises a fit here: moderate parameters inside its domain."""
    p = estimator.get_params()
    if name == "pegasos":
        patience = p["n_iter_no_change"] if p["early_stopping"] else 0
        return moderate(p["lam"], p["gamma"]) and p["n_steps"] >= 1 and patience >= 0
    if name == "svm_ensemble":
        return (
            moderate(*p["C_grid"], *p["gamma_grid"])
            and p["n_subensembles"] >= 1
            and 0 < p["train_proportion"] <= 0.5
            and share_size_problem(p["train_proportion"], np.unique(y, return_counts=True)[1])
            is None
        )
    varies = bool(np.all(np.ptp(X, axis=0) >= 1e-3))  # features that vary more than rounding
    if name == "mdl_search":
        # on constant features every decision value is equal: sigma^2 = 0, an infinite
        # description length for every candidate, refused by name; the other sigma^2
        # readings are 0 on separable training data (every residual clipped), refused alike
        grid = p["param_grid"]
        default = p["sigma2"] == "decision_var"
        return moderate(*grid["C"], *grid["gamma"]) and varies and default
    if name == "gradient_search":
        # its box (LOG2_BOUNDS), and features that vary: on constant ones every output is
        # equal, the smoothed error's scale is 0 and the tuner refuses the start point
        inside = all(
            LOG2_BOUNDS[k][0] <= np.log2(v) <= LOG2_BOUNDS[k][1] for k, v in p["start"].items()
        )
        return moderate(*p["start"].values()) and inside and varies and p["cv"] >= 2
    # the NSVMs; NSVM-3 and -4 draw mini-batches of batch_size distinct rows
    return moderate(p["lam"], p["gamma"]) and p["n_steps"] >= 1 and y.size >= p.get("batch_size", 1)


@pytest.mark.parametrize("name", ESTIMATORS)
def test_estimator_malformed_input(name):
    if name.startswith("nsvm"):
        pytest.importorskip("torch")

    @SETTINGS
    @given(data=ANY_DATA, estimator=ESTIMATORS[name])
    def check(data, estimator):
        X, y, well_formed = data
        names = (*estimator.get_params(), *DATA_WORDS)
        fit = lambda: estimator.fit(X, y).decision_function(X)  # noqa: E731
        verdict(fit, well_formed and promised(name, estimator, X, y), names)

    check()


# -- readers of outside data ------------------------------------------------------------------


@st.composite
def damaged(draw, original: bytes) -> bytes:
    """``original`` truncated, with bytes flipped, or both (never unchanged)."""
    data = bytearray(original)
    cut = draw(st.one_of(st.none(), st.integers(0, len(data) - 1)))
    if cut is not None:
        del data[cut:]
    for _ in range(draw(st.integers(0 if cut is not None else 1, 4))):
        if data:
            at = draw(st.integers(0, len(data) - 1))
            data[at] = draw(st.integers(0, 255).filter(lambda b, old=data[at]: b != old))
    return bytes(data)


def _refused_with_the_file_named(read, path):
    """``read()`` raises a ValueError naming ``path`` (or returns what a later check refuses)."""
    try:
        return read()
    except ValueError as exc:
        assert path.name in str(exc), f"the error does not name the file: {exc}"
        return None


def _libsvm_file() -> bytes:
    rng = np.random.default_rng(0)
    spec = libsvm.get_spec("fourclass")
    X = rng.random((30, spec.n_features))
    buffer = io.BytesIO()
    dump_svmlight_file(X, np.repeat([-1, 1], 15), buffer, zero_based=False)
    return buffer.getvalue()


@SETTINGS
@given(data=damaged(_libsvm_file()))
def test_libsvm_reader_refuses_damaged_files(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("libsvm") / "fourclass"
    path.write_bytes(data)
    parsed = _refused_with_the_file_named(lambda: libsvm.load(path, "fourclass"), path)
    if parsed is not None:
        with pytest.raises(libsvm.DatasetVerificationError, match="fetch it again"):
            libsvm.verify(*parsed, "fourclass")  # 30 rows: never the registry's


def _uci_file() -> bytes:
    rows = [[f"{k}.5"] * 10 + ["g" if k % 2 else "h"] for k in range(20)]
    return "\n".join(",".join(row) for row in rows).encode()


@SETTINGS
@given(data=damaged(_uci_file()))
def test_uci_reader_refuses_damaged_files(tmp_path_factory, data):
    spec = uci.get_file("magic04.data")
    path = tmp_path_factory.mktemp("uci") / spec.name
    path.write_bytes(data)
    rows = _refused_with_the_file_named(lambda: uci.read_rows(path, spec), path)
    if rows is not None:
        with pytest.raises(libsvm.DatasetVerificationError, match="fetch it again"):
            uci.verify_rows(rows, spec)  # 20 rows: never the registry's


def _idx_file() -> bytes:
    images = np.arange(3 * 28 * 28, dtype=np.uint8)
    header = (2051).to_bytes(4, "big") + b"".join(k.to_bytes(4, "big") for k in (3, 28, 28))
    return gzip.compress(header + images.tobytes(), mtime=0)


def _subset_file() -> bytes:
    table = np.arange(3 * 785).reshape(3, 785) % 256
    text = "\n".join(",".join(map(str, row)) for row in table)
    return gzip.compress(text.encode(), mtime=0)


@SETTINGS
@given(idx=damaged(_idx_file()), subset=damaged(_subset_file()))
def test_mnist_readers_refuse_damaged_files(tmp_path_factory, idx, subset):
    folder = tmp_path_factory.mktemp("mnist")
    idx_path, subset_path = folder / "images-idx3-ubyte.gz", folder / "subset.csv.gz"
    idx_path.write_bytes(idx)
    subset_path.write_bytes(subset)
    images = _refused_with_the_file_named(lambda: mnist.read_idx(idx_path), idx_path)
    if images is not None:  # a flip inside the pixels: the shape still holds
        assert images.shape == (3, 28, 28)
    parsed = _refused_with_the_file_named(lambda: mnist.read_subset(subset_path), subset_path)
    if parsed is not None:
        assert parsed[0].shape[1] == 784 and parsed[0].shape[0] == parsed[1].shape[0]
