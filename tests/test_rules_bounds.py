"""Every rules field has a declared range, and every way of building rules checks it.

``BOUNDS`` in ``canasta_env/rules.py`` is the one declaration; these tests build a
value just outside each bound through each entry point (``make_rules``,
``rules_from_dict``, ``dataclasses.replace``) and expect a ``ValueError`` naming the
field and the range. Then the checks between fields, each with its exact message,
and positions at the limits showing that the limits are real: the engine and the
observation cope with the largest deck and joker counts the bounds allow.
"""

from __future__ import annotations

import dataclasses
import re
import typing

import numpy as np
import pytest

from canasta_env.actions import ADD_NATURAL, DRAW, str_to_action
from canasta_env.cards import JOKER, NATURAL_RANKS
from canasta_env.env import raw_env
from canasta_env.observation import decode
from canasta_env.rules import (
    BOUNDS,
    CLASSIC,
    COLUMNS,
    MAX_DECKS,
    OBSERVATION_BYTE_MAX,
    PRESETS,
    Bound,
    Rules,
    make_rules,
    rules_from_dict,
)

ACE = NATURAL_RANKS.index("A")


def _integer_places() -> set[tuple[str, str | None]]:
    """(field, column) of every integer in the rules: fields, list entries, table columns."""
    places = set()
    for name, hint in typing.get_type_hints(Rules).items():
        if name in COLUMNS:
            places.update((name, column) for column in COLUMNS[name])
        elif hint is int or typing.get_args(hint)[:1] == (int,):
            places.add((name, None))
    return places


def test_every_integer_of_the_rules_has_a_declared_bound():
    assert {(bound.field, bound.column) for bound in BOUNDS} == _integer_places()


def test_every_preset_is_within_its_bounds():
    for rules in PRESETS.values():
        assert dataclasses.replace(rules) == rules  # the checks run again and pass


def _base(field: str) -> Rules:
    """The first preset whose ``field`` is not empty, so that an entry can be spoiled."""
    return next((rules for rules in PRESETS.values() if getattr(rules, field)), CLASSIC)


def _spoiled(bound: Bound, bad: int):
    """The base value of the bound's field with one integer set to ``bad``."""
    value = getattr(_base(bound.field), bound.field)
    if bound.column is not None:
        index = COLUMNS[bound.field].index(bound.column)
        is_table = isinstance(value[0], tuple)
        row = list(value[0] if is_table else value)
        row[index] = bad
        return [row, *value[1:]] if is_table else row
    if isinstance(value, tuple):
        return [bad, *value[1:]]
    return bad


def _outside(bound: Bound) -> list[int]:
    """Values just outside the bound: below its low, above its high, not allowed."""
    values = []
    if bound.allowed is not None:
        values.append(next(n for n in range(10) if n not in bound.allowed))
    if bound.low is not None:
        values.append(bound.low - 1)
    if bound.high is not None:
        values.append(bound.high + 1)
    return values


OUT_OF_BOUNDS = [
    pytest.param(bound, bad, id=f"{bound.field}-{bound.column or 'value'}-{bad}")
    for bound in BOUNDS
    for bad in _outside(bound)
]

BUILDERS = {
    "make_rules": lambda base, field, value: make_rules(base.name, **{field: value}),
    "rules_from_dict": lambda base, field, value: rules_from_dict(
        {**base.describe(), field: value}
    ),
    "replace": lambda base, field, value: dataclasses.replace(base, **{field: value}),
}


@pytest.mark.parametrize("builder", list(BUILDERS))
@pytest.mark.parametrize(("bound", "bad"), OUT_OF_BOUNDS)
def test_value_outside_its_bound_names_the_field_and_the_range(bound, bad, builder):
    base = _base(bound.field)
    value = _spoiled(bound, bad)
    where = f": {bound.column} must be" if bound.column else " must be"
    pattern = re.escape(f"rules field {bound.field!r}{where} {bound.text()} ({bound.why}), ")
    with pytest.raises(ValueError, match=pattern + re.escape(f"got {bad!r}")):
        BUILDERS[builder](base, bound.field, value)
    assert PRESETS[base.name] == base, "a failed override leaves the preset as it was"


# ---------------------------------------------------------------------------- between fields
CLASSIC_2P_DEAL = (
    "the worst deal for 2 players takes 2 x {cards} cards + {reserve} (4 red 3 replacements "
    "+ 16 cards that cover the turned card + 1 turned card + {draw} draw_count) = {total}, "
    "and the deck has 108 (2 deck(s), 2 jokers each); with the other fields as they are it "
    "needs "
)


