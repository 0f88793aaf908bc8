"""A hand's rewards are booked once per engine: the batch's booking in C++ (``book_hand``
in csrc/batch.cpp, through csrc/outcome.hpp's ``Result``; ``_core.seat_rewards`` calls it)
gives what the table's gives (:meth:`canasta_env.table.Table.seat_rewards`, through
:class:`canasta_env.engine.outcome.Result`), to the bit, for every reward mode, episode
mode and a spread of reward scales, over many random hands of every preset at each of its
player counts, played on to the game's end (a low target, so games end and winners and
ties are booked).
"""

from __future__ import annotations

import pytest

from canasta_env.core import AVAILABLE, WHY_NOT
from canasta_env.rules import PRESETS, make_rules
from canasta_env.table import EPISODE_MODES, REWARD_MODES, Table

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT or "core not built")

if AVAILABLE:
    from canasta_env import _core

#: every preset at each of its player counts, and Spanish with its optional runs
TABLES = [(name, {}, n) for name, rules in PRESETS.items() for n in rules.player_counts]
TABLES += [("spanish", {"sequences": True}, n) for n in (2, 4)]
HANDS = 400
SCALES = (1000.0, 7.0, 1e-3, 1e9)
#: a target a game passes in a few random hands (and sometimes two teams at once)
TARGET = 600


@pytest.mark.parametrize(
    "name, overrides, players",
    TABLES,
    ids=[f"{n}{'+runs' if o else ''}-{p}p" for n, o, p in TABLES],
)
def test_the_cores_booking_is_the_tables(name, overrides, players):
    rules = make_rules(name, target_score=TARGET, **overrides)
    seen = {"hands": 0, "games over": 0, "won": 0}
    game_seed = 0
    table = Table(rules, players, seed=game_seed, backend="core")
    while seen["hands"] < HANDS:
        while not table.hand_over:
            table.engine.random_steps(10_000, seen["hands"])
        game = table.engine._game
        for reward in REWARD_MODES:
            for episode in EPISODE_MODES:
                for scale in SCALES:
                    python = table.seat_rewards(reward, scale, episode)
                    core = _core.seat_rewards(game, reward, scale, episode)
                    assert core == python, (reward, episode, scale, seen)
        outcomes = table.seat_rewards("win", 1.0, "game" if table.engine.game_over else "hand")
        seen["won"] += 1.0 in outcomes
        seen["hands"] += 1
        if table.engine.game_over:
            seen["games over"] += 1
            game_seed += 1
            table = Table(rules, players, seed=game_seed, backend="core")
        else:
            table.next_hand()
    assert seen["games over"] > 0 and seen["won"] > 0, seen


def test_the_cores_booking_refuses_what_the_batch_refuses():
    table = Table(make_rules("classic"), 2, seed=0, backend="core")
    with pytest.raises(ValueError, match="no result before it ends"):
        _core.seat_rewards(table.engine._game)
    table.engine.random_steps(10_000, 0)
    for kwargs, message in (
        ({"reward": "points"}, "reward must be one of"),
        ({"episode": "match"}, "episode must be one of"),
        ({"reward_scale": 0.0}, "reward_scale must be a number"),
        ({"reward_scale": float("nan")}, "reward_scale must be a number"),
    ):
        with pytest.raises(ValueError, match=message):
            _core.seat_rewards(table.engine._game, **kwargs)
