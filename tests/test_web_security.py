"""``canasta serve`` against requests from people it does not trust (issue 21, docs/security.md).

Each attack is tried on the app as a client would (FastAPI's TestClient on loopback names,
or the server in its own process for SIGTERM), and the test checks that it is refused
with a 4xx/503 that names the problem, that nothing changed, and, where the attack
would run code, that its payload is live (a positive control runs it on purpose).
"""

from __future__ import annotations

import json
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (the 'dev' extra)")

from fastapi.testclient import TestClient  # noqa: E402

import canasta_web.replays as replays_module  # noqa: E402
import canasta_web.thinking as thinking_module  # noqa: E402
from canasta_arena.arena import run_arena  # noqa: E402
from canasta_web.app import create_app  # noqa: E402
from canasta_web.guard import MAX_BODY  # noqa: E402
from canasta_web.live import LiveTable  # noqa: E402
from canasta_web.replays import load_arena_hand  # noqa: E402
from canasta_web.store import TableStore  # noqa: E402
from canasta_web.tables import TableError  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def client_for(app=None, host="localhost", **headers) -> TestClient:
    return TestClient(app or create_app(), base_url=f"http://{host}", headers=headers)


@pytest.fixture
def client():
    return client_for()


def snapshot(app) -> dict:
    """Every table of the app and its version: what a refused request must leave alone."""
    store = app.state.tables
    return {key: getattr(table, "version", None) for key, table in store.tables.items()}


def new_table(client, seats=("you", "random"), seed=3):
    response = client.post(
        "/api/tables", json={"variant": "classic", "seats": list(seats), "seed": seed}
    )
    assert response.status_code == 201, response.text
    return response.json()


class Payload:
    """Unpickling this writes ``path``: a stand-in for code an attacker ships in a pickle."""

    def __init__(self, path: Path):
        self.path = str(path)

    def __reduce__(self):
        return (Path.write_text, (Path(self.path), "ran"))


def evil_zip(path: Path, marker: Path) -> Path:
    """A zip laid out as a Stable-Baselines3 model whose members unpickle to a payload."""
    data = pickle.dumps(Payload(marker))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": {":serialized:": data.hex()}}))
        archive.writestr("policy.pth", data)
        archive.writestr("pytorch_variables.pth", data)
    return path


def test_the_payload_is_live(tmp_path):
    """Positive control: the payload the attacks below carry runs when unpickled."""
    marker = tmp_path / "marker"
    with zipfile.ZipFile(evil_zip(tmp_path / "evil.zip", tmp_path / "marker")) as archive:
        pickle.loads(archive.read("policy.pth"))  # noqa: S301 - the point of the control
    assert marker.read_text() == "ran"


# ---------------------------------------------------------------------- the agent allowlist


@pytest.mark.parametrize(
    "seat, words",
    [
        ("ppo:evil", "unknown bot 'ppo:evil'"),
        ("ppo:./evil.zip", "unknown bot"),
        ("ppo:evil.zip", "unknown bot"),
        ("os:abort", "unknown bot 'os:abort'"),
        ("agents.base:RandomAgent", "unknown bot"),
        ("sb3-classic-2p", "unknown bot"),
        ("ppo:sb3-classic-2p", "unknown bot"),
        ("openspiel:ismcts-99999999999", "unknown bot"),
        ("openspiel:ismcts-1001", "at most 1000 simulations"),
        ("openspiel:ismcts-0", "unknown bot"),
        ("search:classic-2p@513", "at most 512 rollouts"),
        ("search:classic-2p@0", "unknown bot"),
        ("search:evil", "unknown bot 'search:evil'"),
        ("search:./evil.npz", "unknown bot"),
        ("search:classic-2p@8,depth=4", "unknown bot"),
        ("search:sb3-classic-2p", "unknown bot"),
        ("evil", "unknown bot 'evil'"),
    ],
)
def test_a_live_table_builds_agents_from_the_allowlist_only(
    tmp_path, monkeypatch, client, seat, words
):
    marker = tmp_path / "marker"
    evil_zip(tmp_path / "evil.zip", marker)
    monkeypatch.chdir(tmp_path)  # where a bare name would have been looked up
    before = snapshot(client.app)
    response = client.post("/api/tables", json={"seats": ["you", seat], "seed": 1})
    assert response.status_code == 400, response.text
    assert words in response.json()["error"]
    assert not marker.exists() and snapshot(client.app) == before


