"""The one download path (esmo.data.download.fetch_verified) and every source going through it."""

from __future__ import annotations

import bz2
import hashlib
import http.client
import os
import stat
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from esmo.data import download, libsvm, mnist, uci
from esmo.data.download import (
    DatasetVerificationError,
    DownloadError,
    digest_check,
    fetch_verified,
)

PAYLOAD = b"0123456789" * 1000
HINT = "Offline, set some.mirror to a folder."


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch):
    monkeypatch.setattr(download.time, "sleep", lambda s: None)


def _source(tmp_path: Path, data: bytes = PAYLOAD) -> Path:
    src = tmp_path / "site" / "file.bin"
    src.parent.mkdir(exist_ok=True)
    src.write_bytes(data)
    return src


def _sha(data: bytes = PAYLOAD) -> str:
    return hashlib.sha256(data).hexdigest()


def _left_in(folder: Path) -> list[str]:
    return sorted(os.listdir(folder)) if folder.exists() else []


@pytest.mark.parametrize("as_url", [False, True])
def test_a_verified_file_appears_whole(tmp_path, as_url):
    src = _source(tmp_path)
    location = src.as_uri() if as_url else src
    dest = fetch_verified(location, tmp_path / "out" / "file.bin", digest_check(_sha()), hint=HINT)
    assert dest.read_bytes() == PAYLOAD
    assert _left_in(tmp_path / "out") == ["file.bin"], "no temporary file is left"


@pytest.mark.parametrize("as_url", [False, True])
def test_a_failed_verification_leaves_no_file(tmp_path, as_url):
    src = _source(tmp_path, PAYLOAD[:-7])  # truncated
    location = src.as_uri() if as_url else src
    with pytest.raises(DatasetVerificationError, match="not the official") as info:
        fetch_verified(location, tmp_path / "out" / "file.bin", digest_check(_sha()), hint=HINT)
    assert _left_in(tmp_path / "out") == []
    if as_url:  # a download is tried again; a local copy is not
        assert "failed verification 3 times" in str(info.value)


class _CutResponse:
    """An HTTP response that sends ``sent`` bytes, then loses the connection."""

    def __init__(self, sent: bytes, error: Exception, seen: list):
        self.sent, self.error, self.seen = sent, error, seen

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def read(self, n=-1):
        if self.sent:
            chunk, self.sent = self.sent, b""
            return chunk
        self.seen.append(True)
        raise self.error


@pytest.mark.parametrize(
    "error", [http.client.IncompleteRead(b"partial"), ConnectionResetError("reset by peer")]
)
def test_a_transfer_cut_mid_stream_leaves_no_partial_file(tmp_path, monkeypatch, error):
    out = tmp_path / "out"
    seen: list = []

    def urlopen(url, timeout):
        # the partial bytes reach the temporary file before the cut
        return _CutResponse(PAYLOAD[:4096], error, seen)

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    with pytest.raises(DownloadError, match="after 2 attempts") as info:
        fetch_verified(
            "https://example.org/file.bin", out / "file.bin", digest_check(_sha()), hint=HINT,
            retries=2,
        )  # fmt: skip
    assert seen == [True, True], "both attempts were cut mid-stream"
    assert str(info.value).endswith(HINT)
    assert _left_in(out) == []


def test_a_transient_error_is_retried_then_succeeds(tmp_path, monkeypatch):
    src = _source(tmp_path)
    calls = []

    def flaky(url, timeout):
        calls.append(url)
        if len(calls) == 1:
            return _CutResponse(PAYLOAD[:100], TimeoutError("read timed out"), [])
        return open(src, "rb")

    monkeypatch.setattr(urllib.request, "urlopen", flaky)
    dest = fetch_verified(
        "https://example.org/file.bin", tmp_path / "out" / "file.bin", digest_check(_sha()),
        hint=HINT,
    )  # fmt: skip
    assert len(calls) == 2 and dest.read_bytes() == PAYLOAD
    assert _left_in(tmp_path / "out") == ["file.bin"]


def test_mirrors_are_tried_in_order(tmp_path, monkeypatch):
    good = _source(tmp_path)
    calls = []

    def urlopen(url, timeout):
        calls.append(url)
        if "down" in url:
            raise urllib.error.URLError("Temporary failure in name resolution")
        return open(good, "rb")

    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    sources = ["https://down.example/file.bin", "https://up.example/file.bin"]
    fetch_verified(sources, tmp_path / "out" / "f", digest_check(_sha()), hint=HINT)
    assert calls == sources


def test_an_interrupt_leaves_no_partial_file(tmp_path):
    src = _source(tmp_path)

    def check(path):
        assert path.read_bytes() == PAYLOAD  # the copy is complete, but not yet in place
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        fetch_verified(src, tmp_path / "out" / "file.bin", check, hint=HINT)
    assert _left_in(tmp_path / "out") == []


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="retries"):
        fetch_verified(
            _source(tmp_path), tmp_path / "x", digest_check(_sha()), hint=HINT, retries=0
        )
    with pytest.raises(ValueError, match="at least one source"):
        fetch_verified([], tmp_path / "x", digest_check(_sha()), hint=HINT)


