"""A search agent above the trained policy: ``search:classic-2p``, ``search:classic-4p@256``.

At each decision with a real choice, :class:`SearchAgent` asks the network for its move
and its runners-up, and plays each of them forward to the end of the hand in worlds
consistent with what its seat knows, the network playing every seat; it plays the
candidate whose rollouts earn the most of what training rewards, and the network's own
move unless another one is better by a clear margin. docs/search.md has the design, its
reasons and the measured strength.

Names (the ``search`` loader of ``pyproject.toml``'s ``canasta_env.agents`` group):

===================================  =====================================================
``search:classic-2p``                the shipped ``ppo:classic-2p`` network, the default
                                     budget (:data:`DEFAULT_ROLLOUTS` rollouts a decision;
                                     ``search:classic-4p``: 512, :data:`DEFAULT_BUDGETS`)
``search:classic-4p@256``            the shipped classic 4-player network, 256 rollouts
``search:runs/x/model.npz@32``       any ``.npz`` model file (or run folder), 32 rollouts
``search:classic-2p@64,depth=none``  64 rollouts, each played to the hand's end
===================================  =====================================================

The budget after ``@`` is the most rollouts one decision may play, an integer in
1..:data:`MAX_ROLLOUTS`; after it, ``,KEY=VALUE`` items change other settings of
:class:`SearchConfig` (the keys of :data:`NAME_SETTINGS`; ``none`` for no depth or no
time cap). In Python, ``SearchAgent(model, SearchConfig(...))`` sets them all.

A decision, step by step (:meth:`SearchAgent.act`):

1. The network's masked softmax over the legal ids (the priors). One legal id, a prior
   of at least ``confident`` on the network's move, or no world handed in: play the
   network's move (the ``ppo:`` agent's greedy move, bit for bit), no search.
2. Candidates: the ``candidates`` legal ids of highest prior (the network's move first).
   Worlds: the one the runner handed to :meth:`~SearchAgent.see_world` and more drawn
   from it with :func:`~canasta_env.engine.determinize.determinize` and the agent's own
   ``rng`` (a world's hidden cards are dealt again from their multiset, which the seat
   knows, so a world drawn from a world is drawn as from the true game), ``rollouts //
   candidates`` in all: every candidate is played in the same worlds (common random
   numbers), so the comparison of two candidates is paired and the luck of a world
   cancels.
3. Rollouts, all at once on the compiled core (a :class:`~canasta_env.table.Table` per
   rollout): each ply, one batched forward pass over every rollout where a seat has a
   choice, greedy (or sampled, ``sample=True``) among the legal ids. A rollout that
   ends the hand scores :func:`agents.reward.hand_reward` for the agent's seat
   (+1 / 0 / -1 for the hand won / tied / lost plus ``score_coef`` times the margin
   / 1000, clipped to +-2: the training reward); after ``depth`` plies (or the
   ``max_ms`` time cap) an unfinished one scores the value head's estimate for the seat
   to act, from the agent's side (negated for an opponent of 2 teams; less the mean
   for 3 teams).
4. The choice: the candidate of highest mean, if its paired advantage over the
   network's move is above ``margin_z`` standard errors (SPARTA's rule: deviate from the
   blueprint only where the search is sure), ``sure_margin_z`` where the network's prior
   is ``sure`` or more (a surer network needs stronger evidence); else the network's move.

Deterministic for a seed, a budget and a game: the worlds come from the agent's
``rng`` (``random.Random``, reseeded by the registry before each arena hand), rollouts
are greedy (or sampled from a generator seeded from the same ``rng``). Only
``max_ms`` (off by default) makes the result depend on the machine's speed.

Hidden information: the agent reads nothing but its observation, its mask and the
world it is handed (a determinization, never the true game); every further world is
drawn from that one. ``tests/test_search.py`` checks that two games which differ only
in cards the seat cannot see give the same rollouts, and that an agent handed the true
game instead is caught by the same check.

``python -m research.search_timing --players 2 --agents search:classic-2p ppo:classic-2p
expert --hands 200 --out runs/search_x`` runs the arena in this process (one job) and
writes, beside its ``results.json``, ``timings.json``: every decision's seconds of
each search agent (mean, percentiles), measured around ``see_world`` + ``act``.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import math
import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from agents import belief
from agents.base import Agent
from agents.model_file import ModelFile
from agents.network import SHIPPED as POLICIES
from agents.network import PolicyWeights, resolve_model
from agents.reward import hand_reward
from canasta_env.engine.determinize import determinize
from canasta_env.engine.game import Game
from canasta_env.table import Table, play_together

#: Rollouts a decision when the name gives no budget (``search:classic-2p``), except
#: the shipped names of :data:`DEFAULT_BUDGETS`.
DEFAULT_ROLLOUTS = 128
#: Shipped names whose default budget is another (docs/search.md, "How strength grows with
#: the budget"): at 4 players 512 rollouts beat 128 against the network on 2,000 duplicate
#: hands, where at 2 players the curve is flat beyond 128.
DEFAULT_BUDGETS: dict[str, int] = {"classic-4p": 512}
#: The largest budget a name may ask for.
MAX_ROLLOUTS = 4096
#: Shipped search agents by name (``search:NAME``): the shipped ``.npz`` networks.
SHIPPED = {name: path for name, path in POLICIES.items() if path.suffix == ".npz"}
#: The leaderboard's tables of each shipped search agent (canasta_arena/leaderboard.py): none by
#: default, since a search hand costs seconds (a full leaderboard with them would take a
#: day); ``canasta leaderboard --agents search:classic-2p,...`` seats them.
SHIPPED_TABLES: dict[str, tuple[str, ...]] = dict.fromkeys(SHIPPED, ())
#: The models of the hidden cards (``SearchConfig.belief``).
BELIEFS = ("uniform", "history")
#: What separates the model from the budget in a name.
BUDGET_MARK = "@"


@dataclass(frozen=True)
class SearchConfig:
    """How one decision is searched (see the module doc, steps 1-4)."""

    #: the most rollouts a decision plays (the budget)
    rollouts: int = DEFAULT_ROLLOUTS
    #: legal ids searched: the network's move and its runners-up by prior
    candidates: int = 4
    #: a prior at or above this on the network's move: play it without search
    confident: float = 0.995
    #: a prior at or above this (and under ``confident``): the network is sure, and a
    #: candidate must beat its move by ``sure_margin_z`` standard errors instead
    sure: float = 0.95
    #: plies a rollout plays before the value head scores it (None: to the hand's end)
    depth: int | None = 16
    #: the weight of the score margin in a rollout's score (the training reward's)
    score_coef: float = 0.25
    #: standard errors by which a candidate must beat the network's move to be played
    margin_z: float = 1.0
    #: the same where the network is sure of its move (a prior of ``sure`` or more)
    sure_margin_z: float = 2.0
    #: rollouts sample from the network's softmax instead of playing its best move
    sample: bool = False
    #: milliseconds a decision may take before unfinished rollouts are scored by the
    #: value head (None: no cap; a cap makes the agent depend on the machine's speed)
    max_ms: float | None = None
    #: the worlds' model of the hidden cards: ``uniform`` (every deal consistent with the
    #: seat's view alike) or ``history`` (weighted by what the public history says of the
    #: other hands, :mod:`agents.belief`)
    belief: str = "uniform"
    #: with ``history``: uniform worlds drawn for each world kept
    pool: int = 4

    def __post_init__(self):
        if not _count(self.rollouts) or not 1 <= self.rollouts <= MAX_ROLLOUTS:
            raise ValueError(
                f"rollouts must be an integer in 1..{MAX_ROLLOUTS}, got {self.rollouts!r}"
            )
        if not _count(self.candidates) or self.candidates < 1:
            raise ValueError(f"candidates must be a positive integer, got {self.candidates!r}")
        if self.depth is not None and (not _count(self.depth) or self.depth < 1):
            raise ValueError(f"depth must be a positive integer or None, got {self.depth!r}")
        if not 0.0 < self.confident <= 1.0:
            raise ValueError(f"confident must be in (0, 1], got {self.confident!r}")
        if not 0.0 < self.sure <= 1.0:
            raise ValueError(f"sure must be in (0, 1], got {self.sure!r}")
        if self.max_ms is not None and not self.max_ms > 0:
            raise ValueError(f"max_ms must be positive or None, got {self.max_ms!r}")
        if self.belief not in BELIEFS:
            raise ValueError(f"belief must be one of {', '.join(BELIEFS)}, got {self.belief!r}")
        if not _count(self.pool) or not 1 <= self.pool <= 64:
            raise ValueError(f"pool must be an integer in 1..64, got {self.pool!r}")


def _count(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass
class SearchStats:
    """What the last decision did (for tests, docs and the curious)."""

    legal: int = 0
    searched: bool = False
    policy_move: int = -1
    chosen: int = -1
    candidates: list[int] = field(default_factory=list)
    worlds: int = 0
    rollouts: int = 0
    plies: int = 0  # batched plies (forward passes at most)
    scores: np.ndarray | None = None  # [candidate, world]
    cut_by_time: bool = False


# ---------------------------------------------------------------------- the network
class PolicyValueNet:
    """The network of a model file as numpy arrays: the ReLU trunk, then the action
    logits and the value, for a batch of observations in one pass."""

    def __init__(self, model: ModelFile):
        def f32(pair):
            return tuple(np.ascontiguousarray(a, dtype=np.float32) for a in pair)

        self.trunk = [f32(pair) for pair in model.trunk]
        self.pi_w, self.pi_b = f32(model.actor[-1])
        v_w, v_b = f32(model.value_head)
        self.v_w, self.v_b = v_w[:, 0], float(v_b[0])
        self.obs_size = model.obs_size
        self.num_actions = self.pi_w.shape[1]

    def __call__(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(logits [rows, actions], values [rows]) of a batch of observations."""
        x = observations[:, : self.obs_size]
        for weight, bias in self.trunk:
            x = np.maximum(x @ weight + bias, 0.0)
        return x @ self.pi_w + self.pi_b, x @ self.v_w + self.v_b


