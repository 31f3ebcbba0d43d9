"""Headless Chromium driven through chromedriver's W3C WebDriver HTTP API (urllib only).

Debian's ``chromium`` and ``chromium-driver`` packages; no browser is downloaded at
run time. Used by the report test in ``test_workflow.py`` and the documentation site's
test, ``tests/docs/test_site.py``.
"""

from __future__ import annotations

import base64
import json
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

# A headless browser that talks to nobody but the page: no GPU, no sandbox (CI runs
# as root), no QUIC, no first-run, background, component-update or sync traffic.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1400,1000",
]


def find_chromium() -> tuple[str, str] | None:
    """Paths of chromium and chromedriver, or None when either is missing."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").is_file() else None
    )
    return (browser, driver) if browser and driver else None


def require_chromium() -> tuple[str, str]:
    """Paths of chromium and chromedriver, or the current test stops: failed under CI
    (``CI=true`` needs them), else skipped."""
    import pytest
    from conftest import on_ci

    found = find_chromium()
    if found is None:
        message = "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        if on_ci():
            pytest.fail(f"{message}; CI=true needs them", pytrace=False)
        pytest.skip(message)
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Browser:
    """One chromedriver process and one headless session in a new empty profile."""

    def __init__(self, browser: str, driver: str) -> None:
        self.port = _free_port()
        self.profile = tempfile.mkdtemp(prefix="esmo-chromium-")
        self.process = subprocess.Popen(
            [driver, f"--port={self.port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        self.url = f"http://127.0.0.1:{self.port}"
        for _ in range(200):
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except OSError:
                time.sleep(0.05)
        options = {"binary": browser, "args": [*FLAGS, f"--user-data-dir={self.profile}"]}
        caps = {"capabilities": {"alwaysMatch": {"goog:chromeOptions": options}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                return json.loads(response.read())["value"]
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"WebDriver {method} {path}: {exc.read()[:500]!r}") from exc

    def _session(self, method: str, path: str, body: dict | None = None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def open(self, url: str) -> None:
        self._session("POST", "/url", {"url": url})

    def run(self, script: str, *args):
        """The value of a JavaScript function body (``return ...``) run in the page."""
        return self._session("POST", "/execute/sync", {"script": script, "args": list(args)})

    def run_async(self, script: str, *args):
        """Like :meth:`run`; the script calls ``arguments[arguments.length - 1](value)``."""
        return self._session("POST", "/execute/async", {"script": script, "args": list(args)})

    def wait_for(self, condition: str, timeout: float = 30.0) -> None:
        """Poll a JavaScript expression until it is true."""
        end = time.monotonic() + timeout
        while not self.run(f"return Boolean({condition});"):
            if time.monotonic() > end:
                raise TimeoutError(f"the page never satisfied {condition!r}")
            time.sleep(0.1)

    def screenshot(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self._session("GET", "/screenshot")))
        return path

    def close(self) -> None:
        try:
            self._call("DELETE", f"/session/{self.session}")
        finally:
            self.process.terminate()
            self.process.wait(timeout=10)
            shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
