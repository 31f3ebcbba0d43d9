"""E4: scores of the (p, es_tol, r) sweep on E1's datasets and the selection of j_r."""

import logging

import pandas as pd

from esmo.scoring import scores_against_reference, select_configurations

logging.basicConfig(
    filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
)
try:
    p = snakemake.params
    outcome = pd.concat((pd.read_csv(path) for path in snakemake.input.outcomes), ignore_index=True)
    outcome.to_csv(snakemake.output.outcome, index=False)
    scores = scores_against_reference(outcome, [p.beta])
    scores.to_csv(snakemake.output.scores, index=False)
    selection = select_configurations(
        scores,
        {"r": p.datasets},
        p.beta,
        "rbf",
        "accuracy",
        es_table=pd.read_csv(snakemake.input.es),
    )
    selection.to_csv(snakemake.output.selection, index=False)
    logging.info("j_r: %s", selection.to_dict("records"))
except Exception:
    logging.exception("E4 selection failed")
    raise
