"""The third writer's strangers (research/strangers/s3_bots.py): legal everywhere, deterministic."""

import numpy as np
import pytest

import canasta_env
from agents.base import RandomAgent, play_hands
from research.strangers.s3_bots import PotTaker, Tempo
from tests.bot_hands import hand_moves

BOTS = (Tempo, PotTaker)
TABLES = (
    ("classic", 2),
    ("classic", 3),
    ("classic", 4),
    ("classic", 6),
    ("canastone", 4),
    ("canastone", 6),
    ("spanish", 2),
    ("spanish", 3),
    ("spanish", 4),
    ("italian", 2),
    ("italian", 4),
)


@pytest.mark.parametrize("variant, players", TABLES)
def test_both_bots_play_legal_hands_to_the_end(variant, players):
    """Every seat a bot (the two plans alternating, and a random seat at solo tables):
    play_hands raises on an illegal action, so finishing is the test."""
    seats = [BOTS[seat % 2](seed=seat) for seat in range(players)]
    if players == 3:
        seats[2] = RandomAgent(seed=2)
    records = play_hands(seats, 2, variant, seed=11)
    assert len(records) == 2
    for record in records:
        assert record.steps > 0
        assert len(record.team_scores) == (players if players <= 3 else 2)


@pytest.mark.parametrize("bot", BOTS)
def test_spanish_runs_house_rule_is_legal(bot):
    records = play_hands([bot(seed=0), bot(seed=1)], 2, "spanish", seed=5, sequences=True)
    assert len(records) == 2


def _actions(bot, variant, players, deal, seed):
    """The actions of one hand with ``bot`` in every seat, each seeded with ``seed``."""
    agents = [bot(seed=seed) for _ in range(players)]
    for agent in agents:
        agent.seed(seed)
    return hand_moves(agents, variant, deal)


@pytest.mark.parametrize("bot", BOTS)
@pytest.mark.parametrize("variant, players", [("classic", 4), ("spanish", 2), ("italian", 4)])
def test_same_seed_same_actions(bot, variant, players):
    first = _actions(bot, variant, players, deal=3, seed=7)
    second = _actions(bot, variant, players, deal=3, seed=7)
    assert first == second and len(first) > 10


@pytest.mark.parametrize("bot", BOTS)
def test_act_returns_a_legal_python_int_and_works_without_reset(bot):
    env = canasta_env.raw_env(variant="classic", num_players=4)
    env.reset(seed=1)
    obs, *_ = env.last()
    agent = bot()  # no reset: the player count comes from the observation
    action = agent.act(obs["observation"], obs["action_mask"])
    assert isinstance(action, int) and obs["action_mask"][action] == 1
    agent.reset(0, 4, "classic")  # a preset's name is accepted for the rules
    assert obs["action_mask"][agent.act(obs["observation"], obs["action_mask"])] == 1
    mask = np.zeros_like(obs["action_mask"])
    mask[0] = 1  # a single legal id is returned as it is
    assert agent.act(obs["observation"], mask) == 0
