"""The browser table's API (canasta_web), through FastAPI's TestClient.

The server decides: requests that are malformed, stale, out of turn or illegal get a
4xx with a JSON message and change nothing. No payload holds a hidden card: every
payload of whole hands, the end-of-hand one included, is compared with the payloads
of determinized worlds (every card the viewer cannot see dealt again; where another
player holds pot cards set aside for its opening, which ``determinize`` refuses, the
other hands and the stock), and positive controls show that the comparison catches
a view that leaks one hidden card.
"""

from __future__ import annotations

import copy
import json
import random

import pytest

pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (the 'dev' extra)")

from fastapi.testclient import TestClient  # noqa: E402

import canasta_web.live as live_module  # noqa: E402
from canasta_arena.arena import run_arena  # noqa: E402
from canasta_env.cards import RED3  # noqa: E402
from canasta_env.engine.determinize import determinize  # noqa: E402
from canasta_env.engine.game import Game  # noqa: E402
from canasta_env.engine.state import same_state  # noqa: E402
from canasta_env.replay import Replay, replay_game  # noqa: E402
from canasta_env.rules import make_rules  # noqa: E402
from canasta_web.app import create_app  # noqa: E402
from canasta_web.live import LiveTable  # noqa: E402
from canasta_web.replays import (  # noqa: E402
    CHECKPOINT_EVERY,
    ReplayTable,
    arena_replay,
    load_arena_hand,
)
from canasta_web.store import TableStore  # noqa: E402
from canasta_web.tables import TableError  # noqa: E402
from canasta_web.views import card, seat_view  # noqa: E402
from tests.replays import random_replay  # noqa: E402

#: Determinized worlds compared with each payload.
WORLDS = 2
#: What the end-of-hand count makes public: the score totals, which add up the values of
#: the cards left in every hand (G-9), and what follows from them.
END_OF_HAND_NUMBERS = ("hand_penalty", "total")


@pytest.fixture
def client():
    return TestClient(create_app(), base_url="http://localhost")


def new_table(client, variant="classic", seats=("you", "expert"), seed=3, **extra):
    response = client.post(
        "/api/tables", json={"variant": variant, "seats": list(seats), "seed": seed, **extra}
    )
    assert response.status_code == 201, response.text
    return response.json()


def live_table(client, table_id: str) -> LiveTable:
    return client.app.state.tables.get(table_id, LiveTable)


# ---------------------------------------------------------------------- the leak check


def _blank_end_numbers(payload: dict) -> dict:
    """The payload without the numbers that the end-of-hand count reveals (G-9)."""
    payload = copy.deepcopy(payload)
    sheet = payload.get("score_sheet")
    if sheet is None:
        return payload
    for row in sheet["rows"]:
        if row["key"] in END_OF_HAND_NUMBERS:
            row["values"] = None
    for key in ("game_scores", "game_over", "winner_team", "game_winners"):
        sheet[key] = None
    for key in ("hand_winners", "hand_margins"):  # from the end-of-hand count too
        sheet[key] = None
    for team in payload["teams"]:
        team["score"] = None
    return payload


def redeal_hands_and_stock(game: Game, seat: int, rng: random.Random) -> Game:
    """A world for the positions that ``determinize`` refuses (another player holds pot
    cards set aside for its opening, C-8): the other hands' unknown cards and the stock
    dealt again; the face-down pot cards and the set-aside ones stay."""
    pool = [kind for kind in game.stock if kind != RED3]
    for other in range(game.num_players):
        if other != seat:
            for kind, count in enumerate(game.hands[other]):
                pool += [kind] * (count - game.known[other][kind])
    rng.shuffle(pool)
    world = game.copy()
    for other in range(game.num_players):
        if other == seat:
            continue
        hand = game.known[other][:]
        for _ in range(game.hand_totals[other] - sum(hand)):
            hand[pool.pop()] += 1
        world.hands[other] = hand
    world.stock = pool + [RED3] * game.stock.count(RED3)
    rng.shuffle(world.stock)
    world.state_changed()
    return world


