"""Appendix A: Keerthi's SMO, plain Fan, esmo and LIBSVM at fixed hyperparameters, timed.

Timed jobs ask for every core of the machine (``threads: workflow.cores``),
so a local run never times them beside another job.
"""


rule appendix_a_run:
    """Keerthi's SMO, plain Fan, esmo and LIBSVM at appendix A's hyperparameters, one run."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
    output:
        "results/appendix_a/runs/{dataset}/fold{fold}.csv",
    log:
        "logs/appendix_a/{dataset}/fold{fold}.log",
    conda:
        ENV_ESMO
    threads: workflow.cores
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        C=THESIS["appendix_a"]["C"],
        gamma=THESIS["appendix_a"]["gamma"],
        tol=THESIS["appendix_a"]["tol"],
        solvers=THESIS["appendix_a"]["solvers"],
        max_iter=config["solver"]["max_iter"],
        normalise=config["datasets"]["normalise"],
    script:
        "../../scripts/thesis/appendix_a.py"


rule appendix_a_summary:
    """Fig A.1 and the table of iterations, seconds and accuracy per solver."""
    input:
        expand(
            "results/appendix_a/runs/{dataset}/fold{fold}.csv",
            dataset=THESIS["datasets"]["appendix_a"],
            fold=range(THESIS["splits"]["runs"]),
        ),
    output:
        table=report(
            "results/appendix_a/solvers.csv",
            caption="../../report/thesis/appendix_a_table.rst",
            category="Appendix A",
        ),
        pdf="results/appendix_a/figures/solvers.pdf",
        png=report(
            "results/appendix_a/figures/solvers.png",
            caption="../../report/thesis/appendix_a_figure.rst",
            category="Appendix A",
        ),
    log:
        "logs/appendix_a/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/thesis/appendix_a_summary.py"
