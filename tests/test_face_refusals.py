"""A refused call changes nothing, and an episode an opponent broke is not played on: the
single-agent Gymnasium env, the vector face, the SB3 face and the OpenSpiel deal
(found from outside, 2026-11-30); a table pickles as its saved state on either engine."""

from __future__ import annotations

import pickle

import gymnasium as gym
import numpy as np
import pytest

import canasta_env
from canasta_env import core
from canasta_env.engine import IllegalActionError
from canasta_env.gym_env import ENV_ID
from canasta_env.gym_vector import CanastaVectorEnv

BACKENDS = ["python", "core"] if core.AVAILABLE else ["python"]


def _gym_episode(env, first_obs) -> list:
    """The learner's highest legal id at every step to the end: observations, rewards,
    infos."""
    trace, obs, done = [], first_obs, False
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        obs, reward, terminated, truncated, info = env.step(action)
        trace.append((obs["observation"].tobytes(), reward, sorted(info.items(), key=str)))
        done = terminated or truncated
    return trace


@pytest.mark.parametrize(
    "bad",
    [
        {"seed": True},
        {"seed": 2.0},
        {"seed": "7"},  # the AEC env takes strings; Gymnasium's generator does not
        {"options": "x"},
        {"seed": 5, "options": {"deck": "not a deck"}},
        {"options": {"state": "{}"}},
    ],
)
def test_a_refused_gym_reset_leaves_the_episode_as_it_was(bad):
    def fresh():
        env = gym.make(ENV_ID, num_players=2).unwrapped
        return env, env.reset(seed=1)[0]

    control, obs = fresh()
    expected = _gym_episode(control, obs)
    env, obs = fresh()
    with pytest.raises(ValueError):
        env.reset(**bad)
    assert (env.seat, env.deal_seed) == (control.seat, 1)
    assert _gym_episode(env, obs) == expected
    # positive control: a reset that is taken does change the episode
    env, _ = fresh()
    assert _gym_episode(env, env.reset(seed=4)[0]) != expected


def test_a_numpy_integer_seeds_the_gym_env_as_an_int():
    env = gym.make(ENV_ID, num_players=2).unwrapped
    a = env.reset(seed=np.int64(3))
    b = env.reset(seed=3)
    assert a[1] == b[1] and (a[0]["observation"] == b[0]["observation"]).all()


def test_editing_the_returned_mask_does_not_change_what_the_gym_env_allows():
    env = gym.make(ENV_ID, num_players=2).unwrapped
    obs, _ = env.reset(seed=0)
    legal = int(np.flatnonzero(obs["action_mask"])[0])
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs["action_mask"][:] = 0  # the caller's dict; the env judges by its own mask
    assert env.action_masks()[legal] and not env.action_masks()[illegal]
    _, reward, terminated, _, info = env.step(legal)
    assert "illegal_action" not in info and not (terminated and reward == -1.0)
    obs = env.step(int(np.flatnonzero(env.action_masks())[0]))[0] if not terminated else obs
    obs["action_mask"][:] = 1
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (
        terminated and info["illegal_action"] == illegal and isinstance(info["illegal_action"], int)
    )


class _IllegalOnce:
    """An opponent that plays its lowest legal id, but an illegal one at its ``n``-th
    decision."""

    def __init__(self, n: int):
        self.n, self.calls = n, 0

    def __call__(self, observation, action_mask) -> int:
        self.calls += 1
        wanted = action_mask == 0 if self.calls == self.n else action_mask
        return int(np.flatnonzero(wanted)[0])


def test_an_opponents_illegal_action_stops_the_gym_env_until_reset():
    env = gym.make(ENV_ID, num_players=2, opponents=_IllegalOnce(3)).unwrapped
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="the opponent at seat"):
        for _ in range(50):
            env.step(int(np.flatnonzero(env.action_masks())[-1]))
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    obs, _ = env.reset(seed=0)  # a new episode plays
    assert env.step(int(np.flatnonzero(obs["action_mask"])[-1]))


def _vector_return(env: CanastaVectorEnv) -> tuple:
    """Table 0's first episode to its end with the tables' highest legal ids: its return,
    outcome and deal seed."""
    total = 0.0
    while True:
        actions = [int(np.flatnonzero(m)[-1]) for m in env.action_masks()]
        _, rewards, terminated, truncated, info = env.step(actions)
        total += float(rewards[0])
        if terminated[0] or truncated[0]:
            final = info["final_info"]
            return total, int(final["outcome"][0]), int(final["deal_seed"][0])


@pytest.mark.parametrize("opponents", ["random", "expert"])
@pytest.mark.parametrize(
    "bad", [[6, -7], [6, 7.0], [6, None, 8], "ab", 1.5, True, np.zeros((2, 1))]
)
def test_a_refused_vector_reset_leaves_every_table_as_it_was(opponents, bad):
    def fresh():
        env = CanastaVectorEnv(num_envs=2, num_players=2, opponents=opponents)
        env.reset(seed=[0, 1])
        return env

    expected = _vector_return(fresh())
    env = fresh()
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=bad)
    assert _vector_return(env) == expected
    env = fresh()
    env.reset(seed=[6, 7])  # positive control: a seed list that is taken deals anew
    assert _vector_return(env) != expected


