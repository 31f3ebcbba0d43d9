"""Data in: the LIBSVM and UCI registries, MNIST, Breiman's generators, verified downloads.

A paper's own datasets and splits live with the paper (:mod:`esmo.papers`).
"""
