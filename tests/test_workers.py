"""The runner of work in worker processes (canasta_arena.workers): order, completeness, errors,
a worker that dies, Ctrl-C. The handlers are module-level so the spawned workers can
unpickle them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from canasta_arena.workers import THREAD_VARS, WorkerError, Workers

REPO = Path(__file__).resolve().parents[1]


class _Offset:
    """Adds ``offset`` to a number; other requests ask about the worker's process."""

    def __init__(self, offset: int):
        self.offset = offset
        self.answered = 0

    def __call__(self, request):
        self.answered += 1
        if request == "pid":
            return os.getpid()
        if request == "answered":
            return self.answered
        if request == "threads":
            return {key: os.environ.get(key) for key in THREAD_VARS}
        if request == "sigint":
            return signal.getsignal(signal.SIGINT) == signal.SIG_IGN
        if request == "die":
            os._exit(3)
        if request == "sleep":
            time.sleep(60)
        if request == "raise":
            raise ValueError("no such card: 0x")
        if request == "unpicklable":
            raise _Unpicklable("a lock cannot travel")
        return request + self.offset


class _Unpicklable(Exception):
    def __init__(self, text: str):
        super().__init__(text)
        self.lock = __import__("threading").Lock()


def _failing_setup() -> None:
    raise KeyError("the model file is missing")


def test_map_answers_one_request_per_worker_in_order_and_keeps_their_state():
    with Workers(2, _Offset, (10,)) as workers:
        assert workers.size == 2
        assert workers.map([1, 2]) == [11, 12]
        assert workers.map([5]) == [15]
        first, second = workers.map(["pid", "pid"])
        assert len({first, second, os.getpid()}) == 3
        assert workers.map(["answered", "answered"]) == [4, 3]  # each worker its own state
        with pytest.raises(ValueError, match="3 requests for 2 workers"):
            workers.map([1, 2, 3])


def test_stream_answers_every_task_once_as_workers_free_up():
    tasks = list(range(37))
    with Workers(2, _Offset, (100,)) as workers:
        results = list(workers.stream(tasks, chunk=3))
        assert sorted(results) == [task + 100 for task in tasks]
        assert workers.map([1, 1]) == [101, 101]  # still usable after a whole stream


def test_jobs_zero_runs_the_handler_in_this_process():
    with Workers(0, _Offset, (10,)) as workers:
        assert workers.size == 1
        assert workers.map(["pid"]) == [os.getpid()]
        assert list(workers.stream([1, 2, 3], chunk=2)) == [11, 12, 13]


def test_workers_use_one_thread_and_leave_ctrl_c_to_the_parent():
    before = {key: os.environ.get(key) for key in THREAD_VARS}
    with Workers(1, _Offset, (0,)) as workers:
        assert workers.map(["threads"]) == [dict.fromkeys(THREAD_VARS, "1")]
        assert workers.map(["sigint"]) == [True]
    assert {key: os.environ.get(key) for key in THREAD_VARS} == before  # the parent's own


def test_an_error_in_a_worker_is_raised_in_the_parent_with_its_traceback():
    with Workers(1, _Offset, (0,)) as workers:
        with pytest.raises(ValueError, match="no such card: 0x") as caught:
            workers.map(["raise"])
        assert isinstance(caught.value.__cause__, WorkerError)
        assert "in worker process 0" in str(caught.value.__cause__)
        assert 'raise ValueError("no such card: 0x")' in str(caught.value.__cause__)
        assert workers.map([1]) == [1]  # nothing was left in flight: still usable


def test_an_exception_that_cannot_be_pickled_arrives_as_its_text():
    with Workers(2, _Offset, (0,)) as workers:
        with pytest.raises(WorkerError, match="_Unpicklable: a lock cannot travel"):
            list(workers.stream([1, "unpicklable", 2, 3], chunk=1))


def test_a_failed_setup_is_raised_by_the_first_request():
    with Workers(1, _failing_setup) as workers:
        with pytest.raises(KeyError, match="the model file is missing"):
            workers.map([1])


def test_a_worker_that_dies_is_named_and_the_others_are_ended():
    workers = Workers(2, _Offset, (0,))
    processes = list(workers._processes)
    with pytest.raises(WorkerError, match=r"worker process 0 died \(exit code 3\)"):
        workers.map(["die", "sleep"])
    assert not any(process.is_alive() for process in processes)
    with pytest.raises(RuntimeError, match="closed"):
        workers.map([1])


def _dying_setup():
    os._exit(4)


@pytest.mark.parametrize("how", ["map", "stream"])
def test_a_worker_that_dies_before_it_reads_is_named(how):
    """A worker gone before it reads its first request (its start failed, as a script run
    from stdin does): the pipe breaks or resets, either way the same named error."""
    workers = Workers(2, _dying_setup)
    processes = list(workers._processes)
    time.sleep(0.5 if how == "stream" else 0)  # both gone before the first send, or not
    with pytest.raises(WorkerError, match=r"worker process \d died \(exit code 4\)"):
        workers.map([1, 2]) if how == "map" else list(workers.stream(range(40)))
    assert not any(process.is_alive() for process in processes)


def test_an_interrupt_ends_busy_workers_at_once_and_keeps_what_finished():
    """A KeyboardInterrupt in the caller's loop (where a Ctrl-C most often lands): the
    runner's exit kills the worker still sleeping, without waiting for it."""
    kept = []
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        with Workers(2, _Offset, (0,)) as workers:
            processes = list(workers._processes)
            for result in workers.stream([1, "sleep"], chunk=1):
                kept.append(result)
                raise KeyboardInterrupt
    assert kept == [1]
    assert time.monotonic() - started < 30  # not the sleeping task's 60 s
    assert not any(process.is_alive() for process in processes)


def test_stopping_a_stream_early_ends_the_workers_that_hold_work():
    workers = Workers(2, _Offset, (0,))
    stream = workers.stream([1, "sleep"], chunk=1)
    assert next(stream) == 1
    stream.close()
    with pytest.raises(RuntimeError, match="closed"):
        workers.map([1])


_CTRL_C_SCRIPT = """
import sys
from canasta_arena.workers import Workers
from tests.test_workers import _Offset

if __name__ == "__main__":
    kept = []
    try:
        with Workers(2, _Offset, (0,)) as workers:
            for result in workers.stream([1] + ["sleep"] * 4, chunk=1):
                kept.append(result)
                print("first", flush=True)
    except KeyboardInterrupt:
        print("interrupted, kept", kept, flush=True)
        sys.exit(130)
"""


def test_ctrl_c_to_the_process_group_reaches_the_parent_alone():
    """A real Ctrl-C (SIGINT to the whole group, as a terminal sends it): the workers
    ignore it, the parent ends them and keeps the result it had; no worker traceback."""
    with subprocess.Popen(
        [sys.executable, "-c", _CTRL_C_SCRIPT],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    ) as process:
        try:
            assert process.stdout.readline() == "first\n"
            time.sleep(0.5)  # both workers in their tasks
            os.killpg(process.pid, signal.SIGINT)
            out, err = process.communicate(timeout=30)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode == 130, err
    assert out == "interrupted, kept [1]\n"
    assert "Traceback" not in err, err
