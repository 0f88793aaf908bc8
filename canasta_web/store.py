"""The tables of every browser session (:class:`TableStore`), and the bounds that keep one
client from taking the store from the others (docs/security.md, "The web server").

Every table is kept under its own unguessable id with the session (cookie) and the client
(:func:`client_key`) that made it. A table is *protected* while a person moves in it: a
live table where a person moved (or dealt the next hand) in the last ``protected_seconds``,
a replay a person stepped through in that time, at most ``protected_per_client`` of them
per client (its most recently moved). A table nobody has moved in is never protected,
however new. A new table makes room with tables of its own session (any), of its own
client (unprotected ones), then of the whole server: the least recently used unprotected
table of the client that holds the most. A protected table is never lost to make room for
another client's. What cannot be made room for is refused, and a refused table changes
nothing in the store.
"""

from __future__ import annotations

import ipaddress
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from canasta_web.guard import cut
from canasta_web.live import LiveTable
from canasta_web.replays import ReplayTable
from canasta_web.tables import TableError, short
from canasta_web.thinking import MAX_BUILDS, MAX_THINKING, Thinking

#: A bound on the tables kept at once. When the store holds only protected tables, a new
#: one is refused (503).
MAX_TABLES = 128
#: How long a person's last move keeps a table protected.
PROTECTED_SECONDS = 30 * 60
#: The tables one browser session (its cookie) may hold; its own least recently used
#: table (protected or not: they are all its own) makes room for its next one.
MAX_TABLES_PER_SESSION = 8
#: The tables one client may hold, all its sessions together (a remote client that sends
#: no cookie is a new session each time): a quarter of the store. Past it, the client's
#: own least recently used unprotected table makes room.
MAX_TABLES_PER_CLIENT = 32
#: The tables of one client that its person's moves protect: its MAX_PROTECTED_PER_CLIENT
#: most recently moved in. A session's tables, all of them; it takes MAX_TABLES /
#: MAX_PROTECTED_PER_CLIENT = 16 clients, each moving in 8 games every 30 minutes, to
#: fill the store with protected tables (4 addresses that merely opened 32 tables each
#: filled it before).
MAX_PROTECTED_PER_CLIENT = 8
#: The replay positions (moves and deals) that all replay tables hold together: about
#: 0.7 kB each, so some 300 MB. A replay that would go past it makes room with
#: unprotected replays, or is refused (503).
MAX_REPLAY_POSITIONS = 400_000
#: The replay positions that one client may hold: two of the longest replays. Past it,
#: the client's own unprotected replays make room, or the new one is refused (429).
MAX_REPLAY_POSITIONS_PER_CLIENT = 100_000
#: The prefix of a client that is a browser session rather than an address.
SESSION_CLIENT = "session "


def client_key(address: str, session: str | None) -> str:
    """Whom a request's tables and bots count against: its address, except on loopback.

    A remote client makes a fresh cookie for nothing, but not a fresh address, so its
    address is what bounds it. On loopback every browser and program of this machine has
    the one address, and the session cookie tells them apart: ``session`` when the request
    sent one (a browser does from the page on), else the address, shared by every local
    program that keeps no cookie.
    """
    if session is not None and is_loopback(address):
        return SESSION_CLIENT + session
    return address


