"""The arena: a duplicate-deal tournament that ranks agents (:func:`run_arena`).

Its command line, ``canasta arena``, is :mod:`canasta_cli.arena`.

The schedule (pairings, seat arrangements, duplicate deals, seeds), the outcome of a
hand and the worker processes are :mod:`canasta_arena.schedule`'s; this module ranks the
agents from the hands and writes the report.

Statistics (:mod:`canasta_arena.stats`). Hands won % with a 95% Wilson score interval
(ties count half); mean score difference per hand with a 95% Student-t interval; an Elo rating,
the Bradley-Terry maximum-likelihood fit of the head-to-head results (one
virtual draw per pair, independent of the order of the hands), which orders
the ranking; an OpenSkill Plackett-Luce rating updated hand by hand, deal by
deal (agents ranked by best score), shown as its ordinal ``mu - 3 sigma``
("skill"); and a head-to-head table (row agent's hand-win % against the column
agent over the hands they both played). ``--speed`` only measures each agent's
decisions per second.

Results are sorted by schedule position before any statistic, so ``--jobs`` never
changes a number. Outputs (in ``--out``):
``hands.csv`` and ``results.json`` (every hand), ``ratings.png``. A folder that is not
empty is refused (an earlier result is never overwritten) unless ``--overwrite`` is
given. Ctrl-C stops the tournament and still writes the hands finished so far, with
``"partial": true`` in results.json (exit code 130). A folder that is or holds a symbolic
link or a FIFO is refused before any hand is played, and every file is written by
:mod:`canasta_env.safe_write` (a new file renamed into place, never through a link).

``--trust-pickle``: a ``ppo:`` agent that is a Stable-Baselines3 ``.zip`` (other than
the shipped ``ppo:sb3-classic-2p``) is loaded only with it, since pickle loads it and
can run code it carries; it reaches every worker process (``.npz`` model files are data
and need no flag).

Ray (``--ray [ADDRESS]``, extra ``scale``): the same tasks, batched, as Ray tasks
on a local instance or a cluster (:mod:`canasta_arena.ray_arena`, docs/ray.md); the
results are the single-process run's, and hands lost with a worker are played again
(the report says how many).
"""

from __future__ import annotations

import csv
import io
import json
import math
import numbers
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations
from pathlib import Path

from agents.base import HandRecord
from agents.registry import display_name, make_agent, registered_factories
from canasta_arena.schedule import (
    ArenaInterrupted,
    deck_seed,
    make_pairings,
    make_tasks,
    play_tasks,
)
from canasta_arena.stats import mean_interval, wilson_interval
from canasta_env.engine.game import teams_of
from canasta_env.rules import Rules, check_player_count, make_rules
from canasta_env.safe_write import atomic_file, atomic_write, check_folder
from canasta_env.table import Table, agent_label

#: The most hands a pairing, and in all: every hand's record is held in memory to the end
#: (an absurd ``--hands`` is refused before the schedule is built, not after it filled it).
MAX_HANDS = 1_000_000
MAX_TOTAL_HANDS = 5_000_000


@dataclass
class AgentSummary:
    agent: str
    hands: int
    wins: float
    win_rate: float
    win_ci: tuple[float, float]
    score_diff: float
    score_diff_ci: tuple[float | None, float | None]
    elo: float
    rating: float  # OpenSkill ordinal mu - 3 sigma
    mu: float
    sigma: float
    rank: int = 0


