"""How far an inexact inner solve bends the hypergradient: the thesis's early stopping inside the loop.

SMO is most of the gradient method's time. Stopping it early (after a fixed
number of iterations, or by the thesis's rule on the fold's own smoothed
validation error) gives the hypergradient at an iterate that is not the
optimum; the partition and the bias are taken from that iterate
(:func:`esmo.hypergradient.fold.fit_fold`). :func:`gradient_agreement`
measures the price: the cosine and the relative error between that gradient
and the exact method's, against the SMO iterations spent.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from esmo.early_stopping import EarlyStopping
from esmo.hypergradient.objective import CrossValidationObjective, InnerSolve


def _with_inner(objective: CrossValidationObjective, inner: InnerSolve) -> CrossValidationObjective:
    """The same problem, folds and objective, solved another way."""
    return CrossValidationObjective(
        objective.X,
        objective.y,
        objective.folds,
        objective.space,
        objective=objective.objective,
        sigmoid=objective.sigmoid,
        sharpness=objective.sharpness,
        negative_cost=objective.negative_cost,
        inner=inner,
    )


def gradient_agreement(
    objective: CrossValidationObjective,
    u: np.ndarray,
    *,
    iteration_budgets: Sequence[int] = (),
    early_stopping: Sequence[EarlyStopping] = (),
    warm_from: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """The gradient at ``u`` from inexact solves, beside ``objective``'s own (the reference).

    Each iteration budget caps every fold's SMO at that many pair updates; each
    early-stopping rule stops it on the fold's validation part. With
    ``warm_from`` (an earlier point, as on a tuning path) every solve, the
    reference's too, starts from the folds' exact alphas there. Returns one entry
    per inexact solve (a dict of arrays): ``solve`` (its label), ``smo_iterations``
    (summed over the folds), ``iteration_share`` (of the reference's),
    ``cosine`` and ``relative_error`` (``|g - g_ref| / |g_ref|``), ``f`` and
    ``f_reference``. An early-stopped solve's kernel rows carry the validation
    columns, computed in one longer product: with float64 rows their last bits
    can differ from the reference's, and SMO's path with them, so even a rule
    that never fires agrees with the reference to the solver's tolerance, not
    to the bit.
    """
    u = np.asarray(u, dtype=np.float64)
    inner = objective.inner
    warm = warm_from is not None
    alphas = []
    if warm:
        fits = objective.evaluate(
            np.asarray(warm_from, dtype=np.float64), gradient=False, keep_fits=True
        ).fits
        alphas = [fit.result.alpha for fit in fits]

    def evaluate(solve: InnerSolve):
        problem = _with_inner(objective, replace(solve, warm_start=warm))
        if warm:
            problem.warm_from(alphas)
        return problem.evaluate(u)

    reference = evaluate(inner)
    solves: list[tuple[str, InnerSolve]] = [
        (
            f"iterations<={k}",
            InnerSolve(
                tol=inner.tol,
                max_iter=int(k),
                kernel_dtype=inner.kernel_dtype,
                shrinking=inner.shrinking,
            ),
        )
        for k in iteration_budgets
    ]
    solves += [
        (
            f"early_stopped p={es.patience} tol={es.tol:g} r={es.interval} {es.metric}",
            InnerSolve(
                mode="early_stopped",
                tol=inner.tol,
                max_iter=inner.max_iter,
                early_stopping=es,
                kernel_dtype=inner.kernel_dtype,
                shrinking=inner.shrinking,
            ),
        )
        for es in early_stopping
    ]
    rows = []
    for label, solve in solves:
        ev = evaluate(solve)
        difference = np.linalg.norm(ev.gradient - reference.gradient)
        norms = np.linalg.norm(ev.gradient) * np.linalg.norm(reference.gradient)
        rows.append(
            (
                label,
                ev.smo_iterations,
                ev.smo_iterations / reference.smo_iterations,
                float(ev.gradient @ reference.gradient / norms) if norms > 0 else np.nan,
                float(difference / np.linalg.norm(reference.gradient)),
                ev.value,
                reference.value,
            )
        )
    names = (
        "solve",
        "smo_iterations",
        "iteration_share",
        "cosine",
        "relative_error",
        "f",
        "f_reference",
    )
    return {name: np.array([row[k] for row in rows]) for k, name in enumerate(names)}
