"""The sdist holds what a build needs and nothing private.

scikit-build-core's sdist takes every file of the tree that git does not ignore (and
``sdist.include``), so a scratch file or a key left untracked in the folder would ship.
The check holds a built sdist (``CANASTA_SDIST=dist/canasta_env-....tar.gz``, set by
.ci/test-dist) to: every file needed to build the wheel (pyproject.toml, CMakeLists.txt,
csrc/, every file the wheel takes from the packages, LICENSE, README.md), and no file that
git does not track, nor one of ``PRIVATE``. The same check runs on a doctored list as
its positive control.
"""

from __future__ import annotations

import os
import tarfile
from fnmatch import fnmatchcase
from pathlib import Path

import pytest

from tests.test_wheel_contents import git_tracked, wheel_files, wheel_settings

#: Written by the build into the sdist; not in git.
GENERATED = ("PKG-INFO",)
#: Files a build or a user of the sdist needs besides the packages and csrc/.
TOP_LEVEL = ("pyproject.toml", "CMakeLists.txt", "LICENSE", "README.md")
#: Never in an sdist, tracked or not: environments, build output, run folders, secrets.
PRIVATE = (
    ".git/*",
    ".venv/*",
    ".ci-venv/*",
    "build/*",
    "dist/*",
    "runs/*",
    "arena_out/*",
    "*__pycache__/*",
    "*.pyc",
    "*.so",
    ".env",
    "*/.env",
    "*.pem",
    "*id_rsa*",
    "*.key",
)


def needed(tracked: list[str]) -> list[str]:
    """The files a build of the wheel reads: the top-level ones, csrc/ and the packages'."""
    packages, exclude = wheel_settings()
    sources = [path for path in tracked if path.startswith("csrc/")]
    return sorted([*TOP_LEVEL, *sources, *wheel_files(tracked, packages, exclude)])


def problems(names: list[str], tracked: list[str]) -> dict[str, list[str]]:
    """What is wrong with an sdist holding ``names`` (paths below its top folder)."""
    held = set(names)
    return {
        "missing": [path for path in needed(tracked) if path not in held],
        "untracked": sorted(held - set(tracked) - set(GENERATED)),
        "private": sorted(n for n in held if any(fnmatchcase(n, p) for p in PRIVATE)),
    }


def sdist_names(path: str) -> list[str]:
    """The files of the sdist at ``path``, without its ``name-version/`` folder."""
    with tarfile.open(path) as archive:
        members = [member.name for member in archive.getmembers() if member.isfile()]
    return sorted(name.split("/", 1)[1] for name in members)


def test_a_built_sdist_holds_the_build_and_nothing_private():
    path = os.environ.get("CANASTA_SDIST")
    if not path or not Path(path).is_file():
        pytest.skip("no built sdist: set CANASTA_SDIST to a .tar.gz to check its files")
    names = sdist_names(path)
    found = problems(names, git_tracked())
    assert found == {"missing": [], "untracked": [], "private": []}, f"in {path}: {found}"
    assert any(name.startswith("csrc/") for name in names)
    # small: the research networks stay in the repository (research/README.md)
    assert not [n for n in names if n.startswith("research/") and n.endswith(".npz")]
    assert Path(path).stat().st_size <= 15 * 2**20, f"{path}: {Path(path).stat().st_size:,} bytes"


def test_the_check_reports_missing_untracked_and_private_files():
    """Positive control: a doctored sdist without its CMakeLists.txt, with a scratch file
    and a key that git does not track, and a tracked file in a private place."""
    tracked = ["pyproject.toml", "CMakeLists.txt", "LICENSE", "README.md", "csrc/core.cpp"]
    tracked += ["canasta_env/__init__.py", "agents/models/classic_2p.npz", "runs/r1/log.txt"]
    names = [*tracked, "PKG-INFO", "notes.txt", ".env"]
    names.remove("CMakeLists.txt")
    assert problems(names, tracked) == {
        "missing": ["CMakeLists.txt"],
        "untracked": [".env", "notes.txt"],
        "private": [".env", "runs/r1/log.txt"],
    }
