"""The budget benchmark: every tuning method on one protocol, by test accuracy against CPU seconds.

Code: esmo.benchmark (the draw, the method registry, one job's anytime
records, the config checks); protocol: docs/benchmark-protocol.md; scripts in
workflow/scripts/benchmark/; config in the section ``benchmark``. Target
``benchmark``: every (dataset, seed, method) run and the records table.
"""


include: "common.smk"
include: "data.smk"
include: "runs.smk"


# The analysis (docs/benchmark-protocol.md sec 6: anytime curves, ranks, Friedman/CD, the
# claims, the report pages) is included here, as analysis.smk, once it exists.


rule benchmark:
    """Every run's anytime records (results/benchmark/records.csv) and what the analysis makes of them."""
    input:
        benchmark_products(),
