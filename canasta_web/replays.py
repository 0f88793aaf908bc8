"""A replay to step through (:class:`ReplayTable`), and the arena hands played again.

A :class:`ReplayTable` holds every position of a recorded game (a
:mod:`canasta_env.replay` file, or an arena hand played again from its deck seed,
seats and agent seeds: :func:`arena_replay`), to step forward and back from a
seat's view or, for analysis, with every hand open. An arena file opened from disk
builds its agents with :func:`file_agent`, within the live tables' search budgets
(:func:`check_file_budget`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import make_agent, reseed, split_label
from canasta_arena.schedule import agent_seed
from canasta_env.engine.game import Game
from canasta_env.engine.state import teams_of
from canasta_env.jsonfile import read_json_file
from canasta_env.replay import Position, Replay, replay_positions
from canasta_env.rules import PRESETS, Rules, check_player_count, make_rules
from canasta_env.table import Table
from canasta_web.bots import MAX_SEARCH_ROLLOUTS, MAX_SEARCH_SIMULATIONS
from canasta_web.tables import TableError, new_table_id, short
from canasta_web.views import seat_view

#: A bound on the actions of a replay (a whole game has a few thousand at most).
MAX_REPLAY_STEPS = 50_000
#: A replay keeps a copy of the game every this many positions.
CHECKPOINT_EVERY = 32
#: The longest a replay may take to build on the server (every move played through the
#: engine and checked; 50,000 moves take a few seconds at most); past it the replay is
#: refused (503).
REPLAY_BUILD_SECONDS = 15.0
#: The longest an arena hand may take to play again on the server.
ARENA_REPLAY_SECONDS = 60.0
#: The fields a rules object has: the house rules an arena's config may name.
RULES_FIELDS = frozenset(field.name for field in dataclasses.fields(Rules))


class ReplayTable:
    """A recorded game to step through, from one seat or with every hand open.

    It keeps a copy of the table every :data:`CHECKPOINT_EVERY` positions and plays
    forward from the nearest one, so a long replay costs little memory.
    """

    mode = "replay"

    def __init__(
        self,
        replay: Replay,
        names: list[str] | None = None,
        title: str = "replay",
        check: Callable[[], None] | None = None,
    ):
        """``check()`` is called before each move is played
        (:meth:`~canasta_web.thinking.Thinking.build`'s deadline: it raises to stop the
        building)."""
        self.positions_of(replay)
        self.id = new_table_id()
        self.replay = replay
        self.title = title
        self.names = names or [f"player {s}" for s in range(replay.num_players)]
        self.positions: list[Position] = []
        self.checkpoints: dict[int, Table] = {}
        # every deal and every action, each checked as it is played (ValueError naming the
        # step: the one replayer's)
        for position, table in replay_positions(replay):
            self._add(table, position)
            if check is not None:
                check()  # before the next move is played
        self.lock = threading.Lock()

    @staticmethod
    def positions_of(replay: Replay) -> int:
        """The positions a table of ``replay`` would hold: every action and every deal;
        ValueError when it has more than :data:`MAX_REPLAY_STEPS` actions."""
        if replay.num_actions > MAX_REPLAY_STEPS:
            raise ValueError(f"a replay has at most {MAX_REPLAY_STEPS:,} actions here")
        return replay.num_actions + len(replay.actions)

    def _add(self, table: Table, position: Position) -> None:
        if len(self.positions) % CHECKPOINT_EVERY == 0:
            self.checkpoints[len(self.positions)] = table.copy()
        self.positions.append(position)

    def game_at(self, position: int) -> Game:
        """The game at ``position``, played forward from the nearest checkpoint."""
        start = position - position % CHECKPOINT_EVERY
        table = self.checkpoints[start].copy()
        for here in self.positions[start + 1 : position + 1]:
            if here.action is None:
                table.next_hand()
            else:
                table.step(here.action)
        return table.game

    def view(self, position: int, viewer: int, open_view: bool) -> dict:
        last = len(self.positions) - 1
        if not 0 <= position <= last:
            raise TableError(400, f"position {position} is outside 0..{last}")
        if not 0 <= viewer < self.replay.num_players:
            raise TableError(400, f"viewer {viewer} is outside 0..{self.replay.num_players - 1}")
        hand = self.positions[position].hand
        labels = [
            name if name == f"player {s}" else f"{name} (player {s})"
            for s, name in enumerate(self.names)
        ]
        view = seat_view(self.game_at(position), viewer, labels, open_view=open_view, legal=False)
        view.update(
            mode=self.mode,
            table=self.id,
            title=self.title,
            position=position,
            positions=len(self.positions),
            # the moves of this hand so far (never the moves still to come)
            events=[
                {"seat": here.seat, "name": labels[here.seat], "text": here.text}
                for here in self.positions[1 : position + 1]
                if here.hand == hand and here.seat is not None
            ],
        )
        return view


#: A seed or a hand's place in an arena's schedule is below this (what the arena writes).
SEED_BOUND = 2**63


@dataclass(frozen=True)
class ArenaHand:
    """One hand of an arena's ``results.json``, every field checked (:func:`read_arena_hand`)."""

    index: int
    rules: Rules
    seats: list[Any]  # agent names, checked when each is built
    deal_seed: int
    keys: tuple[int, int, int, int]  # arena seed, pairing, deal, arrangement
    team_scores: list[int]
    steps: int

    @property
    def num_players(self) -> int:
        return len(self.seats)


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value < high


