"""The gradient-tuning paper's tables, fig 1, claims and reproduction table, from the cells' rows.

Input is the concatenation of the cells' rows (``esmo.papers.gradient.cells.ROW_COLUMNS``).
Every entry is "mean (sd)" over seeds with the sample sd (ddof = 1), as the
paper prints it; error rates in percent. The paper's numbers of tables 1-3 and
fig 1 were lost in its text (`docs/gradient-protocol.md` sec
6), so the tables have its shape and our numbers, and the surviving numbers
and the seven claims of sec 6 are checked in :func:`our_values` and :func:`claims`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from scipy.stats import spearmanr

from esmo.papers.common.tables import require_columns

_CELL_KEYS = ["dataset", "paper_dataset", "n_trg"]

#: Table 1/2 columns per method: (measure, label); Grad-ARD's cpu is its extra cost over Grad.
TABLE_MEASURES: dict[str, list[tuple[str, str]]] = {
    "grid": [("cpu_seconds", "Grid cpu"), ("test_error", "Grid erate")],
    "grad": [("nf", "Grad nf"), ("cpu_seconds", "Grad cpu"), ("test_error", "Grad erate")],
    "grad_ard": [
        ("nf", "Grad-ARD nf"),
        ("cpu_seconds", "Grad-ARD extra cpu"),
        ("test_error", "Grad-ARD erate"),
    ],
}


def mean_sd(values: pd.Series) -> tuple[float, float, int]:
    """Mean, sample sd (ddof = 1; NaN for one value) and count of the finite values."""
    v = pd.to_numeric(values, errors="coerce").dropna()
    if v.empty:
        return math.nan, math.nan, 0
    return float(v.mean()), float(v.std(ddof=1)) if len(v) > 1 else math.nan, len(v)


def fmt(mean: float, sd: float, digits: int = 2) -> str:
    """ "mean (sd)" as the paper prints it; a dash for a missing mean, no sd for one seed."""
    if math.isnan(mean):
        return "-"
    return f"{mean:.{digits}f}" if math.isnan(sd) else f"{mean:.{digits}f} ({sd:.{digits}f})"


def select_cells(cells: pd.DataFrame, members: Sequence[Sequence[object]]) -> pd.DataFrame:
    """The rows of ``cells`` whose (dataset, n_trg, seed, method) is among ``members``."""
    wanted = {(str(d), int(n), int(s), str(m)) for d, n, s, m in members}
    keys = zip(cells["dataset"].astype(str), cells["n_trg"].astype(int), cells["seed"].astype(int),
               cells["method"].astype(str), strict=True)  # fmt: skip
    return cells[[key in wanted for key in keys]].reset_index(drop=True)


def by_experiment(
    cells: pd.DataFrame, experiments: Mapping[str, Sequence[Sequence[object]]]
) -> dict[str, pd.DataFrame]:
    """Each experiment's rows (a cell shared by two experiments is in both), plus ``speed``: tables 1 and 2."""
    parts = {name: select_cells(cells, members) for name, members in experiments.items()}
    speed = [*experiments.get("table1", []), *experiments.get("table2", [])]
    parts["speed"] = select_cells(cells, speed)
    return parts


def summarise(cells: pd.DataFrame, measures: Sequence[str]) -> pd.DataFrame:
    """Long table: per (dataset, n_trg, method) and measure, the mean, sd and number of seeds."""
    require_columns(cells, [*_CELL_KEYS, "method", *measures], "cells")
    rows = []
    for key, part in cells.groupby([*_CELL_KEYS, "method"], sort=True):
        for measure in measures:
            mean, sd, n = mean_sd(part[measure])
            rows.append({**dict(zip([*_CELL_KEYS, "method"], key, strict=True)),
                         "measure": measure, "mean": mean, "sd": sd, "n_seeds": n})  # fmt: skip
    return pd.DataFrame(rows)


#: The tuners' names in the terminations columns of tables 1 and 2.
TERMINATION_LABELS = {"grad": "Grad", "grad_ard": "Grad-ARD"}


def terminations(runs: pd.DataFrame) -> str:
    """How the runs ended, counted: ``"converged 1; max_fun 2"`` (alphabetical)."""
    counts = runs["termination"].fillna("").astype(str).value_counts().sort_index()
    return "; ".join(f"{name or 'unknown'} {n}" for name, n in counts.items())


