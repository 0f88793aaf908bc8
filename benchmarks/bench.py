"""Decision steps per second and hands per second of random masked play.

Every step builds the observation and the mask (through ``env.last()``), as a
training loop does. Run: ``python benchmarks/bench.py`` (all presets and player
counts, ``raw_env`` and ``env()``) or ``--variants classic --players 4``.
``--apis engine`` times the rules engine alone (legal actions and applying them,
no observation), which is what search agents and the rollouts of training use.
``--backend core|python`` picks the engine of ``raw_env``/``env()`` (default: the
core where it is built, as for users); ``benchmarks/bench_core.py`` sets the two side
by side. To compare two checkouts in one run, see ``benchmarks/compare.py``.
"""

from __future__ import annotations

import argparse
import random
import time

import canasta_env
from canasta_env.engine import Game
from canasta_env.rules import PRESETS, make_rules

#: Rows: every preset, and Spanish with the optional S-19 runs (suits followed).
VARIANTS = {name: (name, {}) for name in PRESETS}
VARIANTS["spanish+sequences"] = ("spanish", {"sequences": True})


def run(factory, seconds: float, seed: int = 0) -> tuple[float, float, int, float]:
    """Play random legal actions for about ``seconds``.

    Returns (steps/s, hands/s, steps, CPU steps/s); the last divides by the
    process's CPU time, which other processes on the machine do not inflate.
    """
    env = factory()
    rng = random.Random(seed)
    steps = hands = 0
    env.reset(seed=seed)
    cpu_start = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        agent = env.agent_selection
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            hands += 1
            if time.perf_counter() > deadline:
                break
            env.reset(seed=seed + hands)
            continue
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[rng.randrange(len(legal))]))
        steps += 1
        del agent
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return steps / elapsed, hands / elapsed, steps, steps / cpu


def run_engine(preset: str, players: int, overrides: dict, seconds: float, seed: int = 0):
    """:func:`run` for the engine alone: random legal actions, no observation."""
    rules = make_rules(preset, **overrides)
    rng = random.Random(seed)
    steps = hands = 0
    cpu_start = time.process_time()
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        game = Game(rules, players, seed=seed + hands)
        while True:
            legal = game.legal_actions()
            if not legal:
                break
            game.apply(legal[rng.randrange(len(legal))])
            steps += 1
        hands += 1
        if time.perf_counter() > deadline:
            break
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return steps / elapsed, hands / elapsed, steps, steps / cpu


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--variants", nargs="*", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--players", nargs="*", type=int, default=None)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument(
        "--apis", nargs="*", default=["raw_env", "env"], choices=["engine", "raw_env", "env"]
    )
    parser.add_argument("--backend", default=None, choices=["core", "python"])
    args = parser.parse_args(argv)
    from canasta_env.table import resolve_backend

    print(f"engine of raw_env and env(): {resolve_backend(args.backend)}")
    print(
        f"{'variant':17} {'players':>7} {'api':8} {'steps/s':>9} {'hands/s':>8} {'steps':>8} "
        f"{'cpu steps/s':>11}"
    )
    for variant in args.variants:
        preset, overrides = VARIANTS[variant]
        counts = args.players or list(PRESETS[preset].player_counts)
        for players in counts:
            if players not in PRESETS[preset].player_counts:
                continue
            for api in args.apis:
                if api == "engine":
                    result = run_engine(preset, players, overrides, args.seconds)
                else:
                    make = getattr(canasta_env, api)

                    def factory(make=make, preset=preset, players=players, overrides=overrides):
                        return make(
                            variant=preset, num_players=players, backend=args.backend, **overrides
                        )

                    result = run(factory, args.seconds)
                steps_s, hands_s, steps, cpu_s = result
                print(
                    f"{variant:17} {players:>7} {api:8} {steps_s:>9.0f} {hands_s:>8.1f} "
                    f"{steps:>8} {cpu_s:>11.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