def _field(record: dict, name: str, where: str, fits: Callable[[Any], bool], want: str) -> Any:
    """``record[name]`` when ``fits`` it; ValueError naming ``where`` and ``want`` if not."""
    if name not in record:
        raise ValueError(f"arena results: {where} has no field {name!r}")
    value = record[name]
    if not fits(value):
        raise ValueError(
            f"arena results: {where}, field {name!r}: expected {want}, got {short(value)}"
        )
    return value


def read_arena_hand(results: Any, hand: Any) -> ArenaHand:
    """Hand ``hand`` of an arena's ``results.json``, every field it is played again from
    checked for its type and bounds before any agent is built or move played; ValueError
    naming the field, repeating no more than a short prefix of it."""
    if not isinstance(results, dict) or "config" not in results or "hands" not in results:
        raise ValueError("an arena results.json has 'config' and 'hands'")
    config, hands = results["config"], results["hands"]
    if not isinstance(config, dict):
        raise ValueError(f"arena results: 'config' is a mapping, got {short(config)}")
    if not isinstance(hands, list):
        raise ValueError(f"arena results: 'hands' is a list of hands, got {short(hands)}")
    if not _whole(hand, 0, len(hands)):
        raise ValueError(f"hand {short(hand)} is outside 0..{len(hands) - 1}")
    record = hands[hand]
    if not isinstance(record, dict):
        raise ValueError(f"arena results: hand {hand} is a mapping, got {short(record)}")
    variant = _field(
        config, "variant", "config", lambda v: isinstance(v, str) and v in PRESETS, "a preset"
    )
    overrides = config.get("rules") or {}
    if not isinstance(overrides, dict) or not all(isinstance(k, str) for k in overrides):
        raise ValueError(
            f"arena results: config, field 'rules': expected a mapping of rules fields, "
            f"got {short(overrides)}"
        )
    unknown = [name for name in overrides if name not in RULES_FIELDS]
    if unknown:
        raise ValueError(f"arena results: config, field 'rules': unknown field {short(unknown[0])}")
    try:
        rules = make_rules(variant, **overrides)
    except (TypeError, ValueError) as error:
        raise ValueError(f"arena results: config, field 'rules': {error}") from None
    players = _field(config, "players", "config", lambda v: _whole(v, 1, 100), "a player count")
    check_player_count(rules, players)
    seed = _field(config, "seed", "config", lambda v: _whole(v, -SEED_BOUND, SEED_BOUND), "a seed")
    where = f"hand {hand}"
    seats = _field(record, "seats", where, lambda v: isinstance(v, list), "a list of agent names")
    if len(seats) != players:
        raise ValueError(f"hand {hand} has {len(seats)} seats for {players} players")
    place = [
        _field(record, name, where, lambda v: _whole(v, 0, SEED_BOUND), "an index")
        for name in ("pairing", "deal", "arrangement")
    ]
    deal_seed = _field(record, "seed", where, lambda v: _whole(v, 0, SEED_BOUND), "a deck seed")
    steps = _field(
        record, "steps", where, lambda v: _whole(v, 0, MAX_REPLAY_STEPS + 1), "a count of moves"
    )
    scores = _field(
        record,
        "team_scores",
        where,
        lambda v: isinstance(v, list) and all(_whole(x, -SEED_BOUND, SEED_BOUND) for x in v),
        "a list of scores",
    )
    teams = teams_of(players)
    if len(scores) != teams:
        raise ValueError(f"hand {hand} has {len(scores)} team scores for {teams} teams")
    return ArenaHand(hand, rules, list(seats), deal_seed, (seed, *place), list(scores), steps)


