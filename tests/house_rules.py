"""House rules drawn at random within ``rules.BOUNDS``: several fields at once, for the
fuzz of both engines (tests/test_house_fuzz.py) and the slowest-decision benchmark
(benchmarks/bench_turn_search.py).

``draw_house_rules(rng)`` returns (preset, overrides, players) whose rules
``make_rules`` accepts; fields are drawn from the ranges the legality search meets
(meld sizes and limits, wild and black-3 melds, closing melds, openings, going out,
pot takes, deck sizes), 2 to 7 of them at once, with the extremes weighted up.
"""

from __future__ import annotations

import random

from canasta_env.actions import MAX_NEW_MELD
from canasta_env.rules import BOUNDS, MAX_DECKS, OBSERVATION_BYTE_MAX, PRESETS, make_rules

#: field -> the values drawn (the extremes of its bound and the presets' values).
CHOICES: dict[str, tuple] = {
    "min_meld_size": (2, 3, 4, 5, 7),
    "min_naturals": (1, 2, 3),
    "max_wilds_per_meld": (0, 1, 2, 3, 7, 99),
    "min_natural_excess": (0, 1, 2),
    "meld_closes_at": (0, 5, 7, 8, 12),
    "canasta_size": (3, 5, 7, 8, 10),
    "wild_melds": (False, True),
    "wild_meld_min_start": (1, 3, 5, 7),
    "wild_meld_max_size": (1, 3, 7, 12),
    "black3_melds": (False, True),
    "black3_meld_only_going_out": (False, True),
    "black3_meld_max_size": (0, 3, 4, 7),
    "black3_canasta_wins_game": (False, True),
    "hidden_canasta_opens": (False, True),
    "concealed_go_out_ignores_minimum": (False, True),
    "unopened_take_needs_clean_opening": (False, True),
    "take_naturals": (1, 2, 3),
    "take_naturals_frozen": (1, 2, 3),
    "take_with_wild": (False, True),
    "take_onto_meld": (False, True),
    "frozen_for_unopened": (False, True),
    "must_take_matching_pot": (False, True),
    "go_out_min_canastas": (0, 1, 2, 3),
    "go_out_needs_clean_and_dirty": (False, True),
    "go_out_needs_discard": (False, True),
    "no_go_out_on_first_clean_turn": (False, True),
    "draw_count": (1, 2, 3),
    "draw_after_pot_take": (0, 1, 2),
    "jokers_per_deck": (0, 1, 2, 4, 8),
    "num_decks": (1, 2, 3, 4),
    "clean_opening_max_minimum": (0, 50, 255),
    "sequences": (False, True),
    "pot_face_down": (0, 3, 10),
}


def draw_house_rules(rng: random.Random, least: int = 2, most: int = 7):
    """(preset, overrides, players): a preset and ``least``..``most`` fields drawn."""
    while True:
        preset = rng.choice(sorted(PRESETS))
        players = rng.choice(PRESETS[preset].player_counts)
        fields = rng.sample(sorted(CHOICES), rng.randint(least, most))
        overrides = {name: rng.choice(CHOICES[name]) for name in fields}
        if "num_decks" in overrides:  # a preset's per-table decks win over num_decks
            overrides["num_decks_by_players"] = ()
        try:
            make_rules(preset, **overrides)
        except ValueError:
            continue
        return preset, overrides, players


# ------------------------------------------------------------ the ends of BOUNDS
#: Where a bound is open above, the far end drawn: the value past which nothing more
#: changes for the turn search (a meld never holds more than the deck's wild cards, a
#: take never needs more than a rank's cards in a hand...).
FAR_ENDS: dict[str, int] = {
    "max_wilds_per_meld": 99,
    "min_natural_excess": 3,
    "meld_closes_at": 12,
    "canasta_size": 12,
    "wild_meld_max_size": 99,
    "clean_opening_max_minimum": 255,
    "take_naturals": 4,
    "take_naturals_frozen": 4,
    "go_out_min_canastas": 4,
}
#: Table fields drawn by hand below (their rows), and the fields that only score a
#: hand: no legal move depends on them but through the scores, which ``target_score``
#: and ``red3_scores`` reach at their ends.
TABLE_FIELDS = ("opening_table", "hand_size", "num_decks_by_players", "clean_opening_wild_melds")
SCORING_TABLES = (
    "rank_canasta_bonus",
    "special_wild_canasta",
    "canasta_count_bonus",
    "clean_canasta_count_bonus",
    "red3_sign",
)
#: The opening minimum at its ends (C-8, S-8, I-9: 0 or OBSERVATION_BYTE_MAX) from the
#: first hand, from a score of 0 on, or from a preset's brackets on: the last is where
#: the pot-take proof is longest (a hand that cannot reach 255 points even with the pot).
OPENING_ENDS = (
    ((-(10**9), OBSERVATION_BYTE_MAX),),
    ((-(10**9), 0),),
    ((-(10**9), 0), (0, OBSERVATION_BYTE_MAX)),
    ((-(10**9), OBSERVATION_BYTE_MAX), (0, 0)),
    ((-(10**9), 50), (1500, 90), (2200, OBSERVATION_BYTE_MAX)),
)


def bound_ends() -> dict[str, tuple]:
    """field -> its two ends, for every plain integer field of ``rules.BOUNDS``."""
    ends: dict[str, tuple] = {}
    for bound in BOUNDS:
        if bound.column is not None or bound.field in TABLE_FIELDS + SCORING_TABLES:
            continue
        if bound.allowed is not None:
            continue  # player_counts: the table sizes are drawn per table
        high = bound.high if bound.high is not None else FAR_ENDS[bound.field]
        ends[bound.field] = (bound.low, high)
    return ends


