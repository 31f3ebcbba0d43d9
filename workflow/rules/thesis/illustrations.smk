"""Figs 1.1, 2.3 and 2.4: how SMO, gamma and successive halving behave, on one 2-D dataset."""


rule illustrations:
    """Validation accuracy along the iterations, decision boundaries, one SH run."""
    input:
        data="results/data/{dataset}.npz",
        splits="results/splits/{dataset}.npz",
        svm="results/configs/svm_rbf.csv",
    output:
        curves="results/illustrations/{dataset}/validation_curves.csv",
        curves_pdf="results/illustrations/{dataset}/validation_curves.pdf",
        curves_png=report(
            "results/illustrations/{dataset}/validation_curves.png",
            caption="../../report/thesis/illustration_curves.rst",
            category="Illustrations",
        ),
        boundaries_pdf="results/illustrations/{dataset}/decision_boundaries.pdf",
        boundaries_png=report(
            "results/illustrations/{dataset}/decision_boundaries.png",
            caption="../../report/thesis/illustration_boundaries.rst",
            category="Illustrations",
        ),
        halving="results/illustrations/{dataset}/successive_halving.csv",
        halving_pdf="results/illustrations/{dataset}/successive_halving.pdf",
        halving_png=report(
            "results/illustrations/{dataset}/successive_halving.png",
            caption="../../report/thesis/illustration_halving.rst",
            category="Illustrations",
        ),
    log:
        "logs/illustrations/{dataset}.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        n_curves=THESIS["illustrations"]["n_curves"],
        gammas=THESIS["illustrations"]["gammas"],
        C=THESIS["illustrations"]["C"],
        n_halving=THESIS["illustrations"]["n_halving"],
        seed=THESIS["hpo"]["seed"],
        max_iter=config["solver"]["max_iter"],
        shrinking=config["solver"]["shrinking"],
        normalise=config["datasets"]["normalise"],
    script:
        "../../scripts/thesis/illustrations.py"
