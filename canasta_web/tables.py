"""Table sessions: a live game against bots, and a replay to step through.

A :class:`LiveTable` holds one game (a :class:`~canasta_env.table.Table`: every table
here plays and views its game through one, never stepping the engine itself), the
human's seat and a bot in every other seat.
The server decides everything: the browser sends an action id with the table's
``version``; a stale version, an action out of turn or an illegal one raises
:class:`TableError` (an HTTP 4xx) and changes nothing. Bots move one at a time
(:meth:`LiveTable.advance`), so the page can show each move at the speed its
user sets. The deal seed never leaves the server: it fixes every hidden card.

A :class:`ReplayTable` holds every position of a recorded game (a
:mod:`canasta_env.replay` file, or an arena hand played again from its deck seed,
seats and agent seeds: :func:`arena_replay`), to step forward and back from a
seat's view or, for analysis, with every hand open.

:class:`Thinking` bounds the server's work: the bots thinking at once, and the replays
built at once, each within a wall-time bound. The store of every session's tables is
:mod:`canasta_web.store`.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import make_agent, reseed
from agents.schedule import agent_seed
from canasta_env.actions import ACTION_TEXTS, NUM_ACTIONS
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.jsonfile import read_json_file
from canasta_env.replay import Replay
from canasta_env.rules import check_player_count, make_rules
from canasta_env.table import Table
from canasta_web.guard import cut
from canasta_web.views import seat_view

#: The seat name of the person at a live table.
HUMAN = "you"
#: Agent names a request may ask for, and nothing else (docs/security.md): the built-in
#: bots, the shipped trained agents by name, and search bots with a bounded budget. Never a
#: file path, an import path or a name resolved against the working folder.
BUILT_IN_BOTS = ("random", "greedy", "expert")
#: The most simulations per move a search bot may use here (about 0.6 s a move at the
#: start of a classic 4-player hand on one core of the project's machines).
MAX_SEARCH_SIMULATIONS = 1000
#: Search bots by name: ``openspiel:ismcts`` (its default budget), ``openspiel:ismcts-N``
#: (1 <= N <= MAX_SEARCH_SIMULATIONS) and ``openspiel:random``.
SEARCH_NAME = re.compile(r"openspiel:(?:random|ismcts(?:-(?P<simulations>[1-9][0-9]{0,3}))?)")
#: The most rollouts per move a search over a shipped network may play here (about 0.15 to
#: 0.3 s of CPU a searched move on the project's machines; agents/search.py's default is 128).
MAX_SEARCH_ROLLOUTS = 256
#: Searches over a shipped network: ``search:NAME`` (its default budget) and
#: ``search:NAME@N`` (1 <= N <= MAX_SEARCH_ROLLOUTS), NAME a shipped numpy model; none of
#: the loader's other forms (a file path, settings) is taken.
POLICY_SEARCH_NAME = re.compile(
    r"search:(?P<model>[a-z0-9][a-z0-9-]{0,63})(?:@(?P<rollouts>[1-9][0-9]{0,3}))?"
)
#: The longest a bot may think over one move before the move is refused (503).
BOT_MOVE_SECONDS = 20.0
#: The most bots thinking at once in the whole server; one more request waits this long
#: for a turn, then gets 503.
MAX_THINKING = 4
THINKING_WAIT_SECONDS = 5.0
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
#: The replays built (or arena hands played again) at once, each also holding one of the
#: MAX_THINKING bots' slots while its request waits: the other slots stay free for bots.
MAX_BUILDS = 2


def short(value: Any) -> str:
    """``repr(value)`` cut short: an error repeats no more of the input."""
    return cut(repr(value))


class TableError(Exception):
    """A request the table refuses; ``status`` is its HTTP status code."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def shipped_agents() -> dict[str, str]:
    """``ppo:NAME`` of every shipped trained agent the server may load, and its shipped name.

    Only the numpy models: a Stable-Baselines3 zip is loaded through pickle, which the
    server never does (docs/security.md).
    """
    try:
        from agents.network import SHIPPED
    except ImportError:  # the training package is absent
        return {}
    return {f"ppo:{name}": name for name, path in SHIPPED.items() if Path(path).suffix == ".npz"}


def bot_names() -> list[str]:
    """Agent names to offer on the page (the shipped trained agents, and a search over
    each, when installed)."""
    shipped = list(shipped_agents().values())
    return (
        list(BUILT_IN_BOTS)
        + [f"ppo:{name}" for name in shipped]
        + [f"search:{name}" for name in shipped]
    )


