"""Hyperparameter search: the search drivers and the samplers of configurations (needs pandas)."""
