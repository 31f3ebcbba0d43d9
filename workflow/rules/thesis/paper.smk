"""The 2025 MSc thesis on early stopping inside SMO: its rule files and named targets.

The rules of E1, E2, appendix B, E3, E4, appendix A, the illustrations and the
reproduction table. Code: esmo.papers.thesis (the method: esmo.solver,
esmo.tuning); protocol: docs/thesis-protocol.md; scripts, captions and the
thesis's numbers in the folders named ``thesis`` under workflow/; config in the
section ``thesis``.
"""


include: "common.smk"
include: "data.smk"
include: "sweeps.smk"
include: "e1.smk"
include: "e2.smk"
include: "e4.smk"
include: "hpo.smk"
include: "appendix_a.smk"
include: "illustrations.smk"
include: "reproduction.smk"


rule thesis:
    """The whole thesis reproduction (what ``all`` runs today)."""
    input:
        thesis_products(),


rule e1_e2:
    """E1, E2 and appendix B only: the early-stopping sweeps and their statistics."""
    input:
        thesis_data_products(),
        e1_products(),
        e2_products(),


rule e3_e4:
    """E3, E4, appendix A, the illustrations and the reproduction table."""
    input:
        thesis_data_products(),
        e3_e4_products(),
