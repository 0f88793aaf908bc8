"""The vector faces: Gymnasium's (canasta_env/gym_vector.py), SB3's (canasta_env/sb3_vec.py),
and vector_env's self-play booking (canasta_env.vector.seat_credit)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils import env_checker
from gymnasium.vector import AutoresetMode

import canasta_env
import canasta_env.gym_env as gym_env
from agents.registry import make_agent
from canasta_env.engine import IllegalActionError
from canasta_env.gym_env import ENV_ID, CanastaGymEnv
from canasta_env.gym_vector import CanastaVectorEnv
from canasta_env.vector import seat_credit

OBS_SIZE, NUM_ACTIONS = canasta_env.OBS_SIZE, canasta_env.NUM_ACTIONS


@pytest.fixture(autouse=True)
def names(monkeypatch):
    """Agent names resolved by agents.registry whatever the installed metadata declares."""
    monkeypatch.setattr(gym_env, "agent_name_resolver", lambda: make_agent)


def _sample(rng: np.random.Generator, masks: np.ndarray) -> np.ndarray:
    """One uniform legal id per row."""
    return np.argmax((rng.random(masks.shape) + 1.0) * masks, axis=1)


def _trace(venv, seed: int, steps: int, actions_seed: int = 0) -> list:
    """Everything the face returned over ``steps`` random masked steps."""
    rng = np.random.default_rng(actions_seed)
    obs, info = venv.reset(seed=seed)
    trace = [(obs, info)]
    for _ in range(steps):
        obs, *rest = venv.step(_sample(rng, obs["action_mask"]))
        trace.append((obs, *rest))
    return trace


# ------------------------------------------------------------------ shapes and spaces
@pytest.mark.parametrize("backend", ["core", "python"])
def test_shapes_dtypes_spaces_and_masks(backend):
    if backend == "core" and not canasta_env.core.AVAILABLE:
        pytest.skip("the compiled core is not built")
    venv = CanastaVectorEnv(5, num_players=4, opponents="greedy", backend=backend)
    assert venv.metadata["autoreset_mode"] is AutoresetMode.SAME_STEP
    assert venv.single_action_space == gym.spaces.Discrete(NUM_ACTIONS)
    assert venv.action_space == gym.spaces.MultiDiscrete([NUM_ACTIONS] * 5)
    assert venv.single_observation_space == CanastaGymEnv().observation_space
    obs, info = venv.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        assert obs["observation"].shape == (5, OBS_SIZE) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (5, NUM_ACTIONS) and obs["action_mask"].dtype == np.int8
        assert venv.observation_space.contains(obs)
        masks = venv.action_masks()
        assert masks.dtype == bool and masks.shape == (5, NUM_ACTIONS)
        assert np.array_equal(masks, obs["action_mask"].astype(bool))
        assert masks.any(axis=1).all()  # SAME_STEP: every row is a decision to take
        assert info["seat"].shape == (5,) and info["_seat"].all()
        obs, rewards, terminated, truncated, info = venv.step(_sample(rng, obs["action_mask"]))
        assert rewards.shape == (5,) and rewards.dtype == np.float64
        assert terminated.dtype == bool and truncated.dtype == bool
        assert terminated.shape == truncated.shape == (5,)
    venv.close()
    assert venv.closed


def test_a_masked_action_is_always_legal():
    venv = CanastaVectorEnv(4, num_players=2, opponents="expert", illegal_action="raise")
    trace = _trace(venv, 0, 150)  # raise: any illegal id would stop it
    ends = sum(int(step[2].sum()) for step in trace[1:])
    assert ends >= 1
    for step in trace[1:]:
        if "final_info" in step[4]:
            assert "illegal_action" not in step[4]["final_info"]


# ------------------------------------------------------------------ the single env's rewards
CONFIGS = [
    dict(num_players=2, opponents="expert"),
    dict(num_players=4),  # random opponents from each table's generator; the team learner
    dict(num_players=4, learner="seat", opponents=["greedy", "random", "expert"]),
    dict(num_players=2, episode="game", reward="win", target_score=1500, opponents="greedy"),
    dict(num_players=2, max_cycles=30, opponents="greedy"),
]


def _single_rewards(kwargs: dict, seed: int, num_envs: int, actions: list[np.ndarray]):
    """N single envs, env ``k`` reset with ``seed + k``, reset again (unseeded) at an end."""
    envs = [CanastaGymEnv(**kwargs) for _ in range(num_envs)]
    for k, env in enumerate(envs):
        env.reset(seed=seed + k)
    rewards = []
    for step_actions in actions:
        row = []
        for k, env in enumerate(envs):
            _, reward, terminated, truncated, _ = env.step(int(step_actions[k]))
            row.append((reward, terminated, truncated))
            if terminated or truncated:
                env.reset()
        rewards.append(row)
    return rewards


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda kwargs: "-".join(map(str, kwargs.values())))
def test_rewards_are_those_of_single_envs_stepped_alone(kwargs):
    venv = CanastaVectorEnv(3, **kwargs)
    rng = np.random.default_rng(1)
    obs, _ = venv.reset(seed=20)
    actions, got = [], []
    for _ in range(250):
        step_actions = _sample(rng, obs["action_mask"])
        actions.append(step_actions)
        obs, rewards, terminated, truncated, _ = venv.step(step_actions)
        got.append(list(zip(rewards.tolist(), terminated.tolist(), truncated.tolist())))
    assert got == _single_rewards(kwargs, 20, 3, actions)
    assert any(te or tr for row in got for _, te, tr in row)  # episodes ended in the run
    # positive control: another seed plays other hands under the same actions
    other = CanastaVectorEnv(3, **kwargs)
    other.reset(seed=21)
    different = []
    for step_actions in actions:
        masks = other.action_masks()
        legal = masks[np.arange(3), step_actions]
        step_actions = np.where(legal, step_actions, _sample(rng, masks))
        _, rewards, terminated, truncated, _ = other.step(step_actions)
        different.append(list(zip(rewards.tolist(), terminated.tolist(), truncated.tolist())))
    assert different != got


def test_the_python_engine_gives_the_cores_steps():
    if not canasta_env.core.AVAILABLE:
        pytest.skip("the compiled core is not built")
    kwargs = dict(num_players=2, opponents="expert")
    core = _trace(CanastaVectorEnv(3, backend="core", **kwargs), 4, 120)
    python = _trace(CanastaVectorEnv(3, backend="python", **kwargs), 4, 120)
    assert env_checker.data_equivalence(core, python, exact=True)


# ------------------------------------------------------------------ autoreset and infos
def test_same_step_autoreset_gives_the_final_observation_and_the_hands_result():
    venv = CanastaVectorEnv(4, num_players=2, opponents="expert")
    rng = np.random.default_rng(2)
    obs, info = venv.reset(seed=9)
    seeds = info["deal_seed"].copy()
    assert list(seeds) == [9, 10, 11, 12]
    ends = 0
    for _ in range(200):
        obs, rewards, terminated, truncated, info = venv.step(_sample(rng, obs["action_mask"]))
        assert not truncated.any()
        if not terminated.any():
            assert "final_obs" not in info
            continue
        final, final_info = info["final_obs"], info["final_info"]
        assert np.array_equal(info["_final_obs"], terminated)
        for k in np.flatnonzero(terminated):
            ends += 1
            assert final[k]["observation"].shape == (OBS_SIZE,)
            assert not final[k]["action_mask"].any()  # the ended episode: nothing to do
            assert obs["action_mask"][k].any()  # the new episode's first decision
            assert info["deal_seed"][k] != seeds[k]  # dealt again, seed drawn
            assert final_info["_outcome"][k] and final_info["outcome"][k] in (-1, 0, 1)
            assert rewards[k] == final_info["margin"][k] / 1000.0  # reward="score"
            points = final_info["points"][k]
            assert final_info["margin"][k] == points[0] - points[1] or (
                final_info["margin"][k] == points[1] - points[0]
            )
            assert final_info["seat"][k] in (0, 1)  # the learner seat that acted last
        for k in np.flatnonzero(~terminated):
            assert final[k] is None
        seeds = info["deal_seed"].copy()
    assert ends >= 3


def test_hands_within_a_game_report_at_the_top_level():
    venv = CanastaVectorEnv(2, num_players=2, episode="game", target_score=2000)
    rng = np.random.default_rng(0)
    obs, _ = venv.reset(seed=1)
    top = 0
    for _ in range(300):
        obs, rewards, terminated, _, info = venv.step(_sample(rng, obs["action_mask"]))
        if "outcome" in info:
            hands = info["_outcome"] & ~terminated
            top += int(hands.sum())
            assert (rewards[hands] == info["margin"][hands] / 1000.0).all()
    assert top >= 1


def test_illegal_action_terminates_with_the_illegal_reward_or_raises():
    venv = CanastaVectorEnv(2, num_players=2)
    obs, _ = venv.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    legal = int(np.flatnonzero(obs["action_mask"][0])[0])
    _, rewards, terminated, _, info = venv.step(np.array([legal, illegal]))
    assert terminated[1] and rewards[1] == -1.0
    assert info["final_info"]["illegal_action"][1] == illegal
    strict = CanastaVectorEnv(2, num_players=2, illegal_action="raise")
    obs, _ = strict.reset(seed=0)
    with pytest.raises(IllegalActionError, match="table 1: illegal action"):
        strict.step(np.array([legal, illegal]))
    assert np.array_equal(strict.reset(seed=0)[0]["observation"], obs["observation"])
    with pytest.raises(IllegalActionError, match="outside"):
        venv.step(np.array([legal, NUM_ACTIONS]))
    with pytest.raises(IllegalActionError, match="2 integer ids"):
        venv.step(np.array([0.0, 1.0]))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(num_envs=0), "num_envs"),
        (dict(reward="points"), "reward"),
        (dict(learner="all"), "learner"),
        (dict(backend="gpu"), "backend"),
        (dict(render_mode="human"), "render_mode"),
        (dict(opponents=["expert", "expert"]), "opponents"),
        (dict(target_scor=5), "target_score"),
    ],
)
def test_bad_arguments_raise_naming_them(kwargs, message):
    kwargs = {"num_envs": 2, "num_players": 2, **kwargs}
    with pytest.raises(ValueError, match=message):
        CanastaVectorEnv(**kwargs)


# ------------------------------------------------------------------ Gymnasium's checks
def test_make_vec_builds_the_face_from_the_registered_vector_entry_point():
    envs = gym.make_vec(
        ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", opponents="expert"
    )
    assert isinstance(envs.unwrapped, CanastaVectorEnv) and envs.num_envs == 3
    assert envs.spec.id == ENV_ID and envs.spec.kwargs["opponents"] == "expert"
    obs, info = envs.reset(seed=0)
    assert obs["observation"].shape == (3, OBS_SIZE)
    stats = gym.wrappers.vector.RecordEpisodeStatistics(envs)  # reads the SAME_STEP mode
    stats.reset(seed=0)
    rng = np.random.default_rng(0)
    returns, total = [], np.zeros(3)
    for _ in range(150):
        _, rewards, terminated, _, info = stats.step(_sample(rng, stats.unwrapped.action_masks()))
        total += rewards
        if "episode" in info:
            for k in np.flatnonzero(info["_episode"]):
                returns.append((info["episode"]["r"][k], total[k]))
                total[k] = 0.0
    assert returns and all(np.isclose(r, t) for r, t in returns)


@pytest.mark.parametrize("num_envs", [1, 3])
def test_gymnasiums_reset_checks_pass(num_envs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for check in (
            env_checker.check_reset_seed_determinism,
            env_checker.check_reset_options,
            env_checker.check_reset_return_type,
            env_checker.check_reset_return_info_deprecation,
        ):
            check(CanastaVectorEnv(num_envs, num_players=2))
            if canasta_env.core.AVAILABLE:  # the fast path, opponents inside the batch
                check(CanastaVectorEnv(num_envs, num_players=2, opponents="expert", batched=True))
        # gymnasium 1.2 (the scale extra's pin) has no such check: ours does what it does
        not_reused = getattr(env_checker, "check_returned_data_not_reused", _data_not_reused)
        if num_envs == 1:  # gymnasium's reads terminated as one bool
            not_reused(CanastaVectorEnv(1, num_players=2))
            if canasta_env.core.AVAILABLE:
                not_reused(CanastaVectorEnv(1, num_players=2, opponents="expert", batched=True))


def _data_not_reused(env) -> None:
    """What gymnasium 1.4's ``check_returned_data_not_reused`` checks: the observations a
    reset and a step return are new arrays each time, untouched by the next call."""
    first, _ = env.reset(seed=0)
    kept = {key: value.copy() for key, value in first.items()}
    actions = np.array([int(np.flatnonzero(row)[0]) for row in env.action_masks()])
    second, *_ = env.step(actions)
    for key in kept:
        assert first[key] is not second[key]
        np.testing.assert_array_equal(first[key], kept[key])


def test_the_same_seed_and_actions_give_the_same_steps():
    kwargs = dict(num_players=4, opponents="expert")
    first = _trace(CanastaVectorEnv(3, **kwargs), 5, 80)
    again = _trace(CanastaVectorEnv(3, **kwargs), 5, 80)
    assert env_checker.data_equivalence(first, again, exact=True)
    other = _trace(CanastaVectorEnv(3, **kwargs), 6, 80)
    assert not env_checker.data_equivalence(first, other)


def test_an_unseeded_reset_goes_on_from_each_tables_generator():
    venv = CanastaVectorEnv(2, num_players=2)
    first = venv.reset(seed=3)[1]["deal_seed"].copy()
    second = venv.reset()[1]["deal_seed"].copy()
    single = CanastaGymEnv(num_players=2)
    single.reset(seed=4)
    assert second[1] == single.reset()[1]["deal_seed"]
    assert list(first) == [3, 4] and list(second) != list(first)


@pytest.mark.parametrize("backend", ["core", "python"])
def test_a_seed_of_any_size_deals_as_the_single_env_deals_it(backend):
    """Issue 44 (8): reset(seed=2**64) raised OverflowError after dealing the tables again."""
    if backend == "core" and not canasta_env.core.AVAILABLE:
        pytest.skip("the compiled core is not built")
    venv = CanastaVectorEnv(2, num_players=2, backend=backend)
    for seed in (2**63 - 2, 2**64, 2**200):  # the first fits int64: the control
        obs, info = venv.reset(seed=seed)
        assert list(info["deal_seed"]) == [seed, seed + 1]
        assert info["deal_seed"].dtype == (np.int64 if seed == 2**63 - 2 else object)
        single = CanastaGymEnv(num_players=2)
        single_obs, _ = single.reset(seed=seed + 1)
        np.testing.assert_array_equal(obs["observation"][1], single_obs["observation"])
        venv.step(_sample(np.random.default_rng(0), obs["action_mask"]))


@pytest.mark.parametrize("backend", ["core", "python"])
def test_final_infos_hold_a_seed_past_int64_beside_one_that_fits(backend):
    """A seed past int64 at a table whose episode ends in the same step as an earlier
    table's (whose seed fits) raised OverflowError while gathering the final infos."""
    if backend == "core" and not canasta_env.core.AVAILABLE:
        pytest.skip("the compiled core is not built")
    venv = CanastaVectorEnv(3, num_players=2, backend=backend)
    obs, _ = venv.reset(seed=[5, 2**64, 7])
    illegal = np.argmin(obs["action_mask"], axis=1)  # each table's first illegal id
    assert not obs["action_mask"][np.arange(3), illegal].any()
    _, _, terminated, _, info = venv.step(illegal)  # every episode ends, in one step
    assert terminated.all()
    final = info["final_info"]
    assert final["deal_seed"].dtype == object
    assert list(final["deal_seed"]) == [5, 2**64, 7] and final["_deal_seed"].all()
    assert list(final["illegal_action"]) == list(illegal)


