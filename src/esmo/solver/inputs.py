"""Checks of the arrays an SMO run is given: clear errors before any compiled code runs."""

from __future__ import annotations

from typing import Any

import numpy as np

from esmo.solver import sparse

_FLOAT32_MAX = float(np.finfo(np.float32).max)
_FLOAT64_MAX = float(np.finfo(np.float64).max)


def as_labels(y: Any, n: int, name: str) -> np.ndarray:
    """Labels in {-1, +1} as float64, one per row of the matching ``X`` (``n`` rows)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n:
        raise ValueError(
            f"{name} must be a 1-D array with one label per row of the matching X ({n}), "
            f"got shape {y.shape}."
        )
    if not ((y == 1) | (y == -1)).all():
        raise ValueError(
            f"{name} must hold labels in {{-1, +1}}; map your two classes to -1/+1 first "
            "(esmo.SMOClassifier does this for any two labels)."
        )
    return y.astype(np.float64)


def as_features(
    X: Any, name: str, n_features: int | None = None, dense: bool = False, checked: bool = False
) -> Any:
    """A finite, C-contiguous float64 matrix, with ``n_features`` columns when given.

    scipy.sparse CSR or CSC stays sparse, as canonical CSR
    (:func:`esmo.solver.sparse.as_csr`; other formats are refused, naming
    ``.tocsr()``), unless ``dense``: then it is written out. ``checked``: a
    dense ``X`` whose values the caller has found finite already (a path's
    fits, which read kernel rows computed from it) skips that pass, which
    costs as much as a short warm-started fit.
    """
    if sparse.is_sparse(X):
        X = sparse.as_csr(X, name)
        X = X.toarray() if dense else X
    else:
        X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array (n_samples, n_features), got shape {X.shape}."
        )
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(
            f"{name} has {X.shape[1]} features but the training data has {n_features}; "
            "pass arrays with the same columns."
        )
    if not checked and not sparse.is_sparse(X) and not np.isfinite(X).all():
        raise ValueError(f"{name} contains NaN or infinity; impute or drop those values first.")
    return X


def as_sample_weight(sample_weight: Any, n: int) -> np.ndarray:
    """Per-point multipliers of ``C`` (SVC's ``sample_weight`` times the class weight); ones if None."""
    if sample_weight is None:
        return np.ones(n)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim != 1 or w.shape[0] != n:
        raise ValueError(
            f"sample_weight must be 1-D with one weight per training point ({n}), "
            f"got shape {w.shape}."
        )
    bad = ~(np.isfinite(w) & (w > 0))
    if bad.any():
        raise ValueError(
            f"sample_weight must be positive and finite, got {float(w[bad][0])!r} at index "
            f"{int(np.flatnonzero(bad)[0])}; instead of a zero weight, drop the point."
        )
    return w


def as_linear_term(linear_term: Any, n: int) -> np.ndarray:
    """The dual's linear term ``p`` (LIBSVM's ``p``), ``-1`` for every point if None."""
    if linear_term is None:
        return np.full(n, -1.0)
    p = np.asarray(linear_term, dtype=np.float64)
    if p.ndim != 1 or p.shape[0] != n:
        raise ValueError(
            f"linear_term must be 1-D with one value per training point ({n}), got shape {p.shape}."
        )
    if not np.isfinite(p).all():
        raise ValueError("linear_term contains NaN or infinity; pass finite values.")
    return p


def as_problem(X: Any, y: Any, checked: bool = False) -> tuple[Any, np.ndarray]:
    """The training arrays, checked: features (dense, or sparse as CSR), labels of both classes.

    ``checked``: see :func:`as_features`.
    """
    X = as_features(X, "X", checked=checked)
    y = as_labels(y, X.shape[0], "y")
    if y.size == 0 or (y == y[0]).all():
        raise ValueError("y holds a single class; SMO needs both -1 and +1 labels.")
    return X, y


def check_kernel_range(X: np.ndarray, kernel: str, kernel_dtype: type) -> None:
    """Refuse features whose kernel values the kernel rows cannot hold.

    The linear kernel's values reach ``max |x|^2``; float32 rows (LIBSVM's
    ``Qfloat``) overflow above about 3.4e38, and the squared norms themselves
    (both kernels) overflow float64 above about 1.8e308. An overflowed row
    makes the gradient infinite and rho NaN.
    """
    limit = _FLOAT32_MAX if kernel == "linear" and kernel_dtype == np.float32 else _FLOAT64_MAX
    if X.shape[0] * X.shape[1] == 0:
        return
    # |x|^2 <= d max_k x_k^2: below the limit, no norm can reach it (the common case, without
    # the norms' pass and numpy's error-state switch)
    peak = sparse.largest_abs(X)
    if peak * peak * X.shape[1] < limit:
        return
    with np.errstate(over="ignore"):
        norms = sparse.squared_norms(X) if sparse.is_sparse(X) else np.einsum("ij,ij->i", X, X)
        largest = float(np.max(norms, initial=0.0))
    if not largest < limit:
        raise ValueError(
            f"The features' squared norms reach {largest:.3g}, beyond what the {kernel} kernel's "
            f"{np.dtype(kernel_dtype).name if kernel == 'linear' else 'float64'} values can hold "
            f"({limit:.3g}): scale the features (e.g. sklearn's StandardScaler or MinMaxScaler)."
        )


def as_evaluation(
    X_val: Any,
    y_val: Any,
    X_test: Any,
    y_test: Any,
    n_features: int,
    like: Any = None,
    checked: bool = False,
) -> tuple[list[Any], np.ndarray, int]:
    """The validation (then test) blocks, their labels concatenated, and the validation size.

    The blocks take the representation of ``like`` (the training points): CSR
    when it is sparse, dense arrays otherwise. ``checked``: see :func:`as_features`.
    """
    if X_val is None or y_val is None:
        raise ValueError("Early stopping needs validation data: pass X_val and y_val.")
    X_val = _as_block(X_val, "X_val", n_features, like, checked)
    if X_val.shape[0] == 0:
        raise ValueError("X_val is empty; early stopping needs at least one validation point.")
    blocks, labels = [X_val], [as_labels(y_val, X_val.shape[0], "y_val")]
    if (X_test is None) != (y_test is None):
        raise ValueError("X_test was given without y_test (or the reverse); pass both or neither.")
    if X_test is not None:
        X_test = _as_block(X_test, "X_test", n_features, like, checked)
        blocks.append(X_test)
        labels.append(as_labels(y_test, X_test.shape[0], "y_test"))
    return blocks, np.concatenate(labels), X_val.shape[0]


def _as_block(X: Any, name: str, n_features: int, like: Any, checked: bool) -> Any:
    """An evaluation block checked by :func:`as_features`, in the representation of ``like``."""
    if sparse.is_sparse(like) and not sparse.is_sparse(X):
        return sparse.csr_of(as_features(X, name, n_features, checked=checked))
    return as_features(X, name, n_features, dense=not sparse.is_sparse(like), checked=checked)
