"""The ensembles paper's config checks, its cells (one model on one repetition) and target lists.

Every key lives in the config section ``ensembles`` (``ENSEMBLES`` below). A
cell is named after its model (``ens-{search}-tp{tp}[-n{n}]`` or
``svm-{search}-n{n}``) and is computed once, whichever experiments read it
(table 1, figs 1-4, the variants), so overlapping experiments share jobs.
"""

import numpy as np

from esmo.data.breiman import GENERATORS as BREIMAN_GENERATORS
from esmo.data.uci import FILES as UCI_FILES
from esmo.data.uci import REGISTRY as UCI_REGISTRY
from esmo.ensembles.estimator import share_size_problem

ENSEMBLES = config["ensembles"]
DATASET_NAMES_ENSEMBLES = [*UCI_REGISTRY, *BREIMAN_GENERATORS]


def ensembles_fig3_proportions():
    """Fig 3's tp values: ``linspace(start, stop, num)``, rounded to 6 decimals."""
    spec = ENSEMBLES["fig3"]["train_proportions"]
    return [
        round(float(v), 6)
        for v in np.linspace(spec["start"], spec["stop"], spec["num"])
    ]


def ensembles_config_problems(cfg):
    """Checks JSON schema cannot express: experiment datasets among the paper's, reps ordered."""
    ens = cfg["ensembles"]
    problems = []
    for name in ("fig1", "fig2", "fig3", "variants"):
        outside = sorted(set(ens[name]["datasets"]) - set(ens["datasets"]))
        if outside:
            problems.append(
                f"ensembles.{name}.datasets names {outside}, which ensembles.datasets does not "
                "list; add them there or remove them here"
            )
    if ens["fig2"]["fit_last"] > len(ens["fig2"]["n_train"]):
        problems.append(
            "ensembles.fig2.fit_last exceeds the number of ensembles.fig2.n_train sizes; "
            "fit on at most that many points"
        )
    if ens["fig3"]["fit_last"] > ens["fig3"]["train_proportions"]["num"]:
        problems.append(
            "ensembles.fig3.fit_last exceeds ensembles.fig3.train_proportions.num; fit on at "
            "most that many points"
        )
    if max(ens["fig2"]["n_train"]) > ens["n_train"]:
        problems.append(
            "ensembles.fig2.n_train holds sizes above ensembles.n_train; the figure uses a "
            "prefix of the training rows"
        )
    return problems + ensembles_share_problems(ens)


def ensembles_class_shares(dataset):
    """The dataset's (-1, +1) shares: the UCI files' counts pooled, or balanced (Breiman's)."""
    if dataset not in UCI_REGISTRY:
        return np.array([0.5, 0.5])
    spec = UCI_REGISTRY[dataset]
    counts = [c for f in spec.files for c in UCI_FILES[f].class_counts]
    positive = sum(n for label, n in counts if label.rstrip(".") == spec.positive)
    total = sum(n for _, n in counts)
    return np.array([total - positive, positive]) / total


def ensembles_share_problems(ens):
    """Every configured (tp, n) whose grid-search shares the estimator would refuse mid-run."""
    n_full = ens["n_train"]
    f2, f3 = ens["fig2"], ens["fig3"]
    fig3_tps = np.linspace(
        f3["train_proportions"]["start"],
        f3["train_proportions"]["stop"],
        f3["train_proportions"]["num"],
    )
    checks = [
        (
            "table1.train_proportions",
            ens["datasets"],
            ens["table1"]["train_proportions"],
            [n_full],
        ),
        (
            "fig1.train_proportions",
            ens["fig1"]["datasets"],
            ens["fig1"]["train_proportions"],
            [n_full],
        ),
        (
            "fig2.train_proportion",
            f2["datasets"],
            [f2["train_proportion"]],
            f2["n_train"],
        ),
        (
            "fig3.train_proportions",
            f3["datasets"],
            [round(float(v), 6) for v in fig3_tps],
            [n_full],
        ),
        (
            "variants.train_proportions",
            ens["variants"]["datasets"],
            ens["variants"]["train_proportions"],
            [n_full],
        ),
    ]
    problems = []
    for key, datasets, tps, sizes in checks:
        for dataset in datasets:
            shares = ensembles_class_shares(dataset)
            for tp in tps:
                for n in sizes:
                    problem = share_size_problem(
                        tp, np.round(shares * n), labels=(-1, 1)
                    )
                    if problem:
                        problems.append(
                            f"ensembles.{key} on {dataset} (n = {n}): {problem}"
                        )
    return problems


raise_config_problems(ensembles_config_problems(config))


def _tp(tp):
    return f"{tp:g}"


