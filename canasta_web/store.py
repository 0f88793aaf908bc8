"""The tables of every browser session (:class:`TableStore`), and the bounds that keep one
client from taking the store from the others (docs/security.md, "The web server").

Every table is kept under its own unguessable id with the session (cookie) and the client
address that made it. A new table makes room with tables of its own session, then of its
own client address, then of the whole server, in that order, and only with tables nobody
has used for ``protected_seconds`` (a session's own tables excepted): a table in use is
never lost to make room for someone else's. What it cannot make room for is refused, and
a refused table changes nothing in the store.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from canasta_web.guard import cut
from canasta_web.live import LiveTable
from canasta_web.replays import ReplayTable
from canasta_web.tables import TableError, short
from canasta_web.thinking import MAX_BUILDS, MAX_THINKING, Thinking

#: A bound on the tables kept at once. A table used in the last PROTECTED_SECONDS is never
#: evicted for another client's table: when the store holds only such tables, a new one is
#: refused (503).
MAX_TABLES = 128
PROTECTED_SECONDS = 30 * 60
#: The tables one browser session (its cookie) may hold; its own least recently used
#: table makes room for its next one.
MAX_TABLES_PER_SESSION = 8
#: The tables one client address may hold, all its sessions together (a client that sends
#: no cookie is a new session each time): a quarter of the store, so that no one client
#: fills it. Past it, the client's own least recently used table that nobody has used for
#: PROTECTED_SECONDS makes room; when it has none, its new table is refused (429).
MAX_TABLES_PER_CLIENT = 32
#: The replay positions (moves and deals) that all replay tables hold together: about
#: 0.7 kB each, so some 300 MB. A replay that would go past it makes room with replays
#: nobody has used for PROTECTED_SECONDS, or is refused (503).
MAX_REPLAY_POSITIONS = 400_000
#: The replay positions that one client address may hold: two of the longest replays.
#: Past it, the client's own idle replays make room, or the new one is refused (429).
MAX_REPLAY_POSITIONS_PER_CLIENT = 100_000


class TableStore:
    """The tables of every browser session, by id.

    Bounds, each checked when a table is added (:meth:`add`), in this order:

    * a session (the page's cookie) holds at most ``per_session`` tables: its own least
      recently used makes room for its next;
    * a client address holds at most ``per_client`` tables and ``client_positions``
      replay positions: its own least recently used idle tables make room, else 429;
    * all replays together hold at most ``replay_positions`` positions, and the store at
      most ``limit`` tables: the least recently used idle ones make room, else 503.

    Idle means unused for ``protected_seconds``. A table added with ``pinned=True`` (the
    one ``canasta serve --replay`` opens) is never evicted and counts in no budget but
    ``limit``.
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
    ):
        if min(limit, per_session, per_client, replay_positions, client_positions) < 1:
            raise ValueError("a table store holds at least one table and one position of each")
        self.limit = limit
        self.per_session = per_session
        self.per_client = per_client
        self.replay_positions = replay_positions
        self.client_positions = client_positions
        self.protected_seconds = protected_seconds
        self.clock = clock
        #: id -> table, the least recently used first
        self.tables: OrderedDict[str, LiveTable | ReplayTable] = OrderedDict()
        self.owners: dict[str, str | None] = {}
        self.clients: dict[str, str | None] = {}
        self.used: dict[str, float] = {}
        self.pinned: set[str] = set()
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
        """Keep ``table`` for ``session`` and ``client`` (an address), making room as the
        class doc says; TableError (429, 503, 400) naming the bound when there is none,
        and then nothing has changed."""
        with self.lock:
            if not pinned:
                positions = len(table.positions) if isinstance(table, ReplayTable) else 0
                for key in self._room(session, client, positions):
                    self._drop(key)
            self.tables[table.id] = table
            self.owners[table.id] = session
            self.clients[table.id] = client
            self.used[table.id] = self.clock()
            if pinned:
                self.pinned.add(table.id)

    def check_room(self, session: str | None, client: str | None, positions: int = 0) -> None:
        """TableError, as :meth:`add` would raise it, when a table of ``positions`` replay
        positions could not be added now; changes nothing (a request asks before it
        spends the time to build a replay; :meth:`add` checks again)."""
        with self.lock:
            self._room(session, client, positions)

    def _room(self, session: str | None, client: str | None, positions: int) -> list[str]:
        """The tables to drop so that a new one fits, or TableError naming the bound."""
        largest = min(self.client_positions, self.replay_positions)
        if positions > largest:
            raise TableError(
                400,
                f"the replay has {positions:,} positions (moves and deals); a replay here "
                f"has at most {largest:,}",
            )
        now = self.clock()
        drop: list[str] = []
        if session is not None:  # a session's own tables make room first, idle or not
            own = [k for k in self.tables if self.owners[k] == session and k not in self.pinned]
            drop += own[: max(0, len(own) - self.per_session + 1)]

        def kept(belongs: Callable[[str], bool]) -> list[str]:
            return [key for key in self.tables if key not in drop and belongs(key)]

        def held(belongs: Callable[[str], bool]) -> int:
            return sum(self.positions(key) for key in kept(belongs))

        def make_room(belongs, over: Callable[[], bool], refusal: Callable[[], TableError]):
            for key in kept(belongs):
                if not over():
                    break
                if key not in self.pinned and now - self.used[key] >= self.protected_seconds:
                    drop.append(key)
            if over():
                raise refusal()

        recent = f"used in the last {self.protected_seconds / 60:g} minutes"
        if client is not None:

            def mine(key: str) -> bool:
                return self.clients[key] == client

            def my_replays(key: str) -> bool:
                return mine(key) and self.positions(key) > 0

            make_room(
                mine,
                lambda: len(kept(mine)) >= self.per_client,
                lambda: TableError(
                    429,
                    f"this client address ({cut(client)}) already holds {len(kept(mine))} "
                    f"tables, the most one address may hold ({self.per_client}), each "
                    f"{recent}; go on with one of them or try again later",
                ),
            )
            if positions:
                make_room(
                    my_replays,
                    lambda: held(my_replays) + positions > self.client_positions,
                    lambda: TableError(
                        429,
                        f"this client address's replays hold {held(my_replays):,} positions "
                        f"and this one has {positions:,}: one address may hold at most "
                        f"{self.client_positions:,} replay positions, and its replays were "
                        f"{recent}; try again later",
                    ),
                )
        if positions:

            def replays(key: str) -> bool:
                return key not in self.pinned and self.positions(key) > 0

            make_room(
                replays,
                lambda: held(replays) + positions > self.replay_positions,
                lambda: TableError(
                    503,
                    f"the server's replays hold {held(replays):,} positions and this one has "
                    f"{positions:,}: all replays together may hold at most "
                    f"{self.replay_positions:,}, each {recent}; try again later",
                ),
            )
        make_room(
            lambda key: True,
            lambda: len(self.tables) - len(drop) >= self.limit,
            lambda: TableError(
                503,
                f"the server holds {len(self.tables) - len(drop)} tables, every one {recent}; "
                "try again later",
            ),
        )
        return drop

    def _drop(self, key: str) -> None:
        del self.tables[key]
        del self.owners[key]
        del self.clients[key]
        del self.used[key]
        self.pinned.discard(key)

    def get(self, table_id: str, kind: type) -> Any:
        with self.lock:
            table = self.tables.get(table_id)
            if table is None or not isinstance(table, kind):
                what = "table" if kind is LiveTable else "replay"
                raise TableError(404, f"no {what} with id {short(table_id)} (it may have expired)")
            self.tables.move_to_end(table_id)
            self.used[table_id] = self.clock()
            return table
