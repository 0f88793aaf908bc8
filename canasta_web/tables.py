"""Table sessions: a live game against bots, and a replay to step through.

A :class:`LiveTable` holds one game, the human's seat and a bot in every other seat.
The server decides everything: the browser sends an action id with the table's
``version``; a stale version, an action out of turn or an illegal one raises
:class:`TableError` (an HTTP 4xx) and changes nothing. Bots move one at a time
(:meth:`LiveTable.advance`), so the page can show each move at the speed its
user sets. The deal seed never leaves the server: it fixes every hidden card.

A :class:`ReplayTable` holds every position of a recorded game (a
:mod:`canasta_env.replay` file, or an arena hand played again from its deck seed,
seats and agent seeds: :func:`arena_replay`), to step forward and back from a
seat's view or, for analysis, with every hand open.

:class:`TableStore` keeps the tables of all browser sessions, each under its own
unguessable id, with a bound on how many it keeps.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from agents.base import choose_action
from agents.registry import make_agent, reseed
from agents.schedule import agent_seed
from canasta_env.actions import ACTION_TEXTS, NUM_ACTIONS
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.engine.state import PHASE_HAND_OVER
from canasta_env.observation import ObservationBuilder
from canasta_env.replay import Replay
from canasta_env.rules import check_player_count, make_rules
from canasta_web.views import seat_view

#: The seat name of the person at a live table.
HUMAN = "you"
#: Agent names a page may ask for: built-in bots, and loaded agents by a bare name
#: (``ppo:classic-2p``, ``openspiel:ismcts-100``), never a file path or an import path.
BUILT_IN_BOTS = ("random", "greedy", "expert")
_LOADED_NAME = re.compile(r"^(ppo|openspiel):[A-Za-z0-9_-]{1,64}$")
#: A bound on the tables kept at once; the least recently used one goes first.
MAX_TABLES = 64
#: A bound on the actions of a replay (a whole game has a few thousand at most).
MAX_REPLAY_STEPS = 50_000
#: A replay keeps a copy of the game every this many positions.
CHECKPOINT_EVERY = 32


class TableError(Exception):
    """A request the table refuses; ``status`` is its HTTP status code."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def bot_names() -> list[str]:
    """Agent names to offer on the page (the shipped trained agents when installed)."""
    names = list(BUILT_IN_BOTS)
    try:
        from training.agent import SHIPPED
    except ImportError:  # the training package is absent
        return names
    return names + [f"ppo:{name}" for name in SHIPPED if not name.startswith("sb3")]


def make_bot(name: Any, seed: int | None):
    """A bot by a name the page may use; TableError 400 for any other name."""
    if not isinstance(name, str) or not (name in BUILT_IN_BOTS or _LOADED_NAME.match(name)):
        raise TableError(
            400,
            f"unknown bot {name!r}: choose one of {', '.join(bot_names())} "
            "(or ppo:NAME / openspiel:NAME of a shipped agent)",
        )
    try:
        return make_agent(name, seed=seed)
    except ValueError as error:
        raise TableError(400, f"bot {name!r}: {error}") from None


def new_table_id() -> str:
    return secrets.token_urlsafe(16)


# ---------------------------------------------------------------------- live tables


