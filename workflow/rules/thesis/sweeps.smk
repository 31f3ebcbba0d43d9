"""Training jobs: each SVM configuration trained once, every ES configuration tracked.

One job is one (ES table, dataset, kernel, run, chunk of SVM configurations);
``sweeps.chunk_size`` sets how finely a cluster fans out. The tables are then
reduced to the random-search outcome of the reference and of every ES
configuration (protocol sections 5 and 6).
"""


wildcard_constraints:
    es_table="es|es_interval",
    fold="[0-9]+",
    chunk="[0-9]+",


rule sweep:
    """Train a chunk of SVM configurations on one run, tracking every ES configuration."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        svm="results/configs/svm_{kernel}.csv",
        es="results/configs/{es_table}.csv",
    output:
        "results/sweeps/{es_table}/{dataset}/{kernel}/fold{fold}_chunk{chunk}.csv",
    log:
        "logs/sweeps/{es_table}/{dataset}/{kernel}/fold{fold}_chunk{chunk}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=lambda wildcards: int(2000 + 2 * config["solver"]["cache_size_mb"]),
        runtime=240,
    params:
        chunk_size=THESIS["sweeps"]["chunk_size"],
        metrics=sweep_metrics,
        max_iter=config["solver"]["max_iter"],
        cache_size_mb=config["solver"]["cache_size_mb"],
        normalise=config["datasets"]["normalise"],
        rule=THESIS["early_stopping_rule"],
    script:
        "../../scripts/thesis/sweep.py"


rule random_search:
    """Random-search outcome per run and over runs, for the reference and each ES configuration."""
    input:
        sweep_chunks,
    output:
        per_fold="results/sweeps/{es_table}/{dataset}/{kernel}/per_fold.csv",
        outcome="results/sweeps/{es_table}/{dataset}/{kernel}/outcome.csv",
    log:
        "logs/sweeps/{es_table}/{dataset}/{kernel}/random_search.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=30,
    script:
        "../../scripts/thesis/random_search.py"