def ensembles_cells():
    """Every cell: ``{(dataset, rep, name): spec}``; a spec says what its job fits."""
    cells = {}
    n_full = ENSEMBLES["n_train"]

    def add(dataset, rep, kind, search, *, tp=None, n=None, arms=("structured",)):
        if kind == "ensemble":
            name = f"ens-{search}-tp{_tp(tp)}" + (f"-n{n}" if n != n_full else "")
        else:
            name = f"svm-{search}-n{n}"
        key = (dataset, rep, name)
        spec = cells.setdefault(
            key,
            {"kind": kind, "search": search, "tp": tp, "n": n, "arms": ["structured"]},
        )
        spec["arms"] += [a for a in arms if a not in spec["arms"]]

    t1 = ENSEMBLES["table1"]
    for dataset in ENSEMBLES["datasets"]:
        for rep in range(t1["repetitions"]):
            for tp in t1["train_proportions"]:
                add(dataset, rep, "ensemble", "exhaustive", tp=tp, n=n_full)
            for n in t1["n_single"]:
                add(dataset, rep, "svm", "exhaustive", n=n)
    f1 = ENSEMBLES["fig1"]
    for dataset in f1["datasets"]:
        for rep in range(f1["repetitions"]):
            for tp in f1["train_proportions"]:
                add(dataset, rep, "ensemble", "exhaustive", tp=tp, n=n_full,
                    arms=("structured", "subbagging"))  # fmt: skip
    f2 = ENSEMBLES["fig2"]
    for dataset in f2["datasets"]:
        for rep in range(f2["repetitions"]):
            for n in f2["n_train"]:
                add(
                    dataset,
                    rep,
                    "ensemble",
                    "exhaustive",
                    tp=f2["train_proportion"],
                    n=n,
                )
                add(dataset, rep, "svm", "exhaustive", n=n)
    f3 = ENSEMBLES["fig3"]
    for dataset in f3["datasets"]:
        for rep in range(f3["repetitions"]):
            for tp in ensembles_fig3_proportions():
                add(dataset, rep, "ensemble", "exhaustive", tp=tp, n=n_full)
    var = ENSEMBLES["variants"]
    for dataset in var["datasets"]:
        for rep in range(var["repetitions"]):
            for tp in var["train_proportions"]:
                for search in ["exhaustive", *var["searches"]]:
                    add(dataset, rep, "ensemble", search, tp=tp, n=n_full)
            for n in var["n_single"]:
                for search in ("exhaustive", "early_stopped"):
                    add(dataset, rep, "svm", search, n=n)
    return cells


ENSEMBLES_CELLS = ensembles_cells()


def ensembles_cell_files():
    return [
        f"results/ensembles/cells/{dataset}/rep{rep}/{name}.csv"
        for (dataset, rep, name) in ENSEMBLES_CELLS
    ]


def ensembles_cell_spec(wildcards):
    return ENSEMBLES_CELLS[(wildcards.dataset, int(wildcards.rep), wildcards.cell)]


def ensembles_cell_rows(spec):
    """The rows one SVM of a cell trains on: its size decides how long the job runs."""
    return spec["n"] if spec["kind"] == "svm" else round(spec["tp"] * spec["n"])


def ensembles_packed(wildcards):
    """Whether a cell job is packed with others into a group job on a cluster."""
    spec = ensembles_cell_spec(wildcards)
    return ensembles_cell_rows(spec) <= ENSEMBLES["slurm"]["pack_max_rows"]


def ensembles_group(wildcards):
    """On SLURM, the short cells share group jobs (group ensembles_pack, profiles/slurm)."""
    return "ensembles_pack" if ensembles_packed(wildcards) else None


def ensembles_runtime(wildcards):
    """A cell job's time limit in minutes (a packed one's is short: the group sums them)."""
    slurm = ENSEMBLES["slurm"]
    return (
        slurm["pack_runtime_min"]
        if ensembles_packed(wildcards)
        else slurm["runtime_min"]
    )


def ensembles_cell_data(wildcards):
    """A UCI dataset's prepared table; the synthetic problems are drawn inside the job."""
    if wildcards.dataset in UCI_REGISTRY:
        return [f"results/ensembles/data/{wildcards.dataset}.npz"]
    return []


def ensembles_uci_inputs(wildcards):
    return [f"resources/uci/{name}" for name in UCI_REGISTRY[wildcards.uci].files]


def ensembles_products():
    """What the target ``ensembles`` (and ``all``) requests."""
    out = "results/ensembles/"
    return [
        out + "table1.csv",
        out + "table1.html",
        out + "matched_time.csv",
        out + "best_time.csv",
        out + "fig1.csv",
        out + "fig1.png",
        out + "fig2_slopes.csv",
        out + "fig2.png",
        out + "fig3_slopes.csv",
        out + "fig3.png",
        out + "fig4.png",
        out + "variants.csv",
        out + "variants.html",
        out + "reproduction.csv",
        out + "reproduction.html",
        out + "table1_beside_paper.csv",
        out + "table1_beside_paper.html",
    ]


register_paper("ensembles", datasets=lambda: [], products=ensembles_products)
