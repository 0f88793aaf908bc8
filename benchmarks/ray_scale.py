"""Scaling on Ray, measured in one run (extra ``scale``): the arena's hands per second with
1 and 2 Ray workers, their ratio, and RLlib's learner steps per second.

    python benchmarks/ray_scale.py                      # both parts
    python benchmarks/ray_scale.py --skip-rllib --hands 600 --rounds 2
    python benchmarks/ray_scale.py --skip-arena --rllib-steps 16000

Arena: ``canasta arena --ray`` on a local Ray instance of ``--workers`` CPUs
(one task at a time per CPU: a worker each), the same tournament for each
count, after a short warm-up that starts the workers and loads the agents; the
counts alternate for ``--rounds`` rounds and the ratio is of the summed times,
so a busy moment of the machine weighs on both. RLlib: ``canasta train
--backend rllib`` on a local instance of ``--rllib-cpus`` CPUs with
``--env-runners`` sampling actors; learner steps/s is the env steps sampled and
trained on per second of ``algo.train()`` (sampling plus the PPO update), the
first iteration (start-up) left out, with the time of an iteration split into
sampling (which more env runners divide) and the PPO update (one local learner).
The empty-task rate bounds what one driver can hand out: tasks of ``--ray-batch``
hands each.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def arena_rate(workers: int, agents: list[str], hands: int, players: int, seed: int) -> float:
    """Hands per second of one Ray arena run on a fresh local instance of ``workers`` CPUs."""
    import ray

    from canasta_arena.arena import run_arena

    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        common = dict(num_players=players, plot=False, ray="local", ray_batch=8)
        run_arena(agents, hands=8 * workers, seed=seed + 1, **common)  # start the workers
        started = time.perf_counter()
        result = run_arena(agents, hands=hands, seed=seed, **common)
        elapsed = time.perf_counter() - started
    finally:
        ray.shutdown()
    return len(result.hands) / elapsed


def task_rate(tasks: int = 2000) -> float:
    """Empty Ray tasks per second that one driver submits and collects (2 local CPUs)."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        nothing = ray.remote(num_cpus=1)(_nothing)
        ray.get([nothing.remote() for _ in range(200)])  # start the workers
        started = time.perf_counter()
        ray.get([nothing.remote() for _ in range(tasks)])
        elapsed = time.perf_counter() - started
    finally:
        ray.shutdown()
    return tasks / elapsed


def _nothing() -> None:
    return None


def rllib_rate(
    steps: int, cpus: int, env_runners: int, rollout: int, envs: int
) -> tuple[float, list[dict]]:
    """(learner steps/s after the first iteration, the run's history)."""
    import json

    import ray

    from training import rllib_backend as rb

    settings = json.loads(json.dumps(rb.DEFAULTS))
    settings.update(
        ppo_steps=steps, env_runners=env_runners, rollout_steps=rollout, envs_per_runner=envs
    )
    # the network and league of the figures in docs/ray.md, RLlib's defaults when measured
    # (a new run now takes canasta train's: training/config.py)
    settings.update(
        hidden=[256, 256],
        opponents={"self": 0.3, "snapshot": 0.2, "expert": 0.25, "greedy": 0.15, "random": 0.1},
    )
    ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    try:
        with tempfile.TemporaryDirectory() as folder:
            history = rb.train(Path(folder), settings, progress=False)
    finally:
        ray.shutdown()
    first, last = history[0], history[-1]
    rate = (last["env_steps"] - first["env_steps"]) / (last["seconds"] - first["seconds"])
    return rate, history


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", nargs="+", default=["greedy", "expert"])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--hands", type=int, default=400, help="hands per pairing and round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rllib-steps", type=int, default=12_000)
    parser.add_argument("--rllib-cpus", type=int, default=2)
    parser.add_argument("--env-runners", type=int, default=1)
    parser.add_argument("--rollout-steps", type=int, default=2_000)
    parser.add_argument("--envs-per-runner", type=int, default=8)
    parser.add_argument("--skip-arena", action="store_true")
    parser.add_argument("--skip-rllib", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_arena:
        times = dict.fromkeys(args.workers, 0.0)
        played = dict.fromkeys(args.workers, 0)
        for round_ in range(args.rounds):
            for workers in args.workers:
                rate = arena_rate(workers, args.agents, args.hands, args.players, args.seed)
                hands = args.hands * (len(args.agents) * (len(args.agents) - 1) // 2)
                times[workers] += hands / rate
                played[workers] += hands
                print(f"round {round_ + 1}: {workers} Ray workers: {rate:.1f} hands/s")
        base = args.workers[0]
        print(f"arena on Ray ({' '.join(args.agents)}, {args.players} players):")
        for workers in args.workers:
            rate = played[workers] / times[workers]
            ratio = (played[workers] / times[workers]) / (played[base] / times[base])
            print(f"  {workers} workers: {rate:.1f} hands/s (x{ratio:.2f} of {base})")
        print(f"  the driver's own ceiling: {task_rate():.0f} empty Ray tasks/s")
    if not args.skip_rllib:
        rate, history = rllib_rate(
            args.rllib_steps,
            args.rllib_cpus,
            args.env_runners,
            args.rollout_steps,
            args.envs_per_runner,
        )
        print(
            f"RLlib PPO ({args.rllib_cpus} CPUs, {args.env_runners} env runners x "
            f"{args.envs_per_runner} envs, {history[-1]['env_steps']} env steps): "
            f"{rate:.0f} learner steps/s"
        )
        later = [row for row in history[1:] if row["sample_s"] and row["update_s"]]
        if later:
            sample = sum(row["sample_s"] for row in later) / len(later)
            update = sum(row["update_s"] for row in later) / len(later)
            print(
                f"  per iteration of {args.rollout_steps} steps: sampling {sample:.2f} s, "
                f"PPO update {update:.2f} s"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
