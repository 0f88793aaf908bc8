"""The belief tables of :mod:`agents.belief`, measured from self-play.

    python -m research.belief_tables --players 2 --hands 600
    python -m research.belief_tables --players 4 --hands 400

Each counts the draw-phase decisions of ``ppo:classic-Np`` self-play on the classic rules
(from seed 50000 on): the other seats' real counts of each kind by public-history class,
and those of one uniform world, and writes their ratio into ``--out`` (by default the
shipped ``agents/models/belief_classic.json``; a file that exists keeps its other counts).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import numpy as np

from agents.belief import BUCKETS, CLASSES, TABLES, history_classes
from canasta_env.cards import NUM_HAND_KINDS
from canasta_env.engine.determinize import determinize


def measure(num_players: int, hands: int, seed: int = 50000, agent_name: str | None = None):
    """``(true, uniform)`` counts ``[class, bucket]`` over the draw-phase decisions of
    ``hands`` self-play hands: the other seats' real counts and those of one uniform world."""
    from agents.registry import make_agent
    from canasta_env.rules import make_rules
    from canasta_env.table import Table

    rules = make_rules("classic")
    agent = make_agent(agent_name or f"ppo:classic-{num_players}p", seed=1)
    true, uniform = np.zeros((CLASSES, BUCKETS)), np.zeros((CLASSES, BUCKETS))
    rng = random.Random(seed)

    def count(table) -> bool:  # before each decision; a draw decision is counted
        seat, game = table.current, table.game
        if game.phase == 0:  # the moment the pot is taken or not
            world = determinize(game, seat, rng)
            classes = history_classes(game, seat)
            for other in range(num_players):
                if other == seat:
                    continue
                real = np.minimum(game.hands[other][:NUM_HAND_KINDS], BUCKETS - 1)
                dealt = np.minimum(world.hands[other][:NUM_HAND_KINDS], BUCKETS - 1)
                np.add.at(true, (classes[other], real), 1)
                np.add.at(uniform, (classes[other], dealt), 1)
        return False

    for hand in range(hands):
        Table(rules, num_players, seed=seed + hand).play([agent] * num_players, until=count)
    return true, uniform


def ratios(true: np.ndarray, uniform: np.ndarray) -> np.ndarray:
    """``P(bucket | class)`` in play over the same in uniform worlds, add-one smoothed."""
    p_true = (true + 1) / (true.sum(axis=1, keepdims=True) + BUCKETS)
    p_uniform = (uniform + 1) / (uniform.sum(axis=1, keepdims=True) + BUCKETS)
    return p_true / p_uniform


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, required=True)
    parser.add_argument("--hands", type=int, default=600)
    parser.add_argument("--seed", type=int, default=50000)
    parser.add_argument("--agent", default=None, help="the self-play agent (ppo:classic-Np)")
    parser.add_argument("--out", type=Path, default=TABLES)
    args = parser.parse_args(argv)
    true, uniform = measure(args.players, args.hands, args.seed, args.agent)
    table = ratios(true, uniform)
    tables = json.loads(args.out.read_text()) if args.out.exists() else {}
    tables[str(args.players)] = {
        "agent": args.agent or f"ppo:classic-{args.players}p",
        "hands": args.hands,
        "seed": args.seed,
        "counts": {f"{c:03b}": [int(n) for n in true[c]] for c in range(CLASSES)},
        "ratios": {f"{c:03b}": [round(float(r), 4) for r in table[c]] for c in range(CLASSES)},
    }
    args.out.write_text(json.dumps(tables, indent=1, sort_keys=True) + "\n")
    p_true = true / np.maximum(true.sum(axis=1, keepdims=True), 1)
    p_uniform = uniform / np.maximum(uniform.sum(axis=1, keepdims=True), 1)
    for c in range(CLASSES):
        shown = " ".join(f"{p_true[c, b]:.3f}/{p_uniform[c, b]:.3f}" for b in range(BUCKETS))
        print(f"{c:03b} {int(true[c].sum()):7d}  in play / uniform by count: {shown}")
    print(f"wrote {args.out} ({args.players} players)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
