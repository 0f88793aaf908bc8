"""The declared game state: every attribute of a game is a declared field or a cache,
and copying and comparing follow from the declaration."""

from __future__ import annotations

import random

import pytest

from canasta_env.engine import Game
from canasta_env.engine.state import (
    STATE_FIELDS,
    copy_state,
    history_entries,
    same_state,
    state_snapshot,
    table_cards,
)
from canasta_env.engine.suits import NO_SUITS
from canasta_env.rules import PRESETS, make_rules

#: What a game keeps beside its state (see ``Game._caches``).
CACHES = {"tables", "search", "_legal", "_legal_moves"}
CASES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]


def played(variant: str, players: int, seed: int, steps: int, **overrides) -> Game:
    game = Game(make_rules(variant, **overrides), players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.hand_over:
            if game.game_over:
                break
            game.next_hand()
        game.apply(rng.choice(game.legal_actions()))
    return game


@pytest.mark.parametrize("variant,players", CASES)
def test_every_attribute_is_declared_state_or_a_cache(variant, players):
    for seed, steps in ((1, 0), (2, 40), (3, 400)):
        game = played(variant, players, seed, steps)
        assert set(vars(game)) == set(STATE_FIELDS) | CACHES


def test_the_sequences_house_rule_is_declared_too():
    game = played("spanish", 2, 5, 300, sequences=True)
    assert set(vars(game)) == set(STATE_FIELDS) | CACHES
    assert game.suits.tracked and len(game.suits.hands) == 2


@pytest.mark.parametrize("variant,players", CASES)
def test_a_copy_is_equal_independent_and_plays_on_identically(variant, players):
    game = played(variant, players, seed=7, steps=60)
    other = game.copy()
    assert same_state(other, game)
    before = state_snapshot(game)
    # the copy's lists are its own: changing them leaves the game as it was
    other.hands[0][0] += 1
    other.nat[0][3] += 1
    other.stock.append(0)
    assert state_snapshot(game) == before
    assert not same_state(other, game)  # positive control: the comparison sees a change
    # same actions from the same state: the same game, shuffles of later hands included
    other = game.copy()
    rng_a, rng_b = random.Random(1), random.Random(1)
    for _ in range(300):
        for g, rng in ((game, rng_a), (other, rng_b)):
            if g.hand_over:
                if not g.game_over:
                    g.next_hand()
            elif g.legal_actions():
                g.apply(rng.choice(g.legal_actions()))
    assert same_state(other, game)
    assert other.legal_actions() == game.legal_actions()


def test_the_suits_component_copies_and_compares_with_the_state():
    """S-19: the suits are one component; a copy's are its own, and a change shows."""
    game = played("spanish", 4, seed=7, steps=60, sequences=True)
    other = game.copy()
    assert same_state(other, game) and other.suits is not game.suits
    before = state_snapshot(game)
    other.suits.hands[0][0] += 1
    other.suits.stock.append(0)
    other.suits.pot.append(0)
    other.suits.held[0] += 1
    assert state_snapshot(game) == before
    assert not same_state(other, game)  # positive control
    plain = played("spanish", 4, seed=7, steps=60)
    assert plain.suits is NO_SUITS and plain.copy().suits is NO_SUITS
    assert not plain.suits.tracked and plain.suits.hand(0) is None


def test_same_state_compares_the_generator_by_its_state():
    game = played("classic", 2, seed=3, steps=10)
    other = game.copy()
    assert same_state(other, game)
    other.rng.random()
    assert not same_state(other, game)


def test_copy_state_writes_every_declared_field():
    game = played("italian", 4, seed=11, steps=80)
    target = object.__new__(Game)
    copy_state(game, target)
    assert set(vars(target)) == set(STATE_FIELDS)
    assert same_state(target, game)


@pytest.mark.parametrize("variant,players", CASES)
def test_the_totals_the_engine_keeps_match_a_fresh_count(variant, players):
    game = Game(make_rules(variant, sequences=variant == "spanish"), players, seed=4)
    rng = random.Random(4)
    for _ in range(600):
        assert game.hand_totals == [sum(hand) for hand in game.hands]
        assert game.table_totals == [table_cards(game, t) for t in range(game.num_teams)]
        assert game.history_totals == [history_entries(game, s) for s in range(players)]
        if game.hand_over:
            if game.game_over:
                break
            game.next_hand()
        else:
            game.apply(rng.choice(game.legal_actions()))
