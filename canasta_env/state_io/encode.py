"""Writing a state: a :class:`~canasta_env.engine.game.Game` as a JSON-ready dict and text.

:func:`state_to_dict` is one of the two places that know the engine's attribute
names (the other is :func:`canasta_env.state_io.decode._assemble`); everything
it writes is described in ``docs/state_format.md``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from canasta_env.actions import ACTION_TEXTS, NUM_SLOTS, escala_action
from canasta_env.cards import NUM_NATURALS, counts_to_cards, kind_code, suited_code
from canasta_env.engine.game import Game
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import PHASE_NAMES
from canasta_env.rules import Rules
from canasta_env.state_io.layout import (
    PUBLIC_HISTORY_FIELD,
    PUBLIC_HISTORY_KEYS,
    SEQUENCE_FIELD,
    SLOT_NAMES,
    STATE_FORMAT,
    STATE_VERSION,
    TURN_FIELDS,
)


def cards_text(counts: list[int]) -> str:
    """Card codes of a list of per-kind counts, in kind order (``"4S 4S AS 2S JK"``)."""
    return " ".join(kind_code(kind) for kind in counts_to_cards(counts))


def _codes(cards: list[int], suits: list[int] | None = None) -> str:
    if suits is None:
        return " ".join(kind_code(kind) for kind in cards)
    return " ".join(suited_code(kind, suit) for kind, suit in zip(cards, suits))


def _hand_codes(counts: list[int], suited: list[int] | None) -> str:
    """A hand (or held cards) as codes; with S-19 suits, the naturals in their real suits."""
    if suited is None:
        return cards_text(counts)
    codes = []
    for kind, count in enumerate(counts):
        if kind < NUM_NATURALS:
            for suit in range(NUM_SUITS):
                codes += [suited_code(kind, suit)] * suited[kind * NUM_SUITS + suit]
        else:
            codes += [kind_code(kind)] * count
    return " ".join(codes)


def run_text(suit: int, start: int, length: int) -> str:
    """``"5-J H"`` or ``"real S"``: the text of an ``escala`` action without its verb."""
    return ACTION_TEXTS[escala_action(suit, start, length)].removeprefix("escala ")


def jsonable(value: Any) -> Any:
    """Tuples to lists, recursively (so that a dict equals its JSON round trip)."""
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def rules_to_dict(rules: Rules) -> dict:
    """``rules.describe()`` with tuples as lists."""
    return jsonable(rules.describe())


def _seed_value(seed: Any) -> int | str | None:
    if (
        seed is None
        or isinstance(seed, str)
        or (isinstance(seed, int) and not isinstance(seed, bool))
    ):
        return seed
    raise ValueError(
        f"cannot save a game seeded with {seed!r}: the seed must be an int, str or None"
    )


def state_to_dict(game: Game) -> dict:
    """The whole state of ``game`` as a JSON-ready dict (see ``docs/state_format.md``)."""
    teams = game.num_teams
    melds = []
    for team in range(teams):
        table = {}
        for slot in range(NUM_SLOTS):
            n, twos, jokers = game.nat[team][slot], game.two[team][slot], game.jok[team][slot]
            if n or twos or jokers:
                table[SLOT_NAMES[slot]] = {"naturals": n, "twos": twos, "jokers": jokers}
        melds.append(table)
    closed = [
        [
            {
                "slot": SLOT_NAMES[slot],
                "naturals": n,
                "twos": twos,
                "jokers": jokers,
                "hidden": bool(hidden),
            }
            for slot, n, twos, jokers, hidden in game.closed[team]
        ]
        for team in range(teams)
    ]
    version, internal, gauss_next = game.rng.getstate()
    suits = game.suits  # S-19: None from each part without suits
    data = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "rules": rules_to_dict(game.rules),
        "num_players": game.num_players,
        "seed": _seed_value(game.seed),
        "hand_index": game.hand_index,
        "first_player": game.first_player,
        "current": game.current,
        "phase": PHASE_NAMES[game.phase],
        "num_steps": game.num_steps,
        "scores": list(game.scores),
        "hands": [_hand_codes(hand, suits.hand(seat)) for seat, hand in enumerate(game.hands)],
        "stock": _codes(game.stock[::-1], suits.stock_from_top()),
        "pot": _codes(game.pot, suits.pot),
        "pot_hidden": game.pot_hidden,
        "pot_wild": game.pot_wild,
        "pot_start_frozen": game.pot_start_frozen,
        "pot_known": cards_text(game.pot_known),
        "known": [cards_text(known) for known in game.known],
        "red3": list(game.red3),
        "opened": list(game.opened),
        "need": list(game.need),
        "melds": melds,
        "closed": closed,
        "turn": {  # TURN_FIELDS as the game holds them, the held cards as codes
            **{name: getattr(game, name) for name in TURN_FIELDS},
            "held": _hand_codes(game.held, suits.held),
        },
        "went_out": game.went_out,
        "concealed": game.concealed,
        "end_reason": game.end_reason,
        "hand_scores": jsonable(game.hand_scores),
        "hand_history": jsonable(game.hand_history),
        "game_over": game.game_over,
        "winner_team": game.winner_team,
        "rng": {"version": version, "internal": list(internal), "gauss_next": gauss_next},
    }
    if game.rules.sequences:
        data[SEQUENCE_FIELD] = [[run_text(*run) for run in runs] for runs in game.escalas]
    data[PUBLIC_HISTORY_FIELD] = {
        key: [list(row) for row in getattr(game, key)] for key in PUBLIC_HISTORY_KEYS
    }
    return data


def _plain(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return not any(isinstance(v, (dict, list, tuple)) for v in value)
    return not isinstance(value, dict)


def pretty_json(value: Any, indent: str = "  ", _level: int = 0) -> str:
    """JSON text, one entry a line, with flat lists and small flat mappings on one line."""
    pad = indent * (_level + 1)
    if (
        isinstance(value, dict)
        and value
        and not (len(value) <= 5 and all(_plain(v) for v in value.values()))
    ):
        items = [
            f"{pad}{json.dumps(str(k))}: {pretty_json(v, indent, _level + 1)}"
            for k, v in value.items()
        ]
    elif isinstance(value, (list, tuple)) and not _plain(value):
        items = [f"{pad}{pretty_json(v, indent, _level + 1)}" for v in value]
    else:
        return json.dumps(value)
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + "\n" + ",\n".join(items) + "\n" + indent * _level + closing


def state_to_json(game: Game) -> str:
    """:func:`state_to_dict` as readable JSON text."""
    return pretty_json(state_to_dict(game))


def save_state(game: Game, path: str | Path) -> None:
    """Write the state of ``game`` to ``path`` as JSON: a new file renamed into place, never
    through a link (:func:`canasta_env.safe_write.atomic_write`)."""
    from canasta_env.safe_write import atomic_write

    atomic_write(path, state_to_json(game) + "\n", "saved state")
