"""The documentation site (Sphinx, MyST Markdown, furo): ``make docs`` builds it into ``site/``.

The source folder is the repository root, not ``docs/``: the pages are the Markdown files where
they already are (``docs/*.md``, ``README.md``, ``training/README.md``, ``CHANGELOG.md``), so
their relative links (``../../training/README.md``, ``docs/core.md``) resolve on the site as they
do on GitHub. ``include_patterns`` names the files that are pages; ``docs/index.md`` holds the
navigation, and the API reference (``docs/api/``) is written by autodoc from the docstrings,
whose reST (``literals``, :func:`roles`, tables) Sphinx reads as written.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

# autodoc imports the installed packages (make docs runs after make install), as users get them

project = "canasta-env"
author = "canasta-env contributors"
copyright = "canasta-env contributors, MIT license"
try:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    release = _version("canasta-env")
except PackageNotFoundError:  # a checkout never installed
    release = "unknown"

extensions = [
    "myst_nb",  # MyST Markdown (it loads myst_parser) and the notebooks as pages
    "sphinx.ext.autodoc",
    "sphinx.ext.viewcode",
]

root_doc = "docs/index"
#: The files that are pages; everything else in the repository is not read as a page (links
#: to other files, such as ``examples/my_bot.py``, become downloads).
include_patterns = [
    "README.md",
    "CHANGELOG.md",
    "docs/**.md",
    "docs/api/*.rst",
    "training/README.md",
    "research/README.md",
    "notebooks/*.ipynb",
]
exclude_patterns = [".venv", ".ci-venv", "build", "site", "**/.ipynb_checkpoints"]
source_suffix = {".md": "myst-nb", ".rst": "restructuredtext", ".ipynb": "myst-nb"}
# the notebooks are stored without outputs; _run_notebook runs each as it is read, with the
# docs' budgets (notebooks/run.py), so the pages show what the code they document prints
nb_execution_mode = "off"
nb_merge_streams = True

# GitHub's heading anchors, as the pages link them (rules.md#c-1-classic-deck)
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence"]

autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"

html_theme = "furo"
html_title = f"canasta-env {release}"
html_static_path: list[str] = []


def _redirect_to_home(app, exception) -> None:
    """``site/index.html``: the home page is ``docs/index``, one folder down."""
    if exception is None and app.builder.format == "html":
        target = Path(app.outdir) / "index.html"
        target.write_text(
            '<!doctype html><meta charset="utf-8"><title>canasta-env</title>'
            '<meta http-equiv="refresh" content="0; url=docs/index.html">'
            '<a href="docs/index.html">canasta-env documentation</a>\n',
            encoding="utf-8",
        )


#: A Markdown link or image target that is a relative path (not a URL, an anchor or rooted).
_RELATIVE_TARGET = re.compile(r"\]\((?![a-z][a-z0-9+.-]*:|#|/)([^)\s]+)\)")


def _rebase_included_links(app, relative_path, parent_docname, content) -> None:
    """Links of an included file (README slices in docs/ pages) resolve from the including page.

    The README links ``docs/core.md`` and ``examples/my_bot.py`` from the repository root;
    included into ``docs/index.md`` they must read ``../docs/core.md``. MyST's own
    ``relative-docs`` option rebases one prefix only.
    """
    # MyST passes the including page's stem only; the page being read has its folder
    including_page = app.env.docname
    rebase = os.path.relpath(Path(relative_path).parent, Path(including_page).parent)
    if rebase != ".":
        content[0] = _RELATIVE_TARGET.sub(
            lambda m: f"]({Path(rebase, m.group(1)).as_posix()})", content[0]
        )


def _run_notebook(app, docname, content) -> None:
    """A notebook page is the notebook run with the docs' budgets, outputs and all."""
    if not docname.startswith("notebooks/"):
        return
    import nbformat

    sys.path.insert(0, str(Path(app.srcdir)))
    try:
        from notebooks import run
    finally:
        sys.path.pop(0)
    name = Path(docname).name + ".ipynb"
    notebook = nbformat.reads(content[0], as_version=4)
    run.execute(notebook, run.DOCS_BUDGETS[name], timeout=600)
    content[0] = nbformat.writes(notebook)


def setup(app) -> None:
    app.connect("source-read", _run_notebook)
    app.connect("include-read", _rebase_included_links)
    app.connect("build-finished", _redirect_to_home)