def _within_budget(name: str, count: str | None, limit: int, unit: str) -> str:
    """``name`` when its budget (``count`` of ``unit``, None: the default) is at most
    ``limit``; TableError 400 saying the bound otherwise."""
    if count is None or int(count) <= limit:
        return name
    raise TableError(400, f"bot {short(name)}: at most {limit} {unit} per move on this server")


def check_bot_name(name: Any) -> str:
    """``name`` when the server may build that agent; TableError 400 naming it otherwise."""
    if isinstance(name, str):
        if name in BUILT_IN_BOTS or name in shipped_agents():
            return name
        match = POLICY_SEARCH_NAME.fullmatch(name)
        if match is not None and f"ppo:{match.group('model')}" in shipped_agents():
            return _within_budget(name, match.group("rollouts"), MAX_SEARCH_ROLLOUTS, "rollouts")
        match = SEARCH_NAME.fullmatch(name)
        if match is not None:
            simulations = match.group("simulations")
            return _within_budget(name, simulations, MAX_SEARCH_SIMULATIONS, "simulations")
    raise TableError(
        400,
        f"unknown bot {short(name)}: choose one of {', '.join(BUILT_IN_BOTS)}, "
        "ppo:NAME or search:NAME@N for a shipped network NAME (ppo:classic-2p, "
        f"search:classic-4p@64, ...; N <= {MAX_SEARCH_ROLLOUTS}; every name: /api/options), "
        f"openspiel:ismcts-N (N <= {MAX_SEARCH_SIMULATIONS}) or openspiel:random",
    )


def make_bot(name: Any, seed: int | None):
    """The agent ``name`` of the allowlist (:func:`check_bot_name`), seeded with ``seed``."""
    name = check_bot_name(name)
    try:
        if name in BUILT_IN_BOTS:
            return make_agent(name, seed=seed)
        shipped = shipped_agents().get(name)
        if shipped is not None:
            from agents.network import load_agent

            agent = load_agent(shipped)
        elif name.startswith("search:"):  # a shipped network and a budget, checked above
            from agents.search import load_agent as load_search

            agent = load_search(name.split(":", 1)[1])
        else:
            from agents.openspiel_bot import load_agent

            agent = load_agent(name.split(":", 1)[1])
    except (ImportError, ValueError, OSError) as error:
        raise TableError(400, f"bot {name!r} is not available here: {error}") from None
    reseed(agent, seed)
    with contextlib.suppress(AttributeError):
        agent.name = name
    return agent


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
            self.table = Table(self.rules, len(seats), seed=self.seed)
        except ValueError as error:
            raise TableError(400, str(error)) from None
        self.version = 0
        self.events: list[dict] = []
        self.lock = threading.Lock()
        #: The bot move under way (:class:`_Thought`), or None.
        self.thinking: _Thought | None = None
        self.move_seconds = BOT_MOVE_SECONDS
        try:  # a bot may refuse the table (a search bot takes the presets only)
            self._start_hand()
        except (ValueError, TypeError) as error:
            raise TableError(400, f"a bot cannot sit at this table: {error}") from None

    def _start_hand(self) -> None:
        for seat, bot in self.bots.items():
            bot.reset(seat, self.table.num_players, self.rules)
        self.events = []

    # -------------------------------------------------------------- queries
    @property
    def game(self) -> Game:
        """The engine's game under the table (what the page's view is drawn from)."""
        return self.table.game

    @game.setter
    def game(self, game: Game) -> None:
        # seats ``game`` at a table of its own: the hidden-information tests show a copy
        # of a live table with a world redealt from the viewer's seat
        self.table = Table.from_game(game)

    @property
    def waiting_for(self) -> str:
        """Who the table waits for: ``you``, ``bot``, ``next hand`` or ``game over``."""
        table = self.table
        if table.hand_over:
            return "game over" if table.episode_ends("game") else "next hand"
        return HUMAN if table.current == self.seat else "bot"

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
        if not self.table.is_legal(action):
            reason = self.game.explain_illegal(action)
            raise TableError(400, f"illegal action {action} ({ACTION_TEXTS[action]!r}): {reason}")
        self._apply(self.seat, action)

    def advance(self, version: int, thinking: Thinking) -> None:
        """One bot move. Takes the table's lock itself and lets go of it while the bot
        thinks (on a copy of the game), so the table answers meanwhile; a move that takes
        longer than :attr:`move_seconds` is refused (503) and the table stays as it was."""
        with self.lock:
            self.check_version(version)
            if self.waiting_for != "bot":
                raise TableError(409, f"no bot is to move (the table waits for {self.waiting_for})")
            if self.thinking is not None:
                raise TableError(409, "a bot of this table is still thinking; try again soon")
            table = self.table
            seat = table.current
            mask = table.mask()
            observation = table.observation(seat)
            world = table.copy()
            thought = self.thinking = _Thought()
        try:
            action = thought.think(self, thinking, self.bots[seat], world, observation, mask)
        except BaseException:
            with self.lock:
                if not thought.abandoned:  # an abandoned thought ends in its own thread
                    self.thinking = None
            raise
        with self.lock:
            self.thinking = None
            if self.version != version:  # cannot happen: nothing moves while a bot thinks
                raise TableError(409, "the table changed while its bot thought; reload it")
            if not table.is_legal(action):
                raise TableError(
                    500, f"bot {self.names[seat]!r} in seat {seat} chose illegal action {action}"
                )
            self._apply(seat, action)

    def next_hand(self, version: int) -> None:
        self.check_version(version)
        if self.waiting_for != "next hand":
            raise TableError(409, f"the hand is not over (the table waits for {self.waiting_for})")
        self.table.next_hand()
        self.version += 1
        self._start_hand()

    def _apply(self, seat: int, action: int) -> None:
        try:
            self.table.step(action)
        except IllegalActionError as error:  # is_legal said yes: a bug, but change nothing
            raise TableError(400, str(error)) from None
        self.version += 1
        self.events.append(
            {"seat": seat, "name": self._labels()[seat], "text": ACTION_TEXTS[action]}
        )


