"""The gauntlet: an agent against opponents it never trained with, on duplicate deals.

The league trains an agent; the gauntlet judges it (docs/generalisation.md). Its opponents,
by group:

==============  ============================================================================
group           who
==============  ============================================================================
``stranger``    bots written from the public docs alone by writers who read no agent, bot
                or training code (:mod:`research.strangers`, ``s1_*`` to ``s4_*``)
``wide``        the house bots' strategies with every number drawn each hand from ranges
                far wider than any league's (:mod:`research.strangers.wide`)
``held-out``    the project's own held-out bots (``examples.docs_bots``, ``MyBot``, the
                held-out styled families): written inside the project, so no longer a fair
                stranger, reported beside the others
``exploiter``   the best responses ``canasta exploit`` trained against earlier agents
                (``research/exploiters/``)
``snapshot``    earlier agents of the table (``research/hardening/``, the shipped model)
``house``       ``expert``, the reference every figure of the project is compared with
==============  ============================================================================

An opponent the agent trained against (an entry of its run's ``opponents``, given with
``--config``) is played and marked ``trained with``; the headline is the **worst stranger**:
the lowest win rate over the ``stranger`` and ``wide`` groups.

    python -m research.gauntlet run --agent ppo:classic-4p --players 4 \\
        --config docs/training/run_g8_config.json --hands 2000 --seed 9100 --jobs 2 \\
        --out docs/training/gauntlet_s889_4p.json
    python -m research.gauntlet report docs/training/gauntlet_s889_4p.json [MORE.json ...]
    python -m research.gauntlet compare --first ppo:A.npz --second ppo:B.npz --players 2 \
        --hands 4000 --seed 7300     # an ablation: two agents on the same hands

Classic at 2 or 4 players by default; ``--table KEY`` plays another of the leaderboard's tables
(``spanish-3p``, ``spanish-runs-4p``: :data:`canasta_arena.leaderboard.TABLES`), where the
opponents are the same bots and the table's own networks, if any.

``run`` keeps every finished pairing in ``--out`` (written after each), so a stopped run
resumes where it stopped; the same command gives the same hands (the arena's duplicate deals
from ``--seed``). Every gauntlet file read (``run --out``, ``report``, ``card``) is checked
first against the shape ``run`` writes (:func:`read_gauntlet`): one that is not is refused
in one line naming the file and the field, and nothing is written.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from agents.model_file import file_digest
from canasta_arena.leaderboard import MAX_GAUNTLET_BYTES, TABLES
from canasta_env.jsonfile import read_json_file, shown

ROOT = Path(__file__).resolve().parent.parent

#: The stranger bots (docs only), each by its import path.
STRANGERS = (
    "research.strangers.s1_racer:Racer",
    "research.strangers.s1_freezer:Freezer",
    "research.strangers.s1_guard:Guard",
    "research.strangers.s2_hoarder:PotHoarder",
    "research.strangers.s2_builder:CanastaBuilder",
    "research.strangers.s2_counter:Counter",
    "research.strangers.s3_bots:Tempo",
    "research.strangers.s3_bots:PotTaker",
    "research.strangers.s4_bots:Scorer",
    "research.strangers.s4_bots:WildBanker",
)
WIDE = ("research.strangers.wide:WideExpert", "research.strangers.wide:WideStyled")
HELD_OUT = (
    "examples.docs_bots:Hoarder",
    "examples.docs_bots:Sprinter",
    "examples.docs_bots:PileBlocker",
    "examples.my_bot:MyBot",
    "style:builder",
    "style:controller",
)
HOUSE = ("expert",)
#: The groups whose worst figure is the headline.
HEADLINE_GROUPS = ("stranger", "wide")


def table_of(players: int | None, table: str | None = None):
    """The leaderboard table a gauntlet plays: ``table`` by key, or classic at ``players``;
    ``ValueError`` for an unknown key or a player count that is not the table's."""
    key = table if table is not None else f"classic-{players}p"
    if key not in TABLES:
        raise ValueError(f"no table {key!r}; the tables are {', '.join(TABLES)}")
    found = TABLES[key]
    if players is not None and players != found.players:
        raise ValueError(f"table {key} is played by {found.players} players, not {players}")
    return found


def table_key(document: dict) -> str:
    """The table of a gauntlet file (one written before tables names none: classic)."""
    return document.get("table") or f"classic-{document.get('players')}p"


