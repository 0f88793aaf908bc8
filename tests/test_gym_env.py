"""The Gymnasium single-agent face ``canasta_env/Canasta-v0`` (canasta_env/gym_env.py)."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import canasta_env
import canasta_env.gym_env as gym_env
from agents.base import RandomAgent
from agents.registry import make_agent
from canasta_env import core
from canasta_env.engine import IllegalActionError
from canasta_env.gym_env import (
    AGENT_NAMES_GROUP,
    AUTORESET_ACTION,
    ENV_ID,
    CanastaGymEnv,
    SafeMask,
    valid_mask,
)

NUM_ACTIONS = canasta_env.NUM_ACTIONS
#: The "rgb_array" render needs canasta_env.image (the table renderer), merged separately.
HAS_IMAGE = importlib.util.find_spec("canasta_env.image") is not None


@pytest.fixture
def names(monkeypatch):
    """Agent names resolved by agents.registry, whether or not the installed metadata declares
    the entry point yet (the editable install predates it until reinstalled)."""
    monkeypatch.setattr(gym_env, "agent_name_resolver", lambda: make_agent)


def _quiet_check(env, **kwargs):
    """Gymnasium's checker passes without a warning about the spaces' bounds (it warned
    about the observation's ``Box(-inf, inf)`` twice before the layout declared ranges)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, **kwargs)
    bounds = [str(w.message) for w in caught if re.search("infinity|bound", str(w.message))]
    assert not bounds, bounds


def _masked(rng, mask) -> int:
    legal = np.flatnonzero(mask)
    return int(rng.choice(legal)) if len(legal) else 0


def _episode(env, seed, actions_rng=0):
    """Random masked actions; the observations, rewards and final info."""
    rng = np.random.default_rng(actions_rng)
    obs, info = env.reset(seed=seed)
    trace = [obs["observation"].copy()]
    rewards, done = [], False
    while not done:
        obs, reward, terminated, truncated, info = env.step(_masked(rng, obs["action_mask"]))
        trace.append(obs["observation"].copy())
        rewards.append(reward)
        done = terminated or truncated
    return trace, rewards, info


# ---------------------------------------------------------------------- registration
def test_registered_on_import_without_importing_the_face():
    code = (
        "import sys, gymnasium\n"
        f"assert {ENV_ID!r} not in gymnasium.registry\n"
        "import canasta_env\n"
        f"spec = gymnasium.spec({ENV_ID!r})\n"
        "assert spec.entry_point == 'canasta_env.gym_env:CanastaGymEnv', spec.entry_point\n"
        "assert 'canasta_env.gym_env' not in sys.modules\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in ('agents', 'training')]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_module_prefixed_id_makes_the_env_in_a_fresh_interpreter():
    code = (
        "import gymnasium\n"
        f"env = gymnasium.make('canasta_env:{ENV_ID}', variant='spanish', num_players=4)\n"
        "obs, info = env.reset(seed=3)\n"
        "assert obs['observation'].shape == (686,) and info['deal_seed'] == 3\n"
        "print(info['learner_seats'])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.strip() in ("[0, 2]", "[1, 3]")


def test_entry_point_declares_the_agent_registry():
    points = importlib.metadata.entry_points(group=AGENT_NAMES_GROUP)
    if not points:
        pytest.skip(
            f"the installed canasta-env metadata has no {AGENT_NAMES_GROUP!r} entry point yet "
            "(pip install -e . after pyproject.toml gained it)"
        )
    assert gym_env.agent_name_resolver() is make_agent


def test_names_without_a_resolver_raise_a_clear_error(monkeypatch):
    monkeypatch.setattr(gym_env, "entry_points", lambda group: [])
    gym_env.agent_name_resolver.cache_clear()  # read once a process: read it again here
    with pytest.raises(ValueError, match="pass an agent object.*or a callable"):
        CanastaGymEnv(opponents="expert")
    CanastaGymEnv(opponents=RandomAgent(0))  # objects and callables need no resolver


# ---------------------------------------------------------------------- checkers
@pytest.mark.parametrize(
    "num_players,learner", [(2, "team"), (4, "team"), (4, "seat"), (3, "team")]
)
def test_gymnasium_check_env(num_players, learner):
    env = CanastaGymEnv(num_players=num_players, learner=learner, render_mode="ansi")
    _quiet_check(env)
    assert env.observation_space["observation"].shape == (canasta_env.OBS_SIZE,)
    assert env.observation_space["action_mask"].dtype == np.int8
    assert env.action_space.n == NUM_ACTIONS


def test_make_with_the_passive_checker(names):
    env = gym.make(ENV_ID, variant="classic", num_players=2, opponents="expert")
    assert type(env.unwrapped) is CanastaGymEnv
    _quiet_check(env.unwrapped, skip_render_check=not HAS_IMAGE)  # checks every render mode
    trace, rewards, info = _episode(env, seed=4)
    assert "hand_scores" in info and len(info["hand_scores"]) == 2
    assert len(rewards) == len(trace) - 1 > 5


def test_stable_baselines3_check_env():
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=UserWarning)
        sb3_checker.check_env(CanastaGymEnv(num_players=4), warn=False)


def test_async_make_vec_steps_masked_random_actions():
    envs = gym.make_vec(
        ENV_ID,
        num_envs=2,
        vectorization_mode="async",
        variant="classic",
        num_players=2,
        opponents=RandomAgent(1),
    )
    try:
        obs, info = envs.reset(seed=[5, 6])
        assert obs["observation"].shape == (2, canasta_env.OBS_SIZE)
        assert list(info["deal_seed"]) == [5, 6]
        rng = np.random.default_rng(0)
        ends = 0
        for _ in range(120):
            actions = [_masked(rng, mask) for mask in obs["action_mask"]]
            obs, rewards, terminated, truncated, _ = envs.step(actions)
            ends += int(terminated.sum())
        assert ends >= 1  # random play ends a 2-player hand in well under 120 decisions
    finally:
        envs.close()


def _categorical(rng, masks) -> list[int]:
    """A masked sampler as a policy samples: softmax over logits with -inf off the mask; a
    row with no legal action gives NaN probabilities, and numpy refuses to sample them."""
    logits = np.where(masks.astype(bool), 0.0, -np.inf)
    with np.errstate(invalid="ignore"):
        probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
    return [int(rng.choice(len(row), p=row)) for row in probs]


def _sync_vector_env(wrap: bool) -> gym.vector.SyncVectorEnv:
    def make():
        env = CanastaGymEnv(variant="classic", num_players=2)
        return SafeMask(env) if wrap else env

    envs = gym.vector.SyncVectorEnv([make, make])
    assert envs.metadata["autoreset_mode"] == gym.vector.AutoresetMode.NEXT_STEP
    return envs


def _play_vector(envs, steps: int) -> list[tuple[int, np.ndarray]]:
    """Masked samples for ``steps`` steps; (sub-env, mask) of each row after an episode end."""
    rng = np.random.default_rng(0)
    obs, _ = envs.reset(seed=[3, 4])
    after_end = []
    for _ in range(steps):
        obs, _, terminated, truncated, _ = envs.step(_categorical(rng, obs["action_mask"]))
        after_end += [(i, obs["action_mask"][i].copy()) for i in np.flatnonzero(terminated)]
    return after_end


def test_the_autoreset_mask_crashes_a_masked_sampler_without_safe_mask():
    """Positive control: at an episode's end the vector env hands over an all-zero mask."""
    envs = _sync_vector_env(wrap=False)
    with pytest.raises(ValueError, match="NaN"):
        _play_vector(envs, 400)
    envs.close()


def test_safe_mask_lets_a_masked_sampler_through_autoresets():
    envs = _sync_vector_env(wrap=True)
    ends = _play_vector(envs, 400)
    envs.close()
    assert len(ends) >= 2  # random play ends a 2-player hand in well under 200 decisions
    for _, mask in ends:  # the row the autoreset step ignores: draw alone
        assert np.flatnonzero(mask).tolist() == [AUTORESET_ACTION]


def test_make_vec_takes_safe_mask_as_a_wrapper():
    envs = gym.make_vec(ENV_ID, num_envs=2, vectorization_mode="sync", wrappers=[SafeMask])
    obs, _ = envs.reset(seed=[1, 2])
    assert obs["action_mask"].any(axis=-1).all()
    envs.close()


def test_valid_mask_fixes_only_the_empty_rows():
    legal = np.zeros(NUM_ACTIONS, dtype=np.int8)
    legal[[6, 9]] = 1
    assert valid_mask(legal) is legal
    empty = np.zeros(NUM_ACTIONS, dtype=np.int8)
    assert np.flatnonzero(valid_mask(empty)).tolist() == [AUTORESET_ACTION]
    assert not empty.any()  # a copy: the env's array is not written
    batch = np.stack([legal, empty]).astype(bool)
    fixed = valid_mask(batch)
    assert fixed.dtype == bool
    assert np.array_equal(fixed[0], batch[0])
    assert np.flatnonzero(fixed[1]).tolist() == [AUTORESET_ACTION]


# ---------------------------------------------------------------------- behaviour
def test_same_seed_and_actions_give_the_same_episode(names):
    def make():
        return CanastaGymEnv(variant="spanish", num_players=4, opponents=["expert", "random"])

    a, b = _episode(make(), seed=9), _episode(make(), seed=9)
    assert len(a[0]) == len(b[0])
    for x, y in zip(a[0], b[0]):
        np.testing.assert_array_equal(x, y)
    assert a[1] == b[1] and a[2] == b[2]
    c = _episode(make(), seed=10)  # positive control: another seed, another episode
    assert len(c[0]) != len(a[0]) or any((x != y).any() for x, y in zip(a[0], c[0]))


def test_reset_deals_what_the_aec_env_deals():
    env = CanastaGymEnv(num_players=2, seat=0, opponents=RandomAgent(0))
    aec = canasta_env.env(variant="classic", num_players=2)
    for seed in range(6):
        obs, info = env.reset(seed=seed)
        aec.reset(seed=seed)
        if aec.game.current != 0:
            continue  # the opponent moved first in the face
        expected = aec.observe("player_0")
        np.testing.assert_array_equal(obs["observation"], expected["observation"])
        np.testing.assert_array_equal(obs["action_mask"], expected["action_mask"])
        assert info == {"seat": 0, "learner_seats": [0], "deal_seed": seed}


def test_team_learner_plays_both_partners_and_a_fixed_seat_holds():
    env = CanastaGymEnv(num_players=4, seat=1)
    seats = set()
    for seed in range(3):
        trace, rng = [], np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        assert info["learner_seats"] == [1, 3]
        done = False
        while not done:
            seats.add(info["seat"])
            assert env.aec.agent_name_mapping[env.aec.agent_selection] == info["seat"]
            obs, _r, terminated, truncated, info = env.step(_masked(rng, env.action_masks()))
            done = terminated or truncated
        trace.append(info)
    assert seats == {1, 3}
    single = CanastaGymEnv(num_players=4, learner="seat", seat=2)
    _obs, info = single.reset(seed=0)
    assert info["learner_seats"] == [2] and len(single.opponents) == 3


def test_action_masks_are_the_observation_mask_as_bools():
    env = CanastaGymEnv(num_players=2)
    obs, _ = env.reset(seed=1)
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,)
    np.testing.assert_array_equal(mask, obs["action_mask"].astype(bool))
    legal = np.zeros(NUM_ACTIONS, dtype=bool)
    legal[env.aec.game.legal_actions()] = True
    np.testing.assert_array_equal(mask, legal)


def test_illegal_action_terminates_with_the_illegal_reward():
    env = CanastaGymEnv(num_players=2, illegal_reward=-2.5)
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated) == (-2.5, True, False)
    assert info["illegal_action"] == illegal
    assert not obs["action_mask"].any() and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_illegal_action_raises_and_changes_nothing():
    env = CanastaGymEnv(num_players=2, illegal_action="raise")
    obs, _ = env.reset(seed=0)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"action {illegal}"):
        env.step(illegal)
    again = env.aec.observe(env.aec.agent_selection)
    np.testing.assert_array_equal(again["observation"], obs["observation"])
    np.testing.assert_array_equal(again["action_mask"], obs["action_mask"])
    assert env.decisions == 0
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # the episode goes on
    assert env.decisions == 1


