"""SVM ensembles on a budget (Nevado et al., ICANN 2022): its rule files and named target.

Protocol: ../shared/notes/ensembles-protocol.md; scripts in
workflow/scripts/ensembles/, captions in workflow/report/ensembles/, paper
numbers in workflow/data/ensembles/, config in the section ``ensembles``.
"""


include: "common.smk"
include: "data.smk"
include: "cells.smk"
include: "analysis.smk"


rule ensembles:
    """The whole reproduction: table 1, figs 1-4, the variants and the reproduction table."""
    input:
        ensembles_products(),
