"""The offline switch (config key ``offline``): one folder laid out like ../shared/datasets
points every data source at its subfolder, and is checked before any job runs (issue 33).

The folders here hold empty files under the mirrors' names: a dry run, and a refusal
before any job, read nothing but their names.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from conftest import offline_config, require_mirror, require_mnist_mirror, require_uci_mirror

from esmo.data import libsvm, mnist, uci

REPO = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.workflow

#: one file of each source, and the file of the offline folder its download reads
TARGETS = {
    "resources/libsvm/fourclass": "libsvm/fourclass",
    "resources/uci/magic04.data": "uci/magic04.data",
    "results/nsvm/data/mnist01.npz": "mnist/mnist_5k.csv.gz",
}


def offline_folder(root: Path, *, without: tuple[str, ...] = ()) -> Path:
    """A folder laid out like ../shared/datasets (empty files), lacking the files ``without``."""
    names = [f"libsvm/{spec.filename}" for spec in libsvm.REGISTRY.values()]
    names += [f"uci/{name}" for name in uci.FILES]
    names += [f"mnist/{mnist.FILES[k]}" for k in ("test_images", "test_labels")]
    names += [f"mnist/{mnist.SUBSET}"]
    for name in names:
        if name not in without:
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_bytes(b"")
    return root


def snakemake(workdir: Path, *args: str) -> subprocess.CompletedProcess:
    """The project's Snakefile run in ``workdir``; its output, passed or failed."""
    cmd = [sys.executable, "-m", "snakemake", "--snakefile", str(REPO / "Snakefile")]
    cmd += ["--directory", str(workdir), "--cores", "1", *args]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, check=False)


def nothing_ran(workdir: Path) -> bool:
    """No job started in ``workdir``: no output, no log, no download's temporary file."""
    return not any((workdir / folder).exists() for folder in ("resources", "results", "logs"))


def test_the_switch_points_every_source_at_its_subfolder(tmp_path):
    """A relative folder is read from the working directory (Snakemake's --directory)."""
    offline_folder(tmp_path / "datasets")
    work = tmp_path / "work"
    result = snakemake(work, "-n", *TARGETS, "--config", "offline=../datasets")
    assert result.returncode == 0, result.stdout + result.stderr
    inputs = [line for line in result.stdout.splitlines() if line.strip().startswith("input:")]
    for name in TARGETS.values():
        assert any(f"../datasets/{name}" in line for line in inputs), result.stdout
    assert "download_libsvm" in result.stdout and "nsvm_mnist" in result.stdout


def test_a_mirror_set_explicitly_wins_over_the_switch(tmp_path):
    offline_folder(tmp_path / "datasets", without=("libsvm/fourclass",))
    own = tmp_path / "own"
    own.mkdir()
    (own / "fourclass").write_bytes(b"")
    override = tmp_path / "own.yaml"
    override.write_text(
        yaml.safe_dump({"offline": "../datasets", "datasets": {"mirror": str(own)}})
    )
    result = snakemake(tmp_path / "work", "-n", *TARGETS, "--configfile", str(override))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"input: {own / 'fourclass'}" in result.stdout
    assert "input: ../datasets/uci/magic04.data" in result.stdout


def test_the_switch_as_a_configfile(tmp_path):
    """config/offline.yaml is the switch at ../shared/datasets from the working directory."""
    offline_folder(tmp_path / "shared" / "datasets")
    configfile = str(REPO / "config" / "offline.yaml")
    result = snakemake(tmp_path / "work", "-n", *TARGETS, "--configfile", configfile)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "input: ../shared/datasets/libsvm/fourclass" in result.stdout
    assert yaml.safe_load(Path(configfile).read_text()) == {"offline": "../shared/datasets"}


def test_a_missing_offline_folder_is_refused_before_any_job(tmp_path):
    work = tmp_path / "work"
    for run in (["-n"], []):  # the dry run, and the run itself
        result = snakemake(work, *run, *TARGETS, "--config", "offline=../absent")
        out = result.stdout + result.stderr
        assert result.returncode != 0
        assert "offline = '../absent': no such folder" in out, out
        assert "--config offline=../shared/datasets" in out
        assert "Building DAG of jobs" not in out and nothing_ran(work)


