"""One successive-halving loop, with the schedule, the subsampler and the fit as arguments.

The thesis's E4 (:func:`esmo.tuning.search.successive_halving`, eq. 2.21-2.22)
and the ensembles paper's search (:func:`esmo.ensembles.grid.halving_search`)
differ only in their schedules, their subsamples and what one fit records; the
loop that runs the rounds is :func:`run_halving`, as scikit-learn's
``BaseSuccessiveHalving._run_search`` is one loop for its two searches. Its
shape follows scikit-learn's: round t fits ``k_t`` candidates on a budget
``n_t`` (rows, or SMO iterations); the best ``k_{t+1}`` by score go on.

What the two callers pass:

==============  ==============================================  ==============================================
argument        thesis (E4)                                     ensembles paper (sec 7)
==============  ==============================================  ==============================================
schedule        ``search.successive_halving_schedule``:         ``grid.halving_schedule``: ``k_t >= 2``,
                ``floor(k / 2**t)`` down to one, each on        each on ``round(n / k_t)`` rows, at least
                ``floor(n / k_t)`` rows                         ``min_samples``
subsample       :func:`stratified_rows`, ``draw="resample"``    :func:`stratified_rows`, ``draw="rounded"``
                (a ``RandomState``)                             (a ``Generator``)
fit_and_score   a timed ``fit`` and validation accuracy;        ``FitLog.fit``: cost recorded in the log;
                the cost is the trial record                    the cost is the log's record
tie             ``"first"``                                     ``"first"``
==============  ==============================================  ==============================================

The searches of :mod:`esmo.tuning.estimators` with SMO iterations as the
budget run the same loop: Li et al.'s geometric rounds as the schedule, the
budget itself as the part (``lambda budget: budget``) and a ``fit_and_score``
that resumes a surviving candidate's fit instead of restarting it.

Only numpy and scikit-learn are needed here (the ensembles estimator, a core
module, runs this loop without pandas).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from sklearn.utils import resample

#: Fewest rows of each class a stratified subsample holds (unless the class has fewer).
MIN_PER_CLASS = 2
#: How ties between equal scores are broken when ranking a round: the earlier candidate
#: goes on ("first", both papers) or the later one ("last", scikit-learn's ``_top_k``).
TIES = ("first", "last")
#: The two draws :func:`stratified_rows` can make (see there).
DRAWS = ("resample", "rounded")


class HalvingRound(NamedTuple):
    """One round of a schedule: how many candidates run, and the budget of each fit.

    The budget is what the caller's subsampler is given: training rows (the
    thesis's and the ensembles' schedules) or SMO iterations (the iteration
    budgets of :mod:`esmo.tuning.estimators`, where a surviving fit resumes).
    """

    n_candidates: int
    budget: int


@dataclass(frozen=True)
class Trial:
    """One fit: its round, the candidate's position, the budget, the score and the cost.

    ``cost`` is whatever the caller's ``fit_and_score`` returned beside the score
    (the thesis: the trial record with seconds and iterations; the ensembles: the
    fit log's record).
    """

    round: int
    candidate: int
    budget: int
    score: float
    cost: Any


@dataclass(frozen=True)
class HalvingResult:
    """Every trial in the order run, the winner (a position in the candidates) and its score.

    The winner is the best candidate of the last round, ties broken by the tie
    rule; ``score`` is its score in that round (NaN when nothing was fitted: a
    single candidate and an empty schedule).
    """

    trials: list[Trial]
    winner: int
    score: float


def _ranking(scores: np.ndarray, tie: str) -> np.ndarray:
    """Positions by decreasing score; equal scores by position ("first") or reversed ("last")."""
    if tie == "first":
        return np.argsort(-scores, kind="stable")
    return scores.size - 1 - np.argsort(-scores[::-1], kind="stable")


def _check_schedule(schedule: Sequence[tuple[int, int]], n_candidates: int) -> None:
    if n_candidates < 1:
        raise ValueError("successive halving needs at least one candidate")
    if not schedule:
        if n_candidates == 1:
            return
        raise ValueError(f"the schedule is empty, but there are {n_candidates} candidates")
    counts = [int(k) for k, _ in schedule]
    if counts[0] != n_candidates:
        raise ValueError(
            f"the schedule's first round runs {counts[0]} candidates, but there are "
            f"{n_candidates}; its first round must run them all"
        )
    if any(b < 1 or b > a for a, b in zip(counts, counts[1:], strict=False)):
        raise ValueError(f"round sizes must be positive and non-increasing, got {counts}")


def run_halving(
    candidates: Sequence[Any],
    schedule: Sequence[tuple[int, int]],
    subsample: Callable[[int], Any],
    fit_and_score: Callable[[int, Any, Any], tuple[float, Any]],
    *,
    tie: str = "first",
) -> HalvingResult:
    """Run successive halving: every round fits its survivors on one subsample, the best go on.

    ``schedule`` lists the rounds as ``(n_candidates, budget)`` pairs
    (:class:`HalvingRound`): the first runs every candidate, round t + 1 the best
    ``n_candidates`` of round t. Each round calls ``subsample(budget)`` once,
    before its fits, so all its candidates train on the same part (the
    subsampler holds its own random state, so the draws follow the rounds in
    order); whatever it returns is passed on (a budget of SMO iterations needs
    no subsample: ``lambda budget: budget`` passes the budget itself).
    ``fit_and_score(t, candidate, part)`` fits one candidate (an item of
    ``candidates``) in round t and
    returns ``(score, cost)``; higher scores are better. Within a round the
    candidates are fitted in the order of ``candidates``. ``tie`` (one of
    :data:`TIES`) breaks equal scores, when ranking a round and when choosing
    the winner of the last.
    """
    if tie not in TIES:
        raise ValueError(f"tie must be one of {TIES}, got {tie!r}")
    _check_schedule(schedule, len(candidates))
    trials: list[Trial] = []
    survivors = np.arange(len(candidates))  # positions, in candidates order
    scores, order = np.full(1, np.nan), np.zeros(1, dtype=int)  # an empty schedule's
    for t, (_, budget) in enumerate(schedule):
        part = subsample(budget)
        scores = np.empty(survivors.size)
        for i, position in enumerate(survivors):
            scores[i], cost = fit_and_score(t, candidates[position], part)
            trials.append(Trial(t, int(position), int(budget), float(scores[i]), cost))
        order = _ranking(scores, tie)
        if t + 1 < len(schedule):
            survivors = np.sort(survivors[order[: schedule[t + 1][0]]])
    return HalvingResult(trials, int(survivors[order[0]]), float(scores[order[0]]))


def _check_rows_request(y: np.ndarray, n: int, lower: np.ndarray, min_per_class: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    if n < lower.sum():
        raise ValueError(
            f"cannot draw {n} of {y.size} rows holding at least {min_per_class} rows of each "
            f"class (or all of a smaller class): that takes at least {int(lower.sum())} rows"
        )


def _draw_resample(
    y: np.ndarray, n: int, rng: np.random.RandomState, classes: np.ndarray, lower: np.ndarray
) -> np.ndarray:
    """scikit-learn's ``resample(stratify=y)``, then classes short of ``lower`` topped up.

    A short class gets random unchosen members; as many random members leave
    the class with the most rows above its own minimum (the largest class in the
    subsample whenever every class has ``min_per_class`` rows), the next such
    class if that one runs out.
    """
    chosen = resample(np.arange(y.size), replace=False, n_samples=n, stratify=y, random_state=rng)
    taken = np.zeros(y.size, dtype=bool)
    taken[chosen] = True
    for c, label in enumerate(classes):
        missing = lower[c] - np.count_nonzero(taken & (y == label))
        while missing > 0:
            spare = np.array([np.count_nonzero(taken & (y == k)) for k in classes]) - lower
            donor = int(np.argmax(spare))
            moved = min(missing, int(spare[donor]))
            add = rng.choice(np.flatnonzero(~taken & (y == label)), moved, replace=False)
            drop = rng.choice(np.flatnonzero(taken & (y == classes[donor])), moved, replace=False)
            taken[add] = True
            taken[drop] = False
            missing -= moved
    return np.flatnonzero(taken)


def _draw_rounded(
    y: np.ndarray,
    n: int,
    rng: np.random.Generator,
    classes: np.ndarray,
    counts: np.ndarray,
    lower: np.ndarray,
) -> np.ndarray:
    """``round(n * share)`` rows of each class (half up; at least ``lower``), one draw per class.

    The largest class absorbs the difference to ``n``; where it cannot without
    leaving its own bounds, the next largest absorbs the rest, and so on.
    """
    take = np.maximum(np.minimum(np.floor(n * counts / y.size + 0.5), counts), lower).astype(int)
    excess = int(take.sum()) - n
    for c in np.argsort(-counts, kind="stable"):  # largest class first
        moved = min(excess, take[c] - lower[c]) if excess > 0 else max(excess, take[c] - counts[c])
        take[c] -= moved
        excess -= moved
    chosen = [
        rng.choice(np.flatnonzero(y == label), k, replace=False)
        for label, k in zip(classes, take, strict=True)
    ]
    return np.concatenate(chosen)


def stratified_rows(
    y: np.ndarray,
    n: int,
    rng: np.random.RandomState | np.random.Generator,
    *,
    min_per_class: int = MIN_PER_CLASS,
    draw: str,
) -> np.ndarray:
    """Sorted indices of ``n`` distinct rows of ``y``, stratified, with a minimum of every class.

    Guarantee (either draw): all rows when ``n >= y.size``; else exactly ``n``
    rows, at least ``min(count, min_per_class)`` of every class, and every
    class not topped up to that minimum its share of ``n`` rounded down or up,
    except those that give up rows to make the total ``n`` (the largest class
    first). ``n`` below the sum of the minima raises ``ValueError``. Where the
    two former subsamplers met this guarantee, each draw takes the rows it took
    before; where they did not (``n`` too small, or a donor class left below its
    minimum with three or more classes), they returned a short class or failed
    with an unrelated error.

    The draw keeps each paper's subsamples reproducible (same ``rng``, same rows):

    - ``"resample"`` (the thesis; ``rng`` a ``RandomState``): scikit-learn's
      ``resample(stratify=y)`` (proportional allocation, remainders to the
      largest fractional parts, random ties), then each class short of its
      minimum topped up with random unchosen members that replace random
      members of the class with the most rows to spare.
    - ``"rounded"`` (the ensembles paper; ``rng`` a ``Generator``): each class
      ``round(n * share)`` rows, half up, at least its minimum, the largest
      class absorbing the difference to ``n``; one ``rng.choice`` per class in
      label order.
    """
    y = np.asarray(y)
    if draw not in DRAWS:
        raise ValueError(f"draw must be one of {DRAWS}, got {draw!r}")
    if n >= y.size:
        return np.arange(y.size)
    classes, counts = np.unique(y, return_counts=True)
    lower = np.minimum(counts, min_per_class)
    _check_rows_request(y, n, lower, min_per_class)
    if draw == "resample":
        chosen = _draw_resample(y, n, rng, classes, lower)
    else:
        chosen = _draw_rounded(y, n, rng, classes, counts, lower)
    return np.sort(chosen)
