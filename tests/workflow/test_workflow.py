"""The Snakemake workflow: full DAG, reduced config end to end, report, lint, format."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from conftest import (
    MIRROR,
    offline_config,
    require_mirror,
    require_mnist_mirror,
    require_uci_mirror,
)
from scipy.stats import wilcoxon

from esmo.data.libsvm import REGISTRY, array_digest
from esmo.papers.common.reproduction import STATUSES
from esmo.papers.thesis.hpo import METHODS
from esmo.papers.thesis.scoring import SELECTION_COLUMNS
from esmo.papers.thesis.solver_comparison import SOLVERS, THESIS_ORDERINGS

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.workflow


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the project's Snakefile in ``workdir`` with the test interpreter's Snakemake."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    cmd += ["--directory", str(workdir), *args]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)
    if check and result.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} failed:\n{result.stdout}\n{result.stderr}")
    return result


def planned_jobs(workdir: Path, *args: str) -> dict[str, int]:
    """Jobs per rule of a dry run (the table ``snakemake -n`` prints); args: targets, options."""
    out = snakemake(workdir, "-n", "--cores", "2", *args).stdout
    return {
        line.split()[0]: int(line.split()[1])
        for line in out.splitlines()
        if len(line.split()) == 2 and line.split()[1].isdigit() and ":" not in line
    }


def test_dry_run_of_the_full_config(tmp_path):
    counts = planned_jobs(tmp_path)
    # the thesis's 8, and a1a.t, splice.t (gradient), w1a.t (the benchmark's w8a)
    assert counts["download_libsvm"] == 11
    assert counts["prepare_libsvm"] == 8
    assert counts["make_blobs"] == 7
    assert counts["make_splits"] == 15
    assert counts["sample_svm_configs"] == 2
    # one job per (dataset, kernel, run): E1's RBF runs serve E1's and E4's tables at once
    # (6 datasets x 5 runs); E1's linear runs and E2's blobs track one table (13 x 5)
    assert counts["sweep_shared"] == 30 and counts["sweep"] == 65


def test_chunk_size_fans_the_sweeps_out(tmp_path):
    """A cluster sets a smaller chunk: 400 SVM configurations in chunks of 50 are 8 jobs a run."""
    chunks = tmp_path / "chunks.yaml"
    chunks.write_text(yaml.safe_dump({"thesis": {"sweeps": {"chunk_size": 50}}}))
    counts = planned_jobs(tmp_path, "e1_e2", "--configfile", str(chunks))
    assert counts["sweep_shared"] == 8 * 30 and counts["sweep"] == 8 * 65


def test_half_targets_split_the_reproduction(tmp_path):
    sweeps_only = planned_jobs(tmp_path, "e1_e2")
    e1_rules = ["e1_outcome", "e1_scores", "e1_selection", "e1_top", "e1_wins", "e1_wilcoxon"]
    for rule in [*e1_rules, "e1_table_5_1", "e1_table_5_2", "e2_analysis"]:
        assert sweeps_only[rule] == 1, rule
    assert "hpo_methods" not in sweeps_only and "appendix_a_run" not in sweeps_only
    timed = planned_jobs(tmp_path, "e3_e4")
    # 2 datasets x 5 runs x (E3, E4's rerun); appendix A's 5 runs
    assert timed["hpo_methods"] == 20 and timed["appendix_a_run"] == 5
    assert timed["reproduction"] == 1


def test_paper_targets_make_up_the_whole_reproduction(tmp_path):
    """all = thesis + ensembles + the other papers' and the benchmark's own rules + the shared
    data summary and the verdicts over every paper."""
    everything = planned_jobs(tmp_path)
    thesis = planned_jobs(tmp_path, "thesis")
    ensembles = planned_jobs(tmp_path, "ensembles")
    assert everything.pop("all") == 1 and everything.pop("data_summary") == 1
    assert everything.pop("verdicts") == 1
    assert thesis.pop("thesis") == 1 and ensembles.pop("ensembles") == 1
    everything.pop("total"), thesis.pop("total"), ensembles.pop("total")
    assert not set(thesis) & set(ensembles)
    # the MDL paper's E1 datasets are the thesis's, the NSVM paper makes its own data:
    # both add only rules of their own; the gradient paper adds two LIBSVM test files, the
    # benchmark one more (w1a.t); its UCI files are the ensembles'
    own = ("mdl", "nsvm", "gradient", "benchmark")
    assert everything.pop("download_libsvm") == thesis.pop("download_libsvm") + 3
    assert {**thesis, **ensembles} == {
        rule: n for rule, n in everything.items() if not rule.startswith(own)
    }


def test_nsvm_target_plans_the_default_scale(tmp_path):
    """Ringnorm and MNIST: 3 seeds each, learning rates tuned once per dataset; early
    stopping on Ringnorm's first seed."""
    nsvm = planned_jobs(tmp_path, "nsvm")
    assert nsvm["nsvm_train"] == 6 and nsvm["nsvm_baselines"] == 6 and nsvm["nsvm_split"] == 6
    assert nsvm["nsvm_early_stopping"] == 1 and nsvm["nsvm_retrain"] == 1
    assert nsvm["nsvm_mnist"] == 1
    assert nsvm["nsvm_e1_fold"] == 6 * 5 and nsvm["nsvm_e1_summary"] == 1  # E1's datasets x runs
    # the learning rates tuned on each dataset's first seed (docs/nsvm-protocol.md sec 5)
    assert nsvm["nsvm_tune_lr"] == 2
    paper = planned_jobs(
        tmp_path, "nsvm", "--configfile", str(REPO / "config/nsvm-paper-scale.yaml")
    )
    assert paper["nsvm_tune_lr"] == 2 and paper["nsvm_train"] == 10  # tuned once per dataset


def test_gradient_target_plans_the_default_scale(tmp_path):
    """Note sec 5 "Default": 24 table 1, 4 table 2 (Adult 1000), 20 F, 24 table 3 (3 splits)
    and 4 more fig 1 cells, grad_scaled beside Grad on table 1 and 2's cells (8 + 2, the
    plateau test), and Grad with the plain NumPy SMO on splice 500 and bank 1000 (2, claim 7's
    cause)."""
    gradient = planned_jobs(tmp_path, "gradient")
    assert gradient["gradient_cell"] == 24 + 4 + 20 + 24 + 4 + 8 + 2 + 2
    # splice, bank (IJCNN's stand-in), adult, and the inexact study's four E1 datasets
    assert gradient["gradient_prepare"] == 7
    assert gradient["download_libsvm"] == 8 and gradient["ensembles_download_uci"] == 1
    # beyond the paper: Splice, Adult and four E1 datasets, 2 seeds; the agreement on seed 0
    assert gradient["gradient_inexact_runs"] == 12 and gradient["gradient_inexact_agreement"] == 6


def test_benchmark_target_plans_the_default_scale(tmp_path):
    """Protocol sec 7: one split per (dataset, seed), one run per (dataset, seed, method)."""
    config = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["benchmark"]
    datasets, seeds, methods = config["datasets"], config["seeds"], config["methods"]
    assert len(datasets) == 12 and len(methods) == 19
    jobs = planned_jobs(tmp_path, "benchmark")
    assert jobs["benchmark_split"] == len(datasets) * seeds
    assert jobs["benchmark_run"] == len(datasets) * seeds * len(methods)
    assert jobs["benchmark_collect"] == 1 and jobs["benchmark"] == 1
    # the thesis's eight and a1a.t, w1a.t (a9a, w8a); MAGIC and Bank from the UCI mirror
    assert jobs["download_libsvm"] == 10 and jobs["ensembles_download_uci"] == 2
    assert "benchmark_mnist" not in jobs  # MNIST at paper scale only
    paper = planned_jobs(
        tmp_path, "benchmark", "--configfile", str(REPO / "config/benchmark-paper-scale.yaml")
    )
    assert paper["benchmark_split"] == 13 * 10 and paper["benchmark_mnist"] == 1
    assert paper["benchmark_run"] == 13 * 10 * len(methods)


