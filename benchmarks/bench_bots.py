"""The house bots in Python against their twins in the core, in one run: hands per
CPU-second of ``expert`` against ``greedy`` (the arena's loop, ``agents.base.play_hands``),
on the Python engine with the Python bots, on the core with the Python bots (the twins
off), and on the core with the twins playing every seat in C++ (``Table.play`` ->
``core.play_bots``); then the batched core with bots in every seat but the learner's
(``_core.Batch.set_bot``, a greedy learner stepped from Python), hands per CPU-second.

    python benchmarks/bench_bots.py [--hands N] [--variant classic] [--players 2]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.base import play_hands
from agents.registry import make_agent
from canasta_env.core import AVAILABLE, WHY_NOT, CoreBot, _core, core_rules
from canasta_env.rules import make_rules


def arena_rate(hands: int, variant: str, players: int, backend: str, twins: bool) -> float:
    """Hands per CPU-second of expert against greedy (alternating seats)."""
    agents = [make_agent("expert" if s % 2 == 0 else "greedy", seed=s) for s in range(players)]
    for agent in agents:
        agent.use_core = twins
    start = time.process_time()
    records = play_hands(agents, hands, variant=variant, seed=0, backend=backend)
    assert len(records) == hands
    return hands / (time.process_time() - start)


def batch_rate(hands: int, variant: str, players: int, tables: int = 64) -> float:
    """Hands per CPU-second of the batched core, bots (expert, greedy alternating) in every
    seat but seat 0, whose greedy learner is stepped from Python (its CoreBot's act)."""
    rules = make_rules(variant)
    batch = _core.Batch(core_rules(rules, players), rules.name, players, tables)
    for k in range(tables):
        for s in range(1, players):
            batch.set_bot(k, s, CoreBot("expert" if s % 2 == 0 else "greedy")._bot)
    learners = [CoreBot("greedy") for _ in range(tables)]
    for learner in learners:
        learner.reset(0, players, rules)
    batch.reset(False, [0])
    done = 0
    actions = np.zeros(tables, np.int64)
    start = time.process_time()
    while done < hands:
        for k, learner in enumerate(learners):
            actions[k] = learner.act(batch.obs[k], batch.mask[k])
        batch.step(actions)
        ended = np.flatnonzero(batch.done)
        for k in ended:
            learners[k].reset(0, players, rules)
        done += len(ended)
    return done / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    if not AVAILABLE:
        raise SystemExit(WHY_NOT)
    where = f"{args.variant}, {args.players} players, {args.hands} hands, expert vs greedy"
    print(f"house bots, hands per CPU-second ({where})")
    python = arena_rate(args.hands, args.variant, args.players, "python", twins=False)
    core_python_bots = arena_rate(args.hands, args.variant, args.players, "core", twins=False)
    core_twins = arena_rate(args.hands, args.variant, args.players, "core", twins=True)
    batch = batch_rate(args.hands, args.variant, args.players)
    rows = [
        ("Python engine, Python bots", python),
        ("core, Python bots", core_python_bots),
        ("core, bots in C++ (Table.play)", core_twins),
        ("batched core, bots in C++ (Batch.set_bot)", batch),
    ]
    for label, rate in rows:
        print(f"  {label:44s} {rate:10.1f} hands/s  {rate / python:6.1f}x")


if __name__ == "__main__":
    main()
