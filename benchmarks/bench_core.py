"""The compiled core against the Python engine, in one run (random masked play, classic
4 players; steps per CPU-second unless said):

* the engine alone: the Python engine, the core driven from Python, the core alone (its
  C++ random policy loop);
* ``raw_env`` (observation and mask at every step) on both engines, beside a do-nothing
  AEC env with the same spaces (the cost of PettingZoo's loop itself);
* ``vector_env`` (256 tables, observations and masks into its arrays) on both engines,
  with the numpy sampling of the actions counted and without;
* wall-clock steps per second with both cores busy (2 threads, and 2 processes, each
  stepping its own 256 core tables), with the CPUs the threads got (under 2: other work
  on the machine held a core);
* memory: 1,024 core tables, and resident memory before and after ``--flat-steps``
  steps of one vector env (flat: no growth).

    python benchmarks/bench_core.py [--steps N] [--seconds S] [--flat-steps N]
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

import canasta_env
from canasta_env.core import AVAILABLE, WHY_NOT, CoreGame, _core, rules_values
from canasta_env.engine.game import Game
from canasta_env.rules import PRESETS

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench.py, bench_vector.py beside
from bench import run as play_env  # noqa: E402
from bench_vector import cpu_rate, memory_mb, rss_mb, sample_actions, threaded_wall_rate  # noqa: E402


def python_loop(make, steps: int) -> float:
    """Random masked play driven from Python; returns steps per CPU-second."""
    rng = random.Random(0)
    game = make(0)
    start = time.process_time()
    for _ in range(steps):
        if game.hand_over:
            game = make(rng.randrange(1 << 30)) if game.game_over else game
            if game.hand_over:
                game.next_hand()
        game.apply(rng.choice(game.legal_actions()))
    return steps / (time.process_time() - start)


class NoOpEnv(AECEnv):
    """An AEC env with the spaces of ``raw_env`` that does nothing: a fixed observation and
    mask, every action accepted, a hand of 100 steps; what PettingZoo's loop costs alone."""

    metadata = {"name": "noop_v0", "is_parallelizable": False}

    def __init__(self, num_players: int = 4):
        super().__init__()
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (canasta_env.OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (canasta_env.NUM_ACTIONS,), np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {
            a: spaces.Discrete(canasta_env.NUM_ACTIONS) for a in self.possible_agents
        }
        self._obs = np.zeros(canasta_env.OBS_SIZE, np.float32)
        self._mask = np.zeros(canasta_env.NUM_ACTIONS, np.int8)
        self._mask[[0, 6, 20, 56]] = 1

    def observe(self, agent):
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def reset(self, seed=None, options=None):
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.agents[0]
        self.steps = 0

    def step(self, action):
        if self.terminations[self.agent_selection]:
            self._was_dead_step(action)
            return
        self.steps += 1
        self._cumulative_rewards[self.agent_selection] = 0.0
        if self.steps >= 100:
            self.terminations = dict.fromkeys(self.agents, True)
        index = self.agents.index(self.agent_selection)
        self.agent_selection = self.agents[(index + 1) % len(self.agents)]
        self._accumulate_rewards()


def _process_steps(args: tuple[int, float]) -> int:
    """One process's core vector env stepped for ``seconds`` of wall time: its steps."""
    seed, seconds = args
    env = canasta_env.vector_env("classic", 4, num_envs=256, seed=seed, backend="core")
    rng = np.random.default_rng(seed)
    obs, mask, seat = env.reset()
    steps = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        env.step(sample_actions(mask, rng))
        steps += 256
    return steps


def process_wall_rate(processes: int = 2, seconds: float = 3.0) -> float:
    """Wall-clock steps per second of ``processes`` processes, each with its own core
    vector env (the start of the processes not counted)."""
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        pool.map(_process_steps, [(i, 0.2) for i in range(processes)])  # start and import
        start = time.perf_counter()
        steps = pool.map(_process_steps, [(i, seconds) for i in range(processes)])
        return sum(steps) / (time.perf_counter() - start)


def flat_memory(steps: int) -> tuple[float, float]:
    """Resident MB after 1% of ``steps`` steps of a 256-table core vector env, and after all."""
    env = canasta_env.vector_env("classic", 4, num_envs=256, seed=0, backend="core")
    rng = np.random.default_rng(0)
    obs, mask, seat = env.reset()
    done = 0
    warm = None
    while done < steps:
        env.step(sample_actions(mask, rng))
        done += 256
        if warm is None and done >= steps // 100:
            warm = rss_mb()
    return warm, rss_mb()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=20_000, help="steps of the Python loops")
    parser.add_argument("--core-steps", type=int, default=5_000_000, help="steps of the C++ loop")
    parser.add_argument("--seconds", type=float, default=3.0, help="per env and vector timing")
    parser.add_argument("--flat-steps", type=int, default=10_000_000, help="0: skip")
    args = parser.parse_args()
    rules = PRESETS["classic"]
    print(f"classic, 4 players, random masked play; {time.strftime('%Y-%m-%d %H:%M')}")
    print("-- the engine alone (steps per CPU-second)")
    py = python_loop(lambda seed: Game(rules, 4, seed=seed), args.steps)
    print(f"python engine:              {py:12,.0f}")
    if not AVAILABLE:
        print(f"core: {WHY_NOT}")
        return
    driven = python_loop(lambda seed: CoreGame(rules, 4, seed=seed), args.steps * 5)
    print(f"core, driven from Python:   {driven:12,.0f}")
    core_rules = _core.Rules.from_values(rules_values(rules, 4))
    start = time.process_time()
    hands = _core.random_playout_steps(core_rules, "classic", 4, args.core_steps, 1)
    alone = args.core_steps / (time.process_time() - start)
    print(f"core alone (C++ policy):    {alone:12,.0f} ({hands} hands)")
    print(f"speed-up: driven {driven / py:.1f}x, alone {alone / py:.0f}x")

    print("-- raw_env, observation and mask at every step (steps per CPU-second, hands/s)")
    envs = {}
    for name, factory in (
        ("python", lambda: canasta_env.raw_env(num_players=4, backend="python")),
        ("core", lambda: canasta_env.raw_env(num_players=4, backend="core")),
        ("no-op AEC env", lambda: NoOpEnv(4)),
    ):
        _rate, hands_s, _n, cpu = play_env(factory, args.seconds)
        envs[name] = cpu
        print(f"raw_env {name:14s}{cpu:12,.0f}   ({hands_s:,.1f} hands/s wall)")
    print(f"raw_env core / python: {envs['core'] / envs['python']:.1f}x")

    print("-- vector_env, 256 tables (steps per CPU-second)")
    vec = {}
    for backend in ("core", "python"):
        rate = cpu_rate(backend, 256, args.seconds)
        vec[backend] = rate["total"]
        print(
            f"vector_env {backend:7s}{rate['total']:12,.0f} with numpy sampling, "
            f"{rate['step_only']:12,.0f} in step only"
        )
    print(
        f"vector_env core / raw_env python: {vec['core'] / envs['python']:.1f}x; "
        f"/ vector_env python: {vec['core'] / vec['python']:.1f}x"
    )

    print("-- both cores busy (steps per second of wall time, sampling included)")
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    threads = threaded_wall_rate(2, 256, args.seconds)
    cpus = (time.process_time() - cpu_start) / (time.perf_counter() - wall_start)
    # the CPUs the threads got: under 2, other work on the machine held a core
    print(f"2 threads x 256 core tables:   {threads:12,.0f}   ({cpus:.2f} CPUs busy)")
    print(f"2 processes x 256 core tables: {process_wall_rate(2, args.seconds):12,.0f}")

    print("-- memory")
    total, added = memory_mb(1024)
    print(f"1,024 core tables: process RSS {total:.0f} MB ({added:.0f} MB for the tables)")
    if args.flat_steps:
        warm, end = flat_memory(args.flat_steps)
        print(
            f"RSS after {args.flat_steps // 100:,} steps {warm:.1f} MB, "
            f"after {args.flat_steps:,} steps {end:.1f} MB"
        )


if __name__ == "__main__":
    main()
