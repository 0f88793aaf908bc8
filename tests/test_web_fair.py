"""``canasta serve`` shared fairly between clients (issue 44, docs/security.md "The web
server"): the outside probe's findings, each tried as the probe did it.

2. Four client addresses held every table for 30 minutes (4 x 32 tables filled the
   store; every other client got 503), and on loopback one local client's 32 tables gave
   every local browser 429: only the tables a person moves in are protected, at most
   ``MAX_PROTECTED_PER_CLIENT`` of each client, room is made with the tables of the
   client that holds the most, and local browsers are told apart by their cookies.
3. Eight requests for search bots from four addresses held the four thinking slots, and
   another client's ``expert`` move got 503: a client holds one slot at a time, and one
   slot is kept for the house bots. The searches are stood in for by bots that think
   until the test lets them go, so no test depends on a search being slow.
"""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (the 'dev' extra)")

from fastapi.testclient import TestClient  # noqa: E402

import canasta_web.thinking as thinking_module  # noqa: E402
from canasta_web.app import create_app  # noqa: E402
from canasta_web.live import LiveTable  # noqa: E402
from canasta_web.store import (  # noqa: E402
    MAX_PROTECTED_PER_CLIENT,
    MAX_TABLES,
    MAX_TABLES_PER_CLIENT,
    PROTECTED_SECONDS,
    TableStore,
    client_key,
)
from canasta_web.tables import TableError, new_table_id  # noqa: E402
from canasta_web.thinking import (  # noqa: E402
    HOUSE_BOT_SLOTS,
    MAX_THINKING,
    THINKING_PER_CLIENT,
    Thinking,
)

SEATS = {"seats": ["you", "random"], "seed": 1}
#: The person's first move at a classic table: draw from the stock.
DRAW = {"version": 0, "action": 0}


class Stub:
    """A table as the store sees one (an id), for store tests that add hundreds."""

    def __init__(self):
        self.id = new_table_id()


def client_at(app, address: str) -> TestClient:
    """A client whose connections come from ``address`` (it keeps the cookie it gets)."""
    return TestClient(app, base_url="http://localhost", client=(address, 40000))


# ---------------------------------------------------------------------- 2. tables


def test_addresses_that_flood_the_default_store_leave_room_for_a_new_client():
    """The probe on the default store: addresses that fill the store with tables nobody
    moves in, and with as many games as they may protect, leave room for a new client."""
    now = [0.0]
    store = TableStore(clock=lambda: now[0])
    flooders = [f"192.0.2.{i}" for i in range(1, 9)]
    protected_by = {address: [] for address in flooders}
    for address in flooders:  # 8 addresses, each 40 tables and a move in every one
        for _ in range(40):
            table = Stub()
            store.add(table, session=new_table_id(), client=address)  # never refused
            store.moved(table.id)
            protected_by[address].append(table.id)
        now[0] += 1.0
    assert len(store) == MAX_TABLES
    held = {a: sum(h.client == a for h in store.holdings.values()) for a in flooders}
    assert max(held.values()) <= MAX_TABLES_PER_CLIENT
    protected = store.protected()
    assert len(protected) == len(flooders) * MAX_PROTECTED_PER_CLIENT < MAX_TABLES
    # a new client gets a table and moves in it, within the same 30 minutes
    mine = Stub()
    store.add(mine, session="person", client="198.51.100.7")
    store.moved(mine.id)
    assert mine.id in store.tables and protected <= set(store.tables)
    # each flooder's protected games are its most recent moves
    for address in flooders:
        recent = protected_by[address][-MAX_PROTECTED_PER_CLIENT:]
        assert {k for k in protected if store.holdings[k].client == address} == set(recent)


def test_eight_addresses_flooding_leave_room_for_a_new_client():
    """Over HTTP, on a store scaled down: 8 addresses each create tables past their share
    and move in the last; a ninth address still creates a table and moves in it."""
    store = TableStore(limit=12, per_client=2, protected_per_client=1)
    app = create_app(store=store)
    kept = []
    for i in range(1, 9):
        flooder = client_at(app, f"192.0.2.{i}")
        for _ in range(3):
            flooder.cookies.clear()
            response = flooder.post("/api/tables", json=SEATS)
            assert response.status_code == 201, response.text
        table = response.json()["table"]
        assert flooder.post(f"/api/tables/{table}/act", json=DRAW).status_code == 200
        kept.append(table)
    assert len(store) == 12 and set(kept) <= set(store.tables)
    person = client_at(app, "198.51.100.7")
    view = person.post("/api/tables", json=SEATS)
    assert view.status_code == 201, view.text
    moved = person.post(f"/api/tables/{view.json()['table']}/act", json=DRAW)
    assert moved.status_code == 200, moved.text
    assert set(kept) <= set(store.tables)  # nobody's game was lost for it


def test_room_comes_from_the_client_that_holds_the_most():
    store = TableStore(limit=6)
    lone = Stub()
    store.add(lone, client="B")  # the least recently used table of all
    many = [Stub() for _ in range(5)]
    for table in many:
        store.add(table, client="A")
    newcomers = [Stub(), Stub()]
    for table in newcomers:
        store.add(table, client="C")
    assert list(store.tables) == [lone.id, *[t.id for t in many[2:]], *[t.id for t in newcomers]]


