"""A live game against bots (:class:`LiveTable`).

A :class:`LiveTable` holds one game (a :class:`~canasta_env.table.Table`: every table
here plays and views its game through one, never stepping the engine itself), the
human's seat and a bot in every other seat.
The server decides everything: the browser sends an action id with the table's
``version``; a stale version, an action out of turn or an illegal one raises
:class:`~canasta_web.tables.TableError` (an HTTP 4xx) and changes nothing. Bots move one
at a time (:meth:`LiveTable.advance`), each in a thread of its own (:class:`_Thought`)
within the bounds of :class:`~canasta_web.thinking.Thinking`, so the page can show each
move at the speed its user sets. The deal seed never leaves the server: it fixes every
hidden card.
"""

from __future__ import annotations

import secrets
import threading
import time

from canasta_env.actions import ACTION_TEXTS, MOVE_DRAW, MOVE_KINDS, NUM_ACTIONS
from canasta_env.engine.game import PHASE_MELD, Game, IllegalActionError
from canasta_env.rules import PRESETS, check_player_count, make_rules
from canasta_env.table import Table
from canasta_web.bots import BUILT_IN_BOTS, make_bot
from canasta_web.tables import TableError, new_table_id, short
from canasta_web.thinking import Slot, Thinking
from canasta_web.views import seat_view

#: The seat name of the person at a live table.
HUMAN = "you"
#: The longest a bot may think over one move before the move is refused (503).
BOT_MOVE_SECONDS = 20.0


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
        if variant not in PRESETS:  # the page's words, not the Python API's
            raise TableError(
                400, f"unknown preset {short(variant)}; choose one of {', '.join(sorted(PRESETS))}"
            )
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
        self.drawn: list[int] = []
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
        # what the person's draw brought, marked until their turn ends (their own cards)
        drawing = self.waiting_for == HUMAN and self.game.phase == PHASE_MELD
        view.update(
            drawn=list(self.drawn) if drawing else [],
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
        before = list(self.game.hands[self.seat])
        self._apply(self.seat, action)
        if MOVE_KINDS[action] == MOVE_DRAW:  # the page marks what the draw brought
            after = self.game.hands[self.seat]
            gained = (new - old for old, new in zip(before, after))
            self.drawn = [kind for kind, count in enumerate(gained) for _ in range(count)]

    def advance(self, version: int, thinking: Thinking, client: str | None = None) -> None:
        """One bot move, thought in one of ``thinking``'s slots of ``client``'s share (a
        house bot's slot for random, greedy and expert). Takes the table's lock itself and
        lets go of it while the bot thinks (on a copy of the game), so the table answers
        meanwhile; a move that takes longer than :attr:`move_seconds` is refused (503) and
        the table stays as it was."""
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
            slot = thinking.take(client, house=self.names[seat] in BUILT_IN_BOTS)
            action = thought.think(self, thinking, slot, self.bots[seat], world, observation, mask)
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
        self, table: LiveTable, thinking: Thinking, slot: Slot, bot, world: Table, observation, mask
    ) -> int:
        """The bot's action at ``world`` (a copy of the live table, so a search bot's
        world is drawn from a copy and the live game is never touched meanwhile); the
        thread gives ``slot`` back when the bot has moved."""

        def run() -> None:
            try:
                self.action = int(world.choose_action(bot, observation, mask))
            except BaseException as error:  # noqa: BLE001 - handed to the request
                self.error = error
            finally:
                thinking.give(slot)
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