class Thinking:
    """The bots of one server: at most ``slots`` of them think at once, at most ``builds``
    replays are built at once (:meth:`build`), and ``stopping`` tells a request that waits
    for one to give up (the server is going down)."""

    def __init__(self, slots: int = MAX_THINKING, builds: int = MAX_BUILDS):
        self._slots = threading.BoundedSemaphore(slots)
        self._builds = threading.BoundedSemaphore(builds)
        self.builders = builds
        self.stopping = threading.Event()

    def take(self) -> None:
        """Take a slot; 503 when none frees up in :data:`THINKING_WAIT_SECONDS`."""
        if not self._slots.acquire(timeout=THINKING_WAIT_SECONDS):
            raise TableError(
                503, "every bot of this server is busy thinking; try again in a few seconds"
            )

    def give(self) -> None:
        """Give back a slot that :meth:`take` took."""
        self._slots.release()

    def build(self, work: Callable[[Callable[[], None]], Any], seconds: float, too_long: str):
        """``work(check)``'s result, within ``seconds`` of wall time.

        The work runs in a thread of its own, holding one of the ``builds`` builders, and
        calls ``check()`` between moves; the request holds one bots' slot while it waits.
        Past ``seconds`` the request answers TableError 503 (``too_long``) and gives its
        slot back at once; ``check()`` then stops the work at its next move, and the
        builder is free when it has stopped (a move that never returns keeps one builder,
        never a bot's slot). A ValueError or TableError of the work is raised here.
        """
        if not self._builds.acquire(timeout=THINKING_WAIT_SECONDS):
            raise TableError(
                503,
                f"the server builds at most {self.builders} replays at once, and that many "
                "are being built; try again in a few seconds",
            )
        try:
            self.take()
        except BaseException:
            self._builds.release()
            raise
        deadline = time.monotonic() + seconds
        done, given_up = threading.Event(), threading.Event()
        outcome: dict[str, Any] = {}

        def check() -> None:
            if given_up.is_set() or time.monotonic() > deadline:
                raise TableError(503, too_long)

        def run() -> None:
            try:
                outcome["result"] = work(check)
            except BaseException as error:  # noqa: BLE001 - handed to the request
                outcome["error"] = error
            finally:
                self._builds.release()
                done.set()

        threading.Thread(target=run, name="replay-build", daemon=True).start()
        try:
            while not done.wait(0.02):
                if self.stopping.is_set():
                    raise TableError(503, "the server is stopping")
                if time.monotonic() > deadline:
                    raise TableError(503, too_long)
        finally:
            given_up.set()
            self.give()
        error = outcome.get("error")
        if isinstance(error, (TableError, ValueError)):
            raise error
        if error is not None:
            raise TableError(500, f"building the replay failed ({type(error).__name__})")
        return outcome["result"]