def speed_table(cells: pd.DataFrame, methods: Sequence[str]) -> pd.DataFrame:
    """Tables 1 and 2: one row per (dataset, n_trg), "mean (sd)" per method and measure.

    Numbers stay in ``<label> mean`` / ``<label> sd`` columns beside the
    formatted ones; Grid's nf (225 at full scale) and stopped runs are counted,
    and how each tuner's runs ended (BFGS converged, ``max_fun``,
    ``line_search_failed``, ``no_decrease``): a run cut short is not a converged one.
    """
    part = cells[cells["method"].isin(methods)]
    measures = sorted({m for method in methods for m, _ in TABLE_MEASURES[method]})
    long = summarise(part, measures)
    out = []
    for key, block in long.groupby(_CELL_KEYS, sort=False):
        row: dict[str, object] = dict(zip(_CELL_KEYS, key, strict=True))
        for method in methods:
            for measure, label in TABLE_MEASURES[method]:
                hit = block[(block["method"] == method) & (block["measure"] == measure)]
                mean, sd = (
                    (hit["mean"].iloc[0], hit["sd"].iloc[0]) if len(hit) else (math.nan, math.nan)
                )
                digits = 1 if measure == "nf" else 2
                row[label] = fmt(mean, sd, digits)
                row[f"{label} mean"], row[f"{label} sd"] = mean, sd
        cell = part[(part["dataset"] == key[0]) & (part["n_trg"] == key[2])]
        grid = cell[cell["method"] == "grid"]
        row["Grid stopped"] = int(grid["stopped"].astype(bool).sum())
        for method in methods:
            if method != "grid":
                runs = cell[cell["method"] == method]
                row[f"{TERMINATION_LABELS[method]} terminations"] = terminations(runs)
        row["seeds"] = int(block["n_seeds"].max())
        out.append(row)
    return (
        pd.DataFrame(out)
        .sort_values(["paper_dataset", "n_trg"], kind="stable")
        .reset_index(drop=True)
    )


def f_measure_table(cells: pd.DataFrame) -> pd.DataFrame:
    """The F experiment: CV and test F, mean (sd), theta_0 = 0 against tuned, and the paired gain."""
    rows = []
    for method, label in (("f_direct", "theta0 = 0"), ("f_bias", "theta0 tuned")):
        part = cells[cells["method"] == method]
        if part.empty:
            continue
        row: dict[str, object] = {"dataset": part["dataset"].iloc[0], "n_trg": int(part["n_trg"].iloc[0]),
                                  "threshold": label}  # fmt: skip
        for measure, name in (("cv_f_measure", "CV F"), ("test_f_measure", "test F"), ("nf", "nf")):
            mean, sd, n = mean_sd(part[measure])
            row[name] = fmt(mean, sd, 1 if measure == "nf" else 4)
            row[f"{name} mean"], row[f"{name} sd"] = mean, sd
        row["seeds"] = n
        rows.append(row)
    return pd.DataFrame(rows)


def paired(
    cells: pd.DataFrame, a: str, b: str, measure: str, keys: Sequence[str] = ("dataset", "n_trg")
) -> pd.DataFrame:
    """Per seed ``measure`` of method ``b`` minus method ``a`` (paired on dataset, n_trg, seed)."""
    left = cells[cells["method"] == a].set_index([*keys, "seed"])[measure]
    right = cells[cells["method"] == b].set_index([*keys, "seed"])[measure]
    both = pd.concat({"a": left, "b": right}, axis=1).dropna()
    return (both["b"] - both["a"]).rename("difference").reset_index()


