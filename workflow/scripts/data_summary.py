"""Collect every prepared dataset's metadata into one table for the report."""

import json
import logging

import pandas as pd

from esmo.papers.common.job_log import job_log

with job_log(snakemake.log[0], "summarising the datasets"):
    rows = []
    for path in snakemake.input:
        with open(path) as f:
            meta = json.load(f)
        rows.append(
            {
                "dataset": meta["name"],
                "source": meta["source"],
                "n_samples": meta["n_samples"],
                "n_features": meta["n_features"],
                "n_neg": meta["class_counts"]["-1"],
                "n_pos": meta["class_counts"]["+1"],
                "normalise": meta["normalise"],
                "raw_digest": meta["raw_digest"],
            }
        )
    pd.DataFrame(rows).to_csv(snakemake.output[0], index=False)
    logging.info("summarised %d datasets", len(rows))
