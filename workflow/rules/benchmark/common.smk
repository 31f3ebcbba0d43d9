"""The benchmark's config checks, its jobs and the files its target requests.

Every key lives in the config section ``benchmark`` (``BENCHMARK`` below).
A job is (dataset, seed, method): one method's run on one seed's draw of one
dataset, timed with every local core (no neighbour inflates its CPU seconds).
The checks of docs/benchmark-protocol.md sec 8 (esmo.benchmark.checks) run
here, before any job is built.
"""

from esmo.benchmark.checks import config_problems as benchmark_config_problems
from esmo.benchmark.data import DATASETS as BENCHMARK_DATASETS
from esmo.benchmark.data import input_files as benchmark_input_files
from esmo.benchmark.methods import METHODS as BENCHMARK_METHODS

BENCHMARK = config["benchmark"]

raise_config_problems(benchmark_config_problems(config))


def benchmark_jobs():
    """Every run: ``(dataset, seed, method)``."""
    return [
        (dataset, seed, method)
        for dataset in BENCHMARK["datasets"]
        for seed in range(BENCHMARK["seeds"])
        for method in BENCHMARK["methods"]
    ]


def benchmark_run_files():
    return [
        f"results/benchmark/runs/{dataset}/s{seed}/{method}.csv"
        for dataset, seed, method in benchmark_jobs()
    ]


def benchmark_split_inputs(wildcards):
    return benchmark_input_files(wildcards.dataset)


def benchmark_settings(wildcards):
    """The settings a run's method reads, and only those: changing one reruns only its runs."""
    method = BENCHMARK_METHODS[wildcards.method]
    budget = {key: BENCHMARK["budgets"][method.name][key] for key in method.budget}
    budget |= {key: BENCHMARK[key] for key in method.shared}
    settings = {"budget": budget, "space": BENCHMARK["spaces"][BENCHMARK["space"]]}
    if method.grid:
        settings["grid_step"] = BENCHMARK["grid_step"]
    return settings


def benchmark_packed(wildcards):
    """Whether a run job is packed with others into a group job on a cluster."""
    return wildcards.dataset in BENCHMARK["slurm"]["pack_datasets"]


def benchmark_group(wildcards):
    """On SLURM, the runs of ``benchmark.slurm.pack_datasets`` share group jobs (profiles/slurm)."""
    return "benchmark_pack" if benchmark_packed(wildcards) else None


def benchmark_runtime(wildcards):
    """A run job's time limit in minutes (a packed one's is short: the group sums them)."""
    slurm = BENCHMARK["slurm"]
    return (
        slurm["pack_runtime_min"]
        if benchmark_packed(wildcards)
        else slurm["runtime_min"]
    )


def benchmark_products():
    """What the target ``benchmark`` (and ``all``) requests: the records and their analysis
    (``benchmark_analysis_products``, products.smk, included by analysis.smk)."""
    return ["results/benchmark/records.csv", *benchmark_analysis_products()]


register_paper("benchmark", datasets=lambda: [], products=benchmark_products)
