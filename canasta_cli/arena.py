"""``canasta arena``: the command line of the tournament (:func:`canasta_arena.arena.run_arena`).

Usage::

    canasta arena --variant classic --players 2 --agents random greedy expert \\
        --hands 2000 --seed 0 [--jobs 2] [--out arena_out] [--overwrite] [--trust-pickle] \\
        [--pairing round-robin|given] [--no-duplicate] [--no-progress] [--no-plot]
        [--ray [ADDRESS] [--ray-batch 8] [--ray-retries 3]]
    canasta arena --speed --agents random greedy expert
    canasta arena --agents mypkg.bots:MyAgent expert   # an outside agent (docs/agents.md)
    canasta arena --agents mine=ppo:runs/c2/model.npz expert   # a label for a long name

What the tournament does and writes is :mod:`canasta_arena.arena`'s module doc. A trained agent
at a table it was not trained for is named on stderr before the first hand.
"""

from __future__ import annotations

import argparse
import sys
import time

from canasta_arena import arena
from canasta_arena.schedule import PAIRINGS, ArenaInterrupted
from canasta_cli.options import (
    add_jobs_option,
    add_seed_option,
    add_table_options,
    add_trust_pickle_option,
    agent_names_help,
    command_parser,
    missing_extra,
    table_notes,
)
from canasta_env.rules import make_rules, parse_rule_overrides


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta arena",
        "A duplicate-deal tournament that ranks agents (see canasta_arena/arena.py).",
    )
    add_table_options(parser)
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["random", "greedy", "expert"],
        metavar="NAME",
        help=f"agent names: {agent_names_help()}; LABEL=NAME shows a long name as LABEL "
        "in the tables (fast=ppo:runs/a/model.npz)",
    )
    parser.add_argument("--hands", type=int, default=2000, metavar="N", help="hands per pairing")
    add_seed_option(parser)
    add_jobs_option(parser)
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the hands as Ray tasks: a local instance (no address; --jobs N caps it at "
        "N CPUs) or the cluster at ADDRESS (docs/ray.md)",
    )
    parser.add_argument("--ray-batch", type=int, default=8, metavar="N", help="hands per Ray task")
    parser.add_argument(
        "--ray-retries",
        type=int,
        default=3,
        metavar="N",
        help="times a task lost with its worker is resent",
    )
    parser.add_argument(
        "--out",
        default="arena_out",
        metavar="DIR",
        help="output folder; one that is not empty is refused without --overwrite",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the files of a --out folder in use"
    )
    add_trust_pickle_option(parser, "agents")
    parser.add_argument(
        "--pairing", default="round-robin", choices=PAIRINGS, help="which agents meet"
    )
    parser.add_argument("--no-duplicate", action="store_true", help="a fresh deal for every hand")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-plot", action="store_true", help="do not write ratings.png")
    parser.add_argument(
        "--speed",
        action="store_true",
        help="only measure each agent's decisions per second (time inside act) and exit",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.speed:
        return _print_speeds(args)
    modules = ["openskill"] + ([] if args.no_progress else ["tqdm"])
    problem = missing_extra("arena", modules + ([] if args.no_plot else ["matplotlib"]))
    if problem:
        print(f"canasta arena: {problem}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        # the rules, checked once: the object every process plays
        rules = make_rules(args.variant, **parse_rule_overrides(args.rule))
        for note in table_notes(args.agents, args.variant, args.players, args.trust_pickle):
            print(f"canasta arena: {note}", file=sys.stderr)
        result = arena.run_arena(
            args.agents,
            variant=rules,
            num_players=args.players,
            hands=args.hands,
            seed=args.seed,
            jobs=args.jobs,
            pairing=args.pairing,
            duplicate=not args.no_duplicate,
            out_dir=args.out,
            progress=not args.no_progress,
            plot=not args.no_plot,
            ray=args.ray,
            ray_batch=args.ray_batch,
            ray_retries=args.ray_retries,
            trust_pickle=args.trust_pickle,
            overwrite=args.overwrite,
        )
    except ValueError as error:
        print(f"canasta arena: {error}", file=sys.stderr)
        return 2
    except ArenaInterrupted as interrupted:
        result = getattr(interrupted, "result", None)
        if result is None:  # a second Ctrl-C before the outputs were written
            print("canasta arena: interrupted; nothing written", file=sys.stderr)
            return 130
        print(result.report)
        print(
            f"canasta arena: interrupted; wrote the {len(result.hands)} hands played so far "
            f"to {args.out}/results.json, marked partial",
            file=sys.stderr,
        )
        return 130
    except KeyboardInterrupt:  # before any hand was played (loading the agents)
        print("canasta arena: interrupted before any hand was played", file=sys.stderr)
        return 130
    print(result.report)
    elapsed = time.perf_counter() - started
    print(f"\nwrote {args.out}/hands.csv, results.json" + ("" if args.no_plot else ", ratings.png"))
    print(f"{len(result.hands)} hands in {elapsed:.1f} s", file=sys.stderr)
    return 0


def _print_speeds(args: argparse.Namespace) -> int:
    if args.hands < 1:
        print(f"canasta arena: --hands must be at least 1, got {args.hands}", file=sys.stderr)
        return 2
    hands = min(args.hands, 50)
    print(f"decisions per second ({args.variant}, {args.players} players, {hands} hands each)")
    for name in dict.fromkeys(args.agents):
        try:
            speed = arena.measure_speed(
                name, args.variant, args.players, hands, args.seed, args.trust_pickle
            )
        except ValueError as error:
            print(f"canasta arena: {error}", file=sys.stderr)
            return 2
        print(
            f"  {name:<16} {speed['decisions_per_second']:>10.0f} /s "
            f"({speed['decisions']} decisions)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
