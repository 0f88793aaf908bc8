"""The ``canasta`` console command: each subcommand lives in its own module (:data:`USAGE`
is what ``canasta --help`` prints)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

USAGE = """\
usage: canasta COMMAND [...]   (canasta COMMAND --help: its options)

  check  [...]        compliance checks over every preset and player count
  arena  [...]        a tournament that ranks agents
  leaderboard [...]   every bot and shipped agent on every table (into leaderboard/;
                      the project's board: --out docs/leaderboard.md)
  play   [...]        play a hand in the terminal against bots
  train  [...]        imitation warm start, then PPO against a league
  exploit AGENT       train a best response against a frozen agent, then measure it
  demo   [...]        the main job: check, a short tournament, a trained agent
  serve  [...]        a browser table: play the bots, watch replays (extra "web")
  --version           the installed version"""

COMMANDS = {
    "check": ("canasta_cli.check", "main"),
    "arena": ("canasta_cli.arena", "main"),
    "leaderboard": ("canasta_cli.leaderboard", "main"),
    "play": ("canasta_cli.play", "main"),
    "train": ("canasta_cli.train", "main"),
    "exploit": ("canasta_cli.exploit", "main"),
    "demo": ("canasta_cli.demo", "main"),
    "serve": ("canasta_cli.serve", "main"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0
    if argv[0] in ("-V", "--version"):
        from canasta_env import __version__

        print(f"canasta-env {__version__}")
        return 0
    command, rest = argv[0], argv[1:]
    if command not in COMMANDS:
        print(
            f"canasta: unknown command {command!r}; choose one of {', '.join(COMMANDS)}",
            file=sys.stderr,
        )
        return 2
    module_name, function = COMMANDS[command]
    module = importlib.import_module(module_name)
    return int(getattr(module, function)(rest) or 0)


def _drop_the_current_directory() -> None:
    """Run ``python -m canasta_cli`` as the ``canasta`` script runs: without the current
    directory on ``sys.path``.

    ``python -m`` puts the current directory first, where a user's own ``agents/`` or
    ``training/`` folder would hide the installed packages of the same names (the
    ``canasta`` script puts its own folder first instead). An agent's import path
    (``mybots:Bot``) is still looked up in the current directory, by the registry.
    In the source checkout (the packages' own folder) the entry stays.
    """
    home = Path(__file__).resolve().parent.parent
    here = Path.cwd().resolve()
    if sys.path and here != home and Path(sys.path[0] or os.curdir).resolve() == here:
        del sys.path[0]


if __name__ == "__main__":
    _drop_the_current_directory()
    sys.exit(main())
