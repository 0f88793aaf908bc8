"""The wheel holds code, the shipped models and the web page, nothing else.

scikit-build-core puts every file of ``[tool.scikit-build] wheel.packages`` into the wheel
that git does not ignore and ``wheel.exclude`` does not name, so a Markdown page, a chart
or a run config left inside a package ships to every user. The check reads those two
settings, lists the git-tracked files of the packages, and holds each to ``ALLOWED``
(docs, charts and run configs live in ``docs/``, studies in ``research/``, outside the
packages). The same check runs on a doctored list as its positive control, and on a built
wheel's real file list where ``CANASTA_WHEEL`` names one.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import zipfile
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib", reason="tomllib is Python 3.11+")

ROOT = Path(__file__).resolve().parent.parent

#: What a package may ship, as fnmatch patterns over the path in the wheel.
ALLOWED = (
    "*.py",
    "canasta_env/py.typed",
    "agents/models/*.npz",
    "agents/models/*.zip",
    "agents/models/*.json",
    "canasta_web/static/*",
)
#: What the package needs at run time: the default network and the browser table's page.
REQUIRED = (
    "agents/models/classic_2p.npz",
    "agents/models/classic_4p.npz",
    "agents/models/all_tables.npz",
    "agents/models/belief_classic.json",
    "canasta_web/static/index.html",
    "canasta_env/py.typed",
)
#: Built by CMake into the wheel (not tracked by git): the compiled core.
BUILT = ("canasta_env/_core.*.so", "canasta_env/_core.*.pyd", "canasta_env/_core.so")


def wheel_settings() -> tuple[list[str], list[str]]:
    """``wheel.packages`` and ``wheel.exclude`` of pyproject.toml's ``[tool.scikit-build]``."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        settings = tomllib.load(file)["tool"]["scikit-build"]
    wheel = settings.get("wheel", {})
    return list(wheel["packages"]), list(wheel.get("exclude", []))


def _pattern_regex(pattern: str) -> re.Pattern:
    """A gitignore-style pattern (the kind ``wheel.exclude`` takes) as a regex over a
    path from the repository root: ``**`` any folders, ``*`` and ``?`` within one name, a
    pattern without an inner ``/`` matching at any depth, a match on a folder covering
    everything below it."""
    anchored = "/" in pattern.strip("/")
    text = pattern.strip("/")
    if text.startswith("**/"):
        text, anchored = text[3:], False
    out = []
    i = 0
    while i < len(text):
        if text.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif text.startswith("**", i):
            out.append(".*")
            i += 2
        elif text[i] == "*":
            out.append("[^/]*")
            i += 1
        elif text[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(text[i]))
            i += 1
    prefix = "" if anchored else "(?:.*/)?"
    return re.compile(f"^{prefix}{''.join(out)}(?:/.*)?$")


def excluded(path: str, patterns: list[str]) -> bool:
    return any(_pattern_regex(pattern).match(path) for pattern in patterns)


def wheel_files(tracked: list[str], packages: list[str], exclude: list[str]) -> list[str]:
    """The files of ``tracked`` (paths from the repository root) that the wheel takes."""
    roots = tuple(package.rstrip("/") + "/" for package in packages)
    return sorted(p for p in tracked if p.startswith(roots) and not excluded(p, exclude))


def disallowed(files: list[str]) -> list[str]:
    """The files that are not code, a shipped model or the web page."""
    return [f for f in files if not any(fnmatchcase(f, pattern) for pattern in ALLOWED)]


def git_tracked() -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout: the wheel's files are the git-tracked ones")
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        pytest.skip(f"git ls-files failed: {listed.stderr.strip()}")
    return [path for path in listed.stdout.split("\0") if path]


def test_the_settings_name_the_packages() -> None:
    packages, exclude = wheel_settings()
    assert set(packages) == {
        "canasta_env",
        "agents",
        "canasta_arena",
        "training",
        "canasta_cli",
        "canasta_web",
    }
    assert "research" not in packages
    assert "**/__pycache__" in exclude and "**/*.pyc" in exclude


def test_the_wheel_holds_code_models_and_the_web_page_only() -> None:
    packages, exclude = wheel_settings()
    files = wheel_files(git_tracked(), packages, exclude)
    assert not disallowed(files), (
        "files that would ship in the wheel but are not code, a shipped model or the web "
        f"page (move them to docs/ or research/, or name them in wheel.exclude): "
        f"{disallowed(files)}"
    )
    missing = [path for path in REQUIRED if path not in files]
    assert not missing, f"the package needs these in the wheel: {missing}"
    assert not [f for f in files if f.startswith("research/")]


def test_the_check_reports_docs_charts_and_configs() -> None:
    """Positive control: a doctored file list with a page, a chart, a run config and a
    research module in it; each is reported, and the rest passes."""
    packages, _exclude = wheel_settings()
    exclude = ["**/__pycache__", "**/*.pyc"]  # not the live list, which may name the page
    doctored = [
        "training/README.md",
        "training/curve.png",
        "training/run_c24b_config.json",
        "agents/models/notes.md",
        "research/widen.py",
        "training/__pycache__/net.cpython-311.pyc",
        "training/net.py",
        "agents/models/classic_2p.npz",
        "canasta_web/static/index.html",
    ]
    files = wheel_files(doctored, packages, exclude)
    assert "research/widen.py" not in files  # not a package of the wheel
    assert "training/__pycache__/net.cpython-311.pyc" not in files  # wheel.exclude
    assert disallowed(files) == [
        "agents/models/notes.md",
        "training/README.md",
        "training/curve.png",
        "training/run_c24b_config.json",
    ]


def test_the_exclude_patterns_match_as_gitignore_does() -> None:
    assert excluded("training/__pycache__/net.cpython-311.pyc", ["**/__pycache__"])
    assert excluded("agents/x.pyc", ["**/*.pyc"])
    assert excluded("training/README.md", ["*.md"])
    assert excluded("training/README.md", ["training/README.md"])
    assert not excluded("agents/README.md", ["training/README.md"])
    assert not excluded("training/net.py", ["**/*.pyc", "**/__pycache__"])


def test_a_built_wheel_holds_the_same() -> None:
    """``CANASTA_WHEEL=dist/canasta_env-....whl``: the real wheel's file list."""
    path = os.environ.get("CANASTA_WHEEL")
    if not path or not Path(path).is_file():
        pytest.skip("no built wheel: set CANASTA_WHEEL to a .whl to check its files")
    with zipfile.ZipFile(path) as wheel:
        names = [name for name in wheel.namelist() if not name.endswith("/")]
    packages, _ = wheel_settings()
    top = {name.split("/", 1)[0] for name in names}
    unexpected = sorted(n for n in top - set(packages) if not n.endswith(".dist-info"))
    assert not unexpected, f"the wheel holds more than its packages: {unexpected}"
    files = [
        name
        for name in names
        if not name.split("/", 1)[0].endswith(".dist-info")
        and not any(fnmatchcase(name, pattern) for pattern in BUILT)
    ]
    bad = disallowed(files)
    assert not bad, f"in {path}, not code, a model or the web page: {bad}"
    missing = [p for p in REQUIRED if p not in files]
    assert not missing, f"{path} lacks {missing}"
    assert any(fnmatchcase(name, pattern) for name in names for pattern in BUILT), (
        f"{path} has no compiled core (canasta_env/_core)"
    )
