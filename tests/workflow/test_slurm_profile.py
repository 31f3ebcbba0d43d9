"""profiles/slurm packs short jobs: the paper-scale configs submit no thousands of
seconds-long SLURM jobs (issue: Snakemake's current conventions).

A dry run through the profile prints what the SLURM executor would submit: a
"Group job NAME" block per packed job, a top-level ``rule`` block per lone job
(``localrule`` blocks run on the submit host). Each job's size comes from its
wildcards, read independently of the workflow's own packing functions.
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
PROFILE = yaml.safe_load((REPO / "profiles" / "slurm" / "config.yaml").read_text())
GROUP_SIZES = dict(item.split("=") for item in PROFILE["group-components"])

pytestmark = pytest.mark.workflow

Submission = tuple[str | None, list[tuple[str, dict]]]


def submissions(workdir: Path, target: str, configfile: str) -> list[Submission]:
    """The SLURM jobs a dry run would submit: (group or None, [(rule, wildcards), ...])."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    cmd += ["--directory", str(workdir), "-n", "--profile", str(REPO / "profiles/slurm")]
    cmd += ["--configfile", str(REPO / "config" / configfile), "--", target]
    env = os.environ | {"ESMO_SOFTWARE": "installed"}
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, env=env, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    jobs: list[Submission] = []
    current: list[tuple[str, dict]] | None = None  # the open submission's rule jobs
    for line in result.stdout.splitlines():
        if group := re.search(r"\] Group job (\w+) ", line):
            current = []
            jobs.append((group.group(1), current))
        elif match := re.fullmatch(r"( *)(local)?rule (\w+):", line):
            indent, local, rule = match.groups()
            if not indent:  # a lone job: a submission of its own, or the submit host's
                current = None if local else []
                if current is not None:
                    jobs.append((None, current))
            if current is not None:
                current.append((rule, {}))
        elif current and line.strip().startswith("wildcards:"):
            pairs = line.split(":", 1)[1].split(",")
            current[-1][1].update(pair.strip().split("=", 1) for pair in pairs)
    return jobs


def ensembles_rows(cell: str, n_full: int) -> int:
    """Rows one SVM of a cell trains on, from its name: svm-*-nN, or ens-*-tpP[-nN]."""
    if cell.startswith("svm-"):
        return int(cell.rsplit("-n", 1)[1])
    tp = float(re.search(r"-tp([0-9.]+)", cell).group(1))
    n = re.search(r"-tp[0-9.]+-n(\d+)$", cell)
    return round(tp * (int(n.group(1)) if n else n_full))


def test_the_ensembles_paper_scale_packs_its_short_cells(tmp_path):
    """3,480 cell jobs, 2,540 of them seconds long: those go 50 to a SLURM job."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["ensembles"]
    limit, n_full = config["slurm"]["pack_max_rows"], config["n_train"]
    jobs = submissions(tmp_path, "ensembles", "ensembles-paper-scale.yaml")
    cells = [(group, job) for group, job in jobs if job[0][0] == "ensembles_cell"]
    assert sum(len(job) for _, job in cells) == 3480
    for group, job in cells:
        rows = [ensembles_rows(wildcards["cell"], n_full) for _, wildcards in job]
        if group:
            assert group == "ensembles_pack" and max(rows) <= limit, job
            assert len(job) <= int(GROUP_SIZES[group])
        else:
            assert rows[0] > limit, job
    packed = sum(len(job) for group, job in cells if group)
    assert packed == 2540  # n <= 1000, tp * n <= 1000 (tp <= 0.1 of 10,000 rows)
    size = int(GROUP_SIZES["ensembles_pack"])
    assert len(cells) == 3480 - packed + math.ceil(packed / size)  # 991 SLURM jobs, not 3,480


def test_the_benchmark_paper_scale_packs_the_small_datasets(tmp_path):
    config = yaml.safe_load((REPO / "config" / "benchmark-paper-scale.yaml").read_text())
    small = set(config["benchmark"]["slurm"]["pack_datasets"])
    jobs = submissions(tmp_path, "benchmark", "benchmark-paper-scale.yaml")
    runs = [(group, job) for group, job in jobs if job[0][0] == "benchmark_run"]
    assert sum(len(job) for _, job in runs) == 13 * 10 * 19
    for group, job in runs:
        datasets = {wildcards["dataset"] for _, wildcards in job}
        assert datasets <= small if group else not datasets & small, job
        assert len(job) <= int(GROUP_SIZES.get(group, 1))
    assert sum(len(job) for group, job in runs if group) == 8 * 10 * 19
