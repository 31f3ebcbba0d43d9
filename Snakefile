"""esmo: budget-aware SVM training and tuning, and the reproduction of five papers.

Each paper has a named target: the 2025 MSc thesis on early stopping inside SMO
(``thesis``), MDL model selection without validation data (``mdl``), neural SVMs
and kernel Pegasos (``nsvm``), SVM ensembles on a budget (``ensembles``) and
gradient-based tuning of C, gamma and ARD weights (``gradient``); the budget
benchmark puts every method of the five on one protocol (``benchmark``); ``all``
runs them all. Each paper's protocol is docs/<paper>-protocol.md; the layout and the
data contracts are in docs/architecture.md. Run with
`snakemake --profile profiles/default`; offline, add the offline switch,
`--config offline=../shared/datasets` (every dataset from that folder).
"""

from snakemake.utils import min_version

min_version("8.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


include: "workflow/rules/config.smk"


check_config(config, "config/schema.yaml")
# The offline switch: every source's mirror from one folder (config key offline).
resolve_offline(config)


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
# The budget benchmark: every paper's method and the users' tools on one protocol.
include: "workflow/rules/benchmark/paper.smk"
include: "workflow/rules/verdicts.smk"


rule all:
    """Every paper's reproduction (the rules thesis, mdl, nsvm, ensembles and gradient) and the benchmark."""
    default_target: True
    input:
        paper_products(),
        "results/verdicts.csv",
