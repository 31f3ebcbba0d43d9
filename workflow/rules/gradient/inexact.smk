"""Beyond the paper (docs/gradient-protocol.md sec 7): early-stopped and warm-started inner solves in the gradient loop.

One job per draw (dataset, n_trg, seed) runs every inner-solve variant and the
thesis's searches on that draw; on the agreement seeds another job measures the
hypergradient of inexact solves along exact Grad's path. A summary turns them
into shares of the exact run, the agreement table and figure, and the scores S.
"""


rule gradient_inexact_runs:
    """Tuning runs per inner solve, the thesis's RS/SH(+ES), and their scores S, on one draw."""
    input:
        data="results/gradient/data/{dataset}.npz",
    output:
        runs="results/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/runs.csv",
        paths="results/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/paths.csv",
        scores="results/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/scores.csv",
    log:
        "logs/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/runs.log",
    wildcard_constraints:
        dataset="|".join(GRADIENT_DATASETS),
        n_trg="[0-9]+",
        seed="[0-9]+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=120,
    params:
        inexact=gradient_inexact_settings("variants", "early_stopping", "searches"),
        smo=gradient_smo(),
        tuner=GRADIENT["tuner"],
        n_folds=GRADIENT["n_folds"],
        search_space=config["thesis"]["search_space"]["rbf"],
    script:
        "../../scripts/gradient/inexact_runs.py"


rule gradient_inexact_agreement:
    """The hypergradient of capped and early-stopped solves at three points of exact Grad's path."""
    input:
        data="results/gradient/data/{dataset}.npz",
    output:
        "results/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/agreement.csv",
    log:
        "logs/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/agreement.log",
    wildcard_constraints:
        dataset="|".join(GRADIENT_DATASETS),
        n_trg="[0-9]+",
        seed="[0-9]+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=4000,
        runtime=60,
    params:
        inexact=gradient_inexact_settings("agreement"),
        smo=gradient_smo(),
        tuner=GRADIENT["tuner"],
        n_folds=GRADIENT["n_folds"],
    script:
        "../../scripts/gradient/inexact_agreement.py"


rule gradient_inexact_summary:
    """The savings of each inner solve, the agreement table and figure, the scores S."""
    input:
        runs=gradient_inexact_files("runs.csv"),
        scores=gradient_inexact_files("scores.csv"),
        agreement=gradient_inexact_files("agreement.csv", agreement=True),
    output:
        **{
            f"{name}_{ext}": report(
                f"results/gradient/inexact/{name}.{ext}",
                caption=f"../../report/gradient/inexact_{name}.rst",
                category="Gradient tuning: early-stopped inner solves",
            )
            for name in ("savings", "agreement", "scores")
            for ext in ("csv", "html")
        },
        figure=report(
            "results/gradient/inexact/agreement.png",
            caption="../../report/gradient/inexact_agreement.rst",
            category="Gradient tuning: early-stopped inner solves",
        ),
    log:
        "logs/gradient/inexact/summary.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    script:
        "../../scripts/gradient/inexact_summary.py"
