"""Training jobs: each SVM configuration trained once, every ES configuration tracked.

One job is one (dataset, kernel, run, chunk of SVM configurations) and tracks
every ES table that dataset and kernel feed: E1's ``es`` and E4's
``es_interval`` share the RBF runs of E1's datasets (``sweep_shared``), so each
of those SVM configurations is solved once, not once per table; elsewhere a job
tracks one table (``sweep``). ``sweeps.chunk_size`` sets how finely a cluster
fans out. The tables are then reduced to the random-search outcome of the
reference and of every ES configuration (protocol sections 5 and 6).
"""


wildcard_constraints:
    es_table="es|es_interval",
    fold="[0-9]+",
    chunk="[0-9]+",


# where a job of each rule could write a table, the shared run writes it
ruleorder: sweep_shared > sweep


rule sweep:
    """Train a chunk of SVM configurations on one run, tracking every ES configuration of one table."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        svm="results/configs/svm_{kernel}.csv",
        es=["results/configs/{es_table}.csv"],
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
        kernel=lambda wildcards: wildcards.kernel,
        chunk_size=THESIS["sweeps"]["chunk_size"],
        metrics=lambda wildcards: [sweep_metrics(wildcards.es_table, wildcards.dataset)],
        max_iter=config["solver"]["max_iter"],
        cache_size_mb=config["solver"]["cache_size_mb"],
        shrinking=config["solver"]["shrinking"],
        normalise=config["datasets"]["normalise"],
        rule=THESIS["early_stopping_rule"],
    script:
        "../../scripts/thesis/sweep.py"


# E1's datasets on RBF: one SMO run per SVM configuration tracks E1's (with appendix
# B's) and E4's configurations and writes both tables, each as ``sweep`` would alone
use rule sweep as sweep_shared with:
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        svm="results/configs/svm_rbf.csv",
        es=[f"results/configs/{table}.csv" for table in SHARED_RBF_TABLES],
    output:
        [
            f"results/sweeps/{table}/{{dataset}}/rbf/fold{{fold}}_chunk{{chunk}}.csv"
            for table in SHARED_RBF_TABLES
        ],
    log:
        "logs/sweeps/shared/{dataset}/rbf/fold{fold}_chunk{chunk}.log",
    wildcard_constraints:
        dataset=shared_rbf_datasets_pattern(),
    params:
        kernel="rbf",
        chunk_size=THESIS["sweeps"]["chunk_size"],
        metrics=lambda wildcards: [
            sweep_metrics(table, wildcards.dataset) for table in SHARED_RBF_TABLES
        ],
        max_iter=config["solver"]["max_iter"],
        cache_size_mb=config["solver"]["cache_size_mb"],
        shrinking=config["solver"]["shrinking"],
        normalise=config["datasets"]["normalise"],
        rule=THESIS["early_stopping_rule"],


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


rule sweep_check:
    """The one-run sweep against separate early-stopped fits, on E1's first dataset, run 0."""
    input:
        data=f"results/data/{THESIS['datasets']['e1'][0]}.npz",
        splits=f"results/splits/{THESIS['datasets']['e1'][0]}.npz",
        svm="results/configs/svm_rbf.csv",
        es="results/configs/es.csv",
        sweep=f"results/sweeps/es/{THESIS['datasets']['e1'][0]}/rbf/fold0_chunk0.csv",
    output:
        report(
            "results/e1/sweep_check.csv",
            caption="../../report/thesis/sweep_check.rst",
            category="E1",
        ),
    log:
        "logs/e1/sweep_check.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=lambda wildcards: int(2000 + 2 * config["solver"]["cache_size_mb"]),
        runtime=60,
    params:
        dataset=THESIS["datasets"]["e1"][0],
        n_svm=THESIS["sweeps"]["check"]["n_svm"],
        n_es=THESIS["sweeps"]["check"]["n_es"],
        chunk_size=THESIS["sweeps"]["chunk_size"],
        max_iter=config["solver"]["max_iter"],
        cache_size_mb=config["solver"]["cache_size_mb"],
        shrinking=config["solver"]["shrinking"],
        normalise=config["datasets"]["normalise"],
        rule=THESIS["early_stopping_rule"],
    script:
        "../../scripts/thesis/sweep_check.py"
