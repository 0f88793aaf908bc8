"""The ``rules`` field of state and replay files: its shape, taken from the presets.

Every rules field must have the shape its value has in every preset (a flag, an
integer, a string, a list of a fixed length); fields left out come from the
preset named by ``name``; the values themselves are checked by
:func:`canasta_env.rules.rules_from_dict`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from canasta_env.cards import kind_from_name
from canasta_env.rules import PRESETS, Rules, check_player_count, rules_from_dict
from canasta_env.state_io.layout import MAX_INT
from canasta_env.state_io.values import fail, names, show


def _schema(values: list[Any]) -> Any:
    """The shape shared by the values of one rules field in every preset.

    ``bool``, ``int`` or ``str`` for a scalar; for a tuple ``(element schema,
    length or None)``, the length fixed where every preset has the same one.
    """
    sample = values[0]
    if isinstance(sample, (bool, int, str)):
        return type(sample)
    items = [item for value in values for item in value]
    lengths = {len(value) for value in values}
    element = _schema(items) if items else int
    return (element, lengths.pop() if len(lengths) == 1 else None)


_RULES_SCHEMA = {
    f.name: _schema([getattr(rules, f.name) for rules in PRESETS.values()])
    for f in dataclasses.fields(Rules)
}
_SCHEMA_NAMES = {bool: "true or false", int: "an integer", str: "a string"}


def _schema_text(schema: Any) -> str:
    if not isinstance(schema, tuple):
        return _SCHEMA_NAMES[schema]
    element, length = schema
    size = f"{length} " if length is not None else ""
    return f"a list of {size}({_schema_text(element)})"


def _matches(value: Any, schema: Any) -> bool:
    if schema is bool:
        return isinstance(value, bool)
    if schema is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if schema is str:
        return isinstance(value, str)
    element, length = schema
    if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
        return False
    return all(_matches(item, element) for item in value)


def _largest(value: Any) -> int:
    """The largest size of an integer in a rules value (of a known shape)."""
    if isinstance(value, (list, tuple)):
        return max((_largest(item) for item in value), default=0)
    return abs(value) if isinstance(value, int) else 0


_NOT_GIVEN: Any = object()


def parse_rules(data: Any, num_players: Any = _NOT_GIVEN, what: str = "state") -> Rules:
    """Check and rebuild the ``rules`` object of a state or replay file.

    Fields left out are taken from the preset named by ``name`` (``classic``
    for an unknown name); unknown fields and values of the wrong shape raise.
    With ``num_players``, also check that the rules can deal to that many players.
    """
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ValueError(f"invalid {what}: field 'rules' must be a mapping with a string 'name'")
    unknown = sorted((key for key in data if key not in _RULES_SCHEMA), key=show)
    if unknown:
        raise ValueError(f"invalid {what}: field 'rules': unknown rules field(s) {names(unknown)}")
    for key, value in data.items():
        if not _matches(value, _RULES_SCHEMA[key]):
            expected = _schema_text(_RULES_SCHEMA[key])
            fail(f"rules.{key}", f"expected {expected}, got {show(value)}", what)
        if _largest(value) > MAX_INT:
            fail(f"rules.{key}", f"numbers must lie within ±{MAX_INT}, got {show(value)}", what)
    try:
        rules = rules_from_dict(data)
        for name in rules.pot_start_cover_kinds + rules.pot_start_freeze_kinds:
            kind_from_name(name)
        if not rules.opening_table or not rules.red3_scores:
            raise ValueError("'opening_table' and 'red3_scores' must not be empty")
    except ValueError as error:
        raise ValueError(f"invalid {what}: field 'rules': {error}") from None
    if num_players is _NOT_GIVEN:
        return rules
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        fail("num_players", f"expected an integer, got {show(num_players)}", what)
    if abs(num_players) > MAX_INT:
        fail("num_players", f"must be at most {MAX_INT}, got {show(num_players)}", what)
    try:
        check_player_count(rules, num_players)
    except ValueError as error:
        raise ValueError(f"invalid {what}: field 'num_players': {error}") from None
    if num_players not in dict(rules.hand_size):
        fail("rules.hand_size", f"gives no hand size for {num_players} players", what)
    if num_players < 2 or rules.decks_for(num_players) < 1 or rules.jokers_per_deck < 0:
        raise ValueError(
            f"invalid {what}: field 'rules': no game of {num_players} players with "
            f"{rules.decks_for(num_players)} deck(s) and {rules.jokers_per_deck} joker(s) a deck"
        )
    return rules
