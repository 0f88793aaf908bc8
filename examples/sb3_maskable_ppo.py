"""Stable-Baselines3 on canasta_env: MaskablePPO (sb3-contrib) against a bot, then the arena.

    pip install -e '.[train]'        # torch, stable-baselines3, sb3-contrib
    python examples/sb3_maskable_ppo.py --total-timesteps 20000 --opponents random --out runs/sb3

This is how a new user plugs an SB3 algorithm into the Gymnasium face: the env's
observation is a dict (``observation``, ``action_mask``); the policy reads only the
686 floats and MaskablePPO gets the mask from :class:`ActionMasker`. One episode is one
hand against ``--opponents`` in the other seats. The saved ``model.zip`` is then measured
in the arena (duplicate deals, both seat orders) as ``ppo:OUT/model.zip``, which
:class:`agents.network.PPOAgent` loads. ``canasta train`` (:mod:`training.league`) is
the project's own recipe, faster and stronger; this example is the SB3 face of it.

One process steps the env and runs the network one observation at a time, so torch gets
``--threads`` threads (default 1, never more than the cores: :mod:`training.machine`);
torch's default of every core made such a loop 13 times slower on a busy 2-core machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.wrappers import ActionMasker

import canasta_env
from canasta_arena import run_arena
from training.machine import budget

gym.register_envs(canasta_env)  # registers "canasta_env/Canasta-v0"


class PolicyInput(gym.ObservationWrapper):
    """The observation vector alone: ``MlpPolicy``'s input (the mask goes to ActionMasker)."""

    def __init__(self, env: gym.Env):
        super().__init__(env)
        self.observation_space = env.observation_space["observation"]

    def observation(self, observation: dict):
        return observation["observation"]


def make_env(variant: str = "classic", num_players: int = 2, opponent: str = "random") -> gym.Env:
    env = gym.make(
        "canasta_env/Canasta-v0", variant=variant, num_players=num_players, opponents=opponent
    )
    return ActionMasker(PolicyInput(env), lambda env: env.unwrapped.action_masks())


def train(
    out_dir: str | Path,
    timesteps: int = 20_000,
    variant: str = "classic",
    num_players: int = 2,
    opponent: str = "random",
    n_steps: int = 512,
    seed: int = 0,
) -> tuple[Path, float]:
    """Train MaskablePPO for ``timesteps`` decisions; ``(OUT/model.zip, steps per second)``."""
    model = MaskablePPO(
        "MlpPolicy",
        make_env(variant, num_players, opponent),
        n_steps=n_steps,
        batch_size=min(256, n_steps),
        gamma=0.995,
        seed=seed,
        device="cpu",
        verbose=0,
    )
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps)
    rate = model.num_timesteps / (time.perf_counter() - start)
    path = Path(out_dir) / "model.zip"
    model.save(path)
    return path, rate


def evaluate(model_path: Path, variant: str, num_players: int, opponent: str, hands: int):
    """The model against ``opponent`` over duplicate deals (our own file: trust_pickle)."""
    name = f"ppo:{model_path}"
    result = run_arena(
        [name, opponent], variant, num_players, hands=hands, plot=False, trust_pickle=True
    )
    return result.summary["head_to_head"][name][opponent]


def main(argv: list[str] | None = None) -> int:
    # the option names of examples/cleanrl_ppo.py where they mean the same (the former
    # names still read: --opponent, --timesteps, --hands)
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--variant", default="classic", help="the preset (rules)")
    parser.add_argument("--players", type=int, default=2, help="players at the table")
    parser.add_argument(
        "--opponents", "--opponent", dest="opponent", default="random", metavar="BOT",
        help="house bot in the other seats",
    )  # fmt: skip
    parser.add_argument(
        "--total-timesteps", "--timesteps", dest="timesteps", type=int, default=20_000, metavar="N",
        help="learner decisions",
    )  # fmt: skip
    parser.add_argument("--n-steps", type=int, default=512, help="rollout length")
    parser.add_argument(
        "--eval-hands", "--hands", dest="hands", type=int, default=200, metavar="N",
        help="arena hands after training",
    )  # fmt: skip
    parser.add_argument("--seed", type=int, default=0, help="seed of the env and the network")
    parser.add_argument("--out", default="runs/sb3", help="folder of model.zip")
    parser.add_argument(
        "--threads", type=int, default=1, help="torch CPU threads (at most the cores)"
    )
    args = parser.parse_args(argv)
    plan = budget(0, args.threads)  # one process: the env and the network take turns
    for note in plan.notes:
        print(note)
    torch.set_num_threads(plan.threads)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    path, rate = train(
        args.out, args.timesteps, args.variant, args.players, args.opponent, args.n_steps, args.seed
    )
    print(f"trained {args.timesteps} steps ({rate:,.0f} steps/s); saved {path}")
    row = evaluate(path, args.variant, args.players, args.opponent, args.hands)
    low, high = row["win_ci"]
    print(
        f"vs {args.opponent}: {100 * row['win_rate']:.1f}% of {row['hands']} hands "
        f"[{100 * low:.1f}, {100 * high:.1f}]"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
