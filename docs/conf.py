"""Sphinx configuration of esmo's documentation site.

Build (warnings are errors, as in .ci/run):

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The gallery's examples (``examples/plot_*.py``) run at build time; the API
reference is generated from the docstrings (``docs/api/generated/``); the
Markdown pages (the protocols, architecture.md, optuna.md) are read by myst-parser.
"""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
# document the checkout's library, whatever esmo the environment has installed
sys.path.insert(0, str(ROOT / "src"))
# the examples draw with Agg, and no example opens a window
os.environ.setdefault("MPLBACKEND", "Agg")

from sphinx.util import logging  # noqa: E402
from sphinx_gallery.sorting import ExplicitOrder  # noqa: E402

import esmo  # noqa: E402

logger = logging.getLogger("esmo-docs")

project = "esmo"
author = "the esmo developers"
copyright = "the esmo developers (MIT licence)"
release = version = esmo.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    # sphinx-gallery's own by-products, not pages
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
    "auto_examples/*.pickle",
]

# -- the API reference: autodoc + autosummary + napoleon (the docstrings are numpy-style prose)
autosummary_generate = True
autosummary_imported_members = False
autodoc_default_options = {
    "members": True,
    "member-order": "bysource",
    "show-inheritance": True,
    # a package page documents what the package defines; the names it re-exports are
    # documented once, in the module that defines them (and viewcode links them there)
    "ignore-module-all": True,
}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_class_signature = "mixed"
autodoc_inherit_docstrings = False
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_custom_sections = [("Parameters shared by every search", "params_style")]


def skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing setters (``set_fit_request`` ...):
    every estimator has them, their docstrings point into scikit-learn's own site."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def follow_imported(app, modname, attribute):
    """The module whose source page holds ``attribute``: where it is defined if that is
    esmo's, else the documenting module (a type alias such as ``FitKey = tuple[...]``
    reports ``builtins``, which has no source page)."""
    from sphinx.ext.viewcode import _get_full_modname

    defined = _get_full_modname(modname, attribute)
    return defined if defined and defined.split(".")[0] == "esmo" else modname


def _defined_at(target: str) -> str | None:
    """Where the object ``target`` names is defined (``esmo.SMOClassifier`` ->
    ``esmo.estimators.smo_classifier.SMOClassifier``), or None."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
            for attribute in parts[cut:]:
                obj = getattr(obj, attribute)
        except (ImportError, AttributeError):
            continue
        module, name = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        return f"{module}.{name}" if module and name else None
    return None


def resolve_esmo_reference(app, env, node, contnode):
    """Names a package re-exports (``esmo.SMOClassifier``, ``esmo.hypergradient.GradientSearchCV``)
    are documented where they are defined: resolve a reference to the short name there. A
    reference to an esmo object that resolves nowhere is a warning, so the build (-W) fails
    on a dead link into the library."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or target.split(".")[0] != "esmo":
        return None
    defined = _defined_at(target)
    if defined is not None and defined != target:
        python = env.get_domain("py")
        found = python.resolve_xref(
            env, node["refdoc"], app.builder, node["reftype"], defined, node, contnode
        )
        if found is not None:
            return found
    logger.warning(
        "reference to %s (%s) resolves to no documented object",
        target,
        node["reftype"],
        location=node,
    )
    return None


def public_bases(app, name, obj, options, bases):
    """Show a class's public bases: a private base (``_NSVM``) is replaced by its own."""
    expanded = []
    for base in bases:
        expanded += (
            public_bases(app, name, obj, options, list(base.__bases__))
            if (base.__name__.startswith("_"))
            else [base]
        )
    bases[:] = list(dict.fromkeys(expanded))
    return bases


def setup(app):
    app.connect("autodoc-skip-member", skip_member)
    app.connect("missing-reference", resolve_esmo_reference)
    app.connect("autodoc-process-bases", public_bases)
    app.connect("viewcode-follow-imported", follow_imported)


# -- Markdown pages
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# -- the gallery: examples/plot_*.py, run at build time
sphinx_gallery_conf = {
    "examples_dirs": "../examples",  # paths relative to docs/
    "gallery_dirs": "auto_examples",
    "subsection_order": ExplicitOrder(
        [f"../examples/{part}" for part in ("solver", "searches", "methods")]
    ),
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "download_all_examples": False,
    "remove_config_comments": True,
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "min_reported_time": 0,
    "show_memory": False,
    # no sg_execution_times pages: they load DataTables from a CDN (each example page
    # still states its own running time)
    "write_computation_times": False,
    "plot_gallery": "True",
}

# -- HTML: the PyData theme
html_theme = "pydata_sphinx_theme"
html_title = f"esmo {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "navbar_align": "left",
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version", "theme-version"],
}
html_sidebars = {"index": [], "getting-started": []}
html_show_sourcelink = False
html_copy_source = False
