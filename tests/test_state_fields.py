"""One state, three lists: the engine's, the core's and the state file's must name the same fields.

The Python engine declares its state in ``GameState`` (``engine/state.py``); the compiled
core declares its own once in ``CANASTA_STATE_FIELDS`` (``csrc/state.hpp``, read here as
``_core.STATE_FIELDS``), from which its struct and its state exchange with Python are
generated; the state file (``state_io.layout``) spells the same fields its own way. A
field added to one list and not another fails here, by name (docs/engine.md, "Adding a
piece of state"), before any parity test has to find the position that shows it.
"""

from __future__ import annotations

import random

import pytest

from canasta_env import core
from canasta_env.engine.game import Game
from canasta_env.engine.state import PYTHON_ONLY_FIELDS, STATE_FIELDS
from canasta_env.rules import make_rules
from canasta_env.state_io.layout import (
    FILE_FIELDS,
    PUBLIC_HISTORY_FIELD,
    PUBLIC_HISTORY_KEYS,
    SEQUENCE_FIELD,
    TURN_FIELDS,
)

#: Fields the file does not write: the engine counts them afresh on loading.
COUNTED_ON_LOADING = ("num_teams", "team_of", "hand_totals", "table_totals", "history_totals")
#: Where a field lives in the file when not under its own name at the top level.
FILE_HOMES = {
    "nat": "melds",
    "two": "melds",
    "jok": "melds",
    "escalas": SEQUENCE_FIELD,
    "suits": "stock",  # S-19: in the card codes of the stock, hands, pot and held cards
    **{name: f"turn.{name}" for name in TURN_FIELDS},
    **{name: f"{PUBLIC_HISTORY_FIELD}.{name}" for name in PUBLIC_HISTORY_KEYS},
}
#: Top-level file fields that hold no field of the engine.
FORMAT_ONLY = ("format", "version")
#: The core's dict carries the suits component as four parts (core.py ``_SUIT_PARTS``).
SUIT_PARTS = ("stock_suits", "hand_suits", "pot_suits", "held_suits")


def file_places() -> tuple[str, ...]:
    """Every place of the state file: its top-level fields and the fields nested in one."""
    nested = [f"turn.{name}" for name in TURN_FIELDS]
    nested += [f"{PUBLIC_HISTORY_FIELD}.{name}" for name in PUBLIC_HISTORY_KEYS]
    return (*FILE_FIELDS, SEQUENCE_FIELD, PUBLIC_HISTORY_FIELD, *nested)


def field_list_problems(python_fields, core_fields, places) -> list[str]:
    """What disagrees between the engine's fields, the core's and the file's places, one
    sentence per field (empty when the three agree)."""
    problems = []
    expected = [name for name in python_fields if name not in PYTHON_ONLY_FIELDS]
    for name in expected:
        if name not in core_fields:
            problems.append(f"'{name}' is in GameState but not in the core's CANASTA_STATE_FIELDS")
    for name in core_fields:
        if name not in expected:
            problems.append(f"'{name}' is in the core's CANASTA_STATE_FIELDS but not in GameState")
    if not problems and list(core_fields) != expected:
        problems.append("the core's CANASTA_STATE_FIELDS are not in GameState's order")
    homes = {}
    for name in python_fields:
        if name in COUNTED_ON_LOADING:
            continue
        homes[name] = FILE_HOMES.get(name, name)
        if homes[name] not in places:
            problems.append(f"'{name}' has no place in the state file (state_io.layout)")
    for place in places:
        if place in FORMAT_ONLY:
            continue
        if not any(home == place or home.startswith(place + ".") for home in homes.values()):
            problems.append(f"the state file's '{place}' holds no field of GameState")
    for name in (*FILE_HOMES, *COUNTED_ON_LOADING):
        if name not in python_fields:
            problems.append(f"'{name}' is placed in the file by this test but is no field")
    return problems


needs_core = pytest.mark.skipif(not core.AVAILABLE, reason=core.WHY_NOT)


@needs_core
def test_the_engine_the_core_and_the_file_list_the_same_fields() -> None:
    assert field_list_problems(STATE_FIELDS, core._core.STATE_FIELDS, file_places()) == []


@needs_core
@pytest.mark.parametrize(
    "doctor,expected",
    [
        # positive controls: each doctored list is caught, naming the field
        (
            lambda py, c, f: (py, [n for n in c if n != "staged"], f),
            "'staged' is in GameState but not",
        ),
        (lambda py, c, f: (py, [*c, "bogus"], f), "'bogus' is in the core's"),
        (
            lambda py, c, f: ([n for n in py if n != "pot_wild"], c, f),
            "'pot_wild' is in the core's",
        ),
        (lambda py, c, f: (py, [c[1], c[0], *c[2:]], f), "not in GameState's order"),
        (lambda py, c, f: ([*py, "pot_cold"], [*c, "pot_cold"], f), "'pot_cold' has no place"),
        (lambda py, c, f: (py, c, [p for p in f if p != "need"]), "'need' has no place"),
        (lambda py, c, f: (py, c, [*f, "pot_colour"]), "'pot_colour' holds no field"),
        (
            lambda py, c, f: ([n for n in py if n != "nat"], [n for n in c if n != "nat"], f),
            "'nat'",
        ),
    ],
)
def test_the_comparison_catches_a_field_missing_or_extra(doctor, expected) -> None:
    lists = doctor(list(STATE_FIELDS), list(core._core.STATE_FIELDS), list(file_places()))
    problems = field_list_problems(*lists)
    assert any(expected in problem for problem in problems), problems


def _played(sequences: bool) -> core.CoreGame:
    rules = make_rules("spanish", sequences=True) if sequences else make_rules("classic")
    game = Game(rules, 4, seed=3)
    rng = random.Random(3)
    for _ in range(40):
        game.apply(rng.choice(game.legal_actions()))
    return core.CoreGame.from_game(game)


def _dict_keys(core_fields) -> list[str]:
    return [key for name in core_fields for key in (SUIT_PARTS if name == "suits" else (name,))]


@needs_core
@pytest.mark.parametrize("sequences", [False, True])
def test_the_core_writes_and_reads_every_declared_field(sequences) -> None:
    """The state dict out holds exactly the declared fields (the suits as their parts),
    and the reader asks for each one: a dict without it is refused, naming it."""
    game = _played(sequences)
    state = game.state()
    assert sorted(state) == sorted(_dict_keys(core._core.STATE_FIELDS))
    for key in state:
        partial = {name: value for name, value in state.items() if name != key}
        with pytest.raises(ValueError, match=f"core state: the field '{key}' is missing"):
            game._game.set_state(partial)
    game._game.set_state(state)
    assert game.state() == state
