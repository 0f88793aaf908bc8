"""Writes never follow links (issue 44, item 1): every writer of a run folder, an arena or
leaderboard folder or an output file goes through :mod:`canasta_env.safe_write`. A folder
that is or holds a symbolic link or a FIFO is refused before anything is written, with one
line naming the path; a temporary file is a new name (``O_CREAT | O_EXCL | O_NOFOLLOW``),
renamed into place; a log is appended only when it is the folder's own regular file."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from canasta_env.safe_write import (
    UnsafePathError,
    append_text,
    atomic_write,
    check_folder,
    check_outputs,
    copy_atomic,
    open_new,
)

pytestmark = pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links here")

#: What the file outside the folder holds; every test checks that it still does.
SECRET = b"# the user's own file\nexport PATH=$HOME/bin:$PATH\n"
#: Seconds a call may take before it counts as blocked (a FIFO waited on).
PATIENCE = 10


@pytest.fixture
def outside(tmp_path) -> Path:
    """A file outside every folder written (a stand-in for ``~/.bashrc``)."""
    path = tmp_path / "home" / ".bashrc"
    path.parent.mkdir()
    path.write_bytes(SECRET)
    return path


def _within(call, fifo: Path | None = None):
    """What ``call()`` raised (None if it returned) within :data:`PATIENCE` seconds; a call
    still waiting fails the test (after a reader or writer lets it go)."""
    outcome: dict = {}

    def target() -> None:
        try:
            call()
            outcome["error"] = None
        except BaseException as error:  # noqa: BLE001 - SystemExit of a command too
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(PATIENCE)
    if thread.is_alive():
        if fifo is not None:
            try:
                os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            except OSError:
                pass
        thread.join(PATIENCE)
        pytest.fail(f"blocked for {PATIENCE} s on {fifo}")
    return outcome["error"]


def _files(folder: Path) -> dict:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


# ---------------------------------------------------------------------- the helper
def test_a_folder_of_regular_files_and_folders_passes(tmp_path):
    (tmp_path / "run" / "evals").mkdir(parents=True)
    (tmp_path / "run" / "config.json").write_text("{}")
    (tmp_path / "run" / "evals" / "step000000001.npz").write_bytes(b"x")
    check_folder(tmp_path / "run", "run folder")
    check_folder(tmp_path / "not yet", "run folder")  # a new run: nothing to check


@pytest.mark.parametrize(
    "member", ["config.json.tmp", "train.log", "evals/step000000001.npz", "tb"]
)
def test_a_symbolic_link_in_a_folder_is_named_and_refused(tmp_path, outside, member):
    run = tmp_path / "run"
    (run / "evals").mkdir(parents=True)
    (run / member).symlink_to(outside.parent if member == "tb" else outside)
    with pytest.raises(UnsafePathError) as refused:
        check_folder(run, "run folder")
    assert str(refused.value) == (
        f"run folder {run}: its member {member} is a symbolic link (to "
        f"{outside.parent if member == 'tb' else outside}): refused before anything is written"
    )


def test_a_linked_subfolder_and_a_linked_folder_are_refused(tmp_path, outside):
    run = tmp_path / "run"
    run.mkdir()
    (run / "measure").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(UnsafePathError, match="its member measure is a symbolic link"):
        check_folder(run, "exploit run folder")
    linked = tmp_path / "linked-run"
    linked.symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(UnsafePathError) as refused:
        check_folder(linked, "run folder")
    assert str(refused.value) == (
        f"run folder {linked} is a symbolic link (to {outside.parent}), not a folder: refused"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_member_is_refused_without_waiting(tmp_path):
    run = tmp_path / "run"
    (run / "data").mkdir(parents=True)
    fifo = run / "data" / "chunk000.npz"
    os.mkfifo(fifo)
    error = _within(lambda: check_folder(run, "run folder"), fifo)
    assert isinstance(error, UnsafePathError)
    assert str(error) == (
        f"run folder {run}: its member data/chunk000.npz is a FIFO: refused before anything "
        "is written"
    )
    error = _within(lambda: append_text(fifo, "a line\n"), fifo)  # and no log is one
    assert str(error) == f"cannot write log {fifo}: it is a FIFO"


def test_a_temporary_name_that_is_a_link_is_never_opened(tmp_path, outside):
    """The old writers opened ``NAME.tmp`` with ``open(..., "w")``: a link there wrote the
    run's config into the file it points to. A new temporary name is created with
    O_EXCL | O_NOFOLLOW, so the link (were the folder not refused) is left alone."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "config.json.tmp").symlink_to(outside)
    (run / ".config.json.tmp").symlink_to(outside)
    atomic_write(run / "config.json", '{"init": "$(touch pwned)"}\n')
    assert outside.read_bytes() == SECRET
    assert (run / "config.json").read_text() == '{"init": "$(touch pwned)"}\n'
    assert sorted(p.name for p in run.iterdir()) == [
        ".config.json.tmp",
        "config.json",
        "config.json.tmp",
    ]  # no temporary file left behind


