"""Every paper's judged reproduction counted on one table: the report's first lines."""

#: Each paper's judged numbers and, where it has them, its judged claims.
JUDGED_TABLES = {
    "thesis": ("results/reproduction.csv", "results/reproduction_claims.csv"),
    "mdl": ("results/mdl/reproduction.csv", "results/mdl/claims.csv"),
    "nsvm": ("results/nsvm/reproduction.csv", None),
    "ensembles": ("results/ensembles/reproduction.csv", None),
    "gradient": ("results/gradient/reproduction.csv", "results/gradient/claims.csv"),
}


rule verdicts:
    """Per paper and for the project: numbers and claims reproduced, explained, not."""
    input:
        unpack(
            lambda wildcards: {
                f"{paper}_{kind}": path
                for paper, paths in JUDGED_TABLES.items()
                for kind, path in zip(("numbers", "claims"), paths)
                if path is not None
            }
        ),
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
        papers=list(JUDGED_TABLES),
    script:
        "../scripts/verdicts.py"