def test_the_sb3_face_takes_a_seed_of_any_size():
    pytest.importorskip("stable_baselines3", reason="the SB3 face needs the 'train' extra")
    from canasta_env.sb3_vec import sb3_vec_env

    venv = sb3_vec_env(2, num_players=2)
    venv.seed(2**200)
    obs = venv.reset()
    single_obs, _ = CanastaGymEnv(num_players=2).reset(seed=2**200 + 1)
    np.testing.assert_array_equal(obs["observation"][1], single_obs["observation"])


# ------------------------------------------------------------------ SB3
def test_maskable_ppo_trains_on_the_sb3_vec_env():
    sb3_contrib = pytest.importorskip(
        "sb3_contrib", reason="sb3-contrib is not installed (the 'train' extra)"
    )
    from stable_baselines3.common.vec_env import VecEnv, VecMonitor

    from canasta_env.sb3_vec import sb3_vec_env

    venv = sb3_vec_env(num_envs=4, num_players=2, opponents="random")
    assert isinstance(venv, VecEnv)
    masks = venv.env_method("action_masks")
    assert len(masks) == 4  # before reset: the face's zero masks, one per table
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy",
        VecMonitor(venv),
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        seed=0,
        device="cpu",
    )
    model.learn(total_timesteps=256)
    assert model.num_timesteps >= 256
    obs = venv.reset()
    assert obs["observation"].shape == (4, OBS_SIZE)
    rng = np.random.default_rng(0)
    done_infos = []
    for _ in range(100):
        obs, rewards, dones, infos = venv.step(_sample(rng, venv.action_masks()))
        assert rewards.dtype == np.float32 and dones.shape == (4,)
        done_infos += [infos[k] for k in np.flatnonzero(dones)]
    assert done_infos
    for info in done_infos:
        assert info["terminal_observation"]["observation"].shape == (OBS_SIZE,)
        assert info["outcome"] in (-1, 0, 1) and not info["TimeLimit.truncated"]
    venv.close()


