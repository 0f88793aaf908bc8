"""Every file read from elsewhere is read only when it is a regular file (probe round 2).

A FIFO named as a model, replay, state, run config, results file, checkpoint or data file
made ``open()`` wait for a writer for ever. Each loader now opens through
:func:`canasta_env.jsonfile.open_regular`, which refuses a FIFO, a directory or a device at
once with one line naming the file. Each test runs the load in a thread with a time limit:
a load that blocks fails the test (and is then let go, by opening the FIFO for writing).
"""

from __future__ import annotations

import io
import os
import threading
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from canasta_env.jsonfile import open_regular, read_bounded, read_json_file, zip_members
from canasta_env.replay import Replay
from canasta_env.state_io import load_state

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")

#: Seconds a load may take before it counts as blocked.
PATIENCE = 10


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _outcome(load: Callable[[], object], fifo: Path) -> BaseException | None:
    """What ``load()`` raised (None if it returned) within :data:`PATIENCE` seconds; a load
    still waiting then fails the test, after a writer has opened and closed ``fifo`` so that
    the thread ends."""
    outcome: dict[str, BaseException | None] = {}

    def target() -> None:
        try:
            load()
            outcome["error"] = None
        except BaseException as error:  # noqa: BLE001 - SystemExit of a command too
            outcome["error"] = error

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(PATIENCE)
    if thread.is_alive():
        try:  # a reader waits in open(): this writer lets it go on, to the end of the file
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        thread.join(PATIENCE)
        pytest.fail(f"reading the FIFO {fifo} blocked for {PATIENCE} s")
    return outcome["error"]


def _refused(load: Callable[[], object], fifo: Path, error_type=ValueError) -> str:
    """The one-line error of ``load()`` on ``fifo``: it names the file and what it is."""
    error = _outcome(load, fifo)
    assert isinstance(error, error_type), repr(error)
    message = str(error)
    assert str(fifo) in message and "a FIFO, not a regular file" in message, message
    assert "\n" not in message
    return message


# ---------------------------------------------------------------------- the helper
def test_open_regular_refuses_a_fifo_a_directory_and_a_device_and_reads_a_file(tmp_path):
    fifo = _fifo(tmp_path / "pipe")
    assert _refused(lambda: open_regular(fifo, f"thing {fifo}"), fifo) == (
        f"cannot read thing {fifo}: it is a FIFO, not a regular file"
    )
    with pytest.raises(ValueError, match=f"cannot read x {tmp_path}: it is a directory"):
        open_regular(tmp_path, f"x {tmp_path}")
    if Path("/dev/zero").exists():  # a device that never ends
        with pytest.raises(ValueError, match="it is a character device, not a regular file"):
            read_bounded("/dev/zero", "zero", 10)
    regular = tmp_path / "file.json"
    regular.write_text('{"a": 1}')
    link = tmp_path / "link.json"
    link.symlink_to(regular)  # a link to a regular file is read, as open() reads it
    assert read_json_file(link) == {"a": 1}
    with open_regular(regular, "file") as file:
        assert file.read() == b'{"a": 1}'


def test_a_zip_is_bounded_by_its_directory_and_its_size_on_disk(tmp_path):
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("a", bytes(2**20))
        archive.writestr("b", bytes(2**20))
    with open_regular(path, "bomb") as file:
        assert [m.filename for m in zip_members(file, "bomb", 2**21)] == ["a", "b"]
        with pytest.raises(ValueError) as caught:
            zip_members(file, "bomb", 2**21 - 1)
    assert str(caught.value) == (
        "bomb: its members unpack to more than 2,097,151 bytes (2,097,152 declared)"
    )
    with open(path, "r+b") as file:  # sparse: 8 MiB on disk, whatever it holds
        file.truncate(8 * 2**20)
    with open_regular(path, "big") as file, pytest.raises(ValueError) as caught:
        zip_members(file, "big", 2**21)
    assert str(caught.value) == "big: 8,388,608 bytes: larger than 2,097,152"


# ---------------------------------------------------------------------- JSON files
def test_a_fifo_as_a_replay_is_refused_at_once(tmp_path):
    fifo = _fifo(tmp_path / "game.replay.json")
    assert _refused(lambda: Replay.load(fifo), fifo).startswith(f"cannot read replay {fifo}: ")


def test_a_fifo_as_a_saved_state_is_refused_at_once(tmp_path):
    fifo = _fifo(tmp_path / "state.json")
    assert _refused(lambda: load_state(fifo), fifo).startswith(f"cannot read state {fifo}: ")


def test_a_fifo_as_arena_results_is_refused_at_once(tmp_path):
    from canasta_web.replays import load_arena_hand

    fifo = _fifo(tmp_path / "arena" / "results.json")
    _refused(lambda: load_arena_hand(fifo.parent, 0), fifo)