def _table_ends(rng: random.Random, rules, field: str):
    """One end of a table field's rows."""
    if field == "opening_table":
        return rng.choice(OPENING_ENDS)
    if field == "num_decks_by_players":
        return tuple((n, rng.choice((1, MAX_DECKS))) for n in rules.player_counts)
    if field == "clean_opening_wild_melds":
        return rng.choice(((), ((MAX_NEW_MELD, 0), (0, MAX_NEW_MELD)), ((3, 0), (1, 2))))
    # hand_size: one card, or the most the deck allows (tried from high to low)
    return tuple((n, rng.choice((1, 0))) for n, _ in rules.hand_size)


def draw_bound_ends(rng: random.Random, least: int = 2, most: int = 8):
    """(preset, overrides, players): a preset with ``least``..``most`` fields at one end of
    their bound (every plain integer field of ``rules.BOUNDS``, the opening minimum's
    table, hand sizes, decks per table), some of the flags of :data:`CHOICES` beside them,
    and the opening table at an end half the time (the pot-take proof's worst case)."""
    ends = bound_ends()
    names = sorted(ends) + list(TABLE_FIELDS)
    flags = sorted(name for name, values in CHOICES.items() if values == (False, True))
    while True:
        preset = rng.choice(sorted(PRESETS))
        base = PRESETS[preset]
        players = rng.choice(base.player_counts)
        fields = rng.sample(names, rng.randint(least, most))
        if "opening_table" not in fields and rng.random() < 0.5:
            fields.append("opening_table")
        overrides = {}
        for name in fields:
            if name in TABLE_FIELDS:
                overrides[name] = _table_ends(rng, base, name)
            else:
                overrides[name] = rng.choice(ends[name])
        for name in rng.sample(flags, rng.randint(0, 3)):
            overrides[name] = rng.choice((False, True))
        if "num_decks" in overrides and "num_decks_by_players" not in overrides:
            overrides["num_decks_by_players"] = ()
        if "hand_size" in overrides:
            overrides["hand_size"] = _fit_hand_size(preset, overrides)
            if overrides["hand_size"] is None:
                continue
        try:
            make_rules(preset, **overrides)
        except ValueError:
            continue
        return preset, overrides, players


#: Plain fields that only score a hand: a built position (benchmarks/bench_turn_search.py)
#: is the same at either end; random play meets them through the scores (which set the
#: opening minimum).
SCORING_FIELDS = (
    "go_out_bonus",
    "concealed_go_out_bonus",
    "clean_canasta_bonus",
    "dirty_canasta_bonus",
    "hidden_canasta_bonus",
    "wild_canasta_clean_bonus",
    "wild_canasta_dirty_bonus",
    "red3_scores",
    "red3_extra_each",
    "black3_in_hand_penalty",
    "unopened_hand_penalty_factor",
    "sequence_bonus",
    "royal_sequence_bonus",
)


def _fits(preset: str, players: int) -> list[dict]:
    """Fields added, in turn, where a field's end alone does not fit the preset's deck:
    the one table size, then eight decks or one."""
    alone = {
        "player_counts": (players,),
        "hand_size": ((players, PRESETS[preset].hand_size_for(players)),),
        "num_decks_by_players": (),
    }
    return [{}, alone, {**alone, "num_decks": MAX_DECKS}, {**alone, "num_decks": 1}]


def bound_end_tables(players: int = 2) -> list[tuple[str, dict, int]]:
    """(preset, overrides, players): one table for each end of every plain integer field
    of ``rules.BOUNDS`` that a position's legal moves depend on, and for the ends of the
    table fields (the opening minimum's tables of OPENING_ENDS, one card or the whole
    deck dealt, one deck or eight a table), the presets taken in turn."""
    presets = sorted(PRESETS)
    wanted: list[tuple[str, object]] = []
    for name, ends in bound_ends().items():
        if name not in SCORING_FIELDS:
            wanted += [(name, end) for end in ends]
    wanted += [("opening_table", table) for table in OPENING_ENDS]
    wanted += [("hand_size", 1), ("hand_size", 0)]  # 0: the most the deck deals
    wanted += [("num_decks_by_players", decks) for decks in (1, MAX_DECKS)]
    wanted += [("clean_opening_wild_melds", ((MAX_NEW_MELD, 0), (0, MAX_NEW_MELD)))]
    tables = []
    for index, (name, end) in enumerate(wanted):
        preset = presets[index % len(presets)]
        for fit in _fits(preset, players):
            overrides = {**fit, name: end}
            if name == "hand_size":
                rows = tuple((n, end) for n, _ in fit.get("hand_size", PRESETS[preset].hand_size))
                overrides["hand_size"] = _fit_hand_size(preset, {**overrides, name: rows})
            elif name == "num_decks_by_players":
                overrides[name] = ((players, end),)
            try:
                make_rules(preset, **overrides)
            except (ValueError, TypeError):
                continue
            tables.append((preset, overrides, players))
            break
    return tables


def _fit_hand_size(preset: str, overrides: dict):
    """hand_size rows of 1 card kept; rows of 0 (the far end) become the most cards the
    deck deals with the other fields as drawn, or None where none fits."""
    rows = []
    for players, cards in overrides["hand_size"]:
        if cards:
            rows.append((players, cards))
            continue
        for most in (200, 120, 80, 60, 40, 30, 20, 15, 10, 5, 1):
            trial = {**overrides, "hand_size": ((players, most),), "player_counts": (players,)}
            try:
                make_rules(preset, **trial)
            except ValueError:
                continue
            rows.append((players, most))
            break
        else:
            return None
    return tuple(rows)
