"""``canasta leaderboard``: every bot and shipped agent on every table
(:mod:`canasta_arena.leaderboard`), written to a page with its chart and a JSON file of
every figure (:mod:`canasta_arena.leaderboard_report`): by default into ``leaderboard/``;
the project's board is ``docs/leaderboard.md``.

    canasta leaderboard --jobs 2 --out docs/leaderboard.md   # the full run, the project's board
    canasta leaderboard --tables classic-2p,classic-4p --agents random,greedy --deals 50
    canasta leaderboard --out docs/leaderboard.md --readme   # README.md's block from its JSON

A smaller run never replaces a full board (or the README's block) without ``--overwrite``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from canasta_arena import leaderboard, leaderboard_report
from canasta_arena.schedule import ArenaInterrupted
from canasta_cli.options import (
    add_jobs_option,
    add_seed_option,
    add_trust_pickle_option,
    command_parser,
    missing_extra,
    name_list,
    table_notes,
)
from canasta_env.jsonfile import read_json_file


def _names(text: str) -> list[str]:
    return [item for item in text.split(",") if item]


def _log_to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


#: Where the page goes by default: a folder of its own, never the project's docs/.
DEFAULT_OUT = "leaderboard/leaderboard.md"


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta leaderboard",
        "Play every bot and shipped agent on every table (duplicate deals, round robin) "
        "and write the leaderboard: a page, its chart (PNG beside it) and a JSON file "
        "with every figure. With --readme, play nothing: write README.md's leaderboard "
        "block from the JSON file.",
    )
    parser.add_argument(
        "--tables",
        nargs="+",
        type=name_list(leaderboard.TABLES, "table"),
        metavar="KEY[,KEY]",
        help=f"tables, a list (all if not given): {', '.join(leaderboard.TABLES)}",
    )
    parser.add_argument(
        "--agents",
        nargs="+",
        type=_names,
        metavar="NAME[,NAME]",
        help="the agents of every table, a list (if not given: on each table the bots "
        f"{', '.join(leaderboard.BOTS)} and every shipped agent that plays it)",
    )
    parser.add_argument(
        "--without",
        nargs="+",
        type=_names,
        metavar="NAME[,NAME]",
        help="agents left out of the defaults, whole names or a loader's prefix (search: all "
        "its agents), a list",
    )
    parser.add_argument(
        "--deals",
        "--hands",  # the former name: a deal is played as several hands (arena's --hands)
        dest="hands",
        type=int,
        default=leaderboard.FULL_DEALS,
        metavar="N",
        help="duplicate deals per pairing, each played in every seat arrangement (so N "
        "deals are N x arrangements hands; --hands is the former name of this option)",
    )
    add_seed_option(parser)
    add_jobs_option(parser)
    parser.add_argument(
        "--out",
        default=DEFAULT_OUT,
        metavar="PATH",
        help=f"the page (.md; default {DEFAULT_OUT}, a folder of its own: the project's "
        "board is docs/leaderboard.md)",
    )
    parser.add_argument(
        "--json",
        metavar="PATH",
        help="the JSON file (if not given: beside --out)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a full leaderboard (every table, the default agents and deals) with a "
        "smaller run, or write a smaller run's JSON into the README's block",
    )
    parser.add_argument(
        "--update",
        action="store_true",
        help="play only the tables of --tables again (after their agents changed), with the "
        "board's agents, seed and deals, and replace them in the JSON file and the page; the "
        "other tables stay as they are",
    )
    parser.add_argument(
        "--readme",
        nargs="?",
        const="README.md",
        metavar="PATH",
        help="play nothing: rewrite the leaderboard block of this README (README.md if no "
        "path) from the JSON file",
    )
    parser.add_argument(
        "--exploitability",
        metavar="PATH",
        help="a JSON file of canasta exploit report: each table's ranking gains a column with "
        "the hands an exploiter won against each agent",
    )
    parser.add_argument(
        "--gauntlet",
        metavar="PATH",
        nargs="+",
        help="JSON files of python -m research.gauntlet run: the tables of their agents gain "
        "a column with each agent's hands won against its worst stranger",
    )
    parser.add_argument(
        "--render",
        action="store_true",
        help="play nothing: write the page (and its chart) again from the JSON file, with "
        "the columns of --exploitability and --gauntlet when given (kept in the JSON file)",
    )
    parser.add_argument("--no-plot", action="store_true", help="do not write the chart")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_trust_pickle_option(parser, "agents")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    json_path = args.json or str(Path(args.out).with_suffix(".json"))
    if args.readme:
        try:
            if not args.overwrite:
                document = read_json_file(json_path, "leaderboard")
                if not leaderboard.is_full_run(document):
                    raise ValueError(
                        f"{json_path} holds a smaller run than the full leaderboard; the "
                        "README's block shows a full run: refused (--overwrite writes it)"
                    )
            changed = leaderboard_report.write_readme_block(args.readme, json_path)
        except (OSError, ValueError) as error:
            print(f"canasta leaderboard: {error}", file=sys.stderr)
            return 2
        except MALFORMED as error:
            print(f"canasta leaderboard: {_malformed(json_path, error)}", file=sys.stderr)
            return 2
        print(f"{'rewrote' if changed else 'unchanged:'} the leaderboard block of {args.readme}")
        return 0
    try:  # the page, the JSON file and the chart: three files, none an input; before any play
        inputs = [args.exploitability] if args.exploitability else []
        inputs += args.gauntlet or []
        leaderboard_report.check_output_paths(args.out, json_path, not args.no_plot, inputs)
    except ValueError as error:
        print(f"canasta leaderboard: {error}", file=sys.stderr)
        return 2
    try:  # a bad file is refused before any play
        columns = _Columns.read(args.exploitability, args.gauntlet or [])
    except (OSError, ValueError) as error:
        print(f"canasta leaderboard: {error}", file=sys.stderr)
        return 2
    if args.render:
        try:
            document = columns.attach(read_json_file(json_path, "leaderboard"))
            written = leaderboard_report.write_leaderboard(
                document, args.out, json_path, plot=not args.no_plot
            )
        except (OSError, ValueError) as error:
            print(f"canasta leaderboard: {json_path}: {error}", file=sys.stderr)
            return 2
        except MALFORMED as error:
            print(f"canasta leaderboard: {_malformed(json_path, error)}", file=sys.stderr)
            return 2
        print(f"wrote {', '.join(str(p) for p in written)}")
        return 0
    tables = None if args.tables is None else [t for group in args.tables for t in group]
    agents = None if args.agents is None else [a for group in args.agents for a in group]
    without = [a for group in args.without or () for a in group]
    modules = ["openskill"] + ([] if args.no_progress else ["tqdm"])
    problem = missing_extra("arena", modules + ([] if args.no_plot else ["matplotlib"]))
    if problem:
        print(f"canasta leaderboard: {problem}", file=sys.stderr)
        return 2
    if args.update:
        return _update(args, argv, json_path, tables, agents, without, columns)
    full = tables is None and agents is None and args.hands >= leaderboard.FULL_DEALS
    if not full and not args.overwrite and Path(json_path).exists():
        try:  # checked before any hand is played: a refusal costs nothing
            earlier = read_json_file(json_path, "leaderboard")
        except ValueError:
            earlier = None
        if isinstance(earlier, dict) and leaderboard.is_full_run(earlier):
            print(
                f"canasta leaderboard: {json_path} holds the full leaderboard; this smaller "
                "run would replace it: refused (--out elsewhere, or --overwrite)",
                file=sys.stderr,
            )
            return 2
    started = time.perf_counter()
    try:
        for key in (tables or leaderboard.TABLES) if agents else ():  # given agents only
            table = leaderboard.TABLES[key]
            for note in table_notes(agents, table.variant, table.players, args.trust_pickle):
                print(f"canasta leaderboard: {key}: {note}", file=sys.stderr)
        document = leaderboard.run_leaderboard(
            tables,
            agents,
            deals=args.hands,
            seed=args.seed,
            jobs=args.jobs,
            command=shlex.join(["canasta", "leaderboard", *argv]),
            progress=not args.no_progress,
            log=_log_to_stderr,
            trust_pickle=args.trust_pickle,
            without=without,
        )
    except ValueError as error:
        print(f"canasta leaderboard: {error}", file=sys.stderr)
        return 2
    except (ArenaInterrupted, KeyboardInterrupt):
        print("canasta leaderboard: interrupted; nothing written", file=sys.stderr)
        return 130
    _write(document, args, json_path, columns)
    print(f"{time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


#: What rendering a board raises on a JSON file of another shape than the one this
#: command writes (a field missing, of another type, a list too short).
MALFORMED = (LookupError, TypeError, AttributeError)


def _malformed(json_path: str, error: Exception) -> str:
    """One line for a board that is valid JSON but not a leaderboard this command wrote."""
    what = {KeyError: "a field is missing", IndexError: "a list is too short"}.get(
        type(error), "a field has another type"
    )
    return (
        f"{json_path}: not a leaderboard as canasta leaderboard writes it ({what}: "
        f"{str(error)[:80]}); nothing written"
    )


class _Columns:
    """The files behind the board's extra columns: an exploit report, gauntlets."""

    def __init__(self, exploits: dict | None, gauntlets: list[dict]):
        self.exploits, self.gauntlets = exploits, gauntlets

    @classmethod
    def read(cls, exploitability: str | None, gauntlets: list[str]) -> _Columns:
        """The files read and checked (``ValueError`` naming the one that is not one)."""
        if len(gauntlets) > leaderboard.MAX_GAUNTLETS:
            raise ValueError(f"at most {leaderboard.MAX_GAUNTLETS} --gauntlet files")
        exploits = None
        if exploitability:
            exploits = read_json_file(exploitability, "exploitability report")
            leaderboard.attach_exploitability({}, exploits)
        read = []
        for path in gauntlets:
            gauntlet = read_json_file(path, "gauntlet", leaderboard.MAX_GAUNTLET_BYTES)
            try:
                leaderboard.attach_strangers({}, [gauntlet])
            except ValueError as error:
                raise ValueError(f"{path}: {error}") from None
            read.append(gauntlet)
        return cls(exploits, read)

    def attach(self, document: dict) -> dict:
        if self.exploits is not None:
            document = leaderboard.attach_exploitability(document, self.exploits)
        if self.gauntlets:
            document = leaderboard.attach_strangers(document, self.gauntlets)
        return document