def test_a_fifo_as_search_curve_results_or_a_truth_file_is_refused_at_once(tmp_path):
    from research import search_curve, search_positions

    fifo = _fifo(tmp_path / "b8_k0" / "results.json")
    assert _outcome(lambda: search_curve.chunk_done(fifo.parent), fifo) is None  # "not done"
    assert search_curve.chunk_done(fifo.parent) is False
    truth = _fifo(tmp_path / "truth.json")
    _refused(lambda: search_positions.load_truth(truth), truth)


def test_a_fifo_as_a_run_config_is_one_line_and_writes_nothing(tmp_path, capsys):
    pytest.importorskip("torch", reason="canasta train needs the 'train' extra first")
    from canasta_cli.train import main

    run = tmp_path / "run"
    fifo = _fifo(run / "config.json")
    error = _outcome(lambda: main(["--resume", str(run), "--no-progress"]), fifo)
    assert isinstance(error, SystemExit) and error.code == 2
    err = capsys.readouterr().err
    assert err == (  # the folder is refused before its config is opened (canasta_env.safe_write)
        f"canasta train: error: run folder {run}: its member config.json is a FIFO: refused "
        "before anything is written\n"
    )
    assert sorted(p.name for p in run.iterdir()) == ["config.json"]


# ---------------------------------------------------------------------- model files
def test_a_fifo_as_a_model_file_is_refused_at_once(tmp_path):
    from agents.model_file import ModelFile
    from agents.network import load_agent
    from agents.registry import make_agent

    fifo = _fifo(tmp_path / "model.npz")
    message = _refused(lambda: ModelFile(fifo), fifo)
    assert message == f"cannot read model file {fifo}: it is a FIFO, not a regular file"
    _refused(lambda: load_agent(fifo), fifo)
    _refused(lambda: make_agent(f"ppo:{fifo}"), fifo)
    _refused(lambda: load_agent(tmp_path), fifo)  # a run folder resolves to its model.npz


def test_a_fifo_as_a_stable_baselines3_zip_is_refused_at_once_even_when_trusted(tmp_path):
    pytest.importorskip("sb3_contrib")
    from agents.network import load_agent

    fifo = _fifo(tmp_path / "model.zip")
    _refused(lambda: load_agent(fifo, trust_pickle=True), fifo)


# ---------------------------------------------------------------------- run folders, data
def test_a_fifo_as_a_checkpoint_is_one_line_with_the_way_out(tmp_path):
    pytest.importorskip("torch")
    from training.run import RunFileError, read_checkpoint

    fifo = _fifo(tmp_path / "checkpoint.pt")
    message = _refused(lambda: read_checkpoint(fifo, 2**20), fifo, RunFileError)
    assert "remove it to start the ppo stage over" in message


def test_a_fifo_as_the_init_model_of_a_run_is_refused_before_writing(tmp_path, capsys):
    pytest.importorskip("torch")
    from canasta_cli.train import main

    fifo = _fifo(tmp_path / "init.npz")
    run = tmp_path / "run"
    argv = ["--run-dir", str(run), "--init", str(fifo), "--no-progress"]
    error = _outcome(lambda: main(argv), fifo)
    assert isinstance(error, SystemExit) and error.code == 2
    assert f"cannot read model file {fifo}: it is a FIFO" in capsys.readouterr().err
    assert not run.exists()


def test_a_fifo_as_recorded_data_is_refused_at_once(tmp_path):
    from canasta_env.observation import OBS_SIZE
    from research import expert_iteration
    from training import imitation

    fifo = _fifo(tmp_path / "data" / "chunk000.npz")
    _refused(lambda: imitation.load_data([fifo]), fifo)
    chunk = _fifo(tmp_path / "search" / "chunk_0.npz")
    _refused(lambda: expert_iteration.load(chunk.parent, OBS_SIZE), chunk)


def test_recorded_data_reads_as_it_was_saved_and_a_lying_header_is_refused(tmp_path):
    """The positive control of the data reader, and a header that claims 10**12 floats."""
    from training import imitation

    rng = np.random.default_rng(0)
    data = {
        "obs": rng.random((5, 7), dtype=np.float32),
        "masks": rng.integers(0, 255, (5, 63), dtype=np.uint8),
        "actions": np.arange(5, dtype=np.int16),
        "returns": rng.random(5, dtype=np.float32),
    }
    path = tmp_path / "chunk000.npz"
    imitation.save_data(path, data)
    loaded = imitation.load_data([path])
    assert all(np.array_equal(loaded[key], data[key]) for key in data)
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**12,)}
    )
    with zipfile.ZipFile(path, "w") as archive:  # 4 TB claimed by 80 bytes
        archive.writestr("obs.npy", header.getvalue() + bytes(16))
    with pytest.raises(ValueError) as caught:
        imitation.load_data([path])
    assert str(caught.value) == (
        f"data file {path}: member 'obs.npy' claims shape (1000000000000,) "
        "(4,000,000,000,000 bytes): larger than the member (16 bytes of data)"
    )
    np.savez(path, **data, payload=np.zeros(1))
    with pytest.raises(ValueError, match=r"unexpected members \['payload.npy'\]"):
        imitation.load_data([path])
