"""examples/sb3_maskable_ppo.py, run tiny: MaskablePPO trains, saves, loads and plays the arena."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents.network import PPOAgent  # noqa: E402
from examples import sb3_maskable_ppo as example  # noqa: E402


def test_the_example_trains_saves_and_is_measured_in_the_arena(tmp_path, capsys):
    torch.set_num_threads(1)
    argv = ["--total-timesteps", "256", "--n-steps", "128", "--eval-hands", "4"]
    argv += ["--out", str(tmp_path)]
    assert example.main(argv) == 0
    out = capsys.readouterr().out
    assert "saved" in out and "vs random:" in out and "of 4 hands" in out
    agent = PPOAgent(tmp_path / "model.zip")
    env = example.make_env()
    obs, _ = env.reset(seed=3)
    mask = env.action_masks()
    assert obs.shape == env.observation_space.shape and mask[agent.act(obs, mask)]


def test_a_multi_input_policy_on_the_made_env_plays_in_the_arena(tmp_path):
    """docs/faces.md's ``MaskablePPO("MultiInputPolicy", gym.make(...))``, saved, is loaded
    by ``ppo:PATH`` (numpy, reading observation and mask as SB3 concatenates them) and
    moves as the torch policy does."""
    import gymnasium as gym
    from sb3_contrib import MaskablePPO

    from agents.base import RandomAgent
    from canasta_arena.arena import run_arena

    torch.set_num_threads(1)
    env = gym.make("canasta_env/Canasta-v0", num_players=2, opponents=RandomAgent(0))
    model = MaskablePPO(
        "MultiInputPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
        policy_kwargs={"net_arch": [16]},
    )  # fmt: skip
    model.learn(64)
    model.save(tmp_path / "dict.zip")
    numpy_agent = PPOAgent(tmp_path / "dict.zip")
    torch_agent = PPOAgent(tmp_path / "dict.zip", backend="torch")
    assert [key for key, _size in numpy_agent.weights.inputs] == ["action_mask", "observation"]
    obs, _ = env.reset(seed=5)
    for _ in range(30):  # the two backends agree move by move
        mask = env.unwrapped.action_masks()
        flat = obs["observation"]
        action = numpy_agent.act(flat, mask)
        assert action == torch_agent.act(flat, mask) and mask[action]
        obs, _r, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()
    result = run_arena(
        [f"ppo:{tmp_path / 'dict.zip'}", "random"], num_players=2, hands=2, jobs=1,
        out_dir=tmp_path / "arena", progress=False, plot=False, trust_pickle=True,
    )  # fmt: skip
    assert len(result.hands) == 2
