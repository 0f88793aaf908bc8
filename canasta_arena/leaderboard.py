"""The leaderboard, played: every bot and shipped agent on every table
(:func:`run_leaderboard`), into one document, what the JSON file holds. Its page, chart and
README block are written from that document by :mod:`canasta_arena.leaderboard_report`;
its command line, ``canasta leaderboard``, is :mod:`canasta_cli.leaderboard`.

Tables (:data:`TABLES`). Every preset at every player count it allows, keyed
``<preset>-<N>p`` (``classic-2p``), and spanish with the S-19 runs at 4 players
(``spanish-runs-4p``): 15 tables.

Agents. On each table: the built-in bots (:data:`BOTS`) and every shipped agent that
plays it. A shipped agent is a ready-made name of an installed agent loader (the keys of
a ``SHIPPED`` mapping in the module of a ``canasta_env.agents`` entry point: ``ppo`` gives
``ppo:classic-2p``). It plays the tables its module lists for it in a ``SHIPPED_TABLES``
mapping (name -> table keys, ``()`` for none); a shipped name that is not listed there
plays the table whose key it is (``ppo:canastone-4p`` plays ``canastone-4p``), and none
if it is no table's key. So a new shipped agent joins the leaderboard without a change
here (:func:`shipped_agents`).

Play. Each table is one :func:`canasta_arena.arena.run_arena` tournament, round robin over the
table's agents, with duplicate deals: every deal of a pairing is played once in every
seat arrangement of the pair (:mod:`canasta_arena.schedule`), so the luck of the cards cancels.
At 2 players that is the two seatings (A B, B A); at 4 and 6 players each agent is one
team, the partners of one kind (A B A B and B A B A: ``--deals`` deals, twice as many
hands); at 3 players, where each player scores alone, the pair fills the seats as
A B A and B A B, each rotated over the three seats, so each deal is played six times and
each agent plays it from every seat both alone against two of the other and as two
against one. "Agent A wins a hand" means A's best seat scored more than the other's
(ties count half; at 3 players, A alone wins only above both B seats), as in the arena.
The training evaluation (:mod:`training.evaluation`) plays its learner once in every team
against copies of one opponent: these arrangements at 2, 4 and 6 players, and at 3 players
the half where the learner sits alone. ``deals`` (``--deals``) is per pairing; hands
per pairing are ``deals x arrangements``.

Figures (the arena's, :mod:`canasta_arena.stats`): per pair, the first agent's hands won with a
95% Wilson interval and its mean score difference per hand with a 95% Student-t
interval; per agent, the Bradley-Terry Elo (the fit of the head-to-head results, which
does not depend on the order of the hands), which orders the table as it orders the
arena's report, the OpenSkill Plackett-Luce rating (mu, sigma and the ordinal
``mu - 3 sigma``, updated hand by hand, deal by deal) and its hands won. The same seed
deals the same decks on every table; the result does not depend on ``jobs``.

The document (:func:`run_leaderboard`'s, the JSON file beside the page,
``docs/leaderboard.json``) holds every figure; :func:`update_leaderboard` plays some of its
tables again, and the exploit runs and the gauntlet's worst strangers are attached to it
(:func:`attach_exploitability`, :func:`attach_strangers`). Only a full run
(:func:`is_full_run`) writes figures into the README.
"""

from __future__ import annotations

import datetime
import difflib
import importlib
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points

from agents.model_file import file_digest
from agents.registry import LOADER_GROUP, make_agent
from canasta_arena.arena import run_arena
from canasta_arena.schedule import pair_pattern, seat_arrangements
from canasta_arena.stats import mean_interval
from canasta_env.rules import PRESETS, make_rules

#: The built-in bots: every table seats them.
BOTS = ("random", "greedy", "expert")

#: Deals per pairing of a full run: 2,000 hands per pairing at 2 and 4 players, as the
#: README's hand-typed tables were measured. Only a full run writes figures into the README.
FULL_DEALS = 1000


@dataclass(frozen=True)
class LeaderboardTable:
    """One table of the leaderboard: a preset, a player count and house rules."""

    key: str
    variant: str
    players: int
    rules: dict = field(default_factory=dict)  # field overrides of the preset (S-19 runs)

    @property
    def title(self) -> str:
        runs = " with the S-19 runs" if self.rules.get("sequences") else ""
        return f"{self.variant}{runs}, {self.players} players"

    @property
    def arrangements(self) -> int:
        """Hands per deal of a pairing: the seat arrangements of two agents."""
        return len(seat_arrangements(pair_pattern("A", "B", self.players), swap=True))


