"""esmo: early stopping inside SMO for SVM hyperparameter tuning.

Reproduces the experiments of five papers, each with a named target: the 2025
MSc thesis (``thesis``), MDL model selection (``mdl``), neural SVMs and kernel
Pegasos (``nsvm``) and SVM ensembles on a budget (``ensembles``); the thesis
protocol is docs/protocol.md, the other papers' choices are decided in the
protocol notes they cite, and the layout and data contracts are in
docs/architecture.md. Run with
`snakemake --profile profiles/default`.
"""

from snakemake.utils import min_version, validate

min_version("8.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(config, "config/schema.yaml")


report: "workflow/report/workflow.rst"


# Shared by every paper: helpers, the registry of papers, LIBSVM download and preparation.
include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
# One folder per paper (workflow/rules/<paper>/paper.smk: its rules and named targets).
include: "workflow/rules/thesis/paper.smk"
include: "workflow/rules/mdl/paper.smk"
include: "workflow/rules/nsvm/paper.smk"
include: "workflow/rules/ensembles/paper.smk"
include: "workflow/rules/gradient/paper.smk"


rule all:
    """Every paper's reproduction (the rules thesis, mdl, nsvm and ensembles)."""
    default_target: True
    input:
        paper_products(),
