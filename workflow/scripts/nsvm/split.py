"""One seed's split of one dataset: Ringnorm generated (7,400 points), MNIST 0/1 subsampled."""

import logging

import numpy as np

from esmo.data.breiman import ringnorm_delve
from esmo.papers.common.job_log import job_log
from esmo.papers.nsvm.experiment import make_split

dataset, seed = snakemake.wildcards.dataset, int(snakemake.wildcards.seed)
cfg = snakemake.params.cfg
with job_log(snakemake.log[0], f"{dataset} split, seed {seed}"):
    if dataset == "ringnorm":
        X, y = ringnorm_delve(cfg["n"], 20, random_state=seed)
        split = make_split(
            X, y, None, None, n_test=cfg["n_test"], n_train=cfg["n_train"],
            n_tune=cfg["n_tune"], standardise=True, seed=seed,
        )  # fmt: skip
        offline = False
    else:
        data = np.load(snakemake.input[0])
        offline = bool(data["offline_subset"])
        n_train, n_tune = cfg["n_train"], cfg["n_tune"]
        if n_train is None or n_train > len(data["y"]):
            n_train = None
        if n_tune > 0.2 * (n_train or len(data["y"])):
            # the offline subset: 200 of its 1,000 images tune (docs/nsvm-protocol.md sec 3)
            n_tune = int(0.2 * (n_train or len(data["y"])))
            logging.warning("tuning split lowered to %d images (training pool too small)", n_tune)
        split = make_split(
            data["X"], data["y"], data["X_test"], data["y_test"], n_test=0, n_train=n_train,
            n_tune=n_tune, standardise=False, seed=seed,
        )  # fmt: skip
    np.savez_compressed(snakemake.output[0], **split, offline_subset=np.array(offline))
    logging.info(
        "%d training rows (%d tune), %d test",
        len(split["y_train"]),
        len(split["tune"]),
        len(split["y_test"]),
    )
