"""examples/cleanrl_ppo.py, run tiny: both modes train, save a model file that ``ppo:PATH``
plays with legal moves, and the arena's win rates are printed."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (extra 'train')")

from agents.registry import make_agent  # noqa: E402
from canasta_env.gym_env import CanastaGymEnv  # noqa: E402
from examples import cleanrl_ppo as example  # noqa: E402

TINY = ["--num-envs", "4", "--num-steps", "64", "--total-timesteps", "512", "--hidden", "32"]


def plays_legal_moves(path) -> None:
    agent = make_agent(f"ppo:{path}")
    env = CanastaGymEnv(num_players=2, opponents="greedy")
    obs, _ = env.reset(seed=3)
    for _ in range(40):
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
        obs, _reward, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()


@pytest.mark.parametrize("mode", [["--opponents", "greedy"], ["--self-play"]])
def test_each_mode_trains_saves_a_model_file_and_is_measured(tmp_path, capsys, mode):
    path, board = tmp_path / "model.npz", tmp_path / "tb"
    argv = [*mode, *TINY, "--save", str(path), "--eval-hands", "2", "--tensorboard", str(board)]
    assert example.main(argv) == 0
    out = capsys.readouterr().out
    # TensorBoard, as canasta train writes it: an event file with the losses
    (events,) = board.glob("events.out.tfevents.*")
    assert events.stat().st_size > 0 and b"losses/policy" in events.read_bytes()
    assert "update 2 step 512" in out and f"saved {path} after 512 learner steps" in out
    if "--self-play" not in mode:
        assert "won " in out  # the hand's win rate, from final_info
    assert "vs random: won " in out and "vs greedy: won " in out and "of 2 hands [" in out
    plays_legal_moves(path)


def test_checkpoints_record_their_learner_steps(tmp_path):
    path = tmp_path / "model.npz"
    argv = [*TINY, "--opponents", "random", "--save", str(path), "--checkpoint-every", "1"]
    example.main([*argv, "--tensorboard", ""])  # '' writes no TensorBoard folder
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "model-256.npz",
        "model-512.npz",
        "model.npz",
    ]
    from agents.model_file import ModelFile

    assert ModelFile(tmp_path / "model-256.npz").meta["learner_steps"] == 256
    assert ModelFile(path).meta["hidden"] == [32]


def test_self_play_advantages_follow_each_seat_to_its_own_result():
    """Two seats alternate at one table; the hand ends on step 3 with seat 0 +1, seat 1 -1.
    With gamma = lambda = 1 and zero values, each decision's advantage is its seat's result."""
    rollout = example.Rollout(4, 1, 3, 2, "cpu")
    rollout.seats[:, 0] = [0, 1, 0, 1]
    rollout.seat_rewards = np.zeros((4, 1, 2), np.float32)
    rollout.seat_rewards[3, 0] = [1.0, -1.0]
    rollout.dones[3, 0] = True
    advantages = example.gae_self_play(rollout, np.zeros(1), np.zeros(1, np.int64), 1.0, 1.0)
    assert advantages[:, 0].tolist() == [1.0, -1.0, 1.0, -1.0]


def test_single_learner_advantages_stop_at_the_hand_end():
    """SAME_STEP autoreset: the observation after a done step is a new hand's, not bootstrapped."""
    rollout = example.Rollout(3, 1, 3, 2, "cpu")
    rollout.rewards[:, 0] = [0.0, 0.5, 0.0]
    rollout.dones[1, 0] = True
    rollout.values[:, 0] = torch.tensor([0.0, 0.0, 0.25])
    advantages = example.gae_single(rollout, torch.tensor([1.0]), 1.0, 1.0)
    assert advantages[:, 0].tolist() == [0.5, 0.5, 0.75]