# ------------------------------------------------------------------ vector_env: seat_credit
def test_seat_credit_books_rewards_to_each_seats_decisions():
    # one table, two seats: 0 acts, 1 acts, 0 acts and ends the hand (+3 / -3), then 1 acts
    seats = np.array([[0], [1], [0], [1]])
    rewards = np.zeros((4, 1, 2), np.float32)
    rewards[2, 0] = [3.0, -3.0]
    dones = np.array([[False], [False], [True], [False]])
    credit, next_decision, seat_done = seat_credit(seats, rewards, dones)
    assert credit[:, 0].tolist() == [0.0, -3.0, 3.0, 0.0]
    assert next_decision[:, 0].tolist() == [2, -1, -1, -1]
    assert seat_done[:, 0].tolist() == [False, True, True, False]  # the last: cut by the rollout


def test_seat_credit_sums_to_each_seats_episode_return_on_a_rollout():
    venv = canasta_env.vector_env(num_players=4, num_envs=8, seed=0)
    obs, mask, seat = venv.reset()
    rng = np.random.default_rng(0)
    seats, rewards, dones = [], [], []
    for _ in range(600):
        seats.append(seat.copy())
        obs, mask, seat, step_rewards, done = venv.step(_sample(rng, mask))
        rewards.append(step_rewards.copy())
        dones.append(done.copy())
    seats, rewards, dones = np.array(seats), np.array(rewards), np.array(dones)
    credit, next_decision, seat_done = seat_credit(seats, rewards, dones)
    assert dones.sum() >= 8
    for k in range(8):
        start = 0
        for end in np.flatnonzero(dones[:, k]):
            for s in range(4):
                mine = seats[start : end + 1, k] == s
                booked = credit[start : end + 1, k][mine].sum()
                assert np.isclose(booked, rewards[start : end + 1, k, s].sum())
                last = start + np.flatnonzero(mine)[-1]
                assert seat_done[last, k] and next_decision[last, k] == -1
                assert seat_done[start : end + 1, k][mine].sum() == 1
            start = end + 1
    acted = np.flatnonzero(next_decision[:, 0] >= 0)
    assert (seats[next_decision[acted, 0], 0] == seats[acted, 0]).all()


