"""Slow clients at ``canasta serve``'s door: a deadline on each request head, and a bound on
the connections that wait for one (docs/security.md, "The web server").

uvicorn closes a keep-alive connection that sends nothing for ``timeout_keep_alive``, but
has no deadline of its own on a request head: a connection that sends one header line
every few seconds is never closed, and each counts against ``limit_concurrency`` until
every request is a 503 (slowloris). :class:`HeadDeadline` is uvicorn's h11 protocol with
two additions, kept per server by a :class:`Door` (the values: :mod:`canasta_web.serve`'s
``HEAD_SECONDS`` and ``MAX_WAITING_CONNECTIONS``):

* a connection that waits for a request head (just opened, or idle after a response) must
  deliver the whole head, request line and headers, within ``head_seconds``; bytes that
  trickle in meanwhile do not extend it. Past it, the connection is closed.
* at most ``max_waiting`` connections wait for a head at once; one more closes the one
  that has waited longest (a client that sends its head at once never waits long), so
  slow connections never hold the slots that ``limit_concurrency`` leaves to requests.

The head's size is bounded by h11 (``h11_max_incomplete_event_size``: 400 past it); a
body that trickles is :class:`canasta_web.guard.Guard`'s (408).
"""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class Door:
    """What the connections of one server share: the deadline, and those that wait."""

    def __init__(self, head_seconds: float, max_waiting: int):
        if head_seconds <= 0 or max_waiting < 1:
            raise ValueError("a door waits a positive time for at least one connection")
        self.head_seconds = head_seconds
        self.max_waiting = max_waiting
        #: the connections waiting for a head, the longest waiting first
        self.waiting: OrderedDict[HeadDeadline, None] = OrderedDict()

    def protocol(self):
        """The protocol factory for uvicorn's ``Config(http=...)``."""
        return functools.partial(HeadDeadline, door=self)


class HeadDeadline(H11Protocol):
    """uvicorn's h11 protocol with the module doc's deadline and bound (one event loop
    runs every connection of a server, so the door needs no lock)."""

    def __init__(self, *args, door: Door, **kwargs):
        super().__init__(*args, **kwargs)
        self.door = door
        self.head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_waiting()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def _watch(self) -> None:
        """Start waiting when the connection waits for a head; stop once one came."""
        if self.transport.is_closing():
            self._stop_waiting()
        elif self.conn.their_state is h11.IDLE:
            self._start_waiting()
        else:
            self._stop_waiting()

    def _start_waiting(self) -> None:
        if self.head_timer is not None:  # already waiting: the deadline stands
            return
        door = self.door
        while len(door.waiting) >= door.max_waiting:
            longest, _ = door.waiting.popitem(last=False)
            longest._close()
        door.waiting[self] = None
        self.head_timer = self.loop.call_later(door.head_seconds, self._close)

    def _stop_waiting(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None
        self.door.waiting.pop(self, None)

    def _close(self) -> None:
        """Close a connection whose head did not come in time (or that waited longest)."""
        self._stop_waiting()
        if not self.transport.is_closing():
            try:
                self.conn.send(h11.ConnectionClosed())
            except h11.LocalProtocolError:
                pass
            self.transport.close()
