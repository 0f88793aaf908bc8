"""The packages import one way: each only from the packages below it (docs/layout.md).

The rules and the engine (``canasta_env``) know nothing of the bots; the bots (``agents``)
nothing of the tournaments that seat them (``canasta_arena``); the arena nothing of
training, which evaluates in it; the command line sits on top. Every import is read from
the sources, those inside functions too (a lazy import is still a dependency), so a module
that reaches up fails here before it makes a cycle. The same check runs on doctored
sources as its positive control.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The installed packages, lowest first; each may import only those before it.
LAYERS = ("canasta_env", "agents", "canasta_arena", "training", "canasta_web", "canasta_cli")


def imported(source: str) -> set[str]:
    """The top-level names of every absolute import in ``source``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def reaching_up(package: str, sources: dict[str, str]) -> list[str]:
    """``path: name`` for each import, in ``sources`` (path -> text) of ``package``, of a
    package above it."""
    above = set(LAYERS[LAYERS.index(package) + 1 :])
    return [
        f"{path}: {name}"
        for path, text in sorted(sources.items())
        for name in sorted(imported(text) & above)
    ]


def package_sources(package: str) -> dict[str, str]:
    return {
        path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
        for path in (ROOT / package).rglob("*.py")
    }


def test_no_package_imports_one_above_it():
    found = [line for package in LAYERS for line in reaching_up(package, package_sources(package))]
    assert not found, f"imports of a higher layer ({' < '.join(LAYERS)}): {found}"


def test_the_check_finds_an_import_up_even_inside_a_function():
    sources = {
        "agents/bot.py": "from canasta_env.rules import make_rules\n",
        "agents/lazy.py": "def f():\n    from canasta_arena.arena import run_arena\n",
        "agents/plain.py": "import training.net as net\nfrom . import base\n",
    }
    assert reaching_up("agents", sources) == [
        "agents/lazy.py: canasta_arena",
        "agents/plain.py: training",
    ]
    assert reaching_up("canasta_cli", sources) == []
