"""The MDL paper (Singh and Arandjelović): its rule files and the named target ``mdl``.

MDL selection against 4-fold CV on WDBC at the paper's split (table 2, figs
1-3), over many splits (mean, std, paired Wilcoxon), on a widened grid, and on
the thesis's E1 datasets against random search with validation, and the
description length as a validation-free early-stopping rule inside SMO on the
same folds. Code: esmo.papers.mdl (the method: esmo.mdl); protocol:
docs/mdl-protocol.md; scripts, captions and the paper's numbers in the folders
named ``mdl`` under workflow/; config in the section ``mdl``.
"""


include: "common.smk"
include: "holdout.smk"
include: "e1.smk"
include: "stopping.smk"


rule mdl:
    """The whole MDL reproduction and its extensions."""
    input:
        mdl_products(),
