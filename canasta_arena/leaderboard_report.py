"""The leaderboard's page, chart and README block, written from its document (the JSON
file of :func:`canasta_arena.leaderboard.run_leaderboard`; its command line, ``canasta
leaderboard``, is :mod:`canasta_cli.leaderboard`).

Outputs: the page (``docs/leaderboard.md``: every table's ratings, head-to-head and
pairings, with the exploiter and stranger columns where those were attached), the JSON
file with every figure beside it (``docs/leaderboard.json``) and a chart
(``docs/leaderboard.png``), written together by :func:`write_leaderboard`. The README's
leaderboard block is written from the JSON (:func:`write_readme_block`); it carries the
strength tables only when the JSON is a full run
(:func:`~canasta_arena.leaderboard.is_full_run`).
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Sequence
from pathlib import Path

from canasta_arena.leaderboard import FULL_DEALS, TABLES, is_full_run
from canasta_env.jsonfile import read_json_file
from canasta_env.safe_write import atomic_file, atomic_write, check_outputs

#: The tables whose pairings the README shows (the rest are in docs/leaderboard.md).
README_TABLES = ("classic-2p", "classic-4p")

#: The README block lies between these two lines.
README_BEGIN = (
    "<!-- leaderboard: written by `canasta leaderboard --readme` from docs/leaderboard.json;"
    " do not edit -->"
)
README_END = "<!-- leaderboard end -->"


# ---------------------------------------------------------------------- the page


def percent(rate: float, interval: Sequence[float]) -> str:
    return f"{100 * rate:.1f}% [{100 * interval[0]:.1f}, {100 * interval[1]:.1f}]"


def difference(mean: float, interval: Sequence[float | None]) -> str:
    if interval[0] is None:
        return f"{mean:+.0f}"
    return f"{mean:+.0f} [{interval[0]:+.0f}, {interval[1]:+.0f}]"


def steps_label(steps: int) -> str:
    """A count of learner steps as the published tables write it: ``20.0 M``, ``30,740``."""
    return f"{steps / 1e6:.1f} M" if steps >= 100_000 else f"{steps:,}"


def _pairs_table(entry: dict) -> list[str]:
    lines = [
        "| pairing | hands | hands won by the first (95% CI) "
        "| score difference per hand (95% CI) |",
        "|---|---:|---|---|",
    ]
    for pair in entry["pairs"]:
        first, second = pair["agents"]
        lines.append(
            f"| {first} vs {second} | {pair['hands']:,} | "
            f"{percent(pair['win_rate'], pair['win_ci'])} | "
            f"{difference(pair['score_diff'], pair['score_diff_ci'])} |"
        )
    return lines


def _ranking_line(entry: dict) -> str:
    return " > ".join(f"{r['agent']} {r['elo']:.0f}" for r in entry["ratings"])


def _stranger_cell(found: dict | None) -> str:
    if found is None:
        return "-"
    name = found["opponent"].rpartition(":")[2] or found["opponent"]
    return f"{percent(found['win_rate'], found['win_ci'])} ({name})"


def _exploited(found: dict | None) -> str:
    if found is None:
        return "-"
    budget = steps_label(found["exploiter_steps"])
    return f"{percent(found['win_rate'], found['win_ci'])} ({budget} steps)"


def _table_section(
    entry: dict, exploitability: dict | None = None, strangers: dict | None = None
) -> list[str]:
    order = [r["agent"] for r in entry["ratings"]]
    exploits = (exploitability or {}).get(entry["table"])
    worst = (strangers or {}).get(entry["table"])
    header = (
        "| rank | agent | Elo | ordinal (mu - 3 sigma) | mu | sigma | hands | hands won (95% CI) |"
    )
    rule = "|---:|---|---:|---:|---:|---:|---:|---|"
    if exploits is not None:
        header += " an exploiter's hands won against it (95% CI) |"
        rule += "---|"
    if worst is not None:
        header += " hands won against its worst stranger (95% CI) |"
        rule += "---|"
    lines = [
        f"## {entry['title']}",
        "",
        f"`{entry['table']}`: {entry['deals_per_pairing']:,} deals per pairing, each played "
        f"in {entry['arrangements']} seat arrangements ({entry['hands_per_pairing']:,} hands "
        f"per pairing, {entry['hands_played']:,} in all).",
        "",
        header,
        rule,
    ]
    for r in entry["ratings"]:
        line = (
            f"| {r['rank']} | {r['agent']} | {r['elo']:.0f} | {r['ordinal']:.2f} | "
            f"{r['mu']:.2f} | {r['sigma']:.2f} | {r['hands']:,} | "
            f"{percent(r['win_rate'], r['win_ci'])} |"
        )
        if exploits is not None:
            line += f" {_exploited(exploits.get(r['agent']))} |"
        if worst is not None:
            line += f" {_stranger_cell(worst.get(r['agent']))} |"
        lines.append(line)
    lines += [
        "",
        "Hands won by the row agent against the column agent (95% CI):",
        "",
        "| | " + " | ".join(order) + " |",
        "|---|" + "---|" * len(order),
    ]
    for a in order:
        cells = [
            "-"
            if a == b
            else percent(
                entry["head_to_head"][a][b]["win_rate"], entry["head_to_head"][a][b]["win_ci"]
            )
            for b in order
        ]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", *_pairs_table(entry), ""]
    return lines


def _duration_sentence(document: dict) -> str:
    """`` It took 2 h 5 min (--jobs 2).`` where the document recorded its wall time."""
    seconds = document.get("seconds")
    if not isinstance(seconds, (int, float)):
        return ""  # written before the time was recorded
    minutes = round(seconds / 60)
    took = f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{max(minutes, 1)} min"
    return f" It took {took} of wall time (`--jobs {document.get('jobs', 1)}`) where it was run."


def render_markdown(document: dict, chart: str | None = None) -> str:
    """The leaderboard page; ``chart`` is the chart's path relative to the page."""
    lines = [
        "# Leaderboard",
        "",
        f"Written by `{document['command']}` on {document['date']}: "
        f"{document['deals_per_pairing']:,} duplicate deals per pairing, seed "
        f"{document['seed']}. Do not edit: run the command again (the figures are in the "
        "JSON file beside this page). A full run is `canasta leaderboard` "
        f"({FULL_DEALS:,} deals per pairing, every table, every agent); "
        + ("this is one." if is_full_run(document) else "this is not one.")
        + _left_out_sentence(document)
        + _duration_sentence(document)
        + _updates_sentence(document),
        "",
        "Every built-in bot and every shipped agent that plays a table meets every other "
        "there, on duplicate deals: each deal of a pairing is played once in every seat "
        "arrangement of the two agents, so the luck of the cards cancels. At 2 players those "
        "are the two seatings; at 4 and 6 players each agent is one team (its partners are "
        "copies of it), once on each team; at 3 players, where each player scores alone, "
        "the pair sits as A B A and as B A B, each rotated over the three seats (6 hands a "
        "deal), so each agent plays every deal from every seat, alone against two and two "
        "against one. An agent wins a hand when its best seat outscores the other agent's "
        "(ties count half). Hands won carry a 95% Wilson interval, score differences a 95% "
        "Student-t interval. Each table is ordered by a Bradley-Terry Elo, the fit of its "
        "head-to-head results, as `canasta arena` orders its report; the OpenSkill "
        "Plackett-Luce ratings (mu, sigma and the ordinal mu - 3 sigma, which the chart "
        "shows) are updated hand by hand, deal by deal, so they also weigh how an agent "
        "fares against the weakest one and can order two close agents the other way. "
        "Ratings compare agents within a table, not across tables.",
        "",
    ]
    if chart:
        lines += [f"![OpenSkill ordinal of each agent at each table]({chart})", ""]
    lines += [
        "| table | deals per pairing | hands | ranking by Elo |",
        "|---|---:|---:|---|",
    ]
    for entry in document["tables"]:
        lines.append(
            f"| [{entry['table']}](#{_anchor(entry['title'])}) | "
            f"{entry['deals_per_pairing']:,} | {entry['hands_played']:,} | "
            f"{_ranking_line(entry)} |"
        )
    lines.append("")
    exploitability = document.get("exploitability")
    if exploitability:
        lines += [
            "Exploitability: where an agent of a table was exploited (`canasta exploit`, "
            "[exploitability.md](exploitability.md)), its table's exploiter column gives the "
            "hands that exploiter won against it on duplicate hands: a best response trained "
            "against the frozen agent for the steps shown, so a lower bound on how much a "
            "worst-case opponent wins, not the exploitability itself; a `-` was not measured.",
            "",
        ]
    strangers = document.get("strangers")
    if strangers:
        lines += [
            "Strangers: where an agent of a table met the gauntlet (bots written from the "
            "public docs alone, which no agent trained against: [generalisation.md]"
            "(generalisation.md)), its table's stranger column gives its hands "
            "won against the worst of them, on duplicate hands; a `-` was not measured.",
            "",
        ]
    for entry in document["tables"]:
        lines += _table_section(entry, exploitability, strangers)
    return "\n".join(lines)


