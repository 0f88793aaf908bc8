"""What every request to ``canasta serve`` passes before it reaches a route (docs/security.md).

:class:`Guard` is a plain ASGI middleware, outermost in the app:

* **Host**: the ``Host`` header must name this server: a loopback name
  (``localhost``, ``127.0.0.1``, ``::1``), the ``--host`` it listens on, or a name
  given with ``--allow-host``. Anything else is 421, so a page elsewhere that
  rebinds its DNS name to this machine cannot read or drive the tables.
* **Origin**: a request that changes something (any method but GET, HEAD and
  OPTIONS) from a browser must come from this server's own page: an ``Origin``
  header, where the browser sends one, must be ``http://HOST`` for the Host it
  asked; ``Sec-Fetch-Site: cross-site`` is refused too. 403 otherwise.
* **Size and time**: a body longer than ``max_body`` bytes is 413, whether it
  declares its length or streams it, and one that takes longer than
  ``body_seconds`` to arrive is 408; nothing of it reaches a route. A body refused
  as too long is read to its end and dropped (up to ``MAX_DRAINED`` bytes, within
  ``body_seconds``) before the 413 is sent, so that a client still sending it reads
  its answer instead of a reset connection; the connection is closed after a 413 or
  a 408.
* **Session**: a browser session cookie (random, HttpOnly, SameSite=Strict) that
  the table store uses for its per-session quota. ``scope["state"]`` gets
  ``session`` (the cookie's, or a new one) and ``cookie`` (whether the request sent
  one: a browser does from its first page on, a script that keeps no cookies never).

Every refusal is JSON ``{"error": ...}`` like the routes' own.
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Iterable
from http.cookies import SimpleCookie

#: Host names that always reach this server.
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
#: The largest request body accepted: a replay file of the longest game (50,000
#: actions) is about 250 kB; the page sends one arena hand, not the whole file.
MAX_BODY = 1_000_000
#: The longest a client may take to send its body (a slow sender holds a connection).
BODY_SECONDS = 10.0
#: The most bytes of a refused body read and dropped before its 413 is sent. A client
#: that sends its body without waiting for an answer (urllib, requests) and sees the
#: connection closed under it gets a reset instead of the 413; past this bound it may.
MAX_DRAINED = 16 * MAX_BODY
SESSION_COOKIE = "canasta_session"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
#: How much of a header an error repeats.
ECHO = 40


def host_name(host: str) -> str:
    """The name in a Host header or URL authority, without its port, lower case."""
    host = host.strip().lower()
    if host.startswith("["):  # [::1]:8000
        return host[1 : host.find("]")] if "]" in host else host
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


def cut(text: str, limit: int = ECHO) -> str:
    """``text`` cut to ``limit`` characters: an answer repeats no more of a request."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Guard:
    """The checks of the module doc, around ``app``."""

    def __init__(
        self,
        app,
        allowed_hosts: Iterable[str] = (),
        max_body: int = MAX_BODY,
        body_seconds: float = BODY_SECONDS,
    ):
        self.app = app
        self.body_seconds = body_seconds
        self.allowed = {host_name(name) for name in (*LOOPBACK_NAMES, *allowed_hosts)}
        self.max_body = max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {}
        for key, value in scope.get("headers", ()):
            headers.setdefault(key.decode("latin-1").lower(), value.decode("latin-1"))
        refusal = self.refusal(scope["method"], headers)
        if refusal is not None:
            await _answer(send, *refusal)
            return
        deadline = time.monotonic() + self.body_seconds
        length = headers.get("content-length")
        if length is not None:
            declared = int(length) if length.isdigit() and len(length) <= 18 else None
            if declared is None or declared > self.max_body:
                if declared is not None and declared <= MAX_DRAINED:
                    await self._drain(receive, headers, deadline)
                await _answer(send, 413, self._too_big(), close=True)
                return
        body, more = [], True
        size = 0
        while more:
            try:
                message = await asyncio.wait_for(receive(), deadline - time.monotonic())
            except asyncio.TimeoutError:
                late = f"the body took longer than {self.body_seconds:g} s"
                await _answer(send, 408, late, close=True)
                return
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                if message.get("more_body", False):
                    await self._drain(receive, headers, deadline, size)
                await _answer(send, 413, self._too_big(), close=True)
                return
            body.append(chunk)
            more = message.get("more_body", False)
        replay = [{"type": "http.request", "body": b"".join(body), "more_body": False}]

        async def replayed():
            return replay.pop() if replay else await receive()

        session = _session(headers.get("cookie", ""))
        new = session is None
        state = {**scope.get("state", {}), "session": session or _new(), "cookie": not new}
        scope = {**scope, "state": state}

        async def send_with_cookie(message):
            if new and message["type"] == "http.response.start":
                cookie = (
                    f"{SESSION_COOKIE}={scope['state']['session']}; Path=/; HttpOnly; "
                    "SameSite=Strict"
                )
                message = {
                    **message,
                    "headers": [*message.get("headers", []), (b"set-cookie", cookie.encode())],
                }
            await send(message)

        await self.app(scope, replayed, send_with_cookie)

    def refusal(self, method: str, headers: dict[str, str]) -> tuple[int, str] | None:
        """(status, message) when the request may not go on, else None."""
        host = headers.get("host", "")
        if host_name(host) not in self.allowed:
            return 421, (
                f"this server does not answer for host {cut(host)!r}; open it as "
                "http://localhost:PORT/ (or start it with --allow-host NAME)"
            )
        if method in SAFE_METHODS:
            return None
        origin = headers.get("origin")
        if origin is not None and origin.lower() not in (f"http://{host}", f"https://{host}"):
            return 403, f"a request from another site ({cut(origin)!r}) may not change a table"
        if headers.get("sec-fetch-site", "").lower() == "cross-site":
            return 403, "a request from another site may not change a table"
        return None

    def _too_big(self) -> str:
        return f"the request body is larger than {self.max_body:,} bytes"

    @staticmethod
    async def _drain(receive, headers: dict[str, str], deadline: float, size: int = 0) -> None:
        """Read a refused body to its end and drop it: at most :data:`MAX_DRAINED` bytes in
        all, until ``deadline``. A client that waits for ``100 Continue`` has sent nothing
        and is answered at once (reading would ask it for the body)."""
        if "100-continue" in headers.get("expect", "").lower():
            return
        while size <= MAX_DRAINED:
            try:
                message = await asyncio.wait_for(receive(), deadline - time.monotonic())
            except asyncio.TimeoutError:
                return
            if message["type"] == "http.disconnect" or not message.get("more_body", False):
                return
            size += len(message.get("body", b""))


def _session(cookie_header: str) -> str | None:
    """The session id in a Cookie header when it is one this server could have made."""
    try:
        cookies = SimpleCookie()
        cookies.load(cookie_header)
    except Exception:  # noqa: BLE001 - a malformed cookie is no session
        return None
    morsel = cookies.get(SESSION_COOKIE)
    if morsel is None:
        return None
    value = morsel.value
    if 16 <= len(value) <= 64 and all(c.isalnum() or c in "-_" for c in value):
        return value
    return None


def _new() -> str:
    return secrets.token_urlsafe(24)


async def _answer(send, status: int, message: str, close: bool = False) -> None:
    """The refusal ``{"error": message}``; ``close``: the connection closes after it (what
    is left of a refused body is never read)."""
    body = json.dumps({"error": message}).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
    ]
    if close:
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