@pytest.mark.parametrize(
    ("target", "removed", "message"),
    [
        ("resources/libsvm/fourclass", "libsvm/fourclass", "no file ../datasets/libsvm/fourclass"),
        ("resources/uci/adult.test", "uci/adult.test", "no file ../datasets/uci/adult.test"),
        (
            "results/nsvm/data/mnist01.npz",
            "mnist/mnist_5k.csv.gz",
            "../datasets/mnist holds neither train-images-idx3-ubyte.gz nor mnist_5k.csv.gz",
        ),
        # the gradient paper's cluster-only files: libsvm-bz2/, absent from ../shared
        ("resources/libsvm/ijcnn1", None, "no file ../datasets/libsvm-bz2/ijcnn1.bz2"),
    ],
    ids=["libsvm", "uci", "mnist", "libsvm-bz2"],
)
def test_an_offline_folder_lacking_a_needed_file_is_refused_before_any_job(
    tmp_path, target, removed, message
):
    """The run stops while the DAG is built, naming the file and the switch; the files it
    has (diabetes here) are not fetched either."""
    offline_folder(tmp_path / "datasets", without=(removed,))
    work = tmp_path / "work"
    for run in (["-n"], []) if removed == "libsvm/fourclass" else (["-n"],):
        result = snakemake(
            work, *run, "resources/libsvm/diabetes", target, "--config", "offline=../datasets"
        )
        out = result.stdout + result.stderr
        assert result.returncode != 0
        assert "the offline switch (offline = '../datasets')" in out, out
        assert message in out and "Nothing was run" in out, out
        assert nothing_ran(work)


def test_a_per_source_mirror_lacking_a_file_names_its_key(tmp_path):
    """Without the switch, a local mirror folder is checked the same way."""
    mirror = offline_folder(tmp_path / "datasets", without=("libsvm/fourclass",)) / "libsvm"
    work = tmp_path / "work"
    result = snakemake(
        work, "resources/libsvm/fourclass", "--config", f'datasets={{"mirror": "{mirror}"}}'
    )
    out = result.stdout + result.stderr
    assert result.returncode != 0 and nothing_ran(work)
    assert f"datasets.mirror = '{mirror}': no file {mirror / 'fourclass'}" in out, out
    assert "set datasets.mirror to null to download" in out


def test_the_switch_fetches_every_source_from_the_offline_copies(tmp_path):
    """A real run from ../shared/datasets (or $ESMO_OFFLINE): one file of each source, verified;
    then nothing is left to do."""
    require_mirror(), require_uci_mirror(), require_mnist_mirror()
    override = tmp_path / "offline.yaml"
    override.write_text(yaml.safe_dump(offline_config()))
    work = tmp_path / "work"
    result = snakemake(work, *TARGETS, "--configfile", str(override))
    assert result.returncode == 0, result.stdout + result.stderr
    for target in TARGETS:
        assert (work / target).is_file(), target
    assert "fetched fourclass from " in (work / "logs" / "download" / "fourclass.log").read_text()
    again = snakemake(work, "-n", *TARGETS, "--configfile", str(override))
    assert "Nothing to be done" in again.stdout + again.stderr


def test_the_docs_show_the_switch():
    """The README's main command is shown with the one switch, which replaced the per-source
    offline instructions; the workflow catalog names it."""
    lines = (REPO / "README.md").read_text().splitlines()
    main = next(
        line for line in lines if line.endswith("snakemake --profile profiles/default --cores 2")
    )
    assert f"{main} --config offline=../shared/datasets" in lines
    assert not [line for line in lines if '={"mirror"' in line or "mirrors.yaml" in line]
    catalog = yaml.safe_load((REPO / ".snakemake-workflow-catalog.yml").read_text())
    assert "--config offline=" in catalog["usage"]["mandatory-flags"]["desc"]