def leaks(table: LiveTable, payload: dict, rng: random.Random, partial: bool = False) -> list[str]:
    """How ``payload`` (the table's latest) differs from the same table's payload in
    worlds where every card its viewer cannot see is dealt again; [] when it does not.
    ``partial``: use :func:`redeal_hands_and_stock` even where ``determinize`` works.
    """
    game = table.game
    partial = partial or (any(game.held) and game.current != table.seat)
    problems = []
    for _ in range(WORLDS):
        world_rng = random.Random(rng.getrandbits(64))
        if partial:
            world = redeal_hands_and_stock(game, table.seat, world_rng)
        else:
            world = determinize(game, table.seat, world_rng)
        twin = copy.copy(table)
        twin.game = world
        theirs = json.loads(json.dumps(twin.view()))
        mine = payload
        if game.hand_over:
            theirs, mine = _blank_end_numbers(theirs), _blank_end_numbers(payload)
        if theirs != mine:
            differ = sorted(key for key in mine if mine[key] != theirs.get(key))
            problems.append(f"step {game.num_steps}: fields {differ} depend on hidden cards")
    return problems


def structural_leaks(payload: dict) -> list[str]:
    """A second, independent check: no other hand, no stock order, no seed."""
    problems = []
    viewer = payload["viewer"]
    for player in payload["players"]:
        if player["seat"] != viewer and player["hand"] is not None:
            problems.append(f"player {player['seat']}'s hand is in the payload")
    if payload["held"] is not None and payload["current"] != viewer:
        problems.append("another player's set-aside pot cards are in the payload")
    if not isinstance(payload["stock"], int) or not isinstance(payload["pot"]["face_down"], int):
        problems.append("the stock or the face-down pot is listed, not counted")
    text = json.dumps(payload)
    if '"seed"' in text:
        problems.append("the deal seed is in the payload")
    return problems


def play_hand_checked(client, variant, seats, seed, rng_seed=0) -> list[dict]:
    """Play a whole hand through the API, checking every payload; returns the payloads."""
    rng = random.Random(rng_seed)
    view = new_table(client, variant, seats, seed)
    table = live_table(client, view["table"])
    payloads = [view]
    while True:
        assert leaks(table, view, rng) == []
        assert structural_leaks(view) == []
        waiting = view["waiting_for"]
        if waiting in ("next hand", "game over"):
            break
        if waiting == "you":
            hand = [c["kind"] for c in view["players"][view["viewer"]]["hand"]]
            for move in view["legal"]:  # the cards a click shows a move for are in the hand
                assert all(move["cards"].count(k) <= hand.count(k) for k in move["cards"]), move
            action = rng.choice([move["id"] for move in view["legal"]])
            response = client.post(
                f"/api/tables/{view['table']}/act",
                json={"version": view["version"], "action": action},
            )
        else:
            assert view["legal"] == [], "a bot's legal moves would show its hand"
            response = client.post(
                f"/api/tables/{view['table']}/advance", json={"version": view["version"]}
            )
        assert response.status_code == 200, response.text
        view = response.json()
        payloads.append(view)
    assert view["score_sheet"] is not None
    return payloads


@pytest.mark.parametrize(
    "variant, seats, seed",
    [
        ("classic", ("you", "expert"), 3),
        ("spanish", ("greedy", "you", "expert", "random"), 5),  # 6 face-down pot cards
        ("italian", ("you", "expert"), 2),  # face-down cards under the first natural
    ],
)
def test_no_payload_of_a_whole_hand_holds_a_hidden_card(client, variant, seats, seed):
    payloads = play_hand_checked(client, variant, seats, seed)
    assert len(payloads) >= 80
    # the end-of-hand payload is among those checked, with its score sheet
    assert payloads[-1]["phase"] == "hand over" and payloads[-1]["score_sheet"]["rows"]


def _leaky_view(game, viewer, *args, **kwargs):
    view = seat_view(game, viewer, *args, **kwargs)
    view["pot"]["top"] = card(game.stock[-1]) if game.stock else None  # the next stock card
    return view


def test_the_leak_check_catches_one_injected_hidden_card(client, monkeypatch):
    """Positive control: a view that shows the next stock card fails the check."""
    view = new_table(client, "classic", ("you", "expert"), seed=3)
    table = live_table(client, view["table"])
    assert leaks(table, view, random.Random(0)) == []
    monkeypatch.setattr(live_module, "seat_view", _leaky_view)
    leaked = client.get(f"/api/tables/{view['table']}").json()
    problems = leaks(table, leaked, random.Random(0))
    assert problems and "pot" in problems[0]


