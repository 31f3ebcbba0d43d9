"""Beyond the paper: per method (NSVM-1..4, Pegasos without a network), one tracked run (without
the tuning split, to max_factor x T) gives every early-stopping configuration's stop step and its
validation and test accuracy, exactly; NSVM-4's Part I stopped on the validation alignment,
then Part II as early-stopped Pegasos (``nsvm4_part1``), takes one fit per configuration."""

import time

import numpy as np
import pandas as pd

from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.experiment import (
    ALGORITHMS,
    classifier,
    early_stopping_configs,
    part1_early_stopping,
    plain_pegasos_gamma,
    scaled_steps,
    tuning_parts,
    with_tuned_learning_rates,
)
from esmo.solver.pegasos import sweep_pegasos

w, p = snakemake.wildcards, snakemake.params
es = p.early_stopping
with job_log(snakemake.log[0], f"early stopping on {w.dataset}, seed {w.seed}"):
    d = np.load(snakemake.input.split)
    # the chosen learning rates when nsvm.lr_tuning is on (the input is there only then)
    settings = with_tuned_learning_rates(p.settings, getattr(snakemake.input, "lr_tuning", None))
    seed = int(w.seed)
    X, y, Xv, yv = tuning_parts(d)
    configs = early_stopping_configs(es["patience"], es["es_tol"], es["interval"])
    tables = []
    for algorithm in [*ALGORITHMS, "pegasos"]:
        if algorithm == "pegasos":
            # kernel Pegasos without a network, gamma = 1/d, epochs x m steps as the baseline
            paper_steps = max(1, round(p.pegasos["epochs"] * len(y)))
            max_steps = max(1, round(paper_steps * es["max_factor"]))
            t0 = time.perf_counter()
            sweep = sweep_pegasos(
                X, y, Xv, yv, configs, X_test=d["X_test"], y_test=d["y_test"], lam=p.lam,
                n_steps=max_steps, gamma=plain_pegasos_gamma(X.shape[1]), random_state=seed,
            )  # fmt: skip
            end_seconds = time.perf_counter() - t0
            seconds = (
                sweep.stop_iter / max_steps * end_seconds
            )  # Pegasos: cost about linear in steps
        else:
            clf = classifier(
                w.dataset, algorithm, settings[algorithm], seed, p.steps_scale * es["max_factor"]
            )
            clf.set_params(early_stopping=configs)
            clf.fit(X, y, Xv, yv, d["X_test"], d["y_test"])
            sweep = clf.early_stopping_
            key = "part2_steps" if algorithm == "nsvm4" else "n_steps"
            paper_steps = scaled_steps(settings[algorithm][key], p.steps_scale)
            max_steps = sweep.reference["n_iter"]
            if algorithm == "nsvm4":
                full_nsvm4 = clf  # a sweep: Part I and Part II run to the end
                # Part I runs in full; Part II's (Pegasos) time taken as linear in its steps
                part2 = clf.part2_sweep_seconds_
                end_seconds = clf.part1_seconds_ + part2
                seconds = clf.part1_seconds_ + sweep.stop_iter / max_steps * part2
            else:
                end_seconds = clf.fit_seconds_
                seconds = np.array(
                    [clf.check_seconds_.get(int(s), end_seconds) for s in sweep.stop_iter]
                )
        table = sweep.table.assign(
            dataset=w.dataset, method=algorithm, seed=seed,
            patience=[c.patience for c in configs], es_tol=[c.tol for c in configs],
            interval=es["interval"], paper_steps=paper_steps, max_steps=max_steps,
            test_accuracy_at_end=sweep.reference["test_accuracy"],
            seconds_at_stop=seconds, seconds_at_end=end_seconds,
        ).rename(columns={"stop_iter": "stop_step"})  # fmt: skip
        tables.append(table)
    part1 = part1_early_stopping(
        w.dataset, settings["nsvm4"], (X, y, Xv, yv, d["X_test"], d["y_test"]), configs, seed,
        p.steps_scale, es["max_factor"], full_nsvm4,
    )  # fmt: skip
    tables.append(part1.assign(dataset=w.dataset, seed=seed))
    pd.concat(tables, ignore_index=True).to_csv(snakemake.output[0], index=False)
