"""What every table of the browser server shares: the refusal a request gets
(:class:`TableError`, an HTTP 4xx or 5xx that changes nothing), :func:`short` for the
input an error repeats, and the unguessable id a table is kept under.

The tables themselves: a live game against bots in :mod:`canasta_web.live`, a replay to
step through in :mod:`canasta_web.replays`; the agents a request may name in
:mod:`canasta_web.bots`; the bounds on the server's thinking in :mod:`canasta_web.thinking`;
the store of every session's tables in :mod:`canasta_web.store`.
"""

from __future__ import annotations

import secrets
from typing import Any

from canasta_web.guard import cut


def short(value: Any) -> str:
    """``repr(value)`` cut short: an error repeats no more of the input."""
    return cut(repr(value))


class TableError(Exception):
    """A request the table refuses; ``status`` is its HTTP status code."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def new_table_id() -> str:
    return secrets.token_urlsafe(16)