def test_the_allowlist_takes_the_shipped_agents_and_bounded_search(client):
    names = client.get("/api/options").json()["bots"]
    from agents.network import SHIPPED

    shipped = [name for name, path in SHIPPED.items() if path.suffix == ".npz"]
    assert shipped[:2] == ["classic-2p", "classic-4p"] and "canastone-4p" in shipped
    assert names == ["random", "greedy", "expert"] + [f"ppo:{n}" for n in shipped] + [
        f"search:{n}" for n in shipped
    ]
    assert new_table(client, seats=("you", "ppo:classic-2p"))["waiting_for"] == "you"
    for seat in ("search:classic-2p", "search:classic-4p@512", "search:classic-2p@1"):
        assert new_table(client, seats=("you", seat))["waiting_for"] == "you"
    # every search the page offers plays its default budget within the live tables' cap
    from agents.search import default_rollouts
    from canasta_web.bots import MAX_SEARCH_ROLLOUTS

    assert default_rollouts("classic-4p") == MAX_SEARCH_ROLLOUTS
    assert all(default_rollouts(n) <= MAX_SEARCH_ROLLOUTS for n in shipped)
    pytest.importorskip("pyspiel", reason="search bots need the 'openspiel' extra")
    for seat in ("openspiel:ismcts-1000", "openspiel:ismcts", "openspiel:random"):
        assert new_table(client, seats=("you", seat))["waiting_for"] == "you"


def test_a_search_bot_at_a_table_of_house_rules_is_a_400(client):
    """Found by the long fuzz (make soak): OpenSpiel's bots take the presets only, and
    their refusal was a 500."""
    pytest.importorskip("pyspiel", reason="search bots need the 'openspiel' extra")
    body = {
        "variant": "spanish",
        "seats": ["you", "openspiel:random"],
        "rules": {"black3_canasta_wins_game": False},
        "seed": 0,
    }
    response = client.post("/api/tables", json=body)
    assert response.status_code == 400, response.text
    assert "only the presets" in response.json()["error"] and snapshot(client.app) == {}


def arena_results(tmp_path: Path, agents=("random", "greedy")) -> dict:
    run_arena(
        list(agents),
        variant="classic",
        num_players=2,
        hands=2,
        seed=5,
        out_dir=tmp_path,
        plot=False,
    )
    return json.loads((tmp_path / "results.json").read_text())


def test_an_arena_hand_with_a_seat_off_the_allowlist_is_refused(tmp_path, monkeypatch, client):
    results = arena_results(tmp_path)
    marker = tmp_path / "marker"
    for seat in (f"ppo:{evil_zip(tmp_path / 'evil.zip', marker)}", "ppo:evil", "os:abort"):
        monkeypatch.chdir(tmp_path)
        tampered = json.loads(json.dumps(results))
        tampered["hands"][0]["seats"][1] = seat
        before = snapshot(client.app)
        response = client.post("/api/replays", json={"arena": tampered, "hand": 0})
        assert response.status_code == 400, response.text
        message = response.json()["error"]
        assert message.startswith("hand 0, seat 1: unknown bot"), message
        assert not marker.exists() and snapshot(client.app) == before
    # the untampered file plays again
    assert client.post("/api/replays", json={"arena": results, "hand": 0}).status_code == 201


