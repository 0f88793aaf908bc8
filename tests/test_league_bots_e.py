"""Writer E's training opponents (research/league_bots/writer_e.py): legal, finish, same seed."""

import pytest

import canasta_env
from agents.base import play_hands
from agents.registry import make_agent
from research.league_bots.writer_e import Freezer2, Reckoner

TABLES = [
    ("classic", 4),
    ("classic", 2),
    ("canastone", 3),
    ("spanish", 4),
    ("spanish", 6),
    ("italian", 2),
    ("italian", 4),
]


@pytest.mark.parametrize("cls", [Reckoner, Freezer2])
@pytest.mark.parametrize("variant,players", TABLES)
def test_hands_are_legal_and_finish(cls, variant, players):
    agents = [cls(seed=s) if s % 2 == 0 else make_agent("greedy", seed=s) for s in range(players)]
    records = play_hands(agents, 2, variant, seed=3)  # an illegal action would raise
    assert len(records) == 2
    assert all(r.end_reason for r in records)


def _actions(cls, seed):
    env = canasta_env.raw_env(variant="classic", num_players=4)
    env.reset(seed=5)
    bots = [cls(seed=seed + s) for s in range(4)]
    for s, bot in enumerate(bots):
        bot.reset(s, 4, env.rules)
    chosen = []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agents.index(agent)
        action = bots[seat].act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        chosen.append(int(action))
        env.step(action)
    return chosen


@pytest.mark.parametrize("cls", [Reckoner, Freezer2])
def test_same_seed_same_actions(cls):
    assert _actions(cls, 7) == _actions(cls, 7)


def test_the_two_plans_differ():
    env = canasta_env.raw_env(variant="classic", num_players=4)
    differ = 0
    for seed in range(4):
        env.reset(seed=seed)
        a, b = Reckoner(seed=0), Freezer2(seed=0)
        a.reset(0, 4, env.rules)
        b.reset(0, 4, env.rules)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"]
            x = a.act(obs["observation"], mask)
            y = b.act(obs["observation"], mask)
            differ += x != y
            env.step(x)
    assert differ > 0
