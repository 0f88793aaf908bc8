"""Reading a state, first step: a state dict to plain values, field by field.

Each field is checked on its own here (type, shape, range, card codes); what
must agree *between* fields is left to the named checks of
:mod:`~canasta_env.state_io.checks`. The values are keyed by the file's field
names (``"stock"`` next card first, as written), not by the engine's
attributes: only :func:`canasta_env.state_io.decode._assemble` knows those.
"""

from __future__ import annotations

import random
from typing import Any

from canasta_env.actions import NUM_SLOTS, str_to_action
from canasta_env.cards import NUM_HAND_KINDS
from canasta_env.engine.sequences import run_of_action
from canasta_env.engine.state import END_REASONS, PHASE_NAMES, teams_of
from canasta_env.state_io.layout import (
    CLOSED_KEYS,
    FILE_FIELDS,
    HISTORY_KEYS,
    MAX_DIGITS,
    MELD_KEYS,
    PUBLIC_HISTORY_FIELD,
    PUBLIC_HISTORY_KEYS,
    RNG_KEYS,
    SEQUENCE_FIELD,
    SLOT_NAMES,
    STATE_FORMAT,
    STATE_VERSION,
    TURN_FIELDS,
)
from canasta_env.state_io.rules_field import parse_rules
from canasta_env.state_io.values import (
    check_keys,
    digits,
    fail,
    parse_bool,
    parse_bool_list,
    parse_choice,
    parse_counts,
    parse_int,
    parse_int_list,
    parse_kinds,
    parse_list,
    parse_score,
    parse_str,
    parse_suit_list,
    parse_suited_counts,
    show,
)


def _parse_header(data: Any) -> bool:
    """Check format, version and the set of fields; whether the state has S-19 runs."""
    if not isinstance(data, dict):
        raise ValueError(f"invalid state: expected a mapping, got {type(data).__name__}")
    if data.get("format") != STATE_FORMAT:
        fail("format", f"expected {STATE_FORMAT!r}, got {show(data.get('format'))}")
    version = data.get("version")
    if type(version) is int and version > STATE_VERSION:
        fail(
            "version",
            f"unsupported version {show(version)}: written by a newer canasta-env (this one "
            f"reads version {STATE_VERSION} and older)",
        )
    if type(version) is not int or not 1 <= version <= STATE_VERSION:
        fail("version", f"unsupported version {show(version)}; expected {STATE_VERSION}")
    sequences = isinstance(data.get("rules"), dict) and data["rules"].get("sequences") is True
    optional = (PUBLIC_HISTORY_FIELD,) if PUBLIC_HISTORY_FIELD in data else ()
    check_keys(data, FILE_FIELDS + ((SEQUENCE_FIELD,) if sequences else ()) + optional, "state")
    return sequences


def _parse_seed(seed: Any) -> int | str | None:
    # the seed is informative (the generator's state is 'rng'): any int that can be
    # written back, since seeds of 128 bits and more are common
    if seed is None or isinstance(seed, str):
        return seed
    if type(seed) is int:
        if digits(seed) > MAX_DIGITS:
            fail("seed", f"a seed has at most {MAX_DIGITS} digits, got {show(seed)}")
        return seed
    fail("seed", f"expected an integer, a string or null, got {show(seed)}")


#: Python's ``random.Random`` is the Mersenne Twister MT19937: ``internal`` holds its 624
#: words and the index of the next one. Its state proper is 19,937 bits (the top bit of word 0
#: and words 1..623). All of them zero is a fixed point (it returns 0 forever, every shuffle
#: the same); with few bits set (or few clear) the twister takes hundreds of thousands of
#: draws to recover, thousands of hands of deals that are far from random. A generator
#: seeded by Python has about half of them set (9,968 +- 71), so a state with fewer than
#: MIN_RNG_BITS or more than MAX_RNG_BITS set (over 27 standard deviations out) came from no
#: seeded generator: a zeroed or corrupt file.
MT_WORDS = 624
MT_STATE_BITS = 19937
MIN_RNG_BITS = 8000
MAX_RNG_BITS = 12000


def _rng_bits_set(words: list[int]) -> int:
    """How many of the twister's 19,937 state bits are set (``words``: its 624 words)."""
    return (words[0] >> 31) + sum(bin(word).count("1") for word in words[1:MT_WORDS])


