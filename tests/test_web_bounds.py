"""``canasta serve`` against one client that would deny the table to everyone (docs/security.md,
"The web server"): the findings of an outside probe, each tried as the probe did it.

1. Tables from one address without cookies filled the store (a 503 for everyone for 30
   minutes): one address holds a share, and makes room with its own idle tables only.
2. Replays of 50,000 moves from one client took the server to 4.6 GB: a store-wide budget
   of replay positions, and a share of it per address.
3. Slow connections (slowloris) made every request a 503: a deadline on each request head,
   and a bound on the connections that wait for one (real sockets, a real server).
4. A replay that stalls the engine held every bot slot: building one has a wall-time bound
   and gives its slot back when the request answers (the engine is stood in for by a slow
   or stalled move, so the test does not depend on the engine being slow).
5. An arena file seating a search with a huge budget played again without bound: a file's
   search gets no more than a live table's.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (the 'dev' extra)")

from fastapi.testclient import TestClient  # noqa: E402

import canasta_web.app as app_module  # noqa: E402
import canasta_web.replays as replays_module  # noqa: E402
import canasta_web.thinking as thinking_module  # noqa: E402
from canasta_arena.arena import run_arena  # noqa: E402
from canasta_cli.serve import main as canasta_serve  # noqa: E402
from canasta_web import serve as serve_module  # noqa: E402
from canasta_web.app import create_app  # noqa: E402
from canasta_web.bots import MAX_SEARCH_ROLLOUTS, MAX_SEARCH_SIMULATIONS  # noqa: E402
from canasta_web.guard import MAX_DRAINED  # noqa: E402
from canasta_web.live import LiveTable  # noqa: E402
from canasta_web.replays import (  # noqa: E402
    ARENA_REPLAY_SECONDS,
    REPLAY_BUILD_SECONDS,
    ReplayTable,
    load_arena_hand,
)
from canasta_web.serve import background_server  # noqa: E402
from canasta_web.store import (  # noqa: E402
    MAX_PROTECTED_PER_CLIENT,
    MAX_REPLAY_POSITIONS,
    MAX_REPLAY_POSITIONS_PER_CLIENT,
    MAX_TABLES,
    MAX_TABLES_PER_CLIENT,
    PROTECTED_SECONDS,
    TableStore,
)
from canasta_web.tables import TableError  # noqa: E402
from canasta_web.thinking import (  # noqa: E402
    HOUSE_BOT_SLOTS,
    MAX_BUILDS,
    MAX_THINKING,
    THINKING_PER_CLIENT,
)
from tests.replays import random_replay  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SEATS = {"seats": ["you", "random"], "seed": 1}


def client_at(app, address: str) -> TestClient:
    """A client whose connections come from ``address``."""
    return TestClient(app, base_url="http://localhost", client=(address, 40000))


def snapshot(app) -> dict:
    return {key: getattr(table, "version", None) for key, table in app.state.tables.tables.items()}


def replay_body(moves: int, seed: int = 2) -> dict:
    return {"replay": random_replay(seed, moves).to_dict()}


# ---------------------------------------------------------------------- 1. tables per address


def test_one_address_without_cookies_cannot_fill_the_store():
    """The probe: 135 tables from one address, no cookie kept; the default store. The
    address holds its share, its own tables making room for its next (nobody moved in
    them), and nobody else's table is touched."""
    app = create_app()
    person = client_at(app, "192.0.2.1")
    mine = person.post("/api/tables", json=SEATS).json()
    flooder = client_at(app, "192.0.2.66")
    made = []
    for _ in range(135):
        flooder.cookies.clear()  # a new session every time
        answer = flooder.post("/api/tables", json=SEATS)
        assert answer.status_code == 201, answer.text
        made.append(answer.json()["table"])
    store = app.state.tables
    assert len(store) == 1 + MAX_TABLES_PER_CLIENT < MAX_TABLES
    assert [key for key in made if key in store.tables] == made[-MAX_TABLES_PER_CLIENT:]
    # everyone else still gets tables, and the person's game is where it was
    assert client_at(app, "192.0.2.2").post("/api/tables", json=SEATS).status_code == 201
    assert person.get(f"/api/tables/{mine['table']}").json() == mine


