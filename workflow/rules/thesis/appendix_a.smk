"""Appendix A: Keerthi's SMO, plain Fan, esmo and LIBSVM at fixed hyperparameters, timed.

Keerthi's SMO runs on its own stopping rule and on LIBSVM's, LIBSVM with
shrinking (the thesis's) and without (esmo's algorithm): ``thesis.appendix_a.solvers``.

Timed jobs ask for every core of the machine (``threads: workflow.cores``),
so a local run never times them beside another job.
"""


rule appendix_a_run:
    """Appendix A's solvers (``thesis.appendix_a.solvers``) at its hyperparameters, one run."""
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
        shrinking=config["solver"]["shrinking"],
        normalise=config["datasets"]["normalise"],
    script:
        "../../scripts/thesis/appendix_a.py"


rule appendix_a_summary:
    """Fig A.1, the runs, the per-solver summary beside the thesis, the thesis's orderings."""
    input:
        runs=expand(
            "results/appendix_a/runs/{dataset}/fold{fold}.csv",
            dataset=THESIS["datasets"]["appendix_a"],
            fold=range(THESIS["splits"]["runs"]),
        ),
        thesis=workflow.source_path("../../data/thesis/thesis_values.csv"),
    output:
        table=report(
            "results/appendix_a/solvers.csv",
            caption="../../report/thesis/appendix_a_table.rst",
            category="Appendix A",
        ),
        summary=report(
            "results/appendix_a/summary.csv",
            caption="../../report/thesis/appendix_a_summary.rst",
            category="Appendix A",
        ),
        orderings=report(
            "results/appendix_a/orderings.csv",
            caption="../../report/thesis/appendix_a_orderings.rst",
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


rule appendix_a:
    """Appendix A only: the solver runs, their summary beside the thesis, the orderings, fig A.1."""
    input:
        rules.appendix_a_summary.output,