# ------------------------------------------------------------------ the fast path
BATCHED_CONFIGS = [
    dict(num_players=2, opponents="expert"),
    dict(num_players=2, opponents="styled", seat=1),
    dict(num_players=2, opponents="random", illegal_action="terminate"),
    dict(num_players=4, opponents="greedy"),  # the team learner: both partners act
    dict(num_players=4, learner="seat", opponents=["expert", "style:racer", "random"]),
    dict(num_players=2, episode="game", reward="win", target_score=1500, opponents="expert"),
    dict(num_players=2, episode="game", opponents="style:melder", target_score=2000),
    dict(num_players=3, opponents="expert", variant="classic"),
    dict(num_players=2, opponents="expert", take_naturals_frozen=3),  # a house rule
]


def _same(a, b, where: str = "") -> None:
    """``a`` and ``b`` equal to the bit, down through dicts, lists and object arrays."""
    assert type(a) is type(b), where
    if isinstance(a, dict):
        assert list(a) == list(b), where
        for key in a:
            _same(a[key], b[key], f"{where}/{key}")
    elif isinstance(a, np.ndarray):
        assert (a.dtype, a.shape) == (b.dtype, b.shape), where
        if a.dtype == object:
            for x, y in zip(a, b):
                _same(x, y, f"{where}[]")
        else:
            assert np.array_equal(a, b), where
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), where
        for x, y in zip(a, b):
            _same(x, y, f"{where}[]")
    else:
        assert a == b, where