class _Thought:
    """One bot move, thought in a thread of its own so the request can stop waiting.

    A move refused for taking too long leaves its thread to finish: the table counts as
    thinking (409 for another move) until it has, and its result is dropped.
    """

    def __init__(self):
        self.done = threading.Event()
        self.action: int | None = None
        self.error: BaseException | None = None
        self.abandoned = False

    def think(
        self, table: LiveTable, thinking: Thinking, bot, world: Table, observation, mask
    ) -> int:
        """The bot's action at ``world`` (a copy of the live table, so a search bot's
        world is drawn from a copy and the live game is never touched meanwhile)."""
        thinking.take()

        def run() -> None:
            try:
                self.action = int(world.choose_action(bot, observation, mask))
            except BaseException as error:  # noqa: BLE001 - handed to the request
                self.error = error
            finally:
                thinking.give()
                with table.lock:
                    self.done.set()
                    if self.abandoned and table.thinking is self:
                        table.thinking = None

        threading.Thread(target=run, name=f"bot-{table.id[:6]}", daemon=True).start()
        deadline = time.monotonic() + table.move_seconds
        while not self.done.wait(0.05) and time.monotonic() < deadline:
            if thinking.stopping.is_set():
                with table.lock:
                    self.abandoned = True
                raise TableError(503, "the server is stopping")
        if not self.done.is_set():
            with table.lock:
                if not self.done.is_set():
                    self.abandoned = True
                    raise TableError(
                        503,
                        f"the bot took longer than {table.move_seconds:g} s over its move; "
                        "the move is refused and the table is as it was (try again, or "
                        "choose a bot with a smaller budget)",
                    )
        if self.error is not None:
            raise TableError(500, f"the bot failed over its move ({type(self.error).__name__})")
        return self.action


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
        """``check()`` is called before each move is played (:meth:`Thinking.build`'s
        deadline: it raises to stop the building)."""
        self.positions_of(replay)
        self.id = new_table_id()
        self.replay = replay
        self.title = title
        self.names = names or [f"player {s}" for s in range(replay.num_players)]
        self.positions: list[Position] = []
        self.checkpoints: dict[int, Table] = {}
        self._record_positions(check or (lambda: None))
        self.lock = threading.Lock()

    @staticmethod
    def positions_of(replay: Replay) -> int:
        """The positions a table of ``replay`` would hold: every action and every deal;
        ValueError when it has more than :data:`MAX_REPLAY_STEPS` actions."""
        if replay.num_actions > MAX_REPLAY_STEPS:
            raise ValueError(f"a replay has at most {MAX_REPLAY_STEPS:,} actions here")
        return replay.num_actions + len(replay.actions)

    def _record_positions(self, check: Callable[[], None]) -> None:
        """Every deal and every action, checking that each can be played (ValueError)."""
        replay = self.replay
        table = Table(replay.rules, replay.num_players, seed=replay.seed, deck=replay.deck)
        self._add(table, Position(0, None, None, "deal of hand 1"))
        for hand, actions in enumerate(replay.actions):
            check()
            if hand:
                if not table.hand_over or table.episode_ends("game"):
                    raise ValueError(f"invalid replay: hand {hand} cannot be dealt")
                table.next_hand()
                self._add(table, Position(hand, None, None, f"deal of hand {hand + 1}"))
            for step, action in enumerate(actions):
                check()
                seat = table.current
                try:
                    table.step(action)
                except IllegalActionError as error:
                    raise ValueError(
                        f"invalid replay: hand {hand}, move {step}: action {action}: {error}"
                    ) from None
                self._add(table, Position(hand, seat, action, ACTION_TEXTS[action]))

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


def arena_replay(
    results: Any,
    hand: int,
    build: Callable[[str], Any] = make_agent,
    check: Callable[[], None] | None = None,
) -> tuple[Replay, list[str]]:
    """Play hand ``hand`` of an arena's ``results.json`` again and record it.

    ``build(name)`` makes each seat's agent: :func:`~agents.registry.make_agent` for a
    file of the user's own (``canasta serve --arena``), the server's allowlist
    (:func:`make_bot`) for a file that came in a request. ``check()`` is called before
    each move (:meth:`Thinking.build`'s deadline: it raises to stop the hand).

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
        try:
            agent = build(name)
        except TableError as error:
            raise TableError(error.status, f"hand {hand}, seat {seat}: {error.message}") from None
        except ValueError as error:
            raise ValueError(f"hand {hand}, seat {seat}: {error}") from None
        reseed(agent, agent_seed(*keys, seat))
        agent.reset(seat, num_players, rules)
        agents.append(agent)
    table = Table(rules, num_players, seed=deal_seed)
    actions = []
    while not table.hand_over:
        if check is not None:
            check()
        seat = table.current
        action = int(table.choose_action(agents[seat], table.observation(seat), table.mask()))
        table.step(action)
        actions.append(action)
    scores = table.team_scores
    if scores != record.get("team_scores") or len(actions) != record.get("steps"):
        raise ValueError(
            f"hand {hand} played again gives scores {scores} in {len(actions)} steps, but the "
            f"arena saved {record.get('team_scores')} in {record.get('steps')}: the agents "
            "are not the ones that played it"
        )
    return Replay(rules, num_players, deal_seed, [actions]), seats


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
    prefix, _, path = name.partition(":")
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