def arena_replay(
    results: Any,
    hand: int,
    build: Callable[[str], Any] = make_agent,
    check: Callable[[], None] | None = None,
) -> tuple[Replay, list[str]]:
    """Play hand ``hand`` of an arena's ``results.json`` again and record it.

    ``build(name)`` makes each seat's agent: :func:`~agents.registry.make_agent` for a
    file of the user's own (``canasta serve --arena``), the server's allowlist
    (:func:`~canasta_web.bots.make_bot`) for a file that came in a request. ``check()`` is
    called before each move (:meth:`~canasta_web.thinking.Thinking.build`'s deadline: it
    raises to stop the hand).

    The arena saves each hand's deck seed, seats and schedule position; the agents
    are rebuilt by name and re-seeded as the arena seeded them
    (:func:`canasta_arena.schedule.agent_seed`), and the hand is checked against the saved
    scores and step count. Raises ValueError naming what does not fit.
    """
    return play_arena_hand(read_arena_hand(results, hand), build, check)


def play_arena_hand(
    record: ArenaHand,
    build: Callable[[str], Any] = make_agent,
    check: Callable[[], None] | None = None,
) -> tuple[Replay, list[str]]:
    """:func:`arena_replay` of a hand already read."""
    hand, num_players, rules = record.index, record.num_players, record.rules
    agents = []
    for seat, name in enumerate(record.seats):
        try:
            agent = build(name)
        except TableError as error:
            raise TableError(error.status, f"hand {hand}, seat {seat}: {error.message}") from None
        except ValueError as error:
            raise ValueError(f"hand {hand}, seat {seat}: {error}") from None
        reseed(agent, agent_seed(*record.keys, seat))
        agent.reset(seat, num_players, rules)
        agents.append(agent)
    table = Table(rules, num_players, seed=record.deal_seed)
    actions: list[int] = []

    def before(_table) -> bool:  # the caller's deadline, checked before each decision
        if check is not None:
            check()
        return False

    table.play(agents, until=before, on_decision=lambda *d: actions.append(int(d[3])))
    scores = table.team_scores
    if scores != record.team_scores or len(actions) != record.steps:
        raise ValueError(
            f"hand {hand} played again gives scores {scores} in {len(actions)} steps, but the "
            f"arena saved {record.team_scores} in {record.steps}: the agents are not the ones "
            "that played it"
        )
    return Replay(rules, num_players, record.deal_seed, [actions]), list(record.seats)


def load_arena_hand(directory: str | Path, hand: int) -> tuple[Replay, list[str]]:
    """:func:`arena_replay` of ``DIRECTORY/results.json`` (what ``canasta arena --out`` wrote)."""
    results = read_json_file(Path(directory) / "results.json", what="arena results")
    return arena_replay(results, hand, build=file_agent)


def file_agent(name: Any) -> Any:
    """The agent a results file names, built without running code the file names: an
    import path in it is refused (``make_agent(import_paths=False)``), a model that
    pickle would load needs ``--trust-pickle`` as everywhere (docs/security.md), and a
    search gets no larger budget than at a live table (:func:`check_file_budget`)."""
    if not isinstance(name, str):
        raise ValueError(f"an agent name is text, got {short(name)}")
    check_file_budget(name)
    return make_agent(name, import_paths=False)


def check_file_budget(name: str) -> None:
    """ValueError naming the cap when the search agent ``name`` asks for more than a live
    table's bot may use (:data:`MAX_SEARCH_ROLLOUTS`, :data:`MAX_SEARCH_SIMULATIONS`); a
    file may name its own model and settings, but not an unbounded search."""
    prefix, _, path = split_label(name)[1].partition(":")  # a label names the same agent
    if prefix == "search":
        try:
            from agents.search import parse_name
        except ImportError:  # the training package is absent: make_agent says so
            return
        rollouts = parse_name(path)[1].rollouts
        if rollouts > MAX_SEARCH_ROLLOUTS:
            raise ValueError(
                f"agent {short(name)} searches {rollouts} rollouts per move; an arena file "
                f"opened here may ask for at most {MAX_SEARCH_ROLLOUTS} (the live tables' cap)"
            )
    elif prefix == "openspiel":
        head, _, budget = path.partition("-")
        if head == "ismcts" and budget.isdigit():
            if len(budget) > len(str(MAX_SEARCH_SIMULATIONS)) or (
                int(budget) > MAX_SEARCH_SIMULATIONS
            ):
                raise ValueError(
                    f"agent {short(name)}: an arena file opened here may ask for at most "
                    f"{MAX_SEARCH_SIMULATIONS} simulations per move (the live tables' cap)"
                )
