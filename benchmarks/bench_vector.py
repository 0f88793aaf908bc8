"""Speed and memory of ``canasta_env.vector.vector_env``: the core backend against the
Python one, random masked actions sampled in numpy.

    python benchmarks/bench_vector.py [--seconds 3] [--envs 256]

Prints steps per CPU-second (``time.process_time``) of each backend, with the numpy
sampling of the actions counted and without it (the time inside ``step`` only); the
wall-clock steps per second of two threads each stepping its own core batch; and the
resident memory of 1,024 core tables. The functions are importable (bench_core.py).
"""

from __future__ import annotations

import argparse
import threading
import time

import numpy as np

from canasta_env.vector import vector_env

#: The mask is scanned a machine word (2 ** _WORD_SHIFT bytes) at a time.
_WORD_SHIFT = 3
_WORD = 1 << _WORD_SHIFT


def sample_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal id per row of a C-contiguous 0/1 int8 mask (every row with a legal id),
    uniform over the row's legal ids: the benchmark's random policy.

    The mask is mostly zeros (about ten legal ids in 500), so it is scanned as 64-bit
    words: one comparison finds the nonzero words, only those are split into bytes (read
    as bools, numpy's fastest nonzero), which gives every legal id in ascending order; one
    ``searchsorted`` finds where each row's ids start, and each row takes its
    ``floor(u * count)``-th legal id, ``u`` one ``rng.random()`` draw per row (so a seeded
    ``rng`` gives the same actions).
    """
    rows, width = mask.shape
    flat = mask.reshape(-1).view(np.uint8)
    whole = flat.size - flat.size % _WORD
    words = flat[:whole].view(np.uint64)
    live = np.flatnonzero(words != 0)
    lanes = np.flatnonzero(words[live].view(np.bool_))  # byte positions within the live words
    legal = (live[lanes >> _WORD_SHIFT] << _WORD_SHIFT) | (lanes & (_WORD - 1))
    if whole < flat.size:  # the tail that fills no word
        legal = np.concatenate([legal, whole + np.flatnonzero(flat[whole:])])
    row_starts = np.arange(0, (rows + 1) * width, width)
    starts = np.searchsorted(legal, row_starts)  # where each row's ids begin, and the end
    picks = starts[:-1] + (rng.random(rows) * np.diff(starts)).astype(np.int64)
    return legal[picks] - row_starts[:-1]


def cpu_rate(backend: str, num_envs: int = 256, seconds: float = 3.0, seed: int = 0) -> dict:
    """Steps per CPU-second of classic 4-player tables: ``total`` counts the sampling,
    ``step_only`` the time inside ``step``."""
    env = vector_env("classic", 4, num_envs=num_envs, seed=seed, backend=backend)
    rng = np.random.default_rng(seed)
    obs, mask, seat = env.reset()
    in_step = 0.0
    steps = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        actions = sample_actions(mask, rng)
        before = time.process_time()
        env.step(actions)
        in_step += time.process_time() - before
        steps += num_envs
    total = time.process_time() - start
    return {
        "backend": backend,
        "steps": steps,
        "total": steps / total,
        "step_only": steps / in_step,
    }


def threaded_wall_rate(threads: int = 2, num_envs: int = 256, seconds: float = 3.0) -> float:
    """Wall-clock steps per second of ``threads`` threads, each stepping its own core
    batch with numpy-sampled actions (``step`` releases the GIL; the sampling holds it)."""
    envs = [
        vector_env("classic", 4, num_envs=num_envs, seed=i, backend="core") for i in range(threads)
    ]
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)
    stop = threading.Event()

    def run(index: int) -> None:
        env = envs[index]
        rng = np.random.default_rng(index)
        obs, mask, seat = env.reset()
        barrier.wait()
        while not stop.is_set():
            env.step(sample_actions(mask, rng))
            counts[index] += num_envs

    workers = [threading.Thread(target=run, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    barrier.wait()
    start = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return sum(counts) / (time.perf_counter() - start)


def rss_mb() -> float:
    """This process's resident memory (Linux /proc), in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def memory_mb(num_envs: int = 1024, steps: int = 200) -> tuple[float, float]:
    """(resident MB of the process, MB added by ``num_envs`` core tables played
    ``steps`` steps)."""
    before = rss_mb()
    env = vector_env("classic", 4, num_envs=num_envs, seed=0, backend="core")
    rng = np.random.default_rng(0)
    obs, mask, seat = env.reset()
    for _ in range(steps):
        env.step(sample_actions(mask, rng))
    after = rss_mb()
    return after, after - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--envs", type=int, default=256)
    args = parser.parse_args()
    for backend in ("core", "python"):
        seconds = args.seconds if backend == "core" else min(args.seconds, 3.0)
        rate = cpu_rate(backend, args.envs, seconds)
        print(
            f"{backend:6s} classic 4p, {args.envs} envs: {rate['total']:>10,.0f} steps/CPU-s "
            f"with numpy sampling, {rate['step_only']:>10,.0f} in step only"
        )
    wall = threaded_wall_rate(2, args.envs, args.seconds)
    print(f"core   2 threads x {args.envs} envs: {wall:>10,.0f} steps/s wall (sampling included)")
    total, added = memory_mb(1024)
    print(f"core   1,024 tables: process RSS {total:.0f} MB ({added:.0f} MB for the tables)")


if __name__ == "__main__":
    main()
