"""Self-play wrapper, MaskablePPO training, the trained agent and the shipped model."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from gymnasium.utils.env_checker import check_env  # noqa: E402

from agents.base import RandomAgent, play_hands  # noqa: E402
from canasta_env.actions import ESCALA, NUM_ACTIONS  # noqa: E402
from canasta_env.observation import OBS_SIZE, OBS_SIZE_V0  # noqa: E402
from training.agent import SHIPPED, PolicyWeights, PPOAgent, load_agent  # noqa: E402
from training.selfplay import (  # noqa: E402
    OpponentPool,
    SelfPlayEnv,
    evaluate,
    export_model,
    main,
    train,
    wilson_interval,
)

torch.set_num_threads(1)

#: The MaskablePPO agent of the SB3 wrapper (``ppo:sb3-classic-2p``).
SB3_MODEL = SHIPPED["sb3-classic-2p"]

PRESET_TABLES = [
    ("classic", 2),
    ("classic", 4),
    ("canastone", 2),
    ("canastone", 4),
    ("spanish", 2),
    ("spanish", 4),
    ("italian", 2),
    ("italian", 4),
]


@pytest.fixture(scope="module")
def shipped():
    if not SB3_MODEL.exists():
        pytest.fail(f"the shipped model {SB3_MODEL} is missing")
    return load_agent(SB3_MODEL)


def _random_episode(env, seed, check=None):
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    total, done = 0.0, False
    while not done:
        mask = env.action_masks()
        if check is not None:
            check(env, obs, mask)
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        total += reward
        done = terminated or truncated
    return total, info


@pytest.mark.parametrize("num_players", [2, 4])
def test_wrapper_passes_gymnasium_check_env(num_players):
    env = SelfPlayEnv("classic", num_players)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*infinity.*")  # the obs Box is unbounded
        check_env(env, skip_render_check=True)
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.action_space.n == NUM_ACTIONS


@pytest.mark.parametrize("variant,num_players", PRESET_TABLES)
def test_masks_and_observations_match_the_env(variant, num_players):
    def check(env, obs, mask):
        inner = env.env
        name = inner.agent_selection
        assert inner.agent_name_mapping[name] in env.learner_seats
        expected = inner.observe(name)
        assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,)
        np.testing.assert_array_equal(mask, expected["action_mask"].astype(bool))
        legal = np.zeros(NUM_ACTIONS, dtype=bool)
        legal[inner.game.legal_actions()] = True
        np.testing.assert_array_equal(mask, legal)
        np.testing.assert_array_equal(obs, expected["observation"])

    env = SelfPlayEnv(variant, num_players)
    total, info = _random_episode(env, seed=3, check=check)
    # the reward summed over the episode is the learner team's score reward
    assert total == pytest.approx(info["score_diff"] / 1000.0)
    assert not env.action_masks().any()


def test_team_learner_controls_both_partners():
    env = SelfPlayEnv("classic", 4, learner="team")
    env.reset(seed=1)
    assert len(env.learner_seats) == 2 and len(env.opponents) == 2
    env = SelfPlayEnv("classic", 4, learner="seat")
    env.reset(seed=1)
    assert len(env.learner_seats) == 1 and len(env.opponents) == 3


def test_mixed_tables_and_illegal_action():
    env = SelfPlayEnv(["classic", "italian"], [2, 3])
    assert ("italian", 3) not in env.tables and ("classic", 3) in env.tables
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    _obs, reward, terminated, _trunc, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"] == illegal


def test_reset_is_reproducible():
    a, b = SelfPlayEnv("spanish", 2), SelfPlayEnv("spanish", 2)
    assert _random_episode(a, 11) == _random_episode(b, 11)


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_tiny_training_run_saves_and_loads(tmp_path):
    model, meta = train(
        "classic",
        2,
        timesteps=256,
        seed=1,
        out_dir=tmp_path,
        n_envs=1,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        net_arch=(32, 32),
        snapshot_every=128,
        eval_hands=2,
        verbose=0,
    )
    assert (tmp_path / "model.zip").exists()
    saved = json.loads((tmp_path / "meta.json").read_text())
    assert saved["timesteps"] >= 256 and saved["obs_size"] == OBS_SIZE
    assert saved["num_actions"] == NUM_ACTIONS and saved["snapshots"] >= 1
    assert saved["evaluation"][0]["hands"] == 4
    agent = load_agent(tmp_path, trust_pickle=True)  # a run folder resolves to model.zip
    exported = export_model(model, tmp_path / "small.zip")
    assert exported.stat().st_size < (tmp_path / "model.zip").stat().st_size
    small = PPOAgent(exported)
    env = SelfPlayEnv("classic", 2)
    obs, _ = env.reset(seed=5)
    mask = env.action_masks()
    assert agent.act(obs, mask) == small.act(obs, mask)


def test_snapshot_opponents_play_legal_moves(shipped):
    pool = OpponentPool(random_prob=0.0)
    pool.add_snapshot(shipped.weights, "snapshot@0")
    env = SelfPlayEnv("classic", 2, pool=pool)
    _total, info = _random_episode(env, seed=2)
    assert info["opponent"] == "snapshot@0"


@pytest.mark.parametrize("variant,num_players", PRESET_TABLES)
def test_shipped_model_plays_legal_moves_in_every_preset(shipped, variant, num_players):
    agents = [shipped if s % 2 == 0 else RandomAgent(s) for s in range(num_players)]
    # raw_env raises IllegalActionError on any illegal move
    records = play_hands(agents, 2, variant=variant, seed=100)
    assert all(record.end_reason for record in records)


def test_ppo_agent_is_deterministic_and_backends_agree(shipped):
    torch_agent = PPOAgent(SB3_MODEL, backend="torch")
    env = SelfPlayEnv(["classic", "spanish"], [2, 4])
    for seed in range(4):
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            action = shipped.act(obs, mask)
            assert mask[action]
            assert shipped.act(obs.copy(), mask.copy()) == action
            assert torch_agent.act(obs, mask) == action
            obs, _r, terminated, truncated, _ = env.step(action)
            done = terminated or truncated


def test_policy_weights_match_torch_logits(shipped):
    policy = shipped.model.policy
    env = SelfPlayEnv("classic", 2)
    obs, _ = env.reset(seed=0)
    # the shipped model reads the first OBS_SIZE_V0 entries (the layout before S-19)
    width = policy.observation_space.shape[0]
    assert width in (OBS_SIZE, OBS_SIZE_V0)
    with torch.no_grad():
        tensor = torch.as_tensor(obs[None, :width])
        latent = policy.mlp_extractor.forward_actor(policy.extract_features(tensor))
        expected = policy.action_net(latent).numpy()[0]
    np.testing.assert_allclose(shipped.weights.logits(obs), expected, rtol=1e-4, atol=1e-4)
    assert isinstance(shipped.weights, PolicyWeights)


def test_evaluate_and_cli(tmp_path, shipped):
    result = evaluate(shipped, RandomAgent(0), "classic", 2, hands=3, seed=7)
    assert result["hands"] == 6 and result["wins"] + result["ties"] + result["losses"] == 6
    low, high = result["ci95"]
    assert 0.0 <= low <= result["win_rate"] <= high <= 1.0
    out = tmp_path / "eval.json"
    argv = ["--evaluate", str(SB3_MODEL), "--hands", "2", "--json", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["evaluation"][0]["hands"] == 4


@pytest.mark.parametrize("backend", ["numpy", "torch"])
def test_prefix_policy_acts_legally_where_only_new_ids_are_legal(shipped, backend):
    """A policy of the 449/476 layout reads the observation's prefix and never picks an id
    it does not know while an old one is legal; where only S-19 run ids are legal it
    still answers with a legal one."""
    agent = shipped if backend == "numpy" else load_agent(SB3_MODEL, backend="torch")
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[6, 7, ESCALA + 3]] = 1
    assert agent.act(obs, mask) in (6, 7)
    only_new = np.zeros(NUM_ACTIONS, dtype=np.int8)
    only_new[ESCALA + 5] = 1
    assert agent.act(obs, only_new) == ESCALA + 5


def test_shipped_model_metadata():
    meta = json.loads(SB3_MODEL.with_suffix(".json").read_text())
    # trained on the layout before the S-19 block (a prefix of today's, see PolicyWeights)
    assert (meta["training"]["obs_size"], meta["training"]["num_actions"]) in (
        (OBS_SIZE, NUM_ACTIONS),
        (OBS_SIZE_V0, ESCALA),
    )
    evaluation = meta["evaluation"][0]
    assert evaluation["opponent"] == "random" and evaluation["deals"] >= 500
    assert SB3_MODEL.stat().st_size < 5 * 1024 * 1024
