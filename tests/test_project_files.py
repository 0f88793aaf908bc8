"""The project's files agree with its metadata: one version, one licence."""

from __future__ import annotations

import importlib.metadata
import re
from pathlib import Path

from canasta_cli.__main__ import main
from canasta_env import __version__

ROOT = Path(__file__).resolve().parent.parent


def _project_field(name: str) -> str:
    """A top-level field of pyproject's [project] table, as written (tomllib is 3.11+)."""
    text = (ROOT / "pyproject.toml").read_text()
    table = text.split("[project]", 1)[1].split("\n[", 1)[0]
    found = re.search(rf"^{name} = (.+)$", table, re.MULTILINE)
    assert found, f"pyproject.toml [project] has no {name}"
    return found.group(1).strip()


def test_the_version_comes_from_pyproject_only(capsys) -> None:
    version = _project_field("version").strip('"')
    assert __version__ == version == importlib.metadata.version("canasta-env")
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"canasta-env {version}"
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(rf'^version: "{re.escape(version)}"$', citation, re.MULTILINE)


def test_the_licence_file_is_the_declared_one() -> None:
    assert _project_field("license") == '{ text = "MIT" }'
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "WITHOUT WARRANTY OF ANY KIND" in text
    assert "license: MIT" in (ROOT / "CITATION.cff").read_text()


def test_the_changelog_names_the_released_version() -> None:
    version = _project_field("version").strip('"')
    assert f"## {version}" in (ROOT / "CHANGELOG.md").read_text()
