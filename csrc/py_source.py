"""A Python module read as text: what the core's declarations take from a module the
build cannot import (it imports numpy, which pip's isolated build lacks).

:class:`Source` parses the file (``ast``) and evaluates the assignments it is asked for
from literals, tuples, signs and the names of a module it is given; nothing in the file
runs. ``gen_core_decls.py`` reads ``table.py``, ``options.py``, ``core.py`` and the house
bots of ``agents/`` through it, and checks every file read against CMake's list.
"""

from __future__ import annotations

import ast
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


class Source:
    """A module read as text, for one that imports numpy (which the build lacks): its
    module-level assignments and dataclasses, their values evaluated from literals and
    the names given (``names``: a module whose constants they may name)."""

    #: Every file read so far (main checks them against CMake's list, as the imported).
    read: set[Path] = set()

    def __init__(self, relative: str, names: types.ModuleType | None = None) -> None:
        self.path = ROOT / relative
        self.relative = relative
        self.names = vars(names) if names else {}
        self.tree = ast.parse(self.path.read_text(), str(self.path))
        Source.read.add(self.path.resolve())

    def node(self, name: str) -> ast.expr:
        """The expression assigned to ``name`` at module level."""
        for statement in self.tree.body:
            if isinstance(statement, ast.Assign):
                targets = [t.id for t in statement.targets if isinstance(t, ast.Name)]
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                targets = [statement.target.id] if isinstance(statement.target, ast.Name) else []
            else:
                continue
            if name in targets:
                return statement.value
        raise LookupError(f"{self.relative} assigns no {name} at module level")

    def value(self, name: str):
        return self.evaluate(self.node(name))

    def keys(self, name: str) -> tuple:
        """The keys of the dict assigned to ``name``, in order."""
        node = self.node(name)
        if not isinstance(node, ast.Dict):
            raise TypeError(f"{self.relative} {name} is not a dict display")
        return tuple(self.evaluate(key) for key in node.keys)

    def value_dict(self, name: str) -> dict:
        """The dict display assigned to ``name``, keys and values evaluated."""
        node = self.node(name)
        if not isinstance(node, ast.Dict):
            raise TypeError(f"{self.relative} {name} is not a dict display")
        return {self.evaluate(k): self.evaluate(v) for k, v in zip(node.keys, node.values)}

    def call_keywords(self, name: str) -> dict:
        """The keyword arguments of the call assigned to ``name`` (``ExpertParams(race=True)``)."""
        node = self.node(name)
        if not isinstance(node, ast.Call) or node.args:
            raise TypeError(f"{self.relative} {name} is not a call with keywords only")
        return {keyword.arg: self.evaluate(keyword.value) for keyword in node.keywords}

    def dataclass_fields(self, cls: str) -> list[tuple[str, str, object]]:
        """(name, annotation, default) of each field of a dataclass, in order; the default
        is ``Source.NO_DEFAULT`` for a field without one."""
        for statement in self.tree.body:
            if isinstance(statement, ast.ClassDef) and statement.name == cls:
                return [
                    (
                        item.target.id,
                        ast.unparse(item.annotation),
                        Source.NO_DEFAULT if item.value is None else self.evaluate(item.value),
                    )
                    for item in statement.body
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)
                ]
        raise LookupError(f"{self.relative} defines no class {cls}")

    NO_DEFAULT = object()

    def class_attribute(self, cls: str, name: str):
        """A class attribute's value (``GreedyAgent.name``)."""
        for statement in self.tree.body:
            if isinstance(statement, ast.ClassDef) and statement.name == cls:
                for item in statement.body:
                    if not isinstance(item, ast.Assign):
                        continue
                    if [getattr(target, "id", None) for target in item.targets] == [name]:
                        return self.evaluate(item.value)
        raise LookupError(f"{self.relative} sets no {cls}.{name}")

    def evaluate(self, node: ast.expr):
        """Literals, tuples, lists, signs and the names of ``names``; nothing else runs."""
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.evaluate(item) for item in node.elts)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.evaluate(node.operand)
            return -operand if isinstance(node.op, ast.USub) else +operand
        if isinstance(node, ast.Name) and node.id in self.names:
            return self.names[node.id]
        raise ValueError(
            f"{self.relative}:{node.lineno}: {ast.unparse(node)!r} is not a literal (or a "
            "name this generator is given): the build reads this file as text"
        )
