"""The neural-SVM paper (Simon and Radons 2023): its rules and the named target ``nsvm``.

Data (Ringnorm generated per seed, MNIST 0/1 fetched), the four NSVM algorithms
at the paper's step counts over several seeds, two baselines, early stopping in
place of the fixed counts (and the retrain at its stops), kernel Pegasos in the
thesis's random search (e1.smk), the tables and the reproduction table. Code:
esmo.papers.nsvm (the methods: esmo.nsvm, esmo.solver.pegasos); protocol:
docs/nsvm-protocol.md; scripts, captions and the paper's numbers in the folders
named ``nsvm`` under workflow/; config in the section ``nsvm``.
"""


include: "common.smk"
include: "e1.smk"


from esmo.data.mnist import mirror_files as mnist_mirror_files


rule nsvm_mnist:
    """MNIST's zeros and ones, normalised (official files, or the mirror's offline subset)."""
    input:
        # a local mirror's files: checked before any job runs
        mirror_input(
            "nsvm.mnist.mirror", lambda mirror, wc: mnist_mirror_files(mirror).values()
        ),
    output:
        "results/nsvm/data/mnist01.npz",
    log:
        "logs/nsvm/mnist.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=30,
    params:
        base_urls=NSVM["mnist"]["base_urls"],
        mirror=NSVM["mnist"]["mirror"],
        timeout_s=NSVM["mnist"]["timeout_s"],
    script:
        "../../scripts/nsvm/mnist.py"


rule nsvm_split:
    """One seed's split: test rows, training rows, the tuning indices."""
    input:
        nsvm_split_input,
    output:
        "results/nsvm/data/{dataset}_s{seed}.npz",
    log:
        "logs/nsvm/split/{dataset}_s{seed}.log",
    wildcard_constraints:
        dataset="ringnorm|mnist",
        seed=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=2000,
        runtime=10,
    params:
        cfg=lambda wc: NSVM["datasets"][wc.dataset],
    script:
        "../../scripts/nsvm/split.py"


rule nsvm_tune_lr:
    """The note's learning-rate choice on the dataset's first split: each algorithm at each lr
    of the grid, trained without the tuning rows, scored on them."""
    input:
        nsvm_first_seed_split,
    output:
        report(
            "results/nsvm/lr_tuning/{dataset}.csv",
            caption="../../report/nsvm/lr_tuning.rst",
            category="NSVM",
        ),
    log:
        "logs/nsvm/lr_tuning/{dataset}.log",
    wildcard_constraints:
        dataset="ringnorm|mnist",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=3000,
        runtime=480,
    params:
        settings=lambda wc: nsvm_settings_all(wc.dataset),
        steps_scale=NSVM["steps_scale"],
        grid=NSVM["lr_tuning"]["grid"],
        algorithms=lambda wc: nsvm_tuned_algorithms(wc.dataset),
        seed=lambda wc: NSVM["datasets"][wc.dataset]["seeds"][0],
    script:
        "../../scripts/nsvm/tune_lr.py"


rule nsvm_train:
    """NSVM-1..4 at the paper's step counts on one seed's split (one job: each run is short
    beside the start-up of a job that imports torch)."""
    input:
        unpack(nsvm_lr_tuning),
        split="results/nsvm/data/{dataset}_s{seed}.npz",
    output:
        runs="results/nsvm/runs/{dataset}_s{seed}.csv",
        diagnostics="results/nsvm/diagnostics/{dataset}_s{seed}.csv",
    log:
        "logs/nsvm/runs/{dataset}_s{seed}.log",
    wildcard_constraints:
        dataset="ringnorm|mnist",
        seed=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=3000,
        runtime=240,
    params:
        settings=lambda wc: nsvm_settings_all(wc.dataset),
        steps_scale=NSVM["steps_scale"],
        diagnostic_interval=NSVM["diagnostic_interval"],
    script:
        "../../scripts/nsvm/train.py"


rule nsvm_diagnostics:
    """The paper's sec 6 diagnostics over training: mean off-diagonal kernel and alignment."""
    input:
        nsvm_diagnostics_runs(),
    output:
        table="results/nsvm/diagnostics.csv",
        figure=report(
            "results/nsvm/diagnostics.png",
            caption="../../report/nsvm/diagnostics.rst",
            category="NSVM",
        ),
    log:
        "logs/nsvm/diagnostics.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/nsvm/diagnostics.py"