def _lockstep(fast, slow, seed: int, steps: int, illegal_every: int = 0) -> int:
    """Step both with the same actions, checking every return; the episodes ended."""
    rng = np.random.default_rng(seed)
    obs, info = fast.reset(seed=seed)
    _same((obs, info), slow.reset(seed=seed), "reset")
    ended = 0
    for t in range(steps):
        actions = _sample(rng, obs["action_mask"])
        if illegal_every and t % illegal_every == 1:  # an illegal id at one table
            k = t % fast.num_envs
            actions[k] = int(np.flatnonzero(obs["action_mask"][k] == 0)[0])
        got = fast.step(actions)
        _same(got, slow.step(actions), f"step {t}")
        obs = got[0]
        ended += int((got[2] | got[3]).sum())
    return ended


@pytest.mark.parametrize(
    "kwargs", BATCHED_CONFIGS, ids=lambda kwargs: "-".join(map(str, kwargs.values()))
)
def test_the_fast_path_gives_the_table_play_paths_steps(kwargs):
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    fast = CanastaVectorEnv(4, batched=True, **kwargs)
    slow = CanastaVectorEnv(4, batched=False, **kwargs)
    assert fast.batched and not slow.batched
    illegal_every = 29 if kwargs.get("illegal_action") else 0
    assert _lockstep(fast, slow, 7, 160, illegal_every) > 0  # episodes ended and were dealt


