"""Shared data stage: LIBSVM downloads, their preparation and the summary of every dataset."""

from esmo.data.libsvm import source_location as libsvm_location


wildcard_constraints:
    libsvm="|".join(re.escape(name) for name in LIBSVM_REGISTRY),


localrules:
    download_libsvm,


rule download_libsvm:
    """Fetch one LIBSVM file (official URL or mirror) and verify it by content."""
    input:
        # a local mirror's file: checked before any job runs
        mirror_input(
            "datasets.mirror",
            lambda mirror, wc: [libsvm_location(wc.libsvm, mirror=mirror)],
        ),
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
        registry="libsvm",
        mirror_key="datasets.mirror",
        mirror_example='datasets={"mirror": "../shared/datasets/libsvm"}',
    script:
        "../scripts/download.py"


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


rule data_summary:
    """One table of the metadata of every dataset any paper prepared, for the report."""
    input:
        data_summary_inputs,
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
