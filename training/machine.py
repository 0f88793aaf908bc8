"""What training may use of its machine: the cores, shared by the rollout workers and the
learner's torch threads (the budget), and the torch device the learner trains on.

The budget. A run takes turns: the rollout workers collect (``jobs`` processes of one
thread each, :mod:`canasta_arena.workers`, while the learner waits on their pipes), then the
learner updates (``threads`` torch threads, while the workers wait on theirs). Recording
and evaluation are workers' turns, imitation is the learner's. The turns do not overlap,
but a machine is seldom the run's alone, and OpenMP threads that find their cores taken
wait on each other: on a busy 2-core machine torch's default threads made a CleanRL-style
loop 13 times slower, and this recipe's update ran 3 times slower on 2 threads than on 1.
So by default the run as a whole fits the cores, and no request goes past them:

* ``threads``, the learner's torch threads: left out (None), the cores the workers do not
  hold, at least 1 (``cores - jobs``; all the cores where ``jobs`` is 0). Given, as given up
  to the cores (a quiet machine may give each turn all of them); more are cut to the cores,
  with a line naming both numbers. Where torch trains on a GPU they only feed it.
* ``jobs``, the worker processes: kept as given, since the batch is split among them (they
  are part of the recipe and of its results: ``config.json`` keeps them), with a warning
  naming both numbers when they are more than the cores (they then take turns on them).

The threads change the update's rounding, so ``config.json`` keeps the number a run used.
The cores are those this process may run on (``os.sched_getaffinity``: what ``taskset`` or
a container's CPU set grants), else ``os.cpu_count()``.

The device (``--device``): ``cpu``, ``cuda``, or ``auto`` (``cuda`` when torch sees a GPU,
else ``cpu``). ``cpu`` never asks torch about GPUs; ``cuda`` without one is refused before
any work (:func:`resolve_device`). Only the learner's network moves: the rollout workers
play numpy copies of its actor on the CPU.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

#: ``--device``'s choices.
DEVICES = ("auto", "cpu", "cuda")


def cores() -> int:
    """The cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this system (macOS, Windows)
        return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Budget:
    """The cores, the worker processes and the learner's torch threads of one session, and
    a line for each request the rule changed or warns about (:func:`budget`)."""

    cores: int
    jobs: int
    threads: int
    notes: tuple[str, ...] = ()

    def __str__(self) -> str:
        workers = (
            "rollouts in this process"
            if self.jobs == 0
            else f"{self.jobs} worker{' plays' if self.jobs == 1 else 's play'}"
        )
        threads = f"{self.threads} torch thread{'s' if self.threads > 1 else ''}"
        return f"{self.cores} cores: {workers}, then {threads} learn"


def budget(jobs: int, threads: int | None, available: int | None = None) -> Budget:
    """The budget rule (the module's docstring) for ``jobs`` workers and ``threads`` torch
    threads (None: the cores the workers leave) on ``available`` cores (default:
    :func:`cores`)."""
    available = cores() if available is None else available
    notes = []
    if jobs > available:
        notes.append(
            f"--jobs {jobs}: {jobs} worker processes share {available} cores, taking turns "
            f"on them (the run's results depend on --jobs; --jobs {available} collects as fast)"
        )
    if threads is None:
        threads = max(1, available - jobs)
    elif threads > available:
        notes.append(
            f"--threads {threads}: more torch threads than the {available} cores wait on "
            f"each other; the learner uses {available}"
        )
        threads = available
    return Budget(available, jobs, threads, tuple(notes))


class DeviceError(ValueError):
    """A device torch cannot train on here (one line: what is missing and the way out)."""


def resolve_device(name: str) -> str:
    """``"cpu"`` or ``"cuda"`` for ``--device name`` (:data:`DEVICES`); ``DeviceError`` for
    ``cuda`` where torch sees no GPU, naming why."""
    if name not in DEVICES:
        raise DeviceError(f"device must be one of {', '.join(DEVICES)}, got {name!r}")
    if name == "cpu":
        return "cpu"
    import torch

    if torch.cuda.is_available():
        return "cuda"
    if name == "auto":
        return "cpu"
    if torch.version.cuda is None:
        why = f"torch {torch.__version__} is a CPU-only build (docs/getting_started.md, 'A GPU')"
    else:
        why = (
            f"torch {torch.__version__} (CUDA {torch.version.cuda}) finds no GPU: check the "
            "driver (nvidia-smi) and CUDA_VISIBLE_DEVICES"
        )
    raise DeviceError(f"--device cuda: {why}; --device cpu or auto trains on the CPU")


def device_label(device: str) -> str:
    """``cpu``, or ``cuda`` with the GPU's name, for the log."""
    if device != "cuda":
        return device
    import torch

    return f"cuda ({torch.cuda.get_device_name()})"
