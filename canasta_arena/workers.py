"""One runner of work in worker processes: the arena's hands and training's rollouts.

:class:`Workers` starts ``jobs`` worker processes, each holding the object that
``setup(*setup_args)`` returns there (the *handler*: a callable, e.g. an arena's agents
or a rollout worker with its snapshots), and hands it requests two ways:

* :meth:`Workers.map`: one request per worker, the results in order (training sends
  each worker its share of a collection, or the same snapshots to all);
* :meth:`Workers.stream`: a list of tasks sent ``chunk`` at a time as workers free up,
  each task's result yielded as its batch comes back (the arena's deals).

``jobs`` of 0 or less calls the handler in this process instead (tests, debugging).

The workers are *spawned*: fresh interpreters that inherit no state of the parent,
whatever it has imported or run (a forked child of a process that had run torch's
OpenMP thread pool blocks forever in its first parallel torch call). So ``setup``, its
arguments, the requests and the results must be picklable, and a script that starts
workers needs the usual ``if __name__ == "__main__":`` guard. Each worker keeps the
numeric libraries to one thread (``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``MKL_NUM_THREADS`` set to 1 before it imports anything, ``torch.set_num_threads(1)``
once torch is loaded): the processes already share the cores, and OpenMP threads
waiting on each other on a busy machine made loading a model take seconds.

Each worker owns a pipe of its own and asks for nothing: the parent sends it a batch
and reads the answer. No lock is shared, so a Ctrl-C (or an error) can end the workers
at any moment without leaving anything to wait for (:class:`multiprocessing.pool.Pool`
can hang in ``terminate`` when a worker that waited for a task holds the task queue's
lock). The workers ignore SIGINT (from before their interpreter starts), so a Ctrl-C
to the whole process group reaches the parent alone; there the ``KeyboardInterrupt``
ends every worker at once and the caller keeps the results it was given.

An exception in a worker is raised again in the parent: the worker's own exception
when it can be pickled, with the worker's traceback as its cause (a
:class:`WorkerError`), else a :class:`WorkerError` with the exception's type, text and
traceback. A worker that dies raises :class:`WorkerError` with its exit code. When a
call ends by an exception while other workers still hold work, the workers are ended
and the runner is closed.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import NoReturn

#: The thread-pool sizes of OpenMP (torch), OpenBLAS and MKL (numpy): 1 in a worker.
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: Seconds a worker has to leave after it is told to (:meth:`Workers.close`).
CLOSE_SECONDS = 5.0


class WorkerError(RuntimeError):
    """A worker process failed: it died, or raised an exception that could not be carried
    to the parent (its type, text and traceback are in the message). As the cause of a
    carried exception, the worker's traceback."""


