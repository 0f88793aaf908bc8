"""Speed of the single-learner vector face (``canasta_env.gym_vector.CanastaVectorEnv``):
learner decisions per CPU-second against house bots, random masked learner actions.

    python benchmarks/bench_vector_faces.py [--seconds 3] [--envs 64] [--players 2]
        [--opponents expert random] [--backend core]

A learner decision is one row of one ``step``: the opponents' moves between two of the
learner's decisions are inside it (they cost most of the time with ``expert``), as are
the autoresets. Also prints the share of the CPU time spent in the opponents' method
(``_play_opponents``, the part a batched C++ path would replace). CPU time is
``time.process_time``: other processes do not inflate it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from canasta_env.gym_vector import CanastaVectorEnv


def rate(
    opponents: str,
    num_envs: int = 64,
    num_players: int = 2,
    seconds: float = 3.0,
    backend: str | None = "core",
    seed: int = 0,
) -> dict:
    """Learner decisions per CPU-second of ``num_envs`` tables against ``opponents``."""
    venv = CanastaVectorEnv(num_envs, num_players=num_players, opponents=opponents, backend=backend)
    in_opponents = [0.0]
    play = venv._play_opponents

    def timed_play(tables: list[int]) -> None:  # the opponents' share, timed where it runs
        before = time.process_time()
        play(tables)
        in_opponents[0] += time.process_time() - before

    venv._play_opponents = timed_play
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    decisions = episodes = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        masks = obs["action_mask"]
        actions = np.argmax((rng.random(masks.shape) + 1.0) * masks, axis=1)
        obs, _, terminated, truncated, _ = venv.step(actions)
        decisions += num_envs
        episodes += int((terminated | truncated).sum())
    total = time.process_time() - start
    venv.close()
    return {
        "opponents": opponents,
        "backend": venv.backend,
        "decisions": decisions,
        "episodes": episodes,
        "rate": decisions / total,
        "opponent_share": in_opponents[0] / total,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", nargs="+", default=["expert", "random"])
    parser.add_argument("--backend", default="core", choices=["core", "python"])
    args = parser.parse_args(argv)
    print(
        f"classic {args.players} players, {args.envs} tables, backend {args.backend}, "
        f"random masked learner actions, {args.seconds:g} CPU-seconds each"
    )
    for opponents in args.opponents:
        row = rate(opponents, args.envs, args.players, args.seconds, args.backend)
        print(
            f"  opponents {opponents:>8}: {row['rate']:>9,.0f} learner decisions per CPU-second "
            f"({row['episodes']:,} episodes; {100 * row['opponent_share']:.0f}% of the time in "
            f"the opponents' moves)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