def test_the_fallback_world_redeals_the_hidden_cards_and_catches_a_leak(client, monkeypatch):
    """Positive control of the worlds used where another player holds set-aside pot cards."""
    view = new_table(client, "classic", ("you", "expert"), seed=3)
    game = live_table(client, view["table"]).game
    world = redeal_hands_and_stock(game, 0, random.Random(1))
    assert world.hands[0] == game.hands[0] and world.hand_totals == game.hand_totals
    assert world.hands[1] != game.hands[1] and world.stock != game.stock
    assert sorted(world.stock + [k for k, n in enumerate(world.hands[1]) for _ in range(n)]) == (
        sorted(game.stock + [k for k, n in enumerate(game.hands[1]) for _ in range(n)])
    )
    table = live_table(client, view["table"])
    assert leaks(table, view, random.Random(0), partial=True) == []
    monkeypatch.setattr(live_module, "seat_view", _leaky_view)
    leaked = client.get(f"/api/tables/{view['table']}").json()
    assert leaks(table, leaked, random.Random(0), partial=True) != []


def test_the_structural_check_catches_another_hand(client):
    view = new_table(client)
    table = live_table(client, view["table"])
    opened = seat_view(table.game, table.seat, open_view=True)
    assert structural_leaks({**view, "players": opened["players"]}) != []


# ---------------------------------------------------------------------- playing