class LiveTable:
    """A game between the person in seat ``seat`` and bots, hand after hand to the target."""

    mode = "live"

    def __init__(
        self,
        variant: str,
        seats: list[str],
        seed: int | None = None,
        rules: dict | None = None,
    ):
        try:
            self.rules = make_rules(variant, **(rules or {}))
            check_player_count(self.rules, len(seats))
        except (ValueError, TypeError) as error:
            raise TableError(400, str(error)) from None
        humans = [seat for seat, name in enumerate(seats) if name == HUMAN]
        if len(humans) != 1:
            raise TableError(400, f"seats: exactly one seat must be {HUMAN!r}, got {seats}")
        self.id = new_table_id()
        self.seat = humans[0]
        self.names = list(seats)
        # the deal seed stays on the server: it fixes every hidden card
        self.seed = secrets.randbelow(2**62) if seed is None else seed
        self.bots = {
            seat: make_bot(name, seed=(self.seed * 31 + seat) % 2**63)
            for seat, name in enumerate(seats)
            if seat != self.seat
        }
        try:
            self.game = Game(self.rules, len(seats), seed=self.seed)
        except ValueError as error:
            raise TableError(400, str(error)) from None
        self.version = 0
        self.events: list[dict] = []
        self.lock = threading.Lock()
        self._start_hand()

    def _start_hand(self) -> None:
        self.builder = ObservationBuilder(self.game)
        for seat, bot in self.bots.items():
            bot.reset(seat, self.game.num_players, self.rules)
        self.events = []

    # -------------------------------------------------------------- queries
    @property
    def waiting_for(self) -> str:
        """Who the table waits for: ``you``, ``bot``, ``next hand`` or ``game over``."""
        game = self.game
        if game.phase == PHASE_HAND_OVER:
            return "game over" if game.game_over else "next hand"
        return HUMAN if game.current == self.seat else "bot"

    def view(self) -> dict:
        view = seat_view(self.game, self.seat, self._labels(), open_view=False, legal=True)
        view.update(
            mode=self.mode,
            table=self.id,
            version=self.version,
            waiting_for=self.waiting_for,
            events=list(self.events),
        )
        return view

    def _labels(self) -> list[str]:
        return [
            "you" if seat == self.seat else f"{name} (player {seat})"
            for seat, name in enumerate(self.names)
        ]

    # -------------------------------------------------------------- requests
    def check_version(self, version: int) -> None:
        if version != self.version:
            raise TableError(
                409,
                f"stale request: it was made at version {version}, the table is at version "
                f"{self.version}; reload the table",
            )

    def act(self, action: int, version: int) -> None:
        """The person's move: a legal action id at the current version."""
        self.check_version(version)
        if self.waiting_for != HUMAN:
            raise TableError(409, f"it is not your turn (the table waits for {self.waiting_for})")
        if not 0 <= action < NUM_ACTIONS:
            raise TableError(400, f"action id {action} is outside 0..{NUM_ACTIONS - 1}")
        if not self.game.is_legal(action):
            reason = self.game.explain_illegal(action)
            raise TableError(400, f"illegal action {action} ({ACTION_TEXTS[action]!r}): {reason}")
        self._apply(self.seat, action)

    def advance(self, version: int) -> None:
        """One bot move."""
        self.check_version(version)
        if self.waiting_for != "bot":
            raise TableError(409, f"no bot is to move (the table waits for {self.waiting_for})")
        game = self.game
        seat = game.current
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        observation = self.builder.build(seat)
        action = int(choose_action(self.bots[seat], game, observation, mask))
        if not game.is_legal(action):
            raise TableError(
                500, f"bot {self.names[seat]!r} in seat {seat} chose illegal action {action}"
            )
        self._apply(seat, action)

    def next_hand(self, version: int) -> None:
        self.check_version(version)
        if self.waiting_for != "next hand":
            raise TableError(409, f"the hand is not over (the table waits for {self.waiting_for})")
        self.game.next_hand()
        self.version += 1
        self._start_hand()

    def _apply(self, seat: int, action: int) -> None:
        try:
            self.game.apply(action)
        except IllegalActionError as error:  # is_legal said yes: a bug, but change nothing
            raise TableError(400, str(error)) from None
        self.version += 1
        self.events.append(
            {"seat": seat, "name": self._labels()[seat], "text": ACTION_TEXTS[action]}
        )


# ---------------------------------------------------------------------- replays


@dataclass(frozen=True)
class Position:
    """One position of a replay: the move that led to it (an action, or a deal)."""

    hand: int
    seat: int | None  # who made the move (None: a deal)
    action: int | None  # None: the deal of hand ``hand``
    text: str  # the move, or "deal of hand N"


class ReplayTable:
    """A recorded game to step through, from one seat or with every hand open.

    It keeps a copy of the game every :data:`CHECKPOINT_EVERY` positions and plays
    forward from the nearest one, so a long replay costs little memory.
    """

    mode = "replay"

    def __init__(self, replay: Replay, names: list[str] | None = None, title: str = "replay"):
        if replay.num_actions > MAX_REPLAY_STEPS:
            raise ValueError(f"a replay has at most {MAX_REPLAY_STEPS} actions")
        self.id = new_table_id()
        self.replay = replay
        self.title = title
        self.names = names or [f"player {s}" for s in range(replay.num_players)]
        self.positions: list[Position] = []
        self.checkpoints: dict[int, Game] = {}
        self._record_positions()
        self.lock = threading.Lock()

    def _record_positions(self) -> None:
        """Every deal and every action, checking that each can be played (ValueError)."""
        replay = self.replay
        game = Game(replay.rules, replay.num_players, seed=replay.seed, deck=replay.deck)
        self._add(game, Position(0, None, None, "deal of hand 1"))
        for hand, actions in enumerate(replay.actions):
            if hand:
                if not game.hand_over or game.game_over:
                    raise ValueError(f"invalid replay: hand {hand} cannot be dealt")
                game.next_hand()
                self._add(game, Position(hand, None, None, f"deal of hand {hand + 1}"))
            for step, action in enumerate(actions):
                seat = game.current
                try:
                    game.apply(action)
                except IllegalActionError as error:
                    raise ValueError(
                        f"invalid replay: hand {hand}, move {step}: action {action}: {error}"
                    ) from None
                self._add(game, Position(hand, seat, action, ACTION_TEXTS[action]))

    def _add(self, game: Game, position: Position) -> None:
        if len(self.positions) % CHECKPOINT_EVERY == 0:
            self.checkpoints[len(self.positions)] = game.copy()
        self.positions.append(position)

    def game_at(self, position: int) -> Game:
        """The game at ``position``, played forward from the nearest checkpoint."""
        start = position - position % CHECKPOINT_EVERY
        game = self.checkpoints[start].copy()
        for here in self.positions[start + 1 : position + 1]:
            if here.action is None:
                game.next_hand()
            else:
                game.apply(here.action)
        return game

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


