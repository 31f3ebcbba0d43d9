"""One draw per dataset and seed (docs/benchmark-protocol.md sec 1), and MNIST's pool.

The LIBSVM files come through the shared download rule (``datasets.mirror``),
the UCI files through the ensembles' (``ensembles.uci.mirror``), MNIST
through the NSVM paper's settings (``nsvm.mnist.mirror``).
"""

from esmo.data.mnist import mirror_files as mnist_mirror_files


localrules:
    benchmark_mnist,


rule benchmark_mnist:
    """Every MNIST image (training pool and test set) and its digit (official files or the mirror)."""
    input:
        # a local mirror's files: checked before any job runs
        mirror_input(
            "nsvm.mnist.mirror", lambda mirror, wc: mnist_mirror_files(mirror).values()
        ),
    output:
        "results/benchmark/data/mnist.npz",
    log:
        "logs/benchmark/data/mnist.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        base_urls=config["nsvm"]["mnist"]["base_urls"],
        mirror=config["nsvm"]["mnist"]["mirror"],
        timeout_s=config["nsvm"]["mnist"]["timeout_s"],
    script:
        "../../scripts/benchmark/mnist.py"


rule benchmark_split:
    """One seed's stratified split of one dataset, capped and min-max scaled on its training part."""
    input:
        benchmark_split_inputs,
    output:
        "results/benchmark/data/{dataset}_s{seed}.npz",
    log:
        "logs/benchmark/data/{dataset}_s{seed}.log",
    wildcard_constraints:
        dataset="|".join(re.escape(name) for name in BENCHMARK_DATASETS),
        seed=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=lambda wc: 8000 if wc.dataset.startswith("mnist") else 2000,
        runtime=10,
    params:
        split=BENCHMARK["split"],
    script:
        "../../scripts/benchmark/split.py"
