"""``canasta arena``: a duplicate-deal tournament that ranks agents.

Usage::

    canasta arena --variant classic --players 4 --agents random greedy expert \\
        --hands 2000 --seed 0 [--jobs 2] [--out arena_out] \\
        [--pairing round-robin|given] [--no-duplicate] [--no-progress] [--no-plot]
        [--ray [ADDRESS] [--ray-batch 8] [--ray-retries 3]]
    canasta arena --speed --agents random greedy expert
    canasta arena --agents mypkg.bots:MyAgent expert   # an outside agent (docs/agents.md)

Schedule. ``round-robin`` plays every pair of agents. In team games (4 and 6
players) each team is one agent kind; in solo games the seats are filled by
rotating the pair (3 players: ``A B A``). ``given`` plays the agents exactly
as listed, one per seat. Every *arrangement* of the seats is played: all the
distinct rotations of the seat pattern and of the pattern with the agents
swapped, so every agent sits in every seat. With duplicate deals (the default)
each deal is replayed once per arrangement, so luck of the cards cancels;
``--hands`` is per pairing, rounded up to a whole number of deals. Without
duplicate deals every hand has its own deal.

Outcome of a hand. A team's score is its hand total (the score sheet's
``total``). An agent's *best score* is the highest score among the teams it
plays in; the agents with the highest best score share the win (1, or 1/k for
a k-way tie, e.g. an agent on both teams). An agent's *score difference* is the
mean score of its teams minus the mean score of the other agents' teams.

Statistics (:mod:`agents.stats`). Hands won % with a 95% Wilson score interval (ties count half);
mean score difference per hand with a 95% Student-t interval; an Elo rating,
the Bradley-Terry maximum-likelihood fit of the head-to-head results (one
virtual draw per pair, independent of the order of the hands), which orders
the ranking; an OpenSkill Plackett-Luce rating updated hand by hand, deal by
deal (agents ranked by best score), shown as its ordinal ``mu - 3 sigma``
("skill"); and a head-to-head table (row agent's hand-win % against the column
agent over the hands they both played). ``--speed`` only measures each agent's
decisions per second.

Reproducibility. Deck seeds come from ``--seed`` and the deal index; each agent
is re-seeded before every hand from ``--seed``, the pairing, the deal, the
arrangement and the seat; results are sorted by schedule position before any
statistic, so ``--jobs`` never changes a number. Outputs (in ``--out``):
``hands.csv`` and ``results.json`` (every hand), ``ratings.png``.

Worker processes (``--jobs`` above 1) are *spawned*: fresh interpreters that
inherit no state of the parent, whatever it has imported or run (a forked child
of a process that had run torch's OpenMP thread pool, as loading a ``ppo:``
agent does, blocks forever in its first parallel torch call). Each worker builds
its own agents by name; names added with ``register_agent`` in the parent are
handed over with the pool's arguments, so their factories must be picklable
(module-level functions or classes, not lambdas). An import path
(``mypkg.bots:MyAgent``) is not handed over: a worker starts in the parent's
directory with its ``sys.path`` and imports the module itself. A worker keeps torch to one
thread (``OMP_NUM_THREADS=1`` before torch is imported, ``torch.set_num_threads(1)``
after): the processes already use the cores, and on a busy machine OpenMP threads
waiting on each other made loading a model take seconds instead of milliseconds.

Ray (``--ray [ADDRESS]``, extra ``scale``): the same tasks, batched, as Ray tasks
on a local instance or a cluster (:mod:`agents.ray_arena`, docs/ray.md); the
results are the single-process run's, and hands lost with a worker are played again
(the report says how many).
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import multiprocessing
import os
import pickle
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path

from agents.base import choose_action, play_hands, refused_action
from agents.registry import (
    available_agents,
    make_agent,
    register_agent,
    registered_factories,
    reseed,
)
from agents.stats import mean_interval, wilson_interval
from canasta_env.engine.game import IllegalActionError, team_of_seat, teams_of
from canasta_env.rules import (
    PRESETS,
    add_rule_option,
    check_player_count,
    make_rules,
    parse_rule_overrides,
)

PAIRINGS = ("round-robin", "given")

# ---------------------------------------------------------------------- schedule


def seat_arrangements(pattern: Sequence[str], swap: bool) -> list[tuple[str, ...]]:
    """Distinct rotations of ``pattern`` (and of it with its two agents swapped)."""
    patterns = [tuple(pattern)]
    if swap:
        first, second = sorted(set(pattern), key=pattern.index)[:2]
        patterns.append(tuple(second if a == first else first for a in pattern))
    arrangements: list[tuple[str, ...]] = []
    n = len(pattern)
    for base in patterns:
        for shift in range(n):
            rotated = base[n - shift :] + base[: n - shift]
            if rotated not in arrangements:
                arrangements.append(rotated)
    return arrangements


def pair_pattern(first: str, second: str, num_players: int) -> list[str]:
    """One agent per team (team games), or the pair rotated over the seats (solo)."""
    return [first if team_of_seat(num_players, s) % 2 == 0 else second for s in range(num_players)]


@dataclass(frozen=True)
class Pairing:
    """One match of the tournament: its agents and seat arrangements."""

    index: int
    agents: tuple[str, ...]
    arrangements: tuple[tuple[str, ...], ...]


def make_pairings(agents: Sequence[str], num_players: int, pairing: str) -> list[Pairing]:
    if pairing == "given":
        if len(agents) != num_players:
            raise ValueError(
                f"--pairing given needs one agent per seat: {num_players}, got {len(agents)}"
            )
        return [Pairing(0, tuple(dict.fromkeys(agents)), tuple(seat_arrangements(agents, False)))]
    if pairing != "round-robin":
        raise ValueError(f"pairing must be one of {PAIRINGS}, got {pairing!r}")
    if len(set(agents)) != len(agents) or len(agents) < 2:
        raise ValueError("round-robin needs at least two distinct agent names")
    result = []
    for index, (first, second) in enumerate(combinations(agents, 2)):
        pattern = pair_pattern(first, second, num_players)
        result.append(Pairing(index, (first, second), tuple(seat_arrangements(pattern, True))))
    return result


@dataclass(frozen=True)
class Task:
    """One deal of one pairing: its hands are the arrangements (or one, without duplicate)."""

    pairing: int
    deal: int
    hands: tuple[tuple[int, int, tuple[str, ...]], ...]  # (arrangement, deck seed, seats)


def deck_seed(seed: int, index: int) -> int:
    """The deck seed of deal ``index`` of an arena seeded with ``seed``."""
    return (seed * 1_000_003 + index) % (2**63)


def agent_seed(seed: int, pairing: int, deal: int, arrangement: int, seat: int) -> int:
    """A seed for one agent in one hand, from the arena seed and the hand's position."""
    value = seed
    for part in (pairing, deal, arrangement, seat):
        value = (value * 6364136223846793005 + part * 1442695040888963407 + 1) % (2**63)
    return value