@pytest.mark.parametrize(
    ("variant", "overrides", "message"),
    [
        pytest.param(
            "classic",
            {"hand_size": [[2, 55], [3, 13], [4, 11], [6, 11]]},
            "rules fields 'hand_size', 'pot_face_down' and 'draw_count' do not fit the deck: "
            + CLASSIC_2P_DEAL.format(cards=55, reserve=22, draw=1, total=132)
            + "'hand_size' >= 1 and <= 43 for 2 players",
            id="hand-too-big-for-the-deck",
        ),
        pytest.param(
            "classic",
            {"draw_count": 100},
            "rules fields 'hand_size', 'pot_face_down' and 'draw_count' do not fit the deck: "
            + CLASSIC_2P_DEAL.format(cards=15, reserve=121, draw=100, total=151)
            + "'draw_count' >= 1 and <= 21",
            id="draw-bigger-than-the-stock",
        ),
        pytest.param(
            "classic",
            {"jokers_per_deck": 200},
            "rules field 'jokers_per_deck': 200 jokers in each of 2 decks make 400 cards of "
            "one kind, more than the observation counts in a byte (255); it must be >= 0 and "
            "<= 127 with 2 decks (2 players)",
            id="jokers-overflow-the-observation",
        ),
        pytest.param(
            "spanish",
            {"jokers_per_deck": 32},
            "rules field 'jokers_per_deck': 32 jokers in each of 8 decks make 256 cards of "
            "one kind, more than the observation counts in a byte (255); it must be >= 0 and "
            "<= 31 with 8 decks (6 players)",
            id="jokers-overflow-with-the-6-player-decks",
        ),
        pytest.param(
            "italian",
            {"pot_face_down": 242},
            "rules field 'pot_face_down' must be >= 0 and <= 241 with "
            "pot_start_count_under_natural=True (up to 14 more cards go face down; the "
            "observation counts them in a byte), got 242",
            id="face-down-pot-overflows-the-observation",
        ),
        pytest.param(
            "classic",
            {"hand_size": [[2, 15], [2, 16], [3, 13], [4, 11], [6, 11]]},
            "rules field 'hand_size' has more than one row for [2] players",
            id="hand-size-row-twice",
        ),
        pytest.param(
            "spanish",
            {"num_decks_by_players": [[6, 8], [6, 4]]},
            "rules field 'num_decks_by_players' has more than one row for [6] players",
            id="decks-row-twice",
        ),
        pytest.param(
            "classic",
            {"hand_size": [[2, 15], [3, 13], [4, 11]]},
            "rules field 'hand_size' has no hand size for [6] players",
            id="hand-size-missing",
        ),
        pytest.param(
            "classic",
            {"player_counts": []},
            "rules field 'player_counts' must not be empty",
            id="no-player-counts",
        ),
        pytest.param(
            "classic",
            {"red3_scores": []},
            "rules field 'red3_scores' must not be empty",
            id="no-red3-scores",
        ),
        pytest.param(
            "classic",
            {"opening_table": []},
            "rules field 'opening_table' must not be empty",
            id="no-opening-table",
        ),
        pytest.param(
            "classic",
            {"opening_table": [[0, 50], [-10, 15]]},
            "rules field 'opening_table' must be in ascending order of scores",
            id="opening-table-descending",
        ),
        pytest.param(
            "classic",
            {"pot_start_cover_kinds": ["2", "Q3"]},
            "rules field 'pot_start_cover_kinds' has unknown card kinds ['Q3']; kinds are "
            "4 5 6 7 8 9 T J Q K A 2 JK B3 R3",
            id="unknown-cover-kind",
        ),
    ],
)
def test_fields_at_odds_name_them_and_what_fits(variant, overrides, message):
    with pytest.raises(ValueError) as info:
        make_rules(variant, **overrides)
    assert str(info.value) == message
    assert PRESETS[variant] == dataclasses.replace(PRESETS[variant])


TYPE_CASES = [
    ({"num_decks": 2.0}, "rules field 'num_decks' expects int, got 2.0"),
    ({"num_decks": True}, "rules field 'num_decks' expects int, got True"),
    ({"sequences": "yes"}, "rules field 'sequences' expects bool, got 'yes'"),
    ({"name": None}, "rules field 'name' expects str, got None"),  # not rules_from_dict
    (
        {"hand_size": [[2, 15, 1]]},
        "rules field 'hand_size' expects a list of [players, cards] lists of 2 integers, "
        "got ((2, 15, 1),)",
    ),
    (
        {"opening_table": "abc"},
        "rules field 'opening_table' expects a list of [lowest team score, minimum] "
        "lists of 2 integers, got 'abc'",
    ),
    (
        {"red3_sign": [1, 1, 1, 1]},
        "rules field 'red3_sign' expects a list of 5 integers, got (1, 1, 1, 1)",
    ),
    (
        {"special_wild_canasta": [1, 2]},
        "rules field 'special_wild_canasta' expects a list of 3 integers "
        "[jokers, twos, bonus], got (1, 2)",
    ),
    (
        {"red3_scores": [0, 100.0]},
        "rules field 'red3_scores' expects a list of integers, got (0, 100.0)",
    ),
    (
        {"go_out_bonus": float("nan")},
        "rules field 'go_out_bonus' expects int, got nan",
    ),
    (
        {"pot_start_freeze_kinds": "2"},
        "rules field 'pot_start_freeze_kinds' expects a list of strings, got '2'",
    ),
]


