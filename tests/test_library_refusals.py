"""The library's objects refuse what they cannot take the same way on both engines (found
from outside, 2026-11-30): seats, reward settings, action ids that are no ids, saved
states the core cannot hold, replays their reader would refuse, agent names and seeds."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from agents.registry import make_agent, register_agent
from canasta_arena.arena import run_arena
from canasta_env import core
from canasta_env.batched_table import BatchedTable
from canasta_env.env import raw_env
from canasta_env.replay import Replay, record
from canasta_env.rules import make_rules
from canasta_env.state_io import state_from_dict, state_to_dict, state_to_json
from canasta_env.table import Table

BACKENDS = ["python", "core"] if core.AVAILABLE else ["python"]
RULES = make_rules("classic")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seat", [-1, -4, 4, 1.0, "0", True, None])
def test_a_seat_not_at_the_table_is_refused_on_both_engines(backend, seat):
    table = Table(RULES, 4, seed=1, backend=backend)
    with pytest.raises(ValueError, match="is not at the table"):
        table.observation(seat)
    with pytest.raises(ValueError, match="is not at the table"):
        table.view(seat)
    # positive control: seat 3 (what -1 read from the end of a list on the Python engine)
    assert table.observation(np.int64(3)).shape == table.observation(3).shape


@pytest.mark.parametrize("backend", BACKENDS)
def test_is_legal_says_no_to_what_step_refuses_as_no_id(backend):
    table = Table(RULES, 2, seed=1, backend=backend)
    legal = table.legal_actions()[0]
    for given in (float(legal), False, True, np.array([legal]), np.array(float(legal)), -1, 600):
        assert table.is_legal(given) is False, given
    assert table.is_legal(legal) and table.is_legal(np.int64(legal))
    assert table.is_legal(np.array(legal))  # a 0-d integer array is an id, as step takes it


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_numpy_player_count_saves_and_pickles(backend):
    table = Table(RULES, np.int64(2), seed=1, backend=backend)
    assert type(table.num_players) is int
    state_to_json(table.game)
    assert pickle.loads(pickle.dumps(table)).num_players == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pending_gaussian_in_a_saved_state_is_refused_by_both_engines(backend):
    data = state_to_dict(Table(RULES, 2, seed=1).game)
    data["rng"]["gauss_next"] = 0.25
    with pytest.raises(ValueError, match="gauss_next': expected null"):
        raw_env(num_players=2, backend=backend).reset(options={"state": data})
    data["rng"]["gauss_next"] = None  # positive control: the same state loads
    raw_env(num_players=2, backend=backend).reset(options={"state": data})
    assert state_from_dict(data).num_players == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_seat_rewards_refuse_an_unknown_mode(backend):
    table = Table(RULES, 2, seed=1, backend=backend)
    while not table.hand_over:
        table.step(table.legal_actions()[-1])
    with pytest.raises(ValueError, match="reward must be one of"):
        table.seat_rewards("Score")
    assert table.seat_rewards("win") != table.seat_rewards("score")  # control: both known


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("scale", [0.0, float("nan"), -1.0, 1e12])
def test_a_batched_table_refuses_a_reward_scale_on_both_engines(backend, scale):
    with pytest.raises(ValueError, match="reward_scale must be a number in 1e-3..1e9"):
        BatchedTable(RULES, 2, 4, reward_scale=scale, backend=backend)


def test_the_python_batch_refuses_what_the_cores_refuses():
    batch = BatchedTable(RULES, 2, 2, backend="python", auto_deal=False)
    with pytest.raises(RuntimeError, match="step before reset"):
        batch.step([0, 0])
    expert = make_agent("expert")
    with pytest.raises(ValueError, match="one bot and one seed per seat"):
        batch.deal([(0, 1, [None, expert], [0])])
    with pytest.raises(ValueError, match="table -1 is not in the batch"):
        batch.deal([(-1, 1, [None, expert], [0, 0])])
    with pytest.raises(ValueError, match="table -1 is not in the batch"):
        batch.hidden_counts(-1)
    batch.deal([(1, 1, [None, expert], [0, 0])])  # control: a whole deal is taken
    assert batch.hidden_counts(1).shape[0] == 4


@pytest.mark.parametrize("seed", [None, 1.5, True])
def test_record_refuses_a_seed_that_a_replay_file_cannot_hold(seed):
    with pytest.raises(ValueError, match="int or str seed"):
        record(RULES, 2, seed, [0])


def test_a_replay_with_numpy_ids_and_seed_saves_and_loads():
    replay = record(RULES, np.int64(2), np.int64(3), [np.int64(0)])
    assert Replay.from_json(replay.to_json()).flat_actions() == [0]


@pytest.mark.parametrize("actions", [[[600]], [[-1]], [[True]], [["0"]]])
def test_a_hand_made_replay_with_a_bad_id_is_not_written(actions):
    with pytest.raises(ValueError, match="is not an action id"):
        Replay(RULES, 2, 1, actions).to_json()


def test_agent_names_seeds_and_registrations_are_checked():
    with pytest.raises(ValueError, match="did you mean 'style:racer'"):
        make_agent("style:racr")
    with pytest.raises(ValueError, match="an agent name is text"):
        make_agent(None)
    for name, factory in (("my=bot", make_agent), ("nc", 5), ("", make_agent), ("a:b", print)):
        with pytest.raises(ValueError):
            register_agent(name, factory)
    register_agent("test-no-act", lambda seed=None: object())
    with pytest.raises(ValueError, match="no act"):
        make_agent("test-no-act")
    for name in ("random", "styled", "expert"):
        a, b = make_agent(name, seed=np.int64(3)), make_agent(name, seed=3)
        table = Table(RULES, 2, seed=5)
        a.reset(0, 2, RULES)
        b.reset(0, 2, RULES)
        assert a.act(table.observation(0), table.mask()) == b.act(
            table.observation(0), table.mask()
        )


@pytest.mark.parametrize(
    "agents, kwargs",
    [
        ("random", {}),
        ([1, 2], {}),
        (["random", "greedy"], {"hands": "2"}),
        (["random", "greedy"], {"hands": 1.5}),
        (["random", "greedy"], {"seed": "abc"}),
        (["random", "greedy"], {"jobs": "1"}),
    ],
)
def test_run_arena_checks_its_arguments(agents, kwargs):
    with pytest.raises(ValueError, match="must be"):
        run_arena(agents, "classic", 2, **kwargs)


def test_a_table_says_it_wants_a_rules_object():
    with pytest.raises(TypeError, match=r"make_rules\('classic'\)"):
        Table("classic", 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_batched_table_says_it_wants_a_rules_object(backend):
    with pytest.raises(TypeError, match=r"make_rules\('classic'\)"):
        BatchedTable("classic", 2, 2, backend=backend)


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_the_cores_python_faces_name_a_bad_argument():
    import random

    with pytest.raises(ValueError, match="name is text"):
        core.CoreBot(5)
    with pytest.raises(ValueError, match="rng must be a random.Random"):
        core.CoreBot("styled", rng=np.random.default_rng())
    with pytest.raises(TypeError, match="Rules object"):
        core.CoreBot("expert").reset(0, 2, "classic")
    game = core.CoreGame(RULES, 2, seed=1)
    with pytest.raises(ValueError, match="a CoreBot or None for each seat"):
        core.play_bots(game, ["x", None])
    bot = core.CoreBot("styled", rng=random.Random(3))  # control: the right arguments play
    bot.reset(0, 2, RULES)
    assert core.play_bots(game, [bot, None]) >= 0
