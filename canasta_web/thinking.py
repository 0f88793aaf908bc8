"""The bounds on the server's work (:class:`Thinking`): the bots thinking at once, and the
replays built at once, each within a wall-time bound; and the signal that the server is
stopping, which every request that waits heeds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from canasta_web.tables import TableError

#: The most bots thinking at once in the whole server; one more request waits this long
#: for a turn, then gets 503.
MAX_THINKING = 4
THINKING_WAIT_SECONDS = 5.0
#: The replays built (or arena hands played again) at once, each also holding one of the
#: MAX_THINKING bots' slots while its request waits: the other slots stay free for bots.
MAX_BUILDS = 2


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