def test_an_address_makes_room_with_its_own_unprotected_tables_only():
    now = [0.0]
    store = TableStore(
        limit=10, per_client=2, protected_per_client=2, protected_seconds=60, clock=lambda: now[0]
    )
    made = [LiveTable("classic", ["you", "random"], seed=s) for s in range(5)]
    store.add(made[0], session="a", client="A")  # the oldest table of all, never moved in
    store.add(made[1], session="b1", client="B")
    store.moved(made[1].id)
    now[0] = 30.0
    store.add(made[2], session="b2", client="B")
    store.moved(made[2].id)
    with pytest.raises(TableError) as refused:  # a person moves in both of B's tables
        store.add(made[3], session="b3", client="B")
    assert refused.value.status == 429 and "(2)" in refused.value.message
    now[0] = 61.0  # B's first move is over a minute old: that table is not protected now
    store.add(made[3], session="b3", client="B")
    assert list(store.tables) == [made[0].id, made[2].id, made[3].id]  # B's own made room


def test_a_refused_table_changes_nothing_in_the_store():
    """A session's own tables make room first, but only once the new table fits every
    other bound too: a refusal after that leaves the session's table where it was."""
    small, large, new = (ReplayTable(random_replay(s, m)) for s, m in ((1, 50), (2, 300), (3, 300)))
    budget = len(small.positions) + len(large.positions)
    assert len(large.positions) + len(new.positions) > budget
    store = TableStore(per_session=1, replay_positions=budget)
    store.add(small, session="mine", client="A")
    store.add(large, session="other", client="B")
    store.moved(large.id)  # a person steps through it
    before = dict(store.tables)
    with pytest.raises(TableError) as refused:  # fits only if someone else's went
        store.add(new, session="mine", client="A")
    assert refused.value.status == 503 and f"at most {budget:,}" in refused.value.message
    assert store.tables == before


# ---------------------------------------------------------------------- 2. replay positions


def stepped(client: TestClient, response) -> None:
    """A person steps through the replay ``response`` made: it is protected now."""
    assert response.status_code == 201, response.text
    view = client.get(f"/api/replays/{response.json()['table']}?position=1")
    assert view.status_code == 200, view.text


def test_one_address_holds_its_share_of_replay_positions():
    size = ReplayTable.positions_of(random_replay(2, 300))
    store = TableStore(replay_positions=5 * size, client_positions=2 * size)
    app = create_app(store=store)
    flooder = client_at(app, "192.0.2.66")
    for _ in "ab":
        stepped(flooder, flooder.post("/api/replays", json=replay_body(300)))
    before = snapshot(app)
    refused = flooder.post("/api/replays", json=replay_body(300))
    assert refused.status_code == 429, refused.text
    assert f"at most {2 * size:,} replay positions" in refused.json()["error"]
    assert snapshot(app) == before
    # others are not refused for this client's replays, up to the server's budget
    others = [client_at(app, f"192.0.2.{i}") for i in (1, 2, 3, 4)]
    answers = []
    for other in others:
        answer = other.post("/api/replays", json=replay_body(300))
        answers.append(answer.status_code)
        if answer.status_code == 201:
            stepped(other, answer)
    assert answers == [201, 201, 201, 503]


def test_the_replay_budget_refuses_before_it_builds(monkeypatch):
    """A replay that cannot be kept is refused before any move of it is played (the probe's
    flood cost the server the building of every one)."""
    size = ReplayTable.positions_of(random_replay(2, 300))
    app = create_app(store=TableStore(replay_positions=size, client_positions=size))
    client = client_at(app, "192.0.2.1")
    stepped(client, client.post("/api/replays", json=replay_body(300)))
    played = []
    monkeypatch.setattr(ReplayTable, "_add", lambda *args: played.append(args))
    response = client_at(app, "192.0.2.2").post("/api/replays", json=replay_body(300))
    assert response.status_code == 503, response.text
    message = response.json()["error"]
    assert f"all replays together may hold at most {size:,}" in message
    assert played == []


def test_idle_replays_make_room_for_new_ones():
    now = [0.0]
    size = ReplayTable.positions_of(random_replay(2, 300))
    store = TableStore(replay_positions=2 * size, client_positions=2 * size, clock=lambda: now[0])
    first, second, third = (ReplayTable(random_replay(2, 300)) for _ in range(3))
    store.add(first, client="A")
    store.add(second, client="B")
    store.moved(first.id)
    store.moved(second.id)
    now[0] = PROTECTED_SECONDS  # both idle: the one nobody steps through now goes
    store.moved(first.id)
    store.add(third, client="C")
    assert list(store.tables) == [first.id, third.id]


def test_the_replay_budget_bounds_the_memory_replays_take():
    """The docs' figure: a replay position costs well under 2 kB, so the default budget
    holds replays in some hundreds of MB (the probe's 128 replays took 4.6 GB)."""
    replay = random_replay(5, 2000)
    tracemalloc.start()
    try:
        table = ReplayTable(replay)
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    per_position = held / len(table.positions)
    assert per_position < 2000, per_position
    assert MAX_REPLAY_POSITIONS * per_position < 800e6
    assert MAX_REPLAY_POSITIONS_PER_CLIENT >= 2 * replays_module.MAX_REPLAY_STEPS


