"""Batched hands for training and evaluation: numpy only, one process per ``--jobs``.

Many hands run side by side in one process (``envs`` slots). At every tick each
slot is advanced through its bots' moves until a network must act; then every
slot waiting on the same network is answered by one batched forward pass. So
the learner and each snapshot opponent cost one matrix product per tick, not
one per decision.

Who plays a seat is a *controller*:

* ``("learner",)``: the network being trained; its decisions are recorded,
  sampled from the masked softmax (greedy in evaluation);
* ``("snapshot", key)``: a frozen earlier copy of the learner (sampling);
* ``("frozen", key)``: a frozen network played greedily, as the registry's ``ppo:`` agents
  play (``canasta exploit``'s target: :mod:`training.exploit`), batched as a snapshot;
* ``("bot", name)``: any agent :mod:`agents.registry` builds (the house bots, a search agent,
  an import path), one per seat, through ``Table.play`` (on a batched table, its twin).

Every seat of a team has the same controller (both partners at 4 players). A
hand's trajectory for a learner team is its decisions in order; the reward
comes when the hand ends (:func:`~agents.reward.hand_reward`, from the hand's result)
and is put on the team's last decision, so no move of another seat is ever credited to
the learner. :class:`Recorder` plays bots only and records the decisions of
chosen ones (the imitation data set).

Where they can, the hands are one :class:`~canasta_env.batched_table.BatchedTable`
(:meth:`HandRunner.batches`): hands of one rules object and player count (a run on one
kind of table, the usual case, and every :func:`evaluate_deals`) on the core, every bot
with a twin in the batched core (:func:`canasta_env.core.batch_twin`: the house bots), no
shadow teacher. The network seats are the caller's; after their moves one call of the
``_core.Batch`` plays every bot seat of every hand in C++ and books each hand that ends.
A slot's bots are seeded as on a table (``bot_seed + seat``, the twin's generator as
``random.Random`` of it), the slots keep their order and refill at the same moments, and
the learner's draws come in the same order, so the batched table plays the same hands
as the tables, bit for bit (``tests/test_rollout_batched.py``), about a third faster
(``benchmarks/bench_rollout.py``; the forward passes and the masked sampling, the same on
both, are most of what is left).

Otherwise each hand is a :class:`~canasta_env.table.Table`: views, masks and steps come
from it and every bot (a shadow teacher too) acts through ``Table.choose_action``, so a
search agent gets a determinized world as at any other table; on the core a bot with a
twin still plays in C++, table by table. The tables take what one batched table cannot:
variants or player counts mixed in one run (a slot refills with a hand of any kind, while
a batched table holds one rules object and player count), a bot without a twin (a search
agent, a ``ppo:`` bot, an import path), a shadow teacher (it needs a table's world), the
Python engine, and :class:`Recorder` (bots in every seat, their decisions recorded as
they act).

:class:`RolloutWorker` serves these jobs; :class:`WorkerPool` runs ``--jobs`` of
them in worker processes of :class:`canasta_arena.workers.Workers` (the arena's runner:
spawned, so no state is inherited from a parent that may have started torch threads,
one BLAS thread each).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from agents.network import PolicyWeights
from agents.reward import hand_reward, shaped_reward
from canasta_arena.workers import Workers
from canasta_env import core
from canasta_env.actions import NUM_ACTIONS
from canasta_env.batched_table import CALLER, BatchedTable, HandEnd
from canasta_env.engine.game import teams_of
from canasta_env.engine.outcome import Result
from canasta_env.engine.state import team_of_seat
from canasta_env.observation import OBS_SIZE
from canasta_env.rules import make_rules
from canasta_env.table import Table, resolve_backend
from training import league_pool
from training.critic import PRIVILEGED_SIZE, privileged
from training.league_pool import LEARNER


# ---------------------------------------------------------------------- policies
def numpy_policy(layers: Sequence[tuple[np.ndarray, np.ndarray]]) -> PolicyWeights:
    """The actor as numpy arrays (hidden ReLU layers, then the logits); batches of rows."""
    return PolicyWeights(list(layers), "ReLU")


def masked_choice(
    logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray]:
    """Actions (sampled with Gumbel noise, or argmax when ``rng`` is None) and their log-probs."""
    z = np.where(masks, logits[:, : masks.shape[1]], -np.inf)
    if rng is None:
        actions = z.argmax(axis=1)
    else:
        actions = (z + rng.gumbel(size=z.shape)).argmax(axis=1)
    top = z.max(axis=1, keepdims=True)
    log_norm = np.log(np.exp(z - top).sum(axis=1)) + top[:, 0]
    logp = z[np.arange(len(z)), actions] - log_norm
    return actions, logp.astype(np.float32)


# ---------------------------------------------------------------------- slots
@dataclass
class _Slot:
    """One hand in progress: on its own ``table``, or (``table`` None) at row ``row`` of
    the run's batched table, which deals it, seats its ``bots`` and says how it ``ended``."""

    table: Table | None
    kind: tuple[str, int]  # (variant, players)
    controllers: list[tuple]  # per seat
    #: seat -> Agent: its own, seeded and reset (a table); the runner's agent of that name,
    #: which the batched table seeds with ``bot_seed + seat`` and seats (batched)
    bots: dict[int, object]
    label: str
    deal_seed: int
    bot_seed: int
    #: learner team -> its decisions in order: (seat, obs, mask, action, log-prob, teacher)
    traj: dict[int, list] = field(default_factory=dict)
    #: learner team -> the table's hidden cards at each of its decisions
    #: (:meth:`~canasta_env.table.Table.hidden_counts`), when the run asks for them
    hidden: dict[int, list] = field(default_factory=dict)
    #: seat -> a bot shadowing the learner there: its choice is the teacher's label
    teachers: dict[int, object] = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    row: int = -1  # batched: the hand's table in the batched table
    ended: HandEnd | None = None  # batched: how the hand ended

    @property
    def result(self) -> Result:
        """The result of the hand (once it is over), by the one convention."""
        return self.table.result("hand") if self.ended is None else self.ended.result


