"""``canasta check``: the compliance checks (:func:`canasta_env.compliance.run_checks`).

Usage::

    canasta check [--variant classic,spanish] [--players 2 4] [--quick] [--cycles N]
                  [--seed N] [-v]
"""

from __future__ import annotations

import argparse
import sys
import time

from canasta_cli.options import add_seed_option, add_table_options, command_parser
from canasta_env.compliance import CHECK_VARIANTS, format_table, run_checks


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta check",
        "PettingZoo API, seeding, rendering, truncation, mask, card-conservation "
        "and hidden-information checks for every preset and player count.",
    )
    add_table_options(
        parser,
        players=None,
        rules=False,
        variant=None,
        many=True,
        variants=CHECK_VARIANTS,
        otherwise=("all if not given", "every count a preset allows if not given"),
    )
    parser.add_argument("--quick", action="store_true", help="fewer random episodes")
    parser.add_argument(
        "--cycles",
        type=int,
        default=None,
        metavar="N",
        help="num_cycles of the api and seed tests (200 with --quick, else 1000)",
    )
    add_seed_option(parser, what="seed of the random play")
    parser.add_argument("-v", "--verbose", action="store_true", help="tracebacks of failures")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.cycles is not None and args.cycles < 1:
        parser.error(f"--cycles must be at least 1, got {args.cycles}")
    cycles = args.cycles if args.cycles is not None else (200 if args.quick else 1000)
    start = time.perf_counter()
    try:
        results = run_checks(
            args.variant,
            args.players,
            cycles=cycles,
            quick=args.quick,
            seed=args.seed,
            verbose=args.verbose,
        )
    except ValueError as error:
        print(f"canasta check: {error}")
        return 2
    if not results:
        print("canasta check: no preset supports the requested player counts")
        return 2
    print(format_table(results))
    failures = [r for r in results if not r.passed]
    for result in failures:
        print(f"\nFAIL {result.variant} {result.players}p {result.check}: {result.detail}")
    total = time.perf_counter() - start
    print(
        f"\n{len(results) - len(failures)}/{len(results)} checks passed "
        f"in {total:.1f} s" + ("" if not failures else f"; {len(failures)} failed")
    )
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
