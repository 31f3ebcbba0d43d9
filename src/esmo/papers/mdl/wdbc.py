"""WDBC (Breast Cancer Wisconsin, Diagnostic), the MDL paper's dataset, and its 80/20 splits.

scikit-learn ships the UCI file (``wdbc.data``: 569 rows, 30 features), so no
download or mirror is needed. Its target 0 means malignant: the positive class
(+1), the only choice consistent with the paper's Table 2. This is not the
LIBSVM ``breast-cancer`` file, which is the older WBC (683 x 10).
"""

from __future__ import annotations

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

#: rows, features, malignant (+1) and benign (-1) counts of the UCI file.
WDBC_SHAPE = (569, 30)
WDBC_CLASS_COUNTS = {1: 212, -1: 357}

SCALINGS = ("zscore", "none")


def load_wdbc() -> tuple[np.ndarray, np.ndarray]:
    """``X`` (569 x 30, float64) and ``y`` in {-1, +1}, malignant +1; verified by content."""
    data = load_breast_cancer()
    X = np.asarray(data.data, dtype=np.float64)
    y = np.where(data.target == 0, 1, -1).astype(np.int8)
    counts = {label: int(np.sum(y == label)) for label in (1, -1)}
    if X.shape != WDBC_SHAPE or counts != WDBC_CLASS_COUNTS:
        raise ValueError(
            f"scikit-learn's breast-cancer data has shape {X.shape} and class counts {counts}, "
            f"not WDBC's {WDBC_SHAPE} and {WDBC_CLASS_COUNTS}; check the scikit-learn install"
        )
    return X, y


def holdout_split(
    X: np.ndarray, y: np.ndarray, *, seed: int, test_size: float = 0.2, scale: str = "zscore"
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stratified ``train_test_split`` (``random_state=seed``), z-scored on the training rows.

    Returns ``X_train, y_train, X_test, y_test``. The scaler sees only the
    training rows, so nothing of the test rows leaks into the model.
    """
    if scale not in SCALINGS:
        raise ValueError(f"scale must be one of {SCALINGS}, got {scale!r}")
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=seed
    )
    if scale == "zscore":
        scaler = StandardScaler().fit(X_tr)
        X_tr, X_te = scaler.transform(X_tr), scaler.transform(X_te)
    return X_tr, y_tr, X_te, y_te
