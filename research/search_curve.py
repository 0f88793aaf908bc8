"""How the search agent's strength grows with its budget: many budgets, one deal set.

    python -m research.search_curve run --players 2 --budgets 16,32,64,128,256,512 \\
        --chunks 16 --hands 32 --seed 7100 --jobs 16 --deadline 400 --out runs/curve_2p
    python -m research.search_curve report runs/curve_2p --chart docs/search_budget_2p.png

``run`` splits the deals into chunks: chunk ``k`` is ``--hands`` duplicate hands (every deal
played from both sides) dealt from ``--seed`` + ``k``, and every budget plays every chunk
against the network alone, each (budget, chunk) in its own ``python -m research.search_timing``
process (which times the search agent's decisions), ``--jobs`` at a time. The processes
start chunk by chunk, the largest budget first, so a run stopped by ``--deadline`` (or from
outside) leaves every budget about as many hands: at the deadline every running process gets
SIGINT and writes the hands it finished, marked partial. A chunk whose folder already holds
complete results is skipped, so a stopped run resumes with the same command.

``report`` reads the folders back (bounded JSON, ``canasta_env.jsonfile``) and compares the
budgets on the hands that every budget finished: the same deals from the same seats, so the
differences between budgets are not differences between deal sets. It prints a Markdown
table (hands won by the search agent, ties shared as in the arena, with the 95% Wilson
interval; CPU seconds a decision) and draws the curve.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from agents.search import MAX_ROLLOUTS
from canasta_arena.stats import mean_interval, wilson_interval
from canasta_env.jsonfile import read_json_file
from canasta_env.safe_write import atomic_file, atomic_write, check_folder, open_new

#: A chunk's folder: ``b{budget}_k{chunk}``.
CHUNK_FOLDER = re.compile(r"b(\d{1,4})_k(\d{1,4})")
#: Seconds a process has to write its partial results after SIGINT before it is killed.
GRACE_SECONDS = 60.0
#: A chunk's results.json is small (tens of hands); anything far larger is not ours.
MAX_RESULTS_BYTES = 16 * 2**20


def job_order(budgets: list[int], chunks: int) -> list[tuple[int, int]]:
    """(budget, chunk) in the order the processes start: chunk by chunk, largest budget first."""
    return [(budget, chunk) for chunk in range(chunks) for budget in sorted(budgets, reverse=True)]


def chunk_done(folder: Path) -> bool:
    """Whether ``folder`` holds the complete results of its chunk (not partial)."""
    try:
        results = read_json_file(folder / "results.json", "results", MAX_RESULTS_BYTES)
    except ValueError:
        return False
    return isinstance(results, dict) and results.get("partial") is False


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    check_folder(out, "curve folder")  # a link or a FIFO in it: refused before any write
    out.mkdir(parents=True, exist_ok=True)
    model = args.model or f"classic-{args.players}p"
    opponent = args.opponent or f"ppo:{model}"
    settings = f",{args.settings}" if args.settings else ""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    deadline = float("inf") if args.deadline is None else time.monotonic() + args.deadline
    pending = []
    for budget, chunk in job_order(args.budgets, args.chunks):
        folder = out / f"b{budget}_k{chunk}"
        if chunk_done(folder):
            continue
        if folder.exists():  # a partial or broken chunk from a stopped run: play it again
            for name in ("results.json", "timings.json", "hands.csv", "ratings.png"):
                (folder / name).unlink(missing_ok=True)
            try:
                folder.rmdir()
            except OSError:
                raise SystemExit(f"{folder}: holds files of its own; move it away") from None
        pending.append((budget, chunk, folder))
    print(f"{len(pending)} chunks to play, {args.jobs} at a time", flush=True)
    # Subprocesses, not canasta_arena.workers.Workers (the arena's and training's runner): a chunk
    # is timed, so it gets a fresh interpreter (a long-lived worker would carry imports,
    # loaded models and warm caches from one chunk's timings into the next), its own log
    # file, and is stopped by SIGINT so it writes its partial hands (Workers ignore SIGINT
    # and are killed on Ctrl-C, which would lose the chunk).
    running: dict[tuple[int, int], subprocess.Popen] = {}
    while pending or running:
        while pending and len(running) < args.jobs and time.monotonic() < deadline:
            budget, chunk, folder = pending.pop(0)
            command = [
                sys.executable, "-m", "research.search_timing", "--variant", args.variant,
                "--players", str(args.players), "--hands", str(args.hands),
                "--seed", str(args.seed + chunk), "--out", str(folder),
                "--agents", f"search:{model}@{budget}{settings}", opponent,
            ]  # fmt: skip
            with open_new(out / f"b{budget}_k{chunk}.log") as log:
                running[budget, chunk] = subprocess.Popen(
                    command, stdout=log, stderr=subprocess.STDOUT, env=env,
                    # SIGINT as the default, also where this process was started ignoring it
                    # (nohup, a background job): research.search_timing then writes partial results
                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                )  # fmt: skip
        if time.monotonic() >= deadline:
            break
        for key, process in list(running.items()):
            if process.poll() is not None:
                del running[key]
                print(f"budget {key[0]} chunk {key[1]}: exit {process.returncode}", flush=True)
        time.sleep(0.5)
    for process in running.values():
        process.send_signal(signal.SIGINT)
    for (budget, chunk), process in running.items():
        try:
            process.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
        print(f"budget {budget} chunk {chunk}: stopped at the deadline", flush=True)
    left = len(pending)
    print(f"done; {left} chunks not started" if left else "done", flush=True)
    return 0


# ---------------------------------------------------------------------- reading it back


@dataclass
class Budget:
    budget: int
    won: dict[tuple, float]  # (deal seed, arrangement) -> the search agent's share of the hand
    decisions: int
    cpu_seconds: float  # summed over decisions
    cpu_p99_max: float  # the largest of the chunks' 99th percentiles


def read_curve(folder: str | Path) -> dict[int, Budget]:
    """Every chunk under ``folder`` by budget; ValueError naming a file that is not results."""
    budgets: dict[int, Budget] = {}
    if not Path(folder).is_dir():
        raise ValueError(f"{folder}: not a folder")
    for path in sorted(Path(folder).iterdir()):
        match = CHUNK_FOLDER.fullmatch(path.name)
        if not match or not path.is_dir():
            continue
        budget = int(match.group(1))
        results = read_json_file(path / "results.json", "results", MAX_RESULTS_BYTES)
        timings = read_json_file(path / "timings.json", "timings", MAX_RESULTS_BYTES)
        entry = budgets.setdefault(budget, Budget(budget, {}, 0, 0.0, 0.0))
        try:
            searcher = next(a for a in results["config"]["agents"] if a.startswith("search:"))
            for hand in results["hands"]:
                winners = hand["winners"]
                if not (isinstance(winners, list) and all(isinstance(w, str) for w in winners)):
                    raise TypeError("winners is not a list of names")  # "in" on a str: substring
                share = 1.0 / len(winners) if searcher in winners else 0.0
                entry.won[int(hand["seed"]), int(hand["arrangement"])] = share
            cpu = timings["cpu"]
            if cpu["decisions"]:
                entry.decisions += int(cpu["decisions"])
                entry.cpu_seconds += float(cpu["mean"]) * int(cpu["decisions"])
                entry.cpu_p99_max = max(entry.cpu_p99_max, float(cpu["p99"]))
        except (KeyError, TypeError, ValueError, StopIteration):
            raise ValueError(
                f"{path}: not the results of python -m research.search_timing"
            ) from None
    if not budgets:
        raise ValueError(f"{folder}: no chunk folders (b<budget>_k<chunk>) in it")
    return budgets


def curve_rows(budgets: dict[int, Budget]) -> list[dict]:
    """One row a budget, on the hands every budget finished, with the difference from the
    smallest budget hand by hand (mean and 95% t interval, in hands won)."""
    common = sorted(set.intersection(*(set(b.won) for b in budgets.values())))
    smallest = budgets[min(budgets)]
    rows = []
    for budget in sorted(budgets):
        entry = budgets[budget]
        wins = sum(entry.won[key] for key in common)
        low, high = wilson_interval(wins, len(common))
        gain = mean_interval([entry.won[key] - smallest.won[key] for key in common])
        rows.append({
            "budget": budget,
            "hands": len(common),
            "hands_played": len(entry.won),
            "win_rate": wins / len(common) if common else 0.0,
            "win_ci": (low, high),
            "gain": gain,
            "cpu_mean": entry.cpu_seconds / entry.decisions if entry.decisions else 0.0,
            "cpu_p99_max": entry.cpu_p99_max,
        })  # fmt: skip
    return rows


def render_table(rows: list[dict]) -> str:
    lines = [
        f"| rollouts a decision | search wins (95% interval) | hands | over {rows[0]['budget']}"
        " rollouts, same hands (points, 95%) | CPU s / decision: mean, largest chunk p99 |",
        "|---|---|---|---|---|",
    ]
    for index, row in enumerate(rows):
        low, high = row["win_ci"]
        gain, gain_low, gain_high = row["gain"]
        over = ""
        if index and gain_low is not None:
            over = f"{100 * gain:+.1f} +- {50 * (gain_high - gain_low):.1f}"
        lines.append(
            f"| {row['budget']} | {100 * row['win_rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
            f" | {row['hands']} | {over} | {row['cpu_mean']:.4f}, {row['cpu_p99_max']:.3f} |"
        )
    return "\n".join(lines)


def plot_curve(path: str | Path, rows: list[dict], title: str) -> None:
    from matplotlib.figure import Figure  # a bare Figure: pyplot's global state is left alone

    fig = Figure(figsize=(6.0, 4.0))
    axes = fig.subplots()
    x = [row["budget"] for row in rows]
    y = [100 * row["win_rate"] for row in rows]
    below = [100 * (row["win_rate"] - row["win_ci"][0]) for row in rows]
    above = [100 * (row["win_ci"][1] - row["win_rate"]) for row in rows]
    axes.errorbar(x, y, yerr=[below, above], marker="o", capsize=4)
    axes.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    axes.set_xscale("log", base=2)
    axes.set_xticks(x, [str(b) for b in x])
    axes.set_xlabel("rollouts a decision")
    axes.set_ylabel("hands won against the network alone (%)")
    axes.set_title(title, fontsize="medium")
    fig.tight_layout()
    with atomic_file(path, "--chart") as handle:
        fig.savefig(handle, format="png", dpi=100, metadata={"Software": None})


def report(args: argparse.Namespace) -> int:
    rows = curve_rows(read_curve(args.folder))
    if not rows[0]["hands"]:
        print(f"{args.folder}: no hand was finished by every budget", file=sys.stderr)
        return 1
    print(render_table(rows))
    if args.chart:
        plot_curve(args.chart, rows, args.title or f"search budget, {rows[0]['hands']} hands")
        print(f"\nwrote {args.chart}")
    if args.json:
        atomic_write(args.json, json.dumps(rows, indent=1) + "\n", "--json")
    return 0


def budgets_argument(text: str) -> list[int]:
    try:
        budgets = sorted({int(part) for part in text.split(",")})
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of budgets like 16,128") from None
    if not budgets or budgets[0] < 1 or budgets[-1] > MAX_ROLLOUTS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: every budget must be 1..{MAX_ROLLOUTS} rollouts"
        )
    return budgets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.search_curve",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("run", help="play the chunks of every budget")
    play.add_argument("--variant", default="classic")
    play.add_argument("--players", type=int, default=2)
    play.add_argument("--model", help="the network searched (default classic-<players>p)")
    play.add_argument("--opponent", help="default: ppo:<model>, the network alone")
    play.add_argument("--settings", help="search settings after the budget, e.g. depth=8")
    play.add_argument("--budgets", type=budgets_argument, default=[16, 32, 64, 128, 256, 512])
    play.add_argument("--chunks", type=int, default=16)
    play.add_argument("--hands", type=int, default=32, help="hands a chunk (every deal twice)")
    play.add_argument("--seed", type=int, default=7100, help="chunk k deals from seed + k")
    play.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    play.add_argument("--deadline", type=float, help="seconds; then stop, keeping finished hands")
    play.add_argument("--out", required=True)
    read = commands.add_parser("report", help="the table and the chart of a run's folder")
    read.add_argument("folder")
    read.add_argument("--chart", help="write the curve here (.png)")
    read.add_argument("--title")
    read.add_argument("--json", help="write the rows here")
    args = parser.parse_args(argv)
    if args.command == "run":
        if args.chunks < 1 or args.hands < 1 or args.jobs < 1:
            parser.error("--chunks, --hands and --jobs must be at least 1")
        try:
            return run(args)
        except ValueError as error:  # a folder that holds a link or a FIFO: one line
            print(error, file=sys.stderr)
            return 2
    try:
        return report(args)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
