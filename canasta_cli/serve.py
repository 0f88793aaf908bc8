"""``canasta serve``: the command line of the browser table (:func:`canasta_web.serve.serve`).

Usage::

    canasta serve [--host 127.0.0.1] [--port 8000] [--allow-host NAME ...]
                  [--replay FILE] [--arena DIR --hand N] [--no-browser]

What it serves and whom it answers is :mod:`canasta_web.serve`'s module doc. The ``web``
extra is looked for only after the arguments are checked, so ``--help`` works without it.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys

from canasta_cli.options import command_parser


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta serve", "Play against the bots and watch replays in a web page."
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument(
        "--port", type=int, default=8000, metavar="N", help="port (0: any free port)"
    )
    parser.add_argument("--replay", metavar="FILE", help="open this replay file")
    parser.add_argument("--arena", metavar="DIR", help="an arena output folder (results.json)")
    parser.add_argument(
        "--hand", type=int, metavar="N", help="with --arena: the index of the hand to open"
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to this host name (repeatable), e.g. the "
        "machine's name when listening on 0.0.0.0",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if (args.arena is None) != (args.hand is None):
        print("canasta serve: --arena DIR and --hand N go together", file=sys.stderr)
        return 2
    if args.replay and args.arena:
        print("canasta serve: give --replay or --arena, not both", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"canasta serve: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    from canasta_web import serve

    if any(importlib.util.find_spec(name) is None for name in ("fastapi", "uvicorn")):
        print(serve.missing_extra(), file=sys.stderr)
        return 2
    try:
        startup = serve.startup_replay(args)
    except (OSError, ValueError) as error:
        print(f"canasta serve: {error}", file=sys.stderr)
        return 2
    return serve.serve(
        args.host, args.port, tuple(args.allow_host), startup, browser=not args.no_browser
    )


if __name__ == "__main__":
    sys.exit(main())
