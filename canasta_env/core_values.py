"""The rules as the compiled core reads them: every field a flat list of integers.

:func:`rules_values` makes what ``core.py`` sends to ``_core.Rules.from_values``;
:data:`CORE_RULES` declares each of those fields (its shape, each column's range) from
:class:`~canasta_env.rules.Rules` and :data:`~canasta_env.rules.BOUNDS`. The core's build
writes that table into C++ (``csrc/gen_core_decls.py`` -> ``core_decls.hpp``), and
``Rules::from_values`` reads every field through it, so the fields and ranges the core
checks are the Python ones by construction. Plain Python without numpy: the build reads it.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass

from canasta_env.cards import NUM_KINDS, kind_from_name
from canasta_env.rules import BOUNDS, COLUMNS, NOT_EMPTY, Bound, Rules, check_player_count

#: Integers beyond this are clamped before they reach the core's 64-bit fields, and a
#: bound of None is this in the core; no comparison of the engine changes (card counts
#: and scores stay far below it).
CLAMP = 2**62

#: How a field is sent: one integer 0 or 1, one integer, a list of card kinds (by number),
#: or rows of integers (a list is rows of one column).
FLAG, SCALAR, KINDS, ROWS = "flag", "scalar", "kinds", "rows"


@dataclass(frozen=True)
class Column:
    """The range of one column (``name`` as :data:`~canasta_env.rules.COLUMNS` has it;
    None for a field of one column); ``allowed`` the values it may take, where a
    bound lists them."""

    name: str | None
    low: int
    high: int
    allowed: tuple[int, ...] = ()


@dataclass(frozen=True)
class CoreField:
    """One field of the values: its shape, the columns of a row, the exact number of rows
    (None: any), and whether it must hold one row at least."""

    name: str
    shape: str
    columns: tuple[Column, ...]
    rows: int | None
    not_empty: bool = False


@dataclass(frozen=True)
class Resolved:
    """A rules field held per player count, sent as one integer for the table's count:
    ``name`` in the values, the column of the rules field whose bound it keeps, and the
    value for ``(rules, num_players)``."""

    name: str
    column: str | None
    value: Callable[[Rules, int], int]


#: The rules fields held per player count and what the core gets for one count; None:
#: folded into another (the deck count by players is in ``num_decks``).
RESOLVED: dict[str, Resolved | None] = {
    "player_counts": Resolved("num_players", None, lambda rules, players: players),
    "num_decks": Resolved("num_decks", None, Rules.decks_for),
    "num_decks_by_players": None,
    "hand_size": Resolved("hand_size", "cards", Rules.hand_size_for),
}
#: Fields the core never gets: the name goes to a game on its own.
NOT_SENT = ("name",)


def _column(bound: Bound | None, name: str | None) -> Column:
    if bound is None:
        return Column(name, -CLAMP, CLAMP)
    if bound.allowed is not None:
        return Column(name, min(bound.allowed), max(bound.allowed), bound.allowed)
    low = -CLAMP if bound.low is None else bound.low
    high = CLAMP if bound.high is None else bound.high
    return Column(name, low, high)


def _bound(field: str, column: str | None) -> Bound | None:
    found = [b for b in BOUNDS if b.field == field and b.column == column]
    assert len(found) <= 1, f"two bounds for {field!r} {column!r}"
    return found[0] if found else None


def _core_field(name: str, hint) -> CoreField:
    """The field as sent, from its annotation: bool, int, tuple[str, ...] (card kinds),
    tuple[int, ...], a fixed tuple of ints (one row of COLUMNS, or that many entries of one
    bound), or tuple[tuple[int, ...], ...] (rows of COLUMNS)."""
    not_empty = name in NOT_EMPTY
    if hint is bool:
        return CoreField(name, FLAG, (Column(None, 0, 1),), 1)
    if hint is int:
        return CoreField(name, SCALAR, (_column(_bound(name, None), None),), 1)
    args = typing.get_args(hint)
    if args == (str, Ellipsis):
        return CoreField(name, KINDS, (Column(None, 0, NUM_KINDS - 1),), None, not_empty)
    if args == (int, Ellipsis):
        return CoreField(name, ROWS, (_column(_bound(name, None), None),), None, not_empty)
    if args[-1] is Ellipsis:  # rows of named columns
        columns = tuple(_column(_bound(name, c), c) for c in COLUMNS[name])
        assert len(typing.get_args(args[0])) == len(columns), name
        return CoreField(name, ROWS, columns, None, not_empty)
    if name in COLUMNS:  # one row of named columns
        columns = tuple(_column(_bound(name, c), c) for c in COLUMNS[name])
        assert len(args) == len(columns), name
        return CoreField(name, ROWS, columns, 1, not_empty)
    return CoreField(name, ROWS, (_column(_bound(name, None), None),), len(args), not_empty)


def _resolved_field(resolved: Resolved, source: str) -> CoreField:
    column = _column(_bound(source, resolved.column), None)
    return CoreField(resolved.name, SCALAR, (column,), 1)


def _declare() -> tuple[CoreField, ...]:
    hints = typing.get_type_hints(Rules)
    fields = []
    for name in hints:
        if name in NOT_SENT:
            continue
        if name in RESOLVED:
            if RESOLVED[name] is not None:
                fields.append(_resolved_field(RESOLVED[name], name))
            continue
        fields.append(_core_field(name, hints[name]))
    return tuple(fields)


#: Every field the core reads, in the order of :class:`~canasta_env.rules.Rules`.
CORE_RULES: tuple[CoreField, ...] = _declare()
_SHAPES = {field.name: field.shape for field in CORE_RULES}


def _flat(value) -> list[int]:
    if isinstance(value, (tuple, list)):
        return [item for part in value for item in _flat(part)]
    if isinstance(value, bool):
        return [int(value)]
    return [max(-CLAMP, min(CLAMP, int(value)))]


def rules_values(rules: Rules, num_players: int) -> dict[str, list[int]]:
    """The rules as the core reads them: every field as a flat list of integers, the deck
    count and hand size resolved for ``num_players`` (sent too), card kinds by number."""
    check_player_count(rules, num_players)
    values: dict[str, list[int]] = {}
    for field in dataclasses.fields(rules):
        if field.name in NOT_SENT:
            continue
        if field.name in RESOLVED:
            resolved = RESOLVED[field.name]
            if resolved is not None:
                values[resolved.name] = [resolved.value(rules, num_players)]
            continue
        value = getattr(rules, field.name)
        if _SHAPES[field.name] == KINDS:
            values[field.name] = [kind_from_name(kind) for kind in value]
        else:
            values[field.name] = _flat(value)
    return values
