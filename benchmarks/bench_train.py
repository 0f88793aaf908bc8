"""Learner steps per second of ``canasta train``'s PPO stage, for a fixed short run.

A learner step is one decision of the network being trained (what PPO learns
from). The run: the default league mix (self-play, snapshots, expert, greedy,
random), ``--iterations`` rollouts of ``--rollout-steps`` decisions each, every
rollout followed by the PPO update, as in training; no evaluation. It prints
the rate over collection plus update (what a run gets), and each part alone,
after a first line naming the worker processes, torch threads and device it used
(``--threads`` left out: the cores the workers leave, never more than the cores;
``--device`` auto: cuda when torch sees a GPU; training/machine.py).

    python benchmarks/bench_train.py                        # classic 2p, --jobs 2
    python benchmarks/bench_train.py --players 4 --jobs 1 --envs 32
    python benchmarks/bench_train.py --kick      # with kickstarting's shadow expert
    python benchmarks/bench_train.py --device cuda --jobs 15 --sb3-steps 0   # a GPU machine

``--model`` starts from a model file (default: the shipped classic 2-player
agent, else a new network), so the hands are as long as a trained agent's.
``--engines`` (default ``core python``) times the run once per engine, in one run: the
rollout workers play their hands on the compiled core or the Python engine
(``CANASTA_BACKEND``, :func:`canasta_env.table.resolve_backend`).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="the learner's torch threads (default: the cores the workers leave)",
    )
    parser.add_argument(
        "--device", default="auto", choices=["auto", "cpu", "cuda"], help="the learner's device"
    )
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--rollout-steps", type=int, default=16_384)
    parser.add_argument("--model", default=None, help="model file to start from")
    parser.add_argument(
        "--engines", nargs="+", default=["core", "python"], choices=["core", "python"]
    )
    parser.add_argument(
        "--kick", action="store_true", help="with the shadow expert of kickstarting (slower)"
    )
    parser.add_argument(
        "--sb3-steps",
        type=int,
        default=20_000,
        help="also time Stable-Baselines3's MaskablePPO (examples/sb3_maskable_ppo.py) for "
        "this many steps, for a comparison in one run (0: skip)",
    )
    args = parser.parse_args(argv)

    from agents.network import DEFAULT_MODEL
    from training.league import Trainer
    from training.machine import DeviceError, budget, resolve_device
    from training.rollout import WorkerPool
    from training.run import Run, make_config

    plan = budget(args.jobs, args.threads)
    try:
        device = resolve_device(args.device)
    except DeviceError as error:
        parser.error(str(error))

    model = args.model or (str(DEFAULT_MODEL) if DEFAULT_MODEL.suffix == ".npz" else None)
    if model is not None and not Path(model).exists():
        model = None
    config = make_config(
        variant=[args.variant],
        players=[args.players],
        jobs=args.jobs,
        envs=args.envs,
        threads=plan.threads,
        device=device,
        rollout_steps=args.rollout_steps,
        init=model,
        kick_coef=1.0 if args.kick else 0.0,
    )
    print(
        f"{args.variant} {args.players}p, jobs {args.jobs}, envs {args.envs}, torch threads "
        f"{plan.threads}, start: {Path(model).name if model else 'new network'}, "
        f"shadow expert: {'yes' if args.kick else 'no'}, device {device}, cores {plan.cores}"
    )
    for note in plan.notes:
        print(note)
    rates = {}
    for engine in args.engines:
        os.environ["CANASTA_BACKEND"] = engine  # the workers started below inherit it
        with tempfile.TemporaryDirectory() as tmp, WorkerPool(args.jobs, args.envs) as pool:
            trainer = Trainer(Run(tmp, config), pool)
            trainer.start_league()
            trainer.collect()  # warm-up: workers import and build their tables
            collect_s = update_s = 0.0
            steps = 0
            for _ in range(args.iterations):
                t0 = time.perf_counter()
                batch = trainer.collect()
                t1 = time.perf_counter()
                trainer.update(batch)
                t2 = time.perf_counter()
                trainer.iteration += 1
                collect_s += t1 - t0
                update_s += t2 - t1
                steps += len(batch["actions"])
        rates[engine] = steps / (collect_s + update_s)
        print(f"engine {engine}: learner steps/s (collect + update): {rates[engine]:,.0f}")
        print(f"  collection alone: {steps / collect_s:,.0f} steps/s ({steps} steps)")
        print(f"  PPO update alone: {steps / update_s:,.0f} samples/s")
    os.environ.pop("CANASTA_BACKEND", None)
    if {"core", "python"} <= set(rates):
        print(f"core / python: x{rates['core'] / rates['python']:.2f}")
    if args.sb3_steps:
        import sys

        import torch

        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the examples package
        from examples.sb3_maskable_ppo import train

        torch.set_num_threads(1)
        with tempfile.TemporaryDirectory() as tmp:
            _path, rate = train(tmp, args.sb3_steps, args.variant, args.players)
        print(
            f"SB3 example (MaskablePPO against random, examples/sb3_maskable_ppo.py, 1 env, "
            f"1 thread): {rate:,.0f} learner steps/s ({args.sb3_steps} steps)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
