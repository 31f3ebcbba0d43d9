"""Gradient-based tuning of SVM hyperparameters (Keerthi, Sindhwani, Chapelle, NIPS 2006).

Code: esmo.papers.gradient (the method: esmo.hypergradient); protocol:
docs/gradient-protocol.md; scripts, captions and the paper's numbers in the
folders named ``gradient`` under workflow/; config in the section ``gradient``.
"""


include: "common.smk"
include: "data.smk"
include: "cells.smk"
include: "analysis.smk"
include: "inexact.smk"


rule gradient:
    """The reproduction (tables 1-3, the F experiment, fig 1, claims, reproduction table) and the inexact inner solves."""
    input:
        gradient_products(),
