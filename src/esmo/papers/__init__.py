"""The reproduction half: one package per paper, and what several papers share.

Each paper's package holds what its workflow jobs compute (experiment drivers),
its analysis (tables, claims, the reproduction beside the paper's numbers) and
its figures; the methods themselves live in the library (:mod:`esmo.solver`,
:mod:`esmo.estimators`, :mod:`esmo.tuning` and the method packages
:mod:`esmo.ensembles`, :mod:`esmo.mdl`, :mod:`esmo.hypergradient`,
:mod:`esmo.nsvm`). :mod:`esmo.papers.common` is imported by every paper; the
thesis is the base the companion papers' steps beyond build on (its splits,
score S and searches), so they may import :mod:`esmo.papers.thesis`; no paper
imports another companion paper. Needs the ``analysis`` extra.
"""