def test_options_list_presets_bots_and_fields(client):
    options = client.get("/api/options").json()
    assert options["presets"]["classic"]["player_counts"] == [2, 3, 4, 6]
    assert options["presets"]["classic"]["rules"]["target_score"] == 5000
    assert {"random", "greedy", "expert"} <= set(options["bots"])
    assert options["startup"] is None


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "<title>canasta-env table</title>" in page.text
    for name in ("app.js", "style.css", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200
    icon = client.get("/favicon.ico")  # asked for by browsers whatever the page names
    assert icon.status_code == 200 and icon.headers["content-type"] == "image/svg+xml"
    # nothing is fetched from the internet: every script and style is the package's
    assert "http" not in page.text.replace("http-equiv", "")


def test_a_table_deals_what_the_game_deals_and_lists_legal_moves(client):
    view = new_table(client, seed=9)
    game = Game(make_rules("classic"), 2, seed=9)
    assert view["waiting_for"] == "you" and view["viewer"] == 0 and view["version"] == 0
    hand = [c["kind"] for c in view["players"][0]["hand"]]
    assert hand == [kind for kind, n in enumerate(game.hands[0]) for _ in range(n)]
    assert [m["id"] for m in view["legal"]] == game.legal_actions()
    assert view["stock"] == len(game.stock) and view["pot"]["size"] == len(game.pot)
    assert view["players"][1]["hand"] is None
    assert view["players"][1]["hand_size"] == game.hand_totals[1]


def test_moves_list_the_hand_cards_they_use(client):
    view = new_table(client, seed=9)
    before = [c["kind"] for c in view["players"][0]["hand"]]
    assert view["drawn"] == []
    view = client.post(
        f"/api/tables/{view['table']}/act", json={"version": 0, "action": 0}
    ).json()  # draw
    after = [c["kind"] for c in view["players"][0]["hand"]]
    gained = [k for k in sorted(set(after)) for _ in range(after.count(k) - before.count(k))]
    assert view["drawn"] == gained and len(gained) >= 1  # the page marks the drawn card
    hand = [c["kind"] for c in view["players"][0]["hand"]]
    for move in view["legal"]:
        for kind in set(move["cards"]):
            assert move["cards"].count(kind) <= hand.count(kind), move
        if move["text"].startswith("discard"):
            assert len(move["cards"]) == 1


def test_bots_move_one_at_a_time_and_the_log_shows_them(client):
    view = new_table(client, seats=("expert", "you"), seed=4)
    assert view["waiting_for"] == "bot" and view["current"] == 0
    after = client.post(f"/api/tables/{view['table']}/advance", json={"version": 0}).json()
    assert after["version"] == 1 and len(after["events"]) == 1
    assert after["events"][0]["seat"] == 0 and after["events"][0]["text"] in ("draw", "take")


def test_a_game_goes_on_to_the_target(client):
    """With a low target, hands follow one another until a team reaches it."""
    view = new_table(client, seats=("you", "random"), seed=1, rules={"target_score": 200})
    rng = random.Random(1)
    hands = 0
    for _ in range(5000):
        waiting, path = view["waiting_for"], f"/api/tables/{view['table']}"
        if waiting == "game over":
            break
        if waiting == "next hand":
            hands += 1
            view = client.post(f"{path}/next-hand", json={"version": view["version"]}).json()
            assert view["hand_index"] == hands and view["score_sheet"] is None
            continue
        if waiting == "you":
            action = rng.choice([m["id"] for m in view["legal"]])
            body = {"version": view["version"], "action": action}
            view = client.post(f"{path}/act", json=body).json()
        else:
            view = client.post(f"{path}/advance", json={"version": view["version"]}).json()
    sheet = view["score_sheet"]
    assert sheet["game_over"] and max(sheet["game_scores"]) >= 200
    totals = next(row["values"] for row in sheet["rows"] if row["key"] == "total")
    top = max(totals)  # the sheet's hand result: the one convention, from the totals
    assert sheet["hand_winners"] == [t for t, v in enumerate(totals) if v == top]
    assert sheet["hand_margins"][0] == totals[0] - sum(totals[1:]) / (len(totals) - 1)
    assert view["waiting_for"] == "game over"


# ---------------------------------------------------------------------- bad requests


def _unchanged(client, view: dict, response, status: int, words: str) -> None:
    assert response.status_code == status, response.text
    message = response.json()["error"]
    assert words in message, message
    again = client.get(f"/api/tables/{view['table']}").json()
    assert again == view


def test_garbled_json_is_refused(client):
    view = new_table(client)
    response = client.post(
        f"/api/tables/{view['table']}/act",
        content=b'{"version": 0, "action": ',
        headers={"Content-Type": "application/json"},
    )
    _unchanged(client, view, response, 422, "not valid JSON")
    # valid JSON syntax that Python's reader refuses: an integer of 5,000 digits
    response = client.post(
        f"/api/tables/{view['table']}/act",
        content=b'{"version": 0, "action": ' + b"9" * 5000 + b"}",
        headers={"Content-Type": "application/json"},
    )
    _unchanged(client, view, response, 400, "could not be read as JSON")


def test_unknown_routes_answer_in_the_same_error_shape(client):
    for path in ("/api/nothing", "/api/tables/abc/nothing", "/static/missing.js"):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json() == {"error": f"no such page or API route: {path}"}


@pytest.mark.parametrize(
    "body, words",
    [
        ({"version": 0, "action": "draw"}, "action"),
        ({"version": 0, "action": True}, "action"),
        ({"version": 0, "action": 0.0}, "action"),
        ({"version": "0", "action": 0}, "version"),
        ({"action": 0}, "version"),
        ({"version": 0, "action": 0, "cheat": 1}, "cheat"),
        ([0, 0], "body"),
    ],
)
def test_wrong_types_are_refused(client, body, words):
    view = new_table(client)
    response = client.post(f"/api/tables/{view['table']}/act", json=body)
    _unchanged(client, view, response, 422, words)


def test_a_form_post_is_refused(client):
    view = new_table(client)
    response = client.post(f"/api/tables/{view['table']}/act", data={"version": 0, "action": 0})
    _unchanged(client, view, response, 415, "JSON")


def test_a_stale_request_is_refused(client):
    view = new_table(client)
    path = f"/api/tables/{view['table']}/act"
    drawn = client.post(path, json={"version": 0, "action": 0}).json()
    discard = drawn["legal"][0]["id"]
    response = client.post(path, json={"version": 0, "action": discard})  # an old version
    _unchanged(client, drawn, response, 409, "stale")


@pytest.mark.parametrize(
    "action, words", [(7, "illegal action 7"), (-1, "outside"), (500, "outside")]
)
def test_an_illegal_action_is_refused(client, action, words):
    view = new_table(client)
    assert action not in [m["id"] for m in view["legal"]]
    response = client.post(
        f"/api/tables/{view['table']}/act", json={"version": 0, "action": action}
    )
    _unchanged(client, view, response, 400, words)


def test_out_of_turn_requests_are_refused(client):
    view = new_table(client)  # the person is to act
    advance = client.post(f"/api/tables/{view['table']}/advance", json={"version": 0})
    _unchanged(client, view, advance, 409, "no bot is to move")
    deal = client.post(f"/api/tables/{view['table']}/next-hand", json={"version": 0})
    _unchanged(client, view, deal, 409, "not over")
    bots_turn = new_table(client, seats=("expert", "you"))
    act = client.post(f"/api/tables/{bots_turn['table']}/act", json={"version": 0, "action": 0})
    _unchanged(client, bots_turn, act, 409, "not your turn")


def test_an_unknown_table_is_a_404(client):
    for response in (
        client.get("/api/tables/nope"),
        client.post("/api/tables/nope/act", json={"version": 0, "action": 0}),
        client.get("/api/replays/nope"),
    ):
        assert response.status_code == 404 and "no " in response.json()["error"]


def test_tables_are_apart(client):
    first, second = new_table(client, seed=1), new_table(client, seed=1)
    assert first["table"] != second["table"] and len(first["table"]) >= 20
    client.post(f"/api/tables/{first['table']}/act", json={"version": 0, "action": 0})
    assert client.get(f"/api/tables/{second['table']}").json() == second
    # a live table is not a replay, nor the other way round
    assert client.get(f"/api/replays/{first['table']}").status_code == 404


@pytest.mark.parametrize(
    "body, words",
    [
        ({"variant": "poker", "seats": ["you", "expert"]}, "unknown preset 'poker'; choose one of"),
        ({"variant": "italian", "seats": ["you", "expert", "expert"]}, "players"),
        ({"seats": ["expert", "expert"]}, "exactly one seat"),
        ({"seats": ["you", "you"]}, "exactly one seat"),
        ({"seats": ["you", "os:system"]}, "unknown bot"),
        ({"seats": ["you", "ppo:../x"]}, "unknown bot"),
        ({"seats": ["you", "expert"], "rules": {"target_score": -5}}, "target_score"),
        ({"seats": ["you", "expert"], "rules": {"no_such_rule": 1}}, "no_such_rule"),
        ({"seats": ["you"]}, "seats"),
        ({"seats": ["you", "expert"], "seed": -1}, "seed"),
    ],
)
def test_a_bad_new_table_is_refused(client, body, words):
    response = client.post("/api/tables", json=body)
    assert 400 <= response.status_code < 500, response.text
    assert words in response.json()["error"]
    assert len(client.app.state.tables.tables) == 0


def test_the_store_keeps_a_bounded_number_of_tables():
    now = [0.0]
    store = TableStore(limit=2, protected_seconds=60, clock=lambda: now[0])
    made = [LiveTable("classic", ["you", "random"], seed=s) for s in range(3)]
    for table in made[:2]:
        store.add(table)
        store.moved(table.id)
    with pytest.raises(TableError) as refused:  # a person moves in both: no room
        store.add(made[2])
    assert refused.value.status == 503 and list(store.tables) == [made[0].id, made[1].id]
    now[0] = 61.0
    store.moved(made[0].id)  # moved in again: the other one is the idle one
    store.add(made[2])
    assert list(store.tables) == [made[0].id, made[2].id]


# ---------------------------------------------------------------------- replays


def _played_replay(seed: int = 2, moves: int = 400) -> Replay:
    """A replay of random play over more than one hand."""
    return random_replay(seed, moves)


def test_a_replay_steps_forward_and_back(client):
    replay = _played_replay()
    assert len(replay.actions) >= 2  # it crosses a hand boundary
    view = client.post("/api/replays", json={"replay": replay.to_dict()})
    assert view.status_code == 201, view.text
    view = view.json()
    total = view["positions"]
    assert total == replay.num_actions + len(replay.actions)  # every action and every deal
    path = f"/api/replays/{view['table']}"
    last = client.get(path, params={"position": total - 1}).json()
    game = Game(make_rules("classic"), 2, seed=replay.seed)
    for hand, ids in enumerate(replay.actions):
        if hand:
            game.next_hand()
        for action in ids:
            game.apply(action)
    assert last["stock"] == len(game.stock) and last["hand_index"] == game.hand_index
    assert [c["kind"] for c in last["players"][0]["hand"]] == [
        k for k, n in enumerate(game.hands[0]) for _ in range(n)
    ]
    back = client.get(path, params={"position": 5}).json()
    assert back["position"] == 5 and len(back["events"]) == 5
    assert back["events"][-1]["text"] == replay.to_dict()["action_texts"][0][4]
    assert client.get(path, params={"position": 5}).json() == back  # stepping is repeatable


def test_every_replay_position_is_the_game_there():
    """Positions played forward from checkpoints equal the game played step by step."""
    replay = _played_replay(seed=7, moves=300)
    table = ReplayTable(replay)
    game = Game(replay.rules, 2, seed=replay.seed)
    expected = [game.copy()]
    for hand, ids in enumerate(replay.actions):
        if hand:
            game.next_hand()
            expected.append(game.copy())
        for action in ids:
            game.apply(action)
            expected.append(game.copy())
    assert len(table.positions) == len(expected) > 2 * CHECKPOINT_EVERY
    for position in (*range(len(expected)), 40, 3):  # any order
        assert same_state(table.game_at(position), expected[position]), position


def test_a_replay_seen_from_a_seat_hides_the_other_hands_unless_opened(client):
    replay = _played_replay(moves=30)
    view = client.post("/api/replays", json={"replay": replay.to_dict()}).json()
    path = f"/api/replays/{view['table']}"
    closed = client.get(path, params={"position": 10, "viewer": 1}).json()
    assert closed["open"] is False and closed["viewer"] == 1
    assert closed["players"][0]["hand"] is None and closed["players"][1]["hand"] is not None
    opened = client.get(path, params={"position": 10, "viewer": 1, "open": "true"}).json()
    assert opened["open"] is True
    assert all(player["hand"] is not None for player in opened["players"])
    assert structural_leaks(closed) == [] and structural_leaks(opened) != []


@pytest.mark.parametrize(
    "params, status",
    [
        ({"position": -1}, 400),
        ({"position": 10**6}, 400),
        ({"viewer": 2}, 400),
        ({"position": "x"}, 422),
    ],
)
def test_a_bad_replay_position_is_refused(client, params, status):
    replay = _played_replay(moves=10)
    view = client.post("/api/replays", json={"replay": replay.to_dict()}).json()
    response = client.get(f"/api/replays/{view['table']}", params=params)
    assert response.status_code == status and response.json()["error"]


def test_a_bad_replay_file_is_refused(client):
    data = _played_replay(moves=10).to_dict()
    data["actions"][0][3] = 499  # an illegal action
    data["action_texts"][0][3] = "escala real C"
    response = client.post("/api/replays", json={"replay": data})
    assert response.status_code == 400 and "move 3" in response.json()["error"]
    with pytest.raises(ValueError) as library:  # one replayer, one text
        replay_game(Replay.from_dict(data))
    assert response.json()["error"] == str(library.value)
    for body in ({}, {"replay": {"format": "x"}}, {"arena": {"config": {}}}):
        response = client.post("/api/replays", json=body)
        assert response.status_code == 400, body


def test_an_arena_hand_is_played_again_from_its_seeds(tmp_path, client):
    run_arena(
        ["random", "greedy"],
        variant="classic",
        num_players=2,
        hands=4,
        seed=5,
        out_dir=tmp_path,
        plot=False,
    )
    results = json.loads((tmp_path / "results.json").read_text())
    for index, saved in enumerate(results["hands"]):
        replay, names = arena_replay(results, index)
        game = Game(replay.rules, 2, seed=saved["seed"])
        for action in replay.actions[0]:
            game.apply(action)
        assert [s["total"] for s in game.hand_scores] == saved["team_scores"]
        assert names == saved["seats"]
    # what canasta serve --arena DIR --hand N opens
    assert load_arena_hand(tmp_path, 1)[0].to_dict() == arena_replay(results, 1)[0].to_dict()
    view = client.post("/api/replays", json={"arena": results, "hand": 1})
    assert view.status_code == 201 and view.json()["title"] == "arena hand 1"
    # a saved hand that the agents do not play again is refused
    results["hands"][1]["team_scores"][0] += 5
    with pytest.raises(ValueError, match="not the ones that played it"):
        arena_replay(results, 1)
    response = client.post("/api/replays", json={"arena": results, "hand": 9})
    assert response.status_code == 400 and "outside" in response.json()["error"]


def test_a_startup_replay_is_offered_to_the_page():
    table = ReplayTable(_played_replay(moves=10), title="game.json")
    client = TestClient(create_app(startup=table), base_url="http://localhost")
    assert client.get("/api/options").json()["startup"] == {"replay": table.id}
    assert client.get(f"/api/replays/{table.id}").json()["title"] == "game.json"