class HandRunner:
    """Runs ``envs`` hands at once; see the module docstring.

    ``backend``: the tables' engine (None: the core where it is built). ``batched``: None
    plays the hands on one batched table where they can (:meth:`batches`), False always
    on tables, True requires the batched table (``ValueError`` saying why not).
    """

    def __init__(self, envs: int = 32, backend: str | None = None, batched: bool | None = None):
        if batched is not None and not isinstance(batched, bool):
            raise ValueError(f"batched must be None, True or False, got {batched!r}")
        self.envs = envs
        self.backend = resolve_backend(backend)
        self.batched = batched
        #: the way the last :meth:`run` played its hands: "batched" or "tables"
        self.path: str | None = None
        self._rules: dict[tuple[str, int], object] = {}
        #: bot name -> the agent the batched table seats, or None: no twin in the batch
        self._batch_agents: dict[str, object | None] = {}

    def _rules_of(self, variant: str):
        rules = self._rules.get(variant)
        if rules is None:
            rules = self._rules[variant] = make_rules(variant)
        return rules

    def new_slot(
        self,
        table: tuple[str, int],
        team_controllers: Sequence[tuple],
        deal_seed: int,
        label: str,
        bot_seed: int,
        teacher: str | None = None,
        batched: bool = False,
    ) -> _Slot:
        """A hand of ``table`` (variant, players) dealt with ``deal_seed``, each team played
        by its controller, the bot of seat ``s`` seeded with ``bot_seed + s``; on its own
        table, or (``batched``) for a batched :meth:`run`, which deals it."""
        from agents.registry import make_agent

        variant, players = table
        rules = self._rules_of(variant)
        if batched and teacher is not None:
            raise ValueError("a shadow teacher needs a table: no batched slot with one")
        hand = None if batched else Table(rules, players, seed=deal_seed, backend=self.backend)
        controllers = [team_controllers[team_of_seat(players, seat)] for seat in range(players)]
        bots = {}
        for seat, controller in enumerate(controllers):
            if controller[0] != "bot":
                continue
            if batched:
                bots[seat] = self._batch_agent(controller[1])
            else:
                bot = make_agent(controller[1], seed=bot_seed + seat)
                bot.reset(seat, players, rules)
                bots[seat] = bot
        slot = _Slot(hand, table, controllers, bots, label, deal_seed, bot_seed)
        slot.info["bot_seed"] = bot_seed
        for team, controller in enumerate(team_controllers):
            if controller == LEARNER:
                slot.traj[team] = []
                slot.hidden[team] = []
        if teacher is not None:
            for seat, controller in enumerate(controllers):
                if controller == LEARNER:
                    bot = make_agent(teacher, seed=bot_seed + 101 + seat)
                    bot.reset(seat, players, rules)
                    slot.teachers[seat] = bot
        return slot

    def _batch_agent(self, name: str):
        """The agent ``name`` that the batched table seats (one per name, made once), or
        None where it has no twin in the batched core."""
        from agents.registry import make_agent

        if name not in self._batch_agents:
            agent = make_agent(name, seed=0)  # the batched table seeds it at each deal
            self._batch_agents[name] = agent if core.batch_twin(agent) is not None else None
        return self._batch_agents[name]

    def batches(
        self,
        kinds: Sequence[tuple[str, int]],
        controllers: Sequence[tuple],
        teacher: str | None = None,
        bot_seeds: tuple[int, int] = (0, 0),
    ) -> bool:
        """Whether hands of ``kinds`` against ``controllers`` (the other teams'), with
        ``teacher`` and bots seeded from ``bot_seeds`` (the lowest and highest) play on one
        batched table: one kind of table, the core, no teacher, every bot with a twin in
        the batched core (which takes seeds of 0 to 2**63 - 1). ``batched=True`` raises
        ``ValueError`` saying why they cannot."""
        why_not = None
        if self.batched is False:
            return False
        if len(set(map(tuple, kinds))) != 1:
            why_not = "tables of several kinds"
        elif self.backend != "core":
            why_not = "the Python engine"
        elif teacher is not None:
            why_not = "a shadow teacher (it needs a table's world)"
        elif not 0 <= bot_seeds[0] <= bot_seeds[1] < 2**63:
            why_not = f"bot seeds outside 0..2**63-1 ({bot_seeds[0]}..{bot_seeds[1]})"
        else:
            for controller in controllers:
                if controller[0] == "bot" and self._batch_agent(controller[1]) is None:
                    why_not = f"the bot {controller[1]!r}, which has no twin in the batched core"
                    break
        if self.batched and why_not is not None:
            raise ValueError(f"batched=True: no batched table with {why_not}")
        return why_not is None

    def run(
        self,
        make_slot,
        policies: dict,
        rng: np.random.Generator | None,
        record: bool = True,
        on_done=None,
        batched: bool = False,
        hidden: bool = False,
    ) -> None:
        """Play until ``make_slot()`` returns None and every hand is over.

        ``policies`` maps ``"learner"`` and snapshot (or frozen) keys to :func:`numpy_policy`
        weights. ``rng`` None plays the networks greedily (a ``frozen`` controller always
        plays greedily). ``on_done(slot)`` receives each finished hand. ``batched``: the
        slots are batched ones (``new_slot(batched=True)``), of one kind, and play on one
        batched table (:meth:`batches` says where they can). ``hidden`` (with ``record``):
        the table's hidden cards are read at each learner decision too (``slot.hidden``:
        the oracle critic's input, read from the game on either path; nothing else changes).
        """
        self.path = "batched" if batched else "tables"
        if batched:
            self._run_batched(make_slot, policies, rng, record, on_done, hidden)
            return
        slots: list[_Slot] = []
        exhausted = False
        # The rounds over many hands stay here (play_together has no refills and one
        # chooser): ended hands' slots refill from make_slot, and each round the seats
        # to act are batched by network; each hand's bot moves go through Table.play.
        while True:
            while not exhausted and len(slots) < self.envs:
                slot = make_slot()
                if slot is None:
                    exhausted = True
                else:
                    slots.append(slot)
            if not slots:
                return
            waiting: dict[tuple, list[tuple[_Slot, np.ndarray, np.ndarray]]] = {}
            still: list[_Slot] = []
            for slot in slots:
                table = slot.table
                table.play(slot.bots)  # the bots move until a network's seat is to act
                if table.hand_over:
                    on_done(slot)
                    continue
                still.append(slot)
                seat = table.current
                controller = slot.controllers[seat]
                mask = table.mask().view(bool)
                waiting.setdefault(controller, []).append((slot, table.observation(seat), mask))
            slots = still
            for controller, items in waiting.items():
                key = "learner" if controller == LEARNER else controller[1]
                obs = np.stack([item[1] for item in items])
                masks = np.stack([item[2] for item in items])
                logits = policies[key].logits(obs)
                actions, logp = masked_choice(
                    logits, masks, None if controller[0] == "frozen" else rng
                )
                for (slot, o, m), action, lp in zip(items, actions, logp):
                    table = slot.table
                    if record and key == "learner":
                        seat = table.current
                        shadow = slot.teachers.get(seat)
                        label = -1 if shadow is None else int(table.choose_action(shadow, o, m))
                        team = table.team_of[seat]
                        slot.traj[team].append((seat, o, m, int(action), float(lp), label))
                        if hidden:
                            slot.hidden[team].append(table.hidden_counts())
                    table.step(int(action))

    def _run_batched(self, make_slot, policies, rng, record: bool, on_done, hidden) -> None:
        """:meth:`run` on one batched table: the same rounds, slots and draws in the same
        order (so the same hands, bit for bit), with every bot seat played in the batch."""
        slots: list[_Slot] = []
        exhausted = False
        tables: BatchedTable | None = None
        free: list[int] = []  # the rows of the batched table without a hand
        while True:
            dealt: list[_Slot] = []
            while not exhausted and len(slots) < self.envs:
                slot = make_slot()
                if slot is None:
                    exhausted = True
                else:
                    slots.append(slot)
                    dealt.append(slot)
            if not slots:
                return
            if tables is None:  # as many rows as the first slots
                kind = slots[0].kind
                players = kind[1]
                tables = BatchedTable(
                    self._rules_of(kind[0]), players, len(slots), backend="core", batched=True
                )
                free = list(range(len(slots) - 1, -1, -1))
                team_of = [team_of_seat(players, seat) for seat in range(players)]
            deals = []
            for slot in dealt:
                if slot.table is not None or slot.kind != kind:
                    raise ValueError(f"a batched run takes batched slots of {kind}: {slot.kind}")
                slot.row = free.pop()
                agents = [slot.bots.get(seat) for seat in range(players)]
                deals.append(
                    (slot.row, slot.deal_seed, agents, [slot.bot_seed + s for s in range(players)])
                )
            if deals:
                tables.deal(deals)  # and their bots play up to a network's seat
            waiting: dict[tuple, list[tuple[_Slot, int]]] = {}
            still: list[_Slot] = []
            for slot in slots:
                if tables.status[slot.row] != CALLER:  # the hand is over
                    slot.ended = tables.hand_ends.pop(slot.row)
                    free.append(slot.row)
                    on_done(slot)
                    continue
                still.append(slot)
                seat = int(tables.seat[slot.row])
                waiting.setdefault(slot.controllers[seat], []).append((slot, seat))
            slots = still
            if not slots:
                continue
            actions = np.zeros(tables.num_tables, np.int64)  # a row without a hand: not played
            for controller, items in waiting.items():
                key = "learner" if controller == LEARNER else controller[1]
                rows = [slot.row for slot, _ in items]
                obs = tables.obs[rows]  # copies, in the slots' order
                masks = tables.mask[rows].view(bool)
                logits = policies[key].logits(obs)
                chosen, logp = masked_choice(
                    logits, masks, None if controller[0] == "frozen" else rng
                )
                actions[rows] = chosen
                if record and key == "learner":
                    for (slot, seat), o, m, action, lp in zip(items, obs, masks, chosen, logp):
                        team = team_of[seat]
                        slot.traj[team].append((seat, o, m, int(action), float(lp), -1))
                        if hidden:
                            slot.hidden[team].append(tables.hidden_counts(slot.row))
            tables.play(actions, raise_illegal=False)  # then the bots, in the batch
            live = [slot.row for slot in slots]
            if not tables.legal[live].all():  # a masked choice is legal: never here
                raise RuntimeError("the batched table refused a network's legal action")