def test_the_fast_path_is_told_apart_from_other_opponents_and_seeds():
    """Positive controls: the lock-step check fails for another seed or other opponents."""
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    fast = CanastaVectorEnv(4, num_players=2, opponents="expert", batched=True)
    with pytest.raises(AssertionError):
        _lockstep(
            fast, CanastaVectorEnv(4, num_players=2, opponents="greedy", batched=False), 7, 60
        )
    fast.reset(seed=8)
    slow = CanastaVectorEnv(4, num_players=2, opponents="expert", batched=False)
    with pytest.raises(AssertionError):
        _same(fast.reset(seed=8), slow.reset(seed=9))


def test_the_fast_path_is_taken_where_it_can_run():
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    assert CanastaVectorEnv(2, opponents="expert").batched
    assert CanastaVectorEnv(2, opponents=make_agent("styled", seed=1)).batched  # an agent object
    assert not CanastaVectorEnv(2, opponents="expert", backend="python").batched
    assert not CanastaVectorEnv(2, opponents="expert", max_cycles=30).batched
    assert not CanastaVectorEnv(2).batched  # the default opponent draws from numpy
    expert = make_agent("expert")
    expert.use_core = False
    assert not CanastaVectorEnv(2, opponents=expert).batched
    with pytest.raises(ValueError, match="batched=True: no batched path with max_cycles"):
        CanastaVectorEnv(2, opponents="expert", max_cycles=30, batched=True)