@pytest.mark.parametrize(
    ("overrides", "message"), TYPE_CASES, ids=[next(iter(case[0])) for case in TYPE_CASES]
)
def test_wrong_type_names_the_field_and_the_type(overrides, message):
    ((field, value),) = overrides.items()
    for name, build in BUILDERS.items():
        with pytest.raises(ValueError) as info:
            build(CLASSIC, field, value)
        if field == "name" and name == "rules_from_dict":  # it finds no preset to start from
            assert str(info.value) == "rules must be a mapping with a string 'name'"
        else:
            assert str(info.value) == message


def test_unknown_field_suggests_the_nearest():
    with pytest.raises(ValueError) as info:
        make_rules("classic", jokers_per_decks=3)
    assert str(info.value) == (
        "unknown rules field(s) ['jokers_per_decks'] (did you mean 'jokers_per_deck'?) "
        "for variant 'classic'"
    )
    with pytest.raises(ValueError, match=r"unknown rules field\(s\) \['jokers'\]"):
        rules_from_dict({"name": "classic", "jokers": 3})


@pytest.mark.parametrize("variant", [["classic"], None, 3])
def test_variant_is_a_preset_name_or_a_rules_object(variant):
    with pytest.raises(ValueError) as info:
        make_rules(variant)
    assert str(info.value) == (
        f"unknown variant {variant!r}; choose one of "
        "['canastone', 'classic', 'italian', 'spanish'] or pass a Rules object"
    )


def test_lists_become_tuples_so_rules_stay_hashable():
    rules = make_rules("classic", hand_size=[[2, 12], [3, 12], [4, 11], [6, 11]])
    assert rules.hand_size == ((2, 12), (3, 12), (4, 11), (6, 11))
    assert hash(rules) == hash(dataclasses.replace(rules))


# ---------------------------------------------------------------------------- limits are real
def _deal(variant: str, players: int, deck: str, **overrides):
    env = raw_env(variant=variant, num_players=players, **overrides)
    env.reset(seed=0, options={"deck": deck})
    return env


def test_a_meld_of_every_natural_of_a_rank_at_the_most_decks():
    """At MAX_DECKS the engine's meld tables take a meld of all 32 aces, card by card."""
    aces = 4 * MAX_DECKS
    env = _deal(
        "classic",
        2,
        "AS " * aces,
        num_decks=MAX_DECKS,
        hand_size=[[2, aces + 5], [3, 13], [4, 11], [6, 11]],
    )
    env.step(DRAW)
    env.step(str_to_action("meld A A A A A A A"))
    while env.game.hands[0][ACE]:  # env.game: the position now (a copy on the core)
        env.step(ADD_NATURAL + ACE)
    assert env.game.nat[0][ACE] == aces
    assert decode(env.observe("player_0")["observation"])["teams"][ACE] == aces


def test_the_most_jokers_fit_the_observation():
    """With MAX_DECKS decks of the most jokers the observation can count, a hand of
    jokers is seen exactly, and the deck holds exactly OBSERVATION_BYTE_MAX jokers."""
    jokers = OBSERVATION_BYTE_MAX // MAX_DECKS
    assert jokers * MAX_DECKS <= OBSERVATION_BYTE_MAX < (jokers + 1) * MAX_DECKS
    cards = 150  # most of the jokers in one hand; the worst deal lets a hand hold 175
    env = _deal(
        "classic",
        2,
        "JK " * cards,
        num_decks=MAX_DECKS,
        jokers_per_deck=jokers,
        hand_size=[[2, cards], [3, 13], [4, 11], [6, 11]],
    )
    assert env.game.hands[0][JOKER] == cards
    hand = decode(env.observe("player_0")["observation"])["hand"]
    assert hand[JOKER] == pytest.approx(cards)
    with pytest.raises(ValueError, match="jokers_per_deck"):
        make_rules("classic", num_decks=MAX_DECKS, jokers_per_deck=jokers + 1)
    assert np.isfinite(env.observe("player_1")["observation"]).all()