def test_a_target_or_a_log_that_is_a_link_is_refused_and_the_outside_unchanged(tmp_path, outside):
    run = tmp_path / "run"
    run.mkdir()
    (run / "train.log").symlink_to(outside)
    (run / "config.json").symlink_to(outside)
    with pytest.raises(UnsafePathError) as refused:
        append_text(run / "train.log", "[run] a line\n")
    assert str(refused.value) == (
        f"cannot write log {run / 'train.log'}: it is a symbolic link (to {outside})"
    )
    with pytest.raises(UnsafePathError, match="config.json: it is a symbolic link"):
        atomic_write(run / "config.json", "{}")
    with pytest.raises(UnsafePathError, match="config.json: it is a symbolic link"):
        open_new(run / "config.json")
    with pytest.raises(UnsafePathError, match="config.json: it is a symbolic link"):
        copy_atomic(run / "train.log", run / "config.json")
    assert outside.read_bytes() == SECRET and (run / "config.json").is_symlink()


def test_a_log_with_a_second_name_is_not_appended_to(tmp_path, outside):
    """A hard link has no link to refuse, but appending would write the file elsewhere."""
    log = tmp_path / "train.log"
    os.link(outside, log)
    with pytest.raises(UnsafePathError, match="the file has 2 names"):
        append_text(log, "[run] a line\n")
    assert outside.read_bytes() == SECRET


def test_regular_files_are_written_replaced_and_appended(tmp_path):
    log = tmp_path / "train.log"
    append_text(log, "one\n")
    append_text(log, "two\n")
    assert log.read_text() == "one\ntwo\n"
    atomic_write(tmp_path / "config.json", "{}\n")
    atomic_write(tmp_path / "config.json", b'{"seed": 1}\n')
    assert (tmp_path / "config.json").read_bytes() == b'{"seed": 1}\n'
    copy_atomic(tmp_path / "config.json", tmp_path / "copy.json", link=False)
    assert (tmp_path / "copy.json").read_bytes() == b'{"seed": 1}\n'
    with open_new(log) as handle:  # a fresh log replaces the old one's name
        handle.write(b"fresh\n")
    assert log.read_text() == "fresh\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "copy.json", "train.log"]


def test_a_failed_write_leaves_the_target_and_no_temporary(tmp_path):
    from canasta_env.safe_write import atomic_file

    (tmp_path / "model.npz").write_bytes(b"the old model")
    with pytest.raises(RuntimeError), atomic_file(tmp_path / "model.npz") as handle:
        handle.write(b"half a model")
        raise RuntimeError("disk full")
    assert (tmp_path / "model.npz").read_bytes() == b"the old model"
    assert [p.name for p in tmp_path.iterdir()] == ["model.npz"]


def test_two_outputs_that_are_one_file_or_an_input_are_refused(tmp_path):
    page = tmp_path / "board.json"
    with pytest.raises(UnsafePathError) as refused:
        check_outputs({"the page --out": page, "the JSON file": tmp_path / "." / "board.json"})
    assert str(refused.value) == (
        f"the page --out {page} and the JSON file {tmp_path / '.' / 'board.json'} are the same "
        "file: each output needs a path of its own"
    )
    page.write_text("{}")
    (tmp_path / "alias.json").symlink_to(page)
    with pytest.raises(UnsafePathError, match="is the same file as the input"):
        check_outputs({"--out": page}, [tmp_path / "alias.json"])
    check_outputs({"--out": tmp_path / "board.md", "the JSON file": page}, [tmp_path / "x"])


# ---------------------------------------------------------------------- every writer
def _writers() -> dict:
    """Writers of the project, each by the name it writes (called with ``folder/NAME``)."""
    from canasta_arena.arena import plot_ratings
    from canasta_env.engine.game import Game
    from canasta_env.replay import Replay
    from canasta_env.rules import make_rules
    from canasta_env.state_io import save_state
    from training.evaluation import plot_curve
    from training.imitation import save_data

    game = Game(make_rules("classic"), 2, seed=1)
    data = {
        "obs": np.zeros((1, 2), np.float32),
        "masks": np.zeros((1, 1), np.uint8),
        "actions": np.zeros(1, np.int16),
        "returns": np.zeros(1, np.float32),
    }
    rows = {"classic-2p/expert": {"win_rate": 0.5, "ci95": [0.4, 0.6]}}
    summary = {"ranking": [{"agent": "a", "elo": 1500, "win_rate": 0.5, "win_ci": [0.4, 0.6]}]}
    config = {"variant": "classic", "players": 2, "hands_played": 2, "seed": 0}
    return {
        "chunk000.npz": lambda path: save_data(path, data),
        "curve.png": lambda path: plot_curve([{"steps": 0, "eval": rows}], path),
        "ratings.png": lambda path: plot_ratings(path, summary, config),
        "state.json": lambda path: save_state(game, path),
        "game.replay.json": lambda path: Replay.from_game(game, []).save(path),
    }