def _model_path(agent: str) -> Path | None:
    """The model file of a ``ppo:`` agent (a shipped name resolved), or None."""
    if not agent.startswith("ppo:"):
        return None
    from agents.network import resolve_model

    try:
        return Path(resolve_model(agent[len("ppo:") :]))
    except (ValueError, OSError):
        return None


def opponents(players: int, agent: str, table: str | None = None) -> list[tuple[str, str]]:
    """(group, agent name) of every opponent of a ``players`` table (classic, or ``table``
    by key); networks that are the agent's own file (by digest) are left out."""
    stem = table_of(players, table).key.replace("-", "_")  # classic_4p: the file names
    own = _model_path(agent)
    own_digest = file_digest(own) if own is not None and own.is_file() else None
    rows = [("stranger", name) for name in STRANGERS]
    rows += [("wide", name) for name in WIDE]
    rows += [("held-out", name) for name in HELD_OUT]
    rows += [("house", name) for name in HOUSE]
    networks = [("exploiter", p) for p in sorted((ROOT / "research/exploiters").glob("*.npz"))]
    networks += [("snapshot", p) for p in sorted((ROOT / "research/hardening").glob("*.npz"))]
    networks += [("snapshot", ROOT / f"agents/models/{stem}.npz")]
    seen = {own_digest}
    for group, path in networks:
        if not path.name.startswith(stem) or not path.is_file() or file_digest(path) in seen:
            continue
        seen.add(file_digest(path))
        rows.append((group, "ppo:" + str(path.relative_to(ROOT))))
    return rows


def trained_with(config_path: str | Path | None) -> set[str]:
    """The league entries of a run's ``config.json`` (``opponents``), network entries by
    their file's digest (``sha256:HEX``) so that a copy of an exploiter is recognised."""
    if config_path is None:
        return set()
    config = read_json_file(Path(config_path), "run config", MAX_GAUNTLET_BYTES)
    if not isinstance(config, dict):
        raise ValueError(f"{config_path}: top level: expected an object, got {_got(config)}")
    league = config.get("opponents") or {}
    if not isinstance(league, dict):
        raise ValueError(f"{config_path}: opponents: expected an object, got {_got(league)}")
    names: set[str] = set()
    for entry in league:
        path = _model_path(entry)
        if path is not None and path.is_file():
            names.add("sha256:" + file_digest(path))
        elif isinstance(entry, str):
            names.add(entry)
    return names


def _was_trained_with(name: str, league: set[str]) -> bool:
    if name in league:
        return True
    if name.startswith("style:") and "styled" in league:
        return False  # ``styled`` draws training families only: a held-out one never
    path = _model_path(name)
    return path is not None and path.is_file() and "sha256:" + file_digest(path) in league


def _play(
    agent: str, opponent: str, players: int, hands: int, seed: int, jobs: int, table: str | None
):
    """The arena's duplicate hands of the agent against the opponent: the agent's ranking
    row and its score difference in each hand, in the order of deals and seatings."""
    from canasta_arena.arena import run_arena

    where = table_of(players, table)
    seats = [f"agent={agent}", f"opponent={opponent}"]  # labels: the same name twice is fine
    result = run_arena(
        seats, where.variant, players, hands=hands, seed=seed, jobs=jobs, plot=False,
        rules=dict(where.rules) or None,
    )  # fmt: skip
    row = next(r for r in result.summary["ranking"] if r["agent"] == seats[0])
    ordered = sorted(result.hands, key=lambda hand: (hand.deal, hand.arrangement))
    return row, [hand.score_diff[seats[0]] for hand in ordered]


def play_pairing(
    agent: str, opponent: str, players: int, hands: int, seed: int, jobs: int,
    table: str | None = None,
) -> dict:  # fmt: skip
    """The agent against one opponent on ``hands`` duplicate hands: its share of hands won
    (Wilson interval) and its mean score difference a hand (t interval)."""
    from canasta_arena.stats import mean_interval

    started = time.perf_counter()
    row, diffs = _play(agent, opponent, players, hands, seed, jobs, table)
    mean, low, high = mean_interval(diffs)
    return {
        "hands": row["hands"],
        "win_rate": row["win_rate"],
        "win_ci": list(row["win_ci"]),
        "score_diff": mean,
        "score_diff_ci": [low, high],
        "seconds": round(time.perf_counter() - started, 1),
    }