def weighted_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Table 3: validation and test weighted error (%), mean (sd), 4 methods x theta_0 tuned / 0."""
    rows = []
    for half, label in (("bias", "theta0 tuned"), ("direct", "theta0 = 0")):
        for method in (1, 2, 3, 4):
            part = cells[cells["method"] == f"wer{method}_{half}"]
            if part.empty:
                continue
            row: dict[str, object] = {"dataset": part["dataset"].iloc[0], "n_trg": int(part["n_trg"].iloc[0]),
                                      "threshold": label, "method": method}  # fmt: skip
            for measure, name in (
                ("cv_weighted_error", "validation wer"),
                ("test_weighted_error", "test wer"),
            ):
                mean, sd, n = mean_sd(part[measure])
                row[name] = fmt(mean, sd)
                row[f"{name} mean"], row[f"{name} sd"] = mean, sd
            row["seeds"] = n
            rows.append(row)
    return pd.DataFrame(rows)


def cost_breakup(cells: pd.DataFrame) -> pd.DataFrame:
    """Claim 7: per (dataset, n_trg, method), mean tuning cpu and the SMO / solve / rest shares (%)."""
    tuned = cells[cells["cpu_seconds"].notna() & (cells["cpu_seconds"] > 0)]
    rows = []
    for key, part in tuned.groupby([*_CELL_KEYS, "method"], sort=True):
        total = part["cpu_seconds"].sum()
        rows.append({
            **dict(zip([*_CELL_KEYS, "method"], key, strict=True)),
            "cpu_seconds": part["cpu_seconds"].mean(),
            "smo_share": 100.0 * part["smo_seconds"].sum() / total,
            "solve_share": 100.0 * part["solve_seconds"].sum() / total,
            "rest_share": 100.0 * part["rest_seconds"].sum() / total,
            "refit_seconds": part["refit_seconds"].mean(),
            "seeds": len(part),
        })  # fmt: skip
    return pd.DataFrame(rows)


#: Grad "stalls" on a cell when it ends this many points of CV error above Grid's best.
STALL_POINTS = 5.0


def start_table(cells: pd.DataFrame) -> pd.DataFrame:
    """Grad from the paper's start (C = gamma = 1) beside Grad from the data-scaled start.

    One row per (dataset, n_trg, seed) where Grid, Grad and ``grad_scaled`` ran:
    each one's CV and test error (%), evaluations and termination; ``stalled``
    when Grad ends :data:`STALL_POINTS` or more above Grid's CV error.
    """
    keys = [*_CELL_KEYS, "seed"]
    columns = ["cv_error", "test_error", "nf", "termination", "start_log2_gamma"]
    wide = {
        method: cells[cells["method"] == method].set_index(keys)[columns]
        for method in ("grid", "grad", "grad_scaled")
    }
    both = wide["grad"].join(wide["grad_scaled"], lsuffix="_grad", rsuffix="_scaled", how="inner")
    both = both.join(wide["grid"]["cv_error"].rename("cv_error_grid"), how="inner")
    both = both.drop(columns=["start_log2_gamma_grad"]).reset_index()
    both["stalled"] = both["cv_error_grad"] - both["cv_error_grid"] >= STALL_POINTS
    both["scaled_lower"] = both["cv_error_scaled"] < both["cv_error_grad"]
    return both


def restarts_table(cells: pd.DataFrame, dataset: str, n_trg: int, seed: int) -> pd.DataFrame:
    """Claim 6: Grad's final f, CV and test error from C = gamma = 1 and from each random restart."""
    part = cells[
        (cells["dataset"] == dataset) & (cells["n_trg"] == n_trg) & (cells["seed"] == seed)
    ]
    part = part[(part["method"] == "grad") | part["method"].str.fullmatch(r"restart[0-9]+")]
    columns = ["method", "start_log2_C", "start_log2_gamma", "nf", "objective", "cv_error", "test_error",
               "log2_C", "log2_gamma"]  # fmt: skip
    return part[columns].sort_values("method").reset_index(drop=True)