def test_an_arena_hand_the_page_sends_alone_plays_again(tmp_path, client):
    """The page sends the chosen hand and null for the others (bodies are bounded)."""
    results = arena_results(tmp_path)
    hands = [None, results["hands"][1]]
    response = client.post(
        "/api/replays", json={"arena": {"config": results["config"], "hands": hands}, "hand": 1}
    )
    assert response.status_code == 201 and response.json()["title"] == "arena hand 1"


def test_an_arena_hand_that_takes_too_long_is_refused(tmp_path, monkeypatch, client):
    results = arena_results(tmp_path)
    monkeypatch.setattr(replays_module, "ARENA_REPLAY_SECONDS", 0.0)
    monkeypatch.setattr("canasta_web.app.ARENA_REPLAY_SECONDS", 0.0)
    response = client.post("/api/replays", json={"arena": results, "hand": 0})
    assert response.status_code == 503 and "longer than 0 s" in response.json()["error"]
    assert snapshot(client.app) == {}


def test_a_deep_nested_results_file_is_refused_with_its_name(tmp_path):
    (tmp_path / "results.json").write_text("[" * 200_000 + "]" * 200_000)
    with pytest.raises(ValueError, match=r"arena results .*results.json: nested too deeply"):
        load_arena_hand(tmp_path, 0)
    (tmp_path / "results.json").write_text('{"config": {"variant": ')
    with pytest.raises(ValueError, match=r"results.json: not valid JSON .*truncated"):
        load_arena_hand(tmp_path, 0)


def test_a_deep_nested_body_is_refused(client):
    for depth in (5_000, 200_000):
        body = '{"replay": ' + "[" * depth + "]" * depth + "}"
        response = client.post(
            "/api/replays", content=body, headers={"Content-Type": "application/json"}
        )
        assert 400 <= response.status_code < 500 and "error" in response.json()


# ---------------------------------------------------------------------- Host, Origin, size


@pytest.mark.parametrize("host", ["attacker.example", "attacker.example:8000", "10.0.0.1"])
def test_a_foreign_host_is_refused(host):
    client = client_for(host=host)
    for response in (
        client.get("/"),
        client.get("/api/options"),
        client.post("/api/tables", json={}),
    ):
        assert response.status_code == 421, response.text
        assert "does not answer for host" in response.json()["error"]
    assert snapshot(client.app) == {}


@pytest.mark.parametrize("host", ["localhost", "localhost:8000", "127.0.0.1:9", "[::1]:8000"])
def test_loopback_names_are_answered(host):
    assert client_for(host=host).get("/api/options").status_code == 200


def test_the_host_it_listens_on_and_allowed_names_are_answered():
    app = create_app(allowed_hosts=("192.168.1.7", "box.lan"))
    for host in ("192.168.1.7:8000", "box.lan", "BOX.LAN:80"):
        assert client_for(app, host=host).get("/api/options").status_code == 200
    assert client_for(app, host="other.lan").get("/api/options").status_code == 421