def _won(
    agent: str, opponent: str, players: int, hands: int, seed: int, jobs: int, table: str | None
) -> list:
    """The agent's result in each hand against the opponent (1 won, 0.5 tied, 0 lost), in
    the arena's order of deals and seatings, which ``seed`` fixes."""
    _, diffs = _play(agent, opponent, players, hands, seed, jobs, table)
    return [1.0 if d > 0 else 0.5 if d == 0 else 0.0 for d in diffs]


def compare(
    first: str, second: str, opponent: str, players: int, hands: int, seed: int, jobs: int = 1,
    table: str | None = None,
) -> dict:  # fmt: skip
    """Two agents against one opponent on the same duplicate hands, compared hand by hand
    (an ablation's measure): each one's share of hands won, and the first's minus the
    second's with its 95% t interval over the hands. Each hand's cards are the same for
    both, so their luck cancels and the interval is narrower than the two apart."""
    from canasta_arena.stats import mean_interval

    if hands < 2:
        raise ValueError(f"--hands {hands}: at least 2 for an interval")
    key = table_of(players, table).key  # a bad table fails before any hand is played
    a = _won(first, opponent, players, hands, seed, jobs, table)
    b = _won(second, opponent, players, hands, seed, jobs, table)
    diff, low, high = mean_interval([x - y for x, y in zip(a, b, strict=True)])
    return {
        "first": first, "second": second, "opponent": opponent,
        "table": key, "players": players, "hands": len(a),
        "seed": seed, "first_win_rate": sum(a) / len(a), "second_win_rate": sum(b) / len(b),
        "diff": diff, "diff_ci": [low, high],
    }  # fmt: skip


def run(
    agent: str,
    players: int,
    out: Path,
    *,
    hands: int = 2000,
    seed: int = 9100,
    jobs: int = 1,
    config: str | None = None,
    only: Sequence[str] = (),
    log: Callable[[str], None] = print,
    table: str | None = None,
) -> dict:
    """Play every opponent not yet in ``out`` (see the module doc); returns the document."""
    from canasta_env.safe_write import atomic_write

    key = table_of(players, table).key

    model = _model_path(agent)
    document = {
        "agent": agent,
        "agent_sha256": file_digest(model) if model is not None and model.is_file() else None,
        "table": key,
        "players": players,
        "config": None if config is None else str(config),  # its league: "trained with"
        "hands": hands,
        "seed": seed,
        "worst": None,
        "rows": [],
    }
    if out.exists():
        kept = read_gauntlet(out)
        kept["table"] = table_key(kept)
        keys = ("agent", "agent_sha256", "table", "players", "hands", "seed")
        if not all(kept.get(k) == document[k] for k in keys):
            raise ValueError(f"{out}: a gauntlet of another agent, model file, table, size or seed")
        # the league it was started with marks the new rows too: no --config on resume takes
        # the file's; a file written before it named one takes this run's
        if config is None:
            config = kept.get("config")
        elif kept.get("config") not in (None, str(config)):
            raise ValueError(f"{out}: started with --config {kept['config']}, not {config}")
        kept["config"] = None if config is None else str(config)
        document = kept
    league = trained_with(config)
    done = {row["opponent"] for row in document["rows"]}
    for group, opponent in opponents(players, agent, key):
        if opponent in done or (only and group not in only):
            continue
        figures = play_pairing(agent, opponent, players, hands, seed, jobs, key)
        row = {"group": group, "opponent": opponent, **figures}
        row["trained_with"] = _was_trained_with(opponent, league)
        document["rows"].append(row)
        document["worst"] = worst(document)  # the headline, as the leaderboard reads it
        atomic_write(out, json.dumps(document, indent=1) + "\n", "gauntlet")
        log(f"[gauntlet] {group:9} {opponent}: {percent(row)} ({figures['seconds']} s)")
    return document


def _got(value: object) -> str:
    """``value`` as a refusal repeats it: its ``repr`` (a string quoted), cut short."""
    return shown(repr(value))


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _share(value: object) -> bool:
    return _number(value) and 0 <= value <= 1


def _pair(test: Callable[[object], bool]) -> Callable[[object], bool]:
    return lambda value: isinstance(value, list) and len(value) == 2 and all(map(test, value))


_TEXT = ("a string", lambda value: isinstance(value, str))
_TEXT_OR_NULL = ("a string or null", lambda value: value is None or isinstance(value, str))
_INTEGER = ("an integer", lambda value: isinstance(value, int) and not isinstance(value, bool))