# ---------------------------------------------------------------------- 3. slow connections


def _closed(connection: socket.socket) -> bool:
    """Whether the server closed ``connection`` (a non-blocking socket)."""
    try:
        return connection.recv(1024) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True


def test_slow_connections_are_closed_and_leave_room_for_requests():
    """The probe: 300 connections each trickling a header line (more often than any idle
    timer allows); a request from elsewhere still gets its answer at once, and every slow
    connection is closed by the head deadline, or earlier to make room."""
    head_seconds = 1.5
    with background_server(create_app(), head_seconds=head_seconds) as url:
        host, port = url.split("/")[2].rsplit(":", 1)
        slow, opened = [], {}
        for _ in range(300):
            connection = socket.create_connection((host, int(port)), timeout=5)
            connection.sendall(b"GET /api/options HTTP/1.1\r\nHost: localhost\r\n")
            connection.setblocking(False)
            opened[connection] = time.monotonic()
            slow.append(connection)
        closed: dict[socket.socket, float] = {}
        answered = None
        deadline = time.monotonic() + head_seconds + 3.0
        while len(closed) < len(slow) and time.monotonic() < deadline:
            for connection in slow:
                if connection in closed:
                    continue
                if _closed(connection):
                    closed[connection] = time.monotonic()
                    continue
                try:
                    connection.send(b"X-Trickle: 1\r\n")
                except OSError:
                    closed[connection] = time.monotonic()
            if answered is None:
                started = time.monotonic()
                with urllib.request.urlopen(url + "api/options", timeout=5) as response:
                    answered = (response.status, time.monotonic() - started)
            time.sleep(0.2)
        for connection in slow:
            connection.close()
    assert answered is not None and answered[0] == 200 and answered[1] < 2.0, answered
    assert len(closed) == len(slow), f"{len(slow) - len(closed)} slow connections still open"
    # those that waited longest made room for newer ones at once; the others were closed
    # at the deadline, trickling as they were
    lived = [closed[c] - opened[c] for c in slow]
    at_deadline = [seconds for seconds in lived if seconds > head_seconds - 0.3]
    waiting = serve_module.MAX_WAITING_CONNECTIONS
    assert len(slow) - len(at_deadline) >= len(slow) - waiting
    assert len(at_deadline) >= waiting - 2 and max(at_deadline) < head_seconds + 1.0


def test_a_request_sent_at_once_is_not_cut_by_the_head_deadline():
    """Positive control: keep-alive requests that arrive in time are answered, however
    long the connection has been open."""
    import http.client

    with background_server(create_app(), head_seconds=1.0) as url:
        host, port = url.split("/")[2].rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
        try:
            for _ in range(3):
                connection.request("GET", "/api/options", headers={"Host": "localhost"})
                response = connection.getresponse()
                assert response.status == 200
                response.read()
                time.sleep(0.6)  # idle under the deadline each time, 1.8 s in all
        finally:
            connection.close()


def test_the_server_runs_with_the_documented_bounds():
    config = serve_module.server_config(create_app(), "127.0.0.1", 0)
    config.load()
    assert config.limit_concurrency == serve_module.MAX_CONNECTIONS
    assert config.h11_max_incomplete_event_size == serve_module.MAX_HEAD_BYTES
    door = config.http_protocol_class.keywords["door"]
    assert door.head_seconds == serve_module.HEAD_SECONDS
    assert door.max_waiting == serve_module.MAX_WAITING_CONNECTIONS
    assert door.max_waiting < serve_module.MAX_CONNECTIONS  # room left for requests


# ---------------------------------------------------------------------- 4. building a replay


def slow_moves(monkeypatch, seconds: float, stall_at: int | None = None, stalls: int = 99):
    """Stand in for an engine that is slow at every move (``seconds`` each) or, with
    ``stall_at``, stalls at that position of a replay for ``seconds`` (the first
    ``stalls`` replays built). Returns (the times of every move, the times of the stalls)."""
    moves: list[float] = []
    stalled: list[float] = []
    add = ReplayTable._add

    def slow_add(self, table, position):
        moves.append(time.monotonic())
        if stall_at is None:
            time.sleep(seconds)
        elif len(self.positions) == stall_at and len(stalled) < stalls:
            stalled.append(time.monotonic())
            time.sleep(seconds)
        add(self, table, position)

    monkeypatch.setattr(ReplayTable, "_add", slow_add)
    return moves, stalled


