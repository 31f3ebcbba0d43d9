"""The UCI files (archive or mirror, verified by content) and their parsed tables."""

from esmo.data.uci import source_location as uci_location


wildcard_constraints:
    uci_file="|".join(re.escape(name) for name in UCI_FILES),
    uci="|".join(UCI_REGISTRY),


localrules:
    ensembles_download_uci,


rule ensembles_download_uci:
    """Fetch one UCI file (bank-full.csv out of bank.zip) and verify its rows and class counts."""
    input:
        # a local mirror's file: checked before any job runs
        mirror_input(
            "ensembles.uci.mirror",
            lambda mirror, wc: [uci_location(wc.uci_file, mirror=mirror)],
        ),
    output:
        "resources/uci/{uci_file}",
    log:
        "logs/ensembles/download/{uci_file}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=30,
    params:
        mirror=ENSEMBLES["uci"]["mirror"],
        base_url=ENSEMBLES["uci"]["base_url"],
        retries=ENSEMBLES["uci"]["retries"],
        timeout_s=ENSEMBLES["uci"]["timeout_s"],
        registry="uci",
        mirror_key="ensembles.uci.mirror",
        mirror_example='ensembles={"uci": {"mirror": "../shared/datasets/uci"}}',
    script:
        "../../scripts/download.py"


rule ensembles_prepare_uci:
    """Parse and pool a UCI dataset's files: numeric and categorical columns, labels in {-1, +1}."""
    input:
        ensembles_uci_inputs,
    output:
        npz="results/ensembles/data/{uci}.npz",
        meta="results/ensembles/data/{uci}.json",
    log:
        "logs/ensembles/data/{uci}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/ensembles/prepare_uci.py"
