"""The one successive-halving loop and the one stratified subsampler (esmo.tuning.halving)."""

from __future__ import annotations

import numpy as np
import pytest

from esmo.tuning.halving import HalvingRound, run_halving, stratified_rows


def _recording(scores: dict[int, float]):
    """A fit_and_score scoring candidate c by scores[c] (round t adds nothing), and its calls."""
    calls = []

    def fit_and_score(t, candidate, part):
        calls.append((t, candidate, part))
        return scores[candidate], {"round": t, "candidate": candidate}

    return fit_and_score, calls


def test_rounds_follow_the_schedule_and_the_best_go_on():
    scores = {0: 0.1, 1: 0.9, 2: 0.5, 3: 0.7, 4: 0.3, 5: 0.8}
    fit, calls = _recording(scores)
    budgets = []

    def subsample(n_rows):
        budgets.append(n_rows)
        return f"part{n_rows}"

    schedule = [HalvingRound(6, 10), HalvingRound(3, 20), HalvingRound(1, 60)]
    result = run_halving(list(range(6)), schedule, subsample, fit)
    assert budgets == [10, 20, 60], "one subsample per round, in order"
    assert [(t, c) for t, c, _ in calls] == [(0, c) for c in range(6)] + [
        (1, 1), (1, 3), (1, 5), (2, 1)
    ]  # fmt: skip
    assert all(part == f"part{schedule[t].budget}" for t, _, part in calls)
    assert result.winner == 1 and result.score == 0.9
    trial = result.trials[7]
    assert (trial.round, trial.candidate, trial.budget, trial.score) == (1, 3, 20, 0.7)
    assert trial.cost == {"round": 1, "candidate": 3}


def test_candidates_are_passed_as_given_and_the_winner_is_a_position():
    fit, calls = _recording({"a": 0.2, "b": 0.6, "c": 0.4})
    result = run_halving(["a", "b", "c"], [(3, 5), (1, 9)], lambda n: n, fit)
    assert [c for _, c, _ in calls] == ["a", "b", "c", "b"]
    assert result.winner == 1


@pytest.mark.parametrize(("tie", "kept", "winner"), [("first", [1, 2], 1), ("last", [2, 3], 3)])
def test_tie_rule_ranks_rounds_and_picks_the_winner(tie, kept, winner):
    fit, calls = _recording({0: 0.1, 1: 0.5, 2: 0.5, 3: 0.5})
    result = run_halving(range(4), [(4, 4), (2, 8)], lambda n: None, fit, tie=tie)
    assert [c for t, c, _ in calls if t == 1] == kept
    assert result.winner == winner


def test_a_single_candidate_needs_no_round():
    result = run_halving(["only"], [], lambda n: None, lambda *a: (1.0, None))
    assert result.trials == [] and result.winner == 0 and np.isnan(result.score)


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        ([], "schedule is empty"),
        ([(3, 5)], "first round runs 3"),
        ([(4, 5), (3, 5), (3, 5), (4, 5)], "non-increasing"),
        ([(4, 5), (0, 5)], "positive"),
    ],
)
def test_bad_schedules_are_refused(schedule, message):
    with pytest.raises(ValueError, match=message):
        run_halving(range(4), schedule, lambda n: None, lambda *a: (0.0, None))


def test_unknown_tie_rule_is_refused():
    with pytest.raises(ValueError, match="tie must be one of"):
        run_halving(range(2), [(2, 5)], lambda n: None, lambda *a: (0.0, None), tie="random")


# -- the subsampler ----------------------------------------------------------------------


def test_each_papers_draw_is_kept():
    """Rows drawn by the two former subsamplers (tuning.search and ensembles.grid at 1c08578)."""
    y = np.array([1] * 5 + [-1] * 35)
    thesis = stratified_rows(y, 8, np.random.RandomState(0), draw="resample")
    assert thesis.tolist() == [1, 4, 15, 20, 25, 27, 33, 34]
    ensembles = stratified_rows(y, 8, np.random.default_rng(0), draw="rounded")
    assert ensembles.tolist() == [2, 3, 6, 13, 15, 21, 24, 30]
    shares = stratified_rows(y, 12, np.random.default_rng(1), min_per_class=4, draw="rounded")
    assert shares.tolist() == [0, 1, 2, 4, 6, 9, 18, 19, 27, 32, 34, 38]


def _rng(draw: str, seed: int):
    return np.random.RandomState(seed) if draw == "resample" else np.random.default_rng(seed)


@pytest.mark.parametrize("draw", ["resample", "rounded"])
@pytest.mark.parametrize("min_per_class", [2, 4])
def test_guarantee_holds_whenever_it_can(draw, min_per_class):
    """Exactly n distinct rows with min(count, m) of every class, or an error when n is too small."""
    r = np.random.default_rng(min_per_class)
    for seed in range(300):
        n_classes = int(r.choice([2, 3, 5]))
        y = r.choice(n_classes, size=int(r.integers(8, 120)), p=r.dirichlet(np.ones(n_classes)))
        n = int(r.integers(1, y.size))
        labels, counts = np.unique(y, return_counts=True)
        lower = np.minimum(counts, min_per_class)
        if n < lower.sum():
            with pytest.raises(ValueError, match="cannot draw"):
                stratified_rows(y, n, _rng(draw, seed), min_per_class=min_per_class, draw=draw)
            continue
        rows = stratified_rows(y, n, _rng(draw, seed), min_per_class=min_per_class, draw=draw)
        assert rows.size == n and np.unique(rows).size == n and np.all(np.diff(rows) > 0)
        got = np.array([np.count_nonzero(y[rows] == c) for c in labels])
        assert np.all(got >= lower), (seed, n, counts, got)
        # classes neither topped up nor giving rows keep their share, rounded
        share = n * counts / y.size
        assert np.all((np.abs(got - share) < 1) | (got == lower) | (got < share)), (seed, got)


@pytest.mark.parametrize("draw", ["resample", "rounded"])
def test_all_rows_when_asked_for_as_many(draw):
    y = np.array([0, 1, 1, 0, 1])
    assert stratified_rows(y, 5, _rng(draw, 0), draw=draw).tolist() == [0, 1, 2, 3, 4]
    assert stratified_rows(y, 9, _rng(draw, 0), draw=draw).tolist() == [0, 1, 2, 3, 4]


def test_unknown_draw_is_refused():
    with pytest.raises(ValueError, match="draw must be one of"):
        stratified_rows(np.array([0, 1, 0, 1]), 2, np.random.default_rng(0), draw="uniform")