# -- every source goes through the one function ---------------------------------------


@pytest.fixture
def recorded(monkeypatch):
    """Replace fetch_verified by a recorder that writes the source's bytes without checking."""
    calls = []

    def record(source, dest, check, *, hint, retries=3, timeout=60.0):
        calls.append({"source": source, "dest": Path(dest), "hint": hint, "check": check})
        Path(dest).parent.mkdir(parents=True, exist_ok=True)
        Path(dest).write_bytes(b"recorded")
        return Path(dest)

    monkeypatch.setattr(download, "fetch_verified", record)
    return calls


def test_libsvm_fetches_through_it(tmp_path, recorded):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "fourclass").write_text("+1 1:0.5\n")
    libsvm.fetch("fourclass", tmp_path / "out" / "fourclass", mirror=mirror)
    assert recorded[0]["source"] == os.path.join(mirror, "fourclass")
    assert "mirror=" in recorded[0]["hint"] and "libsvm" in recorded[0]["hint"]


def test_libsvm_shape_checked_fetches_through_it(tmp_path, recorded):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "ijcnn1.bz2").write_bytes(bz2.compress(b"1 1:0.5\n"))
    libsvm.fetch_shape_checked("ijcnn1", tmp_path / "out" / "ijcnn1", mirror=mirror)
    assert recorded[0]["source"] == os.path.join(mirror, "ijcnn1.bz2")


def test_uci_fetches_through_it(tmp_path, recorded):
    uci.fetch("magic04.data", tmp_path / "out" / "magic04.data", base_url="https://example.org/")
    assert recorded[0]["source"] == "https://example.org/magic/magic04.data"
    assert "uci" in recorded[0]["hint"]


def test_mnist_fetches_through_it(tmp_path, recorded):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name in (mnist.FILES["test_images"], mnist.FILES["test_labels"], mnist.SUBSET):
        (mirror / name).write_bytes(b"x")
    files = mnist.fetch(tmp_path / "out", base_urls=[], mirror=mirror)
    assert set(files) == {"test_images", "test_labels", "subset"}
    assert [c["source"] for c in recorded] == [
        [mirror / mnist.FILES["test_images"]], [mirror / mnist.FILES["test_labels"]],
        [mirror / mnist.SUBSET],
    ]  # fmt: skip
    assert all("nsvm.mnist.mirror" in c["hint"] for c in recorded)
    recorded.clear()
    mnist.fetch(tmp_path / "web", base_urls=["https://a.example/", "https://b.example/"])
    assert [c["source"] for c in recorded][0] == [
        "https://a.example/" + mnist.FILES["train_images"],
        "https://b.example/" + mnist.FILES["train_images"],
    ]
    assert len(recorded) == 4


# -- atomic, and each source's error names its mirror option ----------------------------


