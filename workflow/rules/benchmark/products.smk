"""The budget benchmark's analysis products and its report category (the rules: analysis.smk).

``benchmark_analysis_products()`` lists the files of the analysis, for the
benchmark's ``register_paper`` call; ``BENCHMARK_CATEGORY`` is the report
category of every one of them. Apart from analysis.smk's rules because
Snakemake's linter wants functions and rules in separate files.
"""

#: The benchmark's report category; the report's menu sorts categories by name,
#: and this one comes before "Appendix A", the first of the papers'.
BENCHMARK_CATEGORY = "Answer (budget benchmark)"


def benchmark_analysis_products():
    """Every file the benchmark's analysis writes (the target ``benchmark`` and ``all`` request them)."""
    names = [
        "anytime.csv",
        "anytime.png",
        "regret.csv",
        "within.csv",
        "budget_ranks.csv",
        "budget_ranks.html",
        "budget_ranks.png",
        "friedman.csv",
        "cd_diagram.png",
        "claims.csv",
        "claims.html",
        "answer.html",
    ]
    return [f"results/benchmark/{name}" for name in names]
