"""Data stage: LIBSVM downloads, synthetic blobs, splits and configuration tables."""


wildcard_constraints:
    libsvm="|".join(re.escape(name) for name in LIBSVM_REGISTRY),
    d="[0-9]+",
    kernel="|".join(KERNELS),


localrules:
    download_libsvm,


rule download_libsvm:
    """Fetch one LIBSVM file (official URL or mirror) and verify it by content."""
    output:
        "resources/libsvm/{libsvm}",
    log:
        "logs/download/{libsvm}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        mirror=config["datasets"]["mirror"],
        base_url=config["datasets"]["base_url"],
        retries=config["datasets"]["retries"],
        timeout_s=config["datasets"]["timeout_s"],
    script:
        "../scripts/download_libsvm.py"


rule prepare_libsvm:
    """Parse, map labels to {-1, +1}, verify and normalise one LIBSVM dataset."""
    input:
        "resources/libsvm/{libsvm}",
    output:
        npz="results/data/{libsvm}.npz",
        meta="results/data/{libsvm}.json",
    log:
        "logs/data/{libsvm}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        normalise=config["datasets"]["normalise"],
    script:
        "../scripts/prepare_dataset.py"


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
        sample_factor=config["synthetic"]["sample_factor"],
        min_samples=config["synthetic"]["min_samples"],
        seed=config["synthetic"]["seed"],
    script:
        "../scripts/make_blobs.py"


rule data_summary:
    """One table of every prepared dataset's metadata, for the report."""
    input:
        expand("results/data/{dataset}.json", dataset=all_datasets()),
    output:
        report(
            "results/data/summary.csv",
            caption="../report/data_summary.rst",
            category="Data",
        ),
    log:
        "logs/data/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../scripts/data_summary.py"


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
        n_folds=config["splits"]["n_folds"],
        seed=config["splits"]["seed"],
    script:
        "../scripts/make_splits.py"


rule sample_svm_configs:
    """The SVM configurations of random search (table 3.1), one seed for all datasets."""
    output:
        report(
            "results/configs/svm_{kernel}.csv",
            caption="../report/svm_configs.rst",
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
        space=lambda wildcards: config["search_space"][wildcards.kernel],
        n=config["sampling"]["n_svm_configs"],
        seed=config["sampling"]["svm_seed"],
    script:
        "../scripts/sample_configs.py"


rule sample_es_configs:
    """The early-stopping configurations (patience, es_tol) shared by E1, E2 and app. B."""
    output:
        report(
            "results/configs/es.csv",
            caption="../report/es_configs.rst",
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
        space=config["search_space"]["early_stopping"],
        n=config["sampling"]["n_es_configs"],
        seed=config["sampling"]["es_seed"],
        with_interval=False,
    script:
        "../scripts/sample_configs.py"


rule sample_es_interval_configs:
    """E4's early-stopping configurations with a check interval r."""
    output:
        report(
            "results/configs/es_interval.csv",
            caption="../report/es_interval_configs.rst",
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
        space=config["search_space"]["early_stopping"],
        n=config["sampling"]["n_es_interval_configs"],
        seed=config["sampling"]["es_interval_seed"],
        with_interval=True,
    script:
        "../scripts/sample_configs.py"
