"""The budget benchmark: every tuning method on one protocol, by test accuracy against CPU seconds.

Code: esmo.benchmark (the draw, the method registry, one job's anytime
records, the config checks, the analysis); protocol: docs/benchmark-protocol.md;
scripts in workflow/scripts/benchmark/; config in the section ``benchmark``.
Target ``benchmark``: every (dataset, seed, method) run, the records table and
the analysis (anytime curves, ranks, Friedman and the CD diagram, the claims,
the report's first page).
"""


include: "common.smk"
include: "data.smk"
include: "runs.smk"
include: "analysis.smk"


rule benchmark:
    """Every run's anytime records (results/benchmark/records.csv) and what the analysis makes of them."""
    input:
        benchmark_products(),