def test_a_state_change_from_another_site_is_refused(client):
    view = new_table(client)
    path = f"/api/tables/{view['table']}/act"
    before = snapshot(client.app)
    for headers in (
        {"Origin": "http://attacker.example"},
        {"Origin": "http://localhost:9999"},  # another program on this machine
        {"Origin": "null"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        response = client.post(path, json={"version": 0, "action": 0}, headers=headers)
        assert response.status_code == 403, response.text
        assert "another site" in response.json()["error"]
    assert snapshot(client.app) == before
    # the page itself (same origin) and clients that send no Origin (scripts, curl) may
    same = client.post(
        path, json={"version": 0, "action": 0}, headers={"Origin": "http://localhost"}
    )
    assert same.status_code == 200, same.text


def test_a_big_body_is_refused_before_it_is_read(client):
    big = b'{"replay": {"x": "' + b"a" * (MAX_BODY + 10) + b'"}}'
    response = client.post(
        "/api/replays", content=big, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413 and "larger than" in response.json()["error"]

    def stream():  # no Content-Length: chunked, counted as it arrives
        yield b'{"replay": {"x": "'
        for _ in range(MAX_BODY // 65536 + 2):
            yield b"a" * 65536
        yield b'"}}'

    response = client.post(
        "/api/replays", content=stream(), headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 413
    assert snapshot(client.app) == {}


def test_an_error_repeats_only_a_short_prefix_of_the_input(client):
    seat = "ppo:" + "A" * 100_000
    response = client.post("/api/tables", json={"seats": ["you", seat]})
    assert response.status_code == 400
    message = response.json()["error"]
    assert "unknown bot 'ppo:AAAA" in message and "A" * 60 not in message and len(message) < 400
    response = client.get("/api/tables/" + "B" * 5000)
    assert response.status_code == 404 and "B" * 60 not in response.json()["error"]
    response = client.get("/api/nothing/" + "D" * 5000)
    assert response.status_code == 404 and "D" * 80 not in response.json()["error"]
    response = client.post("/api/tables", json={"seats": ["you", "random"], "C" * 5000: 1})
    assert response.status_code == 422 and "C" * 60 not in response.json()["error"]


def test_a_refused_method_says_what_is_allowed(client):
    response = client.put("/api/tables")
    assert response.status_code == 405 and response.headers["allow"] == "POST"


# ---------------------------------------------------------------------- nobody's game is lost


def test_a_flood_of_tables_from_other_clients_evicts_nobody():
    """Tables nobody moved in make room for new ones; a game the person moved in stays."""
    app = create_app(store=TableStore(limit=16))
    person = client_for(app)
    mine = new_table(person)
    moved = person.post(f"/api/tables/{mine['table']}/act", json={"version": 0, "action": 0})
    assert moved.status_code == 200
    for i in range(150):  # other clients, each a fresh session (no cookie kept)
        other = client_for(app)
        response = other.post("/api/tables", json={"seats": ["you", "random"], "seed": i})
        assert response.status_code == 201, response.text
    assert len(app.state.tables) == 16
    assert person.get(f"/api/tables/{mine['table']}").json() == moved.json()


def test_one_session_makes_room_with_its_own_tables():
    app = create_app(store=TableStore(limit=64, per_session=8))
    person, flooder = client_for(app), client_for(app)
    mine = new_table(person)
    made = [new_table(flooder, seed=i)["table"] for i in range(20)]
    store = app.state.tables
    assert mine["table"] in store.tables and len(store) == 9
    assert [key for key in made if key in store.tables] == made[-8:]


def test_an_idle_table_makes_room_after_the_protected_time():
    now = [0.0]
    store = TableStore(limit=2, protected_seconds=1800, clock=lambda: now[0])
    old, kept, new, last = (LiveTable("classic", ["you", "random"], seed=s) for s in range(4))
    store.add(old)
    store.moved(old.id)
    now[0] = 100.0
    store.add(kept)
    store.moved(kept.id)
    now[0] = 1800.0  # a person last moved in old 1,800 s ago, in kept 1,700 s ago
    store.add(new)
    assert list(store.tables) == [kept.id, new.id]
    store.moved(new.id)
    with pytest.raises(TableError, match="a person moved in each in the last 30 minutes"):
        store.add(last)


# ---------------------------------------------------------------------- bots that think


class SlowBot:
    """A bot that thinks ``seconds`` (busy, as a search does), then plays the first legal move."""

    name = "slow"

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.started = threading.Event()

    def reset(self, seat, num_players, rules):
        pass

    def act(self, observation, action_mask):
        self.started.set()
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            sum(range(1000))
        return int(action_mask.nonzero()[0][0])


def slow_table(app, seconds: float) -> tuple[LiveTable, SlowBot]:
    table = LiveTable("classic", ["random", "you"], seed=1)
    bot = table.bots[0] = SlowBot(seconds)
    app.state.tables.add(table)
    return table, bot


def test_the_table_answers_while_its_bot_thinks(client):
    table, bot = slow_table(client.app, 1.5)
    path = f"/api/tables/{table.id}"
    moved = {}
    thread = threading.Thread(
        target=lambda: moved.update(r=client.post(path + "/advance", json={"version": 0}))
    )
    thread.start()
    assert bot.started.wait(10)
    started = time.monotonic()
    view = client.get(path)
    assert view.status_code == 200 and view.json()["version"] == 0
    assert time.monotonic() - started < 1.0  # not held up by the thinking bot
    again = client.post(path + "/advance", json={"version": 0})
    assert again.status_code == 409 and "still thinking" in again.json()["error"]
    thread.join(20)
    assert moved["r"].status_code == 200 and moved["r"].json()["version"] == 1


def test_a_bot_move_past_its_time_is_refused_and_changes_nothing(client):
    # the bot thinks far longer than the 0.2 s limit, so that its thread surely still runs
    # when the second request comes, on a loaded machine too (1.0 s was once not enough)
    table, bot = slow_table(client.app, 4.0)
    table.move_seconds = 0.2
    path = f"/api/tables/{table.id}"
    before = client.get(path).json()
    response = client.post(path + "/advance", json={"version": 0})
    assert response.status_code == 503 and "longer than 0.2 s" in response.json()["error"]
    assert client.get(path).json() == before
    busy = client.post(path + "/advance", json={"version": 0})  # its thread still runs
    assert busy.status_code == 409
    deadline = time.monotonic() + 10
    while table.thinking is not None and time.monotonic() < deadline:
        time.sleep(0.05)
    table.move_seconds = 10
    bot.seconds = 0.0
    assert client.post(path + "/advance", json={"version": 0}).status_code == 200


def test_no_more_bots_think_at_once_than_the_server_allows(monkeypatch):
    client = client_for(create_app(store=TableStore(max_thinking=1)))
    other = TestClient(client.app, base_url="http://localhost", client=("192.0.2.7", 40000))
    monkeypatch.setattr(thinking_module, "THINKING_WAIT_SECONDS", 0.1)
    first, bot = slow_table(client.app, 1.0)
    second, _ = slow_table(client.app, 0.0)
    thread = threading.Thread(
        target=lambda: client.post(f"/api/tables/{first.id}/advance", json={"version": 0})
    )
    thread.start()
    assert bot.started.wait(10)
    response = other.post(f"/api/tables/{second.id}/advance", json={"version": 0})
    assert response.status_code == 503 and "busy" in response.json()["error"]
    assert second.version == 0 and second.thinking is None
    thread.join(20)
    assert other.post(f"/api/tables/{second.id}/advance", json={"version": 0}).status_code == 200


def test_a_stopped_server_leaves_the_next_server_its_bots():
    """Each app has its own bots' slots and stop signal: one that stopped (its lifespan
    ended, as in a test that served the page) does not refuse another's moves."""
    with client_for() as stopped:
        assert stopped.get("/api/options").status_code == 200
    assert stopped.app.state.tables.thinking.stopping.is_set()
    client = client_for()
    table, _bot = slow_table(client.app, 0.0)
    assert client.post(f"/api/tables/{table.id}/advance", json={"version": 0}).status_code == 200


SERVER = """
import sys, time, uvicorn
sys.path.insert(0, {root!r})
from canasta_web.app import create_app
from canasta_web.serve import server_config
from canasta_web.live import LiveTable
from tests.test_web_security import SlowBot
app = create_app()
table = LiveTable("classic", ["random", "you"], seed=1)
table.bots[0] = SlowBot(60.0)
table.move_seconds = 120
app.state.tables.add(table)
print(table.id, flush=True)
uvicorn.Server(server_config(app, "127.0.0.1", {port})).run()
"""


def test_sigterm_stops_the_server_while_a_bot_thinks(tmp_path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER.format(root=str(ROOT), port=port)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        table = process.stdout.readline().strip()
        url = f"http://127.0.0.1:{port}/api/tables/{table}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(url, timeout=2)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)
        request = urllib.request.Request(
            url + "/advance", data=b'{"version": 0}', headers={"Content-Type": "application/json"}
        )
        threading.Thread(
            target=lambda: _ignore(lambda: urllib.request.urlopen(request, timeout=60)),
            daemon=True,
        ).start()
        time.sleep(1.0)  # the bot is thinking (for 60 s)
        sent = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        assert time.monotonic() - sent < 2.0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _ignore(call):
    try:
        call()
    except OSError:
        pass


def test_the_schema_declares_the_refusals(client):
    schema = client.get("/api/openapi.json").json()
    act = schema["paths"]["/api/tables/{table_id}/act"]["post"]["responses"]
    assert {"400", "404", "409", "413", "415", "421", "422"} <= set(act)
    seats = schema["components"]["schemas"]["NewTable"]["properties"]["seats"]
    assert "ppo:classic-2p" in seats["items"]["pattern"] and os.sep not in seats["items"]["pattern"]


def test_an_arena_file_opened_by_canasta_serve_imports_no_code(tmp_path, monkeypatch):
    """``canasta serve --arena DIR``: a seat naming an import path is refused, unimported."""
    from agents.registry import make_agent

    results = arena_results(tmp_path)
    marker = tmp_path / "marker"
    (tmp_path / "evilseat.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n"
        "from agents.base import RandomAgent as Bot\n"
    )
    monkeypatch.chdir(tmp_path)
    results["hands"][0]["seats"][1] = "evilseat:Bot"
    (tmp_path / "results.json").write_text(json.dumps(results))
    with pytest.raises(ValueError, match="seat 1: agent 'evilseat:Bot' is Python code"):
        load_arena_hand(tmp_path, 0)
    assert not marker.exists()
    make_agent("evilseat:Bot")  # positive control: the user's own command line may import it
    assert marker.read_text() == "ran"


def test_a_slow_body_is_refused(client):
    """A client that trickles its body does not hold the server: 408 past the time bound."""
    import asyncio

    from canasta_web.guard import Guard

    answers = []

    async def app(scope, receive, send):  # the route: must not be reached
        answers.append("reached")

    async def trickle():
        await asyncio.sleep(0.3)
        return {"type": "http.request", "body": b"{", "more_body": True}

    async def send(message):
        answers.append(message)

    guard = Guard(app, body_seconds=1.0)
    scope = {
        "type": "http",
        "method": "POST",
        "headers": [(b"host", b"localhost"), (b"content-type", b"application/json")],
    }
    started = time.monotonic()
    asyncio.run(guard(scope, trickle, send))
    assert time.monotonic() - started < 2.0
    assert answers[0]["status"] == 408 and "reached" not in answers


def test_a_search_over_a_shipped_network_plays_its_moves_at_a_live_table(client):
    """``search:classic-2p@4`` in seat 0 moves when asked (advance) and its move is logged
    under its name; its budget came from the name."""
    view = new_table(client, seats=("search:classic-2p@4", "you"), seed=5)
    assert view["waiting_for"] == "bot"
    path = f"/api/tables/{view['table']}"
    while view["waiting_for"] == "bot":
        response = client.post(path + "/advance", json={"version": view["version"]})
        assert response.status_code == 200, response.text
        view = response.json()
    assert view["waiting_for"] == "you" and view["version"] >= 2  # its draw, its discard
    assert view["players"][0]["name"] == "search:classic-2p@4 (player 0)"
    from canasta_web.live import LiveTable

    bot = client.app.state.tables.get(view["table"], LiveTable).bots[0]
    assert type(bot).__name__ == "SearchAgent" and bot.config.rollouts == 4
