"""SVM ensembles on a budget (Nevado, Martinez-Munoz and Suarez, ICANN 2022).

``esmo.ensembles.grid``: the 110-point grid and the searches over it (2-fold or
K-fold, exhaustive, early-stopped or successive halving) with every fit's cost
recorded; ``esmo.ensembles.cost_model``: the paper's section-3 cost model;
``esmo.ensembles.single_svm``: the single-SVM baseline (K-fold grid search,
then a refit). The estimator is :class:`esmo.ensembles.estimator.SVMEnsembleClassifier`.
The protocol is docs/ensembles-protocol.md.
"""