@pytest.mark.parametrize("illegal_action", ["terminate", "raise"])
@pytest.mark.parametrize("bad", [NUM_ACTIONS, -1, 1.5, None, True, np.array([3])])
def test_an_action_that_is_no_id_raises_in_both_modes(illegal_action, bad):
    env = CanastaGymEnv(num_players=2, illegal_action=illegal_action)
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert env.decisions == 0 and env.action_masks().any()


def test_an_illegal_opponent_move_raises():
    env = CanastaGymEnv(num_players=2, seat=1, opponents=lambda obs, mask: int(np.argmin(mask)))
    with pytest.raises(IllegalActionError, match="opponent at seat 0"):
        for seed in range(5):  # a deal where seat 0 moves first
            env.reset(seed=seed)


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"learner": "both"}, "learner must be one of"),
        ({"seat": "0"}, "seat must be None or an integer"),
        ({"seat": 2}, r"seat must be None or a seat 0\.\.1"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
        ({"render_mode": "rgb"}, "render_mode must be one of"),
        ({"num_players": 5}, "played by"),
        ({"variant": "poker"}, "unknown variant 'poker'"),
        ({"reward": "money"}, "reward must be one of"),
        ({"reward_scale": 0}, "reward_scale must be"),
        ({"target_score": 0}, "target_score"),
        ({"oponents": "expert"}, "unknown argument.*did you mean 'opponents'"),
        ({"opponents": 42}, "each opponent must be"),
        ({"opponents": [RandomAgent(0), RandomAgent(1)]}, "a sequence of 1"),
        ({"opponents": ["random", 7]}, "a sequence of 1"),
        ({"num_players": 4, "opponents": [RandomAgent(0), 7]}, "each opponent must be.*7"),
        ({"opponents": "nobody"}, "opponents: unknown agent 'nobody'"),
        ({"backend": "gpu"}, "backend must be one of"),
    ],
)
def test_bad_arguments_raise_naming_them(names, kwargs, message):
    with pytest.raises(ValueError, match=message):
        CanastaGymEnv(**kwargs)