def test_lint_has_no_findings(tmp_path):
    result = snakemake(tmp_path, "--lint")
    assert "Congratulations, your workflow is in a good condition!" in result.stdout + result.stderr


def test_snakefmt_clean():
    files = [REPO / "Snakefile", *sorted((REPO / "workflow" / "rules").rglob("*.smk"))]
    snakefmt = Path(sys.executable).with_name("snakefmt")
    result = subprocess.run(
        [str(snakefmt), "--check", *map(str, files)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr


def _holm_by_hand(pvalues: np.ndarray) -> np.ndarray:
    """Holm (1979): the i-th smallest of m p-values times m - i + 1, running maximum, at most 1."""
    adjusted = np.empty(len(pvalues))
    running = 0.0
    for rank, index in enumerate(np.argsort(pvalues, kind="stable")):
        running = max(running, min(1.0, (len(pvalues) - rank) * pvalues[index]))
        adjusted[index] = running
    return adjusted


def _wilcoxon_holm_recomputed(scores: pd.DataFrame, beta: float, alpha: float) -> pd.DataFrame:
    """E1's tests from the score table: scipy's one-sided Wilcoxon, Holm per kernel and metric."""
    part = scores[np.isclose(scores["beta"], beta) & (scores["es_id"] != -1)]
    rows = []
    for (kernel, metric, es_id), group in part.groupby(["kernel", "metric", "es_id"]):
        d = (group["score"] - group["score_ref"]).to_numpy()
        # all-zero differences carry no evidence of a gain
        p = 1.0 if not d.any() else wilcoxon(d, zero_method="zsplit", alternative="greater").pvalue
        rows.append({"kernel": kernel, "metric": metric, "es_id": es_id, "pvalue": p})
    table = pd.DataFrame(rows)
    table["pvalue_adj"] = np.nan
    for _, index in table.groupby(["kernel", "metric"]).groups.items():
        table.loc[index, "pvalue_adj"] = _holm_by_hand(table.loc[index, "pvalue"].to_numpy())
    table["reject"] = table["pvalue_adj"] < alpha
    return table


@pytest.fixture(scope="module")
def reduced_run(tmp_path_factory):
    """The reduced config run end to end from the offline copies (the offline switch)."""
    require_mirror()  # skipped without the mirror, failed under CI
    require_uci_mirror()
    require_mnist_mirror()
    workdir = tmp_path_factory.mktemp("reduced")
    mirror_config = workdir / "mirror.yaml"
    mirror_config.write_text(yaml.safe_dump(offline_config()))
    configs = [str(REPO / "config" / "test.yaml"), str(mirror_config)]
    snakemake(workdir, "--cores", "2", "--configfile", *configs)
    return workdir, configs


def test_reduced_config_runs_end_to_end(reduced_run):
    workdir, _ = reduced_run
    test_config = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
    libsvm = list(dict.fromkeys(sum(test_config["thesis"]["datasets"].values(), [])))
    blobs = [f"blobs-d{d}" for d in test_config["thesis"]["synthetic"]["dimensions"]]
    for name in libsvm + blobs:
        with np.load(workdir / "results" / "data" / f"{name}.npz") as data:
            X, y = data["X"], data["y"]
        meta = json.loads((workdir / "results" / "data" / f"{name}.json").read_text())
        assert X.dtype == np.float64 and y.dtype == np.int8
        assert X.min() >= 0.0 and X.max() <= 1.0, "features are min-max normalised"
        assert set(np.unique(y)) == {-1, 1}
        assert meta["digest"] == array_digest(X, y)
        if name in REGISTRY:
            assert meta["raw_digest"] == REGISTRY[name].digest
            assert (meta["class_counts"]["-1"], meta["class_counts"]["+1"]) == REGISTRY[
                name
            ].class_counts
        with np.load(workdir / "results" / "splits" / f"{name}.npz") as splits:
            assert len(splits.files) == 15  # five folds, three parts each
            for k in range(5):
                parts = [splits[f"{part}_{k}"] for part in ("train", "val", "test")]
                assert np.array_equal(np.sort(np.concatenate(parts)), np.arange(y.size))
    assert (workdir / "resources" / "libsvm" / "fourclass").is_file()
    svm = pd.read_csv(workdir / "results" / "configs" / "svm_rbf.csv")
    assert list(svm.columns) == ["config_id", "C", "gamma", "tol"] and len(svm) == 6
    assert pd.read_csv(workdir / "results" / "configs" / "svm_linear.csv")["gamma"].isna().all()
    assert len(pd.read_csv(workdir / "results" / "configs" / "es.csv")) == 5
    es_interval = pd.read_csv(workdir / "results" / "configs" / "es_interval.csv")
    assert len(es_interval) == 8 and list(es_interval.columns)[-1] == "interval"
    summary = pd.read_csv(workdir / "results" / "data" / "summary.csv")
    assert list(summary["dataset"]) == libsvm + blobs
    for rule_logs in ("download", "data", "splits", "configs"):
        assert any((workdir / "logs" / rule_logs).iterdir())


def test_rerun_has_nothing_to_do(reduced_run):
    workdir, configs = reduced_run
    result = snakemake(workdir, "-n", "--cores", "2", "--configfile", *configs)
    assert "Nothing to be done" in result.stdout + result.stderr


def test_report_is_built(reduced_run):
    workdir, configs = reduced_run
    report = workdir / "report.html"
    snakemake(workdir, "--configfile", *configs, "--report", str(report))
    text = report.read_text(errors="replace")
    assert report.stat().st_size > 10_000 and "svm_rbf.csv" in text


def _download_only(workdir: Path, datasets: dict) -> subprocess.CompletedProcess:
    config = workdir / "download.yaml"
    config.write_text(yaml.safe_dump({"datasets": datasets}))
    return snakemake(
        workdir, "resources/libsvm/fourclass", "--cores", "1", "--configfile", str(config),
        check=False,
    )  # fmt: skip


def test_offline_download_fails_naming_the_mirror_option(tmp_path):
    # Port 9 (discard) on localhost refuses connections: an offline machine.
    result = _download_only(tmp_path, {"base_url": "http://127.0.0.1:9/", "retries": 1})
    assert result.returncode != 0
    log = (tmp_path / "logs" / "download" / "fourclass.log").read_text()
    assert "datasets.mirror" in log and "../shared/datasets/libsvm" in log
    assert "snakemake --config offline=../shared/datasets" in log  # the offline switch
    assert not (tmp_path / "resources" / "libsvm" / "fourclass").exists()


def test_corrupt_mirror_file_leaves_no_output(tmp_path):
    require_mirror()  # skipped without the mirror, failed under CI
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    lines = (MIRROR / "fourclass").read_bytes().splitlines(keepends=True)
    (mirror / "fourclass").write_bytes(b"".join(lines[:-10]))  # truncated
    workdir = tmp_path / "work"
    workdir.mkdir()
    result = _download_only(workdir, {"mirror": str(mirror)})
    assert result.returncode != 0
    assert "shape (852, 2) instead of (862, 2)" in result.stdout + result.stderr
    assert not [p for p in workdir.glob("resources/**/*") if p.is_file()], "no partial file"


def test_a_damaged_download_names_the_file_and_the_forcerun(tmp_path):
    """A file damaged after its verified download is not fetched again by Snakemake, so
    the failing job names the file to delete and the --forcerun that refetches it."""
    require_mirror()  # skipped without the mirror, failed under CI
    assert _download_only(tmp_path, {"mirror": str(MIRROR.resolve())}).returncode == 0
    resource = tmp_path / "resources" / "libsvm" / "fourclass"
    lines = resource.read_bytes().splitlines(keepends=True)
    resource.write_bytes(b"".join(lines[:-3]))  # damaged in place, after the download
    config = tmp_path / "download.yaml"
    result = snakemake(
        tmp_path, "results/data/fourclass.npz", "--cores", "1", "--configfile", str(config),
        check=False,
    )  # fmt: skip
    assert result.returncode != 0
    log = (tmp_path / "logs" / "data" / "fourclass.log").read_text()
    assert "rm resources/libsvm/fourclass" in log and "--forcerun download_libsvm" in log
    # and the advice works: refetched, the dataset prepares
    again = snakemake(
        tmp_path, "results/data/fourclass.npz", "--cores", "1", "--configfile", str(config),
        "--forcerun", "download_libsvm",
    )  # fmt: skip
    assert again.returncode == 0 and (tmp_path / "results" / "data" / "fourclass.npz").exists()


def test_reduced_run_produces_e1_e2_and_appendix_b(reduced_run):
    """Every table and figure of E1, E2 and appendix B, consistent with the sweep tables."""
    workdir, _ = reduced_run
    results = workdir / "results"
    test_config = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
    e1 = test_config["thesis"]["datasets"]["e1"]
    for kind in ("pareto", "top", "selected", "best_per_beta", "wins"):
        for metric in ("accuracy", "hinge"):
            for kernel in ("linear", "rbf"):
                for ext in ("pdf", "png"):
                    path = results / "e1" / "figures" / f"{kind}_{metric}_{kernel}.{ext}"
                    assert path.stat().st_size > 1000, path
    for kind in ("score_by_dimension", "selected"):
        assert (results / "e2" / "figures" / f"{kind}_accuracy_rbf.png").stat().st_size > 1000

    selection = pd.read_csv(results / "e1" / "selection.csv")
    assert set(selection["group"]) == {"low", "high", "avg"}
    assert len(selection) == 3 * 2 * 2  # groups x kernels x objectives
    wilcoxon = pd.read_csv(results / "e1" / "wilcoxon.csv")
    assert len(wilcoxon) == 5 * 2 * 2  # ES configurations x kernels x objectives
    # oracle: the tests recomputed from the score table (scipy, Holm by hand)
    scoring = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["thesis"]["scoring"]
    scores = pd.read_csv(results / "e1" / "scores.csv")
    expected = _wilcoxon_holm_recomputed(scores, scoring["beta"], scoring["alpha"])
    got = wilcoxon.merge(expected, on=["kernel", "metric", "es_id"], suffixes=("", "_expected"))
    assert len(got) == len(wilcoxon) == len(expected)
    np.testing.assert_allclose(got["pvalue"], got["pvalue_expected"], rtol=1e-12)
    np.testing.assert_allclose(got["pvalue_adj"], got["pvalue_adj_expected"], rtol=1e-12)
    assert (got["reject"] == got["reject_expected"]).all()
    # three datasets: the smallest one-sided p is 1/2^3, which Holm over five tests
    # raises to 5/8 at least: no test can reject
    assert got["pvalue"].min() >= 1 / 8 and got["pvalue_adj"].min() >= 5 / 8
    assert not got["reject"].any()
    table_5_1 = pd.read_csv(results / "e1" / "table_5_1.csv")
    assert len(table_5_1) == 2 * 5  # kernels x betas
    assert len(pd.read_csv(results / "e1" / "table_5_2.csv")) == 5 * 3 * 3

    # the reference search is the same whichever objective the sweep tracked
    outcome = pd.read_csv(results / "e1" / "outcome.csv")
    assert set(outcome["dataset"]) == set(e1)
    ref = outcome[outcome["es_id"] == -1].pivot_table(
        index=["dataset", "kernel"], columns="metric", values="n_iter"
    )
    assert (ref["accuracy"] == ref["hinge"]).all()
    # early stopping never trains longer than the reference
    merged = outcome.merge(
        outcome[outcome["es_id"] == -1][["dataset", "kernel", "metric", "n_iter"]],
        on=["dataset", "kernel", "metric"],
        suffixes=("", "_ref"),
    )
    assert (merged["n_iter"] <= merged["n_iter_ref"]).all()
    summary = pd.read_csv(results / "e2" / "summary.csv")
    assert set(summary["configuration"]) == {"reference", "j_low", "j_high", "j_avg"}
    assert summary["dataset"].nunique() == len(test_config["thesis"]["synthetic"]["dimensions"])


def test_one_setting_reruns_only_its_products(reduced_run, tmp_path):
    """E1's products are separate rules: a new top_n redoes the top table and its figures only."""
    workdir, configs = reduced_run
    top_n = tmp_path / "top_n.yaml"
    top_n.write_text(yaml.safe_dump({"thesis": {"scoring": {"top_n": 2}}}))
    jobs = planned_jobs(workdir, "--configfile", *configs, str(top_n))
    assert jobs == {"e1_top": 1, "e1_figure": 4, "all": 1, "total": 6}


def test_tables_do_not_depend_on_chunking_or_cores(reduced_run, tmp_path):
    """One job per chunk or one job for all, on one core or two: identical outcome."""
    workdir, configs = reduced_run
    target = "results/sweeps/es/fourclass/rbf/outcome.csv"
    whole = tmp_path / "chunking.yaml"
    whole.write_text(yaml.safe_dump({"thesis": {"sweeps": {"chunk_size": 1000}}}))
    snakemake(tmp_path, target, "--cores", "1", "--configfile", *configs, str(whole))
    ours = pd.read_csv(tmp_path / target)
    theirs = pd.read_csv(workdir / target)
    pd.testing.assert_frame_equal(ours, theirs)


def test_reduced_run_produces_e3_e4_appendix_a_and_reproduction(reduced_run):
    """Every table and figure of E3, E4, appendix A, the illustrations and the reproduction."""
    workdir, _ = reduced_run
    results = workdir / "results"
    test_config = yaml.safe_load((REPO / "config" / "test.yaml").read_text())
    for hpo in ("e3", "e4"):
        scores = pd.read_csv(results / hpo / "scores.csv")
        assert set(scores["method"]) == set(METHODS)  # the ES ones under both cost models
        assert (scores["n_folds"] == test_config["thesis"]["splits"]["runs"]).all()
        # the reference of every method is random search without early stopping
        rs = scores.set_index("method").loc["RS"]
        assert (scores["seconds_ref"] == rs["seconds"]).all()
        assert rs["win"] == 0.5
        for dataset in test_config["thesis"]["datasets"][hpo]:
            assert (results / hpo / "figures" / f"{dataset}.png").stat().st_size > 1000
    selection = pd.read_csv(results / "e4" / "selection.csv")
    assert len(selection) == 1
    # one layout for every selection table: E4's j_r as E1's j_low/j_high/j_avg
    assert list(selection.columns) == SELECTION_COLUMNS
    assert list(pd.read_csv(results / "e1" / "selection.csv").columns) == SELECTION_COLUMNS
    assert selection[["group", "kernel", "metric"]].values.tolist() == [["r", "rbf", "accuracy"]]
    j_r = selection.iloc[0]
    # j_r is the sampled interval configuration it names, with its values unchanged
    sampled = pd.read_csv(results / "configs" / "es_interval.csv").set_index("es_id")
    assert sampled.loc[j_r["es_id"], "patience"] == j_r["patience"]
    assert sampled.loc[j_r["es_id"], "interval"] == j_r["interval"]
    assert sampled.loc[j_r["es_id"], "es_tol"] == pytest.approx(j_r["es_tol"], rel=1e-12)

    solvers = pd.read_csv(results / "appendix_a" / "solvers.csv")
    assert set(solvers["solver"]) == set(SOLVERS)  # the config's default: all six
    per_fold = solvers.pivot_table(index="fold", columns="solver", values="n_iter")
    assert (per_fold["fan"] == per_fold["libsvm"]).all(), "esmo takes LIBSVM's path"
    # Keerthi's own rule ends the same path sooner than LIBSVM's rule
    assert (per_fold["keerthi_own_rule"] <= per_fold["keerthi"]).all()
    summary = pd.read_csv(results / "appendix_a" / "summary.csv").set_index("solver")
    assert summary.loc["fan", "n_iter_mean"] == per_fold["fan"].mean()
    # the thesis's accuracies stand beside its dataset's rows only (w1a; here fourclass)
    assert summary["dataset"].eq("fourclass").all()
    assert summary["thesis_test_accuracy_mean"].isna().all()
    orderings = pd.read_csv(results / "appendix_a" / "orderings.csv")
    assert set(orderings["reading"]) == {"thesis", "libsvm_rule"}
    assert orderings["holds"].dtype == bool
    assert (results / "appendix_a" / "figures" / "solvers.png").stat().st_size > 1000

    for figure in ("validation_curves", "decision_boundaries", "successive_halving"):
        assert (results / "illustrations" / "fourclass" / f"{figure}.png").stat().st_size > 1000
    halving = pd.read_csv(results / "illustrations" / "fourclass" / "successive_halving.csv")
    k = min(8, test_config["thesis"]["sampling"]["n_svm_configs"])  # illustrations.n_halving = 8
    rounds = int(np.log2(k)) + 1
    assert halving.groupby("round").size().tolist() == [k // 2**t for t in range(rounds)]

    table = pd.read_csv(results / "reproduction.csv")
    thesis = pd.read_csv(REPO / "workflow" / "data" / "thesis" / "thesis_values.csv")
    assert list(table["key"]) == list(thesis["key"])
    ours = table.set_index("key")["ours"]
    # j_low, j_high and j_avg: E1's RBF accuracy selection
    e1_selection = pd.read_csv(results / "e1" / "selection.csv")
    for row in e1_selection.query("kernel == 'rbf' and metric == 'accuracy'").itertuples():
        assert ours[f"j_{row.group}.patience"] == row.patience
        assert ours[f"j_{row.group}.es_tol"] == pytest.approx(row.es_tol, rel=1e-12)
    # three E1 datasets: no Holm-corrected test can reject (see the E1 test above)
    assert ours["wilcoxon.rbf.n_rejected"] == 0 and ours["wilcoxon.linear.n_rejected"] == 0
    # the best accuracy test's numbers, read from wilcoxon.csv independently
    tests = pd.read_csv(results / "e1" / "wilcoxon.csv").query(
        "metric == 'accuracy' and kernel == 'rbf'"
    )
    assert ours["wilcoxon.rbf.max_statistic"] == tests["statistic"].max()
    best = tests[tests["statistic"] == tests["statistic"].max()]
    assert ours["wilcoxon.rbf.p_value_at_max_statistic"] == best["pvalue"].min()
    assert ours["wilcoxon.rbf.holm_p_uncapped_at_max_statistic"] == pytest.approx(
        len(tests) * tests["pvalue"].min()
    )
    # the reproduction reports E4's selection
    assert ours["j_r.patience"] == j_r["patience"] and ours["j_r.interval"] == j_r["interval"]
    assert ours["j_r.es_tol"] == pytest.approx(j_r["es_tol"], rel=1e-12)
    page = (results / "reproduction.html").read_text()
    assert "<table" in page and "numbers:" in page and "claims:" in page
    # every measured number and every claim is judged; unmeasured ones say so
    assert set(table["status"]) <= set(STATUSES)
    assert (table.loc[table["ours"].isna(), "status"] == "not measured").all()
    # fig 5.3's wins along p * r: every E1 and E4 configuration counted once
    by_patience = pd.read_csv(results / "e4" / "wins_by_patience.csv")
    n_es = test_config["thesis"]["sampling"]["n_es_configs"]
    n_interval = test_config["thesis"]["sampling"]["n_es_interval_configs"]
    counted = by_patience.groupby("table")["n_configs"].sum()
    assert counted.to_dict() == {"e1": n_es, "e4": n_interval}
    claims = pd.read_csv(results / "reproduction_claims.csv")
    assert {"e3.sh_faster_than_rs", "e4.sh_faster_than_rs"} <= set(claims["claim"])
    assert claims["claim"].str.endswith("fresh.seconds").any()  # the thesis's cost model
    appendix_a = claims[claims["claim"].str.startswith("appendix_a.")]
    assert len(appendix_a) == len(THESIS_ORDERINGS)
    # the reduced config runs appendix A on fourclass: the thesis's w1a orderings not measured
    assert (appendix_a["status"] == "not measured").all()


def test_reduced_run_produces_the_nsvm_tables(reduced_run):
    """NSVM-1..4 and the baselines on both datasets, early stopping, the reproduction table."""
    workdir, _ = reduced_run
    results = workdir / "results" / "nsvm"
    accuracy = pd.read_csv(results / "accuracy.csv")
    methods = {"nsvm1", "nsvm2", "nsvm3", "nsvm4", "smo", "pegasos_gamma1", "pegasos_tuned"}
    for dataset in ("ringnorm", "mnist"):
        part = accuracy[accuracy["dataset"] == dataset]
        assert set(part["method"]) == methods
        assert part["test_accuracy_mean"].between(0, 100).all()
    mnist = accuracy[accuracy["dataset"] == "mnist"]
    # offline: the official 2,115 test images, the training pool flagged as the 5k subset's
    assert (mnist["n_test"] == 2115).all() and mnist["offline_subset"].all()
    # errors and accuracy are one measurement
    np.testing.assert_allclose(
        100 * (1 - accuracy["test_errors_mean"] / accuracy["n_test"]),
        accuracy["test_accuracy_mean"],
    )
    es = pd.read_csv(results / "early_stopping.csv")
    assert set(es["method"]) == {"nsvm1", "nsvm2", "nsvm3", "nsvm4", "pegasos", "nsvm4_part1"}
    assert (es["stop_step"] <= es["max_steps"]).all() and (es["stop_step"] >= 1).all()
    # the published rule checks after steps 1, 11, 21, ... (interval 10 in test.yaml), and
    # every method's patience-1 configuration stops (a loop from step 2 once checked never)
    stopped = es[es["stopped_early"] == 1]
    assert set(stopped["method"]) == set(es["method"]) - {"nsvm4_part1"}
    assert ((stopped["stop_step"] - 1) % 10 == 0).all()
    # NSVM-4's Part I on the validation alignment (its 42 steps here keep improving it), then
    # Part II as early-stopped Pegasos: a configuration that stops neither is the full run
    part1 = es[es["method"] == "nsvm4_part1"]
    assert part1["part2_stop_step"].between(1, part1["part2_max_steps"]).all()
    assert es.loc[es["method"] != "nsvm4_part1", "part2_stop_step"].isna().all()
    part2_stopped = part1[part1["part2_stop_step"] < part1["part2_max_steps"]]
    assert ((part2_stopped["part2_stop_step"] - 1) % 10 == 0).all()
    full = part1[
        (part1["stopped_early"] == 0) & (part1["part2_stop_step"] == part1["part2_max_steps"])
    ]
    assert (full["stop_step"] == full["max_steps"]).all()
    assert (full["test_accuracy"] == full["test_accuracy_at_end"]).all()
    np.testing.assert_allclose(
        part1["total_steps_saved"],
        1
        - (part1["stop_step"] + part1["part2_stop_step"])
        / (part1["paper_steps"] + part1["part2_paper_steps"]),
    )
    # the retrain on the whole training set: at the paper's T it is nsvm_train's run (NSVM-4's
    # for nsvm4_part1), reused; a stop at the paper's T retrains to the same model
    retrain = pd.read_csv(results / "retrain" / "ringnorm_s0.csv")
    assert len(retrain) == len(es) and es["test_accuracy_retrained"].between(0, 100).all()
    at_t = accuracy[accuracy["dataset"] == "ringnorm"].set_index("method")["test_accuracy_mean"]
    nsvm = es[es["method"] != "pegasos"]
    np.testing.assert_allclose(
        nsvm["test_accuracy_at_paper_steps"], at_t[nsvm["method"].replace("nsvm4_part1", "nsvm4")]
    )
    same_t = (es["stop_step"] == es["paper_steps"]) & (
        es["part2_stop_step"].isna() | (es["part2_stop_step"] == es["part2_paper_steps"])
    )
    same = es[same_t]
    assert (same["test_accuracy_retrained"] == same["test_accuracy_at_paper_steps"]).all()
    part2 = retrain["method"] == "nsvm4_part1"
    assert (retrain["retrain_steps"] == es["part2_stop_step"].where(part2, es["stop_step"])).all()
    reused = es.merge(retrain, on=["method", "patience", "es_tol"], validate="one_to_one")
    nsvm_train = same_t.to_numpy() & (reused["method"] != "pegasos").to_numpy()
    assert (reused["retrained_from"] == np.where(nsvm_train, "nsvm_train", "fit")).all()
    # a larger patience never stops earlier (same path, one more check of slack)
    for _, part in es.groupby(["method", "es_tol"]):
        assert part.sort_values("patience")["stop_step"].is_monotonic_increasing
    reproduction = pd.read_csv(results / "reproduction.csv")
    paper = pd.read_csv(REPO / "workflow" / "data" / "nsvm" / "paper_values.csv")
    assert reproduction["key"].tolist() == paper["key"].tolist()
    assert reproduction["ours"].notna().all() and reproduction["paper"].notna().all()
    # the protocol's learning-rate choice (docs/nsvm-protocol.md) (on in test.yaml): per dataset
    # and tuned algorithm the first best tuning accuracy over the ascending grid, and every run
    # trains with it; MNIST tunes NSVM-3/4 only (as the default) and Ringnorm none (no tuning
    # job, no table): the others keep the stored lr
    nsvm_config = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["nsvm"]
    stored = yaml.safe_load((REPO / "config" / "config.yaml").read_text())["nsvm"]["algorithms"]
    tuned = {"ringnorm": set(), "mnist": {"nsvm3", "nsvm4"}}
    assert nsvm_config["lr_tuning"]["algorithms"] == {"ringnorm": [], "mnist": ["nsvm3", "nsvm4"]}
    assert not (results / "lr_tuning" / "ringnorm.csv").exists()
    for dataset in ("ringnorm", "mnist"):
        runs = pd.read_csv(results / "runs" / f"{dataset}_s0.csv").set_index("method")
        for method in {"nsvm1", "nsvm2", "nsvm3", "nsvm4"} - tuned[dataset]:
            assert runs.loc[method, "lr"] == stored[method][dataset]["lr"]
        if not tuned[dataset]:
            continue
        tuning = pd.read_csv(results / "lr_tuning" / f"{dataset}.csv")
        assert set(tuning["method"]) == tuned[dataset]
        for method, part in tuning.groupby("method"):
            part = part.sort_values("lr").reset_index(drop=True)
            assert (
                part["chosen"].tolist() == (part.index == part["tune_accuracy"].idxmax()).tolist()
            )
            assert runs.loc[method, "lr"] == part.loc[part["chosen"], "lr"].item()
    # sec 6 diagnostics every 10 steps (test.yaml) of each algorithm's network training
    diagnostics = pd.read_csv(results / "diagnostics.csv")
    runs = pd.read_csv(results / "runs" / "ringnorm_s0.csv").set_index("method")
    for method, part in diagnostics[diagnostics["dataset"] == "ringnorm"].groupby("method"):
        trained = runs.loc[method, "n_part1_steps" if method == "nsvm4" else "n_steps"]
        assert part["step"].tolist() == list(range(10, trained + 1, 10))
        assert part["mean_offdiag_kernel"].between(0, 1).all()
        assert part["alignment"].between(-1, 1).all()
    assert set(diagnostics["method"]) == {"nsvm1", "nsvm2", "nsvm3", "nsvm4"}
    assert (results / "diagnostics.png").stat().st_size > 10_000


def test_reduced_run_puts_pegasos_into_the_thesis_random_search(reduced_run):
    """Both solvers on every E1 dataset and run of test.yaml, scored against SMO without
    early stopping, compared at equal kernel evaluations."""
    workdir, _ = reduced_run
    results = workdir / "results" / "nsvm" / "e1"
    runs = pd.read_csv(results / "runs.csv")
    assert set(runs["dataset"]) == {"fourclass", "breast-cancer"} and set(runs["fold"]) == {0, 1}
    assert set(runs["solver"]) == {"smo", "pegasos"}
    # a stop is a prefix of its run: never more steps or kernel rows than the run without one
    keys = ["dataset", "fold", "solver", "config_id"]
    ref = runs[runs["es_id"] == -1].set_index(keys)
    es = runs[runs["es_id"] >= 0].merge(ref.reset_index(), on=keys, suffixes=("", "_ref"))
    assert (es["n_iter"] <= es["n_iter_ref"]).all()
    assert (es["kernel_rows"] <= es["kernel_rows_ref"]).all()
    # Pegasos without early stopping: T = 5 epochs (test.yaml) of m steps, m training columns
    # per kernel row
    pegasos = ref.xs("pegasos", level="solver")
    m = pegasos["n_iter"] // 5
    assert (pegasos["n_iter"] == 5 * m).all()
    assert (pegasos["kernel_evaluations"] % m == 0).all()
    assert (pegasos.groupby(["dataset", "fold"])["n_iter"].nunique() == 1).all()
    summary = pd.read_csv(results / "summary.csv")
    assert len(summary) == 2 * 4
    assert (summary.loc[summary["search"] == "smo RS", "relative_cost"] == 1.0).all()
    budgets = pd.read_csv(results / "equal_budget.csv")
    assert (budgets["kernel_evaluations"] <= budgets["budget_evaluations"]).all()
    assert (results / "accuracy_cost.png").stat().st_size > 10_000


def test_mdl_target_plans_the_papers_protocol(tmp_path):
    """Default config: 1 headline split, 20 splits, 2 widened grids; 6 E1 datasets x 5 runs."""
    jobs = planned_jobs(tmp_path, "mdl")
    assert jobs["mdl_holdout"] == 1 + 20 + 2
    assert jobs["mdl_e1_fold"] == 6 * 5
    assert jobs["mdl_figure"] == 3 * 3


def test_reduced_run_produces_the_mdl_reproduction(reduced_run):
    """Table 2 beside the paper's, the costs, the many-split test, E1 and figs 1-3."""
    workdir, _ = reduced_run
    results = workdir / "results" / "mdl"
    test_config = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["mdl"]
    table_2 = pd.read_csv(results / "table_2.csv")
    assert len(table_2) == 4 and set(table_2["source"]) == {"paper", "ours"}
    headline = pd.read_csv(results / "holdout" / "paper" / "seed0" / "selection.csv")
    mdl = headline.set_index("method").loc["mdl"]
    # accuracy from the confusion counts of the 114 test rows, 42 of them malignant
    assert mdl["tp"] + mdl["fn"] == 42 and mdl["tp"] + mdl["fn"] + mdl["fp"] + mdl["tn"] == 114
    assert mdl["accuracy"] == pytest.approx((mdl["tp"] + mdl["tn"]) / 114)
    cost = pd.read_csv(results / "cost.csv").set_index("method")
    n_grid = test_config["grids"]["paper"]["n_C"] * test_config["grids"]["paper"]["n_gamma"]
    assert cost.loc["mdl", "n_fits"] == n_grid and cost.loc["cv", "n_fits"] == 4 * n_grid + 1
    comparison = pd.read_csv(results / "splits" / "comparison.csv")
    assert list(comparison["metric"]) == ["accuracy", "recall", "f1", "precision"]
    assert (comparison["n"] == test_config["splits"]["n_splits"]).all()
    selections = pd.read_csv(results / "splits" / "selections.csv")
    paired = selections.pivot(index="seed", columns="method", values="accuracy")
    d = paired["mdl"] - paired["cv"]
    assert comparison["mean_difference"].iloc[0] == pytest.approx(d.mean())
    e1 = pd.read_csv(results / "e1" / "summary.csv")
    assert set(e1["dataset"]) == set(test_config["e1"]["datasets"])
    # MDL trains on train + validation: a third more rows than random search
    by = e1.set_index(["dataset", "method"])["n_train"]
    for dataset in test_config["e1"]["datasets"]:
        assert by[(dataset, "mdl")] > by[(dataset, "rs_validation")]
    # the cause test: selections confined to the paper's box meet random search confined alike
    versus = pd.read_csv(results / "e1" / "comparison.csv").set_index("method")["baseline"]
    boxed = versus.index.str.endswith("_in_box")
    assert (versus[boxed] == "rs_validation_in_box").all()
    assert (versus[~boxed] == "rs_validation").all() and "mdl" in versus.index
    reproduction = pd.read_csv(results / "reproduction.csv")
    assert reproduction["ours"].notna().all()
    for grid in ("paper", "wide_c", "wide"):
        for figure in ("fig1", "fig2", "fig3"):
            assert (results / "figures" / grid / "seed0" / f"{figure}.png").stat().st_size > 1000


def test_kill_9_then_rerun_gives_the_uninterrupted_tables(reduced_run, tmp_path):
    """SIGKILL to the whole run mid-way (Snakemake and its jobs), unlock, rerun on one core:
    every table equals the uninterrupted two-core run's, and no partial file survives."""
    import os
    import signal
    import time

    workdir, configs = reduced_run
    targets = [f"results/sweeps/es/{d}/rbf/outcome.csv" for d in ("fourclass", "diabetes")]
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    cmd += ["--directory", str(tmp_path), *targets, "--cores", "2", "--configfile", *configs]
    run = subprocess.Popen(
        cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    sweeps = tmp_path / "results" / "sweeps"
    try:
        deadline = time.monotonic() + 300
        # kill while sweep jobs run: after the first chunk table, before the outcomes
        while not any(sweeps.glob("es/*/rbf/fold*_chunk*.csv")):
            assert run.poll() is None, "the run ended before it could be interrupted"
            assert time.monotonic() < deadline, "no sweep job started in 300 s"
            time.sleep(0.2)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait()
    assert not all((tmp_path / t).exists() for t in targets), "killed too late to test anything"
    snakemake(tmp_path, "--unlock", *targets, "--configfile", *configs)
    snakemake(tmp_path, *targets, "--cores", "1", "--configfile", *configs)
    compare = REPO / "benchmarks" / "compare_results.py"
    result = subprocess.run(
        [sys.executable, str(compare), str(tmp_path / "results"), str(workdir / "results")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout
    assert "0 differ elsewhere or are missing" in result.stdout
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith((".part", ".tmp"))]
    assert not leftovers, leftovers
    again = snakemake(tmp_path, "-n", *targets, "--cores", "1", "--configfile", *configs)
    assert "Nothing to be done" in again.stdout + again.stderr


# Report sections are drawn by the report's React app (snakemake/report/html_reporter):
# the global ``app`` switches views, ``results`` and ``categories`` hold the entries.
_REPORT_READY = (
    "typeof app !== 'undefined' && document.querySelector('#loading-screen') !== null && "
    "document.querySelector('#loading-screen').style.display === 'none'"
)
# Every result's description, as the result's info panel renders it
_CAPTIONS_JS = """
const done = arguments[arguments.length - 1];
const frame = () => new Promise(r => setTimeout(r, 30));
(async () => {
  const out = {};
  for (const path of Object.keys(results)) {
    app.showResultInfo(path);
    await frame();
    const caption = [...document.querySelectorAll('.prose')].map(n => n.innerText.trim())
      .filter(t => t.length > 0);
    out[path] = {caption: caption.join(' '), mime: getResultMimeType(path),
                 category: results[path].category, uri: results[path].data_uri};
  }
  done(out);
})();
"""
_SHOW_IMAGE_JS = """
const done = arguments[arguments.length - 1];
const path = arguments[0];
app.setView({content: 'img', contentPath: results[path].data_uri, resultPath: path});
const wait = () => {
  const img = document.querySelector('img[src="' + results[path].data_uri + '"]');
  if (img && img.complete) {
    const r = img.getBoundingClientRect();
    done({width: img.naturalWidth, height: img.naturalHeight,
          box: [r.left, r.top, r.right, r.bottom], dpr: window.devicePixelRatio});
  } else { setTimeout(wait, 30); }
};
wait();
"""


def _not_blank(screenshot: Path, box: list[float], dpr: float) -> bool:
    """True when the image's area on screen holds a drawing: many colours, not one fill."""
    from PIL import Image

    with Image.open(screenshot) as shot:
        crop = shot.convert("L").crop(tuple(int(v * dpr) for v in box))
        pixels = np.asarray(crop, dtype=float)
    return pixels.size > 0 and pixels.std() > 5 and len(np.unique(pixels)) > 8


def _check_report_in_browser(browser, page: Path, shots: Path) -> dict:
    """Open a report, check its description, captions and figures; one screenshot per section."""
    browser.open(page.as_uri())
    browser.wait_for(_REPORT_READY)
    browser.wait_for("document.querySelector('.prose') !== null")
    description = browser.run("return document.querySelector('.prose').innerHTML;")
    assert "Reproduction of the 2025 MSc thesis" in description
    assert "How much of each paper is reproduced" in description, "the verdicts open the page"
    assert "<strong>" in description and "{{" not in description, "rst rendered, Jinja filled"
    browser.screenshot(shots / "00_workflow_description.png")

    entries = browser.run_async(_CAPTIONS_JS)
    assert entries, "the report lists no results"
    no_caption = [path for path, e in entries.items() if not e["caption"]]
    assert not no_caption, f"results without a caption: {no_caption}"

    sections = browser.run("return categories;")  # {category: {subcategory: [paths]}}
    listed = [p for subs in sections.values() for paths in subs.values() for p in paths]
    assert sorted(listed) == sorted(entries), "every result is listed in one section"
    shown = 0
    for category, subcategories in sections.items():
        for subcategory, paths in subcategories.items():
            # the section's table of results (the description, in .prose, has tables of its own)
            table = "[...document.querySelectorAll('table')].find(t => !t.closest('.prose'))"
            # through the menu, as a reader clicks: the section's table is drawn anew
            browser.run("app.setView({navbarMode: 'menu'});")
            browser.wait_for(f"{table} === undefined")
            browser.run(
                "app.setView({navbarMode: 'subcategory', category: arguments[0], "
                "subcategory: arguments[1]});",
                category,
                subcategory,
            )
            for path in paths:  # each result of the section is a row of its table
                browser.wait_for(f"{table} && {table}.innerText.includes({json.dumps(path)})")
            shown += 1
            name = "".join(c if c.isalnum() else "_" for c in f"{category}_{subcategory}")
            browser.screenshot(shots / f"{shown:02d}_{name}.png")

    figures = [p for p, e in entries.items() if e["mime"] in ("image/png", "image/svg+xml")]
    assert figures, "the report has no figures"
    blank = []
    scratch = shots / "scratch.png"
    for path in figures:
        image = browser.run_async(_SHOW_IMAGE_JS, path)
        assert image["width"] > 0 and image["height"] > 0, f"{path} did not load"
        browser.screenshot(scratch)
        if not _not_blank(scratch, image["box"], image["dpr"]):
            blank.append(path)
    scratch.unlink()
    assert not blank, f"blank figures: {blank}"
    return {"figures": len(figures), "results": len(entries), "sections": shown}


def test_report_in_headless_chromium(reduced_run, tmp_path):
    """The HTML report and the zip form, opened in Debian's chromium: description rendered,
    every result captioned, every figure loaded and drawn. Screenshots: $ESMO_TEST_ARTIFACTS
    (or this test's tmp_path) under report_screenshots/{html,zip}/."""
    import os

    from browser import Browser, require_chromium

    from esmo.data.archive import extract_zip

    found = require_chromium()
    workdir, configs = reduced_run
    html = tmp_path / "report.html"
    archive = tmp_path / "report.zip"
    snakemake(workdir, "--configfile", *configs, "--report", str(html))
    snakemake(workdir, "--configfile", *configs, "--report", str(archive))
    unpacked = extract_zip(archive, tmp_path / "report_zip")
    zip_page = next(p for p in unpacked if p.name == "report.html")
    shots = Path(os.environ.get("ESMO_TEST_ARTIFACTS", tmp_path)) / "report_screenshots"
    with Browser(*found) as browser:
        html_seen = _check_report_in_browser(browser, html, shots / "html")
        zip_seen = _check_report_in_browser(browser, zip_page, shots / "zip")
    assert html_seen == zip_seen
    print(f"report checked in chromium: {html_seen}; screenshots in {shots}")


def test_reduced_run_produces_the_ensembles_products(reduced_run):
    """Table 1, figs 1-4, the variants and the reproduction; the CI smoke's fit counts and accuracy."""
    workdir, _ = reduced_run
    out = workdir / "results" / "ensembles"
    cfg = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["ensembles"]
    for name in ("fig1.png", "fig2.png", "fig3.png", "fig4.png", "table1.html", "variants.html"):
        assert (out / name).stat().st_size > 1000, name
    table = pd.read_csv(out / "table1.csv")
    grid_size, B = 30, 10  # grid steps of 4; B's default
    ens = table[table["method"] == "ensemble"]
    parts = np.round(1 / ens["train_proportion"])
    np.testing.assert_array_equal(ens["n_fits"], 2 * B * grid_size + B * parts)
    svm = table[table["method"] == "svm"]
    assert (svm["n_fits"] == grid_size * 10 + 1).all()
    assert set(ens["train_proportion"]) == set(cfg["table1"]["train_proportions"])
    for _, part in table.groupby(["dataset", "method"]):
        # the cost grows with tp and with N (kernel evaluations: machine-independent)
        assert part["kernel_evaluations"].is_monotonic_increasing
    twonorm = table[table["dataset"] == "twonorm"]
    assert (twonorm["accuracy_mean"] > 90).all()
    fig1 = pd.read_csv(out / "fig1.csv")
    assert {"structured_accuracy_mean", "subbagging_accuracy_mean"} <= set(fig1.columns)
    variants = pd.read_csv(out / "variants.csv")
    assert set(variants["search"]) == {"exhaustive", "early_stopped", "halving"}
    # every cell this run computed and the paper reports stands beside the paper's number,
    # and no other: the paper's table 1 has N = 200 but not N = 100, tp 0.05 and 0.1
    paper = pd.read_csv(REPO / "workflow" / "data" / "ensembles" / "paper_values.csv")
    paper_keys = set(paper["key"])
    cells = {
        f"table1.{row.dataset}.{row.method}."
        + (f"tp{row.train_proportion:g}" if row.method == "ensemble" else f"n{row.n_train}")
        for row in table.itertuples(index=False)
    }
    beside = pd.read_csv(out / "table1_beside_paper.csv")
    assert len(beside) == len(table) and beside["our_accuracy"].notna().all()
    reported = [f"{cell}.accuracy_mean" in paper_keys for cell in sorted(cells)]
    assert beside["paper_accuracy"].notna().sum() == sum(reported) >= 4
    reproduction = pd.read_csv(out / "reproduction.csv").set_index("key")
    measured = {
        f"{cell}.{field}" for cell in cells for field in ("accuracy_mean", "time_s")
    } & paper_keys
    assert reproduction["ours"].notna()[sorted(measured)].all()
    assert set(reproduction.index[reproduction["ours"].notna()]) >= measured


def test_ensembles_cells_do_not_depend_on_cores(reduced_run, tmp_path):
    """A cell run alone on one core gives the same numbers as in the two-core run (seconds aside)."""
    workdir, configs = reduced_run
    cells = [
        "results/ensembles/cells/twonorm/rep0/ens-exhaustive-tp0.1.csv",
        "results/ensembles/cells/twonorm/rep0/svm-exhaustive-n100.csv",
    ]
    snakemake(tmp_path, *cells, "--cores", "1", "--configfile", *configs)
    timing = ["cpu_seconds", "wall_seconds", "search_cpu_seconds"]
    for cell in cells:
        ours = pd.read_csv(tmp_path / cell).drop(columns=timing)
        theirs = pd.read_csv(workdir / cell).drop(columns=timing)
        pd.testing.assert_frame_equal(ours, theirs)


def test_offline_uci_download_fails_naming_the_mirror_option(tmp_path):
    config = tmp_path / "download.yaml"
    offline = {"uci": {"base_url": "http://127.0.0.1:9/", "retries": 1}}
    config.write_text(yaml.safe_dump({"ensembles": offline}))
    result = snakemake(
        tmp_path, "resources/uci/magic04.data", "--cores", "1", "--configfile", str(config),
        check=False,
    )  # fmt: skip
    assert result.returncode != 0
    log = (tmp_path / "logs" / "ensembles" / "download" / "magic04.data.log").read_text()
    assert "ensembles.uci.mirror" in log and "../shared/datasets/uci" in log
    assert "snakemake --config offline=../shared/datasets" in log  # the offline switch
    assert not (tmp_path / "resources" / "uci" / "magic04.data").exists()


def test_reduced_run_produces_the_gradient_products(reduced_run):
    """Tables 1-3, the F experiment, fig 1, the claims and the reproduction (docs/gradient-protocol.md sec 5 "CI")."""
    workdir, _ = reduced_run
    out = workdir / "results" / "gradient"
    cfg = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["gradient"]
    assert (out / "fig1.png").stat().st_size > 10_000
    cells = pd.read_csv(out / "cells.csv")
    grid = cells[cells["method"] == "grid"]
    assert (grid["nf"] == 25).all() and (grid["dataset"] == "splice").all()  # the 5 x 5 grid
    tuned = cells[cells["cpu_seconds"].notna() & (cells["method"] != "grid")]
    assert (tuned["nf"] <= cfg["tuner"]["max_fun"]).all() and (tuned["nf"] >= 1).all()
    # SMO is part of the tuning's cpu; the test rows are the 3175 - 300 not drawn
    assert (tuned["smo_seconds"] > 0).all() and (tuned["smo_seconds"] <= tuned["cpu_seconds"]).all()
    fig1_test = cells["method"] == "fig1_test"
    assert (cells.loc[~fig1_test, "n_test"] == 2875).all()
    assert (cells.loc[fig1_test, "n_test"] == cfg["fig1"]["contour_test_rows"]).all()
    table1 = pd.read_csv(out / "table1.csv")
    assert len(table1) == 1 and table1["seeds"].iloc[0] == cfg["table1"]["seeds"]
    assert 0 < table1["Grid erate mean"].iloc[0] < 50 and 0 < table1["Grad erate mean"].iloc[0] < 50
    assert len(pd.read_csv(out / "table3.csv")) == 8
    assert len(pd.read_csv(out / "f_measure.csv")) == 2
    claims = [str(c) for c in pd.read_csv(out / "claims.csv")["claim"]]
    assert claims == ["1", "1_cause", "2", "3", "4", "5", "6", "7", "7_cause", "plateau",
                      "beyond.early_stopped_direction", "beyond.warm_start_saves_more"]  # fmt: skip
    # beyond the paper: Grad from the data-scaled start beside the paper's, on every draw
    start = pd.read_csv(out / "start.csv")
    assert set(start["seed"]) == {0, 1} and start["cv_error_scaled"].notna().all()
    reproduction = pd.read_csv(out / "reproduction.csv")
    assert reproduction.set_index("key").loc["grid.nf", "ours"] == 25


def test_reduced_run_compares_the_inner_solves(reduced_run):
    """Beyond the paper: every variant's shares of the exact run, the agreement, the scores S."""
    workdir, _ = reduced_run
    out = workdir / "results" / "gradient" / "inexact"
    cfg = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["gradient"]["inexact"]
    savings = pd.read_csv(out / "savings.csv").set_index("variant")
    assert list(savings.index) == [variant["name"] for variant in cfg["variants"]]
    assert savings.loc["exact", "iteration_share"] == 1.0
    assert (savings["iteration_share"] > 0).all()
    scores = pd.read_csv(out / "scores.csv")
    assert set(scores["variant"]) == {v["name"] for v in cfg["variants"]} | {
        "RS",
        "RS+ES",
        "SH",
        "SH+ES",
    }
    assert scores["best_score"].sum() >= 1
    agreement = pd.read_csv(out / "agreement.csv")
    assert set(agreement["point"]) == {"start", "mid_path", "optimum"}
    # each statistic under its own name (issue 34, item 7)
    assert agreement["cosine_mean"].between(-1.0, 1.0).all()
    assert (agreement["cosine_min"] <= agreement["cosine_mean"]).all()
    assert (out / "agreement.png").stat().st_size > 10_000


def test_a_gradient_setting_reruns_only_the_cells_that_read_it(reduced_run, tmp_path):
    """Fig 1's test rows are read by its test-error grid alone: one cell and the tables rerun."""
    workdir, configs = reduced_run
    rows = tmp_path / "rows.yaml"
    rows.write_text(yaml.safe_dump({"gradient": {"fig1": {"contour_test_rows": 400}}}))
    jobs = planned_jobs(workdir, "--configfile", *configs, str(rows))
    rerun = ["gradient_cell", "gradient_collect", "gradient_tables", "gradient_fig1"]
    # the judged reproduction reruns, and the verdicts that count it
    judged = {"gradient_reproduction": 1, "verdicts": 1}
    assert jobs == {**dict.fromkeys(rerun, 1), **judged, "all": 1, "total": 7}


def test_gradient_cells_do_not_depend_on_cores(reduced_run, tmp_path):
    """Grid and Grad-ARD (after its Grad) rerun alone on one core: the same numbers, seconds aside."""
    workdir, configs = reduced_run
    cells = [
        "results/gradient/cells/splice/n300/seed1/grid.csv",
        "results/gradient/cells/splice/n300/seed1/grad_ard.csv",
    ]
    snakemake(tmp_path, *cells, "--cores", "1", "--configfile", *configs)
    timing = ["cpu_seconds", "smo_seconds", "solve_seconds", "rest_seconds", "refit_seconds"]
    for cell in [*cells, cells[1].replace("grad_ard", "grad")]:
        ours = pd.read_csv(tmp_path / cell).drop(columns=timing)
        theirs = pd.read_csv(workdir / cell).drop(columns=timing)
        pd.testing.assert_frame_equal(ours, theirs)


def test_reduced_run_produces_the_benchmark_records(reduced_run):
    """One records table: every run's incumbents and its final model (docs/benchmark-protocol.md sec 4)."""
    from esmo.benchmark.run import RECORD_COLUMNS

    workdir, _ = reduced_run
    cfg = yaml.safe_load((REPO / "config" / "test.yaml").read_text())["benchmark"]
    records = pd.read_csv(workdir / "results" / "benchmark" / "records.csv")
    assert list(records.columns) == RECORD_COLUMNS
    ran = set(cfg["methods"]) - {"sklearnex_svc"}  # skipped without scikit-learn-intelex
    assert set(records["method"]) <= set(cfg["methods"]) and ran <= set(records["method"])
    assert set(records["dataset"]) == set(cfg["datasets"]) and set(records["seed"]) == {0}
    for _, run in records.groupby(["dataset", "seed", "method"]):
        assert list(run["step"]) == list(range(len(run)))
        assert run["final"].iloc[-1] and not run["final"].iloc[:-1].any()
        assert (run["cpu_seconds"].iloc[-1] >= run["cpu_seconds"]).all()
        assert run["test_accuracy"].between(0, 1).all()
    for dataset in cfg["datasets"]:
        for method in cfg["methods"]:
            assert (workdir / f"results/benchmark/runs/{dataset}/s0/{method}.csv").is_file()


def test_benchmark_records_do_not_depend_on_cores(reduced_run, tmp_path):
    """A run redone alone on one core: the same records, the CPU seconds aside."""
    workdir, configs = reduced_run
    run = "results/benchmark/runs/fourclass/s0/esmo_sh.csv"
    snakemake(tmp_path, run, "--cores", "1", "--configfile", *configs)
    ours = pd.read_csv(tmp_path / run).drop(columns="cpu_seconds")
    pd.testing.assert_frame_equal(ours, pd.read_csv(workdir / run).drop(columns="cpu_seconds"))


def test_reduced_run_judges_every_paper_by_its_rules(reduced_run):
    """Each paper's reproduction carries a criterion and a status per row, and the verdicts
    table counts them as the tables do (issue 34: one judging machinery)."""
    workdir, _ = reduced_run
    results = workdir / "results"
    verdicts = pd.read_csv(results / "verdicts.csv").set_index("paper")
    assert list(verdicts.index) == ["thesis", "mdl", "nsvm", "ensembles", "gradient", "project"]
    tables = {
        "thesis": "reproduction.csv",
        "mdl": "mdl/reproduction.csv",
        "nsvm": "nsvm/reproduction.csv",
        "ensembles": "ensembles/reproduction.csv",
        "gradient": "gradient/reproduction.csv",
    }
    for paper, path in tables.items():
        table = pd.read_csv(results / path)
        assert set(table["status"]) <= set(STATUSES) and table["criterion"].notna().all()
        counts = table["status"].value_counts()
        assert verdicts.loc[paper, "numbers reproduced"] == counts.get("reproduced", 0)
        assert verdicts.loc[paper, "numbers not reproduced"] == counts.get("not reproduced", 0)
    # configured values are never counted: the NSVM paper's T and the gradient settings
    nsvm = pd.read_csv(results / tables["nsvm"]).set_index("key")["status"]
    assert (nsvm[nsvm.index.str.endswith("n_steps")] == "setting").all()
    gradient_claims = pd.read_csv(results / "gradient" / "claims.csv")
    assert set(gradient_claims["status"]) <= set(STATUSES)
