"""E1 and appendix B: one-sided Wilcoxon signed-rank tests against the reference, Holm-corrected."""

import logging

import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.thesis.significance import wilcoxon_holm

with job_log(snakemake.log[0], "E1 Wilcoxon/Holm"):
    p = snakemake.params
    tests = wilcoxon_holm(pd.read_csv(snakemake.input[0]), p.beta, p.alpha)
    tests.to_csv(snakemake.output[0], index=False)
    logging.info(
        "Wilcoxon/Holm at beta=%s: %d of %d tests reject H0",
        p.beta,
        int(tests["reject"].sum()),
        len(tests),
    )
