"""The SB3 agent (``PPOAgent``), the shipped MaskablePPO model and ``canasta train --evaluate``."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

import gymnasium as gym  # noqa: E402

import canasta_env  # noqa: E402
from agents.base import RandomAgent, play_hands  # noqa: E402
from agents.network import SHIPPED, PolicyWeights, PPOAgent, load_agent  # noqa: E402
from canasta_arena.stats import wilson_interval  # noqa: E402
from canasta_cli.train import evaluate_model, main  # noqa: E402
from canasta_env.actions import ESCALA, NUM_ACTIONS  # noqa: E402
from canasta_env.observation import OBS_SIZE, OBS_SIZE_V0  # noqa: E402

gym.register_envs(canasta_env)
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


def _env(variant: str = "classic", num_players: int = 2):
    """The Gymnasium face with the observation vector alone (SB3's MlpPolicy input)."""
    env = gym.make("canasta_env/Canasta-v0", variant=variant, num_players=num_players)
    return gym.wrappers.TransformObservation(
        env, lambda obs: obs["observation"], env.observation_space["observation"]
    )


def test_wilson_interval():
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


@pytest.mark.parametrize("variant,num_players", PRESET_TABLES)
def test_shipped_model_plays_legal_moves_in_every_preset(shipped, variant, num_players):
    agents = [shipped if s % 2 == 0 else RandomAgent(s) for s in range(num_players)]
    # raw_env raises IllegalActionError on any illegal move
    records = play_hands(agents, 2, variant=variant, seed=100)
    assert all(record.end_reason for record in records)


def test_ppo_agent_is_deterministic_and_backends_agree(shipped):
    torch_agent = PPOAgent(SB3_MODEL, backend="torch")
    for seed, (variant, num_players) in enumerate(
        [("classic", 2), ("spanish", 4), ("classic", 4), ("spanish", 2)]
    ):
        env = _env(variant, num_players)
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.unwrapped.action_masks()
            action = shipped.act(obs, mask)
            assert mask[action]
            assert shipped.act(obs.copy(), mask.copy()) == action
            assert torch_agent.act(obs, mask) == action
            obs, _r, terminated, truncated, _ = env.step(action)
            done = terminated or truncated


def test_policy_weights_match_torch_logits(shipped):
    policy = shipped.model.policy
    obs, _ = _env().reset(seed=0)
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
    result = evaluate_model(str(SB3_MODEL), "random", "classic", 2, deals=3, seed=7)
    assert result["hands"] == 6 and result["wins"] + result["ties"] + result["losses"] == 6
    low, high = result["ci95"]
    assert 0.0 <= low <= result["win_rate"] <= high <= 1.0
    out = tmp_path / "eval.json"
    argv = ["--evaluate", str(SB3_MODEL), "--hands", "2", "--json", str(out)]
    assert main(argv) == 0
    report = json.loads(out.read_text())
    assert report["evaluation"][0]["hands"] == 4
    assert report["evaluation"][0]["agent"] == f"ppo:{SB3_MODEL}"


def test_evaluate_refuses_a_bad_model_or_opponent_in_one_line(tmp_path, capsys):
    for argv in (
        ["--evaluate", str(tmp_path / "none.npz"), "--hands", "1"],
        ["--evaluate", "classic-2p", "--opponents", "expertt", "--hands", "1"],
    ):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("canasta train: error: ") and err.count("\n") == 1


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
