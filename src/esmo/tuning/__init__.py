"""Hyperparameter search: the search drivers and configuration samplers (need pandas), the
successive-halving loop and its subsampler (:mod:`esmo.tuning.halving`, numpy only)."""
