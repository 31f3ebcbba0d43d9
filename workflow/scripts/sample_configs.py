"""Sample one configuration table (SVM per kernel, or early stopping) into a CSV."""

import logging

from esmo.sampling import sample_es_configs, sample_svm_configs

logging.basicConfig(
    filename=snakemake.log[0], level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s"
)
try:
    params = snakemake.params
    if "kernel" in snakemake.wildcards.keys():
        table = sample_svm_configs(snakemake.wildcards.kernel, params.n, params.seed, params.space)
    else:
        table = sample_es_configs(
            params.n, params.seed, params.space, with_interval=params.with_interval
        )
    table.to_csv(snakemake.output[0], index=False)
    logging.info("sampled %d configurations into %s", len(table), snakemake.output[0])
except Exception:
    logging.exception("sampling failed")
    raise
