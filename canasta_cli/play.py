"""``canasta play``: the command line of a hand in the terminal
(:func:`canasta_cli.terminal_play.play_hand`).

Usage::

    canasta play --variant classic --players 2 --opponents expert [--partners greedy]
                 [--seat 0] [--seed N] [--no-color] [--trust-pickle]

How a hand is played is :mod:`canasta_cli.terminal_play`'s module doc.
``main(argv, input_fn, output)`` takes the input function and the output stream so a test
can drive a whole hand with scripted input; errors go to ``output`` too. A trained bot at a
table it was not trained for is named on stderr.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TextIO

from agents.registry import make_agent
from canasta_cli import terminal_play
from canasta_cli.options import (
    add_seed_option,
    add_table_options,
    add_trust_pickle_option,
    agent_names_help,
    command_parser,
    table_notes,
)
from canasta_env.engine.game import IllegalActionError
from canasta_env.rules import make_rules, parse_rule_overrides


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser("canasta play", "Play a hand of Canasta in the terminal against bots.")
    add_table_options(parser)
    parser.add_argument(
        "--opponents", default="expert", metavar="NAME", help=f"bot name: {agent_names_help()}"
    )
    parser.add_argument(
        "--partners",
        default=None,
        metavar="NAME",
        help="bot name for your partners (4, 6 players); the --opponents bot if not given",
    )
    parser.add_argument(
        "--seat", type=int, default=0, metavar="N", help="your seat (player number)"
    )
    add_seed_option(parser, default=None, what="deal seed (a fresh deal each time if not given)")
    parser.add_argument("--no-color", action="store_true", help="plain text, no ANSI colours")
    add_trust_pickle_option(parser, "bots")
    return parser


def main(
    argv: list[str] | None = None,
    input_fn: Callable[[str], str] = input,
    output: TextIO | None = None,
) -> int:
    output = output or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        overrides = parse_rule_overrides(args.rule)
        rules = make_rules(args.variant, **overrides)
    except ValueError as error:
        print(f"canasta play: {error}", file=output)
        return 2
    if args.players not in rules.player_counts:
        print(
            f"canasta play: {args.variant} is played by {list(rules.player_counts)} players",
            file=output,
        )
        return 2
    if not 0 <= args.seat < args.players:
        print(f"canasta play: --seat must be 0..{args.players - 1}", file=output)
        return 2
    bots = [args.opponents] + ([args.partners] if args.partners else [])
    try:
        for name in bots:
            make_agent(name, trust_pickle=args.trust_pickle)
    except ValueError as error:
        print(f"canasta play: {error}", file=output)
        return 2
    for note in table_notes(bots, args.variant, args.players, args.trust_pickle):
        print(f"canasta play: {note}", file=sys.stderr)
    try:
        return terminal_play.play_hand(
            args.variant,
            args.players,
            args.seat,
            args.opponents,
            args.partners or args.opponents,
            args.seed,
            not args.no_color,
            input_fn,
            output,
            overrides,
            args.trust_pickle,
        )
    except IllegalActionError as error:  # a bot's bug: the table refused its move
        print(f"canasta play: {error}", file=output)
        return 2
    except ValueError as error:  # a bot that refuses the table (house rules it cannot play)
        print(f"canasta play: {error}", file=output)
        return 2
    except KeyboardInterrupt:  # Ctrl-C at a prompt: as q, with the status of an interrupt
        print("\ncanasta play: interrupted", file=output)
        return 130


if __name__ == "__main__":
    sys.exit(main())
