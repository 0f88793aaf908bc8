"""``POST /api/replays`` against malformed bodies (issue 44, item 14; docs/security.md "The
web server"): the outside probe's bodies, each answered with a 4xx and a one-line message
that repeats no more than a short prefix of the input, never a 500; and a 4 MB body
answered with its 413 over a real socket, not a reset connection.

Nine of the probe's arena bodies answered 500 (a mapping for ``hands``, a float player
count, a list or a long string where a seed goes...), and seven messages repeated 316 to
380 characters of the input.
"""

from __future__ import annotations

import copy
import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable

import pytest

pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")
pytest.importorskip("httpx", reason="FastAPI's TestClient needs httpx (the 'dev' extra)")

from fastapi.testclient import TestClient  # noqa: E402

from canasta_arena.arena import run_arena  # noqa: E402
from canasta_web.app import MAX_MESSAGE, MAX_QUOTE, create_app  # noqa: E402
from canasta_web.guard import MAX_BODY, MAX_DRAINED  # noqa: E402
from canasta_web.serve import background_server  # noqa: E402

#: What a malformed body carries where it is long: no answer repeats MAX_QUOTE of it.
FILLER = "Q" * 400
#: More than MAX_QUOTE of one character: a long value of a body repeated (FILLER, digits).
REPEATED = re.compile(r"(.)\1{" + str(MAX_QUOTE) + "}")


@pytest.fixture(scope="module")
def arena(tmp_path_factory) -> dict:
    """A real arena's results.json of one hand (random against greedy)."""
    folder = tmp_path_factory.mktemp("arena")
    run_arena(
        ["random", "greedy"],
        variant="classic",
        num_players=2,
        hands=1,
        seed=5,
        out_dir=folder,
        plot=False,
    )
    return json.loads((folder / "results.json").read_text())


def changed(change: Callable[[dict], None]) -> Callable[[dict], bytes]:
    """A body ``{"arena": results, "hand": 0}`` with ``change`` made to a copy of results."""

    def body(results: dict) -> bytes:
        results = copy.deepcopy(results)
        change(results)
        return json.dumps({"arena": results, "hand": 0}).encode()

    return body


def config(**fields) -> Callable[[dict], bytes]:
    return changed(lambda results: results["config"].update(fields))


def hand(**fields) -> Callable[[dict], bytes]:
    return changed(lambda results: results["hands"][0].update(fields))


def raw(content: bytes) -> Callable[[dict], bytes]:
    return lambda _results: content


BODIES = {
    # the probe's 500s: a wrong type where the arena writes a number or a list
    "hands a mapping": changed(lambda r: r.update(hands={"0": r["hands"][0]})),
    "players a float": config(players=2.0),
    "hand seed a list": hand(seed=[1] * 300),
    "arena seed a long string": config(seed=FILLER),
    "arena seed nested lists": config(seed=[[1] * 100] * 3),
    "pairing a long string": hand(pairing=FILLER),
    "arrangement a mapping": hand(arrangement={"x": FILLER}),
    # the probe's echoes: a long value quoted whole
    "variant a long string": config(variant=FILLER),
    "players a long digit string": config(players="2" * 400),
    "a rule of a long value": config(rules={"target_score": FILLER}),
    "a rule of a long name": config(rules={FILLER: 1}),
    "steps a long string": hand(steps=FILLER),
    "team scores of a long string": hand(team_scores=[FILLER]),
    "a seat of a long name": changed(lambda r: r["hands"][0]["seats"].__setitem__(0, FILLER)),
    # inconsistent lengths
    "three seats for two players": hand(seats=["random", "greedy", "expert"]),
    "three team scores for two teams": hand(team_scores=[1, 2, 3]),
    # missing fields, nested garbage, huge numbers
    "no seats": changed(lambda r: r["hands"][0].pop("seats")),
    "no config": changed(lambda r: r.pop("config")),
    "a null hand": changed(lambda r: r["hands"].__setitem__(0, None)),
    "rules nested garbage": config(rules={"target_score": [[[[{"a": [FILLER]}]]]]}),
    "rules a list": config(rules=[FILLER]),
    "deal a 400-digit number": hand(deal=10**400),
    "arena players a 300-digit number": config(players=10**300),
    "hand a 30-digit number": lambda r: json.dumps({"arena": r, "hand": 10**30}).encode(),
    "hand a string": lambda r: json.dumps({"arena": r, "hand": "0"}).encode(),
    # wrong top-level types, not JSON, not UTF-8
    "a list": raw(b"[1, 2, 3]"),
    "a string": raw(json.dumps(FILLER).encode()),
    "a number": raw(b"1e400"),
    "arena a list": raw(json.dumps({"arena": [FILLER], "hand": 0}).encode()),
    "replay a string": raw(json.dumps({"replay": FILLER}).encode()),
    "not UTF-8": raw(b'{"replay": "\xff\xfe"}'),
    "not JSON": raw(b"\xff\xfe\x00" + FILLER.encode()),
    "cut short": raw(b'{"arena": {"config": '),
    "both replay and arena": lambda r: json.dumps({"replay": {}, "arena": r, "hand": 0}).encode(),
}


@pytest.mark.parametrize("name", list(BODIES))
def test_a_malformed_replay_body_is_a_4xx_of_one_short_line(arena, name):
    app = create_app()
    client = TestClient(app, base_url="http://localhost", raise_server_exceptions=False)
    body = BODIES[name](arena)
    response = client.post(
        "/api/replays", content=body, headers={"Content-Type": "application/json"}
    )
    assert 400 <= response.status_code < 500, (response.status_code, response.text)
    message = response.json()["error"]
    assert isinstance(message, str) and message and "\n" not in message
    assert len(message) <= MAX_MESSAGE and not REPEATED.search(message), message
    assert "Traceback" not in message and len(app.state.tables) == 0


def test_the_arena_body_the_bodies_spoil_plays_again(arena):
    """Positive control: the results the malformed bodies are made from open a replay."""
    client = TestClient(create_app(), base_url="http://localhost")
    response = client.post("/api/replays", json={"arena": arena, "hand": 0})
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("size", [4 * 2**20, MAX_BODY + 1])
def test_a_body_too_large_gets_its_413_over_a_socket(size):
    """The probe: a 4 MB body sent by a client that reads the answer only once it has sent
    everything (urllib, which also asks the server to close the connection) got a reset
    connection instead of its 413."""
    assert size <= MAX_DRAINED
    body = b'{"replay": {"x": "' + b"a" * size + b'"}}'
    with background_server(create_app()) as url:
        request = urllib.request.Request(
            url + "api/replays", data=body, headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 413
        assert "larger than 1,000,000 bytes" in json.loads(refused.value.read())["error"]
        with urllib.request.urlopen(url + "api/options", timeout=10) as after:
            assert after.status == 200  # the server goes on
