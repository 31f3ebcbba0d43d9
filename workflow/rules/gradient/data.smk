"""The cluster-only downloads (ijcnn1, SensIT Vehicle) and each dataset pooled, unscaled.

Adult, Splice and w1a come through the shared LIBSVM download rule
(``datasets.mirror``), Bank and Magic04 through the ensembles' UCI download
rule (``ensembles.uci.mirror``); only the bzip2 files below are new.
"""

from esmo.data.libsvm import shape_checked_location


wildcard_constraints:
    shape_checked="|".join(re.escape(name) for name in LIBSVM_SHAPE_CHECKED),
    gradient_dataset="|".join(GRADIENT_DATASETS),


localrules:
    gradient_download_large,


rule gradient_download_large:
    """Fetch one bzip2 LIBSVM file (ijcnn1, SensIT Vehicle); checked by shape and labels only."""
    input:
        # a local mirror's file: checked before any job runs
        mirror_input(
            "gradient.downloads.mirror",
            lambda mirror, wc: [
                shape_checked_location(wc.shape_checked, mirror=mirror)
            ],
        ),
    output:
        "resources/libsvm/{shape_checked}",
    log:
        "logs/gradient/download/{shape_checked}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        mirror=GRADIENT["downloads"]["mirror"],
        base_url=GRADIENT["downloads"]["base_url"],
        retries=GRADIENT["downloads"]["retries"],
        timeout_s=GRADIENT["downloads"]["timeout_s"],
        registry="libsvm",
        fetch="fetch_shape_checked",
        mirror_key="gradient.downloads.mirror",
        mirror_example='gradient={"downloads": {"mirror": "libsvm-bz2"}}',
    script:
        "../../scripts/download.py"


rule gradient_prepare:
    """Pool a dataset's files (one-hot for Bank), verify its shape and positives: X, y unscaled."""
    input:
        gradient_data_inputs,
    output:
        npz="results/gradient/data/{gradient_dataset}.npz",
        meta="results/gradient/data/{gradient_dataset}.json",
    log:
        "logs/gradient/data/{gradient_dataset}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    script:
        "../../scripts/gradient/prepare.py"
