"""Every paper judged by the same machinery: rules fixed before the run, statuses, counts.

Each paper declares, in ``workflow/data/<paper>/rules.csv``, how each of its
numbers is judged: rows ``pattern, rule, argument, reason``, the first pattern
that matches a key (a regular expression over the whole key) giving its rule.
The file is data, written before any run and reviewed beside the paper's
values; a number no rule covers is an error, never a silent pass.

Rules that judge (the row counts as reproduced, explained or not):

- ``equal``: equal to 1e-9 (counts, p-values, selected grid points);
- ``within``: ``|ours - paper| <= argument``, in the value's unit;
- ``within_sibling``: ``|ours - paper|`` at most the paper's value under the
  sibling key whose last field is ``argument`` (a mean within the paper's std);
- ``binomial``: within two binomial standard errors of the paper's proportion on
  ``argument`` test points, and at least one point (a single split's accuracy
  or recall);
- ``factor``: ``paper / argument <= ours <= paper * argument`` (ratios, stds);
- ``effective_patience``: the patience as ``p * r``, each side with its own
  interval (the sibling key ``interval``, 1 where absent), within a factor;
- ``sign``: ``ours`` strictly on the paper's side of ``argument``.

Rules that list a row apart, never counted (the reason says why):

- ``setting``: a configured value the paper also states, which cannot fail;
- ``consequence``: arithmetic of another row or of the design;
- ``context``: shown for reference, judged through another row.

A number that is not reproduced becomes ``explained`` when the paper's
explanations file (``pattern, explanation``) names a cause for it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from esmo.papers.common.reproduction import CLAIM_COLUMNS, STATUSES, reproduction_table
from esmo.papers.common.tables import require_columns

#: Columns of a paper's rules file.
RULE_COLUMNS = ["pattern", "rule", "argument", "reason"]
#: Rules that judge a number; the value is whether the rule takes a numeric argument.
JUDGING_RULES = {
    "equal": False,
    "within": True,
    "within_sibling": False,
    "binomial": True,
    "factor": True,
    "effective_patience": True,
    "sign": True,
}
#: Rules that list a number apart: its status is the rule's name, and it is never counted.
APART_RULES = ("setting", "consequence", "context")
#: The statuses counted in a summary; the others are listed apart.
COUNTED = ("reproduced", "explained", "not reproduced")
#: Columns added by :func:`judge_numbers`.
JUDGED_EXTRA = ["criterion", "status", "explanation"]
#: Tolerance of ``equal``.
EQUAL_RTOL = 1e-9


class Rule(NamedTuple):
    """One line of a rules file, checked: a compiled pattern and its rule."""

    pattern: re.Pattern[str]
    rule: str
    argument: str
    reason: str


def load_rules(path: str | Path) -> list[Rule]:
    """Read and check a rules file (see the module docstring); messages name ``path``."""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    return check_rules(table, path)


def check_rules(table: pd.DataFrame, source: str | Path = "the rules file") -> list[Rule]:
    """The rules of ``table``, each pattern compiled and each argument checked up front."""
    require_columns(table, RULE_COLUMNS, f"rules ({source})")
    rules = []
    for line, row in enumerate(table[RULE_COLUMNS].itertuples(index=False), start=2):
        where = f"{source}, line {line}"
        try:
            pattern = re.compile(str(row.pattern))
        except re.error as err:
            raise ValueError(
                f"{where}: pattern {row.pattern!r} is not a regular expression ({err})"
            ) from None
        name, argument = str(row.rule).strip(), str(row.argument).strip()
        if name not in JUDGING_RULES and name not in APART_RULES:
            known = ", ".join([*JUDGING_RULES, *APART_RULES])
            raise ValueError(f"{where}: unknown rule {name!r}; use one of {known}")
        if JUDGING_RULES.get(name):
            try:
                number = float(argument)
            except ValueError:
                raise ValueError(
                    f"{where}: rule {name!r} needs a number as argument, got {argument!r}"
                ) from None
            if name in ("binomial", "factor", "effective_patience") and not number > 0:
                raise ValueError(
                    f"{where}: rule {name!r} needs a positive argument, got {argument!r}"
                )
        if name == "within_sibling" and not argument:
            raise ValueError(
                f"{where}: rule 'within_sibling' needs the sibling's last field as argument"
            )
        if name in APART_RULES and not str(row.reason).strip():
            raise ValueError(f"{where}: a {name!r} row must say in 'reason' why it is not counted")
        rules.append(Rule(pattern, name, argument, str(row.reason).strip()))
    return rules


def _sibling(key: str, field: str) -> str:
    return f"{key.rpartition('.')[0]}.{field}"


Test = Callable[[float, float], bool]


def criterion(
    key: str, rule: Rule, paper: Mapping[str, float], ours: Mapping[str, float], unit: str
) -> tuple[str, Test | None]:
    """How row ``key`` is judged under ``rule``: a description and a test ``(ours, paper)``.

    The test is None for a row listed apart (its status is then the rule's name).
    """
    name, argument = rule.rule, rule.argument
    if name in APART_RULES:
        return f"{name}: {rule.reason}", None
    if name == "equal":
        return "equal", lambda o, p: math.isclose(o, p, rel_tol=EQUAL_RTOL, abs_tol=1e-12)
    a = float(argument) if JUDGING_RULES[name] else math.nan
    if name == "within":
        return f"within {a:g} {unit}".rstrip(), lambda o, p: abs(o - p) <= a
    if name == "within_sibling":
        spread = paper.get(_sibling(key, argument), math.nan)
        if math.isnan(spread):
            raise ValueError(
                f"{key}: rule within_sibling needs the paper's {_sibling(key, argument)}"
            )
        return f"within the paper's {argument} ({spread:g})", lambda o, p: abs(o - p) <= spread
    if name == "binomial":
        scale = 100.0 if unit == "%" else 1.0
        share = paper[key] / scale
        bound = 2.0 * math.sqrt(max(share * (1.0 - share), 0.25 / a) / a) * scale
        return (
            f"within two binomial standard errors on {a:g} points ({bound:.3g})",
            lambda o, p: abs(o - p) <= bound,
        )
    if name == "factor":
        return f"within a factor {a:g}", lambda o, p: p / a <= o <= p * a
    if name == "effective_patience":
        theirs_r = paper.get(_sibling(key, "interval"), 1.0)
        ours_r = ours.get(_sibling(key, "interval"), 1.0)
        ours_r = 1.0 if math.isnan(ours_r) else ours_r
        target = paper[key] * theirs_r
        return (
            f"effective patience p * r within a factor {a:g} of the paper's {target:g} iterations",
            lambda o, p: target / a <= o * ours_r <= target * a,
        )
    # sign: on the paper's side of the argument
    return (
        f"on the paper's side of {a:g}",
        lambda o, p: (o - a) * (p - a) > 0,
    )


def rule_for(key: str, rules: list[Rule], source: str) -> Rule:
    """The first rule whose pattern matches the whole ``key``; none is an error."""
    for rule in rules:
        if rule.pattern.fullmatch(key):
            return rule
    raise ValueError(
        f"no rule judges {key!r}; add a line for it to {source} (every number's rule is "
        "written before the run)"
    )


def explainer(
    explanations: pd.DataFrame | None, source: str = "the explanations file"
) -> Callable[[str], str]:
    """``key -> explanation`` (empty when none names it); the first matching pattern wins."""
    if explanations is None or explanations.empty:
        return lambda key: ""
    require_columns(explanations, ["pattern", "explanation"], "explanations")
    rules = []
    for pattern, text in zip(explanations["pattern"], explanations["explanation"], strict=True):
        try:
            rules.append((re.compile(pattern), str(text)))
        except re.error as err:
            raise ValueError(
                f"explanations: pattern {pattern!r} is not a regular expression ({err}); "
                f"fix it in {source}"
            ) from None

    def explain(key: str) -> str:
        return next((text for regex, text in rules if regex.fullmatch(key)), "")

    return explain


def _status(ours: float, ok: bool) -> str:
    if ours is None or math.isnan(ours):
        return "not measured"
    return "reproduced" if ok else "not reproduced"


def judge_numbers(
    table: pd.DataFrame,
    rules: list[Rule],
    explanations: pd.DataFrame | None = None,
    *,
    label: str = "paper",
    source: str = "the rules file",
    explanations_source: str = "the explanations file",
) -> pd.DataFrame:
    """A reproduction table (``esmo.papers.common.reproduction``) with criterion, status, explanation.

    ``source`` and ``explanations_source`` name the files the messages tell to fix.
    """
    columns = ["key", "unit", label, "ours"]
    require_columns(table, columns, "the reproduction table")
    paper = dict(zip(table["key"], table[label].astype(float), strict=True))
    ours = dict(zip(table["key"], table["ours"].astype(float), strict=True))
    explain = explainer(explanations, explanations_source)
    criteria, statuses, notes = [], [], []
    for key, unit in zip(table["key"], table["unit"].fillna(""), strict=True):
        rule = rule_for(key, rules, source)
        text, test = criterion(key, rule, paper, ours, str(unit))
        if test is None:
            status = rule.rule
        else:
            status = _status(ours[key], not math.isnan(ours[key]) and test(ours[key], paper[key]))
        note = explain(key) if status == "not reproduced" else ""
        criteria.append(text)
        statuses.append("explained" if note else status)
        notes.append(note)
    return table.assign(criterion=criteria, status=statuses, explanation=notes)


def judge_claims(
    claims: pd.DataFrame,
    explanations: pd.DataFrame | None = None,
    explanations_source: str = "the explanations file",
) -> pd.DataFrame:
    """Claims with a status: reproduced when they hold, else explained or not reproduced."""
    require_columns(claims, CLAIM_COLUMNS[:5], "claims")
    explain = explainer(explanations, explanations_source)
    statuses, notes = [], []
    for row in claims.itertuples(index=False):
        if row.holds is None or (isinstance(row.holds, float) and math.isnan(row.holds)):
            statuses.append("not measured")
            notes.append("")
            continue
        note = "" if row.holds else explain(str(row.claim))
        statuses.append("reproduced" if row.holds else "explained" if note else "not reproduced")
        notes.append(note)
    return claims.assign(status=statuses, explanation=notes)[CLAIM_COLUMNS]


def status_counts(table: pd.DataFrame) -> dict[str, int]:
    """How many rows of a judged table have each status (every status, zeros included)."""
    unknown = set(table["status"]) - set(STATUSES)
    if unknown:
        raise ValueError(f"unknown status(es) {sorted(unknown)}; known: {list(STATUSES)}")
    counts = table["status"].value_counts()
    return {status: int(counts.get(status, 0)) for status in STATUSES}


def _counted_text(name: str, counts: Mapping[str, int]) -> str:
    """``"N numbers: a reproduced, b explained, c not"``: the counted statuses of ``counts``."""
    judged = sum(counts[s] for s in COUNTED)
    return (
        f"{judged} {name}: {counts['reproduced']} reproduced, {counts['explained']} explained, "
        f"{counts['not reproduced']} not"
    )


def summary_line(numbers: pd.DataFrame, claims: pd.DataFrame | None = None) -> str:
    """Counted numbers and claims by status, then what is listed apart or not measured."""
    parts = []
    for name, table in (("numbers", numbers), ("claims", claims)):
        if table is None:
            continue
        c = status_counts(table)
        text = _counted_text(name, c)
        apart = sum(c[s] for s in APART_RULES)
        if apart:
            text += (
                f" ({apart} listed apart: "
                + ", ".join(f"{c[s]} {s}" for s in APART_RULES if c[s])
                + ")"
            )
        if c["not measured"]:
            text += f", {c['not measured']} not measured"
        parts.append(text)
    return "; ".join(parts)


def judge_paper(
    values: pd.DataFrame,
    ours: Mapping[str, float],
    rules_path: str | Path,
    *,
    label: str = "paper",
    values_source: str | Path = "the paper-values file",
    explanations: pd.DataFrame | None = None,
    explanations_source: str | Path = "the explanations file",
) -> pd.DataFrame:
    """A paper's values beside ours (:func:`reproduction_table`), judged by its rules file."""
    table = reproduction_table(values, ours, label=label, source=values_source)
    return judge_numbers(
        table,
        load_rules(rules_path),
        explanations,
        label=label,
        source=str(rules_path),
        explanations_source=str(explanations_source),
    )


def verdicts(papers: Mapping[str, tuple[pd.DataFrame, pd.DataFrame | None]]) -> pd.DataFrame:
    """One line per paper and one for the project: counts of numbers and claims by status.

    ``papers`` maps a paper's name to its judged numbers and judged claims (None
    where the paper has no claims table). Columns: ``paper``, then for numbers
    and claims each ``reproduced``, ``explained``, ``not reproduced``, ``listed
    apart`` and ``not measured``, then the paper's :func:`summary_line`.
    """
    empty = pd.DataFrame({"status": pd.Series(dtype=str)})
    rows = []
    for paper, (numbers, claims) in papers.items():
        row: dict[str, object] = {"paper": paper}
        for name, table in (("numbers", numbers), ("claims", empty if claims is None else claims)):
            c = status_counts(table)
            for status in COUNTED:
                row[f"{name} {status}"] = c[status]
            row[f"{name} listed apart"] = sum(c[s] for s in APART_RULES)
            row[f"{name} not measured"] = c["not measured"]
        row["summary"] = summary_line(numbers, claims)
        rows.append(row)
    table = pd.DataFrame(rows)
    total = table.drop(columns=["paper", "summary"]).sum().astype(int)
    total_line = "; ".join(
        _counted_text(name, {s: total[f"{name} {s}"] for s in COUNTED})
        for name in ("numbers", "claims")
    )
    project = {"paper": "project", **total.to_dict(), "summary": total_line}
    return pd.concat([table, pd.DataFrame([project])], ignore_index=True)
