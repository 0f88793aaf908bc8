"""``canasta arena --out DIR`` keeps what it played and never replaces an earlier result
unasked (issue 21): Ctrl-C writes the hands played so far, marked ``"partial": true``
(exit code 130); a folder that is not empty is refused unless ``--overwrite`` is given."""

from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from agents.base import Agent
from agents.registry import register_agent
from canasta_arena import arena
from canasta_cli import arena as arena_command

REPO = Path(__file__).resolve().parents[1]


class _Interrupting(Agent):
    """Plays the first legal move; presses Ctrl-C at its first move of hand ``stop_at`` + 1
    (counted over every instance: one per seat), so ``stop_at`` hands finish before."""

    name = "interrupting"
    stop_at: int | None = None
    hands_started = 0

    def __init__(self, seed=None):
        pass

    def reset(self, seat, num_players, rules):
        type(self).hands_started += 1

    def act(self, observation, action_mask):
        if self.stop_at is not None and type(self).hands_started > self.stop_at:
            raise KeyboardInterrupt
        return int(np.flatnonzero(action_mask)[0])


@pytest.fixture
def interrupting(monkeypatch):
    monkeypatch.setattr(_Interrupting, "hands_started", 0)
    register_agent("interrupting", _Interrupting)

    def stop_at(hands: int | None) -> None:
        _Interrupting.stop_at = hands
        _Interrupting.hands_started = 0

    yield stop_at
    _Interrupting.stop_at = None


def _main(argv: list[str]) -> int:
    """``canasta arena ARGV``; a Ctrl-C that escapes it fails the test (not the session)."""
    try:
        return arena_command.main(argv)
    except KeyboardInterrupt as error:
        pytest.fail(f"the Ctrl-C escaped canasta arena: {error!r}")


ARGV = ["--players", "2", "--agents", "interrupting", "random", "--hands", "8", "--seed", "3"]
ARGV += ["--jobs", "1", "--no-progress", "--no-plot"]


def test_ctrl_c_writes_the_hands_played_so_far(tmp_path, interrupting, capsys):
    interrupting(None)
    assert _main(ARGV + ["--out", str(tmp_path / "full")]) == 0
    full = json.loads((tmp_path / "full" / "results.json").read_text())
    assert full["partial"] is False and len(full["hands"]) == 8
    capsys.readouterr()

    interrupting(3)
    out = tmp_path / "stopped"
    assert _main(ARGV + ["--out", str(out)]) == 130
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == (
        f"canasta arena: interrupted; wrote the 3 hands played so far to {out}/results.json, "
        "marked partial"
    )
    assert "partial: interrupted after 3 hands" in captured.out
    saved = json.loads((out / "results.json").read_text())
    assert saved["partial"] is True and saved["config"]["hands_played"] == 3
    assert saved["hands"] == full["hands"][:3]  # the first hands of the schedule, as played
    assert sum(row["hands"] for row in saved["ranking"]) == 2 * 3
    with open(out / "hands.csv", newline="") as handle:
        assert len(list(csv.reader(handle))) == 1 + 3


def test_run_arena_raises_the_interrupt_with_the_partial_result(tmp_path, interrupting):
    from canasta_arena.schedule import ArenaInterrupted

    interrupting(2)
    with pytest.raises(ArenaInterrupted) as caught:
        arena.run_arena(
            ["interrupting", "random"], num_players=2, hands=8, out_dir=tmp_path, plot=False
        )
    assert isinstance(caught.value, KeyboardInterrupt)
    result = caught.value.result
    assert result.partial and len(result.hands) == 2
    assert json.loads((tmp_path / "results.json").read_text())["partial"] is True


def test_ctrl_c_before_the_first_hand_ends_writes_an_empty_partial_result(tmp_path, interrupting):
    interrupting(0)
    assert _main(ARGV + ["--out", str(tmp_path / "out")]) == 130
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved["partial"] is True and saved["hands"] == []