# ---------------------------------------------------------------------- names
#: The settings a name may change after its budget (``@64,depth=24``), with their parsers.
NAME_SETTINGS = {
    "candidates": "int",
    "confident": "float",
    "depth": "int or none",
    "score_coef": "float",
    "margin_z": "float",
    "sure": "float",
    "sure_margin_z": "float",
    "sample": "true or false",
    "max_ms": "float or none",
    "belief": "uniform or history",
    "pool": "int",
}


def _setting(path: str, key: str, text: str):
    kind = NAME_SETTINGS[key]
    lowered = text.strip().lower()
    if "none" in kind and lowered == "none":
        return None
    try:
        if kind.startswith("int"):
            return int(lowered)
        if kind.startswith("float"):
            value = float(lowered)
            if not math.isfinite(value):
                raise ValueError(text)
            return value
        if kind.startswith("uniform"):
            return lowered
        if lowered in ("true", "false"):
            return lowered == "true"
        raise ValueError(text)
    except ValueError:
        raise ValueError(f"search:{path}: {key} must be {kind}, got {text!r}") from None


def parse_name(path: str) -> tuple[str, SearchConfig]:
    """(model, config) of a loader path ``MODEL[@ROLLOUTS[,KEY=VALUE]...]``
    (``classic-2p``, ``classic-2p@128``, ``classic-4p@64,depth=24,margin_z=0.5``).

    Raises ``ValueError`` naming the problem: a budget that is not an integer in
    1..:data:`MAX_ROLLOUTS`, a key that is not one of :data:`NAME_SETTINGS`, a value
    of the wrong kind or out of its range.
    """
    model, mark, spec = str(path).rpartition(BUDGET_MARK)
    if not mark:
        return str(path), SearchConfig(rollouts=default_rollouts(str(path)))
    budget, *settings = spec.split(",")
    if not budget.isdigit() or not budget.isascii():
        raise ValueError(
            f"search:{path}: the budget after '{BUDGET_MARK}' must be a whole number of "
            f"rollouts in 1..{MAX_ROLLOUTS} (as in search:classic-2p@128), got {budget!r}"
        )
    rollouts = int(budget)
    if not 1 <= rollouts <= MAX_ROLLOUTS:
        raise ValueError(
            f"search:{path}: the budget must be 1..{MAX_ROLLOUTS} rollouts a decision, "
            f"got {rollouts}"
        )
    changes: dict = {"rollouts": rollouts}
    for item in settings:
        key, equals, text = item.partition("=")
        key = key.strip()
        if not equals or key not in NAME_SETTINGS:
            raise ValueError(
                f"search:{path}: {item!r} is not KEY=VALUE with KEY one of "
                f"{', '.join(NAME_SETTINGS)}"
            )
        changes[key] = _setting(path, key, text)
    try:
        return model, SearchConfig(**changes)
    except ValueError as error:
        raise ValueError(f"search:{path}: {error}") from None