def make_tasks(pairings: Sequence[Pairing], hands: int, seed: int, duplicate: bool) -> list[Task]:
    tasks = []
    for pairing in pairings:
        count = len(pairing.arrangements)
        deals = math.ceil(hands / count) if duplicate else hands
        for deal in range(deals):
            if duplicate:
                arrangements = enumerate(pairing.arrangements)
                items = tuple((a, deck_seed(seed, deal), seats) for a, seats in arrangements)
            else:
                a = deal % count
                items = ((a, deck_seed(seed, deal), pairing.arrangements[a]),)
            tasks.append(Task(pairing.index, deal, items))
    return tasks


# ---------------------------------------------------------------------- playing


@dataclass
class HandResult:
    """One hand of the arena."""

    pairing: int
    deal: int
    arrangement: int
    deck_seed: int
    seats: list[str]
    team_scores: list[int]
    winners: list[str]  # agents sharing the win
    steps: int
    end_reason: str | None
    score_diff: dict[str, float] = field(default_factory=dict)

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.pairing, self.deal, self.arrangement)


def hand_outcome(
    seats: Sequence[str], team_scores: Sequence[int], num_players: int
) -> tuple[list[str], dict[str, float], dict[str, int]]:
    """(winners, score difference per agent, best score per agent) of one hand."""
    teams_of: dict[str, set[int]] = {}
    for seat, agent in enumerate(seats):
        teams_of.setdefault(agent, set()).add(team_of_seat(num_players, seat))
    best = {a: max(team_scores[t] for t in teams) for a, teams in teams_of.items()}
    top = max(best.values())
    winners = sorted(a for a, b in best.items() if b == top)
    diffs = {}
    for agent, teams in teams_of.items():
        own = sum(team_scores[t] for t in teams) / len(teams)
        others = {t for a, ts in teams_of.items() if a != agent for t in ts}
        if others:
            diffs[agent] = own - sum(team_scores[t] for t in others) / len(others)
        else:
            diffs[agent] = 0.0
    return winners, diffs, best


