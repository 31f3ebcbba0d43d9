"""The NSVM paper's config, target lists and input helpers; registers the paper.

Every key lives in the config section ``nsvm`` (``NSVM`` below). The paper itself uses
no LIBSVM dataset: Ringnorm is generated per seed and MNIST is fetched by its own rule.
Kernel Pegasos in the thesis's random search (``nsvm.e1``) reads the thesis's E1
datasets, folds and RBF configurations (results/data, results/splits, results/configs).
"""

NSVM = config["nsvm"]
NSVM_ALGORITHMS = ["nsvm1", "nsvm2", "nsvm3", "nsvm4"]
NSVM_DATASETS = list(NSVM["datasets"])


def nsvm_tuned_algorithms(dataset):
    """The algorithms whose learning rate is tuned on ``dataset`` (``lr_tuning.algorithms``;
    none when tuning is off or the dataset's list is empty)."""
    if not NSVM["lr_tuning"]["enabled"]:
        return []
    return NSVM["lr_tuning"]["algorithms"].get(dataset, [])


def nsvm_settings(algorithm, dataset):
    """The classifier's parameters: the algorithm's per-dataset values, lam and the optimiser."""
    return {
        **NSVM["algorithms"][algorithm][dataset],
        "lam": NSVM["lam"],
        **NSVM["optimiser"],
    }


def nsvm_settings_all(dataset):
    """Every algorithm's settings on ``dataset``."""
    return {a: nsvm_settings(a, dataset) for a in NSVM_ALGORITHMS}


def nsvm_runs():
    return [
        f"results/nsvm/runs/{d}_s{s}.csv"
        for d in NSVM_DATASETS
        for s in NSVM["datasets"][d]["seeds"]
    ]


def nsvm_lr_tuning(wildcards):
    """The dataset's learning-rate choice when some algorithm is tuned on it (else nothing)."""
    if not nsvm_tuned_algorithms(wildcards.dataset):
        return {}
    return {"lr_tuning": f"results/nsvm/lr_tuning/{wildcards.dataset}.csv"}


def nsvm_first_seed_split(wildcards):
    """The split learning rates are tuned on: the dataset's first seed's."""
    seed = NSVM["datasets"][wildcards.dataset]["seeds"][0]
    return f"results/nsvm/data/{wildcards.dataset}_s{seed}.npz"


def nsvm_diagnostics_runs():
    return [
        f"results/nsvm/diagnostics/{d}_s{s}.csv"
        for d in NSVM_DATASETS
        for s in NSVM["datasets"][d]["seeds"]
    ]


def nsvm_baselines():
    return [
        f"results/nsvm/baselines/{d}_s{s}.csv"
        for d in NSVM_DATASETS
        for s in NSVM["datasets"][d]["seeds"]
    ]


def nsvm_early_stopping_runs(product="early_stopping"):
    """The early-stopping study's per-split tables: its stops, or their ``retrain``."""
    es = NSVM["early_stopping"]
    return [
        f"results/nsvm/{product}/{d}_s{s}.csv"
        for d in es["datasets"]
        for s in es["seeds"]
    ]


def nsvm_products():
    return [
        "results/nsvm/accuracy.csv",
        "results/nsvm/accuracy.html",
        "results/nsvm/early_stopping.csv",
        "results/nsvm/early_stopping.html",
        "results/nsvm/reproduction.csv",
        "results/nsvm/reproduction.html",
        "results/nsvm/diagnostics.csv",
        "results/nsvm/diagnostics.png",
        *NSVM_E1_PRODUCTS,
        *(
            f"results/nsvm/lr_tuning/{d}.csv"
            for d in NSVM_DATASETS
            if nsvm_tuned_algorithms(d)
        ),
    ]


def nsvm_split_input(wildcards):
    """MNIST splits read the fetched digits; Ringnorm is generated in the split job."""
    if wildcards.dataset == "mnist":
        return ["results/nsvm/data/mnist01.npz"]
    return []


def nsvm_e1_folds():
    """One table per E1 dataset and thesis run: Pegasos and SMO in the random search."""
    return [
        f"results/nsvm/e1/{d}/fold{k}.csv"
        for d in NSVM["e1"]["datasets"]
        for k in range(config["thesis"]["splits"]["runs"])
    ]


NSVM_E1_PRODUCTS = [
    f"results/nsvm/e1/{name}"
    for name in ("summary.csv", "equal_budget.csv", "scores.csv", "accuracy_cost.png")
]


register_paper("nsvm", datasets=lambda: NSVM["e1"]["datasets"], products=nsvm_products)
