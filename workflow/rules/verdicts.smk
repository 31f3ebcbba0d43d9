"""Every paper's judged reproduction counted on one table: the report's first lines."""


rule verdicts:
    """Per paper and for the project: numbers and claims reproduced, explained, not."""
    input:
        # each paper's judged numbers and, where it has them, its judged claims
        thesis_numbers=rules.reproduction.output.table,
        thesis_claims=rules.reproduction.output.claims,
        mdl_numbers=rules.mdl_reproduction.output.table,
        mdl_claims=rules.mdl_reproduction.output.claims,
        nsvm_numbers=rules.nsvm_reproduction.output.table,
        ensembles_numbers=rules.ensembles_reproduction.output.table,
        gradient_numbers=rules.gradient_reproduction.output.table,
        gradient_claims=rules.gradient_reproduction.output.claims,
    output:
        table=report(
            "results/verdicts.csv",
            caption="../report/verdicts.rst",
            category="Reproduction",
        ),
        html=report(
            "results/verdicts.html",
            caption="../report/verdicts.rst",
            category="Reproduction",
        ),
    log:
        "logs/verdicts.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        papers=["thesis", "mdl", "nsvm", "ensembles", "gradient"],
    script:
        "../scripts/verdicts.py"