def default_rollouts(model: str) -> int:
    """The budget of ``search:MODEL`` named without one: :data:`DEFAULT_BUDGETS` for the
    shipped names it lists, :data:`DEFAULT_ROLLOUTS` for every other model."""
    return DEFAULT_BUDGETS.get(model, DEFAULT_ROLLOUTS)


def load_agent(path: str | None = None) -> SearchAgent:
    """The search agent of a loader path (the ``search`` entry point): ``MODEL[@ROLLOUTS]``,
    MODEL a shipped name (:data:`SHIPPED`), a ``.npz`` model file or a run folder.

    A model that does not exist raises ``FileNotFoundError`` (the registry adds the
    nearest shipped name); a bad budget or a model that is not a ``.npz`` network
    (a Stable-Baselines3 zip has no value head here) raises ``ValueError``.
    """
    path = path or "classic-2p"
    model, config = parse_name(path)
    if model in ("", "default"):
        model = "classic-2p"
    if model not in SHIPPED and not Path(model).exists():
        names = ", ".join(SHIPPED)
        raise FileNotFoundError(f"no model at {model} (shipped names: {names})")
    resolved = resolve_model(SHIPPED.get(model, model))
    if resolved.suffix != ".npz":
        raise ValueError(
            f"search:{path}: {resolved} is not a .npz network (agents/model_file.py); the search "
            "needs the network's policy and value heads"
        )
    return SearchAgent(resolved, config, name=f"search:{path}")