@pytest.mark.skipif(not core.AVAILABLE, reason=f"core not built: {core.WHY_NOT}")
def test_backend_picks_the_engine_and_the_game_is_the_same(names):
    """``backend`` reaches the AEC env, as the vector face's does (``gym.make(...,
    backend="core")`` was refused, suggesting 'backend'), and both engines play the same
    episode: observations, rewards and the end."""
    episodes = {}
    for backend in ("python", "core"):
        env = gym.make(ENV_ID, num_players=2, opponents="expert", backend=backend)
        assert env.unwrapped.aec.backend == backend
        episodes[backend] = _episode(env, seed=11)
    (trace_p, rewards_p, info_p), (trace_c, rewards_c, info_c) = episodes.values()
    assert len(trace_p) == len(trace_c) > 5
    assert all(np.array_equal(a, b) for a, b in zip(trace_p, trace_c))
    assert rewards_p == rewards_c and info_p["hand_scores"] == info_c["hand_scores"]


# ---------------------------------------------------------------------- rewards and views
@pytest.mark.parametrize(
    "variant,num_players,learner,reward,episode,overrides",
    [
        ("classic", 2, "seat", "score", "hand", {}),
        ("classic", 4, "team", "score", "game", {"target_score": 3000}),
        ("spanish", 3, "team", "win", "hand", {}),
        ("classic", 4, "seat", "win", "game", {"target_score": 3000}),
    ],
)
def test_learner_rewards_sum_to_the_aec_cumulative_reward(
    variant, num_players, learner, reward, episode, overrides
):
    """Every action (the learner's and the opponents') is recorded, then replayed on the AEC
    env: the learner's rewards over the episode are its seat's rewards there, none lost."""
    played: list[int] = []
    opponent_rng = np.random.default_rng(1)

    def opponent(observation, action_mask):
        action = _masked(opponent_rng, action_mask)
        played.append(action)
        return action

    options = dict(variant=variant, num_players=num_players, reward=reward, episode=episode)
    env = CanastaGymEnv(learner=learner, opponents=opponent, **options, **overrides)
    for seed in range(3):
        played.clear()
        rng = np.random.default_rng(seed)
        obs, info = env.reset(seed=seed)
        seat = env.seat
        total, done, hands = 0.0, False, set()
        while not done:
            action = _masked(rng, obs["action_mask"])
            played.append(action)
            obs, r, terminated, truncated, info = env.step(action)
            total += r
            done = terminated or truncated
        aec = canasta_env.env(**options, **overrides)
        aec.reset(seed=info["deal_seed"])
        moves = iter(played)
        cumulative = [0.0] * num_players
        for name in aec.agent_iter():
            _obs, r, terminated, truncated, _ = aec.last()
            cumulative[aec.agent_name_mapping[name]] += r
            hands.add(aec.game.hand_index)
            aec.step(None if terminated or truncated else next(moves))
        assert next(moves, None) is None  # the replay used every recorded action
        assert total == cumulative[seat]
        assert total != 0.0 or reward == "win"
        if episode == "game":
            assert len(hands) >= 2  # several hands, rewards given between them