def bradley_terry_elo(
    wins: dict[str, dict[str, float]],
    hands: dict[str, dict[str, int]],
    names: Sequence[str],
    prior_games: float = 1.0,
) -> dict[str, float]:
    """Elo ratings from the head-to-head results: the Bradley-Terry maximum likelihood.

    ``wins[a][b]`` is a's hand wins against b (ties count half) in ``hands[a][b]``
    hands. Strengths ``s`` maximise the likelihood of ``P(a beats b) = s_a / (s_a +
    s_b)`` (Hunter's MM iteration); ``prior_games`` drawn games are added to every
    pair that played, so an agent that won everything keeps a finite rating. Elo is
    ``1500 + 400 log10(s)`` with the geometric mean of ``s`` at 1: a 400 point gap
    is 10:1 odds. The result does not depend on the order of the hands.
    """
    strength = dict.fromkeys(names, 1.0)
    pairs = {a: [b for b in names if b != a and hands[a][b]] for a in names}
    for _ in range(10_000):
        updated = {}
        for a in names:
            if not pairs[a]:
                updated[a] = 1.0
                continue
            won = sum(wins[a][b] + prior_games / 2 for b in pairs[a])
            weight = sum(
                (hands[a][b] + prior_games) / (strength[a] + strength[b]) for b in pairs[a]
            )
            updated[a] = won / weight
        scale = math.exp(sum(math.log(v) for v in updated.values()) / len(updated))
        updated = {a: v / scale for a, v in updated.items()}
        change = max(abs(math.log(updated[a] / strength[a])) for a in names)
        strength = updated
        if change < 1e-12:
            break
    return {a: 1500.0 + 400.0 * math.log10(strength[a]) for a in names}


