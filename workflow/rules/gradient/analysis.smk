"""Tables 1-3, the F experiment, the cost break-up, fig 1, the claims and the reproduction table."""


rule gradient_tables:
    """Tables 1 and 2, the F experiment, table 3 and the cost break-up, each as CSV and HTML."""
    input:
        cells="results/gradient/cells.csv",
    output:
        **{
            f"{name}_{ext}": report(
                f"results/gradient/{name}.{ext}",
                caption=f"../../report/gradient/{name}.rst",
                category="Gradient tuning",
            )
            for name in GRADIENT_TABLES
            for ext in ("csv", "html")
        },
    log:
        "logs/gradient/tables.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        experiments=GRADIENT_EXPERIMENTS,
    script:
        "../../scripts/gradient/tables.py"


rule gradient_fig1:
    """Fig 1: smoothed CV and test error contours with Grad's path and Grid's pick; the restarts."""
    input:
        unpack(lambda wc: gradient_fig1_inputs()),
        cells="results/gradient/cells.csv",
    output:
        figure=report(
            "results/gradient/fig1.png",
            caption="../../report/gradient/fig1.rst",
            category="Gradient tuning",
        ),
        restarts=report(
            "results/gradient/fig1_restarts.csv",
            caption="../../report/gradient/fig1.rst",
            category="Gradient tuning",
        ),
        values="results/gradient/fig1_values.json",
    log:
        "logs/gradient/fig1.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        fig1=GRADIENT["fig1"],
        dataset=gradient_dataset(GRADIENT["fig1"]["dataset"]),
    script:
        "../../scripts/gradient/fig1.py"


rule gradient_reproduction:
    """The paper's surviving numbers beside ours, and the seven claims of docs/gradient-protocol.md sec 6."""
    input:
        unpack(gradient_inexact_tables),
        paper=workflow.source_path("../../data/gradient/paper_values.csv"),
        rules=workflow.source_path("../../data/gradient/rules.csv"),
        cells="results/gradient/cells.csv",
        restarts="results/gradient/fig1_restarts.csv",
        fig1="results/gradient/fig1_values.json",
    output:
        table=report(
            "results/gradient/reproduction.csv",
            caption="../../report/gradient/reproduction.rst",
            category="Gradient tuning",
        ),
        html=report(
            "results/gradient/reproduction.html",
            caption="../../report/gradient/reproduction.rst",
            category="Gradient tuning",
        ),
        claims=report(
            "results/gradient/claims.csv",
            caption="../../report/gradient/claims.rst",
            category="Gradient tuning",
        ),
        claims_html=report(
            "results/gradient/claims.html",
            caption="../../report/gradient/claims.rst",
            category="Gradient tuning",
        ),
    log:
        "logs/gradient/reproduction.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        experiments=GRADIENT_EXPERIMENTS,
        tuner=GRADIENT["tuner"],
    script:
        "../../scripts/gradient/reproduction.py"