def test_every_writer_refuses_a_link_at_its_target(tmp_path, outside):
    pytest.importorskip("matplotlib")
    for name, write in _writers().items():
        target = tmp_path / name
        target.symlink_to(outside)
        with pytest.raises(UnsafePathError) as refused:
            write(target)
        assert f"{target}: it is a symbolic link (to {outside})" in str(refused.value), name
        assert outside.read_bytes() == SECRET and target.is_symlink()
        target.unlink()
        write(target)  # the positive control: a free name is written
        assert target.is_file() and not target.is_symlink() and target.stat().st_size > 0, name


def test_a_model_file_is_written_beside_never_through_a_link(tmp_path, outside):
    pytest.importorskip("torch")
    from canasta_env.actions import NUM_ACTIONS
    from canasta_env.observation import OBS_SIZE
    from training import net

    model = net.build(OBS_SIZE, NUM_ACTIONS, [8])
    (tmp_path / "best.npz").symlink_to(outside)
    with pytest.raises(UnsafePathError, match="best.npz: it is a symbolic link"):
        net.save(model, tmp_path / "best.npz")
    assert outside.read_bytes() == SECRET
    net.save(model, tmp_path / "model.npz")
    assert net.ModelFile(tmp_path / "model.npz").meta["hidden"] == [8]


# ---------------------------------------------------------------------- canasta train --resume
@pytest.fixture
def run_folder(tmp_path) -> Path:
    """A run folder as ``canasta train`` leaves it before its first stage: its config."""
    pytest.importorskip("torch")
    from training.run import Run

    Run.open(tmp_path / "run", {"jobs": 0, "threads": 1, "ppo_steps": 100})
    return tmp_path / "run"


def _refused_resume(run: Path, capsys) -> str:
    from canasta_cli.train import main

    error = _within(lambda: main(["--resume", str(run), "--no-progress"]))
    assert isinstance(error, SystemExit) and error.code == 2, error
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err.strip()


@pytest.mark.parametrize(
    "member, points_to",
    [
        ("config.json.tmp", "file"),  # the probe's: a resume wrote its config into ~/.bashrc
        ("train.log", "file"),
        ("evals", "folder"),
        ("tb", "folder"),
    ],
)
def test_resume_refuses_a_run_folder_with_a_link_and_writes_nothing(
    run_folder, outside, capsys, member, points_to
):
    target = outside if points_to == "file" else outside.parent
    (run_folder / member).symlink_to(target)
    before = _files(run_folder)
    message = _refused_resume(run_folder, capsys)
    assert message == (
        f"canasta train: error: run folder {run_folder}: its member {member} is a symbolic "
        f"link (to {target}): refused before anything is written"
    )
    assert outside.read_bytes() == SECRET
    assert _files(run_folder) == before and sorted(os.listdir(outside.parent)) == [".bashrc"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_resume_refuses_a_fifo_member_at_once(run_folder, capsys):
    fifo = run_folder / "history.jsonl"
    os.mkfifo(fifo)
    message = _refused_resume(run_folder, capsys)
    assert message.endswith(
        "its member history.jsonl is a FIFO: refused before anything is written"
    )


def test_resume_refuses_a_linked_run_folder(run_folder, tmp_path, capsys):
    linked = tmp_path / "linked"
    linked.symlink_to(run_folder, target_is_directory=True)
    before = _files(run_folder)
    message = _refused_resume(linked, capsys)
    assert message == (
        f"canasta train: error: run folder {linked} is a symbolic link (to {run_folder}), "
        "not a folder: refused"
    )
    assert _files(run_folder) == before


def test_a_regular_resume_still_reads_and_writes_its_folder(run_folder):
    """The positive control: the same folder without a link resumes, its config rewritten
    and its change logged."""
    from training.run import Run

    run = Run.open(run_folder, {"ppo_steps": 200})
    assert run.config["ppo_steps"] == 200
    assert json.loads((run_folder / "config.json").read_text())["ppo_steps"] == 200
    assert "[run] ppo_steps: 100 -> 200\n" in (run_folder / "train.log").read_text()
    assert sorted(p.name for p in run_folder.iterdir()) == ["config.json", "train.log"]
