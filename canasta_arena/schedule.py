"""The arena's schedule and the playing of its hands, in this process or in spawned
worker processes (``canasta arena --jobs N``; :mod:`canasta_arena.ray_arena` plays the same
tasks on Ray). Ranking, reports and the command are in :mod:`canasta_arena.arena`.

Schedule. ``round-robin`` plays every pair of agents. In team games (4 and 6
players) each team is one agent kind; in solo games the seats are filled by
rotating the pair (3 players: ``A B A``). ``given`` plays the agents exactly
as listed, one per seat. Every *arrangement* of the seats is played: all the
distinct rotations of the seat pattern and of the pattern with the agents
swapped, so every agent sits in every seat. With duplicate deals (the default)
each deal is replayed once per arrangement, so luck of the cards cancels;
``--hands`` is per pairing, rounded up to a whole number of deals. Without
duplicate deals every hand has its own deal.

Outcome of a hand: :meth:`canasta_env.engine.outcome.Result.by_agent`, the one
convention. A team's score is its hand total (the score sheet's ``total``). An agent's
*best score* is the highest score among the teams it plays in; the agents with the
highest best score share the win (1, or 1/k for a k-way tie, e.g. an agent on both
teams). An agent's *score difference* is the mean score of its teams minus the mean
score of the other agents' teams.

Reproducibility. Deck seeds come from ``--seed`` and the deal index; each agent
is re-seeded before every hand from ``--seed``, the pairing, the deal, the
arrangement and the seat; results are sorted by schedule position before any
statistic, so ``--jobs`` never changes a number.

Worker processes (``--jobs`` above 1) come from :class:`canasta_arena.workers.Workers`, the
runner training uses too: *spawned* processes, fresh interpreters that inherit no state
of the parent, whatever it has imported or run (a forked child of a process that had
run torch's OpenMP thread pool, as loading a ``ppo:`` agent does, blocks forever in its
first parallel torch call), each with one OpenMP/BLAS thread (the processes already use
the cores). The parent streams the deals to them a few at a time as they free up
(:func:`arena_worker` sets one up). The rules travel as one checked
:class:`~canasta_env.rules.Rules`, built once a run by the caller and played as they are
in every hand. Each worker builds its own agents by name; names
added with ``register_agent`` in the parent are handed over with the workers' setup
arguments, so their factories must be picklable (module-level functions or classes, not
lambdas). An import path (``mypkg.bots:MyAgent``) is not handed over: a worker starts in
the parent's directory with its ``sys.path`` and imports the module itself. The
command's ``--trust-pickle`` travels with the setup arguments as well. An error in a
worker is raised again here. Workers ignore Ctrl-C: the parent catches it, ends the
workers at once and raises :class:`ArenaInterrupted` with the hands finished so far
(every hand played in this process; from the workers, those of the deals they had
returned).
"""

from __future__ import annotations

import math
import os
import pickle
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from agents.base import HandRecord, play_hands
from agents.registry import make_agent, register_agent, registered_factories, reseed
from canasta_arena.progress import progress_bar
from canasta_arena.workers import Workers, limit_torch_threads
from canasta_env.engine.game import team_of_seat
from canasta_env.rules import Rules

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


class ArenaInterrupted(KeyboardInterrupt):
    """A KeyboardInterrupt (Ctrl-C) while the arena played: ``results`` are the hands
    finished before it, in schedule order."""

    def __init__(self, results: list[HandRecord]):
        super().__init__(f"interrupted after {len(results)} hands")
        self.results = results


_WORKER: dict = {}


def init_worker(
    rules: Rules,
    num_players: int,
    seed: int,
    factories: bytes | None = None,
    trust_pickle: bool = False,
) -> None:
    """Set up the playing state of this process.

    ``rules`` are the arena's, checked once by the caller and played as they are in every
    hand. ``factories`` (worker processes only) are the parent's ``register_agent``
    names, pickled. ``trust_pickle`` is handed to :func:`make_agent` (the
    command's ``--trust-pickle``). A worker keeps OpenMP (torch) to one thread: through
    ``OMP_NUM_THREADS`` before anything imports torch, and through
    ``torch.set_num_threads`` if something already has. A failure to register the
    factories is raised by the first task played (:func:`play_task_hands`).
    """
    _WORKER.clear()
    _WORKER.update(
        rules=rules,
        num_players=num_players,
        seed=seed,
        agents={},
        worker=factories is not None,
        error=None,
        trust_pickle=trust_pickle,
    )
    if factories is None:
        return
    os.environ["OMP_NUM_THREADS"] = "1"
    limit_torch_threads()
    try:
        for name, factory in pickle.loads(factories).items():
            register_agent(name, factory)
    except Exception as error:  # any error: play_task raises it
        _WORKER["error"] = error