rule nsvm_baselines:
    """SMO on the raw features (grid CV) and kernel Pegasos without a network."""
    input:
        "results/nsvm/data/{dataset}_s{seed}.npz",
    output:
        "results/nsvm/baselines/{dataset}_s{seed}.csv",
    log:
        "logs/nsvm/baselines/{dataset}_s{seed}.log",
    wildcard_constraints:
        dataset="ringnorm|mnist",
        seed=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=3000,
        runtime=120,
    params:
        lam=NSVM["lam"],
        smo=NSVM["baselines"]["smo"],
        pegasos=NSVM["baselines"]["pegasos"],
        shrinking=config["solver"]["shrinking"],
    script:
        "../../scripts/nsvm/baselines.py"


rule nsvm_early_stopping:
    """Per method (NSVM-1..4, Pegasos), one tracked run: every configuration's stop, exactly."""
    input:
        unpack(nsvm_lr_tuning),
        split="results/nsvm/data/{dataset}_s{seed}.npz",
    output:
        "results/nsvm/early_stopping/{dataset}_s{seed}.csv",
    log:
        "logs/nsvm/early_stopping/{dataset}_s{seed}.log",
    wildcard_constraints:
        dataset="ringnorm|mnist",
        seed=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=3000,
        runtime=240,
    params:
        settings=lambda wc: nsvm_settings_all(wc.dataset),
        steps_scale=NSVM["steps_scale"],
        early_stopping=NSVM["early_stopping"],
        lam=NSVM["lam"],
        pegasos=NSVM["baselines"]["pegasos"],
    script:
        "../../scripts/nsvm/early_stopping.py"


rule nsvm_retrain:
    """Each early-stopping configuration's stop as T for a retrain on the whole training set (a
    job of its own: the early-stopping product stays when only the retrain changes)."""
    input:
        unpack(nsvm_lr_tuning),
        split="results/nsvm/data/{dataset}_s{seed}.npz",
        early_stopping="results/nsvm/early_stopping/{dataset}_s{seed}.csv",
        runs="results/nsvm/runs/{dataset}_s{seed}.csv",
    output:
        "results/nsvm/retrain/{dataset}_s{seed}.csv",
    log:
        "logs/nsvm/retrain/{dataset}_s{seed}.log",
    wildcard_constraints:
        dataset="ringnorm|mnist",
        seed=r"\d+",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=3000,
        runtime=240,
    params:
        settings=lambda wc: nsvm_settings_all(wc.dataset),
        steps_scale=NSVM["steps_scale"],
        lam=NSVM["lam"],
    script:
        "../../scripts/nsvm/retrain.py"


rule nsvm_tables:
    """Accuracy over seeds beside the paper and the baselines; early-stopped T against fixed T,
    retrained on the whole training set."""
    input:
        runs=nsvm_runs(),
        baselines=nsvm_baselines(),
        early_stopping=nsvm_early_stopping_runs(),
        retrain=nsvm_early_stopping_runs("retrain"),
    output:
        accuracy=report(
            "results/nsvm/accuracy.csv",
            caption="../../report/nsvm/accuracy.rst",
            category="NSVM",
        ),
        accuracy_html=report(
            "results/nsvm/accuracy.html",
            caption="../../report/nsvm/accuracy.rst",
            category="NSVM",
        ),
        early_stopping=report(
            "results/nsvm/early_stopping.csv",
            caption="../../report/nsvm/early_stopping.rst",
            category="NSVM",
        ),
        early_stopping_html=report(
            "results/nsvm/early_stopping.html",
            caption="../../report/nsvm/early_stopping.rst",
            category="NSVM",
        ),
    log:
        "logs/nsvm/tables.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/nsvm/tables.py"


rule nsvm_reproduction:
    """The paper's numbers (workflow/data/nsvm/paper_values.csv) beside ours."""
    input:
        paper=workflow.source_path("../../data/nsvm/paper_values.csv"),
        rules=workflow.source_path("../../data/nsvm/rules.csv"),
        accuracy="results/nsvm/accuracy.csv",
    output:
        table=report(
            "results/nsvm/reproduction.csv",
            caption="../../report/nsvm/reproduction.rst",
            category="NSVM",
        ),
        html=report(
            "results/nsvm/reproduction.html",
            caption="../../report/nsvm/reproduction.rst",
            category="NSVM",
        ),
    log:
        "logs/nsvm/reproduction.log",
    conda:
        ENV_ESMO
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/nsvm/reproduction.py"


rule nsvm:
    """The whole NSVM reproduction: runs, baselines, early stopping, tables."""
    input:
        nsvm_products(),
