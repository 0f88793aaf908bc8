"""The documentation site's navigation lists every page, so that a new page is not forgotten.

The site (``make docs``, ``docs/conf.py``) takes its pages from ``include_patterns`` (every
Markdown file under ``docs/``, the API pages, and a few files outside ``docs/`` such as
``README.md``) and its navigation from the toctrees, starting at ``docs/index.md``. Sphinx
fails the build on a page that no toctree names; this test says so in a second, without
Sphinx, and also catches a toctree entry whose file is gone.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "docs" / "conf.py"

MYST_TOCTREE = re.compile(r"^```\{toctree\}[^\n]*\n(.*?)^```", re.M | re.S)
RST_TOCTREE = re.compile(r"^\.\. toctree::[^\n]*\n((?:[ \t]+[^\n]*\n|[ \t]*\n)*)", re.M)
TITLED_ENTRY = re.compile(r"^.*<(?P<target>[^>]+)>$")  # "The whole README </README>"


def conf_value(name: str, conf: Path = CONF):
    """A literal assigned in ``docs/conf.py``, read without importing it."""
    for node in ast.parse(conf.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return ast.literal_eval(node.value)
    raise KeyError(f"{name} is not assigned in {conf}")


def doc_file(root: Path, docname: str) -> Path | None:
    """The source file of a document name (``docs/rules`` -> ``docs/rules.md``)."""
    for suffix in (".md", ".rst", ".ipynb"):
        path = root / f"{docname}{suffix}"
        if path.is_file():
            return path
    return None


def toctree_entries(root: Path, docname: str) -> list[str]:
    """The document names a page's toctrees list, relative to the source root."""
    text = doc_file(root, docname).read_text(encoding="utf-8")
    bodies = MYST_TOCTREE.findall(text) + RST_TOCTREE.findall(text)
    entries = []
    for body in bodies:
        for line in body.splitlines():
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            titled = TITLED_ENTRY.match(line)
            target = titled.group("target") if titled else line
            if target.startswith("/"):
                entries.append(target.lstrip("/"))
            else:
                entries.append((Path(docname).parent / target).as_posix())
    return entries


def navigation(root: Path, root_doc: str) -> tuple[set[str], set[str]]:
    """Every document the toctrees reach from the root page, and entries with no file."""
    reached, missing, todo = {root_doc}, set(), [root_doc]
    while todo:
        for entry in toctree_entries(root, todo.pop()):
            if doc_file(root, entry) is None:
                missing.add(entry)
            elif entry not in reached:
                reached.add(entry)
                todo.append(entry)
    return reached, missing


def pages(root: Path, include_patterns: list[str]) -> set[str]:
    """The document names the site reads: every Markdown or reST file under ``docs/`` that
    the patterns take, and the single files they name outside ``docs/``."""
    names = set()
    for pattern in include_patterns:
        if "*" in pattern:
            folder = pattern.split("*", 1)[0].rstrip("/")
            depth = "**/" if "**" in pattern else ""  # Sphinx's "docs/**.md": any depth
            found = (root / folder).glob(f"{depth}*{Path(pattern).suffix}")
        else:
            found = [root / pattern]
        names |= {p.relative_to(root).with_suffix("").as_posix() for p in found if p.is_file()}
    return names


def unlisted_pages(root: Path, include_patterns: list[str], root_doc: str) -> set[str]:
    reached, _ = navigation(root, root_doc)
    return pages(root, include_patterns) - reached


def test_every_page_is_in_the_navigation():
    include_patterns = conf_value("include_patterns")
    root_doc = conf_value("root_doc")
    assert not unlisted_pages(ROOT, include_patterns, root_doc), (
        "pages of the site that no toctree lists (add them to docs/index.md or a page it "
        f"lists): {sorted(unlisted_pages(ROOT, include_patterns, root_doc))}"
    )


def test_every_navigation_entry_is_a_page():
    _, missing = navigation(ROOT, conf_value("root_doc"))
    assert not missing, f"toctree entries with no .md or .rst file: {sorted(missing)}"


def test_the_site_reads_every_markdown_file_of_docs():
    """A new page under ``docs/`` (any depth) is a page of the site, hence checked above."""
    in_docs = {
        p.relative_to(ROOT).with_suffix("").as_posix() for p in (ROOT / "docs").rglob("*.md")
    }
    assert in_docs
    assert in_docs <= pages(ROOT, conf_value("include_patterns"))


def test_positive_control_an_unlisted_page_and_a_stale_entry_are_found(tmp_path):
    docs = tmp_path / "docs"
    (docs / "api").mkdir(parents=True)
    (docs / "index.md").write_text("# Home\n\n```{toctree}\n:maxdepth: 1\n\nlisted\ngone\n```\n")
    (docs / "listed.md").write_text("# Listed\n")
    (docs / "forgotten.md").write_text("# Forgotten\n")
    (docs / "api" / "index.rst").write_text("API\n===\n")
    (tmp_path / "README.md").write_text("# Readme\n")
    patterns = ["README.md", "docs/**.md", "docs/api/*.rst"]
    assert unlisted_pages(tmp_path, patterns, "docs/index") == {
        "README",
        "docs/forgotten",
        "docs/api/index",
    }
    assert navigation(tmp_path, "docs/index")[1] == {"docs/gone"}
    # listing them, rooted or titled as the real index does, clears it
    (docs / "index.md").write_text(
        "# Home\n\n```{toctree}\nlisted\nforgotten\nThe readme </README>\n```\n\n"
        "```{toctree}\n:caption: API\n\napi/index\n```\n"
    )
    assert unlisted_pages(tmp_path, patterns, "docs/index") == set()
    assert navigation(tmp_path, "docs/index")[1] == set()