def _parse_rng(data: Any) -> random.Random:
    check_keys(data, RNG_KEYS, "rng")
    version = parse_int(data["version"], "rng.version")
    internal = parse_list(data["internal"], "rng.internal")
    for i, word in enumerate(internal):
        parse_int(word, f"rng.internal[{i}]", 0, 2**32 - 1)
    if len(internal) == MT_WORDS + 1:  # any other length: setstate names the problem below
        bits = _rng_bits_set(internal)
        if not MIN_RNG_BITS <= bits <= MAX_RNG_BITS:
            zero = " (all zero: it would return 0 forever)" if bits == 0 else ""
            fail(
                "rng.internal",
                f"{bits:,} of the generator's {MT_STATE_BITS:,} state bits are set{zero}; a "
                f"seeded generator has about half of them ({MIN_RNG_BITS:,}..{MAX_RNG_BITS:,} "
                "accepted), and from this state every shuffle would be far from random",
            )
    gauss = data["gauss_next"]
    if gauss is not None:  # the engines never draw a Gaussian: neither could go on from one
        fail(
            "rng.gauss_next",
            f"expected null (no game of this engine has a pending Gaussian draw), got "
            f"{show(gauss)}",
        )
    rng = random.Random()
    try:
        rng.setstate((version, tuple(internal), None))
    except (TypeError, ValueError, OverflowError) as error:
        fail("rng", f"not a state of Python's random.Random ({error})")
    return rng


def _parse_meld(value: Any, field: str) -> tuple[int, int, int]:
    check_keys(value, MELD_KEYS, field)
    return tuple(parse_int(value[key], f"{field}.{key}") for key in MELD_KEYS)  # type: ignore[return-value]


def _slot_of(name: Any, field: str) -> int:
    if name not in SLOT_NAMES:
        fail(field, f"unknown meld slot {show(name)}; expected one of {' '.join(SLOT_NAMES)}")
    return SLOT_NAMES.index(name)


def _parse_melds(value: Any, teams: int) -> list[list[tuple[int, int, int]]]:
    """Per team, ``(naturals, twos, jokers)`` of each of the 13 meld slots."""
    melds = []
    for team, table in enumerate(parse_list(value, "melds", teams)):
        if not isinstance(table, dict):
            fail(f"melds[{team}]", "expected a mapping of meld slot to composition")
        row = [(0, 0, 0)] * NUM_SLOTS
        for name, meld in table.items():
            slot = _slot_of(name, f"melds[{team}]")
            row[slot] = _parse_meld(meld, f"melds[{team}].{name}")
        melds.append(row)
    return melds


def _parse_closed(value: Any, teams: int) -> list[list[tuple[int, int, int, int, bool]]]:
    """Per team, ``(slot, naturals, twos, jokers, hidden)`` of each finished canasta."""
    closed = []
    for team, canastas in enumerate(parse_list(value, "closed", teams)):
        row = []
        for i, canasta in enumerate(parse_list(canastas, f"closed[{team}]")):
            field = f"closed[{team}][{i}]"
            check_keys(canasta, CLOSED_KEYS, field)
            slot = _slot_of(canasta["slot"], f"{field}.slot")
            meld = tuple(parse_int(canasta[key], f"{field}.{key}") for key in MELD_KEYS)
            row.append((slot, *meld, parse_bool(canasta["hidden"], f"{field}.hidden")))
        closed.append(row)
    return closed


def _parse_runs(value: Any, teams: int) -> list[list[tuple[int, int, int]]]:
    runs = []
    for team, texts in enumerate(parse_list(value, SEQUENCE_FIELD, teams)):
        row = []
        for i, text in enumerate(parse_list(texts, f"{SEQUENCE_FIELD}[{team}]")):
            field = f"{SEQUENCE_FIELD}[{team}][{i}]"
            try:
                action = str_to_action("escala " + parse_str(text, field))
            except ValueError:
                fail(field, f"not a run: {show(text)} (e.g. '5-J H' or 'real S')")
            row.append(run_of_action(action))
        runs.append(row)
    return runs


def _parse_hand_scores(value: Any, teams: int) -> list[dict[str, int]] | None:
    if value is None:
        return None
    sheets = []
    for team, sheet in enumerate(parse_list(value, "hand_scores", teams)):
        field = f"hand_scores[{team}]"
        if not isinstance(sheet, dict) or "total" not in sheet:
            fail(field, "expected a score sheet mapping with a 'total'")
        for key in sheet:
            if not isinstance(key, str):
                fail(field, f"a score sheet's keys are strings, got {show(key)}")
        sheets.append({key: parse_score(points, f"{field}.{key}") for key, points in sheet.items()})
    return sheets


def _parse_history(value: Any, teams: int) -> list[dict]:
    history = []
    for i, entry in enumerate(parse_list(value, "hand_history")):
        field = f"hand_history[{i}]"
        check_keys(entry, HISTORY_KEYS, field)
        if parse_int(entry["hand"], f"{field}.hand") != i:
            fail(f"{field}.hand", f"expected hand {i}, got {entry['hand']}")
        reason = parse_choice(entry["reason"], f"{field}.reason", END_REASONS)
        scores = [
            parse_score(points, f"{field}.scores[{team}]")
            for team, points in enumerate(parse_list(entry["scores"], f"{field}.scores", teams))
        ]
        history.append({"hand": i, "reason": reason, "scores": scores})
    return history