# The fast path's booking of other reward and episode modes, and of an illegal action raised.
MORE_BATCHED_CONFIGS = [
    dict(num_players=2, reward="win", opponents="expert"),  # "win" per hand
    dict(num_players=4, episode="game", reward="win", target_score=1500, opponents="greedy"),
    dict(num_players=3, episode="game", reward_scale=250.0, target_score=1500, opponents="expert"),
]


@pytest.mark.parametrize(
    "kwargs", MORE_BATCHED_CONFIGS, ids=lambda kwargs: "-".join(map(str, kwargs.values()))
)
def test_the_fast_path_books_every_reward_and_episode_mode_as_the_table_play_path(kwargs):
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    fast = CanastaVectorEnv(4, batched=True, **kwargs)
    slow = CanastaVectorEnv(4, batched=False, **kwargs)
    assert _lockstep(fast, slow, 11, 160) > 0


def test_the_fast_path_raises_an_illegal_action_as_the_table_play_path():
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    errors = []
    for batched in (True, False):
        venv = CanastaVectorEnv(2, opponents="expert", illegal_action="raise", batched=batched)
        obs, _ = venv.reset(seed=3)
        actions = np.argmax(obs["action_mask"], axis=1)
        actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
        with pytest.raises(IllegalActionError, match="table 1: illegal action") as error:
            venv.step(actions)
        errors.append(str(error.value))
    assert errors[0] == errors[1]


def test_a_batch_tables_hand_end_rows_are_its_games_end_of_hand():
    """_core.Batch's hand-end rows, which the fast path books from, against the state."""
    if not canasta_env.core.AVAILABLE:
        pytest.skip(canasta_env.core.WHY_NOT)
    from canasta_env.engine.scoring import SHEET_ROWS

    keys = [key for key, _ in SHEET_ROWS] + ["canastas"]
    venv = CanastaVectorEnv(
        8, num_players=3, episode="game", target_score=1500, opponents="expert", batched=True
    )
    batch = venv.tables.engine.batch
    rng = np.random.default_rng(5)
    obs, _ = venv.reset(seed=5)
    checked = games_over = 0
    for _ in range(200):
        mask = obs["action_mask"]
        actions = _sample(rng, mask)
        batch.step_learner(actions.astype(np.int64), np.ones(8, bool))
        for k in np.flatnonzero(batch.hand_over).tolist():
            state = batch.game(k).get_state()
            sheets = [[sheet[key] for key in keys] for sheet in state["hand_scores"]]
            assert batch.hand_sheets[k].tolist() == sheets
            assert batch.game_scores[k].tolist() == state["scores"]
            assert canasta_env.engine.state.END_REASONS[batch.end_reason[k]] == state["end_reason"]
            assert bool(batch.game_over[k]) == state["game_over"]
            winner = state["winner_team"]
            assert batch.winner_team[k] == (-1 if winner is None else winner)
            checked += 1
            games_over += state["game_over"]
        ended = np.flatnonzero(batch.hand_over).tolist()
        venv._reset_tables(ended, [None] * len(ended))
        obs = {"action_mask": batch.mask.copy()}
    assert checked > 0 and games_over > 0
