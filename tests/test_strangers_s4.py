"""The fourth writer's strangers (research/strangers/s4_bots.py): legal on every preset and
player count, and deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from agents.base import RandomAgent, play_hands
from research.strangers import s4_bots as s4
from tests.bot_hands import hand_moves

BOTS = (s4.Scorer, s4.WildBanker)
TABLES = (
    ("classic", 2),
    ("classic", 3),
    ("classic", 4),
    ("classic", 6),
    ("canastone", 3),
    ("canastone", 6),
    ("spanish", 2),
    ("spanish", 4),
    ("italian", 2),
    ("italian", 4),
)


class Recorder:
    """Wraps an agent, checks every action against the mask and records it."""

    def __init__(self, agent):
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.actions: list[int] = []

    def seed(self, s):
        self.agent.seed(s)

    def reset(self, seat, num_players, rules):
        self.agent.reset(seat, num_players, rules)

    def act(self, observation, action_mask):
        action = self.agent.act(observation, action_mask)
        assert isinstance(action, (int, np.integer))
        assert action_mask[int(action)] == 1, f"{self.name} chose a masked action {action}"
        self.actions.append(int(action))
        return action


@pytest.mark.parametrize("bot", BOTS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("variant,players", TABLES, ids=lambda x: str(x))
def test_plays_legal_hands_to_the_end(bot, variant, players):
    """Half the seats are the bot, the others random (alone at 2 and 3 players: the bot
    against one or two random seats); the table refuses any illegal action."""
    seats = [Recorder(bot(seed=s) if s % 2 == 0 else RandomAgent(seed=s)) for s in range(players)]
    records = play_hands(seats, 2, variant, seed=11)
    assert len(records) == 2
    assert all(r.end_reason for r in records)
    assert any(seats[0].actions)


@pytest.mark.parametrize("bot", BOTS, ids=lambda cls: cls.__name__)
def test_whole_table_of_one_bot(bot):
    """Every seat the same bot (partners and opponents), through the table's loop."""
    agents = [Recorder(bot(seed=s)) for s in range(4)]
    hand_moves(agents, "classic", deal=5)
    assert sum(len(a.actions) for a in agents) > 0


@pytest.mark.parametrize("bot", BOTS, ids=lambda cls: cls.__name__)
@pytest.mark.parametrize("variant,players", (("classic", 4), ("spanish", 3)))
def test_same_seed_same_actions(bot, variant, players):
    def run():
        seats = [Recorder(bot(seed=7 + s)) for s in range(players)]
        play_hands(seats, 2, variant, seed=3)
        return [a.actions for a in seats]

    first, second = run(), run()
    assert first == second
    assert sum(len(a) for a in first) > 0


def test_reset_accepts_a_preset_name():
    bot = s4.Scorer(seed=0)
    bot.reset(1, 2, "spanish")
    assert sum(bot.totals) == 4 * 54 - 8  # four decks of 54 less the 8 red 3s
