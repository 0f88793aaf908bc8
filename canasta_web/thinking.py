"""The bounds on the server's work (:class:`Thinking`): the bots thinking at once, shared
fairly between clients, and the replays built at once, each within a wall-time bound; and
the signal that the server is stopping, which every request that waits heeds.

A bot's move holds one of the server's slots while the bot thinks. A client (what the
table store counts by: :func:`canasta_web.store.client_key`) holds at most
``per_client`` slots at once, so that a few clients asking for long searches cannot take
every slot; and ``house_slots`` slots are kept for the house bots (random, greedy,
expert), whose moves take milliseconds, so that such a move never waits behind the
searches of others.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from canasta_web.tables import TableError

#: The most bots thinking at once in the whole server; one more request waits this long
#: for a turn, then gets 503.
MAX_THINKING = 4
THINKING_WAIT_SECONDS = 5.0
#: The slots of MAX_THINKING that only the house bots (random, greedy, expert) may take:
#: the other bots (searches, networks) and replay builds share the rest.
HOUSE_BOT_SLOTS = 1
#: The slots one client may hold at once. A page moves one bot at a time, so one is all a
#: person needs; with one each, it takes as many clients as there are slots for searches
#: (MAX_THINKING - HOUSE_BOT_SLOTS) to keep every search waiting, and none of them keeps a
#: house bot waiting. A client's second move waits for its first (429 past the wait).
THINKING_PER_CLIENT = 1
#: The replays built (or arena hands played again) at once, each also holding one of the
#: MAX_THINKING bots' slots while its request waits: the other slots stay free for bots.
MAX_BUILDS = 2
#: The requests that may wait at once for a slot or a builder, in the whole server and for
#: one client. A waiting request holds one of the server's worker threads (40: Starlette's
#: pool), so without these bounds one client sending tens of requests at once kept every
#: thread waiting and every other client's requests behind them; past them a request is
#: answered at once (503, or 429 for the client's own second one).
MAX_WAITING = 8
WAITING_PER_CLIENT = 1


@dataclass(frozen=True)
class Slot:
    """A slot that :meth:`Thinking.take` gave: whose it is, and whether a house bot's."""

    client: str | None
    house: bool