def test_opponents_see_only_their_own_observation():
    env_box: list[CanastaGymEnv] = []
    checked = []

    def opponent(observation, action_mask):
        aec = env_box[0].aec
        name = aec.agent_selection
        own = aec.observe(name)
        np.testing.assert_array_equal(observation, own["observation"])
        np.testing.assert_array_equal(action_mask, own["action_mask"])
        learner = aec.observe(aec.possible_agents[env_box[0].seat])
        checked.append(not np.array_equal(observation, learner["observation"]))
        return int(np.flatnonzero(action_mask)[0])

    env = CanastaGymEnv(num_players=4, learner="team", opponents=opponent)
    env_box.append(env)
    _episode(env, seed=2)
    # positive control: the learner's view differs from what each opponent got
    assert len(checked) > 5 and all(checked)


def test_ansi_render_shows_only_the_learner_hand():
    env = CanastaGymEnv(num_players=2, seat=0, render_mode="ansi")
    env.reset(seed=3)
    game = env.aec.game
    text = env.render()
    own, hidden = (canasta_env.render.hand_text(game.hands[s]) for s in (0, 1))
    spectator = canasta_env.render.render_table(game, viewer=None)
    assert f"player 1: {hidden}" in spectator  # positive control: the spectator sees seat 1
    assert f"player 1: {game.hand_totals[1]} cards" in text
    assert f"player 0: {own}" in text and hidden not in text


# ---------------------------------------------------------------------- video and training
def test_record_video_writes_an_mp4(tmp_path):
    image = pytest.importorskip("canasta_env.image")
    pytest.importorskip("moviepy")
    env = gym.make(ENV_ID, num_players=2, render_mode="rgb_array", opponents=RandomAgent(0))
    env.reset(seed=1)
    game, seat = env.unwrapped.aec.game, env.unwrapped.seat
    frame = env.render()
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    np.testing.assert_array_equal(frame, image.table_image(game, viewer=seat))  # a player's view
    assert not np.array_equal(frame, image.table_image(game, viewer=None))  # not the spectator's
    env = gym.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda k: True)
    _episode(env, seed=1)
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0


def test_maskable_ppo_learns_a_few_steps_on_the_made_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    env = gym.make(ENV_ID, variant="classic", num_players=2, opponents=RandomAgent(0))
    model = sb3_contrib.MaskablePPO(
        "MultiInputPolicy",
        env,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        policy_kwargs={"net_arch": [32]},
        seed=0,
        device="cpu",
    )
    model.learn(256)
    assert model.num_timesteps >= 256
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert obs["action_mask"][int(action)]
