"""Reading a state: parse every field, run the named checks, then build the game.

``state_from_dict`` = :func:`~canasta_env.state_io.parse.parse_state` (each field
on its own), :data:`~canasta_env.state_io.checks.CHECKS` (the fields together),
:func:`_assemble` (the one place that turns the values into a
:class:`~canasta_env.engine.game.Game`), then
:data:`~canasta_env.state_io.checks.GAME_CHECKS`. Any failure raises
``ValueError`` naming the field; the game is never handed out then.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from canasta_env.engine.game import Game
from canasta_env.engine.state import (
    PHASE_HAND_OVER,
    PHASE_NAMES,
    STATE_FIELDS,
    history_entries,
    table_cards,
    team_of_seat,
    teams_of,
)
from canasta_env.engine.suits import NO_SUITS, Suits
from canasta_env.jsonfile import read_bounded
from canasta_env.state_io.checks import CHECKS, GAME_CHECKS
from canasta_env.state_io.layout import (
    MAX_STATE_BYTES,
    PUBLIC_HISTORY_FIELD,
    PUBLIC_HISTORY_KEYS,
)
from canasta_env.state_io.parse import parse_state
from canasta_env.state_io.values import fail, read_json


def _assemble(values: dict[str, Any]) -> Game:
    """The game the parsed and checked ``values`` describe.

    With :func:`~canasta_env.state_io.encode.state_to_dict`, the only code that
    knows the engine's attribute names: each declared field of
    :class:`~canasta_env.engine.state.GameState` gets its value here, the parsed value
    of its name where the file holds it under that name (the file's stock is reversed,
    since the engine draws from the end), then the game builds its caches as a new game
    does.
    """
    n = values["num_players"]
    melds = values["melds"]
    history = values[PUBLIC_HISTORY_FIELD]
    # the fields the file holds under their own names, as parsed; then the others
    fields = {name: values[name] for name in STATE_FIELDS if name in values}
    fields.update(
        num_teams=teams_of(n),
        team_of=[team_of_seat(n, seat) for seat in range(n)],
        stock=values["stock"][::-1],  # the engine pops from the end
        hand_totals=[sum(hand) for hand in values["hands"]],
        nat=[[meld[0] for meld in row] for row in melds],
        two=[[meld[1] for meld in row] for row in melds],
        jok=[[meld[2] for meld in row] for row in melds],
        **{key: history[key] for key in PUBLIC_HISTORY_KEYS},
        # counts the engine keeps as it plays, counted afresh (as hand_totals above)
        table_totals=None,
        history_totals=None,
        suits=_suits(values["suits"]),
    )
    # a field declared in GameState must be read from the file too (and written by
    # state_to_dict); the round-trip tests name the one that is missing
    assert fields.keys() == set(STATE_FIELDS), set(STATE_FIELDS) ^ fields.keys()
    game = object.__new__(Game)
    for name in STATE_FIELDS:
        setattr(game, name, fields[name])
    game.table_totals = [table_cards(game, team) for team in range(game.num_teams)]
    game.history_totals = [history_entries(game, seat) for seat in range(n)]
    game._caches()
    return game


def _suits(parsed: dict[str, list] | None) -> Suits:
    """S-19: the suits the file gives (:data:`NO_SUITS` without the option); the stock
    reversed, as its kinds."""
    if parsed is None:
        return NO_SUITS
    return Suits(parsed["stock"][::-1], parsed["hands"], parsed["pot"], parsed["held"])


def state_from_dict(data: Any, *, require_playable: bool = True) -> Game:
    """Check a state dict and build the :class:`Game` it describes.

    Raises ``ValueError`` naming the field and the problem; ``data`` is left as
    it was and no game comes out then. A hand that is not over where the player to
    act has no legal action is refused too: no game reaches one, and an agent handed
    it would face an all-zero mask. ``require_playable=False`` loads such a state
    anyway (a study of the legality search proving that no move exists: tests and
    research only).
    """
    values = parse_state(data)
    for _name, check in CHECKS:
        check(values)
    game = _assemble(values)
    for _name, check_game in GAME_CHECKS:
        check_game(values, game)
    if require_playable and values["phase"] != PHASE_HAND_OVER and not game.legal_actions():
        fail(
            "phase",
            f"the hand is not over, but seat {values['current']} has no legal action in the "
            f"{PHASE_NAMES[values['phase']]} phase",
        )
    return game


def state_from_json(text: str | bytes, *, require_playable: bool = True) -> Game:
    """Parse JSON text (``str``, or UTF-8/16/32 ``bytes``) and :func:`state_from_dict` it."""
    return state_from_dict(read_json(text), require_playable=require_playable)


def load_state(path: str | Path, *, require_playable: bool = True) -> Game:
    """Read a state saved by :func:`~canasta_env.state_io.encode.save_state`.

    Every problem (the file cannot be read, is larger than ``MAX_STATE_BYTES``, is not
    text, not JSON, not a valid state) raises one ``ValueError`` naming the file.
    """
    path = Path(path)
    data = read_bounded(path, f"state {path}", MAX_STATE_BYTES)
    try:
        if len(data) > MAX_STATE_BYTES:
            raise ValueError(f"invalid state: larger than {MAX_STATE_BYTES:,} bytes")
        return state_from_json(data, require_playable=require_playable)
    except ValueError as error:
        raise ValueError(f"{path}: {error}") from None
