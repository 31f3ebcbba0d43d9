"""The budget benchmark's analysis (docs/benchmark-protocol.md sec 6) and its answer, the report's front page.

Every rule reads results/benchmark/records.csv, the anytime records of every run
(protocol sec 4, written by the rule ``benchmark_collect``); the code is
esmo.benchmark.analysis and esmo.benchmark.figures. products.smk lists the files
(``benchmark_analysis_products()``) and names their report category
(``BENCHMARK_CATEGORY``, first in the report's menu); the report's front page,
workflow/report/workflow.rst, opens with answer.html.
"""


include: "products.smk"


rule benchmark_anytime:
    """Anytime curves: per dataset, each method's incumbent test accuracy against CPU seconds."""
    input:
        records="results/benchmark/records.csv",
    output:
        table=report(
            "results/benchmark/anytime.csv",
            caption="../../report/benchmark/anytime.rst",
            category=BENCHMARK_CATEGORY,
        ),
        figure=report(
            "results/benchmark/anytime.png",
            caption="../../report/benchmark/anytime.rst",
            category=BENCHMARK_CATEGORY,
        ),
    log:
        "logs/benchmark/anytime.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/anytime.py"


rule benchmark_regret:
    """Each run's regret against grid_svc, and its cost to come within 0.5 points of it."""
    input:
        records="results/benchmark/records.csv",
    output:
        regret=report(
            "results/benchmark/regret.csv",
            caption="../../report/benchmark/regret.rst",
            category=BENCHMARK_CATEGORY,
        ),
        within=report(
            "results/benchmark/within.csv",
            caption="../../report/benchmark/within.rst",
            category=BENCHMARK_CATEGORY,
        ),
    log:
        "logs/benchmark/regret.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/regret.py"


rule benchmark_budget_ranks:
    """Which method for which budget: mean ranks at 1-100 % of grid_svc's CPU seconds, and overall."""
    input:
        records="results/benchmark/records.csv",
    output:
        table=report(
            "results/benchmark/budget_ranks.csv",
            caption="../../report/benchmark/budget_ranks.rst",
            category=BENCHMARK_CATEGORY,
        ),
        html=report(
            "results/benchmark/budget_ranks.html",
            caption="../../report/benchmark/budget_ranks.rst",
            category=BENCHMARK_CATEGORY,
        ),
        figure=report(
            "results/benchmark/budget_ranks.png",
            caption="../../report/benchmark/budget_ranks.rst",
            category=BENCHMARK_CATEGORY,
        ),
    log:
        "logs/benchmark/budget_ranks.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/budget_ranks.py"


rule benchmark_friedman:
    """Friedman's test over (dataset, seed) blocks, Nemenyi's p-values and the CD diagram."""
    input:
        records="results/benchmark/records.csv",
    output:
        table=report(
            "results/benchmark/friedman.csv",
            caption="../../report/benchmark/friedman.rst",
            category=BENCHMARK_CATEGORY,
        ),
        figure=report(
            "results/benchmark/cd_diagram.png",
            caption="../../report/benchmark/cd_diagram.rst",
            category=BENCHMARK_CATEGORY,
        ),
    log:
        "logs/benchmark/friedman.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/friedman.py"


rule benchmark_claims:
    """The five papers' claims restated on the benchmark, each by its rule fixed before the run."""
    input:
        records="results/benchmark/records.csv",
    output:
        table=report(
            "results/benchmark/claims.csv",
            caption="../../report/benchmark/claims.rst",
            category=BENCHMARK_CATEGORY,
        ),
        html=report(
            "results/benchmark/claims.html",
            caption="../../report/benchmark/claims.rst",
            category=BENCHMARK_CATEGORY,
        ),
    log:
        "logs/benchmark/claims.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/claims.py"


rule benchmark_answer:
    """The benchmark's answer, the report's front page: the goals, the budget table, the CD diagram."""
    input:
        records="results/benchmark/records.csv",
        cd_diagram="results/benchmark/cd_diagram.png",
    output:
        html=report(
            "results/benchmark/answer.html",
            caption="../../report/benchmark/answer.rst",
            category=BENCHMARK_CATEGORY,
        ),
    log:
        "logs/benchmark/answer.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/answer.py"
