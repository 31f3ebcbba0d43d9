"""The documentation site, built, opened in Debian's headless Chromium.

Skipped unless ``ESMO_DOCS_SITE`` names the built site (the README's test command
does not build it). ``.ci/run`` builds it and runs this file:

    .venv/bin/python -m sphinx -W --keep-going -b html docs docs/_build/html
    ESMO_DOCS_SITE=docs/_build/html .venv/bin/python -m pytest -q tests/docs

Every HTML page loads, every internal link (``href`` and ``src``) resolves to an
existing file and, with a fragment, to an element of that page with that id,
every image of every page loaded, and every example of ``examples/`` has its page
with its figure. Screenshots of the home page, a user-guide page and an example go
to ``$ESMO_TEST_ARTIFACTS/docs_screenshots/`` (or the test's tmp_path).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
SITE = os.environ.get("ESMO_DOCS_SITE")

pytestmark = pytest.mark.skipif(
    not SITE, reason="ESMO_DOCS_SITE does not name a built site (see .ci/run)"
)

#: Pages of the site's own making (not template fragments under _static/).
SCREENSHOTS = {
    "home": "index.html",
    "user_guide": "user-guide/early-stopping.html",
    "example": "auto_examples/solver/plot_early_stopped_fit.html",
}

# What a loaded page reports: its title, the ids it holds, the links and sources it
# names (as the browser resolved them) and every image's load state.
_PAGE_JS = """
const imgs = [...document.images].map(i => ({
    src: i.currentSrc || i.src, complete: i.complete, width: i.naturalWidth,
    cls: i.className}));
const refs = [...document.querySelectorAll('a[href], link[href]')].map(a => a.href)
    .concat([...document.querySelectorAll('script[src], img[src]')].map(s => s.src));
const ids = [...document.querySelectorAll('[id], a[name]')].map(e => e.id || e.name);
return {title: document.title, ready: document.readyState, ids: ids, refs: refs,
        images: imgs, main: document.querySelector('main') !== null,
        text: document.body ? document.body.innerText.length : 0};
"""


def _site() -> Path:
    site = Path(SITE).resolve()
    if not (site / "index.html").is_file():
        pytest.fail(f"ESMO_DOCS_SITE={SITE}: no index.html there; build the site first")
    return site


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.relative_to(site).parts)


def _browser():
    from browser import Browser, require_chromium

    return Browser(*require_chromium())


def _load(browser, page: Path) -> dict:
    browser.open(page.as_uri())
    browser.wait_for("document.readyState === 'complete'")
    # images load after readyState on some pages (lazy loading): wait for each
    browser.wait_for("[...document.images].every(i => i.complete)")
    return browser.run(_PAGE_JS)


def _local_target(url: str, site: Path) -> tuple[Path, str] | None:
    """The file and fragment a link points to inside the site, or None for an outside link."""
    parts = urlsplit(url)
    if parts.scheme != "file":
        return None
    return Path(unquote(parts.path)), unquote(parts.fragment)


def test_every_page_loads_every_link_resolves_every_figure_shows(tmp_path):
    site = _site()
    pages = _pages(site)
    shots = Path(os.environ.get("ESMO_TEST_ARTIFACTS", tmp_path)) / "docs_screenshots"
    seen: dict[Path, dict] = {}
    with _browser() as browser:
        for page in pages:
            seen[page] = _load(browser, page)
            name = next((k for k, v in SCREENSHOTS.items() if site / v == page), None)
            if name == "example":  # the first figure in view
                browser.run(
                    "document.querySelector('img.sphx-glr-single-img, "
                    "img.sphx-glr-multi-img').scrollIntoView();"
                )
            if name is not None:
                browser.screenshot(shots / f"{name}.png")

    problems = []
    for page, info in seen.items():
        where = page.relative_to(site)
        if (
            info["ready"] != "complete"
            or not info["title"]
            or not info["main"]
            or info["text"] < 50
        ):
            problems.append(f"{where}: did not load as a page ({info['title']!r})")
        for image in info["images"]:
            if not (image["complete"] and image["width"] > 0):
                problems.append(f"{where}: image {image['src']} did not load")
        for url in info["refs"]:
            target = _local_target(url, site)
            if target is None:
                continue
            path, fragment = target
            if path.is_dir():
                path = path / "index.html"
            if not path.is_file():
                problems.append(f"{where}: broken link {url}")
            elif fragment and path.suffix == ".html":
                ids = seen.get(path, {}).get("ids")
                if ids is None:
                    problems.append(f"{where}: {url} points outside the site's pages")
                elif fragment not in ids:
                    problems.append(f"{where}: {url}: no element with id {fragment!r}")
    problems = list(dict.fromkeys(problems))  # a link repeated on a page, once
    assert not problems, f"{len(problems)} problems:\n" + "\n".join(problems[:50])

    examples = sorted((REPO / "examples").rglob("plot_*.py"))
    assert examples, "no examples found under examples/"
    missing = []
    for example in examples:
        page = site / "auto_examples" / example.relative_to(REPO / "examples").with_suffix(".html")
        figures = [i for i in seen.get(page, {}).get("images", []) if "sphx-glr" in i["cls"]]
        if page not in seen or not figures or not all(i["width"] > 0 for i in figures):
            missing.append(str(example.relative_to(REPO)))
    assert not missing, f"examples without a page showing their figure: {missing}"
    for name in SCREENSHOTS:
        assert (shots / f"{name}.png").stat().st_size > 10_000, name
    print(
        f"{len(pages)} pages, {len(examples)} examples with their figures; screenshots in {shots}"
    )