def _write(document: dict, args, json_path: str, columns: _Columns) -> None:
    """The page, its chart and the JSON file, with the extra columns when given."""
    document = columns.attach(document)
    written = leaderboard_report.write_leaderboard(
        document, args.out, json_path, plot=not args.no_plot
    )
    print(f"wrote {', '.join(str(p) for p in written)}")


def _update(args, argv, json_path, tables, agents, without, columns: _Columns) -> int:
    """``--update``: the board's tables named by ``--tables`` played again, in place."""
    try:
        if agents is not None or without:
            raise ValueError("--update plays the board's own agents: no --agents or --without")
        document = read_json_file(json_path, "leaderboard")
        if not isinstance(document, dict) or not isinstance(document.get("tables"), list):
            raise ValueError(f"{json_path}: not a leaderboard")
        for option, given, held, default in (
            ("--deals", args.hands, document.get("deals_per_pairing"), leaderboard.FULL_DEALS),
            ("--seed", args.seed, document.get("seed"), 0),
        ):
            if given not in (held, default):
                raise ValueError(f"--update plays the board's {option} {held}, not {given}")
        document = leaderboard.update_leaderboard(
            document,
            tables or (),
            jobs=args.jobs,
            command=shlex.join(["canasta", "leaderboard", *argv]),
            progress=not args.no_progress,
            log=_log_to_stderr,
            trust_pickle=args.trust_pickle,
        )
    except (OSError, ValueError) as error:
        print(f"canasta leaderboard: {error}", file=sys.stderr)
        return 2
    except MALFORMED as error:
        print(f"canasta leaderboard: {_malformed(json_path, error)}", file=sys.stderr)
        return 2
    except (ArenaInterrupted, KeyboardInterrupt):
        print("canasta leaderboard: interrupted; nothing written", file=sys.stderr)
        return 130
    try:
        _write(document, args, json_path, columns)
    except MALFORMED as error:  # a board kept from the file that the page cannot show
        print(f"canasta leaderboard: {_malformed(json_path, error)}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