def arena_replay(results: Any, hand: int) -> tuple[Replay, list[str]]:
    """Play hand ``hand`` of an arena's ``results.json`` again and record it.

    The arena saves each hand's deck seed, seats and schedule position; the agents
    are rebuilt by name and re-seeded as the arena seeded them
    (:func:`agents.schedule.agent_seed`), and the hand is checked against the saved
    scores and step count. Raises ValueError naming what does not fit.
    """
    if not isinstance(results, dict) or "config" not in results or "hands" not in results:
        raise ValueError("an arena results.json has 'config' and 'hands'")
    config, hands = results["config"], results["hands"]
    if isinstance(hand, bool) or not isinstance(hand, int) or not 0 <= hand < len(hands):
        raise ValueError(f"hand {hand!r} is outside 0..{len(hands) - 1}")
    record = hands[hand]
    try:
        rules = make_rules(config["variant"], **(config.get("rules") or {}))
        num_players = config["players"]
        seats = list(record["seats"])
        deal_seed = record["seed"]
        keys = (config["seed"], record["pairing"], record["deal"], record["arrangement"])
    except (KeyError, TypeError) as error:
        raise ValueError(f"arena results: missing or malformed field {error}") from None
    check_player_count(rules, num_players)
    if len(seats) != num_players:
        raise ValueError(f"hand {hand} has {len(seats)} seats for {num_players} players")
    agents = []
    for seat, name in enumerate(seats):
        agent = make_agent(name)
        reseed(agent, agent_seed(*keys, seat))
        agent.reset(seat, num_players, rules)
        agents.append(agent)
    game = Game(rules, num_players, seed=deal_seed)
    builder = ObservationBuilder(game)
    actions = []
    while not game.hand_over:
        seat = game.current
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal_actions()] = 1
        action = int(choose_action(agents[seat], game, builder.build(seat), mask))
        game.apply(action)
        actions.append(action)
    scores = [sheet["total"] for sheet in game.hand_scores]
    if scores != record.get("team_scores") or len(actions) != record.get("steps"):
        raise ValueError(
            f"hand {hand} played again gives scores {scores} in {len(actions)} steps, but the "
            f"arena saved {record.get('team_scores')} in {record.get('steps')}: the agents "
            "are not the ones that played it"
        )
    return Replay(rules, num_players, deal_seed, [actions]), seats


def load_arena_hand(directory: str | Path, hand: int) -> tuple[Replay, list[str]]:
    """:func:`arena_replay` of ``DIRECTORY/results.json`` (what ``canasta arena --out`` wrote)."""
    path = Path(directory) / "results.json"
    try:
        results = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{path} is not JSON: {error}") from None
    return arena_replay(results, hand)


# ---------------------------------------------------------------------- the store


class TableStore:
    """The tables of every browser session, by id; the least recently used goes first."""

    def __init__(self, limit: int = MAX_TABLES):
        self.limit = limit
        self.tables: OrderedDict[str, LiveTable | ReplayTable] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, table: LiveTable | ReplayTable) -> None:
        with self.lock:
            self.tables[table.id] = table
            while len(self.tables) > self.limit:
                self.tables.popitem(last=False)

    def get(self, table_id: str, kind: type) -> Any:
        with self.lock:
            table = self.tables.get(table_id)
            if table is None or not isinstance(table, kind):
                what = "table" if kind is LiveTable else "replay"
                raise TableError(404, f"no {what} with id {table_id!r} (it may have expired)")
            self.tables.move_to_end(table_id)
            return table