def init_worker_once(
    rules: Rules,
    num_players: int,
    seed: int,
    factories: bytes,
    trust_pickle: bool = False,
) -> None:
    """:func:`init_worker`, unless this process is set up for the same arena already
    (same rules, table, seed, registered names and ``trust_pickle``): a Ray worker keeps
    its agents from one batch of hands to the next."""
    key = (rules, num_players, seed, factories, trust_pickle)
    if _WORKER.get("key") != key:
        init_worker(rules, num_players, seed, factories, trust_pickle)
        _WORKER["key"] = key


def arena_worker(*setup_args) -> Callable[[Task], list[HandRecord]]:
    """The setup of an arena's worker process (:class:`canasta_arena.workers.Workers`): this
    process set up by :func:`init_worker` with ``setup_args``; then each task is played
    by :func:`play_task`."""
    init_worker(*setup_args)
    return play_task


def _agent_for(name: str, seat: int):
    cache = _WORKER["agents"]
    if (name, seat) not in cache:
        cache[(name, seat)] = make_agent(name, trust_pickle=_WORKER.get("trust_pickle", False))
        if _WORKER["worker"]:
            limit_torch_threads()
    return cache[(name, seat)]


def play_task(task: Task) -> list[HandRecord]:
    """The hands of ``task`` (one deal of one pairing), played with this process's agents."""
    return list(play_task_hands(task))


def play_task_hands(task: Task) -> Iterator[HandRecord]:
    """:func:`play_task` hand by hand: each hand as soon as it is played."""
    if _WORKER.get("error") is not None:
        raise RuntimeError("the arena worker could not be set up") from _WORKER["error"]
    rules, seed = _WORKER["rules"], _WORKER["seed"]
    for arrangement, deal_seed, seats in task.hands:
        agents = []
        for seat, name in enumerate(seats):
            agent = _agent_for(name, seat)
            reseed(agent, agent_seed(seed, task.pairing, task.deal, arrangement, seat))
            agents.append(agent)
        record = play_hands(agents, 1, rules, deck_seeds=[deal_seed])[0]
        # the seats as the arena names them (labels included), and the hand's place
        yield replace(
            record,
            seats=list(seats),
            pairing=task.pairing,
            deal=task.deal,
            arrangement=arrangement,
        )


def play_tasks(
    tasks: Sequence[Task],
    rules: Rules,
    num_players: int,
    seed: int,
    jobs: int = 1,
    progress: bool = True,
    trust_pickle: bool = False,
) -> list[HandRecord]:
    """Play every task (in ``jobs`` spawned processes); results in schedule order.

    ``rules`` (checked: :func:`~canasta_env.rules.make_rules`) are sent to every process
    as they are, and every hand is played by them. ``trust_pickle`` reaches
    :func:`make_agent` in every process. Raises ``ValueError`` when ``jobs`` is above 1
    and an agent registered in this process has a factory that cannot be pickled for the
    workers; :class:`ArenaInterrupted` (a ``KeyboardInterrupt``) with the hands finished
    so far on Ctrl-C.
    """
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
    bar = progress_bar(total, "arena", "hand", enabled=progress)  # lines in a log
    results: list[HandRecord] = []
    try:
        if jobs <= 1:
            init_worker(rules, num_players, seed, trust_pickle=trust_pickle)
            for task in tasks:
                for hand in play_task_hands(task):  # one by one: Ctrl-C loses none
                    results.append(hand)
                    bar.update(1)
        else:
            setup_args = (rules, num_players, seed, factories, trust_pickle)
            chunk = max(1, min(16, len(tasks) // (jobs * 8)))
            batches = -(-len(tasks) // chunk)
            if batches:  # no worker for an empty schedule
                with Workers(min(jobs, batches), arena_worker, setup_args) as workers:
                    for hands in workers.stream(tasks, chunk):
                        results += hands
                        bar.update(len(hands))
    except KeyboardInterrupt as error:  # Ctrl-C: the hands finished so far are kept
        results.sort(key=lambda r: r.key)
        raise ArenaInterrupted(results) from error
    finally:
        bar.close()
    results.sort(key=lambda r: r.key)
    return results


# ---------------------------------------------------------------------- summary
