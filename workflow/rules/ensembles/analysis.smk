"""Table 1, figs 1-4, the variants of sec 7 and the reproduction table, from the cells' summary."""


rule ensembles_table1:
    """Table 1 (ensemble per tp, single SVM per training size), claim 1 and the best-score times."""
    input:
        summary="results/ensembles/summary.csv",
    output:
        table=report(
            "results/ensembles/table1.csv",
            caption="../../report/ensembles/table1.rst",
            category="Ensembles",
        ),
        html=report(
            "results/ensembles/table1.html",
            caption="../../report/ensembles/table1.rst",
            category="Ensembles",
        ),
        matched=report(
            "results/ensembles/matched_time.csv",
            caption="../../report/ensembles/matched_time.rst",
            category="Ensembles",
        ),
        best=report(
            "results/ensembles/best_time.csv",
            caption="../../report/ensembles/best_time.rst",
            category="Ensembles",
        ),
    log:
        "logs/ensembles/table1.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        n_train=ENSEMBLES["n_train"],
        datasets=ENSEMBLES["datasets"],
    script:
        "../../scripts/ensembles/table1.py"


rule ensembles_fig1:
    """Fig 1: structured subbagging against subbagging, accuracy and its std against tp."""
    input:
        summary="results/ensembles/summary.csv",
    output:
        table=report(
            "results/ensembles/fig1.csv",
            caption="../../report/ensembles/fig1.rst",
            category="Ensembles",
        ),
        figure=report(
            "results/ensembles/fig1.png",
            caption="../../report/ensembles/fig1.rst",
            category="Ensembles",
        ),
    log:
        "logs/ensembles/fig1.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        n_train=ENSEMBLES["n_train"],
        datasets=ENSEMBLES["fig1"]["datasets"],
        proportions=ENSEMBLES["fig1"]["train_proportions"],
    script:
        "../../scripts/ensembles/fig1.py"


rule ensembles_time_figures:
    """Figs 2 and 3: training time against N and against tp, with the log-log slopes."""
    input:
        summary="results/ensembles/summary.csv",
    output:
        fig2_times="results/ensembles/fig2_times.csv",
        fig2_slopes=report(
            "results/ensembles/fig2_slopes.csv",
            caption="../../report/ensembles/fig2.rst",
            category="Ensembles",
        ),
        fig2=report(
            "results/ensembles/fig2.png",
            caption="../../report/ensembles/fig2.rst",
            category="Ensembles",
        ),
        fig3_times="results/ensembles/fig3_times.csv",
        fig3_slopes=report(
            "results/ensembles/fig3_slopes.csv",
            caption="../../report/ensembles/fig3.rst",
            category="Ensembles",
        ),
        fig3=report(
            "results/ensembles/fig3.png",
            caption="../../report/ensembles/fig3.rst",
            category="Ensembles",
        ),
    log:
        "logs/ensembles/time_figures.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        n_train=ENSEMBLES["n_train"],
        fig2=ENSEMBLES["fig2"],
        fig3=ENSEMBLES["fig3"],
        fig3_proportions=ensembles_fig3_proportions(),
        n_subensembles=ENSEMBLES["n_subensembles"],
        grid_step=ENSEMBLES["grid_step"],
    script:
        "../../scripts/ensembles/time_figures.py"


rule ensembles_fig4:
    """Fig 4: accuracy against training time, the ensemble (and its variants) and the single SVM."""
    input:
        summary="results/ensembles/summary.csv",
    output:
        report(
            "results/ensembles/fig4.png",
            caption="../../report/ensembles/fig4.rst",
            category="Ensembles",
        ),
    log:
        "logs/ensembles/fig4.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        n_train=ENSEMBLES["n_train"],
    script:
        "../../scripts/ensembles/fig4.py"


rule ensembles_variants:
    """Sec 7: early-stopped and successive-halving grid searches beside the paper's, paired on repetitions."""
    input:
        cells="results/ensembles/cells.csv",
    output:
        table=report(
            "results/ensembles/variants.csv",
            caption="../../report/ensembles/variants.rst",
            category="Ensembles",
        ),
        html=report(
            "results/ensembles/variants.html",
            caption="../../report/ensembles/variants.rst",
            category="Ensembles",
        ),
    log:
        "logs/ensembles/variants.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        n_train=ENSEMBLES["n_train"],
        datasets=ENSEMBLES["variants"]["datasets"],
        beta=ENSEMBLES["variants"]["beta"],
    script:
        "../../scripts/ensembles/variants.py"


rule ensembles_reproduction:
    """The paper's table 1 and text numbers (workflow/data/ensembles/paper_values.csv) beside ours."""
    input:
        paper=workflow.source_path("../../data/ensembles/paper_values.csv"),
        rules=workflow.source_path("../../data/ensembles/rules.csv"),
        table1="results/ensembles/table1.csv",
        best="results/ensembles/best_time.csv",
        fig2_slopes="results/ensembles/fig2_slopes.csv",
        fig2_times="results/ensembles/fig2_times.csv",
        fig3_slopes="results/ensembles/fig3_slopes.csv",
    output:
        table=report(
            "results/ensembles/reproduction.csv",
            caption="../../report/ensembles/reproduction.rst",
            category="Ensembles",
        ),
        html=report(
            "results/ensembles/reproduction.html",
            caption="../../report/ensembles/reproduction.rst",
            category="Ensembles",
        ),
        beside=report(
            "results/ensembles/table1_beside_paper.csv",
            caption="../../report/ensembles/table1_beside_paper.rst",
            category="Ensembles",
        ),
        beside_html=report(
            "results/ensembles/table1_beside_paper.html",
            caption="../../report/ensembles/table1_beside_paper.rst",
            category="Ensembles",
        ),
    log:
        "logs/ensembles/reproduction.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/ensembles/reproduction.py"
