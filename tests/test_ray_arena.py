"""The arena on Ray (extra ``scale``): same results as one process, and no hand lost with a worker.

Runs on a local Ray instance with 2 CPUs; skipped when Ray is not installed.
"""

from __future__ import annotations

import os
import socket
import sys
from functools import partial

import pytest

ray = pytest.importorskip(
    "ray", reason="Ray is not installed (extra 'scale': pip install -e '.[scale]')"
)

import cloudpickle  # noqa: E402  (ships with ray)

import canasta_arena.arena as arena  # noqa: E402
import canasta_arena.schedule as schedule  # noqa: E402
from agents.base import RandomAgent  # noqa: E402
from agents.registry import register_agent  # noqa: E402
from canasta_arena.ray_arena import make_batches  # noqa: E402

# The crashing agent below is defined here: Ray's workers get it by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


class CrashOnce(RandomAgent):
    """A random agent whose process dies at its first move of the whole test, once.

    The first process to create ``marker`` exits at once, as a killed worker does
    (no exception, no cleanup); every later move, in any process, is a random agent's.
    """

    def __init__(self, marker: str, seed: int | None = None):
        super().__init__(seed=seed)
        self.marker = marker

    def act(self, observation, action_mask):
        try:
            handle = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return super().act(observation, action_mask)
        os.close(handle)
        os._exit(1)


KWARGS = dict(variant="classic", num_players=2, hands=12, seed=5, plot=False)


def test_batches_keep_whole_deals_in_schedule_order():
    pairings = schedule.make_pairings(["random", "greedy"], 2, "round-robin")
    tasks = schedule.make_tasks(pairings, 12, 0, True)  # 6 deals of 2 arrangements
    batches = make_batches(tasks, 5)
    assert [len(b) for b in batches] == [2, 2, 2]  # 4 hands each: a third deal would make 6
    assert [t for b in batches for t in b] == tasks
    assert [len(b) for b in make_batches(tasks, 1)] == [1] * 6  # a deal is never split
    with pytest.raises(ValueError, match="--ray-batch must be at least 1"):
        make_batches(tasks, 0)


def test_ray_gives_the_single_process_results(local_ray, tmp_path):
    agents = ["random", "greedy", "expert"]
    local = arena.run_arena(agents, out_dir=tmp_path / "local", jobs=1, **KWARGS)
    on_ray = arena.run_arena(agents, out_dir=tmp_path / "ray", ray="local", ray_batch=4, **KWARGS)
    assert on_ray.hands == local.hands
    assert len(on_ray.hands) == 36
    assert on_ray.summary == local.summary
    assert (tmp_path / "ray" / "hands.csv").read_text() == (
        tmp_path / "local" / "hands.csv"
    ).read_text()
    assert "ray: 9 batches" in on_ray.report  # 18 deals of 2 hands, 2 deals a batch
    assert "0 hands retried after worker loss" in on_ray.report


def test_a_worker_that_dies_loses_no_hand(local_ray, tmp_path):
    marker = tmp_path / "crashed"
    register_agent("crash-once", partial(CrashOnce, str(marker)))
    agents = ["crash-once", "greedy"]
    on_ray = arena.run_arena(agents, ray="local", ray_batch=4, ray_retries=2, **KWARGS)
    assert marker.exists()  # a worker did die
    assert "4 hands retried after worker loss" in on_ray.report
    assert on_ray.config["ray"]["retried_hands"] == 4
    # the marker stays: from now on the agent is the random agent it wraps
    register_agent("crash-once", partial(CrashOnce, str(marker)))
    local = arena.run_arena(agents, jobs=1, **KWARGS)
    assert on_ray.hands == local.hands
    assert on_ray.summary == local.summary


def test_a_task_lost_more_often_than_allowed_fails(local_ray, tmp_path):
    marker = tmp_path / "crashed"
    register_agent("crash-unretried", partial(CrashOnce, str(marker)))
    with pytest.raises(RuntimeError, match="lost 1 times"):
        arena.run_arena(["crash-unretried", "greedy"], ray="local", ray_retries=0, **KWARGS)
    assert marker.exists()


def test_bad_ray_arguments_are_refused_before_any_hand(tmp_path):
    with pytest.raises(ValueError, match="--ray-batch must be at least 1"):
        arena.run_arena(["random", "greedy"], ray="local", ray_batch=0, **KWARGS)
    with pytest.raises(ValueError, match="--ray-retries must be at least 0"):
        arena.run_arena(["random", "greedy"], ray="local", ray_retries=-1, **KWARGS)


def test_an_address_without_a_cluster_is_refused_at_once():
    with socket.socket() as probe:  # a port where nothing listens
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    for address in (f"127.0.0.1:{port}", f"ray://127.0.0.1:{port}"):
        with pytest.raises(ValueError, match="no Ray cluster answers there"):
            arena.run_arena(["random", "greedy"], ray=address, **KWARGS)
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        arena.run_arena(["random", "greedy"], ray="headnode", **KWARGS)
