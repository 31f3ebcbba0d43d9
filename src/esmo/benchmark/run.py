"""One benchmark job, (dataset, seed, method), and its anytime records (docs/benchmark-protocol.md sec 4).

The method runs on the training part of the draw (:mod:`esmo.benchmark.data`)
and returns its trace (:mod:`esmo.benchmark.methods`). Each time its
incumbent changes the benchmark records the cost so far and the test
accuracy of that incumbent refitted on the whole training part (one refit per
(C, gamma), cached; not charged to the method). The last record is the
handed-back model at its full cost, the final refit included. A method whose
library is missing, or that gives up on a draw (scikit-learn's halving when
every fit of a round fails), leaves no record and says why in the job's log.

Before the timed run, a method that runs numba code is run once on a few
training rows (uncharged), so that loading or compiling its code is not
charged to its first fit (the thesis's timed experiments do the same).
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import accuracy_score

from esmo.benchmark.data import Split, load_split
from esmo.benchmark.methods import (
    MethodFailed,
    MethodResult,
    MethodUnavailable,
    SearchSpace,
    get_method,
)
from esmo.benchmark.trace import RECORD_COLUMNS
from esmo.tuning.halving import stratified_rows

#: Rows of each class the warm-up run trains on.
WARM_UP_PER_CLASS = 25


def anytime_records(
    result: MethodResult, split: Split, dataset: str, seed: int, method: str
) -> pd.DataFrame:
    """The records of one run: each incumbent change of ``result.trace``, then the final model."""
    trace = result.trace
    rows = []
    if result.incumbent_model is not None:
        trace = trace.dropna(subset=["C", "gamma"])  # no incumbent yet (e.g. pruned trials)
        params = trace[["C", "gamma"]].to_numpy(float)
        changed = np.r_[True, np.any(params[1:] != params[:-1], axis=1)]
        cache: dict[tuple[float, float], float] = {}
        for _, row in trace[changed].iterrows():
            key = (float(row["C"]), float(row["gamma"]))
            if key not in cache:
                model = result.incumbent_model(*key).fit(split.X_train, split.y_train)
                cache[key] = float(accuracy_score(split.y_test, model.predict(split.X_test)))
            rows.append({**row.to_dict(), "test_accuracy": cache[key], "final": False})
    accuracy = float(accuracy_score(split.y_test, result.model.predict(split.X_test)))
    rows.append({**result.final, "test_accuracy": accuracy, "final": True})
    records = pd.DataFrame(rows)
    records["step"] = np.arange(len(records))
    records["n_evaluations"] = records["n_evaluations"].astype(int)
    records["dataset"], records["seed"], records["method"] = dataset, int(seed), method
    return records[RECORD_COLUMNS]


def no_records() -> pd.DataFrame:
    """The table of a run that made none (a method skipped for want of its library)."""
    return pd.DataFrame(columns=RECORD_COLUMNS)


def warm_up(method: str, settings: Mapping[str, Any], split: Split, seed: int) -> None:
    """Run ``method`` once on a few rows of each class and at most 4 candidates, so that its
    numba code is loaded."""
    spec = get_method(method)
    if not spec.compiled:
        return
    rows = stratified_rows(
        split.y_train, min(split.y_train.size, 2 * WARM_UP_PER_CLASS),
        np.random.default_rng(seed), min_per_class=WARM_UP_PER_CLASS, draw="rounded",
    )  # fmt: skip
    budget = {**settings["budget"], **{k: min(settings["budget"][k], 4) for k in spec.counts}}
    try:
        spec.adapter(budget, space_of(settings), split.X_train[rows], split.y_train[rows], seed)
    except Exception as exc:  # the warm-up only loads code; the timed run reports its errors
        logging.info("warm-up run of %s ended early (%s); continuing", method, exc)


def space_of(settings: Mapping[str, Any]) -> SearchSpace:
    """Sec 2's box and (for the methods on the grid) the grid step of a job's settings."""
    return SearchSpace.from_config(
        settings["space"], settings.get("grid_step", SearchSpace.grid_step)
    )


def run_method(
    split: Split, dataset: str, seed: int, method: str, settings: Mapping[str, Any]
) -> pd.DataFrame:
    """One job's records: ``method`` tuned on ``split``'s training part, scored on its test part.

    ``settings`` holds ``budget`` (the method's budget and the shared keys it
    reads), ``space`` (sec 2's box: ``log2_C``, ``log2_gamma``) and, for a
    method on the grid, ``grid_step``.
    """
    spec = get_method(method)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted in n_iter, not an error
        try:
            warm_up(method, settings, split, seed)
            start = time.process_time()
            result = spec.adapter(
                settings["budget"], space_of(settings), split.X_train, split.y_train, seed
            )
            whole = time.process_time() - start
        except MethodUnavailable as exc:
            logging.warning("%s skipped, no record: %s", method, exc)
            return no_records()
        except MethodFailed as exc:
            logging.warning("%s failed on this draw, no record: %s", method, exc)
            return no_records()
    for note in result.notes:
        logging.info("note: %s", note)
    # one rule for every method (protocol sec 3): the handed-back model costs the whole call,
    # the search's own bookkeeping between evaluations included (a user pays for it too);
    # the records before it cost the evaluations' fits and scoring, which the call bounds
    evaluations = result.final["cpu_seconds"]
    result.final["cpu_seconds"] = whole
    logging.info(
        "%s: %.3f CPU s charged (the whole call); its evaluations and refit took %.3f CPU s, "
        "%.3f s went to the search's bookkeeping", method, whole, evaluations, whole - evaluations,
    )  # fmt: skip
    return anytime_records(result, split, dataset, seed, method)


def run_job(
    split_path: str | os.PathLike[str],
    dataset: str,
    seed: int,
    method: str,
    settings: Mapping[str, Any],
) -> pd.DataFrame:
    """:func:`run_method` on the split saved at ``split_path``."""
    return run_method(load_split(split_path), dataset, int(seed), method, settings)


def collect_records(paths: Sequence[str | os.PathLike[str]]) -> pd.DataFrame:
    """Every job's records in one table, sorted (the order the jobs ran in does not matter)."""
    tables = [table for table in map(pd.read_csv, paths) if not table.empty]
    if not tables:
        return no_records()
    records = pd.concat(tables, ignore_index=True)[RECORD_COLUMNS]
    return records.sort_values(["dataset", "seed", "method", "step"], kind="stable").reset_index(
        drop=True
    )