def _parse_public_history(data: dict, n: int) -> dict[str, list[list[int]]]:
    """Per key, ``n`` rows of one count per holdable kind; zeros when not saved."""
    if PUBLIC_HISTORY_FIELD not in data:  # saved before the field existed
        return {key: [[0] * NUM_HAND_KINDS for _ in range(n)] for key in PUBLIC_HISTORY_KEYS}
    value = data[PUBLIC_HISTORY_FIELD]
    check_keys(value, PUBLIC_HISTORY_KEYS, PUBLIC_HISTORY_FIELD)
    parsed = {}
    for key in PUBLIC_HISTORY_KEYS:
        field = f"{PUBLIC_HISTORY_FIELD}.{key}"
        parsed[key] = [
            parse_int_list(row, f"{field}[{seat}]", NUM_HAND_KINDS)
            for seat, row in enumerate(parse_list(value[key], field, n))
        ]
    return parsed


def parse_state(data: Any) -> dict[str, Any]:
    """Every field of a state dict, checked on its own, as plain values.

    Cards become one count per kind (hands, ``known``, ``pot_known``, ``held``)
    or kinds in file order (``stock``, next card first; ``pot``, bottom first);
    the turn's fields are lifted to the top level; ``suits`` holds the S-19
    suits of hands, stock, pot and held cards, or ``None``.
    """
    sequences = _parse_header(data)
    n = data["num_players"]
    rules = parse_rules(data["rules"], n)
    teams = teams_of(n)
    went_out = data["went_out"]
    winner_team = data["winner_team"]
    return {
        "rules": rules,
        "num_players": n,
        "seed": _parse_seed(data["seed"]),
        "rng": _parse_rng(data["rng"]),
        "hand_index": parse_int(data["hand_index"], "hand_index"),
        "first_player": parse_int(data["first_player"], "first_player", 0, n - 1),
        "current": parse_int(data["current"], "current", 0, n - 1),
        "phase": PHASE_NAMES.index(parse_choice(data["phase"], "phase", PHASE_NAMES)),
        "num_steps": parse_int(data["num_steps"], "num_steps"),
        "scores": [
            parse_score(points, f"scores[{team}]")
            for team, points in enumerate(parse_list(data["scores"], "scores", teams))
        ],
        "hands": [
            parse_counts(text, f"hands[{seat}]")
            for seat, text in enumerate(parse_list(data["hands"], "hands", n))
        ],
        "stock": parse_kinds(data["stock"], "stock"),
        "pot": parse_kinds(data["pot"], "pot"),
        "pot_hidden": parse_int(data["pot_hidden"], "pot_hidden"),
        "pot_wild": parse_bool(data["pot_wild"], "pot_wild"),
        "pot_start_frozen": parse_bool(data["pot_start_frozen"], "pot_start_frozen"),
        "pot_known": parse_counts(data["pot_known"], "pot_known"),
        "known": [
            parse_counts(text, f"known[{seat}]")
            for seat, text in enumerate(parse_list(data["known"], "known", n))
        ],
        "red3": parse_int_list(data["red3"], "red3", teams),
        "opened": parse_bool_list(data["opened"], "opened", teams),
        "need": parse_int_list(data["need"], "need", teams),
        "melds": _parse_melds(data["melds"], teams),
        "closed": _parse_closed(data["closed"], teams),
        "escalas": (
            _parse_runs(data[SEQUENCE_FIELD], teams) if sequences else [[] for _ in range(teams)]
        ),
        **_parse_turn(data["turn"]),
        "went_out": None if went_out is None else parse_int(went_out, "went_out", 0, n - 1),
        "concealed": parse_bool(data["concealed"], "concealed"),
        "end_reason": parse_choice(data["end_reason"], "end_reason", END_REASONS, null=True),
        "hand_scores": _parse_hand_scores(data["hand_scores"], teams),
        "hand_history": _parse_history(data["hand_history"], teams),
        "game_over": parse_bool(data["game_over"], "game_over"),
        "winner_team": (
            None if winner_team is None else parse_int(winner_team, "winner_team", 0, teams - 1)
        ),
        "public_history": _parse_public_history(data, n),
        "suits": _parse_suits(data) if sequences else None,
    }


def _parse_turn(turn: Any) -> dict[str, Any]:
    check_keys(turn, TURN_FIELDS, "turn")
    flags = {
        name: parse_bool(turn[name], f"turn.{name}")
        for name in TURN_FIELDS
        if name not in ("staged", "held")
    }
    return {
        "staged": parse_int(turn["staged"], "turn.staged"),
        "held": parse_counts(turn["held"], "turn.held"),
        **flags,
    }


def _parse_suits(data: dict) -> dict[str, list]:
    """S-19: the suits of the same cards (naturals only; the engine keeps -1 for others)."""
    return {
        "hands": [
            parse_suited_counts(text, f"hands[{seat}]") for seat, text in enumerate(data["hands"])
        ],
        "stock": parse_suit_list(data["stock"], "stock"),
        "pot": parse_suit_list(data["pot"], "pot"),
        "held": parse_suited_counts(data["turn"]["held"], "turn.held"),
    }
