"""Hypothesis strategies of malformed input, and the one verdict every entry point must meet.

A malformed input must end in a documented error with a message
(:data:`CLEAR_ERRORS`), or in finite outputs: never a hang, a crash of the
interpreter, an unexplained exception type or a silent NaN.
"""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.exceptions import ConvergenceWarning

# the errors a malformed input may raise; each must carry a message
CLEAR_ERRORS = (ValueError, TypeError)
FLOATS = st.floats(allow_nan=True, allow_infinity=True, width=64)
EXTREME = st.one_of(
    st.sampled_from([0.0, -1.0, 1e-300, 1e-12, 1e12, 1e300, np.inf, -np.inf, np.nan]),
    st.floats(min_value=1e-6, max_value=1e6),
)
# valid but extreme positive parameters, drawn twice as often as EXTREME's invalid ones, so
# most examples get past the parameter checks and into a fit
POSITIVE = st.one_of(
    st.sampled_from([1e-300, 1e-12, 1e12, 1e300]), st.floats(min_value=1e-6, max_value=1e6)
)
PARAMETER = st.one_of(POSITIVE, POSITIVE, EXTREME)


@st.composite
def training_data(draw):
    """X of any shape up to 12 x 3, y of 0 to 3 classes; half the time X holds any float
    (NaN, inf, huge, tiny), else finite values only, so fits run on the extreme parameters."""
    n = draw(st.integers(0, 12))
    d = draw(st.integers(0, 3))
    finite = st.floats(-2, 2)
    X = draw(arrays(np.float64, (n, d), elements=draw(st.sampled_from([FLOATS | finite, finite]))))
    y = draw(arrays(np.int64, (n,), elements=st.integers(0, draw(st.integers(0, 2)))))
    if draw(st.booleans()):
        with np.errstate(invalid="ignore", over="ignore"):  # NaN or inf cast to int
            X = X.astype(draw(st.sampled_from([object, np.float32, np.int64, str])))
    return X, y


@st.composite
def binary_data(draw):
    """Well-formed data for the extreme parameters: 8-16 finite rows, 1-3 features, both
    classes at least four times (so even 2-fold splits and halved shares hold both)."""
    n = draw(st.integers(8, 16))
    X = draw(arrays(np.float64, (n, draw(st.integers(1, 3))), elements=st.floats(-2, 2)))
    y = np.arange(n) % 2
    return X, np.array(draw(st.permutations(y)), dtype=np.int64)


#: Any input: malformed or well-formed, in equal measure.
ANY_DATA = st.one_of(training_data(), binary_data())


def clear_error_or_finite(fit):
    """Run ``fit``; pass if it raises a documented error with a message, or returns finite values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # casting NaN in str/int conversions
        try:
            values = fit()
        except CLEAR_ERRORS as exc:
            assert str(exc).strip(), f"{type(exc).__name__} without a message"
            return
    assert np.all(np.isfinite(values)), values


SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
