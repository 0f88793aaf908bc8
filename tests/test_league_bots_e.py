"""Writer E's training opponents (research/league_bots/writer_e.py): legal, finish, same seed."""

import pytest

from agents.base import play_hands
from agents.registry import make_agent
from research.league_bots.writer_e import Freezer2, Reckoner
from tests.bot_hands import hand_moves

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
    return hand_moves([cls(seed=seed + s) for s in range(4)], deal=5)


@pytest.mark.parametrize("cls", [Reckoner, Freezer2])
def test_same_seed_same_actions(cls):
    assert _actions(cls, 7) == _actions(cls, 7)


def _differences(deal):
    """Freezer2 shadows Reckoner at every seat of one hand: the decisions it would play
    otherwise on the same views."""
    others = [Freezer2(seed=0) for _ in range(4)]
    for seat, other in enumerate(others):
        other.reset(seat, 4, "classic")
    differ = []
    hand_moves(
        [Reckoner(seed=0) for _ in range(4)],
        deal=deal,
        shadow=lambda seat, obs, mask, action: differ.append(others[seat].act(obs, mask) != action),
    )
    return sum(differ)


def test_the_two_plans_differ():
    assert sum(_differences(deal) for deal in range(4)) > 0