def test_a_table_nobody_moved_in_is_not_protected_however_new():
    store = TableStore(limit=2)
    moved, fresh = Stub(), Stub()
    store.add(moved, client="A")
    store.moved(moved.id)
    store.add(fresh, client="B")
    assert store.protected() == {moved.id}
    newer = Stub()
    store.add(newer, client="C")  # B's table, a second old, makes room; A's game stays
    assert list(store.tables) == [moved.id, newer.id]


def test_a_client_protects_its_most_recent_games_only():
    now = [0.0]
    store = TableStore(limit=3, protected_per_client=2, clock=lambda: now[0])
    games = [Stub() for _ in range(3)]
    for table in games:
        store.add(table, client="A")
        store.moved(table.id)
        now[0] += 1.0
    assert store.protected() == {games[1].id, games[2].id}
    store.add(Stub(), client="B")
    assert games[0].id not in store.tables and games[1].id in store.tables


def test_a_store_of_protected_games_refuses_and_changes_nothing():
    now = [0.0]
    store = TableStore(limit=4, protected_per_client=1, clock=lambda: now[0])
    for client in "ABCD":
        table = Stub()
        store.add(table, client=client)
        store.moved(table.id)
    before = list(store.tables)
    with pytest.raises(TableError) as refused:
        store.add(Stub(), client="E")
    assert refused.value.status == 503
    assert "a person moved in each in the last 30 minutes" in refused.value.message
    assert list(store.tables) == before
    now[0] = PROTECTED_SECONDS  # every move is 30 minutes old: room again
    store.add(Stub(), client="E")
    assert len(store) == 4


@pytest.mark.parametrize(
    "address, session, key",
    [
        ("192.0.2.1", "s" * 32, "192.0.2.1"),  # a remote client: its address
        ("192.0.2.1", None, "192.0.2.1"),
        ("127.0.0.1", "s" * 32, "session " + "s" * 32),  # a local browser: its cookie
        ("127.0.0.5", "s" * 32, "session " + "s" * 32),
        ("::1", "s" * 32, "session " + "s" * 32),
        ("::ffff:127.0.0.1", "s" * 32, "session " + "s" * 32),
        ("127.0.0.1", None, "127.0.0.1"),  # every local request without a cookie
        ("testclient", "s" * 32, "testclient"),
    ],
)
def test_who_a_client_is(address, session, key):
    assert client_key(address, session) == key


def test_local_browsers_are_told_apart_by_their_cookies():
    """On loopback (every client 127.0.0.1) one browser's tables and a script without
    cookies leave another browser its table and its move."""
    store = TableStore(limit=12)
    app = create_app(store=store)
    first = client_at(app, "127.0.0.1")
    first.get("/api/options")  # the page: its cookie
    mine = []
    for _ in range(3):
        view = first.post("/api/tables", json=SEATS).json()
        assert first.post(f"/api/tables/{view['table']}/act", json=DRAW).status_code == 200
        mine.append(view["table"])
    script = client_at(app, "127.0.0.1")
    for _ in range(12):  # no cookie kept: one client, all of them
        script.cookies.clear()
        assert script.post("/api/tables", json=SEATS).status_code == 201
    second = client_at(app, "127.0.0.1")
    second.get("/api/options")
    view = second.post("/api/tables", json=SEATS)
    assert view.status_code == 201, view.text
    assert second.post(f"/api/tables/{view.json()['table']}/act", json=DRAW).status_code == 200
    assert set(mine) <= set(store.tables) and len(store) == 12


# ---------------------------------------------------------------------- 3. thinking slots


def test_a_client_holds_one_slot_and_the_house_bots_keep_theirs(monkeypatch):
    monkeypatch.setattr(thinking_module, "THINKING_WAIT_SECONDS", 0.05)
    thinking = Thinking()
    searches = [thinking.take(f"192.0.2.{i}") for i in range(MAX_THINKING - HOUSE_BOT_SLOTS)]
    with pytest.raises(TableError) as busy:  # a fourth client's search waits, then 503
        thinking.take("192.0.2.9")
    assert busy.value.status == 503 and "kept for random, greedy and expert" in busy.value.message
    with pytest.raises(TableError) as share:  # a second move of a client that thinks
        thinking.take("192.0.2.0", house=True)
    assert share.value.status == 429 and "this client already has" in share.value.message
    house = thinking.take("192.0.2.9", house=True)  # the house bots' slot
    thinking.give(searches[0])
    again = thinking.take("192.0.2.0")
    for slot in (*searches[1:], house, again):
        thinking.give(slot)
    assert THINKING_PER_CLIENT == 1 and HOUSE_BOT_SLOTS == 1