def rate_hands(results: Sequence[HandRecord], names: Sequence[str], num_players: int) -> dict:
    """OpenSkill Plackett-Luce ratings, one update per hand, agents ranked by best score.

    Hands are taken deal by deal (deal, pairing, arrangement), so every pairing
    weighs alike at the end of the sequence; the order is fixed, so the ratings are
    reproducible.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in names}
    for hand in sorted(results, key=lambda r: (r.deal, r.pairing, r.arrangement)):
        _winners, _diffs, best = hand.result.by_agent(hand.seats)
        present = [a for a in names if a in best]
        if len(present) < 2:
            continue
        order = sorted({best[a] for a in present}, reverse=True)
        ranks = [order.index(best[a]) for a in present]
        updated = model.rate([[ratings[a]] for a in present], ranks=ranks)
        for agent, team in zip(present, updated):
            ratings[agent] = team[0]
    return ratings


def summarize(results: Sequence[HandRecord], agents: Sequence[str], num_players: int) -> dict:
    """Ranking, head-to-head and ratings of a list of hands (in schedule order)."""
    names = list(dict.fromkeys(agents))
    wins = dict.fromkeys(names, 0.0)
    played = dict.fromkeys(names, 0)
    diffs: dict[str, list[float]] = {a: [] for a in names}
    h2h_wins = {a: dict.fromkeys(names, 0.0) for a in names}
    h2h_hands = {a: dict.fromkeys(names, 0) for a in names}
    for hand in results:
        winners, hand_diffs, best = hand.result.by_agent(hand.seats)
        present = [a for a in names if a in best]
        share = 1.0 / len(winners)
        for agent in present:
            played[agent] += 1
            diffs[agent].append(hand_diffs[agent])
            if agent in winners:
                wins[agent] += share
        for a, b in combinations(present, 2):
            h2h_hands[a][b] += 1
            h2h_hands[b][a] += 1
            if best[a] > best[b]:
                h2h_wins[a][b] += 1
            elif best[b] > best[a]:
                h2h_wins[b][a] += 1
            else:
                h2h_wins[a][b] += 0.5
                h2h_wins[b][a] += 0.5
    ratings = rate_hands(results, names, num_players)
    elo = bradley_terry_elo(h2h_wins, h2h_hands, names)
    summaries = []
    for agent in names:
        n = played[agent]
        mean, low, high = mean_interval(diffs[agent])
        rating = ratings[agent]
        summaries.append(
            AgentSummary(
                agent=agent,
                hands=n,
                wins=wins[agent],
                win_rate=wins[agent] / n if n else 0.0,
                win_ci=wilson_interval(wins[agent], n),
                score_diff=mean,
                score_diff_ci=(low, high),
                elo=elo[agent],
                rating=rating.ordinal(),
                mu=rating.mu,
                sigma=rating.sigma,
            )
        )
    summaries.sort(key=lambda s: (-round(s.elo, 6), -s.win_rate, s.agent))
    for rank, summary in enumerate(summaries, start=1):
        summary.rank = rank
    head_to_head = {
        a: {
            b: {
                "hands": h2h_hands[a][b],
                "win_rate": h2h_wins[a][b] / h2h_hands[a][b] if h2h_hands[a][b] else None,
                "win_ci": list(wilson_interval(h2h_wins[a][b], h2h_hands[a][b]))
                if h2h_hands[a][b]
                else None,
            }
            for b in names
            if b != a
        }
        for a in names
    }
    return {"ranking": [asdict(s) for s in summaries], "head_to_head": head_to_head}


def _rounded(value, digits: int = 6):
    """Round floats (recursively) so results.json is stable text."""
    if isinstance(value, float):
        return round(value, digits)
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rounded(v, digits) for v in value]
    return value


def format_report(summary: dict, config: dict) -> str:
    """The ranking table and the head-to-head table as text."""
    shown = {row["agent"]: display_name(row["agent"]) for row in summary["ranking"]}
    column = max([16, *(len(n) for n in shown.values())])  # long import paths: give a label
    lines = [
        f"canasta arena: {config['variant']}, {config['players']} players, "
        f"{config['hands_per_pairing']} hands per pairing, {config['hands_played']} in all "
        f"({config['pairing']}, "
        f"{'duplicate deals' if config['duplicate'] else 'independent deals'}), "
        f"seed {config['seed']}",
        "",
        f"{'rank':>4}  {'agent':<{column}} {'elo':>6} {'skill':>6} {'mu':>6} {'sigma':>5} "
        f"{'hands':>6} {'won %':>6} {'95% CI':>15} {'score diff':>10} {'95% CI':>17}",
    ]
    for row in summary["ranking"]:
        low, high = row["win_ci"]
        d_low, d_high = row["score_diff_ci"]
        diff_ci = "-" if d_low is None else f"[{d_low:+.0f}, {d_high:+.0f}]"
        lines.append(
            f"{row['rank']:>4}  {shown[row['agent']]:<{column}} {row['elo']:>6.0f} "
            f"{row['rating']:>6.2f} "
            f"{row['mu']:>6.2f} {row['sigma']:>5.2f} {row['hands']:>6} "
            f"{100 * row['win_rate']:>6.1f} "
            f"{f'[{100 * low:.1f}, {100 * high:.1f}]':>15} {row['score_diff']:>+10.1f} "
            f"{diff_ci:>17}"
        )
    names = [row["agent"] for row in summary["ranking"]]
    width = max(8, *(len(shown[n]) + 1 for n in names))
    lines += ["", "head to head: row agent's hand-win % against the column agent"]
    lines.append(" " * width + "".join(f"{shown[n]:>{width}}" for n in names))
    for a in names:
        cells = []
        for b in names:
            cell = summary["head_to_head"][a].get(b) if a != b else None
            rate = None if cell is None else cell["win_rate"]
            cells.append(f"{'-' if rate is None else f'{100 * rate:.1f}':>{width}}")
        lines.append(f"{shown[a]:<{width}}" + "".join(cells))
    pairs = []
    for i, a in enumerate(names):  # each pair once, the higher-ranked agent first
        for b in names[i + 1 :]:
            cell = summary["head_to_head"][a].get(b)
            if cell and cell["hands"]:  # an interrupted run may not have reached a pair
                low, high = cell["win_ci"]
                pairs.append(
                    f"  {shown[a]} vs {shown[b]}: {100 * cell['win_rate']:.2f}% of "
                    f"{cell['hands']} hands, 95% CI [{100 * low:.2f}, {100 * high:.2f}]"
                )
    if pairs:
        lines += [
            "",
            "pairs (hands won by the first agent, a tie counting half; Wilson interval):",
            *pairs,
        ]
    return "\n".join(lines)


# ---------------------------------------------------------------------- outputs


def write_outputs(
    out_dir: Path,
    results: Sequence[HandRecord],
    summary: dict,
    config: dict,
    plot: bool = True,
    partial: bool = False,
) -> None:
    """Write ``hands.csv``, ``results.json`` and (with ``plot``) ``ratings.png``.

    ``partial``: the tournament was interrupted; results.json says so (``"partial"``).
    A folder that is or holds a link or a FIFO is refused (``ValueError``) before anything
    is written (:func:`canasta_env.safe_write.check_folder`).
    """
    check_folder(out_dir, "arena folder")
    out_dir.mkdir(parents=True, exist_ok=True)
    num_players = config["players"]
    num_teams = teams_of(num_players)
    table = io.StringIO(newline="")
    writer = csv.writer(table)
    writer.writerow(
        ["pairing", "deal", "arrangement", "deck_seed"]
        + [f"seat_{s}" for s in range(num_players)]
        + [f"team_{t}_score" for t in range(num_teams)]
        + ["winner", "steps", "end_reason"]
    )
    for hand in results:
        writer.writerow(
            [hand.pairing, hand.deal, hand.arrangement, hand.seed]
            + hand.seats
            + hand.team_scores
            + ["+".join(hand.winners), hand.steps, hand.end_reason]
        )
    atomic_write(out_dir / "hands.csv", table.getvalue(), "arena hands")
    document = {
        "partial": partial,
        "config": config,
        "ranking": summary["ranking"],
        "head_to_head": summary["head_to_head"],
        "hands": [
            {
                "pairing": h.pairing,
                "deal": h.deal,
                "arrangement": h.arrangement,
                "seed": h.seed,
                "seats": h.seats,
                "team_scores": h.team_scores,
                "winner": h.winners[0] if len(h.winners) == 1 else None,
                "winners": h.winners,
                "steps": h.steps,
                "end_reason": h.end_reason,
            }
            for h in results
        ],
    }
    text = json.dumps(_rounded(document), indent=1, sort_keys=True) + "\n"
    atomic_write(out_dir / "results.json", text, "arena results")
    if plot:
        plot_ratings(out_dir / "ratings.png", summary, config)


def plot_ratings(path: Path, summary: dict, config: dict) -> None:
    """Elo ratings and hands won % (95% CI), one bar per agent."""
    # a bare Figure, not pyplot: the caller's backend (a notebook's) stays as it is
    from matplotlib.figure import Figure

    rows = summary["ranking"]
    names = [r["agent"] for r in rows][::-1]
    rows = rows[::-1]
    fig = Figure(figsize=(10, 1.2 + 0.6 * len(rows)))
    left, right = fig.subplots(1, 2)
    left.barh(names, [r["elo"] - 1500 for r in rows], left=1500, color="C0")
    left.axvline(1500, color="grey", linewidth=0.8)
    left.set_xlabel("Elo (Bradley-Terry, from the head-to-head results)")
    rates = [100 * r["win_rate"] for r in rows]
    errors = [
        [100 * (r["win_rate"] - r["win_ci"][0]) for r in rows],
        [100 * (r["win_ci"][1] - r["win_rate"]) for r in rows],
    ]
    right.barh(names, rates, xerr=errors, color="C1")
    right.axvline(50, color="grey", linewidth=0.8)
    right.set_xlim(0, 100)
    right.set_xlabel("hands won % (95% Wilson CI)")
    fig.suptitle(
        f"canasta arena: {config['variant']}, {config['players']} players, "
        f"{config['hands_played']} hands, seed {config['seed']}"
    )
    fig.tight_layout()
    with atomic_file(path, "chart") as handle:
        fig.savefig(handle, format="png", dpi=100, metadata={"Software": None})


# ---------------------------------------------------------------------- speed


class _Timed:
    """An agent whose time deciding is counted (``see_world`` of a search agent too)."""

    def __init__(self, agent):
        self.agent, self.seconds, self.name = agent, 0.0, agent_label(agent)
        if getattr(agent, "see_world", None) is not None:
            self.see_world, self.rng = self._see_world, agent.rng

    def _see_world(self, world) -> None:
        start = time.perf_counter()
        self.agent.see_world(world)
        self.seconds += time.perf_counter() - start

    def act(self, observation, mask) -> int:
        start = time.perf_counter()
        action = self.agent.act(observation, mask)
        self.seconds += time.perf_counter() - start
        return action


def measure_speed(
    name: str,
    variant: str = "classic",
    num_players: int = 4,
    hands: int = 20,
    seed: int = 0,
    trust_pickle: bool = False,
) -> dict:
    """Decisions per second of one agent kind playing every seat,
    over hands played on a :class:`~canasta_env.table.Table` (time inside ``see_world`` and
    ``act``)."""
    rules = make_rules(variant)
    check_player_count(rules, num_players)
    agents = [
        make_agent(name, seed=seed + seat, trust_pickle=trust_pickle) for seat in range(num_players)
    ]
    timed = [_Timed(agent) for agent in agents]
    decisions = 0
    for k in range(hands):
        table = Table(rules, num_players, seed=deck_seed(seed, k), backend=None)
        for seat, agent in enumerate(agents):
            agent.reset(seat, num_players, rules)
        decisions += table.play(timed)
    spent = sum(agent.seconds for agent in timed)
    return {
        "agent": name,
        "decisions": decisions,
        "seconds": spent,
        "decisions_per_second": decisions / spent if spent else float("inf"),
    }


# ---------------------------------------------------------------------- entry points


@dataclass
class ArenaResult:
    config: dict
    hands: list[HandRecord]
    summary: dict
    report: str
    partial: bool = False  # interrupted (Ctrl-C): the hands finished before it


def check_out_dir(out_dir: str | Path, overwrite: bool) -> None:
    """Refuse (``ValueError``) an output folder that exists and is not empty, unless
    ``overwrite``; a path that is not a folder; and a folder that is or holds a symbolic
    link or a FIFO (:func:`canasta_env.safe_write.check_folder`)."""
    path = Path(out_dir)
    if path.exists() and not path.is_dir():
        raise ValueError(f"--out {path}: exists and is not a folder")
    check_folder(path, "--out")
    if not overwrite and path.is_dir() and any(path.iterdir()):
        raise ValueError(
            f"--out {path}: the folder is not empty (an earlier result?); choose another "
            "folder, or pass --overwrite to replace its files"
        )


def run_arena(
    agents: Sequence[str],
    variant: str | Rules = "classic",
    num_players: int = 4,
    hands: int = 2000,
    seed: int = 0,
    jobs: int = 1,
    pairing: str = "round-robin",
    duplicate: bool = True,
    out_dir: str | Path | None = None,
    progress: bool = False,
    plot: bool = True,
    rules: dict | None = None,
    ray: str | None = None,
    ray_batch: int = 8,
    ray_retries: int = 3,
    trust_pickle: bool = False,
    overwrite: bool = True,
) -> ArenaResult:
    """Run a tournament (see the module doc); write the outputs when ``out_dir`` is given.

    ``variant``: a preset's name, or a checked :class:`~canasta_env.rules.Rules` object
    (``make_rules``; the command passes one). ``rules`` are field overrides on top of it
    (house rules, e.g. ``{"sequences": True}``). The rules are made and checked here once;
    that object is what every process plays, and the config names it by its preset and
    house rules (:meth:`~canasta_env.rules.Rules.house_rules`).
    ``ray``: play the hands as Ray tasks (:mod:`canasta_arena.ray_arena`), on a local
    instance (``"local"``) or the cluster at that address, ``ray_batch`` hands per
    task, a lost task submitted again up to ``ray_retries`` times.
    ``trust_pickle`` reaches :func:`make_agent` in every process (``--trust-pickle``).
    ``overwrite`` False refuses an ``out_dir`` that is not empty, before any hand
    (the command's default; ``--overwrite``).

    On Ctrl-C the hands finished so far are summarised and written (``"partial":
    true`` in results.json), then :class:`~canasta_arena.schedule.ArenaInterrupted` is
    raised with that partial :class:`ArenaResult` as its ``result``.
    """
    if isinstance(agents, str) or not all(isinstance(name, str) for name in agents):
        raise ValueError(f"agents must be a list of agent names, got {agents!r}")
    for what, value in (("hands", hands), ("seed", seed), ("jobs", jobs)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise ValueError(f"{what} must be an integer, got {value!r}")
    table_rules = make_rules(variant, **(rules or {}))  # checked once: every hand plays it
    check_player_count(table_rules, num_players)
    if not 1 <= hands <= MAX_HANDS:
        raise ValueError(f"hands must be 1..{MAX_HANDS:,} a pairing, got {hands}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    shown = [display_name(name) for name in dict.fromkeys(agents)]
    twice = sorted({name for name in shown if shown.count(name) > 1})
    if twice:  # the report's rows and pairings are by the name shown
        raise ValueError(f"two agents are shown as {', '.join(twice)}: give each its own label")
    for name in dict.fromkeys(agents):
        make_agent(name, trust_pickle=trust_pickle)  # fail early, with the names, on a typo
    pairings = make_pairings(list(agents), num_players, pairing)
    if hands * len(pairings) > MAX_TOTAL_HANDS:  # every hand's record is held to the end
        raise ValueError(
            f"{hands:,} hands for each of {len(pairings)} pairings is more than the "
            f"{MAX_TOTAL_HANDS:,} hands an arena holds: fewer hands or agents"
        )
    tasks = make_tasks(pairings, hands, seed, duplicate)
    if out_dir is not None:
        check_out_dir(out_dir, overwrite)
    ray_run = None
    interrupted = None
    try:
        if ray is None:
            results = play_tasks(
                tasks, table_rules, num_players, seed, jobs, progress, trust_pickle
            )
        else:
            from canasta_arena.ray_arena import play_tasks_ray

            names = (n for t in tasks for _a, _s, seats in t.hands for n in seats)
            results, ray_run = play_tasks_ray(
                tasks,
                table_rules,
                num_players,
                seed,
                address=ray,
                batch=ray_batch,
                retries=ray_retries,
                cpus=jobs if jobs > 1 else None,
                factories=registered_factories(names),
                progress=progress,
                trust_pickle=trust_pickle,
            )
    except ArenaInterrupted as error:  # Ctrl-C: keep what was played
        interrupted, results = error, error.results
    summary = summarize(results, agents, num_players)
    config = {
        "variant": table_rules.preset,
        "rules": table_rules.house_rules(),
        "players": num_players,
        "agents": list(agents),
        "hands_per_pairing": hands,
        "hands_played": len(results),
        "seed": seed,
        "pairing": pairing,
        "duplicate": duplicate,
        "pairings": [
            {"agents": list(p.agents), "arrangements": [list(a) for a in p.arrangements]}
            for p in pairings
        ],
    }
    report = format_report(summary, config)
    if ray_run is not None:
        config["ray"] = {"address": ray, "batch": ray_batch, "retried_hands": ray_run.retried_hands}
        report += "\n\n" + ray_run.report_line()
    partial = interrupted is not None
    if partial:
        report += f"\n\npartial: interrupted after {len(results)} hands"
    if out_dir is not None:
        write_outputs(Path(out_dir), results, summary, config, plot, partial=partial)
    result = ArenaResult(
        config=config, hands=results, summary=summary, report=report, partial=partial
    )
    if interrupted is not None:
        interrupted.result = result
        raise interrupted
    return result
