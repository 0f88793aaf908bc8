"""Speed of the single-learner vector face (``canasta_env.gym_vector.CanastaVectorEnv``):
learner decisions per CPU-second against house bots, random masked learner actions,
three ways in one run.

    python benchmarks/bench_vector_faces.py [--seconds 3] [--envs 64] [--players 2]
        [--opponents expert random] [--paths batched table python]

The paths: ``batched`` (the fast path: the tables are one ``_core.Batch`` with the
opponents' twins inside it, ``batched=True``), ``table`` (the core, opponents played
through ``Table.play``: the house bots' twins in C++, the rest of a step per table in
Python, ``batched=False``) and ``python`` (the Python engine and bots).

A learner decision is one row of one ``step``: the opponents' moves between two of the
learner's decisions are inside it, as are the autoresets and the learner's sampling
(one float32 uniform per action, the argmax over the legal ones). For the ``table`` and
``python`` paths also prints the share of the CPU time spent in the opponents' method
(the batched table's ``play_agents``). CPU time is ``time.process_time``: other
processes do not inflate it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from canasta_env.gym_vector import CanastaVectorEnv

#: path name -> (backend, batched)
PATHS = {"batched": ("core", True), "table": ("core", False), "python": ("python", False)}


def rate(
    opponents: str,
    path: str = "batched",
    num_envs: int = 64,
    num_players: int = 2,
    seconds: float = 3.0,
    seed: int = 0,
) -> dict:
    """Learner decisions per CPU-second of ``num_envs`` tables against ``opponents``."""
    backend, batched = PATHS[path]
    venv = CanastaVectorEnv(
        num_envs, num_players=num_players, opponents=opponents, backend=backend, batched=batched
    )
    in_opponents = [0.0]
    if not venv.batched:
        engine = venv.tables.engine
        play = engine.play_agents

        def timed_play(tables: list[int]) -> None:  # the opponents' share, timed where it runs
            before = time.process_time()
            play(tables)
            in_opponents[0] += time.process_time() - before

        engine.play_agents = timed_play
    rng = np.random.default_rng(seed)
    obs, _ = venv.reset(seed=seed)
    decisions = episodes = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        masks = obs["action_mask"]
        actions = np.argmax((rng.random(masks.shape, dtype=np.float32) + 1.0) * masks, axis=1)
        obs, _, terminated, truncated, _ = venv.step(actions)
        decisions += num_envs
        episodes += int((terminated | truncated).sum())
    total = time.process_time() - start
    venv.close()
    return {
        "opponents": opponents,
        "path": path,
        "decisions": decisions,
        "episodes": episodes,
        "rate": decisions / total,
        "opponent_share": None if batched else in_opponents[0] / total,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponents", nargs="+", default=["expert", "random"])
    parser.add_argument("--paths", nargs="+", default=list(PATHS), choices=list(PATHS))
    args = parser.parse_args(argv)
    print(
        f"classic {args.players} players, {args.envs} tables, random masked learner "
        f"actions, {args.seconds:g} CPU-seconds each"
    )
    for opponents in args.opponents:
        rows = [rate(opponents, path, args.envs, args.players, args.seconds) for path in args.paths]
        base = rows[-1]["rate"]
        for row in rows:
            share = row["opponent_share"]
            where = "" if share is None else f"; {100 * share:.0f}% in the opponents' moves"
            print(
                f"  opponents {opponents:>8}, {row['path']:>7}: {row['rate']:>9,.0f} learner "
                f"decisions per CPU-second, x{row['rate'] / base:.1f} ({row['episodes']:,} "
                f"episodes{where})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