_WORKER: dict = {}


def _worker_init(
    variant: str,
    num_players: int,
    seed: int,
    rules: dict | None = None,
    factories: bytes | None = None,
) -> None:
    """Set up the playing state of this process.

    ``factories`` (worker processes only) are the parent's ``register_agent``
    names, pickled. A worker keeps OpenMP (torch) to one thread: through
    ``OMP_NUM_THREADS`` before anything imports torch, and through
    ``torch.set_num_threads`` if something already has. A failure here is raised
    by the worker's first task: a pool restarts a worker whose initializer
    raises, forever.
    """
    _WORKER.clear()
    _WORKER.update(
        variant=variant,
        num_players=num_players,
        seed=seed,
        agents={},
        rules=rules or {},
        worker=factories is not None,
        error=None,
    )
    if factories is None:
        return
    os.environ["OMP_NUM_THREADS"] = "1"
    _limit_torch_threads()
    try:
        for name, factory in pickle.loads(factories).items():
            register_agent(name, factory)
    except Exception as error:  # any error: _play_task raises it
        _WORKER["error"] = error


def _limit_torch_threads() -> None:
    """One torch thread, if an agent has imported torch (never imports it)."""
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != 1:
        torch.set_num_threads(1)


def _agent_for(name: str, seat: int):
    cache = _WORKER["agents"]
    if (name, seat) not in cache:
        cache[(name, seat)] = make_agent(name)
        if _WORKER["worker"]:
            _limit_torch_threads()
    return cache[(name, seat)]


def _play_task(task: Task) -> list[HandResult]:
    if _WORKER.get("error") is not None:
        raise RuntimeError("the arena worker could not be set up") from _WORKER["error"]
    variant, num_players, seed = _WORKER["variant"], _WORKER["num_players"], _WORKER["seed"]
    results = []
    for arrangement, deal_seed, seats in task.hands:
        agents = []
        for seat, name in enumerate(seats):
            agent = _agent_for(name, seat)
            reseed(agent, agent_seed(seed, task.pairing, task.deal, arrangement, seat))
            agents.append(agent)
        record = play_hands(agents, 1, variant, deck_seeds=[deal_seed], **_WORKER["rules"])[0]
        winners, diffs, _best = hand_outcome(seats, record.team_scores, num_players)
        results.append(
            HandResult(
                pairing=task.pairing,
                deal=task.deal,
                arrangement=arrangement,
                deck_seed=deal_seed,
                seats=list(seats),
                team_scores=list(record.team_scores),
                winners=winners,
                steps=record.steps,
                end_reason=record.end_reason,
                score_diff=diffs,
            )
        )
    return results


