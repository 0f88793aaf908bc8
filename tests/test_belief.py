"""The search's model of the hidden cards (agents/belief.py): the shipped tables, the
history classes of an exact position, weighted worlds (consistent, deterministic, and
shifted the way the table says, against the uniform deal as the control)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from agents import belief
from canasta_env.cards import KIND_NAMES, NUM_HAND_KINDS
from canasta_env.engine.determinize import determinize
from canasta_env.engine.game import Game
from canasta_env.rules import make_rules

SEVEN = KIND_NAMES.index("7")


def position() -> Game:
    """Classic 2-player: player 1 has discarded a 7 and then drawn past a 7 on the pot."""
    game = Game(make_rules("classic"), 2, seed=5)
    game = game.copy()
    game.discarded[1][SEVEN] = 1
    game.declined[1][SEVEN] = 1
    game.state_changed()
    return game


def test_shipped_tables_cover_two_and_four_players():
    tables = json.loads(belief.TABLES.read_text())
    for players in ("2", "4"):
        table = tables[players]
        assert table["agent"] == f"ppo:classic-{players}p"
        assert sorted(table["ratios"]) == [f"{c:03b}" for c in range(belief.CLASSES)]
        log_ratios = belief.load_table(int(players))
        assert log_ratios.shape == (belief.CLASSES, belief.BUCKETS)
        # a kind discarded and drawn past: a pair of it is much rarer than a uniform deal says
        assert log_ratios[0b110, 2] < np.log(0.5)
    assert belief.load_table(5) is None


def test_history_classes_of_an_exact_position():
    game = position()
    classes = belief.history_classes(game, seat=0)
    assert classes.shape == (2, NUM_HAND_KINDS)
    assert classes[1, SEVEN] == 0b110
    assert (np.delete(classes[1], SEVEN) == 0).all()  # no other history yet (no pot taken)


def test_log_weight_sums_the_table_over_other_hands():
    game = position()
    log_ratios = np.log(np.arange(1, 33, dtype=float).reshape(belief.CLASSES, belief.BUCKETS))
    classes = belief.history_classes(game, 0)
    expected = sum(
        log_ratios[classes[1, k], min(game.hands[1][k], 3)] for k in range(NUM_HAND_KINDS)
    )
    assert belief.log_weight(game, 0, classes, log_ratios) == pytest.approx(expected)
    # the seat's own hand never counts
    changed = game.copy()
    changed.hands[0] = [0] * len(changed.hands[0])
    assert belief.log_weight(changed, 0, classes, log_ratios) == pytest.approx(expected)


def test_picked_worlds_are_consistent_and_deterministic():
    game = position()
    log_ratios = belief.load_table(2)
    picked = belief.pick_worlds(game, 0, 8, 4, random.Random(3), log_ratios)
    again = belief.pick_worlds(game, 0, 8, 4, random.Random(3), log_ratios)
    assert len(picked) == 8
    assert [w.hands for w in picked] == [w.hands for w in again]
    for world in picked:
        assert world.hands[0] == game.hands[0]
        assert world.hand_totals == game.hand_totals
        assert len(world.stock) == len(game.stock)
        assert world.discarded == game.discarded and world.declined == game.declined


def test_weighted_worlds_follow_the_history_and_uniform_ones_do_not():
    """The kind player 1 discarded and drew past: in weighted worlds it holds a pair of
    it less often than in uniform ones (the control), by about the table's ratio."""
    game = position()
    log_ratios = belief.load_table(2)
    rng = random.Random(11)
    uniform = [determinize(game, 0, rng) for _ in range(1200)]
    weighted = [w for _ in range(150) for w in belief.pick_worlds(game, 0, 8, 4, rng, log_ratios)]

    def pairs(worlds):
        return np.mean([w.hands[1][SEVEN] >= 2 for w in worlds])

    assert pairs(uniform) > 0.2  # the control: a uniform deal gives it pairs (0.33 here)
    assert pairs(weighted) < 0.5 * pairs(uniform)


def test_the_command_writes_a_table(tmp_path):
    out = tmp_path / "belief.json"
    from research import belief_tables

    assert belief_tables.main(["--players", "2", "--hands", "2", "--out", str(out)]) == 0
    table = json.loads(out.read_text())["2"]
    assert table["hands"] == 2
    counts = np.array([table["counts"][f"{c:03b}"] for c in range(belief.CLASSES)])
    assert counts.sum() > 0
    ratios = np.array([table["ratios"][f"{c:03b}"] for c in range(belief.CLASSES)])
    assert (ratios > 0).all()