def _ctrl_c_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_with_worker_processes(tmp_path):
    """A real Ctrl-C (SIGINT to the whole process group, as a terminal sends it) while
    ``--jobs 2`` plays: the workers leave it to the parent, which writes what they played."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "canasta_cli", "arena", "--players", "2", "--agents"]
    # more hands than can end before the first progress line (10 s in a log): on the core
    # 20,000 hands of these bots take about 10 s
    command += ["random", "greedy", "--hands", "1000000", "--jobs", "2", "--no-plot"]
    command += ["--out", str(out)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    with subprocess.Popen(
        command,
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,  # never read: a full pipe would stall the arena
        stderr=subprocess.PIPE,
        start_new_session=True,
        # a job started with & by a script (CI, nohup) ignores SIGINT, and its children
        # inherit that: the arena must start with Ctrl-C's default, as in a terminal
        preexec_fn=_ctrl_c_as_in_a_terminal,
    ) as process:
        try:
            seen, deadline = b"", time.monotonic() + 120
            os.set_blocking(process.stderr.fileno(), False)
            while time.monotonic() < deadline:  # the progress bar: some hands are done
                seen += process.stderr.read() or b""
                counts = [int(n) for n in re.findall(rb"\| *(\d+)/1000000", seen)]
                if counts and max(counts) >= 20:
                    break
                assert process.poll() is None, seen.decode(errors="replace")
                time.sleep(0.1)
            else:
                pytest.fail(f"no progress in 120 s: {seen[-500:]!r}")
            os.killpg(process.pid, signal.SIGINT)
            process.wait(timeout=60)
            os.set_blocking(process.stderr.fileno(), True)
            err = (seen + process.stderr.read()).decode(errors="replace")
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert "Traceback" not in err, err
    saved = json.loads((out / "results.json").read_text())
    assert saved["partial"] is True and 20 <= len(saved["hands"]) < 1000000
    match = re.search(r"wrote the (\d+) hands played so far", err)
    assert match and int(match.group(1)) == len(saved["hands"])


def test_out_refuses_a_folder_that_is_not_empty(tmp_path, interrupting, capsys):
    interrupting(None)
    out = tmp_path / "out"
    out.mkdir()
    (out / "results.json").write_text("an earlier result\n")
    assert _main(ARGV + ["--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"canasta arena: --out {out}: the folder is not empty (an earlier result?); choose "
        "another folder, or pass --overwrite to replace its files\n"
    )
    assert (out / "results.json").read_text() == "an earlier result\n"
    assert _Interrupting.hands_started == 0  # refused before any hand was played
    assert _main(ARGV + ["--out", str(out), "--overwrite"]) == 0
    assert len(json.loads((out / "results.json").read_text())["hands"]) == 8


def test_out_takes_an_empty_or_new_folder_and_refuses_a_file(tmp_path, interrupting, capsys):
    interrupting(None)
    empty = tmp_path / "empty"
    empty.mkdir()
    assert _main(ARGV + ["--out", str(empty)]) == 0
    assert _main(ARGV + ["--out", str(tmp_path / "new" / "deeper")]) == 0
    assert (tmp_path / "new" / "deeper" / "results.json").exists()
    capsys.readouterr()
    afile = tmp_path / "a-file"
    afile.write_text("x")
    assert _main(ARGV + ["--out", str(afile), "--overwrite"]) == 2
    assert capsys.readouterr().err == f"canasta arena: --out {afile}: exists and is not a folder\n"


@pytest.mark.parametrize("member", ["results.json", "hands.csv", "sub"])
def test_out_refuses_a_folder_with_a_link_before_any_hand(tmp_path, interrupting, capsys, member):
    """Even with --overwrite, a folder that holds a link is refused before any hand, and the
    file the link points to is unchanged (the arena wrote hands.csv and results.json with
    open(..., "w"), through a link)."""
    interrupting(None)
    outside = tmp_path / "home" / ".bashrc"
    outside.parent.mkdir()
    outside.write_bytes(b"export PATH=$HOME/bin:$PATH\n")
    out = tmp_path / "out"
    out.mkdir()
    target = outside.parent if member == "sub" else outside
    (out / member).symlink_to(target)
    assert _main(ARGV + ["--out", str(out), "--overwrite"]) == 2
    assert capsys.readouterr().err == (
        f"canasta arena: --out {out}: its member {member} is a symbolic link (to {target}): "
        "refused before anything is written\n"
    )
    assert _Interrupting.hands_started == 0
    assert outside.read_bytes() == b"export PATH=$HOME/bin:$PATH\n"
    assert sorted(os.listdir(outside.parent)) == [".bashrc"]
    assert sorted(os.listdir(out)) == [member]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_out_refuses_a_fifo_member_at_once(tmp_path, interrupting, capsys):
    interrupting(None)
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "hands.csv")  # open(..., "w") waited here for a reader for ever
    returned = []
    thread = threading.Thread(
        target=lambda: returned.append(_main(ARGV + ["--out", str(out), "--overwrite"])),
        daemon=True,
    )
    thread.start()
    thread.join(30)
    if thread.is_alive():  # a reader lets the writer go, then the test fails
        os.close(os.open(out / "hands.csv", os.O_RDONLY | os.O_NONBLOCK))
        pytest.fail("canasta arena waited on the FIFO hands.csv")
    assert returned == [2]
    assert capsys.readouterr().err == (
        f"canasta arena: --out {out}: its member hands.csv is a FIFO: refused before anything "
        "is written\n"
    )
    assert _Interrupting.hands_started == 0