class HeldSearch:
    """A search bot that thinks until the test lets it go, noting who thinks at once."""

    name = "openspiel:ismcts-1000"

    def __init__(self, board: dict, address: str):
        self.board = board
        self.address = address

    def reset(self, seat, num_players, rules):
        pass

    def act(self, observation, action_mask):
        board = self.board
        with board["lock"]:
            board["now"].append(self.address)
            board["seen"].append(list(board["now"]))
        board["release"].wait(5)
        with board["lock"]:
            board["now"].remove(self.address)
        return int(action_mask.nonzero()[0][0])


def wait_for(condition, seconds: float = 5.0) -> bool:
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


def test_searches_from_four_addresses_leave_an_expert_move_its_slot(monkeypatch):
    """The probe: tables seating openspiel:ismcts-1000 asked for 8 moves from 4 addresses;
    another client's expert move must still be made at once."""
    monkeypatch.setattr(thinking_module, "THINKING_WAIT_SECONDS", 0.3)
    app = create_app()
    store = app.state.tables
    board = {"lock": threading.Lock(), "now": [], "seen": [], "release": threading.Event()}
    asks = []
    for i in range(1, 5):
        address = f"192.0.2.{i}"
        for seed in (1, 2):
            table = LiveTable("classic", ["random", "you"], seed=seed)
            table.names[0] = HeldSearch.name  # a search bot's table, its bot stood in for
            table.bots[0] = HeldSearch(board, address)
            store.add(table, client=address)
            asks.append((address, table))
    answers: dict[str, list[int]] = {}

    def ask(address: str, table: LiveTable) -> None:
        response = client_at(app, address).post(
            f"/api/tables/{table.id}/advance", json={"version": 0}
        )
        answers.setdefault(address, []).append(response.status_code)

    threads = [threading.Thread(target=ask, args=pair) for pair in asks]
    for thread in threads:
        thread.start()
    searching = MAX_THINKING - HOUSE_BOT_SLOTS
    assert wait_for(lambda: len(board["seen"]) == searching)
    expert = LiveTable("classic", ["expert", "you"], seed=3)
    store.add(expert, client="198.51.100.7")
    started = time.monotonic()
    moved = client_at(app, "198.51.100.7").post(
        f"/api/tables/{expert.id}/advance", json={"version": 0}
    )
    assert moved.status_code == 200, moved.text
    assert time.monotonic() - started < 1.0 and expert.version == 1
    refused = len(asks) - searching  # answered while the searches still think
    assert wait_for(lambda: sum(len(codes) for codes in answers.values()) == refused)
    board["release"].set()
    for thread in threads:
        thread.join(10)
    assert all(len(set(now)) == len(now) <= searching for now in board["seen"])
    statuses = sorted(s for codes in answers.values() for s in codes)
    # each client's second move: 429 (at once for the fourth client, whose first waits:
    # one waiting request a client), and the fourth client's first: 503 after its wait
    assert statuses == [200] * searching + [429] * (searching + 1) + [503], answers
    for _, table in asks:  # a refused move changed nothing
        assert table.thinking is None and table.version in (0, 1)


def test_requests_that_would_wait_are_bounded_per_client_and_in_all(monkeypatch):
    """A waiting request holds a worker thread: one client may have one waiting (its next
    is refused at once, 429) and the server MAX_WAITING (the next, 503 at once), so one
    client's flood cannot keep every thread waiting (found from outside: 60 requests from
    one address held every thread 5 s and other clients' moves waited 5-8 s)."""
    monkeypatch.setattr(thinking_module, "THINKING_WAIT_SECONDS", 2.0)
    thinking = Thinking()
    held = [thinking.take(f"192.0.2.{i}") for i in range(MAX_THINKING - HOUSE_BOT_SLOTS)]
    held.append(thinking.take("192.0.2.99", house=True))  # every slot busy
    waiters, outcomes = [], []

    def wait_in(client: str) -> None:
        try:
            thinking.give(thinking.take(client))
            outcomes.append("slot")
        except TableError as error:
            outcomes.append(error.status)

    for i in range(thinking_module.MAX_WAITING):
        waiters.append(threading.Thread(target=wait_in, args=(f"198.51.100.{i}",)))
        waiters[-1].start()
    assert wait_for(lambda: thinking._waiting == thinking_module.MAX_WAITING)
    started = time.monotonic()
    with pytest.raises(TableError) as own:  # the same client's second waiting request
        thinking.take("198.51.100.0")
    assert own.value.status == 429 and "a request waiting" in own.value.message
    with pytest.raises(TableError) as full:  # another client, when MAX_WAITING wait
        thinking.take("203.0.113.5")
    assert full.value.status == 503 and "the most it keeps waiting" in full.value.message
    with pytest.raises(TableError):  # a build waits for a builder the same way
        thinking.build(lambda check: None, 1.0, "too long", client="203.0.113.6")
    assert time.monotonic() - started < 0.5  # answered at once, not after the wait
    for slot in held:  # the waiting requests then get their slots
        thinking.give(slot)
    for thread in waiters:
        thread.join(5)
    assert outcomes.count("slot") == thinking_module.MAX_WAITING
    assert thinking._waiting == 0 and not thinking._waiting_of