class Thinking:
    """The bots of one server: at most ``slots`` of them think at once, ``house_slots``
    of those kept for the house bots, and one client holds at most ``per_client`` of
    them; at most ``builds`` replays are built at once (:meth:`build`); and ``stopping``
    tells a request that waits for one to give up (the server is going down)."""

    def __init__(
        self,
        slots: int = MAX_THINKING,
        builds: int = MAX_BUILDS,
        per_client: int = THINKING_PER_CLIENT,
        house_slots: int = HOUSE_BOT_SLOTS,
    ):
        if min(slots, builds, per_client) < 1 or house_slots < 0:
            raise ValueError("a server has at least one bot's slot and one builder")
        self.slots = slots
        #: a server of one slot keeps none back: its other bots could never think
        self.house_slots = min(house_slots, slots - 1)
        self.per_client = per_client
        self._builds = threading.BoundedSemaphore(builds)
        self.builders = builds
        self.stopping = threading.Event()
        self._changed = threading.Condition()
        self._busy = 0  # slots held
        self._searching = 0  # slots held by bots other than the house bots, and builds
        self._held: dict[str | None, int] = {}  # client -> slots it holds
        self._waiting = 0  # requests waiting for a slot or a builder
        self._waiting_of: dict[str, int] = {}  # client -> its requests waiting

    def take(self, client: str | None = None, house: bool = False) -> Slot:
        """A slot for ``client`` (None: counted in no client's share) to move a house bot
        (``house``) or another bot. When none may be given, waits up to
        :data:`THINKING_WAIT_SECONDS`, then raises TableError: 429 when the client holds
        its share, 503 when the server's slots are busy."""
        deadline = time.monotonic() + THINKING_WAIT_SECONDS
        with self._changed:
            if (refusal := self._refusal(client, house)) is not None:
                self._start_waiting(client)
                try:
                    while (refusal := self._refusal(client, house)) is not None:
                        left = deadline - time.monotonic()
                        if left <= 0 or self.stopping.is_set():
                            raise TableError(*refusal)
                        self._changed.wait(min(left, 0.1))
                finally:
                    self._stop_waiting(client)
            self._busy += 1
            self._searching += not house
            if client is not None:
                self._held[client] = self._held.get(client, 0) + 1
        return Slot(client, house)

    def give(self, slot: Slot) -> None:
        """Give back a slot that :meth:`take` gave."""
        with self._changed:
            self._busy -= 1
            self._searching -= not slot.house
            if slot.client is not None:
                self._held[slot.client] -= 1
                if not self._held[slot.client]:
                    del self._held[slot.client]
            self._changed.notify_all()

    def _start_waiting(self, client: str | None) -> None:
        """Count a request that must wait (``self._changed`` held), or refuse it at once:
        503 when :data:`MAX_WAITING` requests wait already, 429 when one of ``client``'s
        does (:data:`WAITING_PER_CLIENT`)."""
        if client is not None and self._waiting_of.get(client, 0) >= WAITING_PER_CLIENT:
            raise TableError(
                429,
                "this client already has a request waiting for the server's bots; try again "
                "when it is answered",
            )
        if self._waiting >= MAX_WAITING:
            raise TableError(
                503,
                f"{MAX_WAITING} requests wait for the server's bots already, the most it keeps "
                "waiting; try again in a few seconds",
            )
        self._waiting += 1
        if client is not None:
            self._waiting_of[client] = self._waiting_of.get(client, 0) + 1

    def _stop_waiting(self, client: str | None) -> None:
        self._waiting -= 1
        if client is not None:
            self._waiting_of[client] -= 1
            if not self._waiting_of[client]:
                del self._waiting_of[client]

    def _refusal(self, client: str | None, house: bool) -> tuple[int, str] | None:
        """(status, message) saying why no slot may be given now, or None."""
        if client is not None and self._held.get(client, 0) >= self.per_client:
            return 429, (
                f"this client already has {self.per_client} bot(s) thinking, the most one "
                "client may have at once; try again when its move is made"
            )
        if self._busy >= self.slots:
            return 503, "every bot of this server is busy thinking; try again in a few seconds"
        if not house and self._searching >= self.slots - self.house_slots:
            return 503, (
                f"every bot of this server is busy thinking ({self._searching} of its "
                f"{self.slots} slots hold searches or replays, and {self.house_slots} are "
                "kept for random, greedy and expert); try again in a few seconds"
            )
        return None

    def build(
        self,
        work: Callable[[Callable[[], None]], Any],
        seconds: float,
        too_long: str,
        client: str | None = None,
    ):
        """``work(check)``'s result, within ``seconds`` of wall time.

        The work runs in a thread of its own, holding one of the ``builds`` builders, and
        calls ``check()`` between moves; the request holds one bots' slot (of ``client``'s
        share, not a house bot's) while it waits.
        Past ``seconds`` the request answers TableError 503 (``too_long``) and gives its
        slot back at once; ``check()`` then stops the work at its next move, and the
        builder is free when it has stopped (a move that never returns keeps one builder,
        never a bot's slot). A ValueError or TableError of the work is raised here.
        """
        if not self._builds.acquire(blocking=False):  # a builder free, or wait for one
            with self._changed:
                self._start_waiting(client)
            try:
                got = self._builds.acquire(timeout=THINKING_WAIT_SECONDS)
            finally:
                with self._changed:
                    self._stop_waiting(client)
            if not got:
                raise TableError(
                    503,
                    f"the server builds at most {self.builders} replays at once, and that "
                    "many are being built; try again in a few seconds",
                )
        try:
            slot = self.take(client)
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
            self.give(slot)
        error = outcome.get("error")
        if isinstance(error, (TableError, ValueError)):
            raise error
        if error is not None:
            raise TableError(500, f"building the replay failed ({type(error).__name__})")
        return outcome["result"]
