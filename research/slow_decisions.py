"""The slowest decisions of random play on rules at the ends of ``rules.BOUNDS``.

    python -m research.slow_decisions --seconds 600 --keep 6 --out runs/slow_decisions

Plays random games (uniform legal actions) on both engines side by side, each on rules
drawn by :func:`tests.house_rules.draw_bound_ends` (several fields at once, each at one
end of its bound: the opening minimum's table at 0 or 255, one deck or eight, 1-card or
deck-sized hands, 255-card draws and face-down pots, the italian and spanish house
rules...), times every ``legal_actions()`` (CPU time) on each engine, checks that the
masks agree, and keeps the slowest positions of each engine as saved states
(``canasta_env.state_io``: load one with ``state_from_json``) with the states the
Python search visited. It prints the slowest decisions at the end; with ``--out`` the
kept states are written there as ``python_1.json``, ``core_1.json``, ...
"""

from __future__ import annotations

import argparse
import heapq
import json
import random
import sys
import time
from pathlib import Path

from canasta_env.core import AVAILABLE, CoreGame
from canasta_env.engine.game import Game
from canasta_env.rules import make_rules
from canasta_env.state_io import state_to_json
from tests.house_rules import draw_bound_ends


def _searched(game: Game) -> int:
    """States the Python turn search holds in its memos (this turn's, so far)."""
    return len(game.search.memo) + len(game.search.slot_memo)


def play_table(table, seed, steps, keep, slowest, deadline=float("inf")) -> int:
    """Random play of one game on both engines (deal and moves from ``seed``: a game
    found slow replays alone); the slowest decisions go into ``slowest`` ({engine: heap
    of (seconds, tie, record)}); returns the decisions played."""
    preset, overrides, players = table
    rng = random.Random(seed)
    rules = make_rules(preset, **overrides)
    py = Game(rules, players, seed=seed)
    core = CoreGame(rules, players, seed=seed) if AVAILABLE else None
    done = 0
    while done < steps and time.monotonic() < deadline:
        if py.hand_over:
            if py.game_over:
                break
            py.next_hand()
            if core is not None:
                core.next_hand()
        saved = None
        start = time.process_time()
        legal = py.legal_actions()
        times = {"python": time.process_time() - start}
        searched = _searched(py)
        if core is not None:
            start = time.process_time()
            core_legal = core.legal_actions()
            times["core"] = time.process_time() - start
            if core_legal != legal:
                raise AssertionError(f"{table} seed {seed} step {done}: the masks differ")
        for engine, seconds in times.items():
            heap = slowest[engine]
            if len(heap) < keep or seconds > heap[0][0]:
                if saved is None:
                    # the state before the call: a fresh game, its caches empty
                    saved = state_to_json(py)
                record = {
                    "seconds": seconds,
                    "other": {k: v for k, v in times.items() if k != engine},
                    "searched": searched,
                    "legal": legal,
                    "phase": py.phase,
                    "table": [preset, overrides, players],
                    "seed": seed,
                    "step": done,
                    "state": saved,
                }
                item = (seconds, (seed, done), record)
                if len(heap) < keep:
                    heapq.heappush(heap, item)
                else:
                    heapq.heapreplace(heap, item)
        action = rng.choice(legal)
        py.apply(action)
        if core is not None:
            core.apply(action)
        done += 1
    return done


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=300, help="wall-clock budget")
    parser.add_argument("--steps", type=int, default=3000, help="decisions per game at most")
    parser.add_argument("--keep", type=int, default=6, help="slowest decisions kept per engine")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="folder for the kept states")
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    deadline = time.monotonic() + args.seconds
    slowest = {"python": [], "core": []}
    games = decisions = 0
    while time.monotonic() < deadline:
        table = draw_bound_ends(rng)
        decisions += play_table(
            table, rng.randrange(10**6), args.steps, args.keep, slowest, deadline
        )
        games += 1
    print(f"{games} games, {decisions} decisions on both engines, masks alike")
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    for engine, heap in slowest.items():
        for rank, (seconds, _, record) in enumerate(sorted(heap, reverse=True), 1):
            other = ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in record["other"].items())
            print(
                f"{engine} #{rank}: {seconds * 1000:.1f} ms ({other}), "
                f"{record['searched']} states, {len(record['legal'])} legal, phase "
                f"{record['phase']}: {record['table']} seed {record['seed']} step {record['step']}"
            )
            if args.out:
                path = args.out / f"{engine}_{rank}.json"
                path.write_text(json.dumps({k: v for k, v in record.items() if k != "state"}))
                path.with_suffix(".state.json").write_text(record["state"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