def is_loopback(address: str) -> bool:
    """Whether ``address`` (a connection's host) is this machine's (127.0.0.0/8, ::1)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1
    return (mapped or ip).is_loopback


def describe(client: str) -> str:
    """The client as an error names it (a session's cookie is never repeated)."""
    if client.startswith(SESSION_CLIENT):
        return "this browser session"
    return f"this client address ({cut(client)})"


@dataclass
class Holding:
    """What the store knows of one table besides the table itself."""

    session: str | None
    client: str | None
    moved: float | None = None  # when a person last moved in it (None: never)
    pinned: bool = False  # ``canasta serve --replay``'s: never evicted


class TableStore:
    """The tables of every browser session, by id.

    Bounds, each checked when a table is added (:meth:`add`), in this order:

    * a session (the page's cookie) holds at most ``per_session`` tables: its own least
      recently used makes room for its next;
    * a client holds at most ``per_client`` tables and ``client_positions`` replay
      positions: its own least recently used unprotected tables make room, else 429;
    * all replays together hold at most ``replay_positions`` positions, and the store at
      most ``limit`` tables: the least recently used unprotected table (replay) of the
      client that holds the most tables (replay positions) makes room, again and again,
      else 503.

    Protected (the module doc): moved in by a person (:meth:`moved`) in the last
    ``protected_seconds``, the ``protected_per_client`` most recent of each client. A
    table added with ``pinned=True`` (the one ``canasta serve --replay`` opens) is never
    evicted and counts in no budget but ``limit``.
    """

    def __init__(
        self,
        limit: int = MAX_TABLES,
        per_session: int = MAX_TABLES_PER_SESSION,
        protected_seconds: float = PROTECTED_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        max_thinking: int = MAX_THINKING,
        per_client: int = MAX_TABLES_PER_CLIENT,
        replay_positions: int = MAX_REPLAY_POSITIONS,
        client_positions: int = MAX_REPLAY_POSITIONS_PER_CLIENT,
        max_builds: int = MAX_BUILDS,
        protected_per_client: int = MAX_PROTECTED_PER_CLIENT,
    ):
        bounds = (limit, per_session, per_client, replay_positions, client_positions)
        if min(bounds) < 1 or protected_per_client < 0:
            raise ValueError("a table store holds at least one table and one position of each")
        self.limit = limit
        self.per_session = per_session
        self.per_client = per_client
        self.protected_per_client = protected_per_client
        self.replay_positions = replay_positions
        self.client_positions = client_positions
        self.protected_seconds = protected_seconds
        self.clock = clock
        #: id -> table, the least recently used first
        self.tables: OrderedDict[str, LiveTable | ReplayTable] = OrderedDict()
        self.holdings: dict[str, Holding] = {}
        self.lock = threading.Lock()
        #: the bots of this store's tables: slots, replay builders and the stop signal
        self.thinking = Thinking(max_thinking, max_builds)

    def __len__(self) -> int:
        return len(self.tables)

    def positions(self, key: str) -> int:
        """The replay positions table ``key`` holds (0 for a live table)."""
        table = self.tables[key]
        return len(table.positions) if isinstance(table, ReplayTable) else 0

    def add(
        self,
        table: LiveTable | ReplayTable,
        session: str | None = None,
        pinned: bool = False,
        client: str | None = None,
    ) -> None:
        """Keep ``table`` for ``session`` and ``client`` (:func:`client_key`), making room
        as the class doc says; TableError (429, 503, 400) naming the bound when there is
        none, and then nothing has changed."""
        with self.lock:
            if not pinned:
                positions = len(table.positions) if isinstance(table, ReplayTable) else 0
                for key in self._room(session, client, positions):
                    self._drop(key)
            self.tables[table.id] = table
            self.holdings[table.id] = Holding(session, client, pinned=pinned)

    def check_room(self, session: str | None, client: str | None, positions: int = 0) -> None:
        """TableError, as :meth:`add` would raise it, when a table of ``positions`` replay
        positions could not be added now; changes nothing (a request asks before it
        spends the time to build a replay; :meth:`add` checks again)."""
        with self.lock:
            self._room(session, client, positions)

    def protected(self) -> set[str]:
        """The tables no other client's table may evict now (pinned ones among them)."""
        with self.lock:
            return self._protected(self.clock())

    def _protected(self, now: float) -> set[str]:
        recent: dict[str | None, list[tuple[float, int, str]]] = {}
        for rank, (key, holding) in enumerate(self.holdings.items()):
            moved = holding.moved
            if not holding.pinned and moved is not None and now - moved < self.protected_seconds:
                recent.setdefault(holding.client, []).append((moved, rank, key))
        protected = {key for key, holding in self.holdings.items() if holding.pinned}
        for moves in recent.values():
            moves.sort(reverse=True)
            protected.update(key for _, _, key in moves[: self.protected_per_client])
        return protected

    def _room(self, session: str | None, client: str | None, positions: int) -> list[str]:
        """The tables to drop so that a new one fits, or TableError naming the bound."""
        largest = min(self.client_positions, self.replay_positions)
        if positions > largest:
            raise TableError(
                400,
                f"the replay has {positions:,} positions (moves and deals); a replay here "
                f"has at most {largest:,}",
            )
        protected = self._protected(self.clock())
        drop: list[str] = []
        if session is not None:  # a session's own tables make room first, moved in or not
            own = [k for k, h in self.holdings.items() if h.session == session and not h.pinned]
            drop += own[: max(0, len(own) - self.per_session + 1)]

        def kept(belongs: Callable[[str], bool]) -> list[str]:
            """The tables that ``belongs`` takes and that stay, least recently used first."""
            return [key for key in self.tables if key not in drop and belongs(key)]

        def held(belongs: Callable[[str], bool]) -> int:
            return sum(self.positions(key) for key in kept(belongs))

        def make_room_own(belongs, over: Callable[[], bool], refusal: Callable[[], TableError]):
            for key in kept(belongs):
                if not over():
                    break
                if key not in protected:
                    drop.append(key)
            if over():
                raise refusal()

        def make_room_fairly(belongs, weight, over, refusal: Callable[[], TableError]):
            """While ``over()``: the least recently used unprotected table among those
            ``belongs`` takes, of the client whose tables weigh the most."""
            while over():
                weights: dict[str | None, int] = {}
                oldest: dict[str | None, tuple[int, str]] = {}
                for rank, key in enumerate(kept(belongs)):
                    owner = self.holdings[key].client
                    weights[owner] = weights.get(owner, 0) + weight(key)
                    if key not in protected and owner not in oldest:
                        oldest[owner] = (rank, key)
                if not oldest:
                    raise refusal()
                heaviest = max(oldest, key=lambda owner: (weights[owner], -oldest[owner][0]))
                drop.append(oldest[heaviest][1])

        def movable(key: str) -> bool:
            return not self.holdings[key].pinned

        def replays(key: str) -> bool:
            return movable(key) and self.positions(key) > 0

        guarded = (
            f"a person moved in each in the last {self.protected_seconds / 60:g} minutes "
            f"(at most the {self.protected_per_client} most recent of each client)"
        )
        if client is not None:

            def mine(key: str) -> bool:
                return self.holdings[key].client == client and movable(key)

            def my_replays(key: str) -> bool:
                return mine(key) and self.positions(key) > 0

            who = describe(client)
            make_room_own(
                mine,
                lambda: len(kept(mine)) >= self.per_client,
                lambda: TableError(
                    429,
                    f"{who} already holds {len(kept(mine))} tables, the most one client may "
                    f"hold ({self.per_client}), and {guarded}; go on with one of them or "
                    "try again later",
                ),
            )
            if positions:
                make_room_own(
                    my_replays,
                    lambda: held(my_replays) + positions > self.client_positions,
                    lambda: TableError(
                        429,
                        f"the replays of {who} hold {held(my_replays):,} positions and this "
                        f"one has {positions:,}: one client may hold at most "
                        f"{self.client_positions:,} replay positions, and {guarded}; "
                        "try again later",
                    ),
                )
        if positions:
            make_room_fairly(
                replays,
                self.positions,
                lambda: held(replays) + positions > self.replay_positions,
                lambda: TableError(
                    503,
                    f"the replays on this server hold {held(replays):,} positions and this one has "
                    f"{positions:,}: all replays together may hold at most "
                    f"{self.replay_positions:,}, and {guarded}; try again later",
                ),
            )
        make_room_fairly(
            movable,
            lambda key: 1,
            lambda: len(self.tables) - len(drop) >= self.limit,
            lambda: TableError(
                503,
                f"the server holds {len(self.tables) - len(drop)} tables, the most it "
                f"keeps, and {guarded}; try again later",
            ),
        )
        return drop

    def _drop(self, key: str) -> None:
        del self.tables[key]
        del self.holdings[key]

    def get(self, table_id: str, kind: type) -> Any:
        """Table ``table_id`` of ``kind`` (404 when there is none), now its most recently
        used."""
        with self.lock:
            table = self.tables.get(table_id)
            if table is None or not isinstance(table, kind):
                what = "table" if kind is LiveTable else "replay"
                raise TableError(404, f"no {what} with id {short(table_id)} (it may have expired)")
            self.tables.move_to_end(table_id)
            return table

    def moved(self, table_id: str) -> None:
        """A person moved in table ``table_id`` (or stepped through the replay): it is
        protected for ``protected_seconds`` (the class doc)."""
        with self.lock:
            holding = self.holdings.get(table_id)
            if holding is not None:
                holding.moved = self.clock()
                self.tables.move_to_end(table_id)
