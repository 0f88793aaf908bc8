"""The observation builder's caches are exact: a builder that has followed a game
(looking at some steps, skipping others, across hands) gives the same vector as a
fresh builder, for every viewer."""

from __future__ import annotations

import random

import numpy as np
import pytest

from canasta_env.engine import Game
from canasta_env.observation import ObservationBuilder, decode_view
from canasta_env.rules import PRESETS, make_rules

CASES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]


@pytest.mark.parametrize("variant,players", CASES)
def test_a_long_lived_builder_matches_a_fresh_one(variant, players):
    game = Game(make_rules(variant, sequences=variant == "spanish"), players, seed=players)
    builder = ObservationBuilder(game)
    rng = random.Random(players)
    compared = 0
    for _ in range(1500):
        if game.hand_over:
            if game.game_over:
                break
            game.next_hand()
        # look now and then: every step, after a gap of several steps, several viewers
        if rng.random() < 0.6:
            for viewer in rng.sample(range(players), rng.randint(1, players)):
                to_act = rng.random() < 0.8
                fresh = ObservationBuilder(game).build(viewer, to_act)
                assert np.array_equal(builder.build(viewer, to_act), fresh)
                compared += 1
        if game.legal_actions():
            game.apply(rng.choice(game.legal_actions()))
    assert compared > 200


def test_a_state_edited_by_hand_is_seen_after_state_changed():
    """Positive control: the caches follow the counts the engine keeps as it plays; a
    state edited by hand is seen by a fresh builder at once, and by one that looked
    before the edit once ``state_changed()`` has counted them afresh."""
    game = Game(make_rules("classic"), 2, seed=1)
    builder = ObservationBuilder(game)
    before = builder.build(0)
    game.red3[1] += 1
    assert not np.array_equal(ObservationBuilder(game).build(0), before)
    assert np.array_equal(builder.build(0), before)
    game.state_changed()
    assert np.array_equal(builder.build(0), ObservationBuilder(game).build(0))


def test_a_game_of_more_than_255_hands_still_observes():
    """The hand number is a byte of the table block; it saturates instead of failing."""
    game = Game(make_rules("classic"), 2, seed=0)
    game.hand_index = 300
    vector = ObservationBuilder(game).build(0)
    view = decode_view(vector, num_players=2)
    assert view.hand_number == 255
