"""esmo: early stopping inside SMO for SVM hyperparameter tuning.

Reproduces the thesis experiments; the protocol is
docs/protocol.md and the data contracts are in
docs/architecture.md. Run with `snakemake --profile profiles/default`.
"""

from snakemake.utils import min_version, validate

min_version("8.0")


configfile: os.path.join(workflow.basedir, "config", "config.yaml")


validate(config, "config/schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/data.smk"
include: "workflow/rules/sweeps.smk"
include: "workflow/rules/e1.smk"
include: "workflow/rules/e2.smk"
include: "workflow/rules/e4.smk"
include: "workflow/rules/e3.smk"
include: "workflow/rules/illustrations.smk"
include: "workflow/rules/reproduction.smk"


rule all:
    default_target: True
    input:
        data_products(),
        e1_products(),
        e2_products(),
        e3_e4_products(),


rule e1_e2:
    """E1, E2 and appendix B only: the early-stopping sweeps and their statistics."""
    input:
        data_products(),
        e1_products(),
        e2_products(),


rule e3_e4:
    """E3, E4, appendix A, the illustrations and the reproduction table."""
    input:
        data_products(),
        e3_e4_products(),