#: The fields of a gauntlet file as :func:`run` writes them: what each must be, and its test
#: (``rows`` and ``worst`` are checked by :data:`ROW_FIELDS`). ``table`` and ``config`` may be
#: missing: files written before them lack them.
FIELDS = {
    "agent": _TEXT,
    "agent_sha256": _TEXT_OR_NULL,
    "table": _TEXT,
    "players": _INTEGER,
    "config": _TEXT_OR_NULL,
    "hands": _INTEGER,
    "seed": _INTEGER,
    "worst": ("an object or null", lambda value: value is None or isinstance(value, dict)),
    "rows": ("a list", lambda value: isinstance(value, list)),
}
OPTIONAL_FIELDS = ("table", "config")
#: The fields of a row of ``rows`` (and of ``worst``, a copy of one), as :func:`run` writes them.
ROW_FIELDS = {
    "group": _TEXT,
    "opponent": _TEXT,
    "hands": _INTEGER,
    "win_rate": ("a number in 0..1", _share),
    "win_ci": ("a list of two numbers in 0..1", _pair(_share)),
    "score_diff": ("a number", _number),
    "score_diff_ci": ("a list of two numbers", _pair(_number)),
    "seconds": ("a number", _number),
    "trained_with": ("true or false", lambda value: isinstance(value, bool)),
}


def _check_fields(
    found: object, fields: dict, path: Path, where: str, optional: Sequence[str] = ()
) -> None:
    """``ValueError`` ("PATH: WHERE.FIELD: ...") unless ``found`` is an object holding each
    field of ``fields`` (those of ``optional`` may be missing) with a value of its kind.
    ``where`` names ``found`` in the file (``rows[3]``; empty for the file itself)."""
    if not isinstance(found, dict):
        raise ValueError(f"{path}: {where or 'top level'}: expected an object, got {_got(found)}")
    for name, (kind, test) in fields.items():
        field = f"{where}.{name}" if where else name
        if name not in found:
            if name in optional:
                continue
            raise ValueError(f"{path}: {field}: missing")
        if not test(found[name]):
            raise ValueError(f"{path}: {field}: expected {kind}, got {_got(found[name])}")


def read_gauntlet(path: Path) -> dict:
    """The gauntlet file at ``path``, checked against the shape :func:`run` writes
    (:data:`FIELDS`, :data:`ROW_FIELDS`) before anything reads it; ``ValueError`` with one
    line ("PATH: FIELD: PROBLEM") for a file that is not one."""
    document = read_json_file(path, "gauntlet", MAX_GAUNTLET_BYTES)
    _check_fields(document, FIELDS, path, "", OPTIONAL_FIELDS)
    for i, row in enumerate(document["rows"]):
        _check_fields(row, ROW_FIELDS, path, f"rows[{i}]")
    if document["worst"] is not None:
        _check_fields(document["worst"], ROW_FIELDS, path, "worst")
    return document


def percent(row: dict) -> str:
    low, high = row["win_ci"]
    return f"{100 * row['win_rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"


def worst(document: dict, groups: Sequence[str] = HEADLINE_GROUPS) -> dict | None:
    """The row of lowest win rate among ``groups``, opponents trained with left out."""
    rows = [r for r in document["rows"] if r["group"] in groups and not r["trained_with"]]
    return min(rows, key=lambda r: r["win_rate"]) if rows else None


def card_entry(document: dict, path: str) -> dict | None:
    """The model card's ``worst_stranger`` (``agents/models/*.json``) from a gauntlet file
    at ``path`` (relative to the repository): its headline row, its size and the command
    that plays it again; None for a gauntlet without a worst stranger."""
    head = document.get("worst")
    if head is None:
        return None
    table = table_key(document)
    where = (
        f"--players {document['players']}" if table.startswith("classic-") else f"--table {table}"
    )
    if document.get("config"):
        where += f" --config {document['config']}"
    groups = {row["group"] for row in document["rows"]}
    every = {group for group, _ in opponents(document["players"], document["agent"], table)}
    if groups < every:  # a run of some groups only
        where += f" --only {','.join(sorted(groups))}"
    return {
        "opponent": head["opponent"], "group": head["group"], "table": table,
        "hands": head["hands"], "seed": document["seed"], "win_rate": head["win_rate"],
        "ci95": head["win_ci"], "mean_score_diff": head["score_diff"],
        "score_diff_ci95": head["score_diff_ci"], "gauntlet": path,
        "command": f"python -m research.gauntlet run --agent {document['agent']} {where} "
        f"--hands {document['hands']} --seed {document['seed']} --jobs 1 --out {path}",
    }  # fmt: skip


