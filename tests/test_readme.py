"""Every ```python block of README.md runs as pasted: in a fresh interpreter, in an empty
working folder, within a time bound.

A block that needs an optional extra says so in a comment, ``# needs the "openspiel"
extra``, and is skipped, saying why, when that extra is not installed.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
SECONDS = 120

#: A module that each extra brings, to tell whether the extra is installed.
EXTRA_MODULES = {
    "train": "torch",
    "arena": "openskill",
    "openspiel": "pyspiel",
    "web": "fastapi",
    "scale": "ray",
}


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, code)`` of every fenced ```python block of ``text``."""
    blocks = []
    for match in re.finditer(r"^```python\n(.*?)^```", text, re.M | re.S):
        line = text.count("\n", 0, match.start()) + 1
        blocks.append((line, match[1]))
    return blocks


BLOCKS = python_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_python_blocks():
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("line,code", BLOCKS, ids=[f"README.md:{line}" for line, _ in BLOCKS])
def test_readme_block_runs_as_pasted(line, code, tmp_path):
    for extra in re.findall(r'# needs the "(\w+)" extra', code):
        module = EXTRA_MODULES[extra]
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"README.md:{line} needs the {extra!r} extra ({module} is not installed)")
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SECONDS,
    )
    assert completed.returncode == 0, f"README.md:{line}\n{completed.stderr[-3000:]}"