def test_mnist_corrupt_mirror_file_leaves_nothing(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    for name in (mnist.FILES["test_images"], mnist.FILES["test_labels"], mnist.SUBSET):
        (mirror / name).write_bytes(b"not the official file")
    with pytest.raises(DatasetVerificationError, match="not the official"):
        mnist.fetch(tmp_path / "out", base_urls=[], mirror=mirror)
    assert _left_in(tmp_path / "out") == []


@pytest.fixture
def offline(monkeypatch):
    """Every download fails as on a machine without network; the URLs tried."""
    calls = []

    def refuse(url, target, timeout):
        calls.append(url)
        raise urllib.error.URLError("Temporary failure in name resolution")

    monkeypatch.setattr(download, "_download", refuse)
    return calls


def test_libsvm_offline_error_names_the_mirror_option(tmp_path, offline):
    with pytest.raises(DownloadError, match="mirror=") as info:
        libsvm.fetch("a1a", tmp_path / "a1a", retries=3)
    assert offline == [libsvm.DEFAULT_BASE_URL + "a1a"] * 3, "every retry hits the official URL"
    assert "after 3 attempts" in str(info.value)
    assert os.listdir(tmp_path) == []


def test_mnist_offline_error_names_the_mirror_option(tmp_path, offline):
    with pytest.raises(DownloadError, match="nsvm.mnist.mirror") as info:
        mnist.fetch(tmp_path / "out", base_urls=["https://a.example/", "https://b.example/"])
    assert isinstance(info.value, OSError)  # as before: callers catching OSError still do
    assert len(offline) == 2 * 3, "each of the 3 attempts tries both base URLs"
    assert "../shared/datasets/mnist" in str(info.value)
    assert _left_in(tmp_path / "out") == []
    with pytest.raises(DownloadError, match="nsvm.mnist.mirror"):
        mnist.fetch(tmp_path / "out", base_urls=[])


# the workflow's download rules (workflow/scripts/download.py) call fetch_in_workflow
WORKFLOW_SOURCES = [
    (libsvm.fetch, "a1a", "datasets.mirror", 'datasets={"mirror": "../shared/datasets/libsvm"}'),
    (
        uci.fetch,
        "magic04.data",
        "ensembles.uci.mirror",
        'ensembles={"uci": {"mirror": "../shared/datasets/uci"}}',
    ),
    (
        libsvm.fetch_shape_checked,
        "ijcnn1",
        "gradient.downloads.mirror",
        'gradient={"downloads": {"mirror": "libsvm-bz2"}}',
    ),
]


@pytest.mark.parametrize(
    ("fetch", "name", "key", "example"), WORKFLOW_SOURCES, ids=["libsvm", "uci", "libsvm-bz2"]
)
def test_a_failed_download_in_the_workflow_names_the_offline_switch(
    tmp_path, offline, fetch, name, key, example
):
    """Without the offline switch, a download that fails names it first, then the source's key."""
    with pytest.raises(DownloadError) as info:
        download.fetch_in_workflow(
            fetch, name, tmp_path / name, mirror=None, retries=1, timeout=1.0,
            mirror_key=key, mirror_example=example,
        )  # fmt: skip
    message = str(info.value)
    assert len(offline) == 1 and "after 1 attempts" in message
    assert "snakemake --config offline=../shared/datasets" in message
    assert "--configfile config/offline.yaml" in message
    assert f"set {key} alone" in message and f"snakemake --config '{example}'" in message
    assert os.listdir(tmp_path) == []


def test_a_failed_mnist_download_names_the_offline_switch(tmp_path, offline):
    with pytest.raises(DownloadError) as info:
        mnist.fetch(tmp_path / "out", base_urls=["https://a.example/"], retries=1)
    assert "snakemake --config offline=../shared/datasets" in str(info.value)
    assert "set nsvm.mnist.mirror alone" in str(info.value)


def test_fetch_in_workflow_passes_a_fetch_through(tmp_path):
    src = _source(tmp_path)
    dest = tmp_path / "out" / "file.bin"
    got = download.fetch_in_workflow(
        fetch_verified, src, dest, digest_check(_sha()), hint=HINT,
        mirror_key="some.mirror", mirror_example="x",
    )  # fmt: skip
    assert got == dest and dest.read_bytes() == PAYLOAD
    with pytest.raises(DatasetVerificationError):  # a wrong file is not a failed download
        download.fetch_in_workflow(
            fetch_verified, src, tmp_path / "bad", digest_check("0" * 64), hint=HINT,
            mirror_key="some.mirror", mirror_example="x",
        )  # fmt: skip


def test_the_mnist_mirror_files_are_the_ones_fetch_reads(tmp_path):
    """The workflow checks these before any job runs (the nsvm_mnist and benchmark_mnist inputs)."""
    with pytest.raises(FileNotFoundError, match="is not a folder"):
        mnist.mirror_files(tmp_path / "absent")
    with pytest.raises(FileNotFoundError, match="holds neither"):
        mnist.mirror_files(tmp_path)
    (tmp_path / mnist.SUBSET).write_bytes(b"x")
    assert [p.name for p in mnist.mirror_files(tmp_path).values()] == [
        mnist.FILES["test_images"], mnist.FILES["test_labels"], mnist.SUBSET,
    ]  # fmt: skip
    (tmp_path / mnist.FILES["train_images"]).write_bytes(b"x")
    assert list(mnist.mirror_files(tmp_path)) == list(mnist.FILES)
    with pytest.raises(FileNotFoundError, match="lacks .*train-labels"):
        mnist.fetch(tmp_path / "out", base_urls=[], mirror=tmp_path)


def test_shape_checked_location(tmp_path):
    assert libsvm.shape_checked_location("ijcnn1", mirror=tmp_path) == str(tmp_path / "ijcnn1.bz2")
    assert libsvm.shape_checked_location("ijcnn1", mirror="https://m.example/") == (
        "https://m.example/ijcnn1.bz2"
    )
    official = libsvm.shape_checked_location("ijcnn1")
    assert official == libsvm.LIBSVM_ROOT_URL + libsvm.SHAPE_CHECKED["ijcnn1"].url_path


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_downloaded_file_has_the_mode_the_umask_gives(tmp_path, umask, mode):
    """As ``open`` would create it: a shared cluster folder's group can read the data
    (a temporary file from mkstemp is 0600 whatever the umask, issue 35)."""
    src = _source(tmp_path)
    old = os.umask(umask)
    try:
        dest = fetch_verified(src, tmp_path / "out" / "file.bin", digest_check(_sha()), hint=HINT)
    finally:
        os.umask(old)
    assert stat.S_IMODE(dest.stat().st_mode) == mode