def _tables() -> dict[str, LeaderboardTable]:
    tables = [
        LeaderboardTable(f"{name}-{n}p", name, n)
        for name, rules in PRESETS.items()
        for n in sorted(rules.player_counts)
    ]
    tables.append(LeaderboardTable("spanish-runs-4p", "spanish", 4, {"sequences": True}))
    return {table.key: table for table in tables}


#: Every table, by key, in the page's order.
TABLES: dict[str, LeaderboardTable] = _tables()

# ---------------------------------------------------------------------- agents


def shipped_agents() -> dict[str, tuple[str, ...]]:
    """Every shipped agent of an installed loader (``ppo:classic-2p``) and the keys of the
    tables it plays (see the module doc). A loader whose module does not import (its extra
    is not installed) ships nothing here. Raises ``ValueError`` for a table that a
    ``SHIPPED_TABLES`` mapping names and :data:`TABLES` lacks."""
    found: dict[str, tuple[str, ...]] = {}
    for point in sorted(entry_points(group=LOADER_GROUP), key=lambda p: p.name):
        try:
            module = importlib.import_module(point.module)
        except ImportError:
            continue
        declared = getattr(module, "SHIPPED_TABLES", {})
        for name in getattr(module, "SHIPPED", {}):
            tables = tuple(declared.get(name, (name,) if name in TABLES else ()))
            unknown = [t for t in tables if t not in TABLES]
            if unknown:
                raise ValueError(
                    f"{module.__name__}.SHIPPED_TABLES[{name!r}] names no leaderboard table: "
                    f"{', '.join(unknown)}; the tables are {', '.join(TABLES)}"
                )
            found[f"{point.name}:{name}"] = tables
    return found


def default_agents(
    table: str, shipped: dict[str, tuple[str, ...]] | None = None, without: Sequence[str] = ()
) -> list[str]:
    """The agents of ``table`` when none are given: :data:`BOTS`, then each shipped agent
    that plays it; less those ``without`` names, whole (``search:classic-2p``) or by their
    loader's prefix (``search``: all its agents)."""
    shipped = shipped_agents() if shipped is None else shipped
    agents = [*BOTS, *(name for name, tables in shipped.items() if table in tables)]
    return [name for name in agents if not _left_out(name, without)]


def _left_out(name: str, without: Sequence[str]) -> bool:
    return name in without or name.split(":", 1)[0] in without


def check_without(without: Sequence[str], shipped: dict[str, tuple[str, ...]]) -> None:
    """Refuse (``ValueError``) a ``without`` entry that names no default agent or loader."""
    names = [*BOTS, *shipped]
    prefixes = {name.split(":", 1)[0] for name in shipped}
    for entry in without:
        if entry not in names and entry not in prefixes:
            near = difflib.get_close_matches(entry, [*names, *sorted(prefixes)], n=2, cutoff=0.6)
            hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
            raise ValueError(
                f"--without {entry!r} names no agent of the leaderboard{hint}; the agents are "
                f"{', '.join(names)}"
            )


# ---------------------------------------------------------------------- play


def _figure(value: float | None, digits: int = 6) -> float | None:
    """A figure as JSON keeps it: rounded, so the file is stable text."""
    return None if value is None else round(float(value), digits)


