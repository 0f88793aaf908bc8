"""``canasta serve``: started as a process on a free port, the page fetched, stopped."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from canasta_cli.__main__ import main as canasta
from tests.replays import random_replay

pytest.importorskip("fastapi", reason="canasta serve needs the 'web' extra (fastapi)")
pytest.importorskip("uvicorn", reason="canasta serve needs the 'web' extra (uvicorn)")

ROOT = Path(__file__).resolve().parents[1]
START_TIMEOUT = 60


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


@contextlib.contextmanager
def serving(*arguments: str, host: str = "127.0.0.1"):
    """``canasta serve --no-browser`` on a free port in its own process group; its URL."""
    port = free_port()
    command = [sys.executable, "-m", "canasta_cli", "serve", "--port", str(port), "--no-browser"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [*command, *arguments],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    url = f"http://{host}:{port}/"
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if process.poll() is not None:
                pytest.fail(
                    f"canasta serve exited with {process.returncode}: {process.stderr.read()}"
                )
            try:
                fetch(url)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"canasta serve did not listen on {url} in {START_TIMEOUT} s")
                time.sleep(0.1)
        yield url, process
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        process.output = process.stdout.read()
        process.errors = process.stderr.read()
        process.stdout.close()
        process.stderr.close()


def test_serve_answers_with_the_page_and_stops():
    with serving() as (url, process):
        status, page = fetch(url)
        assert status == 200 and "<title>canasta-env table</title>" in page
        status, options = fetch(url + "api/options")
        assert status == 200 and json.loads(options)["startup"] is None
        assert fetch(url + "static/app.js")[0] == 200
    assert process.returncode is not None  # stopped
    # it listened on this machine only (no --host given)
    assert f"the table is at {url}" in process.output and url.startswith("http://127.0.0.1:")
    assert "anyone who can reach this machine" not in process.errors


def test_serve_listens_where_host_says_and_warns_off_this_machine():
    with serving("--host", "127.0.0.2", host="127.0.0.2") as (url, process):
        assert fetch(url)[0] == 200
    assert "anyone who can reach this machine" in process.errors


def test_serve_opens_a_replay_file(tmp_path):
    path = tmp_path / "game.replay.json"
    random_replay(4, 40, one_hand=True).save(path)
    with serving("--replay", str(path)) as (url, _process):
        startup = json.loads(fetch(url + "api/options")[1])["startup"]
        status, body = fetch(url + f"api/replays/{startup['replay']}?position=40")
        assert status == 200 and json.loads(body)["position"] == 40


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["--arena", "somewhere"], "--arena DIR and --hand N go together"),
        (["--hand", "2"], "--arena DIR and --hand N go together"),
        (["--replay", "no/such/file.json"], "No such file"),
        (["--arena", "no/such/dir", "--hand", "0"], "cannot read"),
        (["--port", "70000"], "--port"),
    ],
)
def test_serve_refuses_bad_arguments(arguments, words, capsys):
    assert canasta(["serve", "--no-browser", *arguments]) == 2
    assert words in capsys.readouterr().err


def test_serve_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "fastapi" else real(name, *a)
    )
    assert canasta(["serve", "--no-browser"]) == 2
    from canasta_env.extras import install_command

    assert capsys.readouterr().err.rstrip().endswith(install_command("web"))


def _raw(url: str, method: str, path: str, body: bytes | None = None, headers=None):
    """One request over a plain socket connection, headers as given (Host included)."""
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(url)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    try:
        connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for key, value in (headers or {}).items():
            connection.putheader(key, value)
        connection.endheaders()
        if body is not None:
            connection.send(body)
        response = connection.getresponse()
        return response.status, json.loads(response.read() or b"null")
    finally:
        connection.close()


def test_serve_holds_against_abuse_on_loopback():
    """The abuse suite over real sockets: foreign Host, big and chunked bodies, an endless
    search budget, and a flood of tables without cookies that must evict nobody else's
    (every client here is 127.0.0.1: the browsers are told apart by their cookies, and
    every request without one counts as one client)."""
    with serving() as (url, process):
        host = url.split("/")[2]
        status, body = _raw(url, "GET", "/api/options", headers={"Host": "attacker.example"})
        assert status == 421 and "attacker.example" in body["error"]
        json_headers = {"Host": host, "Content-Type": "application/json"}
        status, body = _raw(
            url,
            "POST",
            "/api/tables",
            b"{}",
            {**json_headers, "Content-Length": "50000000"},
        )
        assert status == 413
        chunk = b"a" * 65536
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(20)) + b"0\r\n\r\n"
        status, body = _raw(
            url, "POST", "/api/replays", chunked, {**json_headers, "Transfer-Encoding": "chunked"}
        )
        assert status == 413
        endless = json.dumps({"seats": ["you", "openspiel:ismcts-99999999999"]}).encode()
        status, body = _raw(
            url,
            "POST",
            "/api/tables",
            endless,
            {**json_headers, "Content-Length": str(len(endless))},
        )
        assert status == 400 and "unknown bot" in body["error"]

        def new_table(seed: int, cookie: str | None = None) -> tuple[int, dict]:
            data = json.dumps({"seats": ["you", "random"], "seed": seed}).encode()
            headers = {**json_headers, "Content-Length": str(len(data))}
            if cookie is not None:  # a browser, which keeps the cookie its page got
                headers["Cookie"] = f"canasta_session={cookie}"
            return _raw(url, "POST", "/api/tables", data, headers)

        browser = "b" * 32
        status, mine = new_table(0, browser)
        assert status == 201
        answers = [new_table(seed)[0] for seed in range(1, 151)]  # no cookie: one client
        assert answers == [201] * 150  # its own tables made room for its next
        status, again = _raw(url, "GET", f"/api/tables/{mine['table']}", headers={"Host": host})
        assert status == 200 and again == mine
        assert new_table(1, "c" * 32)[0] == 201  # another browser of this machine
