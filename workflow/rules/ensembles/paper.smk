"""SVM ensembles on a budget (Nevado et al., ICANN 2022): its rule files and named target.

Code: esmo.papers.ensembles (the method: esmo.ensembles); protocol:
docs/ensembles-protocol.md; scripts, captions and the paper's numbers in the
folders named ``ensembles`` under workflow/; config in the section ``ensembles``.
"""


include: "common.smk"
include: "data.smk"
include: "cells.smk"
include: "analysis.smk"


rule ensembles:
    """The whole reproduction: table 1, figs 1-4, the variants and the reproduction table."""
    input:
        ensembles_products(),