# ---------------------------------------------------------------------- timings
_TIME_SINKS: list[tuple[list[float], list[float]]] = []


@contextlib.contextmanager
def recording_times():
    """Two lists that collect the seconds of every decision of every search agent of this
    process while the ``with`` block runs (``see_world`` to the end of ``act``): wall-clock
    seconds and this process's CPU seconds (the wall-clock ones count the time other
    processes of a busy machine took; the CPU ones do not)."""
    sink: tuple[list[float], list[float]] = ([], [])
    _TIME_SINKS.append(sink)
    try:
        yield sink
    finally:
        _TIME_SINKS.remove(sink)


# ---------------------------------------------------------------------- BLAS threads
@functools.cache
def _blas_threads():
    """(get, set) of the thread count of numpy's bundled OpenBLAS, or None (another BLAS).

    A rollout's forward pass is a few small matrix products; OpenBLAS splits each over
    every core, and on a busy 2-core machine its threads wait on each other: a 16-row
    pass took 12 ms with the default threads and 1.6 ms with one (docs/search.md)."""
    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(folder.glob("*openblas*")):
        try:
            library = ctypes.CDLL(str(path))  # the handle numpy loaded: the same state
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(library, f"{prefix}_get_num_threads{suffix}", None)
                put = getattr(library, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    return get, put
    return None


@contextlib.contextmanager
def one_blas_thread():
    """numpy's OpenBLAS on one thread inside the block, as it was after it (a no-op
    where numpy uses another BLAS: set ``OPENBLAS_NUM_THREADS=1`` or the like there)."""
    calls = _blas_threads()
    if calls is None:
        yield
        return
    get, put = calls
    before = get()
    put(1)
    try:
        yield
    finally:
        put(before)


# ---------------------------------------------------------------------- the agent
class SearchAgent(Agent):
    """Rollouts of the trained policy from determinized worlds (see the module doc)."""

    name = "search"

    def __init__(
        self,
        model: str | Path | ModelFile,
        config: SearchConfig | None = None,
        seed: int | None = None,
        name: str | None = None,
        opponent: str | Path | ModelFile | None = None,
    ):
        model_file = model if isinstance(model, ModelFile) else ModelFile(resolve_model(model))
        self.config = config or SearchConfig()
        self.net = PolicyValueNet(model_file)
        # an experiment (docs/search.md, "A model of the other team"): another network plays
        # the other team's seats in the rollouts (None: the agent's own, the default)
        self.opponent_net = None
        if opponent is not None:
            other = (
                opponent if isinstance(opponent, ModelFile) else ModelFile(resolve_model(opponent))
            )
            if other.meta["num_actions"] != model_file.meta["num_actions"]:
                raise ValueError(
                    f"opponent {other.path}: {other.meta['num_actions']} action ids, the "
                    f"agent's network {model_file.meta['num_actions']}"
                )
            self.opponent_net = PolicyValueNet(other)
        # the root's priors exactly as the ppo: agent computes its move
        self.policy = PolicyWeights(model_file.actor, "ReLU")
        self.rng = random.Random(seed)
        self.stats = SearchStats()
        self._world: Game | None = None
        self._started: float | None = None
        if name is not None:
            self.name = name

    def seed(self, seed: int | None) -> None:
        self.rng = random.Random(seed)

    def with_config(self, **changes) -> SearchAgent:
        """A new agent with the same network and ``changes`` to the config (unseeded)."""
        agent = SearchAgent.__new__(SearchAgent)
        agent.__dict__.update(self.__dict__)
        agent.config = replace(self.config, **changes)
        agent.rng = random.Random()
        agent.stats = SearchStats()
        agent._world = None
        return agent

    def see_world(self, world: Game) -> None:
        """The determinized world of the coming decision (from the runner; one decision)."""
        self._started = (time.perf_counter(), time.process_time())
        self._world = world

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        started = self._started or (time.perf_counter(), time.process_time())
        world, self._world, self._started = self._world, None, None
        try:
            return self._decide(observation, action_mask, world, started[0])
        finally:
            for wall, cpu in _TIME_SINKS:
                wall.append(time.perf_counter() - started[0])
                cpu.append(time.process_time() - started[1])

    # ------------------------------------------------------------------ one decision
    def _decide(self, observation, action_mask, world: Game | None, started: float) -> int:
        legal = np.flatnonzero(action_mask)
        logits = np.full(len(action_mask), -1e9)  # ids the network never learned: last
        known = min(len(action_mask), self.policy.num_actions)
        logits[:known] = _finite(self.policy.logits(observation)[:known])
        priors = np.exp(logits[legal] - logits[legal].max())
        priors /= priors.sum()
        order = np.argsort(-priors, kind="stable")
        policy_move = int(legal[order[0]])  # np.argmax's choice: the first of the best
        stats = self.stats = SearchStats(len(legal), policy_move=policy_move, chosen=policy_move)
        config = self.config
        count = min(config.candidates, len(legal), config.rollouts)
        if count < 2 or world is None or priors[order[0]] >= config.confident:
            return policy_move
        if world.legal_actions() != legal.tolist():
            raise ValueError("the world handed to see_world is not at this decision")
        candidates = [int(legal[i]) for i in order[:count]]
        worlds = max(1, config.rollouts // count)
        with one_blas_thread():
            scores = self._search(world, candidates, worlds, started)
        stats.searched, stats.candidates, stats.scores = True, candidates, scores
        margin = config.sure_margin_z if priors[order[0]] >= config.sure else config.margin_z
        stats.chosen = candidates[_choose(scores, margin)]
        return stats.chosen

    def _search(self, world: Game, candidates: list[int], worlds: int, started: float):
        """Scores [candidate, world] of every candidate played out in every world."""
        seat = world.current
        log_ratios = None
        if self.config.belief == "history":
            log_ratios = belief.load_table(world.num_players)
        if log_ratios is not None:
            picked = belief.pick_worlds(world, seat, worlds, self.config.pool, self.rng, log_ratios)
        else:
            picked = [world] + [determinize(world, seat, self.rng) for _ in range(worlds - 1)]
        generator = None
        if self.config.sample:
            generator = np.random.default_rng(self.rng.getrandbits(64))
        scores = self.score_moves(picked, candidates, seat, started, generator)
        self.stats.worlds, self.stats.rollouts = worlds, scores.size
        return scores

    def score_moves(
        self,
        worlds: list[Game],
        moves: list[int],
        seat: int,
        started: float | None = None,
        generator: np.random.Generator | None = None,
    ) -> np.ndarray:
        """Scores ``[move, world]`` for ``seat``: each move played in each world (the same
        worlds for every move), then the hand by the network (:meth:`_play_out`)."""
        roots = [Table.from_game(game, backend=None) for game in worlds]
        tables = []
        for move in moves:
            for root in roots:
                table = root.copy()
                table.step(move)
                tables.append(table)
        started = time.perf_counter() if started is None else started
        with one_blas_thread():
            scores = self._play_out(tables, seat, generator, started)
        return scores.reshape(len(moves), len(worlds))

    def _play_out(self, tables: list[Table], seat: int, generator, started: float) -> np.ndarray:
        """Each table's score for ``seat``: played to the hand's end by the network (one
        forward pass a ply over every table with a choice), or cut and valued."""
        config = self.config
        team_of = tables[0].team_of
        num_teams = max(team_of) + 1
        team = team_of[seat]
        scores = np.zeros(len(tables))
        deadline = None if config.max_ms is None else started + config.max_ms / 1000.0
        stats = self.stats
        index_of = {id(table): i for i, table in enumerate(tables)}
        plies = 0

        def ended(index: int, table: Table) -> None:
            scores[index] = hand_reward(table, seat, config.score_coef)[0]

        def choose(live: list[Table]) -> list[int] | None:
            nonlocal plies
            cut = config.depth is not None and plies >= config.depth
            if deadline is not None and not cut and time.perf_counter() >= deadline:
                cut = stats.cut_by_time = True
            legal = [table.legal_actions() for table in live]
            rows = [r for r, ids in enumerate(legal) if cut or len(ids) > 1]
            actions = [ids[0] for ids in legal]
            if rows:
                obs = np.stack([live[r].observation(live[r].current) for r in rows])
                logits, values = self.net(obs)
                if cut:  # the hands left are valued by the network, not played
                    for r, value in zip(rows, values):
                        table = live[r]
                        scores[index_of[id(table)]] = _from_side(
                            value, team_of, table.current, seat, num_teams
                        )
                    return None
                if self.opponent_net is not None:
                    theirs = [i for i, r in enumerate(rows) if team_of[live[r].current] != team]
                    if theirs:
                        logits = logits.copy()
                        logits[theirs] = self.opponent_net(obs[theirs])[0]
                z = _legal_logits(logits, [legal[r] for r in rows])
                if generator is not None:
                    z = z + generator.gumbel(size=z.shape).astype(np.float32)
                for r, action in zip(rows, z.argmax(axis=1)):
                    actions[r] = int(action)
            plies += 1
            return actions

        play_together(tables, choose, ended)
        stats.plies = plies
        return scores


#: Where a network's logit is NaN or infinite, the logit played: the largest finite float32,
#: signed (a NaN counts as the least wanted), so that only legal ids can win an argmax.
_LOGIT_LIMIT = float(np.finfo(np.float32).max) / 4


def _finite(logits: np.ndarray) -> np.ndarray:
    """``logits`` with NaN and the infinities replaced by finite values (:data:`_LOGIT_LIMIT`):
    a network of finite but huge weights overflows to them, and an argmax over a NaN
    would pick it whatever the mask says."""
    return np.nan_to_num(logits, nan=-_LOGIT_LIMIT, posinf=_LOGIT_LIMIT, neginf=-_LOGIT_LIMIT)


def _legal_logits(logits: np.ndarray, legal: list[list[int]]) -> np.ndarray:
    """A row per decision over every action id: the network's logits (made finite) on the
    legal ids it scores, -1e9 on legal ids past its layout (a network of an older, shorter
    action layout never learned them: last resort, as the ``ppo:`` agent plays them), and
    -inf on the illegal ids."""
    width = max(logits.shape[1], max(max(ids) for ids in legal) + 1)
    z = np.full((len(legal), width), -np.inf, dtype=np.float32)
    known = _finite(logits).astype(np.float32)
    for k, ids in enumerate(legal):
        ids = np.asarray(ids)
        inside = ids[ids < logits.shape[1]]
        z[k, ids] = -1e9
        z[k, inside] = known[k, inside]
    return z


def _from_side(value: float, team_of, current: int, seat: int, num_teams: int) -> float:
    """The value head's estimate for the seat to act, as ``seat``'s: the same for its
    team; negated for the other of 2 teams; with 3 teams the reward's margin part is
    the team's score less the others' mean, so another team's gain is shared out."""
    if team_of[current] == team_of[seat]:
        return float(value)
    return -float(value) / (num_teams - 1)


#: A mean difference of rollout scores under this is a tie: the float32 arithmetic of the
#: network's values (about 1e-7 a hand's reward), not the moves. Without it a search
#: deviated on differences of 1e-7 whose standard error was 0 (two moves whose rollouts
#: ended alike).
TIE = 1e-5


def _choose(scores: np.ndarray, margin_z: float) -> int:
    """The index of the candidate to play: the best mean if it beats candidate 0 (the
    network's move) by more than ``margin_z`` standard errors of the paired difference,
    and by more than :data:`TIE`."""
    means = scores.mean(axis=1)
    best = int(np.argmax(means))
    if best == 0:
        return 0
    diff = scores[best] - scores[0]
    if diff.mean() <= TIE:
        return 0
    if len(diff) < 2:
        return best if margin_z <= 0 else 0
    error = diff.std(ddof=1) / math.sqrt(len(diff))
    return best if diff.mean() > margin_z * error else 0


def timing_summary(times: list[float]) -> dict:
    """Count, mean and percentiles (seconds) of decision times."""
    if not times:
        return {"decisions": 0}
    array = np.asarray(times)
    return {
        "decisions": len(array),
        "mean": round(float(array.mean()), 5),
        "p50": round(float(np.percentile(array, 50)), 5),
        "p90": round(float(np.percentile(array, 90)), 5),
        "p99": round(float(np.percentile(array, 99)), 5),
        "max": round(float(array.max()), 5),
    }


__all__ = [
    "DEFAULT_BUDGETS",
    "DEFAULT_ROLLOUTS",
    "MAX_ROLLOUTS",
    "SHIPPED",
    "PolicyValueNet",
    "SearchAgent",
    "SearchConfig",
    "SearchStats",
    "default_rollouts",
    "load_agent",
    "parse_name",
    "recording_times",
    "timing_summary",
]