def _title(document: dict) -> str:
    key = table_key(document)
    return TABLES[key].title if key in TABLES else key[:40]


def render(document: dict) -> str:
    """A markdown table of one gauntlet, the worst stranger first."""
    head = worst(document)
    lines = [
        f"**{document['agent']}**, {_title(document)}, "
        f"{document['hands']:,} duplicate hands a pairing (arena seed {document['seed']})",
        "",
    ]
    if head is not None:
        lines += [f"Worst stranger: `{head['opponent']}` {percent(head)}", ""]
    lines += [
        "| group | opponent | hands won % [95% CI] | score diff [95% CI] |",
        "|---|---|---|---|",
    ]
    for row in sorted(document["rows"], key=lambda r: (r["group"], r["win_rate"])):
        low, high = row["score_diff_ci"]
        mark = " (trained with)" if row["trained_with"] else ""
        lines.append(
            f"| {row['group']} | `{row['opponent']}`{mark} | {percent(row)} | "
            f"{row['score_diff']:+.0f} [{low:+.0f}, {high:+.0f}] |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.gauntlet", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    go = sub.add_parser("run", help="play the gauntlet (resumes)")
    go.add_argument("--agent", required=True)
    go.add_argument("--players", type=int, choices=(2, 3, 4, 6))
    go.add_argument("--table", help="a leaderboard table's key (default: classic at --players)")
    go.add_argument("--out", type=Path, required=True)
    go.add_argument("--hands", type=int, default=2000)
    go.add_argument("--seed", type=int, default=9100)
    go.add_argument("--jobs", type=int, default=1)
    go.add_argument("--config", help="the agent's run config.json: its league is marked")
    go.add_argument("--only", default="", help="groups to play, a comma list (default: all)")
    show = sub.add_parser("report", help="markdown tables of gauntlet files")
    show.add_argument("files", nargs="+", type=Path)
    card = sub.add_parser("card", help="the model cards' worst_stranger entries, by table (JSON)")
    card.add_argument("files", nargs="+", type=Path)
    pair = sub.add_parser("compare", help="two agents against one opponent, hand by hand")
    pair.add_argument("--first", required=True)
    pair.add_argument("--second", required=True)
    pair.add_argument("--opponent", default=STRANGERS[0])
    pair.add_argument("--players", type=int, choices=(2, 3, 4, 6))
    pair.add_argument("--table", help="a leaderboard table's key (default: classic at --players)")
    pair.add_argument("--hands", type=int, default=2000)
    pair.add_argument("--seed", type=int, default=7100)
    pair.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    try:
        if args.command in ("compare", "run"):
            if args.players is None and args.table is None:
                raise ValueError("give --players (classic) or --table")
            args.players = table_of(args.players, args.table).players
        if args.command == "compare":
            row = compare(
                args.first, args.second, args.opponent, args.players, args.hands, args.seed,
                args.jobs, args.table,
            )  # fmt: skip
            low, high = row["diff_ci"]
            print(json.dumps(row))
            print(
                f"{args.first} {100 * row['first_win_rate']:.1f}%, {args.second} "
                f"{100 * row['second_win_rate']:.1f}% against {args.opponent} on the same "
                f"{row['hands']:,} hands: {100 * row['diff']:+.1f} [{100 * low:+.1f}, "
                f"{100 * high:+.1f}] points"
            )
        elif args.command == "run":
            only = [g for g in args.only.split(",") if g]
            document = run(
                args.agent, args.players, args.out, hands=args.hands, seed=args.seed,
                jobs=args.jobs, config=args.config, only=only, table=args.table,
            )  # fmt: skip
            print(render(document))
        elif args.command == "card":
            documents = [(read_gauntlet(path), path) for path in args.files]
            entries = {}
            for document, path in documents:
                entry = card_entry(document, str(path))
                if entry is not None:
                    entries[entry["table"]] = entry
            print(json.dumps(entries, indent=1))
        else:
            documents = [read_gauntlet(path) for path in args.files]
            for document in documents:
                print(render(document) + "\n")
    except ValueError as error:
        print(f"research.gauntlet: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
