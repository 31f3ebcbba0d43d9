"""Hypothesis strategies of malformed input, and the two verdicts an entry point must meet.

Every example knows whether it is well-formed: data drawn by :func:`binary_data`
with moderate parameters (:func:`moderate`) must fit, to finite outputs, with no
error at all (:func:`fits_finitely`); anything else must end in a documented
error whose message names what is wrong, or in finite outputs
(:func:`clear_error_or_finite`): never a hang, a crash of the interpreter, an
unexplained exception type or a silent NaN. The first verdict is what makes the
second able to fail: a fit that always raised passed a single lenient oracle.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning

# the errors a malformed input may raise; each must carry a message
CLEAR_ERRORS = (ValueError, TypeError)
#: Words by which a message names the data as what is wrong (scikit-learn's own checks speak
#: of samples, features and classes rather than of X and y).
DATA_WORDS = ("X", "y", "X_val", "y_val", "sample", "samples", "feature", "features", "class",
              "classes", "label", "labels", "rows", "array", "dtype", "values")  # fmt: skip
FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)
EXTREME = st.one_of(
    st.sampled_from([0.0, -1.0, 1e-300, 1e-12, 1e12, 1e300, np.inf, -np.inf, np.nan]),
    st.floats(min_value=1e-6, max_value=1e6),
)
# valid but extreme positive parameters, and moderate ones (where a fit is promised), each
# drawn as often as EXTREME's invalid ones, so most examples get past the parameter checks
# and into a fit, and many into a fit that must succeed
POSITIVE = st.one_of(
    st.sampled_from([1e-300, 1e-12, 1e12, 1e300]), st.floats(min_value=1e-6, max_value=1e6)
)
MODERATE = st.floats(min_value=1e-3, max_value=1e3)
PARAMETER = st.one_of(MODERATE, POSITIVE, EXTREME)


@st.composite
def training_data(draw):
    """X of any shape up to 12 x 3, y of 0 to 3 classes; half the time X holds any float
    (NaN, inf, huge, tiny), else finite values only, so fits run on the extreme parameters.
    ``(X, y, False)``: possibly malformed."""
    n = draw(st.integers(0, 12))
    d = draw(st.integers(0, 3))
    finite = st.floats(-2, 2)
    X = draw(arrays(np.float64, (n, d), elements=draw(st.sampled_from([FLOATS | finite, finite]))))
    y = draw(arrays(np.int64, (n,), elements=st.integers(0, draw(st.integers(0, 2)))))
    if draw(st.booleans()):
        with np.errstate(invalid="ignore", over="ignore"):  # NaN or inf cast to int
            X = X.astype(draw(st.sampled_from([object, np.float32, np.int64, str])))
    return X, y, False


@st.composite
def binary_data(draw):
    """Well-formed data: 8-16 finite rows, 1-3 features, both classes at least four times
    (so even 2-fold splits and halved shares hold both), and every feature spread over
    [0, 1] in a drawn order on top of the drawn values, so no feature is constant or nearly
    so in any fold (constant features are malformed input: :func:`training_data` draws
    them). ``(X, y, True)``."""
    n = draw(st.integers(8, 16))
    d = draw(st.integers(1, 3))
    X = draw(arrays(np.float64, (n, d), elements=st.floats(-2, 2)))
    for j in range(d):
        X[:, j] += np.linspace(0.0, 1.0, n)[draw(st.permutations(range(n)))]
    y = np.arange(n) % 2
    return X, np.array(draw(st.permutations(y)), dtype=np.int64), True


#: Any input: malformed or well-formed, in equal measure.
ANY_DATA = st.one_of(training_data(), binary_data())


#: The range in which a positive parameter is moderate: a fit there is promised.
MODERATE_RANGE = (1e-3, 1e3)


def moderate(*values: float) -> bool:
    """True when every value is a finite number inside :data:`MODERATE_RANGE`."""
    low, high = MODERATE_RANGE
    return all(
        isinstance(v, int | float | np.floating) and not isinstance(v, bool) and low <= v <= high
        for v in values
    )


def _quietly(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # casting NaN in str/int conversions
        return fit()


def fits_finitely(fit):
    """Well-formed data and moderate parameters: ``fit`` must return finite values, no error."""
    values = _quietly(fit)
    assert np.all(np.isfinite(values)), values


def clear_error_or_finite(fit, names: tuple[str, ...] = ()):
    """Run ``fit``; pass if it raises a documented error whose message names one of ``names``
    (a parameter, ``X`` or ``y``; any message when ``names`` is empty), or returns finite values."""
    try:
        values = _quietly(fit)
    except CLEAR_ERRORS as exc:
        message = str(exc)
        assert message.strip(), f"{type(exc).__name__} without a message"
        if names:
            assert any(re.search(rf"\b{re.escape(n)}\b", message) for n in names), message
        return
    assert np.all(np.isfinite(values)), values


def verdict(fit, well_formed: bool, names: tuple[str, ...] = ()):
    """The verdict for one example: :func:`fits_finitely` when it is well-formed, else
    :func:`clear_error_or_finite`."""
    if well_formed:
        fits_finitely(fit)
    else:
        clear_error_or_finite(fit, names)


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
