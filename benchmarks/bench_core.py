"""Steps per CPU-second of random masked play, classic 4 players: the Python engine, the
core driven from Python, and the core alone (its C++ random policy loop).

    python benchmarks/bench_core.py [--steps N]
"""

from __future__ import annotations

import argparse
import random
import time

from canasta_env.core import AVAILABLE, WHY_NOT, CoreGame, _core, rules_values
from canasta_env.engine.game import Game
from canasta_env.rules import PRESETS


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=20_000, help="steps of the Python loops")
    parser.add_argument("--core-steps", type=int, default=5_000_000, help="steps of the C++ loop")
    args = parser.parse_args()
    rules = PRESETS["classic"]
    print(f"classic, 4 players, random masked play; {time.strftime('%Y-%m-%d %H:%M')}")
    py = python_loop(lambda seed: Game(rules, 4, seed=seed), args.steps)
    print(f"python engine:              {py:12,.0f} steps per CPU-second")
    if not AVAILABLE:
        print(f"core: {WHY_NOT}")
        return
    driven = python_loop(lambda seed: CoreGame(rules, 4, seed=seed), args.steps * 5)
    print(f"core, driven from Python:   {driven:12,.0f} steps per CPU-second")
    core_rules = _core.Rules.from_values(rules_values(rules, 4))
    start = time.process_time()
    hands = _core.random_playout_steps(core_rules, "classic", 4, args.core_steps, 1)
    alone = args.core_steps / (time.process_time() - start)
    print(f"core alone (C++ policy):    {alone:12,.0f} steps per CPU-second ({hands} hands)")
    print(f"speed-up: driven {driven / py:.1f}x, alone {alone / py:.0f}x")


if __name__ == "__main__":
    main()
