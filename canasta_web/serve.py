"""The browser table on a local web server (uvicorn): :func:`serve`; its command line,
``canasta serve``, is :mod:`canasta_cli.serve`.

It listens on 127.0.0.1 (this machine only) unless ``--host`` says otherwise, and
opens the page in the default browser unless ``--no-browser``. It answers requests
addressed to a loopback name, the ``--host`` address or an ``--allow-host`` name only
(docs/security.md: what a request may do). SIGTERM or Ctrl-C stops it within about
a second, even while a bot thinks. ``--replay FILE``
opens a replay file (:mod:`canasta_env.replay`); ``--arena DIR --hand N`` plays
hand N of an arena's ``DIR/results.json`` again (its deck seed, seats and agent
seeds) and opens it as a replay. Needs the ``web`` extra:
``pip install -e ".[web]"``.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import webbrowser

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def missing_extra() -> str:
    """The line ``canasta serve`` prints without the 'web' extra."""
    from canasta_env.extras import install_command

    return (
        "canasta serve: the browser table needs the 'web' extra (fastapi, uvicorn); "
        f"install it with: {install_command('web')}"
    )


def startup_replay(args):
    """The replay table that ``--replay`` or ``--arena/--hand`` names, or None."""
    from canasta_env.replay import Replay
    from canasta_web.replays import ReplayTable, load_arena_hand

    if args.replay:
        replay = Replay.load(args.replay)
        try:
            return ReplayTable(replay, title=args.replay)
        except ValueError as error:  # a replay its rules refuse, found as it is played
            raise ValueError(f"{args.replay}: {error}") from None
    if args.arena is not None:
        replay, names = load_arena_hand(args.arena, args.hand)
        return ReplayTable(replay, names, title=f"{args.arena} hand {args.hand}")
    return None


def serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    allow_hosts: tuple[str, ...] = (),
    startup=None,
    browser: bool = True,
) -> int:
    """Serve the browser table until SIGTERM or Ctrl-C (needs the ``web`` extra): on
    ``host``:``port``, answering ``host`` and ``allow_hosts`` besides the loopback names,
    with ``startup`` (a replay table, or None) offered to the page; open it in the default
    browser when ``browser``."""
    import uvicorn

    from canasta_web.app import create_app

    if host not in LOOPBACK:
        print(
            f"canasta serve: listening on {host}: anyone who can reach this machine "
            "can open tables here",
            file=sys.stderr,
        )
    app = create_app(startup=startup, allowed_hosts=(host, *allow_hosts))
    server = uvicorn.Server(server_config(app, host, port))
    threading.Thread(target=_announce_when_started, args=(server, browser), daemon=True).start()
    server.run()
    return 0


#: Seconds a stopping server waits for requests under way (a bot's move among them).
SHUTDOWN_SECONDS = 1
#: The most connections and requests at once; a request past it is answered 503.
MAX_CONNECTIONS = 256
#: Seconds an idle keep-alive connection stays open (uvicorn's own timer; the head
#: deadline below covers it too).
KEEP_ALIVE_SECONDS = 5
#: The longest a connection may take to send a whole request head, counted from when it
#: opened or its previous response ended, however it trickles (slowloris); then it is
#: closed (:mod:`canasta_web.connections`).
HEAD_SECONDS = 5.0
#: The most connections waiting for a request head at once (idle keep-alive ones among
#: them): a new connection past it closes the one that has waited longest, so slow
#: connections never take the MAX_CONNECTIONS that requests need.
MAX_WAITING_CONNECTIONS = 128
#: The largest request head (request line and headers) taken; past it, 400.
MAX_HEAD_BYTES = 16 * 1024


def server_config(
    app,
    host: str,
    port: int,
    head_seconds: float = HEAD_SECONDS,
    max_waiting: int = MAX_WAITING_CONNECTIONS,
):
    """uvicorn's settings: requests under way get :data:`SHUTDOWN_SECONDS` to finish when
    the server is told to stop (a bot thinks in a daemon thread, which does not hold the
    process up after that); a connection gets ``head_seconds`` to send each request head,
    and at most ``max_waiting`` connections wait for one (:mod:`canasta_web.connections`:
    slow clients); HTTP/1.1 only, no WebSocket."""
    import uvicorn

    from canasta_web.connections import Door

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=Door(head_seconds, max_waiting).protocol(),
        ws="none",
        h11_max_incomplete_event_size=MAX_HEAD_BYTES,
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        limit_concurrency=MAX_CONNECTIONS,
        timeout_keep_alive=KEEP_ALIVE_SECONDS,
    )


def _announce_when_started(server, browser: bool) -> None:
    """Print the page's address once the server listens (on the port it got); open it."""
    import time

    while not server.started:
        if server.should_exit:
            return
        time.sleep(0.05)
    url = server_url(server)
    print(f"canasta serve: the table is at {url} (Ctrl-C stops it)", flush=True)
    if browser:
        webbrowser.open(url)


def server_url(server) -> str:
    host, port = server.servers[0].sockets[0].getsockname()[:2]
    return f"http://{host}:{port}/"


@contextlib.contextmanager
def background_server(app, host: str = "127.0.0.1", port: int = 0, timeout: float = 20.0, **limits):
    """Serve ``app`` from a thread of this process and yield its address (for tests and
    scripts that drive the page), with :func:`server_config`'s ``limits``; the server
    stops when the block ends."""
    import time

    import uvicorn

    server = uvicorn.Server(server_config(app, host, port, **limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the web server did not start on {host}:{port}")
        time.sleep(0.02)
    try:
        yield server_url(server)
    finally:
        server.should_exit = True
        thread.join(timeout)