# ---------------------------------------------------------------------- jobs
def _normalized(values: Sequence[float]) -> np.ndarray:
    array = np.asarray(values, dtype=np.float64)
    return array / array.sum()


def _table_draw(rng: np.random.Generator, tables: Sequence[tuple[str, int]], weights):
    return tables[int(rng.choice(len(tables), p=weights))]


def collect(
    runner: HandRunner,
    steps: int,
    tables: Sequence[tuple[str, int]],
    table_weights: Sequence[float],
    opponents: Sequence[tuple[tuple, float]],
    policies: dict,
    seed: Sequence[int],
    score_coef: float,
    teacher: str | None = None,
    step_cost: float = 0.0,
    hidden: bool = False,
) -> dict:
    """Self-play data: hands until about ``steps`` learner decisions, every hand finished.

    ``opponents`` is a list of (controller, weight) for the other team(s), a hand's drawn
    by :func:`training.league_pool.choose` (the league's entries); the controller
    ``LEARNER`` means the learner plays every team (self-play).
    ``step_cost`` is taken from the reward at each learner decision (the hand's reward
    comes at its last), a price on slow hands.
    ``teacher`` names a bot that shadows every learner seat: at each learner
    decision it is asked what it would play there (kickstarting: the learner is
    pulled towards it on the learner's own states, DAgger-style). The shadow
    keeps its own memory of the hand, which can differ from the seat's by the
    learner's other choice of discard (``-1`` labels without a teacher).
    Returns arrays in trajectory order (``obs``, packed ``masks``, ``actions``,
    ``logp``, ``rewards``, ``dones``, ``teacher``) and per-hand results by
    opponent label. The hands play on one batched table where they can
    (:meth:`HandRunner.batches`), the same hands as on tables. ``hidden``: ``privileged``
    too, the oracle critic's features at each decision (:func:`training.critic.privileged`:
    the cards hidden from the learner), the other arrays and the hands the same.
    """
    rng = np.random.default_rng(list(seed))
    weights = _normalized(table_weights)
    kinds = [tuple(t) for t, w in zip(tables, weights) if w > 0]
    bot_seeds = (0, 2**31 + max((players for _, players in kinds), default=0))  # + seat
    batched = runner.batches(kinds, [c for c, _ in opponents], teacher, bot_seeds)
    started = {"steps": 0}
    out: dict[str, list] = {
        "obs": [], "masks": [], "actions": [], "logp": [], "rewards": [], "teacher": [],
        "privileged": [],
    }  # fmt: skip
    dones: list[bool] = []
    results: list[tuple[str, str, int, int, float]] = []  # (table, label, outcome, n, diff)

    def make_slot():
        if started["steps"] >= steps:
            return None
        table = _table_draw(rng, tables, weights)
        game_teams = teams_of(table[1])
        controller = league_pool.choose(opponents, rng)
        learner_team = int(rng.integers(game_teams))
        teams = [controller] * game_teams
        teams[learner_team] = LEARNER
        # estimate the decisions to come so the loop stops starting hands in time
        started["steps"] += 55 * sum(1 for c in teams if c == LEARNER) * (table[1] // game_teams)
        return runner.new_slot(
            table,
            teams,
            int(rng.integers(2**31)),
            league_pool.label(controller),
            int(rng.integers(2**31)),
            teacher,
            batched,
        )

    def on_done(slot: _Slot):
        for team, traj in slot.traj.items():
            if not traj:
                continue
            reward, outcome, diff = _team_reward(slot.result, team, score_coef)
            for _seat, o, m, a, lp, label in traj:
                out["obs"].append(o)
                out["masks"].append(m)
                out["actions"].append(a)
                out["logp"].append(lp)
                out["teacher"].append(label)
                out["rewards"].append(-step_cost)
                dones.append(False)
            out["rewards"][-1] += reward
            dones[-1] = True
            if hidden:
                seats = [seat for seat, *_ in traj]
                out["privileged"].append(privileged(np.stack(slot.hidden[team]), seats))
            if slot.label != "self":
                results.append((f"{slot.kind[0]}-{slot.kind[1]}p", slot.label, outcome, diff))

    runner.run(
        make_slot, policies, rng, record=True, on_done=on_done, batched=batched, hidden=hidden
    )
    n = len(out["actions"])
    extra = {}
    if hidden:
        extra["privileged"] = (
            np.concatenate(out["privileged"]) if n else np.zeros((0, PRIVILEGED_SIZE), np.float32)
        )
    return {
        "obs": np.stack(out["obs"]) if n else np.zeros((0, OBS_SIZE), np.float32),
        "masks": np.packbits(np.stack(out["masks"]), axis=1)
        if n
        else np.zeros((0, (NUM_ACTIONS + 7) // 8), np.uint8),
        "actions": np.asarray(out["actions"], dtype=np.int64),
        "logp": np.asarray(out["logp"], dtype=np.float32),
        "rewards": np.asarray(out["rewards"], dtype=np.float32),
        "dones": np.asarray(dones, dtype=bool),
        "teacher": np.asarray(out["teacher"], dtype=np.int64),
        "results": results,
        **extra,
    }


def evaluate_deals(
    runner: HandRunner,
    table: tuple[str, int],
    opponent: tuple,
    deal_seeds: Sequence[int],
    policies: dict,
) -> list[tuple[int, int, float, float]]:
    """Duplicate deals: each deal once with the learner in every team, greedy play.

    Returns (deal seed, outcome, score diff, win share) of the learner's team per hand
    (:class:`~canasta_env.engine.outcome.Result`), deal by deal in ``deal_seeds``' order and
    the learner's team by team within a deal, whatever order the hands end in. On one batched
    table where the hands can play there (:meth:`HandRunner.batches`), the same hands as on
    tables.
    """
    teams_n = teams_of(table[1])
    low, high = min(deal_seeds, default=0), max(deal_seeds, default=0)
    batched = runner.batches([table], [opponent], None, (low * 7, high * 7 + teams_n + table[1]))
    queue = [(seed, team) for seed in deal_seeds for team in range(teams_n)]
    position = {"i": 0}
    results: list[tuple[int, int, float, float] | None] = [None] * len(queue)

    def make_slot():
        if position["i"] >= len(queue):
            return None
        seed, team = queue[position["i"]]
        teams = [opponent] * teams_n
        teams[team] = LEARNER
        slot = runner.new_slot(table, teams, seed, "eval", seed * 7 + team, batched=batched)
        slot.info["team"], slot.info["index"] = team, position["i"]
        position["i"] += 1
        return slot

    def on_done(slot: _Slot):
        team, result = slot.info["team"], slot.result
        share = result.share(team)
        row = (slot.deal_seed, result.outcome(team), result.margin(team), share)
        results[slot.info["index"]] = row

    runner.run(make_slot, policies, None, record=False, on_done=on_done, batched=batched)
    return results  # run() plays every hand it is given to its end: no place stays None


def _team_reward(result: Result, team: int, score_coef: float) -> tuple[float, int, float]:
    """(reward, outcome, diff) of ``team`` for a hand's ``result``: what
    :func:`agents.reward.hand_reward` gives at its table."""
    outcome, diff = result.outcome(team), result.margin(team)
    return shaped_reward(outcome, diff, score_coef), outcome, diff


class Recorder:
    """Bot-only hands that record the decisions of the ``teachers`` (imitation data)."""

    def __init__(self, envs: int = 32):
        self.runner = HandRunner(envs)

    def record(
        self,
        steps: int,
        tables: Sequence[tuple[str, int]],
        table_weights: Sequence[float],
        teachers: Sequence[str],
        opponents: Sequence[tuple[str, float]],
        seed: Sequence[int],
        score_coef: float,
    ) -> dict:
        """Hands of a teacher team against a drawn opponent; ``steps`` teacher decisions or more.

        Returns ``obs``, packed ``masks``, ``actions`` and the hand's ``returns`` (the
        :func:`hand_reward` of the deciding team) per decision.
        """
        rng = np.random.default_rng(list(seed))
        weights = _normalized(table_weights)
        probs = _normalized([p for _, p in opponents])
        count = {"steps": 0}
        obs, masks, actions, returns = [], [], [], []

        def make_slot():
            if count["steps"] >= steps:
                return None
            table = _table_draw(rng, tables, weights)
            teams_n = teams_of(table[1])
            teacher = teachers[int(rng.integers(len(teachers)))]
            other = opponents[int(rng.choice(len(opponents), p=probs))][0]
            teacher_team = int(rng.integers(teams_n))
            teams = [("bot", other)] * teams_n
            teams[teacher_team] = ("bot", teacher)
            slot = self.runner.new_slot(
                table, teams, int(rng.integers(2**31)), teacher, int(rng.integers(2**31))
            )
            slot.info["teacher_team"] = teacher_team
            slot.info["log"] = []
            # wrap the teacher's bots so that their decisions are recorded
            for seat, bot in list(slot.bots.items()):
                if slot.table.team_of[seat] == teacher_team:
                    slot.bots[seat] = _Recording(bot, slot.info["log"])
            count["steps"] += 55 * (table[1] // teams_n)
            return slot

        def on_done(slot: _Slot):
            seat = slot.table.team_of.index(slot.info["teacher_team"])
            reward, _, _ = hand_reward(slot.table, seat, score_coef)
            for o, m, a in slot.info["log"]:
                obs.append(o)
                masks.append(m)
                actions.append(a)
                returns.append(reward)

        self.runner.run(make_slot, {}, rng, record=False, on_done=on_done)
        return {
            "obs": np.stack(obs).astype(np.float32),
            "masks": np.packbits(np.stack(masks).astype(bool), axis=1),
            "actions": np.asarray(actions, dtype=np.int16),
            "returns": np.asarray(returns, dtype=np.float32),
        }


class _Recording:
    """A bot whose (observation, mask, action) triples are appended to ``log``; every
    other attribute is the bot's (a search bot's ``see_world`` and ``rng`` included)."""

    def __init__(self, bot, log: list):
        self.bot = bot
        self.log = log

    def __getattr__(self, name: str):
        if name in ("bot", "log"):  # not set yet (a copy being built): not the bot's
            raise AttributeError(name)
        return getattr(self.bot, name)

    def act(self, observation, action_mask):
        action = int(self.bot.act(observation, action_mask))
        self.log.append((observation, np.asarray(action_mask, dtype=bool), action))
        return action


# ---------------------------------------------------------------------- workers
class WorkerPool:
    """``jobs`` rollout workers (:class:`canasta_arena.workers.Workers`: spawned processes, one
    BLAS thread each), each a :class:`RolloutWorker` running ``envs`` hands at once.

    A request is a command of :meth:`RolloutWorker.handle` and its arguments.
    ``jobs=0`` runs the jobs in this process (for tests and debugging).
    """

    def __init__(self, jobs: int = 2, envs: int = 32):
        self.jobs = jobs
        self.envs = envs
        self.workers = Workers(jobs, RolloutWorker, (envs,))

    @property
    def size(self) -> int:
        return self.workers.size

    def map(self, command: str, kwargs_list: Sequence[dict]) -> list:
        """Run one request per worker (``len(kwargs_list) <= size``); results in order."""
        return self.workers.map([(command, kwargs) for kwargs in kwargs_list])

    def broadcast(self, command: str, kwargs: dict) -> list:
        return self.map(command, [kwargs] * self.size)

    def close(self) -> None:
        self.workers.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.workers.__exit__(*exc)


class RolloutWorker:
    """A worker's state (its hands and snapshots) and request handling; called with a
    request ``(command, kwargs)``."""

    def __init__(self, envs: int):
        self.runner = HandRunner(envs)
        self.recorder = Recorder(envs)
        self.snapshots: dict[str, PolicyWeights] = {}

    def __call__(self, request: tuple[str, dict]):
        command, kwargs = request
        return self.handle(command, dict(kwargs))  # a copy: in this process, the caller's

    def handle(self, command: str, kwargs: dict):
        if command == "snapshots":
            if kwargs.get("reset"):
                self.snapshots.clear()
            for key in kwargs.get("drop", ()):
                self.snapshots.pop(key, None)
            for key, layers in kwargs.get("add", {}).items():
                self.snapshots[key] = numpy_policy(layers)
            return sorted(self.snapshots)
        if command in ("collect", "evaluate"):
            policies = dict(self.snapshots, learner=numpy_policy(kwargs.pop("layers")))
            fn = collect if command == "collect" else evaluate_deals
            return fn(self.runner, policies=policies, **kwargs)
        if command == "record":
            return self.recorder.record(**kwargs)
        raise ValueError(f"unknown worker command {command!r}")
