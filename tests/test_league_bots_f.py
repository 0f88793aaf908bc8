"""The writer_f league bots (research/league_bots/writer_f.py): legal, finishing, deterministic."""

import numpy as np
import pytest

import canasta_env
from agents.base import play_hands
from agents.registry import make_agent
from research.league_bots.writer_f import Patient, Sprint
from tests.bot_hands import hand_moves

TABLES = [
    ("classic", 2),
    ("classic", 4),
    ("canastone", 3),
    ("spanish", 4),
    ("spanish", 6),
    ("italian", 2),
]


@pytest.mark.parametrize("cls", [Sprint, Patient])
@pytest.mark.parametrize("variant,players", TABLES)
def test_hands_are_legal_and_finish(cls, variant, players):
    agents = [cls(seed=i) if i % 2 == 0 else make_agent("expert", seed=i) for i in range(players)]
    records = play_hands(agents, 2, variant=variant, seed=5)  # an illegal action raises
    assert len(records) == 2
    assert all(r.end_reason for r in records)


def _actions(cls, seed):
    return hand_moves([cls(seed=100 + i) for i in range(4)], deal=seed)


@pytest.mark.parametrize("cls", [Sprint, Patient])
def test_same_seed_same_actions(cls):
    first = _actions(cls, 3)
    assert first == _actions(cls, 3)
    assert len(first) > 10


def test_plans_differ():
    assert _actions(Sprint, 4) != _actions(Patient, 4)


def test_reset_takes_a_preset_name():
    bot = Sprint(seed=0)
    bot.reset(0, 2, "classic")
    env = canasta_env.env(variant="classic", num_players=2)
    env.reset(seed=0)
    obs, *_ = env.last()
    action = bot.act(obs["observation"], obs["action_mask"])
    assert obs["action_mask"][action] == 1 and isinstance(action, (int, np.integer))