def play_table(
    table: LeaderboardTable,
    agents: Sequence[str],
    deals: int,
    seed: int = 0,
    jobs: int = 1,
    progress: bool = False,
    trust_pickle: bool = False,
) -> dict:
    """One table's tournament (:func:`~canasta_arena.arena.run_arena`) and its figures, as the
    JSON file keeps them."""
    hands = deals * table.arrangements
    result = run_arena(
        agents,
        variant=make_rules(table.variant, **table.rules),  # checked once for the tournament
        num_players=table.players,
        hands=hands,
        seed=seed,
        jobs=jobs,
        progress=progress,
        plot=False,
        trust_pickle=trust_pickle,
    )
    ranking = result.summary["ranking"]  # the arena's order: by Elo
    order = [row["agent"] for row in ranking]
    ratings = [
        {
            "rank": row["rank"],
            "agent": row["agent"],
            "ordinal": _figure(row["rating"]),
            "mu": _figure(row["mu"]),
            "sigma": _figure(row["sigma"]),
            "elo": _figure(row["elo"]),
            "hands": row["hands"],
            "win_rate": _figure(row["win_rate"]),
            "win_ci": [_figure(x) for x in row["win_ci"]],
        }
        for row in ranking
    ]
    head_to_head = result.summary["head_to_head"]
    pairings = [set(p["agents"]) for p in result.config["pairings"]]
    diffs: list[dict[str, list[float]]] = [{} for _ in pairings]
    for hand in result.hands:
        for agent, diff in hand.score_diff.items():
            diffs[hand.pairing].setdefault(agent, []).append(diff)
    pairs = []
    for i, first in enumerate(order):  # each pair once, the higher-rated agent first
        for second in order[i + 1 :]:
            cell = head_to_head[first][second]
            pairing = pairings.index({first, second})
            mean, low, high = mean_interval(diffs[pairing].get(first, []))
            pairs.append(
                {
                    "agents": [first, second],
                    "hands": cell["hands"],
                    "win_rate": _figure(cell["win_rate"]),
                    "win_ci": [_figure(x) for x in cell["win_ci"]],
                    "score_diff": _figure(mean),
                    "score_diff_ci": [_figure(low), _figure(high)],
                }
            )
    return {
        "table": table.key,
        "title": table.title,
        "variant": table.variant,
        "players": table.players,
        "rules": dict(table.rules),
        "agents": list(agents),
        "deals_per_pairing": deals,
        "arrangements": table.arrangements,
        "hands_per_pairing": hands,
        "hands_played": len(result.hands),
        "ratings": ratings,
        "pairs": pairs,
        "head_to_head": {
            a: {
                b: {
                    "hands": head_to_head[a][b]["hands"],
                    "win_rate": _figure(head_to_head[a][b]["win_rate"]),
                    "win_ci": [_figure(x) for x in head_to_head[a][b]["win_ci"]],
                }
                for b in order
                if b != a
            }
            for a in order
        },
    }


def check_request(tables: Sequence[str] | None, agents: Sequence[str] | None, deals: int) -> None:
    """Refuse (``ValueError``) an unknown table, too few agents or deals, before any hand."""
    for key in tables or ():
        if key not in TABLES:
            near = difflib.get_close_matches(key, list(TABLES), n=3, cutoff=0.6)
            hint = f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""
            raise ValueError(f"unknown table {key!r}{hint}; choose one of {', '.join(TABLES)}")
    if agents is not None and len(set(agents)) < 2:
        raise ValueError("a leaderboard needs at least two distinct agents")
    if agents is not None and len(set(agents)) != len(agents):
        raise ValueError(f"an agent is named twice: {', '.join(agents)}")
    if deals < 1:
        raise ValueError(f"deals per pairing must be at least 1, got {deals}")


def run_leaderboard(
    tables: Sequence[str] | None = None,
    agents: Sequence[str] | None = None,
    deals: int = FULL_DEALS,
    seed: int = 0,
    jobs: int = 1,
    command: str | None = None,
    date: str | None = None,
    progress: bool = False,
    log=None,
    trust_pickle: bool = False,
    without: Sequence[str] = (),
    import_paths: bool = True,
) -> dict:
    """Play the leaderboard and return its document (what the JSON file holds).

    ``tables``: keys of :data:`TABLES` (None: all). ``agents``: the same agents on every
    table (None: each table's :func:`default_agents`). ``deals`` per pairing. ``command``
    and ``date`` are written as given (None: the equivalent command, today). ``log`` is
    called with one line per table played. ``without``: agents left out of the defaults
    (:func:`default_agents`; not with ``agents``). ``import_paths=False``: ``agents`` were
    read from a file, which may name data but not code (an import path is refused before
    anything is imported or played).
    """
    check_request(tables, agents, deals)
    if agents is not None and without:
        raise ValueError("--without leaves agents out of the defaults: give it without --agents")
    for name in agents or ():
        # a typo (or, from a file, an import path) fails before any hand is played
        make_agent(name, trust_pickle=trust_pickle, import_paths=import_paths)
    keys = list(TABLES) if tables is None else list(dict.fromkeys(tables))
    shipped = shipped_agents() if agents is None else {}
    check_without(without, shipped)
    played, seconds = [], {}
    began = time.perf_counter()
    for key in keys:
        started = time.perf_counter()
        seated = list(agents) if agents is not None else default_agents(key, shipped, without)
        entry = play_table(TABLES[key], seated, deals, seed, jobs, progress, trust_pickle)
        seconds[key] = round(time.perf_counter() - started, 1)
        played.append(entry)
        if log is not None:
            log(f"{key}: {len(seated)} agents, {entry['hands_played']:,} hands in {seconds[key]} s")
    return {
        # wall time where it was run (not part of the figures: the same seed gives the same
        # tables on any machine)
        "seconds": round(time.perf_counter() - began, 1),
        "table_seconds": seconds,
        "jobs": jobs,
        "command": command or equivalent_command(tables, agents, deals, seed, without),
        "date": date or datetime.date.today().isoformat(),
        "seed": seed,
        "deals_per_pairing": deals,
        "tables_option": None if tables is None else keys,
        "agents_option": None if agents is None else list(agents),
        "without_option": list(without) or None,
        "tables": played,
    }