def play_tasks(
    tasks: Sequence[Task],
    variant: str,
    num_players: int,
    seed: int,
    jobs: int = 1,
    progress: bool = True,
    rules: dict | None = None,
) -> list[HandResult]:
    """Play every task (in ``jobs`` spawned processes); results in schedule order.

    Raises ``ValueError`` when ``jobs`` is above 1 and an agent registered in this
    process has a factory that cannot be pickled for the workers.
    """
    from tqdm import tqdm

    factories = b""
    if jobs > 1:
        names = (n for t in tasks for _a, _s, seats in t.hands for n in seats)
        registered = registered_factories(names)
        try:
            factories = pickle.dumps(registered)
        except (pickle.PicklingError, AttributeError, TypeError) as error:
            raise ValueError(
                f"with jobs above 1 the factories of registered agents ({', '.join(registered)}) "
                f"must be picklable, e.g. module-level functions, not lambdas: {error}"
            ) from error
    total = sum(len(t.hands) for t in tasks)
    bar = tqdm(total=total, desc="arena", unit="hand", file=sys.stderr, disable=not progress)
    results: list[HandResult] = []
    try:
        if jobs <= 1:
            _worker_init(variant, num_players, seed, rules)
            for task in tasks:
                hands = _play_task(task)
                results += hands
                bar.update(len(hands))
        else:
            initargs = (variant, num_players, seed, rules, factories)
            context = multiprocessing.get_context("spawn")  # no fork: see the module doc
            with context.Pool(jobs, initializer=_worker_init, initargs=initargs) as pool:
                chunk = max(1, min(16, len(tasks) // (jobs * 8)))
                for hands in pool.imap_unordered(_play_task, tasks, chunksize=chunk):
                    results += hands
                    bar.update(len(hands))
    finally:
        bar.close()
    results.sort(key=lambda r: r.key)
    return results


# ---------------------------------------------------------------------- summary


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


def rate_hands(results: Sequence[HandResult], names: Sequence[str], num_players: int) -> dict:
    """OpenSkill Plackett-Luce ratings, one update per hand, agents ranked by best score.

    Hands are taken deal by deal (deal, pairing, arrangement), so every pairing
    weighs alike at the end of the sequence; the order is fixed, so the ratings are
    reproducible.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {a: model.rating(name=a) for a in names}
    for hand in sorted(results, key=lambda r: (r.deal, r.pairing, r.arrangement)):
        _winners, _diffs, best = hand_outcome(hand.seats, hand.team_scores, num_players)
        present = [a for a in names if a in best]
        if len(present) < 2:
            continue
        order = sorted({best[a] for a in present}, reverse=True)
        ranks = [order.index(best[a]) for a in present]
        updated = model.rate([[ratings[a]] for a in present], ranks=ranks)
        for agent, team in zip(present, updated):
            ratings[agent] = team[0]
    return ratings


def summarize(results: Sequence[HandResult], agents: Sequence[str], num_players: int) -> dict:
    """Ranking, head-to-head and ratings of a list of hands (in schedule order)."""
    names = list(dict.fromkeys(agents))
    wins = dict.fromkeys(names, 0.0)
    played = dict.fromkeys(names, 0)
    diffs: dict[str, list[float]] = {a: [] for a in names}
    h2h_wins = {a: dict.fromkeys(names, 0.0) for a in names}
    h2h_hands = {a: dict.fromkeys(names, 0) for a in names}
    for hand in results:
        _winners, hand_diffs, best = hand_outcome(hand.seats, hand.team_scores, num_players)
        present = [a for a in names if a in best]
        share = 1.0 / len(hand.winners)
        for agent in present:
            played[agent] += 1
            diffs[agent].append(hand_diffs[agent])
            if agent in hand.winners:
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
    column = max([16, *(len(row["agent"]) for row in summary["ranking"])])  # long import paths
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
            f"{row['rank']:>4}  {row['agent']:<{column}} {row['elo']:>6.0f} {row['rating']:>6.2f} "
            f"{row['mu']:>6.2f} {row['sigma']:>5.2f} {row['hands']:>6} "
            f"{100 * row['win_rate']:>6.1f} "
            f"{f'[{100 * low:.1f}, {100 * high:.1f}]':>15} {row['score_diff']:>+10.1f} "
            f"{diff_ci:>17}"
        )
    names = [row["agent"] for row in summary["ranking"]]
    width = max(8, *(len(n) + 1 for n in names))
    lines += ["", "head to head: row agent's hand-win % against the column agent"]
    lines.append(" " * width + "".join(f"{n:>{width}}" for n in names))
    for a in names:
        cells = []
        for b in names:
            cell = summary["head_to_head"][a].get(b) if a != b else None
            rate = None if cell is None else cell["win_rate"]
            cells.append(f"{'-' if rate is None else f'{100 * rate:.1f}':>{width}}")
        lines.append(f"{a:<{width}}" + "".join(cells))
    pairs = []
    for i, a in enumerate(names):  # each pair once, the higher-ranked agent first
        for b in names[i + 1 :]:
            cell = summary["head_to_head"][a].get(b)
            if cell:
                low, high = cell["win_ci"]
                pairs.append(
                    f"  {a} vs {b}: {100 * cell['win_rate']:.2f}% of {cell['hands']} hands, "
                    f"95% CI [{100 * low:.2f}, {100 * high:.2f}]"
                )
    if pairs:
        lines += ["", "pairs (hands won by the first agent, Wilson interval):", *pairs]
    return "\n".join(lines)


# ---------------------------------------------------------------------- outputs


def write_outputs(
    out_dir: Path,
    results: Sequence[HandResult],
    summary: dict,
    config: dict,
    plot: bool = True,
) -> None:
    """Write ``hands.csv``, ``results.json`` and (with ``plot``) ``ratings.png``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    num_players = config["players"]
    num_teams = teams_of(num_players)
    with open(out_dir / "hands.csv", "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["pairing", "deal", "arrangement", "deck_seed"]
            + [f"seat_{s}" for s in range(num_players)]
            + [f"team_{t}_score" for t in range(num_teams)]
            + ["winner", "steps", "end_reason"]
        )
        for hand in results:
            writer.writerow(
                [hand.pairing, hand.deal, hand.arrangement, hand.deck_seed]
                + hand.seats
                + hand.team_scores
                + ["+".join(hand.winners), hand.steps, hand.end_reason]
            )
    document = {
        "config": config,
        "ranking": summary["ranking"],
        "head_to_head": summary["head_to_head"],
        "hands": [
            {
                "pairing": h.pairing,
                "deal": h.deal,
                "arrangement": h.arrangement,
                "seed": h.deck_seed,
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
    with open(out_dir / "results.json", "w", encoding="utf-8") as handle:
        json.dump(_rounded(document), handle, indent=1, sort_keys=True)
        handle.write("\n")
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
    fig.savefig(path, dpi=100, metadata={"Software": None})


# ---------------------------------------------------------------------- speed


def measure_speed(
    name: str, variant: str = "classic", num_players: int = 4, hands: int = 20, seed: int = 0
) -> dict:
    """Decisions per second of one agent kind playing every seat (time inside ``act``)."""
    import canasta_env

    env = canasta_env.raw_env(variant=variant, num_players=num_players)
    agents = [make_agent(name, seed=seed + seat) for seat in range(num_players)]
    decisions = 0
    spent = 0.0
    for k in range(hands):
        env.reset(seed=deck_seed(seed, k))
        for seat, agent in enumerate(agents):
            agent.reset(seat, num_players, env.rules)
        for agent_name in env.agent_iter():
            observation, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            seat = env.agent_name_mapping[agent_name]
            start = time.perf_counter()
            action = choose_action(
                agents[seat], env.game, observation["observation"], observation["action_mask"]
            )
            spent += time.perf_counter() - start
            decisions += 1
            try:
                env.step(action)
            except IllegalActionError as error:
                raise refused_action(agents[seat], seat, error) from error
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
    hands: list[HandResult]
    summary: dict
    report: str


def run_arena(
    agents: Sequence[str],
    variant: str = "classic",
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
) -> ArenaResult:
    """Run a tournament (see the module doc); write the outputs when ``out_dir`` is given.

    ``rules`` are field overrides of the preset (house rules, e.g. ``{"sequences": True}``).
    ``ray``: play the hands as Ray tasks (:mod:`agents.ray_arena`), on a local
    instance (``"local"``) or the cluster at that address, ``ray_batch`` hands per
    task, a lost task submitted again up to ``ray_retries`` times.
    """
    overrides = dict(rules or {})
    rules = make_rules(variant, **overrides)
    check_player_count(rules, num_players)
    if hands < 1:
        raise ValueError(f"hands must be at least 1, got {hands}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    for name in dict.fromkeys(agents):
        make_agent(name)  # fail early, with the list of names, on a typo
    pairings = make_pairings(list(agents), num_players, pairing)
    tasks = make_tasks(pairings, hands, seed, duplicate)
    ray_run = None
    if ray is None:
        results = play_tasks(tasks, variant, num_players, seed, jobs, progress, overrides)
    else:
        from agents.ray_arena import play_tasks_ray

        names = (n for t in tasks for _a, _s, seats in t.hands for n in seats)
        results, ray_run = play_tasks_ray(
            tasks,
            variant,
            num_players,
            seed,
            address=ray,
            batch=ray_batch,
            retries=ray_retries,
            cpus=jobs if jobs > 1 else None,
            factories=registered_factories(names),
            rules=overrides,
            progress=progress,
        )
    summary = summarize(results, agents, num_players)
    config = {
        "variant": variant,
        "rules": overrides,
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
    if out_dir is not None:
        write_outputs(Path(out_dir), results, summary, config, plot)
    return ArenaResult(config=config, hands=results, summary=summary, report=report)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="canasta arena",
        description="A duplicate-deal tournament that ranks agents (see agents/arena.py).",
    )
    parser.add_argument("--variant", default="classic", choices=sorted(PRESETS))
    parser.add_argument("--players", type=int, default=4)
    add_rule_option(parser)
    parser.add_argument(
        "--agents",
        nargs="+",
        default=["random", "greedy", "expert"],
        help=f"agent names: {', '.join(available_agents())}",
    )
    parser.add_argument("--hands", type=int, default=2000, help="hands per pairing")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the hands as Ray tasks: a local instance (no address; --jobs N caps it at "
        "N CPUs) or the cluster at ADDRESS (docs/ray.md)",
    )
    parser.add_argument("--ray-batch", type=int, default=8, help="hands per Ray task (8)")
    parser.add_argument(
        "--ray-retries", type=int, default=3, help="times a task lost with its worker is resent"
    )
    parser.add_argument("--out", default="arena_out", help="output folder")
    parser.add_argument("--pairing", default="round-robin", choices=PAIRINGS)
    parser.add_argument("--no-duplicate", action="store_true", help="a fresh deal for every hand")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--no-plot", action="store_true", help="do not write ratings.png")
    parser.add_argument(
        "--speed",
        action="store_true",
        help="only measure each agent's decisions per second (time inside act) and exit",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.speed:
        return _print_speeds(args)
    started = time.perf_counter()
    try:
        overrides = parse_rule_overrides(args.rule)
        result = run_arena(
            args.agents,
            variant=args.variant,
            num_players=args.players,
            hands=args.hands,
            seed=args.seed,
            jobs=args.jobs,
            pairing=args.pairing,
            duplicate=not args.no_duplicate,
            out_dir=args.out,
            progress=not args.no_progress,
            plot=not args.no_plot,
            rules=overrides,
            ray=args.ray,
            ray_batch=args.ray_batch,
            ray_retries=args.ray_retries,
        )
    except ValueError as error:
        print(f"canasta arena: {error}", file=sys.stderr)
        return 2
    print(result.report)
    elapsed = time.perf_counter() - started
    print(f"\nwrote {args.out}/hands.csv, results.json" + ("" if args.no_plot else ", ratings.png"))
    print(f"{len(result.hands)} hands in {elapsed:.1f} s", file=sys.stderr)
    return 0


def _print_speeds(args) -> int:
    hands = min(args.hands, 50)
    print(f"decisions per second ({args.variant}, {args.players} players, {hands} hands each)")
    for name in dict.fromkeys(args.agents):
        try:
            speed = measure_speed(name, args.variant, args.players, hands, args.seed)
        except ValueError as error:
            print(f"canasta arena: {error}", file=sys.stderr)
            return 2
        print(
            f"  {name:<16} {speed['decisions_per_second']:>10.0f} /s "
            f"({speed['decisions']} decisions)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
