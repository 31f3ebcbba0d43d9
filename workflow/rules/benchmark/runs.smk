"""One job per (dataset, seed, method): the method's anytime records; then all of them in one table."""


rule benchmark_run:
    """Tune one method on one draw's training part (timed, every local core); its records."""
    input:
        "results/benchmark/data/{dataset}_s{seed}.npz",
    output:
        "results/benchmark/runs/{dataset}/s{seed}/{method}.csv",
    log:
        "logs/benchmark/runs/{dataset}/s{seed}/{method}.log",
    wildcard_constraints:
        dataset="|".join(re.escape(name) for name in BENCHMARK_DATASETS),
        seed=r"\d+",
        method="|".join(BENCHMARK_METHODS),
    group:
        benchmark_group
    conda:
        ENV_ESMO
    threads: workflow.cores
    resources:
        mem_mb=lambda wc: 16000 if wc.dataset.startswith("mnist") else 4000,
        runtime=benchmark_runtime,
    params:
        settings=benchmark_settings,
    script:
        "../../scripts/benchmark/run.py"


rule benchmark_collect:
    """Every run's records in one table, sorted (job order does not matter)."""
    input:
        benchmark_run_files(),
    output:
        "results/benchmark/records.csv",
    log:
        "logs/benchmark/collect.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/benchmark/collect.py"