def update_leaderboard(
    document: dict,
    tables: Sequence[str],
    jobs: int = 1,
    command: str | None = None,
    date: str | None = None,
    progress: bool = False,
    log=None,
    trust_pickle: bool = False,
) -> dict:
    """``document`` (a leaderboard) with ``tables`` played again, after their agents changed:
    the same agents option, seed and deals per pairing as the document, so the other tables
    stand as they were. The update is recorded under ``"updates"``; an exploiter or stranger
    column of an updated table is dropped (it measured the agents before; attach again)."""
    keys = list(dict.fromkeys(tables))
    if not keys:
        raise ValueError("--update plays the tables named by --tables again: name at least one")
    check_request(keys, None, 1)
    held = [entry["table"] for entry in document["tables"]]
    missing = [key for key in keys if key not in held]
    if missing:
        raise ValueError(
            f"--update replaces tables of the board; it has no {', '.join(missing)} "
            f"(it has {', '.join(held)})"
        )
    fresh = run_leaderboard(
        keys,
        document.get("agents_option"),
        deals=int(document["deals_per_pairing"]),
        seed=int(document["seed"]),
        jobs=jobs,
        command=command,
        date=date,
        progress=progress,
        log=log,
        trust_pickle=trust_pickle,
        without=document.get("without_option") or (),
        import_paths=False,  # the board's agents option is read from the file
    )
    played = {entry["table"]: entry for entry in fresh["tables"]}
    entries = [played.get(key, entry) for key, entry in zip(held, document["tables"])]
    updated = dict(document, tables=entries)
    update = {key: fresh[key] for key in ("command", "date", "seconds", "jobs")}
    updated["updates"] = [*document.get("updates", []), dict(update, tables=keys)]
    if document.get("exploitability"):
        kept = {k: v for k, v in document["exploitability"].items() if k not in played}
        updated["exploitability"] = kept
    if document.get("strangers"):  # measured the agents before, as the exploiters' column
        updated["strangers"] = {k: v for k, v in document["strangers"].items() if k not in played}
    return updated


def equivalent_command(
    tables: Sequence[str] | None,
    agents: Sequence[str] | None,
    deals: int,
    seed: int,
    without: Sequence[str] = (),
) -> str:
    """The ``canasta leaderboard`` command that plays the same hands."""
    parts = ["canasta leaderboard", f"--deals {deals}", f"--seed {seed}"]
    if tables is not None:
        parts.append(f"--tables {','.join(tables)}")
    if agents is not None:
        parts.append(f"--agents {','.join(agents)}")
    if without:
        parts.append(f"--without {','.join(without)}")
    return " ".join(parts)


def is_full_run(document: dict) -> bool:
    """Whether ``document`` is the full leaderboard: every table, the default agents (less
    any named by ``--without``, which the page and the README name), at least
    :data:`FULL_DEALS` deals per pairing. Only such a run writes figures into the
    README."""
    return (
        document.get("tables_option") is None
        and document.get("agents_option") is None
        and document.get("deals_per_pairing", 0) >= FULL_DEALS
        and [t["table"] for t in document.get("tables", [])] == list(TABLES)
    )


# ---------------------------------------------------------------------- attached figures


