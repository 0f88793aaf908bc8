"""The one loop that plays a hand (``Table.play``, ``play_together``) and the one result
(:mod:`canasta_env.engine.outcome`), on both engines.

Positions are a stacked deck (tests.scenario) or seeded hands whose outcomes
tests/test_table.py reads off the engine; the result arithmetic is written out beside
each expectation.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest

from agents.base import RandomAgent
from canasta_env import core
from canasta_env.actions import str_to_action
from canasta_env.engine.game import IllegalActionError
from canasta_env.engine.outcome import Result
from canasta_env.engine.state import same_state, state_snapshot
from canasta_env.rules import make_rules
from canasta_env.table import RefusedAction, Table, play_together
from tests.scenario import stacked_deck

BACKENDS = ["python"] + (["core"] if core.AVAILABLE else [])
HANDS_2P = ["A A A K K K 7 7 4 5 6 8 9 T J", "Q Q Q J J 9 9 8 8 6 6 5 5 4 T"]


class Scripted:
    """Plays the actions of a list in turn (action strings)."""

    def __init__(self, moves: list[str], name: str = "scripted"):
        self.moves, self.name = [str_to_action(m) for m in moves], name

    def act(self, observation, action_mask) -> int:
        return self.moves.pop(0)


class FirstLegal:
    name = "first"

    def act(self, observation, action_mask) -> int:
        return int(np.flatnonzero(action_mask)[0])


# ---------------------------------------------------------------------- the result
def test_two_teams_margin_outcome_and_share():
    # 1815 - 400 = 1415 each way; the higher alone wins
    result = Result.of([1815, 400], [0, 1, 0, 1])
    assert result.margins == [1415.0, -1415.0]
    assert result.outcomes == [1, -1]
    assert [result.share(t) for t in range(2)] == [1.0, 0.0]
    assert result.seat_margins() == [1415.0, -1415.0, 1415.0, -1415.0]
    assert result.seat_outcomes() == [1, -1, 1, -1]


def test_a_tie_shares_the_win_and_three_teams_use_the_others_mean():
    # 500 - (500 + 100) / 2 = 200; 100 - (500 + 500) / 2 = -400
    result = Result.of([500, 500, 100], [0, 1, 2])
    assert result.winners == (0, 1)
    assert result.outcomes == [0, 0, -1]
    assert [result.share(t) for t in range(3)] == [0.5, 0.5, 0.0]
    assert result.margins == [200.0, 200.0, -400.0]


def test_a_declared_winner_beats_equal_points():
    # a game the rules gave to team 1 (e.g. the first past the target) with equal totals
    result = Result.of([5100, 5100], [0, 1], winner=1)
    assert result.winners == (1,) and result.outcomes == [-1, 1]


def test_by_agent_judges_an_agent_by_its_best_team():
    # A plays teams 0 and 2 (solo A B A): best 300 < B's 400; margins 200 - 400 and back
    winners, margins, best = Result.of([100, 400, 300], [0, 1, 2]).by_agent(["a", "b", "a"])
    assert winners == ["b"] and best == {"a": 300, "b": 400}
    assert margins == {"a": -200.0, "b": 200.0}


def test_no_hand_result_before_the_hand_ends():
    table = Table(make_rules("classic"), 2, seed=3)
    with pytest.raises(ValueError, match="no result before it ends"):
        table.result("hand")
    with pytest.raises(ValueError, match="scope must be one of"):
        table.result("set")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    ("variant", "players", "seed", "scores", "teams"),
    [
        ("classic", 2, 3, [1815, 400], [0, 1]),
        ("classic", 4, 7, [2465, 575], [0, 1, 0, 1]),
        ("spanish", 3, 1, [1205, 1645, 845], [0, 1, 2]),
    ],
)
def test_each_engine_gives_the_seeded_hands_result(backend, variant, players, seed, scores, teams):
    """The hands of tests/test_table.py, played by the same chooser on either engine."""
    table = Table(make_rules(variant), players, seed=seed, backend=backend)
    rng = random.Random(seed)
    while not table.hand_over:
        legal = table.legal_actions()
        table.step(legal[rng.randrange(len(legal))])
    result = table.result("hand")
    assert result == Result.of(scores, teams)
    assert table.game.result("hand") == result  # the Python engine's reading of the same state
    assert table.result("game") == Result.of(scores, teams)  # after the game's first hand
    assert table.seat_rewards("win") == [float(o) for o in result.seat_outcomes()]


# ---------------------------------------------------------------------- Table.play
@pytest.mark.parametrize("backend", BACKENDS)
def test_play_stops_at_a_seat_without_an_agent(backend):
    """Player 0 draws, melds three aces and discards; play stops for player 1."""
    deck = stacked_deck("classic", 2, HANDS_2P, then="7 4 K")
    table = Table(make_rules("classic"), 2, seed=0, deck=deck, backend=backend)
    seen = []
    played = table.play(
        {0: Scripted(["draw", "meld A A A", "discard J"])},
        on_decision=lambda seat, obs, mask, action: seen.append((seat, action, mask[action])),
    )
    assert played == 3 and table.current == 1
    assert seen == [
        (0, str_to_action("draw"), 1),
        (0, str_to_action("meld A A A"), 1),
        (0, str_to_action("discard J"), 1),
    ]


@pytest.mark.parametrize("backend", BACKENDS)
def test_play_until_stops_before_the_decision(backend):
    table = Table(make_rules("classic"), 2, seed=4, backend=backend)
    played = table.play([FirstLegal(), FirstLegal()], until=lambda t: t.engine.num_steps >= 5)
    assert played == 5 and not table.hand_over


@pytest.mark.parametrize("backend", BACKENDS)
def test_play_is_the_hand_a_manual_loop_plays(backend):
    rules = make_rules("classic")
    looped = Table(rules, 4, seed=11, backend=backend)
    agents = [RandomAgent(seed) for seed in range(4)]
    steps = 0
    while not looped.hand_over:
        seat = looped.current
        looped.step(agents[seat].act(looped.observation(seat), looped.mask()))
        steps += 1
    played = Table(rules, 4, seed=11, backend=backend)
    assert played.play([RandomAgent(seed) for seed in range(4)]) == steps
    assert same_state(played.game, looped.game)
    other = Table(rules, 4, seed=11, backend=backend)  # control: other agents, other hand
    other.play([RandomAgent(seed + 1) for seed in range(4)])
    assert not same_state(other.game, looped.game)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_refused_action_names_the_agent_and_changes_nothing(backend):
    deck = stacked_deck("classic", 2, HANDS_2P, then="7 4 K")
    table = Table(make_rules("classic"), 2, seed=0, deck=deck, backend=backend)
    before = state_snapshot(table.game)
    with pytest.raises(RefusedAction) as caught:
        table.play([Scripted(["meld A A A"], name="eager"), FirstLegal()])
    error = caught.value
    assert isinstance(error, IllegalActionError)
    assert str(error).startswith("agent 'eager' in seat 0 returned an illegal action: ")
    assert (error.label, error.seat, error.step) == ("eager", 0, 0)
    assert state_snapshot(table.game) == before
    again = pickle.loads(pickle.dumps(error))  # an arena worker sends it to its parent
    assert type(again) is RefusedAction and str(again) == str(error) and again.seat == 0


# ---------------------------------------------------------------------- play_together
@pytest.mark.parametrize("backend", BACKENDS)
def test_play_together_plays_each_hand_as_alone(backend):
    rules = make_rules("classic")
    tables = [Table(rules, 2, seed=seed, backend=backend) for seed in range(5)]
    ended = []
    rounds = play_together(
        tables,
        lambda live: [t.legal_actions()[0] for t in live],
        lambda index, table: ended.append(index),
    )
    assert sorted(ended) == list(range(5)) and len(ended) == 5
    lengths = []
    for seed, table in enumerate(tables):
        alone = Table(rules, 2, seed=seed, backend=backend)
        lengths.append(alone.play([FirstLegal(), FirstLegal()]))
        assert same_state(alone.game, table.game)
    assert rounds == max(lengths)


def test_play_together_stops_when_the_chooser_says_so():
    rules = make_rules("classic")
    tables = [Table(rules, 2, seed=seed) for seed in range(3)]
    calls = []

    def choose(live):
        calls.append(len(live))
        return None if len(calls) == 3 else [t.legal_actions()[0] for t in live]

    assert play_together(tables, choose) == 2
    assert calls == [3, 3, 3] and all(t.engine.num_steps == 2 for t in tables)