def limit_torch_threads() -> None:
    """One torch thread, if something in this process has imported torch (never imports it)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


class Workers:
    """``jobs`` spawned worker processes, each holding ``setup(*setup_args)``, a callable
    that answers one request; ``jobs <= 0``: that callable in this process."""

    def __init__(self, jobs: int, setup: Callable[..., Callable], setup_args: tuple = ()):
        self.jobs = jobs
        self._local: Callable | None = None
        self._processes: list[multiprocessing.process.BaseProcess] = []
        self._connections: list[Connection] = []
        self._busy: set[int] = set()  # workers sent a batch whose answer is not read yet
        self._closed = False
        if jobs <= 0:
            self._local = setup(*setup_args)
        else:
            self._start(jobs, setup, setup_args)

    @property
    def size(self) -> int:
        """How many requests :meth:`map` takes at once: the workers (1 in this process)."""
        return max(1, self.jobs)

    def map(self, requests: Sequence) -> list:
        """One request per worker (at most :attr:`size`), all at once; the results in order."""
        requests = list(requests)
        if len(requests) > self.size:
            raise ValueError(f"{len(requests)} requests for {self.size} workers: one each at most")
        if self._local is not None:
            return [self._local(request) for request in requests]
        self._check_open()
        try:
            for index, request in enumerate(requests):
                self._send(index, [request])
            return [self._receive(index)[0] for index in range(len(requests))]
        except BaseException:
            self._end_if_busy()
            raise

    def stream(self, tasks: Iterable, chunk: int = 1) -> Iterator:
        """Each task's result, as the batches of ``chunk`` tasks come back (a batch in task
        order, the batches in the order they finish). Stopping early ends the workers
        that still hold work."""
        if self._local is not None:
            for task in tasks:
                yield self._local(task)
            return
        self._check_open()
        tasks = list(tasks)
        batches = iter([tasks[i : i + chunk] for i in range(0, len(tasks), max(1, chunk))])
        try:
            for index in range(self.size):
                batch = next(batches, None)
                if batch is None:
                    break
                self._send(index, batch)
            while self._busy:
                ready = wait([self._connections[index] for index in sorted(self._busy)])
                for connection in ready:
                    index = self._connections.index(connection)
                    results = self._receive(index)
                    batch = next(batches, None)
                    if batch is not None:  # keep the worker busy while the caller reads
                        self._send(index, batch)
                    yield from results
        except BaseException:  # an error, a Ctrl-C, or the caller stopped early
            self._end_if_busy()
            raise

    def close(self) -> None:
        """Let idle workers leave, end busy ones at once; in this process, nothing to do."""
        if self._closed or self._local is not None:
            self._closed = True
            return
        for index, connection in enumerate(self._connections):
            if index not in self._busy:
                try:
                    connection.send(None)
                except OSError:  # it has died: joined below
                    pass
        for index, process in enumerate(self._processes):
            if index not in self._busy:
                process.join(timeout=CLOSE_SECONDS)
        self._end()

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, error_type, error, trace) -> None:
        if error_type is None:
            self.close()
        else:  # an error or a Ctrl-C: no worker is waited for
            self._end()

    # ------------------------------------------------------------------ the parent's side

    def _start(self, jobs: int, setup: Callable, setup_args: tuple) -> None:
        context = multiprocessing.get_context("spawn")  # no fork: see the module doc
        saved = {key: os.environ.get(key) for key in THREAD_VARS}
        os.environ.update(dict.fromkeys(THREAD_VARS, "1"))  # read as the worker starts
        # SIGINT ignored while a worker starts, which it keeps through exec: a Ctrl-C
        # reaches the parent alone even before the worker's first line has run
        deaf = threading.current_thread() is threading.main_thread()  # signals: main only
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if deaf else None
        try:
            for _ in range(jobs):
                mine, theirs = context.Pipe()
                process = context.Process(
                    target=_serve, args=(theirs, setup, setup_args), daemon=True
                )
                process.start()
                theirs.close()
                self._processes.append(process)
                self._connections.append(mine)
        except BaseException:
            self._end()
            raise
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value

    def _check_open(self) -> None:
        if self._closed:
            raise RuntimeError("the workers are closed (or were ended by an error)")

    def _send(self, index: int, batch: list) -> None:
        try:
            self._connections[index].send(batch)
        except (BrokenPipeError, ConnectionResetError):
            self._died(index)
        self._busy.add(index)

    def _receive(self, index: int) -> list:
        try:
            status, payload = self._connections[index].recv()
        except (EOFError, ConnectionResetError):  # the reset: it died with a request unread
            self._died(index)
        self._busy.discard(index)
        if status == "error":
            _raise_carried(index, *payload)
        return payload

    def _died(self, index: int) -> NoReturn:
        """End every worker and raise :class:`WorkerError` for worker ``index``, gone."""
        process = self._processes[index]
        process.join(timeout=CLOSE_SECONDS)
        self._end()
        raise WorkerError(
            f"worker process {index} died (exit code {process.exitcode}); what it printed "
            "before it died says why"
        ) from None

    def _end_if_busy(self) -> None:
        if self._busy:
            self._end()

    def _end(self) -> None:
        """End every worker now (kill it if it has not left) and close the runner."""
        for process in self._processes:
            if process.is_alive():
                process.kill()
            process.join()
        for connection in self._connections:
            connection.close()
        self._processes, self._connections = [], []
        self._busy.clear()
        self._closed = True


def _raise_carried(index: int, pickled: bytes | None, text: str) -> None:
    """Raise again the exception a worker sent: itself if it unpickles, else as text."""
    error = None
    if pickled is not None:
        try:
            error = pickle.loads(pickled)
        except Exception:  # noqa: BLE001 - any failure: the text says what it was
            error = None
    if not isinstance(error, BaseException):
        raise WorkerError(f"worker process {index} raised:\n{text}")
    raise error from WorkerError(f"in worker process {index}:\n{text}")


# ---------------------------------------------------------------------- the worker's side


def _serve(connection: Connection, setup: Callable, setup_args: tuple) -> None:
    """A worker: set up, then answer the batches it is sent until ``None`` (or no parent)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's
    os.environ.update(dict.fromkeys(THREAD_VARS, "1"))
    handler, failure = None, None
    try:
        handler = setup(*setup_args)
    except Exception as error:  # noqa: BLE001 - raised again with the first batch
        failure = error
    limit_torch_threads()
    while True:
        try:
            batch = connection.recv()
        except EOFError:  # the parent has gone
            return
        if batch is None:
            return
        try:
            if failure is not None:
                raise failure
            results = [handler(request) for request in batch]
            limit_torch_threads()  # a request may have imported torch
            connection.send(("ok", results))  # pickled whole before a byte is written
        except Exception as error:  # noqa: BLE001 - raised again in the parent
            connection.send(("error", _carry(error)))


def _carry(error: BaseException) -> tuple[bytes | None, str]:
    """``error`` pickled (None where it cannot be) and as text with its traceback."""
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    try:
        pickled: bytes | None = pickle.dumps(error)
    except Exception:  # noqa: BLE001 - any failure: the text carries it
        pickled = None
    return pickled, text