def plot_fig1(
    grid: pd.DataFrame,
    test: pd.DataFrame,
    path: pd.DataFrame,
    restarts: Mapping[str, pd.DataFrame],
    *,
    title: str,
) -> Figure:
    """Fig 1: smoothed CV error and test error over (log2 C, log2 gamma), Grad's path, Grid's pick.

    ``grid`` is Grid's table (``smoothed_error``, ``cv_error``), ``test`` the
    test-error grid, ``path`` Grad's history and ``restarts`` the restarts' histories.
    """
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6), sharex=True, sharey=True)
    pick = grid.sort_values(["cv_error", "log2_C", "log2_gamma"]).iloc[0]
    panels = (
        (grid, "smoothed_error", "smoothed 5-fold CV error"),
        (test, "test_error", "test error (%)"),
    )
    for ax, (table, column, label) in zip(axes, panels, strict=True):
        surface = table.pivot(index="log2_gamma", columns="log2_C", values=column)
        filled = ax.contourf(
            surface.columns, surface.index, surface.to_numpy(), levels=15, cmap="viridis"
        )
        fig.colorbar(filled, ax=ax, label=label)
        for name, history in restarts.items():
            ax.plot(history["log2_C"], history["log2_gamma"], ":", color="white", lw=1, marker=".",
                    label="restarts" if name == next(iter(restarts)) else None)  # fmt: skip
        ax.plot(
            path["log2_C"],
            path["log2_gamma"],
            "-o",
            color="tab:red",
            ms=3,
            lw=1.2,
            label="Grad's path",
        )
        ax.plot(path["log2_C"].iloc[-1:], path["log2_gamma"].iloc[-1:], "*", color="tab:red", ms=12)
        ax.plot(
            [pick["log2_C"]],
            [pick["log2_gamma"]],
            "s",
            mfc="none",
            mec="black",
            ms=10,
            label="Grid's pick",
        )
        ax.set_xlabel("log2 C")
        ax.set_title(label)
    axes[0].set_ylabel("log2 gamma")
    axes[0].legend(loc="lower left", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def fig1_values(grid: pd.DataFrame, test: pd.DataFrame, path: pd.DataFrame) -> dict[str, float]:
    """Claim 6's measures: Spearman correlation of the two surfaces; Grad's steps to Grid's best CV error.

    ``steps_to_low_error`` is the first evaluation (1-based) whose hard CV
    error is within 1 point (%) of Grid's best; NaN if the path never gets there.
    """
    both = grid.merge(test, on=["log2_C", "log2_gamma"])
    rho = spearmanr(both["smoothed_error"], both["test_error"]).statistic
    best = 100.0 * grid["cv_error"].min()
    close = np.flatnonzero(100.0 * path["cv_error"].to_numpy() <= best + 1.0)
    return {
        "spearman": float(rho),
        "steps_to_low_error": float(close[0] + 1) if close.size else math.nan,
    }


def verdict(flag: bool | float) -> str:
    """A claim's verdict in the claims table's words; NaN: not measured."""
    if isinstance(flag, float) and math.isnan(flag):
        return "not measured"
    return "holds" if flag else "does not hold"


#: Claim 2's bound on Grad's mean evaluations: the paper's "about 10-20". It was 30
#: until issue 34 found that bound cannot fail: ``tuner.max_fun`` = 30 caps every run.
NF_HIGH = 20

#: Claim 1's "close": Grad's mean paired test error within this many points of Grid's.
#: It was "within the sd of the paired differences" until issue 34's audit: one
#: collapsed seed inflates that sd (Adult: +4.0 points passed with an sd of 5.5).
CLOSE_POINTS = 1.0


def claims_to_judge(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`claims`' verdicts as the shared judging reads claims (``holds`` True, False or None)."""
    require_columns(table, ["claim", "statement", "measure", "verdict"], "claims")
    holds = {"holds": True, "does not hold": False, "not measured": None}
    unknown = set(table["verdict"]) - set(holds)
    if unknown:
        raise ValueError(f"claims: unknown verdict(s) {sorted(unknown)}")
    return pd.DataFrame(
        {
            "claim": table["claim"],
            "section": "Sec 5 (docs/gradient-protocol.md sec 6)",
            "statement": table["statement"],
            "measure": table["measure"],
            "holds": [holds[v] for v in table["verdict"]],
        }
    )


def claims(
    parts: Mapping[str, pd.DataFrame],
    *,
    fig1: Mapping[str, float] | None = None,
    restarts: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The seven claims of docs/gradient-protocol.md sec 6, each with the measure it is judged on and the verdict.

    The rules (fixed before any run): (1) ``|mean paired Grad - Grid test error|
    <= CLOSE_POINTS`` in every (dataset, n_trg); (2) Grad's mean nf <= 30 and Grid/Grad cpu
    > 1 everywhere, rising with n_trg per dataset; (3) Grad-ARD's mean paired
    test error below Grad's in every cell, its extra cpu below Grid's; (4) the
    tuned-threshold gain in CV and test F above the sd of the paired gains; (5)
    method 4 has the lowest mean test wer of table 3's 8 rows, and its
    threshold gain is the smallest (in absolute value); (6) Spearman rho of the
    smoothed CV and test surfaces >= 0.5, Grad's path within 1 point of Grid's
    best CV error in <= 10 evaluations, every restart's final f within 10 % of
    Grad's; (7) SMO's mean share of Grad's and Grad-ARD's tuning time in [85, 95] %.
    """
    out = []
    cells = parts["speed"]

    def add(number: int, statement: str, measure: str, holds: bool | float) -> None:
        out.append(
            {
                "claim": number,
                "statement": statement,
                "measure": measure,
                "verdict": verdict(holds),
            }
        )

    _close_to_grid_claims(cells, add)

    grad = cells[cells["method"] == "grad"]
    grid = cells[cells["method"] == "grid"]
    if grad.empty or grid.empty:
        add(2, "Grad needs 10-20 evaluations against Grid's 225; far less cpu", "not run", math.nan)
    else:
        g = grad.groupby(["dataset", "n_trg"])[["nf", "cpu_seconds"]].mean()
        r = grid.groupby(["dataset", "n_trg"])[["nf", "cpu_seconds"]].mean()
        both = g.add_suffix("_grad").join(r.add_suffix("_grid")).dropna()
        both["ratio"] = both["cpu_seconds_grid"] / both["cpu_seconds_grad"]
        rising = all(part["ratio"].is_monotonic_increasing for _, part in both.groupby(level=0))
        ok = bool((both["nf_grad"] <= NF_HIGH).all() and (both["ratio"] > 1).all() and rising)
        text = "; ".join(f"{k[0]} {k[1]}: nf {v['nf_grad']:.1f} vs {v['nf_grid']:.0f}, cpu ratio {v['ratio']:.1f}"
                         for k, v in both.iterrows())  # fmt: skip
        add(2, "Grad needs 10-20 evaluations against Grid's 225; far less cpu; the ratio grows with n_trg",
            text, ok)  # fmt: skip

    d = paired(cells, "grad", "grad_ard", "test_error")
    if d.empty:
        add(
            3,
            "Grad-ARD's test error is clearly below Grad's at a small extra cpu",
            "not run",
            math.nan,
        )
    else:
        gain = d.groupby(["dataset", "n_trg"])["difference"].mean()
        ard = (
            cells[cells["method"] == "grad_ard"].groupby(["dataset", "n_trg"])["cpu_seconds"].mean()
        )
        grid_cpu = grid.groupby(["dataset", "n_trg"])["cpu_seconds"].mean()
        cheap = (ard / grid_cpu).dropna()
        text = "; ".join(f"{k[0]} {k[1]}: {v:+.2f} %" for k, v in gain.items())
        text += "; extra cpu / Grid cpu: " + ", ".join(f"{v:.2f}" for v in cheap)
        add(3, "Grad-ARD's test error is clearly below Grad's at a small extra cpu", f"ARD - Grad test error: {text}",
            bool((gain < 0).all() and (cheap < 1).all()))  # fmt: skip

    gains = []
    for measure in ("cv_f_measure", "test_f_measure"):
        d = paired(parts["f_measure"], "f_direct", "f_bias", measure)
        if not d.empty:
            gains.append((measure, d["difference"].mean(), d["difference"].std(ddof=1)))
    if not gains:
        add(4, "Tuning theta_0 raises CV and test F far above the split sd", "not run", math.nan)
    else:
        text = "; ".join(f"{m}: {mu:+.4f} (sd {sd:.4f})" for m, mu, sd in gains)
        ok = (
            all(mu > sd for _, mu, sd in gains)
            if all(not math.isnan(sd) for *_, sd in gains)
            else math.nan
        )
        add(
            4,
            "Tuning theta_0 raises CV and test F far above the split sd (paper +0.025, +0.028)",
            text,
            ok,
        )

    table3 = weighted_table(parts["table3"])
    if table3.empty:
        add(
            5,
            "Method 4 (weighted hinge, tuned margins) has the lowest test wer",
            "not run",
            math.nan,
        )
    else:
        best = table3.loc[table3["test wer mean"].idxmin()]
        gains = {}
        for method in (1, 2, 3, 4):
            m = table3[table3["method"] == method].set_index("threshold")["test wer mean"]
            if {"theta0 tuned", "theta0 = 0"} <= set(m.index):
                gains[method] = m["theta0 = 0"] - m["theta0 tuned"]
        text = f"lowest: method {best['method']} ({best['threshold']}, {best['test wer mean']:.2f} %); " + \
            "threshold gain per method: " + ", ".join(f"{k}: {v:+.2f}" for k, v in gains.items())  # fmt: skip
        smallest = len(gains) == 4 and abs(gains[4]) <= min(abs(gains[k]) for k in (1, 2, 3))
        add(5, "Method 4 has the lowest test wer; theta_0 matters for methods 1-3, hardly for 4", text,
            bool(best["method"] == 4 and smallest))  # fmt: skip

    if not fig1:
        add(6, "Smoothed CV contours resemble test contours; Grad reaches the low-error region fast; "
               "no local minima", "not run", math.nan)  # fmt: skip
    else:
        text = f"Spearman rho {fig1['spearman']:.2f}; steps to within 1 point of Grid's best CV error: " \
               f"{fig1['steps_to_low_error']:.0f}"  # fmt: skip
        ok = fig1["spearman"] >= 0.5 and fig1["steps_to_low_error"] <= 10
        if restarts is not None and len(restarts) > 1:
            base = restarts.loc[restarts["method"] == "grad", "objective"].iloc[0]
            others = restarts.loc[restarts["method"] != "grad", "objective"]
            spread = float((others - base).abs().max() / abs(base)) if base else math.nan
            text += (
                f"; restarts' final f: {', '.join(f'{v:.4f}' for v in others)} vs Grad's {base:.4f}"
            )
            ok = ok and spread <= 0.10
        add(6, "Smoothed CV contours resemble test contours; Grad reaches the low-error region fast; "
               "no local minima", text, bool(ok))  # fmt: skip

    costs = cost_breakup(cells)
    costs = costs[costs["method"].isin(["grad", "grad_ard"])]
    if costs.empty:
        add(7, "SMO takes 85-95 % of the tuning time", "not run", math.nan)
    else:
        text = "; ".join(f"{r.dataset} {r.n_trg} {r.method}: SMO {r.smo_share:.0f} %, solve {r.solve_share:.0f} %"
                         for r in costs.itertuples())  # fmt: skip
        share = costs["smo_share"].mean()
        add(7, "SMO takes 85-95 % of the tuning time; the solve and gradient pieces are cheap",
            f"mean SMO share {share:.1f} % ({text})", bool(85.0 <= share <= 95.0))  # fmt: skip
    _smo_share_cause(parts.get("smo_share"), add)
    _plateau_claim(cells, add)
    return pd.DataFrame(out)


def _smo_share_cause(cells: pd.DataFrame | None, add: Callable[..., None]) -> None:
    """Beyond the paper (issue 34): claim 7's shortfall comes from esmo's fast SMO.

    Rule: on the ``smo_share`` cells, Grad with appendix A's plain NumPy SMO (the
    same path, nothing cached) spends >= 85 % of its tuning time in SMO, the
    paper's lower bound; not run: not measured.
    """
    statement = (
        "Beyond the paper: claim 7's shortfall is our SMO's speed; with appendix A's plain "
        "NumPy SMO, SMO takes >= 85 % of Grad's tuning time"
    )
    if cells is None or "grad_plain_smo" not in set(cells["method"]):
        add("7_cause", statement, "not run", math.nan)
        return
    costs = cost_breakup(cells).set_index([*_CELL_KEYS, "method"])["smo_share"].unstack()
    text = "; ".join(
        f"{key[0]} {key[2]}: ours {row['grad']:.0f} %, plain {row['grad_plain_smo']:.0f} %"
        for key, row in costs.iterrows()
    )
    add("7_cause", statement, text, bool((costs["grad_plain_smo"] >= 85.0).all()))


def _close_to_grid(cells: pd.DataFrame, method: str) -> tuple[str, bool | float]:
    """Per cell, ``method``'s mean (sd) paired test error minus Grid's, and whether every
    mean lies within :data:`CLOSE_POINTS` (NaN when the cells lack either method)."""
    d = paired(cells, "grid", method, "test_error")
    if d.empty:
        return "not run", math.nan
    stats = d.groupby(["dataset", "n_trg"])["difference"].agg(["mean", lambda s: s.std(ddof=1)])
    stats.columns = ["mean", "sd"]
    text = "; ".join(
        f"{k[0]} {k[1]}: {r['mean']:+.2f} ({r['sd']:.2f})" for k, r in stats.iterrows()
    )
    return f"{method} - Grid test error, mean (sd) %: {text}", bool(
        (stats["mean"].abs() <= CLOSE_POINTS).all()
    )


def _close_to_grid_claims(cells: pd.DataFrame, add: Callable[..., None]) -> None:
    """Claim 1 on Grad from the paper's start and, beyond the paper (issue 34), its cause
    tested: from the data-scaled start the same rule holds (``1_cause``)."""
    within = f"mean paired difference within {CLOSE_POINTS:g} point in every cell"
    add(1, f"Grad's test error is close to Grid's: {within}", *_close_to_grid(cells, "grad"))
    measure, ok = _close_to_grid(cells, "grad_scaled")
    add(
        "1_cause",
        "Beyond the paper: claim 1's shortfall is Grad's start (C = gamma = 1); from "
        f"gamma = 1/(d var X), Grad's test error is close to Grid's: {within}",
        measure,
        ok,
    )


def _plateau_claim(cells: pd.DataFrame, add: Callable[..., None]) -> None:
    """Beyond the paper (issue 34): Grad's stalls come from its start on a plateau.

    Rule: on every cell where Grad from C = gamma = 1 stalls (:func:`start_table`),
    Grad from the data-scaled start ends at a lower CV error; no stalled cell:
    not measured.
    """
    statement = (
        "Beyond the paper: where Grad from C = gamma = 1 stalls (CV error >= "
        f"{STALL_POINTS:g} points above Grid's), the start lies on a plateau: Grad from "
        "gamma = 1/(d var X) ends lower"
    )
    table = start_table(cells) if "grad_scaled" in set(cells["method"]) else pd.DataFrame()
    stalled = table[table["stalled"]] if len(table) else table
    if stalled.empty:
        add("plateau", statement, "no stalled cell" if len(table) else "not run", math.nan)
        return
    text = "; ".join(
        f"{r.dataset} {r.n_trg} seed {r.seed}: {r.cv_error_grad:.1f} -> {r.cv_error_scaled:.1f} % "
        f"(Grid {r.cv_error_grid:.1f})"
        for r in stalled.itertuples()
    )
    add("plateau", statement, text, bool(stalled["scaled_lower"].all()))


def our_values(
    parts: Mapping[str, pd.DataFrame], *, settings: Mapping[str, float]
) -> dict[str, float]:
    """Our numbers under the keys of ``workflow/data/gradient/paper_values.csv``."""
    ours: dict[str, float] = {}
    cells = parts["speed"]
    f = f_measure_table(parts["f_measure"])
    for label, key in (("theta0 = 0", "zero"), ("theta0 tuned", "tuned")):
        hit = f[f["threshold"] == label]
        if len(hit):
            for name, short in (("CV F", "cv"), ("test F", "test")):
                ours[f"f.{key}.{short}_mean"] = float(hit[f"{name} mean"].iloc[0])
                ours[f"f.{key}.{short}_sd"] = float(hit[f"{name} sd"].iloc[0])
    for short, measure in (("cv", "cv_f_measure"), ("test", "test_f_measure")):
        d = paired(parts["f_measure"], "f_direct", "f_bias", measure)
        if not d.empty:
            ours[f"f.gain.{short}"] = float(d["difference"].mean())
    grad = cells[cells["method"] == "grad"].groupby(["dataset", "n_trg"])["nf"].mean()
    if len(grad):
        ours["grad.nf.low"], ours["grad.nf.high"] = float(grad.min()), float(grad.max())
    grid = cells[(cells["method"] == "grid") & ~cells["stopped"].astype(bool)]
    if len(grid):
        ours["grid.nf"] = float(grid["nf"].median())
    costs = cost_breakup(cells)
    costs = costs[costs["method"].isin(["grad", "grad_ard"])]
    if len(costs):
        ours["smo_share.low"], ours["smo_share.high"] = (
            float(costs["smo_share"].min()),
            float(costs["smo_share"].max()),
        )
    ours["settings.sharpness"] = float(settings["sharpness"])
    ours["settings.rtol"] = float(settings["rtol"])
    stopped = cells[
        (cells["method"] == "grid") & (cells["dataset"] == "vehicle") & (cells["n_trg"] == 16000)
    ]
    stopped = stopped[stopped["stopped"].astype(bool)]
    if len(stopped):  # cluster scale only: Grid's cpu when the time limit stopped it
        ours["table2.vehicle.16000.grid_stopped_days"] = float(
            stopped["cpu_seconds"].mean() / 86400.0
        )
    return ours