def attach_exploitability(document: dict, report: dict) -> dict:
    """``document`` with the exploit runs of ``report`` (``canasta exploit report``'s JSON)
    under ``"exploitability"``: table -> agent -> the exploiter's hands won against it, its
    interval, its steps and hands. Of an agent exploited at several budgets, the largest (as
    the column shows it, to 0.1 M steps); of several exploiters at that budget, the one that
    won most: each is a lower bound on how exploitable the agent is, so the largest is the
    figure. ``ValueError`` for a report that is not one."""
    results = report.get("results") if isinstance(report, dict) else None
    if not isinstance(results, list):
        raise ValueError("not a report of canasta exploit report (no results list)")
    attached: dict[str, dict[str, dict]] = {}
    for row in results:
        try:
            low, high = (float(x) for x in row["win_ci"])
            found = {
                "win_rate": float(row["win_rate"]),
                "win_ci": [low, high],
                "exploiter_steps": int(row["exploiter_steps"]),
                "hands": int(row["hands"]),
            }
            name = board_name(row)
            if name is None:
                continue
            table = attached.setdefault(str(row["table"]), {})
            earlier = table.get(name)
            if earlier is None or _worse_case(found) > _worse_case(earlier):
                table[name] = found
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"an exploit result without its figures: {error}") from None
    return dict(document, exploitability=attached)


def _worse_case(found: dict) -> tuple[int, float]:
    """The order of two exploit results of one agent: the budget as shown, then hands won."""
    return round(found["exploiter_steps"] / 100_000), found["win_rate"]


def board_name(row: dict) -> str | None:
    """The leaderboard name of an exploit result's agent: the shipped name of the network it
    measured (``shipped_as``, by the file's digest: ``ppo:spanish-2p`` for the all-tables
    network measured on spanish-2p); None for a network the board does not play (a shipped
    name whose file has since been replaced, or any other model file); else its name."""
    if row.get("shipped_as"):
        return str(row["shipped_as"])
    if row.get("replaced") or (row.get("agent_sha256") and str(row["agent"]).startswith("ppo:")):
        return None
    return str(row["agent"])


#: The most gauntlet files (``--gauntlet``) one board reads, and the most bytes of each.
MAX_GAUNTLETS = 64
MAX_GAUNTLET_BYTES = 4 * 2**20


def attach_strangers(document: dict, gauntlets: Sequence[dict]) -> dict:
    """``document`` with the worst stranger of each gauntlet (``python -m research.gauntlet``,
    docs/generalisation.md) under ``"strangers"``: table -> agent -> the opponent, the
    agent's hands won against it, their interval and count. A gauntlet of a shipped name
    whose file has since been replaced (its ``agent_sha256`` is not the file's) is left out,
    as a gauntlet without a worst stranger is; ``ValueError`` for a file that is not one."""
    from agents.network import SHIPPED

    if len(gauntlets) > MAX_GAUNTLETS:
        raise ValueError(f"at most {MAX_GAUNTLETS} gauntlet files, got {len(gauntlets)}")
    attached: dict[str, dict[str, dict]] = dict(document.get("strangers") or {})
    for gauntlet in gauntlets:
        try:
            agent, players, head = gauntlet["agent"], int(gauntlet["players"]), gauntlet["worst"]
            table = gauntlet.get("table", f"classic-{players}p")  # files before tables: classic
            if not isinstance(agent, str) or table not in TABLES:
                raise ValueError(f"agent {agent!r} on table {str(table)[:40]!r}")
            if TABLES[table].players != players:
                raise ValueError(f"table {table} at {players} players")
            if head is None:
                continue
            low, high = (float(x) for x in head["win_ci"])
            found = {
                "opponent": str(head["opponent"])[:120],
                "win_rate": float(head["win_rate"]),
                "win_ci": [low, high],
                "hands": int(head["hands"]),
            }
            if not all(0.0 <= x <= 1.0 for x in (found["win_rate"], low, high)):
                raise ValueError("a share of hands outside 0..1")
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"not a gauntlet of research.gauntlet run: {error}") from None
        shipped = SHIPPED.get(agent[4:]) if agent.startswith("ppo:") else None
        digest = file_digest(shipped) if shipped is not None and shipped.is_file() else None
        if shipped is not None and gauntlet.get("agent_sha256") != digest:
            continue  # measured an agent the board no longer plays
        attached.setdefault(table, {})[agent] = found
    return dict(document, strangers=attached)
