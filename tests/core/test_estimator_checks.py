"""scikit-learn's estimator checks, whole, for the searches (the SVMs' own are beside them:
test_estimator.py, test_pegasos.py, test_svm_ensemble.py, test_hypergradient.py; the NSVMs'
in tests/nsvm). No expected failure: SVC has none beyond its two on sample weights, which
these searches do not take."""

from __future__ import annotations

from sklearn.utils.estimator_checks import parametrize_with_checks

from esmo import MDLSearch
from esmo.tuning.estimators import HyperbandSVM, RandomSearchSVM, SuccessiveHalvingSVM
from esmo.tuning.optuna_search import OptunaSearchSVM

SEARCHES = [
    MDLSearch(param_grid={"C": [1.0, 8.0], "gamma": [0.5, 2.0]}),
    RandomSearchSVM(n_iter=4, random_state=0),
    # 'exhaust': as many candidates as the checks' small data allow (a fixed 32 would
    # leave fewer than two rows of a class per candidate, and be refused by name)
    SuccessiveHalvingSVM(n_candidates="exhaust", random_state=0),
    SuccessiveHalvingSVM(n_candidates=4, resource="n_iter", random_state=0),
    HyperbandSVM(random_state=0),
    OptunaSearchSVM(n_trials=4, random_state=0),
]


@parametrize_with_checks(SEARCHES)
def test_searches_pass_scikit_learns_checks(estimator, check):
    check(estimator)
