"""The arena's hands as Ray tasks: ``canasta arena ... --ray [ADDRESS]``.

The schedule, the seeds and the statistics are the arena's own
(:mod:`canasta_arena.schedule`, :mod:`canasta_arena.arena`); only where the hands are played
changes. The arena's tasks (one deal of one pairing each) are cut into batches of
``--ray-batch`` hands at most; each batch is one Ray task that plays its hands with
:func:`canasta_arena.schedule.play_task` and returns them with their schedule position
(pairing, deal, arrangement). The driver sorts every hand by that position
before any statistic, exactly as the local run does, so the same arguments and
seed give the same results as a single-process run, whatever the number of
workers, the batch size or the order in which batches finish.

Worker loss. A batch whose worker process dies (killed, out of memory, its node
gone) is *lost*, not failed: Ray reports it as a system error
(``WorkerCrashedError``, ``NodeDiedError``, ...). The driver submits a lost batch
again, up to ``--ray-retries`` times, and counts its hands; the report prints
``ray: N hands retried after worker loss``. Ray's own automatic retry is turned
off (``max_retries=0``) so that every retry is the driver's and is counted. An
error raised by the game or an agent (a bug, an illegal move) is no loss: it is
raised at once, as in the local run.

Ray is imported only here, and only when ``--ray`` is given. No address starts a
local instance (``--jobs N`` above 1 caps it at N CPUs); an address
(``ray://HOST:10001`` or ``HOST:6379``, or ``auto``) joins a running cluster,
whose nodes must have this package installed (see docs/ray.md). An instance
that is already running in this process (``ray.init`` by the caller) is used
as it is.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from dataclasses import dataclass

from agents.base import HandRecord
from canasta_arena.progress import progress_bar
from canasta_arena.schedule import ArenaInterrupted, Task, init_worker_once, play_task
from canasta_env.rules import Rules

#: ``--ray`` without an address: a local Ray instance.
LOCAL = "local"


@dataclass
class RayRun:
    """What a Ray run did besides its hands: batches, retries, workers seen."""

    batches: int = 0
    retried_batches: int = 0
    retried_hands: int = 0
    workers: int = 0

    def report_line(self) -> str:
        return (
            f"ray: {self.batches} batches on {self.workers} worker processes; "
            f"{self.retried_hands} hands retried after worker loss"
        )


def make_batches(tasks: Sequence[Task], batch: int) -> list[list[Task]]:
    """``tasks`` in schedule order, cut into runs of at most ``batch`` hands.

    A task (one deal, its arrangements) is never split; a batch takes whole tasks
    until the next would pass ``batch`` hands (a task larger than ``batch`` is a
    batch of its own).
    """
    if batch < 1:
        raise ValueError(f"--ray-batch must be at least 1, got {batch}")
    batches: list[list[Task]] = []
    current: list[Task] = []
    size = 0
    for task in tasks:
        if current and size + len(task.hands) > batch:
            batches.append(current)
            current, size = [], 0
        current.append(task)
        size += len(task.hands)
    if current:
        batches.append(current)
    return batches


def _play_batch(
    tasks: list[Task],
    rules: Rules,
    num_players: int,
    seed: int,
    factories: bytes,
    trust_pickle: bool = False,
) -> tuple[int, list[HandRecord]]:
    """The body of one Ray task: (worker pid, the hands of ``tasks``).

    A worker process keeps its agents from one batch to the next of the same
    arena (same rules, table, seed, registered names and ``trust_pickle``).
    """
    import os

    init_worker_once(rules, num_players, seed, factories, trust_pickle)
    results: list[HandRecord] = []
    for task in tasks:
        results += play_task(task)
    return os.getpid(), results


def check_address(address: str, timeout: float = 5.0) -> None:
    """Refuse at once an address where no Ray head answers: ``ray.init`` would keep
    retrying for minutes. ``local`` and ``auto`` are not network addresses."""
    if address in (LOCAL, "auto"):
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not (host and sep and port.isdigit()):
        raise ValueError(f"--ray {address}: expected HOST:PORT, ray://HOST:PORT or auto")
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise ValueError(
            f"--ray {address}: no Ray cluster answers there ({error}); "
            "start one with `ray start --head` (docs/ray.md)"
        ) from error


def connect(address: str, cpus: int | None = None):
    """The ``ray`` module, connected: a running instance, a local one, or ``address``."""
    try:
        import ray
    except ImportError as error:
        from canasta_env.extras import install_command

        raise ValueError(
            f"--ray needs Ray: {install_command('scale')} (ray[rllib]==2.60.0)"
        ) from error
    check_address(address)
    if not ray.is_initialized():
        if address == LOCAL:
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
        else:
            try:
                ray.init(address=address, log_to_driver=False)
            except ConnectionError as error:
                raise ValueError(f"--ray {address}: no Ray cluster there ({error})") from error
    return ray


def play_tasks_ray(
    tasks: Sequence[Task],
    rules: Rules,
    num_players: int,
    seed: int,
    address: str = LOCAL,
    batch: int = 8,
    retries: int = 3,
    cpus: int | None = None,
    factories: dict | None = None,
    progress: bool = True,
    trust_pickle: bool = False,
) -> tuple[list[HandRecord], RayRun]:
    """Play every task as Ray tasks; the hands in schedule order, and what the run did.

    ``rules`` (checked) go to every task as they are. ``trust_pickle`` reaches
    :func:`~agents.registry.make_agent` on every worker.
    Raises ``ValueError`` for a bad batch size or retry count, or when Ray is
    missing or the address has no cluster; ``RuntimeError`` when a batch is lost
    more than ``retries`` times; an agent's or the game's error as it is;
    :class:`~canasta_arena.schedule.ArenaInterrupted` with the hands finished so far on Ctrl-C.
    """
    if retries < 0:
        raise ValueError(f"--ray-retries must be at least 0, got {retries}")
    batches = make_batches(tasks, batch)
    ray = connect(address, cpus)
    import cloudpickle  # ships with ray; pickle.loads reads what it writes
    from ray.exceptions import RayTaskError

    remote = ray.remote(num_cpus=1, max_retries=0)(_play_batch)
    # registered names travel as the multiprocessing pool's do: pickled factories
    factories = cloudpickle.dumps(factories or {})
    shared = (rules, num_players, seed, factories, trust_pickle)
    run = RayRun(batches=len(batches))

    def submit(index: int):
        return remote.remote(batches[index], *shared)

    pending = {submit(i): i for i in range(len(batches))}
    attempts = dict.fromkeys(range(len(batches)), 0)
    pids: set[int] = set()
    results: list[HandRecord] = []
    total = sum(len(t.hands) for t in tasks)
    bar = progress_bar(total, "arena (ray)", "hand", enabled=progress)
    try:
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(done[0])
            try:
                pid, hands = ray.get(done[0])
            except RayTaskError as error:  # raised by the game or an agent: no loss
                raise error.as_instanceof_cause() from None
            except ray.exceptions.RayError as error:  # the worker or its node was lost
                attempts[index] += 1
                if attempts[index] > retries:
                    raise RuntimeError(
                        f"ray: batch {index} was lost {attempts[index]} times "
                        f"(--ray-retries {retries}): {error}"
                    ) from error
                run.retried_batches += 1
                run.retried_hands += sum(len(t.hands) for t in batches[index])
                pending[submit(index)] = index
                continue
            pids.add(pid)
            results += hands
            bar.update(len(hands))
    except KeyboardInterrupt as error:  # Ctrl-C: the hands finished so far are kept
        results.sort(key=lambda r: r.key)
        raise ArenaInterrupted(results) from error
    finally:
        bar.close()
        for ref in pending:
            ray.cancel(ref, force=True)
    run.workers = len(pids)
    results.sort(key=lambda r: r.key)
    return results, run
