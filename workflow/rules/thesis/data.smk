"""The thesis's data: E2's blobs, the fold splits and the configuration tables (table 3.1)."""


wildcard_constraints:
    d="[0-9]+",
    kernel="|".join(KERNELS),


rule make_blobs:
    """Generate the synthetic Gaussian blobs of E2 in d dimensions."""
    output:
        npz="results/data/blobs-d{d}.npz",
        meta="results/data/blobs-d{d}.json",
    log:
        "logs/data/blobs-d{d}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        normalise=config["datasets"]["normalise"],
        sample_factor=THESIS["synthetic"]["sample_factor"],
        min_samples=THESIS["synthetic"]["min_samples"],
        seed=THESIS["synthetic"]["seed"],
    script:
        "../../scripts/thesis/make_blobs.py"


rule make_splits:
    """Stratified n-fold 60/20/20 fold indices, shared by every downstream job."""
    input:
        "results/data/{dataset}.npz",
    output:
        "results/splits/{dataset}.npz",
    log:
        "logs/splits/{dataset}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        n_folds=THESIS["splits"]["n_folds"],
        seed=THESIS["splits"]["seed"],
    script:
        "../../scripts/thesis/make_splits.py"


rule sample_svm_configs:
    """The SVM configurations of random search (table 3.1), one seed for all datasets."""
    output:
        report(
            "results/configs/svm_{kernel}.csv",
            caption="../../report/thesis/svm_configs.rst",
            category="Configurations",
        ),
    log:
        "logs/configs/svm_{kernel}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        space=lambda wildcards: THESIS["search_space"][wildcards.kernel],
        n=THESIS["sampling"]["n_svm_configs"],
        seed=THESIS["sampling"]["svm_seed"],
    script:
        "../../scripts/thesis/sample_configs.py"


rule sample_es_configs:
    """The early-stopping configurations (patience, es_tol) shared by E1, E2 and app. B."""
    output:
        report(
            "results/configs/es.csv",
            caption="../../report/thesis/es_configs.rst",
            category="Configurations",
        ),
    log:
        "logs/configs/es.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        space=THESIS["search_space"]["early_stopping"],
        n=THESIS["sampling"]["n_es_configs"],
        seed=THESIS["sampling"]["es_seed"],
        with_interval=False,
    script:
        "../../scripts/thesis/sample_configs.py"


rule sample_es_interval_configs:
    """E4's early-stopping configurations with a check interval r."""
    output:
        report(
            "results/configs/es_interval.csv",
            caption="../../report/thesis/es_interval_configs.rst",
            category="Configurations",
        ),
    log:
        "logs/configs/es_interval.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        space=THESIS["search_space"]["early_stopping"],
        n=THESIS["sampling"]["n_es_interval_configs"],
        seed=THESIS["sampling"]["es_interval_seed"],
        with_interval=True,
    script:
        "../../scripts/thesis/sample_configs.py"
