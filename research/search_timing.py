"""The arena in this process with every search agent's decision timed (wall and CPU).

    python -m research.search_timing --agents search:classic-2p expert --hands 200 --out runs/t

Writes ``OUT/results.json`` (the arena's) and ``OUT/timings.json`` (count, mean and
percentiles of the search decisions, the load average before and after). Interrupted
(Ctrl-C), it still writes the hands and the times so far, marked partial, and returns 130.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from agents.search import recording_times, timing_summary
from canasta_env.safe_write import atomic_write


def main(argv: list[str] | None = None) -> int:
    """The arena in this process (one job), with every search agent's decision timed.
    Interrupted (Ctrl-C, SIGINT), it still writes the hands and the times so far, marked
    partial, and returns 130."""
    from canasta_arena.arena import run_arena
    from canasta_arena.schedule import ArenaInterrupted

    parser = argparse.ArgumentParser(
        prog="python -m research.search_timing", description=main.__doc__
    )
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--agents", nargs="+", required=True)
    parser.add_argument("--hands", type=int, default=200, help="hands per pairing")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out", required=True, help="output folder (results.json, timings.json)")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    with recording_times() as (wall, cpu):
        started = time.time()
        try:
            result = run_arena(
                args.agents,
                variant=args.variant,
                num_players=args.players,
                hands=args.hands,
                seed=args.seed,
                jobs=1,
                out_dir=args.out,
                progress=args.progress,
                plot=False,
                overwrite=False,
            )
        except ArenaInterrupted as interrupted:  # results.json is written, marked partial
            result = interrupted.result
        elapsed = time.time() - started
    timing = {"partial": result.partial, "wall": timing_summary(wall), "cpu": timing_summary(cpu)}
    timing["run_seconds"] = round(elapsed, 1)
    timing["load_average_1_5_15min"] = {
        "start": [round(x, 2) for x in load_before],
        "end": [round(x, 2) for x in os.getloadavg()],
    }
    atomic_write(Path(args.out, "timings.json"), json.dumps(timing, indent=1) + "\n", "timings")
    print(result.report)
    print("\nsearch decisions:", json.dumps(timing))
    return 130 if result.partial else 0


if __name__ == "__main__":
    raise SystemExit(main())