def test_the_vector_face_takes_numpy_integers_and_arrays_as_seeds():
    env = CanastaVectorEnv(num_envs=3, num_players=2, opponents="expert")
    by_list = env.reset(seed=[4, 5, 6])[1]["deal_seed"]
    assert (env.reset(seed=np.arange(4, 7))[1]["deal_seed"] == by_list).all()
    assert (env.reset(seed=[np.int64(4), np.uint8(5), 6])[1]["deal_seed"] == by_list).all()
    assert (env.reset(seed=np.int32(4))[1]["deal_seed"] == by_list).all()


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_opponents_illegal_action_stops_the_vector_face_without_naming_its_cards(backend):
    env = CanastaVectorEnv(num_envs=1, num_players=2, opponents=_IllegalOnce(3), backend=backend)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError) as caught:
        for _ in range(50):
            env.step([int(np.flatnonzero(env.action_masks()[0])[-1])])
    message = str(caught.value)
    assert "the opponent" in message and "at seat" in message and "call reset" in message
    # positive control: the engine's reason, kept on the error, does describe that seat's cards
    assert "you hold" in str(caught.value.reason) and "you hold" not in message
    with pytest.raises(RuntimeError, match="call reset"):
        env.step([0])
    env.reset(seed=0)
    env.step([int(np.flatnonzero(env.action_masks()[0])[-1])])


def test_a_closed_vector_face_says_so():
    env = CanastaVectorEnv(num_envs=2, num_players=2)
    env.reset(seed=0)
    env.close()
    for call in (lambda: env.step([0, 0]), lambda: env.reset(seed=0), env.action_masks):
        with pytest.raises(RuntimeError, match="closed"):
            call()


def test_the_sb3_face_refuses_reset_options_at_once_and_keeps_no_bad_seed():
    pytest.importorskip("stable_baselines3")
    from canasta_env.sb3_vec import sb3_vec_env

    venv = sb3_vec_env(num_envs=2, num_players=2, opponents="expert")
    with pytest.raises(ValueError, match="no reset options"):
        venv.set_options({"deck": "AS"})
    venv.reset()  # nothing kept: the next reset is taken
    venv.seed(np.int64(5))
    venv.reset()
    assert venv.face._info()["deal_seed"].tolist() == [5, 6]
    venv.seed(-3)
    with pytest.raises(ValueError, match="seed"):
        venv.reset()
    venv.reset()  # the refused seed is not kept either


@pytest.mark.parametrize("outcome", [-2, 15, 499])  # -1: pyspiel refuses it itself
def test_openspiel_refuses_a_deal_outcome_outside_the_kinds(outcome):
    pytest.importorskip("pyspiel")
    import pyspiel

    import canasta_env.openspiel  # noqa: F401 (registers the game)

    state = pyspiel.load_game("python_canasta").new_initial_state()
    with pytest.raises(ValueError, match="0..14"):
        state.apply_action(outcome)
    assert state.history() == []
    state.apply_action(3)  # positive control: a kind is dealt
    assert state.history() == [3]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_pickled_env_plays_on_as_the_original(backend):
    env = canasta_env.env(num_players=4, backend=backend)
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.table.backend == backend
    steps = 0
    while not all(env.terminations.values()) and steps < 2000:
        agent = env.agent_selection
        mine, theirs = env.observe(agent), copy.observe(agent)
        assert (mine["observation"] == theirs["observation"]).all()
        assert (mine["action_mask"] == theirs["action_mask"]).all()
        action = int(rng.choice(np.flatnonzero(mine["action_mask"])))
        env.step(action)
        copy.step(action)
        assert env.rewards == copy.rewards
        steps += 1
    assert all(copy.terminations.values())


@pytest.mark.parametrize("opponent", ["expert", "greedy", "style:racer"])
def test_a_copied_gym_env_with_house_bots_plays_on_as_the_original(opponent):
    """A house bot's C++ twin is left out of a copy (the single env plays the bots' Python
    moves); the copy and a pickle play the rest of the episode as the original."""
    import copy

    env = gym.make(ENV_ID, num_players=2, opponents=opponent).unwrapped
    obs, _ = env.reset(seed=0)
    for _ in range(5):
        obs = env.step(int(np.flatnonzero(obs["action_mask"])[-1]))[0]
    copies = [copy.deepcopy(env), pickle.loads(pickle.dumps(env))]
    done = False
    while not done:
        action = int(np.flatnonzero(obs["action_mask"])[-1])
        steps = [e.step(action) for e in (env, *copies)]
        for other in steps[1:]:
            assert (other[0]["observation"] == steps[0][0]["observation"]).all()
            assert other[1:4] == steps[0][1:4]
        obs, done = steps[0][0], steps[0][2] or steps[0][3]


@pytest.mark.skipif(not core.AVAILABLE, reason="the compiled core is not built")
def test_a_bot_whose_twin_played_this_hand_is_not_copied():
    from agents.registry import make_agent
    from canasta_env.rules import make_rules
    from canasta_env.table import Table

    table = Table(make_rules("classic"), 2, seed=1, backend="core")
    bots = [make_agent("expert"), make_agent("expert")]
    for seat, bot in enumerate(bots):
        bot.reset(seat, 2, table.rules)
    pickle.dumps(bots[0])  # control: a twin that has not acted is left out
    table.play(bots, until=lambda t: t.engine.num_steps > 10)
    with pytest.raises(TypeError, match="playing this hand in the compiled core"):
        pickle.dumps(bots[0])
