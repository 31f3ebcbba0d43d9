"""E3 (j_high) and E4's rerun (j_r): random search and successive halving, wall-clock timed.

Timed jobs ask for every core of the machine (``threads: workflow.cores``),
so a local run never times them beside another job; on a cluster each gets a
node share of its own.
"""


wildcard_constraints:
    hpo="e3|e4",


rule hpo_methods:
    """RS, RS+ES, SH and SH+ES (and the ES ones under the thesis's cost model) on one run, timed."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        svm="results/configs/svm_rbf.csv",
        selection=hpo_selection,
    output:
        "results/{hpo}/runs/{dataset}/fold{fold}.csv",
    log:
        "logs/{hpo}/runs/{dataset}/fold{fold}.log",
    conda:
        ENV_ESMO
    threads: workflow.cores
    resources:
        mem_mb=4000,
        runtime=240,
    params:
        group=lambda wildcards: {"e3": "high", "e4": "r"}[wildcards.hpo],
        n_configs=THESIS["hpo"]["n_configs"],
        seed=THESIS["hpo"]["seed"],
        methods=THESIS["hpo"]["methods"],
        rule=THESIS["early_stopping_rule"],
        max_iter=config["solver"]["max_iter"],
        shrinking=config["solver"]["shrinking"],
        normalise=config["datasets"]["normalise"],
    script:
        "../../scripts/thesis/hpo_methods.py"


rule hpo_summary:
    """Mean and std of accuracy, summed seconds and scores against RS without ES."""
    input:
        lambda wildcards: expand(
            "results/{hpo}/runs/{dataset}/fold{fold}.csv",
            hpo=wildcards.hpo,
            dataset=THESIS["datasets"][wildcards.hpo],
            fold=range(THESIS["splits"]["runs"]),
        ),
    output:
        per_fold="results/{hpo}/per_fold.csv",
        scores=report(
            "results/{hpo}/scores.csv",
            caption="../../report/thesis/hpo_scores.rst",
            category="E3 and E4",
        ),
    log:
        "logs/{hpo}/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        beta=THESIS["scoring"]["beta"],
    script:
        "../../scripts/thesis/hpo_summary.py"


rule hpo_figure:
    """Figs 4.8/4.9 (E3) and 5.4/5.5 (E4): accuracy, seconds and score of the four methods."""
    input:
        "results/{hpo}/scores.csv",
    output:
        pdf="results/{hpo}/figures/{dataset}.pdf",
        png=report(
            "results/{hpo}/figures/{dataset}.png",
            caption="../../report/thesis/hpo_figure.rst",
            category="E3 and E4",
        ),
    log:
        "logs/{hpo}/figure_{dataset}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/thesis/hpo_figure.py"