def wait_for(condition, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def test_a_replay_slow_to_build_is_refused_in_time_and_frees_its_slot(monkeypatch):
    monkeypatch.setattr(app_module, "REPLAY_BUILD_SECONDS", 0.3)
    app = create_app(store=TableStore(max_thinking=1, max_builds=1))
    client = client_at(app, "192.0.2.1")
    moves, _ = slow_moves(monkeypatch, 0.01)  # 400 moves: 4 s
    started = time.monotonic()
    response = client.post("/api/replays", json=replay_body(400))
    assert time.monotonic() - started < 1.5
    assert response.status_code == 503 and "longer than 0.3 s to build" in response.json()["error"]
    assert snapshot(app) == {}
    count = len(moves)
    time.sleep(0.2)
    assert len(moves) <= count + 2  # the building stopped at its next move
    # the one bot slot is free: a bot moves
    monkeypatch.undo()
    view = client_at(app, "192.0.2.2").post(
        "/api/tables", json={"seats": ["random", "you"], "seed": 1}
    )
    path = f"/api/tables/{view.json()['table']}/advance"
    assert client.post(path, json={"version": 0}).status_code == 200


def test_a_stalled_replay_build_holds_no_bot_slot(monkeypatch):
    """One move that does not return (the probe's house rule) : the request answers at the
    bound, the bots' slot is free at once, and the builder is free when the move returns."""
    monkeypatch.setattr(app_module, "REPLAY_BUILD_SECONDS", 0.3)
    monkeypatch.setattr(thinking_module, "THINKING_WAIT_SECONDS", 0.1)
    app = create_app(store=TableStore(max_thinking=1, max_builds=1))
    table = LiveTable("classic", ["random", "you"], seed=1)
    app.state.tables.add(table, pinned=True)
    client = client_at(app, "192.0.2.1")
    _, stalled = slow_moves(monkeypatch, 2.0, stall_at=3, stalls=1)
    started = time.monotonic()
    response = client.post("/api/replays", json=replay_body(100))
    assert time.monotonic() - started < 1.0
    assert response.status_code == 503 and "longer than 0.3 s" in response.json()["error"]
    moved = client.post(f"/api/tables/{table.id}/advance", json={"version": 0})
    assert moved.status_code == 200, moved.text  # the stalled move holds no bot's slot
    busy = client.post("/api/replays", json=replay_body(100))  # it holds the one builder
    assert busy.status_code == 503 and "1 replays at once" in busy.json()["error"]
    assert wait_for(lambda: time.monotonic() - stalled[0] > 2.1)
    assert wait_for(lambda: client.post("/api/replays", json=replay_body(50)).status_code == 201)
    assert len(app.state.tables) == 2


def test_replays_never_take_every_bot_slot(monkeypatch):
    """However many replays are posted at once, at most MAX_BUILDS of the MAX_THINKING
    slots go to building them."""
    assert MAX_BUILDS < MAX_THINKING
    monkeypatch.setattr(thinking_module, "THINKING_WAIT_SECONDS", 0.1)
    app = create_app()
    table = LiveTable("classic", ["random", "you"], seed=1)
    app.state.tables.add(table, pinned=True)
    slow_moves(monkeypatch, 1.0, stall_at=3)
    answers = []
    posts = [
        threading.Thread(
            target=lambda i=i: answers.append(
                client_at(app, f"192.0.2.{i}").post("/api/replays", json=replay_body(30))
            )
        )
        for i in range(MAX_THINKING + 1)
    ]
    for post in posts:
        post.start()
    time.sleep(0.3)  # the builders are stalled, the other posts refused
    moved = client_at(app, "192.0.2.99").post(
        f"/api/tables/{table.id}/advance", json={"version": 0}
    )
    assert moved.status_code == 200, moved.text
    for post in posts:
        post.join(10)
    busy = [a for a in answers if a.status_code == 503]
    assert len(busy) == MAX_THINKING + 1 - MAX_BUILDS
    assert all("replays at once" in a.json()["error"] for a in busy)


# ---------------------------------------------------------------------- 5. arena budgets


def arena_folder(tmp_path: Path, seat: str) -> Path:
    run_arena(
        ["random", "greedy"],
        variant="classic",
        num_players=2,
        hands=1,
        seed=5,
        out_dir=tmp_path,
        plot=False,
    )
    results = json.loads((tmp_path / "results.json").read_text())
    results["hands"][0]["seats"][1] = seat
    (tmp_path / "results.json").write_text(json.dumps(results))
    return tmp_path


@pytest.mark.parametrize(
    "seat, words",
    [
        ("search:classic-2p@4096", f"at most {MAX_SEARCH_ROLLOUTS} (the live tables' cap)"),
        ("search:classic-2p@4096,depth=none", f"at most {MAX_SEARCH_ROLLOUTS}"),
        ("openspiel:ismcts-99999999", f"at most {MAX_SEARCH_SIMULATIONS} simulations"),
        ("openspiel:ismcts-1001", f"at most {MAX_SEARCH_SIMULATIONS} simulations"),
        # a LABEL=NAME (canasta arena's alias) names the same search: the cap holds
        ("big=search:classic-2p@4096", f"at most {MAX_SEARCH_ROLLOUTS} (the live tables' cap)"),
        ("big=openspiel:ismcts-1001", f"at most {MAX_SEARCH_SIMULATIONS} simulations"),
    ],
)
def test_an_arena_file_gets_no_larger_search_than_a_live_table(tmp_path, seat, words):
    folder = arena_folder(tmp_path, seat)
    started = time.monotonic()
    with pytest.raises(ValueError, match="hand 0, seat 1: agent") as refused:
        load_arena_hand(folder, 0)
    assert words in str(refused.value) and time.monotonic() - started < 2.0


def test_canasta_serve_refuses_an_arena_file_with_an_unbounded_search(tmp_path, capsys):
    """The probe's command: canasta serve --arena DIR --hand 0, a seat searching 4096
    rollouts a move; refused at once, before the server starts."""
    folder = arena_folder(tmp_path, "search:classic-2p@4096,depth=none")
    started = time.monotonic()
    code = canasta_serve(["--arena", str(folder), "--hand", "0", "--no-browser", "--port", "0"])
    assert code == 2 and time.monotonic() - started < 5.0
    assert f"at most {MAX_SEARCH_ROLLOUTS}" in capsys.readouterr().err


def test_an_arena_file_within_the_cap_still_opens(tmp_path):
    """Positive control: a file's search within the cap (settings and all) is built."""
    agent = replays_module.file_agent(f"search:classic-2p@{MAX_SEARCH_ROLLOUTS},depth=8")
    assert agent.config.rollouts == MAX_SEARCH_ROLLOUTS and agent.config.depth == 8
    replay, names = load_arena_hand(arena_folder(tmp_path, "greedy"), 0)
    assert names == ["random", "greedy"] and replay.num_actions > 0


def test_a_posted_arena_hand_gets_no_larger_search_than_a_live_table(tmp_path):
    folder = arena_folder(tmp_path, "search:classic-2p@4096")
    results = json.loads((folder / "results.json").read_text())
    client = client_at(create_app(), "192.0.2.1")
    response = client.post("/api/replays", json={"arena": results, "hand": 0})
    assert response.status_code == 400
    assert f"at most {MAX_SEARCH_ROLLOUTS} rollouts" in response.json()["error"]


# ---------------------------------------------------------------------- the docs


def web_server_section() -> str:
    text = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    start = text.index("## The web server")
    return text[start : text.index("\n## ", start + 1)]


def test_the_docs_say_every_bound():
    section = web_server_section()
    quoted = [
        f"{MAX_TABLES} tables",
        f"{MAX_TABLES_PER_CLIENT} tables",
        f"{MAX_REPLAY_POSITIONS:,} replay positions",
        f"{MAX_REPLAY_POSITIONS_PER_CLIENT:,}",
        f"{REPLAY_BUILD_SECONDS:g} s",
        f"{ARENA_REPLAY_SECONDS:g} s",
        f"{MAX_BUILDS} of those {MAX_THINKING}",
        f"{serve_module.HEAD_SECONDS:g} s",
        f"{serve_module.MAX_WAITING_CONNECTIONS} connections",
        f"{serve_module.MAX_CONNECTIONS} connections",
        f"{serve_module.MAX_HEAD_BYTES // 1024} KiB",
        f"{MAX_SEARCH_ROLLOUTS} rollouts",
        f"{MAX_SEARCH_SIMULATIONS}",
        f"{MAX_PROTECTED_PER_CLIENT} (`MAX_PROTECTED_PER_CLIENT`)",
        f"{MAX_TABLES} / {MAX_PROTECTED_PER_CLIENT}",
        f"{THINKING_PER_CLIENT} of the {MAX_THINKING} (`THINKING_PER_CLIENT`)",
        f"{HOUSE_BOT_SLOTS} of those slots is kept",
        f"{MAX_DRAINED // 1_000_000} MB (`MAX_DRAINED`)",
        f"{app_module.MAX_QUOTE} characters",
    ]
    missing = [words for words in quoted if words not in section]
    assert missing == [], f"docs/security.md's web-server section lacks {missing}"
