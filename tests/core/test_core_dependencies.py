"""The core (``import esmo``, the solver, the sweeps, ``SMOClassifier``) needs no analysis extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# modules of the ``analysis`` extra; scipy itself comes with scikit-learn
BLOCKED = ("pandas", "matplotlib", "seaborn", "statsmodels")

SCRIPT = textwrap.dedent(
    """
    import importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in {blocked!r}:
                raise ImportError(f"{{name}} is blocked: not a core dependency")

    sys.meta_path.insert(0, Block())
    import numpy as np
    import esmo
    from esmo import EarlyStopping, SMOClassifier, solve_smo, sweep_early_stopping
    from esmo.data import libsvm

    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = np.where(X[:, 0] > 0.5, 1.0, -1.0)
    clf = SMOClassifier(early_stopping=True, n_iter_no_change=3, random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.8
    result = sweep_early_stopping(X[:40], y[:40], X[40:], y[40:], [EarlyStopping(2, 0.0)])
    assert result.stop_iter.shape == (1,)
    assert solve_smo(X, y).n_iter > 0
    from esmo import SVMEnsembleClassifier
    from esmo.data import breiman, uci
    ens = SVMEnsembleClassifier(n_subensembles=2, train_proportion=0.25, C_grid=[1.0], gamma_grid=[1.0])
    assert ens.fit(X, y).score(X, y) > 0.8
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in {blocked!r})
    print("loaded:", loaded)
    """
).format(blocked=BLOCKED)


def test_core_runs_without_the_analysis_extra():
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=False
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "loaded: []"


def test_the_blocker_would_catch_an_analysis_import():
    """The oracle works: a module of the extra, imported under the same blocker, fails."""
    script = SCRIPT.replace("import esmo\n", "import esmo\nimport esmo.papers.thesis.scoring\n")
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert out.returncode != 0 and "pandas is blocked" in out.stderr
