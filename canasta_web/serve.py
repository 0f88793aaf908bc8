"""``canasta serve``: the browser table on a local web server (uvicorn).

Usage::

    canasta serve [--host 127.0.0.1] [--port 8000] [--allow-host NAME ...]
                  [--replay FILE] [--arena DIR --hand N] [--no-browser]

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

import argparse
import contextlib
import importlib.util
import sys
import threading
import webbrowser

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MISSING_EXTRA = (
    "canasta serve: the browser table needs the 'web' extra (fastapi, uvicorn); "
    'install it with: pip install -c constraints.txt -e ".[web]"'
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canasta serve",
        description="Play against the bots and watch replays in a web page.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port (0: any free port)")
    parser.add_argument("--replay", metavar="FILE", help="open this replay file")
    parser.add_argument("--arena", metavar="DIR", help="an arena output folder (results.json)")
    parser.add_argument("--hand", type=int, help="with --arena: the index of the hand to open")
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer requests addressed to this host name (repeatable), e.g. the "
        "machine's name when listening on 0.0.0.0",
    )
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    return parser


def startup_replay(args):
    """The replay table that ``--replay`` or ``--arena/--hand`` names, or None."""
    from canasta_env.replay import Replay
    from canasta_web.tables import ReplayTable, load_arena_hand

    if args.replay:
        return ReplayTable(Replay.load(args.replay), title=args.replay)
    if args.arena is not None:
        replay, names = load_arena_hand(args.arena, args.hand)
        return ReplayTable(replay, names, title=f"{args.arena} hand {args.hand}")
    return None


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if (args.arena is None) != (args.hand is None):
        print("canasta serve: --arena DIR and --hand N go together", file=sys.stderr)
        return 2
    if args.replay and args.arena:
        print("canasta serve: give --replay or --arena, not both", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print(f"canasta serve: --port must be 0..65535, got {args.port}", file=sys.stderr)
        return 2
    if any(importlib.util.find_spec(name) is None for name in ("fastapi", "uvicorn")):
        print(MISSING_EXTRA, file=sys.stderr)
        return 2
    import uvicorn

    from canasta_web.app import create_app

    try:
        startup = startup_replay(args)
    except (OSError, ValueError) as error:
        print(f"canasta serve: {error}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK:
        print(
            f"canasta serve: listening on {args.host}: anyone who can reach this machine "
            "can open tables here",
            file=sys.stderr,
        )
    app = create_app(startup=startup, allowed_hosts=(args.host, *args.allow_host))
    server = uvicorn.Server(server_config(app, args.host, args.port))
    threading.Thread(
        target=_announce_when_started, args=(server, not args.no_browser), daemon=True
    ).start()
    server.run()
    return 0


#: Seconds a stopping server waits for requests under way (a bot's move among them).
SHUTDOWN_SECONDS = 1


def server_config(app, host: str, port: int):
    """uvicorn's settings: requests under way get :data:`SHUTDOWN_SECONDS` to finish when
    the server is told to stop; a bot thinks in a daemon thread, which does not hold the
    process up after that."""
    import uvicorn

    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        timeout_graceful_shutdown=SHUTDOWN_SECONDS,
        limit_concurrency=256,
        timeout_keep_alive=5,
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


if __name__ == "__main__":
    sys.exit(main())


@contextlib.contextmanager
def background_server(app, host: str = "127.0.0.1", port: int = 0, timeout: float = 20.0):
    """Serve ``app`` from a thread of this process and yield its address (for tests and
    scripts that drive the page); the server stops when the block ends."""
    import time

    import uvicorn

    server = uvicorn.Server(server_config(app, host, port))
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
