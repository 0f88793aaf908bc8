"""examples/sb3_maskable_ppo.py, run tiny: MaskablePPO trains, saves, loads and plays the arena."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents.network import PPOAgent  # noqa: E402
from examples import sb3_maskable_ppo as example  # noqa: E402


def test_the_example_trains_saves_and_is_measured_in_the_arena(tmp_path, capsys):
    torch.set_num_threads(1)
    argv = ["--timesteps", "256", "--n-steps", "128", "--hands", "4", "--out", str(tmp_path)]
    assert example.main(argv) == 0
    out = capsys.readouterr().out
    assert "saved" in out and "vs random:" in out and "of 4 hands" in out
    agent = PPOAgent(tmp_path / "model.zip")
    env = example.make_env()
    obs, _ = env.reset(seed=3)
    mask = env.action_masks()
    assert obs.shape == env.observation_space.shape and mask[agent.act(obs, mask)]
