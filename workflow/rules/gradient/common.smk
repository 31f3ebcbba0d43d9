"""The gradient paper's config checks, its cells and the files its target requests.

Every key lives in the config section ``gradient`` (``GRADIENT`` below). A
cell is (dataset, n_trg, seed, method), one job, computed once whichever
experiments read it (tables 1 and 2, the F experiment, table 3, fig 1), so
Fig 1 reuses table 1's Grid and Grad runs. Datasets are named by role in the
config (``ijcnn``, ``vehicle``, ``adult``, ``splice``; ``gradient.roles``
says which dataset plays IJCNN and Vehicle) or directly by dataset name.
"""

from esmo.papers.gradient.data import DATASETS as GRADIENT_DATASETS
from esmo.papers.gradient.data import ROLES as GRADIENT_ROLES
from esmo.papers.gradient.data import input_files as gradient_input_files
from esmo.papers.gradient.data import resolve_role
from esmo.data.libsvm import SHAPE_CHECKED as LIBSVM_SHAPE_CHECKED
from esmo.solver.tracking import SMOOTHING_T

GRADIENT = config["gradient"]
#: The tables rule gradient_tables writes, each as CSV and HTML
GRADIENT_TABLES = ("table1", "table2", "f_measure", "table3", "cost_breakup", "start")


def gradient_dataset(name):
    """The dataset a config entry names: a role (resolved by gradient.roles) or a dataset."""
    if name in GRADIENT_ROLES:
        return resolve_role(name, GRADIENT["roles"])
    return name


def gradient_config_problems(cfg):
    """Checks JSON schema cannot express: the roles' datasets, one entry per dataset, the
    sigmoid's sharpness the library's."""
    grad = cfg["gradient"]
    problems = []
    # one t for the tuner's smoothed objective and the solver's smoothed early-stopping
    # objectives (compiled with it; the inexact study's inner rule reads them)
    if grad["tuner"]["sharpness"] != SMOOTHING_T:
        problems.append(
            f"gradient.tuner.sharpness = {grad['tuner']['sharpness']} differs from the "
            f"sharpness {SMOOTHING_T} the solver's smoothed early-stopping objectives use "
            "(esmo.solver.tracking.SMOOTHING_T, the inexact study's inner rule); set it to "
            f"{SMOOTHING_T}"
        )
    for role, name in grad["roles"].items():
        if name not in GRADIENT_ROLES.get(role, ()):
            problems.append(
                f"gradient.roles.{role} = {name!r} cannot play that role; choose one of "
                f"{list(GRADIENT_ROLES.get(role, ()))}"
            )
    for table in ("table1", "table2"):
        names = [c["dataset"] for c in grad[table]["cells"]]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            problems.append(
                f"gradient.{table}.cells lists {repeated} more than once; give each dataset "
                "one entry with all its n_trg values"
            )
    variants = grad["inexact"]["variants"]
    first = variants[0]
    if (first["name"], first["inner"], first["warm_start"]) != (
        "exact",
        "exact",
        False,
    ):
        problems.append(
            "gradient.inexact.variants must start with {name: exact, inner: exact, "
            "warm_start: false}: every other variant is measured against it"
        )
    names = [v["name"] for v in variants]
    if len(set(names)) != len(names):
        problems.append(f"gradient.inexact.variants repeats a name: {names}")
    return problems


raise_config_problems(gradient_config_problems(config))


def gradient_experiments():
    """Each experiment's cells: ``{experiment: [(dataset, n_trg, seed, method), ...]}``."""
    out = {}
    for table in ("table1", "table2"):
        spec = GRADIENT[table]
        out[table] = [
            (gradient_dataset(entry["dataset"]), int(n), seed, method)
            for entry in spec["cells"]
            for n in entry["n_trg"]
            for seed in range(spec["seeds"])
            for method in spec["methods"]
        ]
    spec = GRADIENT["smo_share"]
    out["smo_share"] = [
        (gradient_dataset(entry["dataset"]), int(n), seed, method)
        for entry in spec["cells"]
        for n in entry["n_trg"]
        for seed in range(spec["seeds"])
        for method in ("grad", "grad_plain_smo")
    ]
    spec = GRADIENT["f_measure"]
    out["f_measure"] = [
        (gradient_dataset(spec["dataset"]), int(spec["n_trg"]), seed, method)
        for seed in range(spec["seeds"])
        for method in ("f_direct", "f_bias")
    ]
    spec = GRADIENT["table3"]
    out["table3"] = [
        (gradient_dataset(spec["dataset"]), int(spec["n_trg"]), seed, f"wer{m}_{half}")
        for seed in range(spec["seeds"])
        for m in (1, 2, 3, 4)
        for half in ("bias", "direct")
    ]
    spec = GRADIENT["fig1"]
    methods = ["grid", "grad", "fig1_test"]
    methods += [f"restart{k}" for k in range(spec["restarts"])]
    out["fig1"] = [
        (gradient_dataset(spec["dataset"]), int(spec["n_trg"]), int(spec["seed"]), m)
        for m in methods
    ]
    return out


GRADIENT_EXPERIMENTS = gradient_experiments()
GRADIENT_CELLS = list(
    dict.fromkeys(cell for cells in GRADIENT_EXPERIMENTS.values() for cell in cells)
)


