"""The bots written from the docs alone (examples/docs_bots.py, docs/generalisation.md):
whole hands on several tables with legal moves only, the same seed gives the same hand,
and each bot plays differently from `random` and from the other two on the same deal."""

from __future__ import annotations

import time

import numpy as np
import pytest

from agents.base import RandomAgent, play_hands
from agents.registry import make_agent
from canasta_env.actions import MOVE_DISCARD, MOVE_TAKE, MOVES
from canasta_env.cards import JOKER, TWO
from canasta_env.observation import decode_view
from examples.docs_bots import Hoarder, PileBlocker, Sprinter

BOTS = {"hoarder": Hoarder, "sprinter": Sprinter, "pile-blocker": PileBlocker}
TABLES = [("classic", 2), ("classic", 4), ("spanish", 4), ("italian", 2), ("canastone", 3)]


class Recorder:
    """An agent that remembers the actions it took, what it saw before each (and the time
    it spent choosing), so that two runs can be compared move for move."""

    def __init__(self, agent):
        self.agent = agent
        self.name = getattr(agent, "name", type(agent).__name__)
        self.actions: list[int] = []
        self.views: list = []  # what the bot saw before each action
        self.slowest = 0.0

    def reset(self, seat, num_players, rules):
        reset = getattr(self.agent, "reset", None)
        if reset is not None:
            reset(seat, num_players, rules)

    def act(self, observation, action_mask):
        start = time.perf_counter()
        action = self.agent.act(observation, action_mask)
        self.slowest = max(self.slowest, time.perf_counter() - start)
        assert action_mask[action] == 1, f"{self.name} chose an illegal id {action}"
        self.actions.append(int(action))
        self.views.append(decode_view(observation))
        return action


def seat_zero_moves(bot, variant: str, players: int, deal: int) -> list[int]:
    """The moves of ``bot`` in seat 0 of one hand, the other seats played by seeded
    random agents (the same ones for every bot)."""
    first = Recorder(bot)
    others = [RandomAgent(seed=100 + seat) for seat in range(1, players)]
    play_hands([first, *others], 1, variant=variant, deck_seeds=[deal])
    return first.actions


@pytest.mark.parametrize("variant, players", TABLES)
@pytest.mark.parametrize("name", sorted(BOTS))
def test_bot_plays_whole_hands_with_legal_moves(name, variant, players):
    # the bot in every other seat against random, then the bot in every seat; the table
    # raises on an illegal action, and Recorder checks the mask itself
    mixed = [
        Recorder(BOTS[name](seed=seat)) if seat % 2 == 0 else RandomAgent(seed=seat)
        for seat in range(players)
    ]
    alone = [Recorder(BOTS[name](seed=seat)) for seat in range(players)]
    for agents in (mixed, alone):
        records = play_hands(agents, 2, variant=variant, seed=11)
        assert len(records) == 2
        assert all(record.end_reason for record in records)  # every hand played to its end
        recorders = [a for a in agents if isinstance(a, Recorder)]
        assert all(r.actions for r in recorders)
        # bounded, not fast: a decision takes a few ms (docs/generalisation.md measures it);
        # this only catches a bot that loops, with room for a machine under any load
        assert max(r.slowest for r in recorders) < 10.0


@pytest.mark.parametrize("name", sorted(BOTS))
def test_same_seed_same_hand(name):
    def play(seed: int) -> tuple[list[list[int]], list]:
        agents = [Recorder(BOTS[name](seed=seed + seat)) for seat in range(4)]
        records = play_hands(agents, 2, variant="classic", seed=5)
        return [a.actions for a in agents], [r.team_scores for r in records]

    assert play(3) == play(3)


@pytest.mark.parametrize("variant, players", [("classic", 2), ("classic", 4)])
def test_each_bot_differs_from_random_and_from_the_others(variant, players):
    # positive control: on the same deal against the same opponents, the three styles and
    # random make different moves, so the tests above would notice a bot that is random or
    # a copy of another
    for deal in (1, 2):
        moves = {
            name: seat_zero_moves(bot(seed=0), variant, players, deal) for name, bot in BOTS.items()
        }
        moves["random"] = seat_zero_moves(RandomAgent(seed=0), variant, players, deal)
        names = sorted(moves)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                assert moves[a] != moves[b], f"{a} and {b} played the same moves on deal {deal}"


def may_freeze(view) -> bool:
    """A discard with a big unfrozen pot, a wild card in hand and an opened opponent team:
    where the pile blocker freezes the pot."""
    wild = view.hand[TWO] + view.hand[JOKER]
    opened = any(team.opened for team in view.teams[1:])
    return view.pot_size >= 6 and not view.pot_wild and wild > 0 and opened


def test_styles_show_in_their_moves():
    # what each style is for, counted over a dozen classic 4-player hands with the bot
    # alone at the table: the hoarder keeps more cards in hand and plays longer hands than
    # the sprinter, which takes only small pots; the pile blocker discards a wild card to
    # freeze a big pot whenever it may, where the hoarder keeps its own
    stats = {}
    for name, bot in BOTS.items():
        agents = [Recorder(bot(seed=seat)) for seat in range(4)]
        records = play_hands(agents, 12, variant="classic", seed=40)
        moves = [(a, view) for agent in agents for a, view in zip(agent.actions, agent.views)]
        discards = [(MOVES[a].slot, view) for a, view in moves if MOVES[a].kind == MOVE_DISCARD]
        stats[name] = {
            "steps": float(np.mean([r.steps for r in records])),
            "hand_at_discard": float(np.mean([view.hand_size for _, view in discards])),
            "freezes": [kind in (TWO, JOKER) for kind, view in discards if may_freeze(view)],
            "pot_taken": float(
                np.mean([view.pot_size for a, view in moves if MOVES[a].kind == MOVE_TAKE])
            ),
        }
    assert stats["hoarder"]["steps"] > stats["sprinter"]["steps"]
    assert stats["hoarder"]["hand_at_discard"] > stats["sprinter"]["hand_at_discard"] + 0.5
    assert stats["sprinter"]["pot_taken"] < min(
        stats["hoarder"]["pot_taken"], stats["pile-blocker"]["pot_taken"]
    )
    assert len(stats["pile-blocker"]["freezes"]) >= 2 and all(stats["pile-blocker"]["freezes"])
    assert len(stats["hoarder"]["freezes"]) >= 5 and not any(stats["hoarder"]["freezes"])
    assert not any(stats["sprinter"]["freezes"])  # it lays its wild cards at once


def test_import_path_builds_a_seeded_bot():
    # the name the arena takes (docs/agents.md, "Outside agents")
    bot = make_agent("examples.docs_bots:Sprinter", seed=3)
    assert isinstance(bot, Sprinter) and bot.name == "sprinter"
