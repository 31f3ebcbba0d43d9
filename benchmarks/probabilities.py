"""Platt probabilities: esmo's (sigmoid through the origin) against SVC's, on the thesis's data.

For each of the thesis's eight LIBSVM datasets (min-max scaled, one stratified
60/40 split, RBF with C = 1 and gamma = 'scale'), both libraries fit
``probability=True`` on the training part. Printed per dataset: the test log-loss
of each, and on how many test points each one's most probable class differs
from its own ``predict`` (esmo's: zero by construction; SVC's: scikit-learn
#13211). The log-loss ratio is the price of the intercept esmo leaves out.

Usage: ``python benchmarks/probabilities.py [--mirror DIR] [--datasets a b ...]``
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import log_loss
from sklearn.model_selection import train_test_split
from sklearn.svm import SVC

from esmo import SMOClassifier
from esmo.data.libsvm import THESIS_DATASETS, load, minmax_normalise


def compare(X: np.ndarray, y: np.ndarray, seed: int = 0) -> dict[str, float]:
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.4, stratify=y, random_state=seed)
    ours = SMOClassifier(probability=True, random_state=seed).fit(X_tr, y_tr)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecated in scikit-learn 1.9
        svc = SVC(probability=True, random_state=seed).fit(X_tr, y_tr)
    row = {}
    for name, model in (("esmo", ours), ("svc", svc)):
        P = model.predict_proba(X_te)
        row[f"{name}_log_loss"] = log_loss(y_te, P, labels=model.classes_)
        row[f"{name}_disagree"] = int(np.sum(model.classes_[P.argmax(1)] != model.predict(X_te)))
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=Path("../shared/datasets/libsvm"))
    parser.add_argument("--datasets", nargs="+", default=list(THESIS_DATASETS))
    args = parser.parse_args(argv)
    print(f"{'dataset':14} {'esmo log-loss':>13} {'SVC log-loss':>12} {'ratio':>6} "
          f"{'esmo argmax != predict':>22} {'SVC argmax != predict':>21}")  # fmt: skip
    ratios = []
    for name in args.datasets:
        X, y = load(args.mirror / name, name)
        row = compare(minmax_normalise(X), y)
        ratio = row["esmo_log_loss"] / row["svc_log_loss"]
        ratios.append(ratio)
        print(f"{name:14} {row['esmo_log_loss']:13.4f} {row['svc_log_loss']:12.4f} {ratio:6.3f} "
              f"{row['esmo_disagree']:22d} {row['svc_disagree']:21d}")  # fmt: skip
    print(f"mean log-loss ratio (esmo / SVC): {np.mean(ratios):.3f}")


if __name__ == "__main__":
    main()