def gradient_cell_path(cell, suffix="csv"):
    dataset, n_trg, seed, method = cell
    return f"results/gradient/cells/{dataset}/n{n_trg}/seed{seed}/{method}.{suffix}"


def gradient_cell_files():
    return [gradient_cell_path(cell) for cell in GRADIENT_CELLS]


def gradient_cell_inputs(wildcards):
    """The prepared dataset, and Grad's row for Grad-ARD (it starts at Grad's optimum)."""
    inputs = {"data": f"results/gradient/data/{wildcards.dataset}.npz"}
    if wildcards.method == "grad_ard":
        cell = (wildcards.dataset, wildcards.n_trg, wildcards.seed, "grad")
        inputs["grad"] = gradient_cell_path(cell)
    return inputs


def gradient_data_inputs(wildcards):
    return [f"resources/{f}" for f in gradient_input_files(wildcards.gradient_dataset)]


def gradient_datasets():
    """Every dataset a cell or the inexact-solve study uses."""
    names = [cell[0] for cell in GRADIENT_CELLS]
    names += [draw[0] for draw in gradient_inexact_draws()]
    return list(dict.fromkeys(names))


def gradient_fig1_inputs():
    """Fig 1's detail tables: Grid's, the test-error grid, Grad's path and the restarts'."""
    spec = GRADIENT["fig1"]
    base = (gradient_dataset(spec["dataset"]), int(spec["n_trg"]), int(spec["seed"]))
    return {
        "grid": gradient_cell_path((*base, "grid"), "detail.csv"),
        "test": gradient_cell_path((*base, "fig1_test"), "detail.csv"),
        "path": gradient_cell_path((*base, "grad"), "detail.csv"),
        "restarts": [
            gradient_cell_path((*base, f"restart{k}"), "detail.csv")
            for k in range(spec["restarts"])
        ],
    }


def gradient_smo():
    """The paper's SMO settings (``gradient.smo``) and the shared solver's shrinking."""
    return {**GRADIENT["smo"], "shrinking": config["solver"]["shrinking"]}


def gradient_settings(wildcards):
    """The settings a cell's method reads, and only those: changing one reruns only its cells.

    Grid reads the grid, SMO, the sigmoid's t (its smoothed error) and lambda;
    the tuners the tuner, SMO and lambda (Grad-ARD its budget too; the restarts
    the grid's box); fig 1's test-error grid the grid, SMO and its test rows.
    """
    method = wildcards.method
    keys = {"smo", "negative_cost"}
    if method in ("grid", "fig1_test") or method.startswith("restart"):
        keys.add("grid")
    if method != "fig1_test":
        keys.add("tuner")
    if method == "grad_ard":
        keys.add("ard")
    settings = {k: GRADIENT[k] for k in sorted(keys)}
    settings["smo"] = gradient_smo()
    if method == "grid":  # Grid reads only the sigmoid's t of the tuner's settings
        settings["tuner"] = {"sharpness": GRADIENT["tuner"]["sharpness"]}
    if method == "fig1_test":
        settings["contour_test_rows"] = GRADIENT["fig1"]["contour_test_rows"]
    return settings


def gradient_inexact_draws(agreement=False):
    """The draws of the inexact-solve study: (dataset, n_trg, seed); the agreement's seeds only."""
    spec = GRADIENT["inexact"]
    seeds = spec["agreement"]["seeds"] if agreement else range(spec["seeds"])
    return [
        (gradient_dataset(entry["dataset"]), int(n), int(seed))
        for entry in spec["cells"]
        for n in entry["n_trg"]
        for seed in seeds
    ]


def gradient_inexact_settings(*keys):
    """The inexact study's settings a draw's job reads (not the list of draws: adding one reruns nothing)."""
    return {key: GRADIENT["inexact"][key] for key in keys}


def gradient_inexact_files(name, agreement=False):
    """Every draw's file ``name`` (runs.csv, scores.csv, agreement.csv)."""
    return [
        f"results/gradient/inexact/{dataset}/n{n_trg}/seed{seed}/{name}"
        for dataset, n_trg, seed in gradient_inexact_draws(agreement)
    ]


def gradient_inexact_tables(wildcards):
    """The inexact study's agreement and savings tables, whose claims the reproduction judges
    (none when the config gives the study no draws)."""
    if not gradient_inexact_draws():
        return {}
    return {
        f"inexact_{name}": f"results/gradient/inexact/{name}.csv"
        for name in ("agreement", "savings")
    }


def gradient_products():
    """What the target ``gradient`` (and ``all``) requests."""
    files = []
    for name in (*GRADIENT_TABLES, "claims"):
        files += [f"results/gradient/{name}.{ext}" for ext in ("csv", "html")]
    files += ["results/gradient/fig1.png", "results/gradient/fig1_restarts.csv"]
    files += [f"results/gradient/reproduction.{ext}" for ext in ("csv", "html")]
    for name in ("savings", "agreement", "scores"):
        files += [f"results/gradient/inexact/{name}.{ext}" for ext in ("csv", "html")]
    files += ["results/gradient/inexact/agreement.png"]
    return files


register_paper("gradient", datasets=lambda: [], products=gradient_products)
