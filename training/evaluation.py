"""Evaluation of the learner: greedy play on duplicate deals against each bot and the newest
snapshot, the evaluation's line in ``train.log`` and TensorBoard, the progress bar's text, and
``curve.png`` (win rate against each opponent over learner steps).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from canasta_arena.stats import wilson_interval
from canasta_env.safe_write import append_text, atomic_file


def evaluate(
    pool, config: dict, layers: list, snapshot: str | None, opponents: list | None = None
) -> dict:
    """Duplicate deals against each bot and the ``snapshot`` (its key; none: bots only) for
    the policy ``layers``, greedy play; a row per table and opponent. ``opponents``
    (controllers of :mod:`training.rollout`) replaces the bots of ``eval_opponents``."""
    c = config
    deals = int(c["eval_deals"])
    if opponents is None:
        opponents = [("bot", name) for name in c["eval_opponents"]]
    opponents = list(opponents)
    if snapshot is not None:
        opponents.append(("snapshot", snapshot))
    rows = {}
    for table in [tuple(t) for t in c["tables"]]:
        for opponent in opponents:
            seeds = [10_000_000 + i for i in range(deals)]
            shares = np.array_split(np.asarray(seeds), pool.size)
            parts = pool.map(
                "evaluate",
                [
                    {
                        "layers": layers,
                        "table": table,
                        "opponent": opponent,
                        "deal_seeds": [int(s) for s in share],
                    }
                    for share in shares
                ],
            )
            outcomes = [o for part in parts for _, o, _, _ in part]
            diffs = [d for part in parts for _, _, d, _ in part]
            wins = sum(share for part in parts for *_, share in part)  # a tie: 1/k
            low, high = wilson_interval(wins, len(outcomes))
            name = "snapshot" if opponent[0] == "snapshot" else opponent[1]
            rows[f"{table[0]}-{table[1]}p/{name}"] = {
                "win_rate": wins / len(outcomes),
                "ci95": [low, high],
                "hands": len(outcomes),
                "score_diff": float(np.mean(diffs)),
            }
    return rows


def log_evaluation(run, entry: dict, seconds: float, writer) -> None:
    """``entry`` (iteration, steps, rows) appended to ``history.jsonl``, one line in
    ``train.log``, each win rate in TensorBoard (when ``writer``)."""
    rows = entry["eval"]
    append_text(run.path / "history.jsonl", json.dumps(entry) + "\n")
    text = ", ".join(
        f"{key} {row['win_rate']:.3f} [{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}]"
        for key, row in rows.items()
    )
    run.log(f"[eval] step {entry['steps']}: {text} ({seconds:.0f}s)")
    if writer:
        for key, row in rows.items():
            writer.add_scalar(f"eval/{key}", row["win_rate"], entry["steps"])


def postfix(rate: float, latest: dict) -> str:
    parts = [f"{rate:,.0f} steps/s"]
    for key, row in latest.items():
        parts.append(f"{key.split('/')[-1]}@{key.split('/')[0]} {row['win_rate']:.2f}")
    return " ".join(parts)


def plot_curve(history: list[dict], path: Path) -> None:
    """Win rate (with its 95% interval) against each opponent over learner steps, a panel
    per table."""
    try:
        # a bare Figure, not pyplot: the caller's backend (a notebook's) stays as it is
        from matplotlib.figure import Figure
    except ImportError:
        return
    keys = sorted({key for entry in history for key in entry["eval"]})
    tables = sorted({key.split("/")[0] for key in keys})
    fig = Figure(figsize=(6 * len(tables), 4.2))
    axes = fig.subplots(1, len(tables), squeeze=False)
    for ax, table in zip(axes[0], tables):
        for key in [k for k in keys if k.startswith(table + "/")]:
            points = [(e["steps"], e["eval"][key]) for e in history if key in e["eval"]]
            xs = [p[0] for p in points]
            ys = [p[1]["win_rate"] for p in points]
            lo = [p[1]["ci95"][0] for p in points]
            hi = [p[1]["ci95"][1] for p in points]
            (line,) = ax.plot(xs, ys, marker=".", label=f"vs {key.split('/')[1]}")
            ax.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_title(table)
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0][0].set_ylabel("hands won (duplicate deals, 95% CI)")
    fig.tight_layout()
    with atomic_file(path, "chart") as handle:
        fig.savefig(handle, format="png", dpi=100)
