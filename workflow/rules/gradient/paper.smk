"""Gradient-based tuning of SVM hyperparameters (Keerthi, Sindhwani, Chapelle, NIPS 2006).

Protocol: ../shared/notes/gradient-hpo-protocol.md; the library is
esmo.hypergradient, the data esmo.papers.gradient.data, the cells
esmo.papers.gradient.cells, the tables esmo.papers.gradient.analysis; scripts in
workflow/scripts/gradient/, captions in workflow/report/gradient/, paper
numbers in workflow/data/gradient/, config in the section ``gradient``.
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
