"""Every ```python block of README.md, and of the pages that took the README's longer
examples (docs/getting_started.md, docs/faces.md), runs as pasted: in a fresh interpreter, in
an empty working folder, within a time bound.

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

ROOT = Path(__file__).resolve().parents[1]
#: The README and the pages its examples moved to (issue 36: the README became a front page).
PAGES = ("README.md", "docs/getting_started.md", "docs/faces.md")
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


#: ``(page, line number, code)`` of every block of the pages.
BLOCKS = [
    (page, line, code)
    for page in PAGES
    for line, code in python_blocks((ROOT / page).read_text(encoding="utf-8"))
]


def test_the_readme_and_each_page_have_python_blocks():
    """The README keeps its one example; the AEC env, ``vector_env``, Gymnasium and its
    vector face keep theirs on the pages."""
    per_page = {page: sum(1 for p, _, _ in BLOCKS if p == page) for page in PAGES}
    assert per_page["README.md"] >= 1
    assert per_page["docs/getting_started.md"] >= 2
    assert per_page["docs/faces.md"] >= 2
    codes = [code for _, _, code in BLOCKS]
    for call in ("canasta_env.env(", "canasta_env.vector_env(", "gym.make(", "gym.make_vec("):
        assert any(call in code for code in codes), f"no example calls {call}"


@pytest.mark.parametrize(
    "page,line,code", BLOCKS, ids=[f"{page}:{line}" for page, line, _ in BLOCKS]
)
def test_readme_block_runs_as_pasted(page, line, code, tmp_path):
    for extra in re.findall(r'# needs the "(\w+)" extra', code):
        module = EXTRA_MODULES[extra]
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{page}:{line} needs the {extra!r} extra ({module} is not installed)")
    completed = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=SECONDS,
    )
    assert completed.returncode == 0, f"{page}:{line}\n{completed.stderr[-3000:]}"