def _updates_sentence(document: dict) -> str:
    """`` Played again since: classic-2p on 2026-11-27 (`canasta leaderboard ...`).``"""
    updates = document.get("updates") or []
    if not updates:
        return ""
    said = "; ".join(f"{', '.join(u['tables'])} on {u['date']} (`{u['command']}`)" for u in updates)
    return (
        f" Played again since, on the same deals, after their agents changed: {said}; "
        "the other tables are as first written."
    )


def _left_out_sentence(document: dict) -> str:
    without = document.get("without_option")
    if not without:
        return ""
    return f" Left out of the default agents (`--without`): {', '.join(without)}."


def _anchor(heading: str) -> str:
    """The GitHub anchor of a heading."""
    kept = "".join(c for c in heading.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def plot_leaderboard(path: Path, document: dict) -> None:
    """A heatmap: the OpenSkill ordinal of each agent (rows) at each table (columns)."""
    # a bare Figure draws on the Agg canvas; pyplot's global state is left alone
    import numpy as np
    from matplotlib.figure import Figure

    keys = [entry["table"] for entry in document["tables"]]
    names = list(dict.fromkeys(r["agent"] for e in document["tables"] for r in e["ratings"]))
    grid = np.full((len(names), len(keys)), np.nan)
    for column, entry in enumerate(document["tables"]):
        for r in entry["ratings"]:
            grid[names.index(r["agent"]), column] = r["ordinal"]
    fig = Figure(figsize=(max(6.0, 2.0 + 0.75 * len(keys)), 2.0 + 0.5 * len(names)))
    axes = fig.subplots()
    image = axes.imshow(np.ma.masked_invalid(grid), cmap="viridis", aspect="auto")
    axes.set_xticks(range(len(keys)), keys, rotation=45, ha="right")
    axes.set_yticks(range(len(names)), names)
    middle = np.nanmean(grid) if np.isfinite(grid).any() else 0.0
    for (row, column), value in np.ndenumerate(grid):
        if math.isfinite(value):
            color = "black" if value > middle else "white"
            axes.text(column, row, f"{value:.1f}", ha="center", va="center", color=color)
    fig.colorbar(image, ax=axes, label="ordinal (mu - 3 sigma)")
    axes.set_title(
        "canasta leaderboard: OpenSkill ordinal of each agent at each table\n"
        f"{document['deals_per_pairing']:,} duplicate deals per pairing, seed {document['seed']}, "
        f"{document['date']}",
        fontsize="medium",
    )
    fig.tight_layout()
    with atomic_file(path, "chart") as handle:
        fig.savefig(handle, format="png", dpi=100, metadata={"Software": None})


def output_paths(
    out: str | Path, json_path: str | Path | None = None, plot: bool = True
) -> dict[str, Path]:
    """The files a leaderboard writes, by what names them: the page ``out``, the JSON file
    (default: beside the page) and, with ``plot``, the chart beside the page."""
    out = Path(out)
    paths = {
        "the page --out": out,
        "the JSON file": out.with_suffix(".json") if json_path is None else Path(json_path),
    }
    if plot:
        paths["the chart beside --out"] = out.with_suffix(".png")
    return paths


def check_output_paths(
    out: str | Path,
    json_path: str | Path | None = None,
    plot: bool = True,
    inputs: Sequence[str | Path] = (),
) -> None:
    """``ValueError`` (one line) unless the page, the JSON file and the chart are three
    files, none of them one of ``inputs`` (``--out board.json`` would write the page over
    the figures), none a link (:func:`canasta_env.safe_write.check_outputs`)."""
    check_outputs(output_paths(out, json_path, plot), inputs)


def write_leaderboard(
    document: dict, out: str | Path, json_path: str | Path | None = None, plot: bool = True
) -> list[Path]:
    """Write the page ``out``, the JSON file (default: beside it) and, with ``plot``, the
    chart beside the page, each a new file renamed into place
    (:func:`canasta_env.safe_write.atomic_write`) after the paths are checked
    (:func:`check_output_paths`); return the paths written."""
    paths = output_paths(out, json_path, plot)
    check_output_paths(out, json_path, plot)
    out, json_path = paths["the page --out"], paths["the JSON file"]
    chart = paths.get("the chart beside --out")
    # the page rendered before anything is written: a board it cannot render changes nothing
    page = render_markdown(document, chart.name if chart else None) + "\n"
    text = json.dumps(document, indent=1, sort_keys=True) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    json_path.parent.mkdir(parents=True, exist_ok=True)
    if chart is not None:
        plot_leaderboard(chart, document)  # (a new file, renamed into place once drawn)
    atomic_write(json_path, text, "the JSON file")
    atomic_write(out, page, "--out")
    return list(paths.values())


# ---------------------------------------------------------------------- the README's block


def readme_block(document: dict, page: str = "docs/leaderboard.md") -> str:
    """The README's leaderboard subsection, from a leaderboard's ``document``: a pointer
    to the page, and for a full run (:func:`~canasta_arena.leaderboard.is_full_run`) the
    ranking of every table and the pairings of :data:`README_TABLES`."""
    figures = f"`{Path(page).with_suffix('.json').as_posix()}`"
    about = (
        f"[{page}]({page}) ranks every bot and shipped agent on every table (the "
        f"{len(TABLES)} tables: each preset at each player count, and spanish with the S-19 "
        "runs at 4 players), on duplicate deals, with hands won and 95% intervals for each "
        f"pairing and OpenSkill ratings, a chart, and every figure in {figures}. "
        "One command writes the page, the chart and the JSON file: `canasta leaderboard "
        f"--jobs 2 --out {page}` ({FULL_DEALS:,} deals per pairing by default; `--tables`, "
        "`--agents`, `--deals` for less, into `leaderboard/` unless `--out` says where; the "
        "search agents, which take seconds a hand, play only when named with `--agents`), "
        f"and `canasta leaderboard --out {page} --readme` writes this block from the JSON "
        "file."
    )
    lines = ["### Leaderboard", "", _wrap(about), ""]
    if not is_full_run(document):
        smaller = (
            f"The page now holds a smaller run ({document['deals_per_pairing']:,} deals per "
            f"pairing, {document['date']}); this block shows figures once the page holds a "
            "full run."
        )
        return "\n".join([*lines, _wrap(smaller)])
    source = (
        f"From `{document['command']}` on {document['date']} "
        f"({document['deals_per_pairing']:,} deals per pairing, seed {document['seed']})."
        + _left_out_sentence(document)
        + _updates_sentence(document)
    )
    lines += [
        _wrap(source),
        "",
        "Each table's agents, best first:",
        "",
        "| table | ranking by Elo (the ordinals are on the page) |",
        "|---|---|",
    ]
    for entry in document["tables"]:
        lines.append(f"| {entry['table']} | {_ranking_line(entry)} |")
    for entry in document["tables"]:
        if entry["table"] in README_TABLES:
            lines += ["", f"{entry['title'].capitalize()}:", "", *_pairs_table(entry)]
    return "\n".join(lines)


def _wrap(paragraph: str) -> str:
    """A paragraph wrapped at the width of the README's prose (a link is one word: never split)."""
    return textwrap.fill(paragraph, width=92, break_long_words=False, break_on_hyphens=False)


def replace_readme_block(text: str, block: str) -> str:
    """``text`` with what lies between :data:`README_BEGIN` and :data:`README_END` replaced
    by ``block``; ``ValueError`` when the markers are not there, once each, in order."""
    begin, end = text.find(README_BEGIN), text.find(README_END)
    if text.count(README_BEGIN) != 1 or text.count(README_END) != 1 or end < begin:
        raise ValueError(
            f"the README needs the lines {README_BEGIN!r} and {README_END!r}, once each, "
            "in that order"
        )
    return text[: begin + len(README_BEGIN)] + "\n" + block + "\n" + text[end:]


def write_readme_block(readme: str | Path, json_path: str | Path) -> bool:
    """Rewrite the leaderboard block of ``readme`` from the JSON file ``json_path``;
    whether the README changed."""
    check_outputs({"--readme": readme}, [json_path])
    document = read_json_file(json_path, "leaderboard")
    path = Path(readme)
    text = path.read_text(encoding="utf-8")
    updated = replace_readme_block(text, readme_block(document))
    if updated != text:
        atomic_write(path, updated, "--readme")
    return updated != text
