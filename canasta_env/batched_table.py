"""N tables stepped together on either engine: the one batched table.

Every batched face is a thin layer over a :class:`BatchedTable`, as every single face is
over :class:`~canasta_env.table.Table`: ``vector_env`` (every seat acts;
:mod:`canasta_env.vector`) and the Gymnasium vector face (one learner per table, agents
in the other seats; :mod:`canasta_env.gym_vector`, with the SB3 face over it). For N
tables of one rules object it owns:

=================  ======================================================================
views              ``obs[N, OBS_SIZE]`` (float32), ``mask[N, NUM_ACTIONS]`` (int8),
                   ``seat[N]``: the seat to act at each table, in arrays allocated once
every seat acts    ``reset(seed)`` deals every table (deal ``h`` of the batch seeded
                   ``seed + h``), ``step(actions)`` plays one action at each, pays
                   ``rewards[N, players]`` and deals again where an episode ended
                   (``done``, ``finished``)
agents in seats    ``deal(deals)`` deals tables with agents in some seats (each agent
                   seeded and reset for its seat), ``play(actions, play)`` plays the
                   caller's action at each table with ``play[k]``; then the agents play
                   up to a caller's seat or the episode's end (``status``: how each
                   table stands)
the learner's      on the core's batch, ``configure_episodes`` once, then ``new_episodes``
episodes           draws and deals each new episode of a single-learner face in C++ (the
                   learner's seat, the agents' seeds and the deal seed from the table's
                   numpy generator: ``set_generator``), redealt while the episode ends
                   before the learner acts (``learner_seat``, ``deal_seed``, ``redeals``)
booking            each hand that ends, once per engine by the one convention
                   (:mod:`canasta_env.engine.outcome`): ``Table.seat_rewards`` on a
                   table, the core's ``book_hand`` in the batch (``hand_rewards``); a
                   game's next hand dealt (``episode="game"``)
=================  ======================================================================

Engines. On the core (``batched`` None or True) the N tables are one ``_core.Batch``: its
``reset``/``step`` play every seat in C++ (with the booking and the new deals), its
``deal_table``/``play_learner`` play the agents' seats by their twins in the batched core
(:func:`canasta_env.core.batch_twin`) and stop where a hand ends; the hands that ended
come back here, from the rows the batch wrote (no state read). Otherwise (the Python
engine, ``batched=False``, an agent without a twin, ``max_cycles``, ``auto_deal`` off)
each table is a :class:`~canasta_env.table.Table` and its agents play through
``Table.play``. Both give the same arrays, bit for bit (``tests/test_core_vector.py``,
``tests/test_vector_faces.py``).

Rewards (``Table.seat_rewards``), given when a hand ends:

* ``reward="score"``: the seat's team hand score minus the mean hand score of the other
  teams, divided by ``reward_scale``; every hand that ends earns it.
* ``reward="win"``: once the episode is over (``episode="hand"``: the hand;
  ``"game"``: the game), +1 / 0 / -1 for a team with the highest (alone) / a tied
  highest / a lower score (the hand's totals, or the game's totals and its winner).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from canasta_env import core
from canasta_env.actions import NUM_ACTIONS
from canasta_env.engine.game import IllegalActionError
from canasta_env.engine.outcome import Result
from canasta_env.engine.scoring import SHEET_ROWS
from canasta_env.engine.state import END_REASONS, team_of_seat
from canasta_env.observation import OBS_SIZE
from canasta_env.options import TABLE_CHECKS, check_options, is_integer
from canasta_env.rules import Rules
from canasta_env.table import (
    EPISODE_MODES,
    MASK_DTYPE,
    MAX_REDEALS,
    OBS_DTYPE,
    REWARD_MODES,
    Table,
    resolve_backend,
)

if core.AVAILABLE:
    from canasta_env import _core

#: How a table stands after ``deal`` or ``play`` (``status``): a caller's seat is to act,
#: an agent's is (only between the rounds of ``play``), the episode ended, or it was cut
#: at ``max_cycles`` decisions.
CALLER, AGENTS, ENDED, TRUNCATED = 0, 1, 2, 3
#: the keys of a score sheet (engine/scoring.py), in the order _core.Batch.hand_sheets holds them
_SHEET_KEYS = (*(key for key, _ in SHEET_ROWS), "canastas")
_SHEET_TOTAL = _SHEET_KEYS.index("total")


class HandEnd(NamedTuple):
    """A hand that ended: its result by the one convention, and how the single env's
    final info tells it (``hand_scores``, ``scores``, ``end_reason``)."""

    result: Result
    hand_scores: list[dict]
    scores: list[int]
    end_reason: str

    @classmethod
    def of_table(cls, table: Table) -> HandEnd:
        outcome = table.outcome()
        return cls(
            table.result("hand"), outcome["hand_scores"], outcome["scores"], outcome["end_reason"]
        )


def seed_words(seed: int) -> tuple[bool, list[int]]:
    """``seed`` as the core's batch takes it: (negative, the 32-bit words of ``|seed|``,
    least significant first); any Python integer."""
    if 0 <= seed <= 0xFFFFFFFF:
        return False, [seed]
    magnitude = abs(seed)
    count = max(1, (magnitude.bit_length() + 31) // 32)
    return seed < 0, [(magnitude >> (32 * i)) & 0xFFFFFFFF for i in range(count)]


def pcg64_state(generator: np.random.Generator) -> tuple[int, int, int, int]:
    """A numpy ``Generator(PCG64)``'s state as the core's batch takes it: ``(state, inc,
    has_uint32, uinteger)``."""
    state = generator.bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise ValueError(f"a PCG64 generator is needed, got {state['bit_generator']}")
    return (state["state"]["state"], state["state"]["inc"], state["has_uint32"], state["uinteger"])


class BatchedTable:
    """N tables of one rules object stepped together (see the module docstring).

    ``batched``: None, the core's batch where the backend is the core and ``auto_deal``
    is on (else tables); True, the batch (the agents must have twins in it); False,
    tables. ``max_cycles``: with agents in seats, an episode is cut once it has had that
    many decisions (every seat's), after a decision that leaves the hand on (tables only).

    With every seat the caller's (``reset``/``step``), after each call row ``k`` holds
    table ``k``: ``obs[k]``/``mask[k]``, the view of ``seat[k]``, the seat to act (where
    the episode ended and no new hand was dealt, ``auto_deal`` off: the seat that acted
    last, shown as not to act, mask all zero); ``rewards[k]`` (float64, per seat) what
    the seats earned on this step, exactly as the env's rewards (``seat_rewards``,
    summed over the hands that ended); ``done[k]``: the episode ended on this step, and
    ``finished[k]`` is then its table (read its outcome there), else None. Deals are
    numbered over the batch in the order they are made (the first ``n`` to tables
    ``0..n-1`` at reset, then each new game in table order) and deal ``h`` uses seed
    ``seed + h`` (as ``random.Random(seed + h)``: any integer); ``deal_seeds[k]`` is
    table ``k``'s seed. A new game whose hand ends during its deal (rare) is skipped for
    the next deal. With ``episode="game"`` a hand that ends deals the game's next hand
    until the game is over.
    """

    def __init__(
        self,
        rules: Rules,
        num_players: int,
        num_tables: int,
        reward: str = "score",
        reward_scale: float = 1000.0,
        episode: str = "hand",
        auto_deal: bool = True,
        backend: str = "python",
        batched: bool | None = None,
        max_cycles: int | None = None,
    ):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules object (make_rules({rules!r})), got {rules!r}")
        self.backend = resolve_backend(backend)
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if episode not in EPISODE_MODES:
            raise ValueError(f"episode must be one of {EPISODE_MODES}, got {episode!r}")
        if isinstance(num_tables, bool) or not isinstance(num_tables, int) or num_tables < 1:
            raise ValueError(f"num_tables must be a positive integer, got {num_tables!r}")
        check_options({"reward_scale": reward_scale}, TABLE_CHECKS)  # as the core's batch
        self.rules = rules
        self.num_players = num_players
        self.num_tables = num_tables
        self.reward_mode = reward
        self.reward_scale = float(reward_scale)
        self.episode_mode = episode
        self.auto_deal = auto_deal
        self.max_cycles = max_cycles
        if batched is None:
            batched = self.backend == "core" and auto_deal and max_cycles is None
        elif batched and (self.backend != "core" or not auto_deal or max_cycles is not None):
            raise ValueError(
                "batched=True: the core's batch needs the core, auto_deal, no max_cycles"
            )
        #: the engine: the core's batch, or a Table per table
        self.engine = _CoreBatch(self) if batched else _Tables(self)
        self.batched = bool(batched)  # the batch plays its agents' seats and writes the views
        self.obs, self.mask, self.seat = self.engine.obs, self.engine.mask, self.engine.seat
        # with agents in seats
        #: how each table stands (CALLER, AGENTS, ENDED, TRUNCATED)
        self.status = [CALLER] * num_tables
        #: the tables whose episode ended (ENDED or TRUNCATED) in the last ``play``, in order
        self.ended: list[int] = []
        #: whether each table's action in the last ``play`` was legal (and played)
        self.legal = self.engine.legal
        self._booked = np.zeros((num_tables, num_players), np.float64)
        self._rows = np.arange(num_tables)
        self._row_starts = self._rows * num_players  # where row k starts in _booked.ravel()
        #: the last hand that ended at each table since the caller cleared it
        self.hand_ends: dict[int, HandEnd] = {}

    # ------------------------------------------------------------------ every seat acts
    def reset(self, seed: int = 0) -> None:
        """Deal every table a new game (seeds ``seed``, ``seed + 1``, ...) and write views."""
        self.engine.reset(int(seed))

    def step(self, actions: Sequence[int] | np.ndarray) -> None:
        """Play ``actions[k]`` at each table ``k`` whose episode is on (the entries of
        ended ones are ignored). If any action is not legal, raises
        :class:`~canasta_env.engine.game.IllegalActionError` naming the table before
        anything changes."""
        self.engine.step(self._ids(actions))

    def _ids(self, actions) -> np.ndarray:
        """``actions`` as one integer id per table, in native byte order; anything else
        raises :class:`~canasta_env.engine.game.IllegalActionError` saying what it is."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_tables,) or actions.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be {self.num_tables} integer ids, got shape {actions.shape} "
                f"of {actions.dtype}"
            )
        if not actions.dtype.isnative:  # '>i8' from a big-endian source: the same ids
            actions = actions.astype(actions.dtype.newbyteorder("="))
        return actions

    @property
    def rewards(self) -> np.ndarray:
        return self.engine.rewards

    @property
    def done(self) -> np.ndarray:
        return self.engine.done

    @property
    def tables(self) -> list[Table]:
        """Each table's :class:`Table` (on the core's batch: around its game, not a copy)."""
        return self.engine.tables

    @property
    def finished(self) -> list[Table | None]:
        return self.engine.finished

    def hidden_counts(self, k: int) -> np.ndarray:
        """:meth:`Table.hidden_counts <canasta_env.table.Table.hidden_counts>` of table
        ``k`` (a new int16 array), read from its game without a copy of the table."""
        return self.engine.hidden_counts(self._table_index(k))

    def _table_index(self, k) -> int:
        """``k`` as a table of the batch; ``ValueError`` as the core's batch says it."""
        if not (is_integer(k) and 0 <= k < self.num_tables):
            raise ValueError(f"table {k!r} is not in the batch")
        return int(k)

    @property
    def deal_seeds(self) -> list[int]:
        return self.engine.deal_seeds

    # ------------------------------------------------------------------ agents in seats
    def deal(self, deals: Sequence[tuple[int, int, Sequence, Sequence[int]]]) -> None:
        """Deal each ``(table, deal_seed, agents, agent_seeds)`` a new game: ``agents[s]``
        plays seat ``s`` (None: the caller's seat), seeded with ``agent_seeds[s]`` (its
        ``seed``, or its twin's generator as ``random.Random(seed)``) and reset for the
        seat; then the agents play (``status``). The table's booked rewards and hand
        start anew."""
        engine = self.engine
        for k, _deal_seed, agents, agent_seeds in deals:  # every deal checked first
            self._table_index(k)
            if len(agents) != self.num_players or len(agent_seeds) != self.num_players:
                raise ValueError("deal_table takes one bot and one seed per seat")
        for k, deal_seed, agents, agent_seeds in deals:
            self._booked[k] = 0.0
            self.hand_ends.pop(k, None)
            engine.deal(k, deal_seed, agents, agent_seeds)
            self.status[k] = self._settle(k, moved=False)
        self._run([k for k, *_ in deals])

    # ------------------------------------------------------------------ the learner's episodes
    # (the core's batch only: gym_vector.py's fast path)
    def configure_episodes(self, agents: Sequence[Sequence], seat: int | None, team: bool) -> None:
        """How ``new_episodes`` seats its agents: ``agents[k]``, table ``k``'s, one per
        seat that is not the learner's, in seat order (each played by its twin in the
        batched core); ``seat``: the learner's seat (None: drawn per episode); ``team``: the
        learner holds its seat's team, else the seat alone."""
        self.engine.configure_episodes(agents, seat, team)

    @property
    def learner_seat(self) -> np.ndarray:
        """Each table's learner seat (int64; the batch's array, written by ``new_episodes``)."""
        return self.engine.learner_seat

    @property
    def deal_seed(self) -> np.ndarray:
        """Each table's deal seed (int64, 0 for a given seed past int64; the batch's array)."""
        return self.engine.deal_seed

    @property
    def redeals(self) -> np.ndarray:
        """The redeals each table's last new episode took (int64; 0: its first deal held)."""
        return self.engine.redeals

    def set_generator(self, k: int, generator: np.random.Generator) -> None:
        """Table ``k`` draws its episodes from (a copy of) ``generator``, a numpy
        ``Generator(PCG64)`` (gymnasium's ``seeding.np_random``)."""
        self.engine.batch.set_generator(k, pcg64_state(generator))

    def generator_state(self, k: int) -> dict:
        """Table ``k``'s generator now, as numpy's ``bit_generator.state``."""
        state, inc, has_uint32, uinteger = self.engine.batch.generator(k)
        return {
            "bit_generator": "PCG64",
            "state": {"state": state, "inc": inc},
            "has_uint32": has_uint32,
            "uinteger": uinteger,
        }

    def new_episodes(self, tables: list[int], seeds: Sequence[int | None] | None = None) -> None:
        """Deal each of ``tables`` a new episode from its generator, as
        ``gym_vector.py``'s ``_reset_tables`` deals it: the learner's seat (unless fixed),
        one seed per agent, the deal seed (``seeds[i]``, any integer, on the first deal;
        None: drawn; ``seeds`` None: every one drawn), dealt again while the episode ends
        before the learner acts. Hands that end in a deal are booked (a game's, paid with
        the next ``take_rewards``) but not reported (``hand_ends``); each table waits for
        the learner's seat."""
        engine = self.engine
        if seeds is None:
            words = [None] * len(tables)
        else:
            words = [None if seed is None else seed_words(seed) for seed in seeds]
        engine.batch.new_episodes(tables, words)
        booked, dealt, status, hand_ends = (
            self._booked,
            engine.dealt_rewards,
            self.status,
            self.hand_ends,
        )
        for k in tables:  # a row at a time: fancy indexing costs more for the few that end
            booked[k] = dealt[k]
            status[k] = CALLER
            if hand_ends:
                hand_ends.pop(k, None)

    def play(self, actions: Sequence[int] | np.ndarray, raise_illegal: bool = True) -> None:
        """Play ``actions[k]`` (an integer id per table) at each table ``k``, then its
        agents up to a caller's seat or the episode's end (``status``; the tables whose
        episode ended: ``ended``).

        Every id is checked first: one outside 0..NUM_ACTIONS-1 raises
        :class:`~canasta_env.engine.game.IllegalActionError` naming the first table with
        one. Then ``legal[k]`` says whether ``actions[k]`` is legal at table ``k`` (a
        table waiting for a caller's seat); the first illegal one raises with
        ``raise_illegal``, else the tables with an illegal action are not played. Nothing
        changes before a refusal."""
        played = self.engine.play(self._ids(actions), raise_illegal)
        self.legal = self.engine.legal
        status = self.status
        for k in played:
            status[k] = self._settle(k, moved=True)
        self._run(played)
        self.ended = [k for k in played if status[k] >= ENDED]

    def take_rewards(self, seats: np.ndarray) -> np.ndarray:
        """The rewards booked for ``seats[k]`` at each table ``k`` since the last take
        (float64), and a new start for every seat's."""
        rewards = self._booked.ravel()[self._row_starts + seats]  # [k, seats[k]], flat
        self._booked.fill(0.0)
        return rewards

    def final_view(self, k: int) -> dict[str, np.ndarray]:
        """What the seat that played ``actions[k]`` in the last ``play`` sees at table
        ``k`` now, shown as not to act (new arrays): an ended episode's last view."""
        return self.engine.final_view(k)

    def _settle(self, k: int, moved: bool) -> int:
        """Book what the last move (``moved``) or deal did at table ``k``: the hands that
        ended, the game's next hand, the cut at ``max_cycles``; how the table stands."""
        engine = self.engine
        while engine.hand_over(k):
            self._booked[k] += engine.hand_rewards(k)
            self.hand_ends[k] = engine.hand_end(k)
            if self.episode_mode == "hand" or engine.game_over(k):
                return ENDED
            engine.next_hand(k)
            moved = False  # the single env checks max_cycles only after a move
        if moved and self.max_cycles is not None and engine.moves[k] >= self.max_cycles:
            return TRUNCATED
        return CALLER if engine.callers_act(k) else AGENTS

    def _run(self, tables: list[int]) -> None:
        """Let the agents play at the tables waiting for them, round after round, until
        every table waits for a caller's seat or has ended."""
        if self.batched:
            return  # the batch played them, and wrote the views
        waiting = [k for k in tables if self.status[k] == AGENTS]
        while waiting:
            self.engine.play_agents(waiting)
            for k in waiting:
                self.status[k] = self._settle(k, moved=True)
            waiting = [k for k in waiting if self.status[k] == AGENTS]
        self.engine.write_views(k for k in tables if self.status[k] == CALLER)


class _Tables:
    """Each table a :class:`Table` (either engine): its agents through ``Table.play``."""

    def __init__(self, owner: BatchedTable):
        self.owner = owner
        n, players = owner.num_tables, owner.num_players
        self.obs = np.zeros((n, OBS_SIZE), OBS_DTYPE)
        self.mask = np.zeros((n, NUM_ACTIONS), MASK_DTYPE)
        self.seat = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, players), np.float64)
        self.done = np.zeros(n, bool)
        self.tables: list[Table | None] = [None] * n
        self.finished: list[Table | None] = [None] * n
        self.deal_seeds: list[int] = []
        self.next_deal = 0
        self.agents: list[dict] = [{}] * n  # seat -> agent, each table's
        self.moves = [0] * n  # every seat's decisions this episode (max_cycles counts them)
        self.legal = np.zeros(n, bool)  # each table's action in the last play was legal
        self.acted = [0] * n  # the seat that played it

    # ------------------------------------------------------------------ every seat acts
    def reset(self, seed: int) -> None:
        owner = self.owner
        self._seed = seed
        self.next_deal = 0
        self.tables = []
        self.deal_seeds = []
        for _ in range(owner.num_tables):
            table, deal_seed = self._deal()
            self.tables.append(table)
            self.deal_seeds.append(deal_seed)
        self.rewards.fill(0.0)
        self.done.fill(False)
        self.finished = [None] * owner.num_tables
        for k in range(owner.num_tables):
            self._write_view(k)

    def _deal(self) -> tuple[Table, int]:
        owner = self.owner
        for _ in range(MAX_REDEALS):
            deal_seed = self._seed + self.next_deal
            self.next_deal += 1
            table = Table(owner.rules, owner.num_players, seed=deal_seed, backend=owner.backend)
            if not table.hand_over:
                return table, deal_seed
        raise RuntimeError(f"no deal in {MAX_REDEALS} in which a seat acts")

    def _write_view(self, k: int) -> None:
        table = self.tables[k]
        row = self.mask[k]
        row.fill(0)
        to_act = not table.hand_over
        if to_act:
            row[table.legal_actions()] = 1  # into the row itself: no mask array per step
        self.seat[k] = table.current
        self.obs[k] = table.observation(table.current, to_act)

    def write_views(self, tables) -> None:
        for k in tables:
            self._write_view(k)

    def step(self, actions: np.ndarray) -> None:
        owner = self.owner
        if None in self.tables:  # (a Table has no __eq__: identity, cheap)
            raise RuntimeError("step before reset")
        ids = actions.tolist()
        for k, action in enumerate(ids):
            live = not self.tables[k].hand_over
            if live and not (0 <= action < NUM_ACTIONS and self.mask[k, action]):
                raise IllegalActionError(
                    f"table {k}: illegal action {action} for seat {int(self.seat[k])}"
                )
        self.rewards.fill(0.0)
        self.done.fill(False)
        self.finished = [None] * owner.num_tables
        for k, action in enumerate(ids):
            table = self.tables[k]
            if table.hand_over:
                continue  # an ended episode that was not dealt again
            table.step(action)
            if table.hand_over:
                self._hand_ended(k)
            self._write_view(k)

    def _hand_ended(self, k: int) -> None:
        """Pay the hand(s) that ended, as the env does, and deal what comes next."""
        owner = self.owner
        table = self.tables[k]
        rewards = self.rewards[k]
        while True:
            earned = table.seat_rewards(owner.reward_mode, owner.reward_scale, owner.episode_mode)
            for seat, value in enumerate(earned):
                rewards[seat] += value
            if table.episode_ends(owner.episode_mode):
                break
            table.next_hand()
            if not table.hand_over:
                return
        self.done[k] = True
        self.finished[k] = table
        if owner.auto_deal:
            self.tables[k], self.deal_seeds[k] = self._deal()

    # ------------------------------------------------------------------ agents in seats
    def deal(self, k: int, deal_seed: int, agents: Sequence, agent_seeds: Sequence[int]) -> None:
        owner = self.owner
        seated = {}
        for seat, (agent, seed) in enumerate(zip(agents, agent_seeds)):
            if agent is None:
                continue
            if callable(getattr(agent, "seed", None)):
                agent.seed(seed)
            if callable(getattr(agent, "reset", None)):
                agent.reset(seat, owner.num_players, owner.rules)
            seated[seat] = agent
        self.agents[k] = seated
        self.moves[k] = 0
        self.tables[k] = Table(
            owner.rules, owner.num_players, seed=deal_seed, backend=owner.backend
        )

    def play(self, actions: np.ndarray, raise_illegal: bool) -> list[int]:
        ids = actions.astype(np.int64)
        outside = ids.view(np.uint64) >= NUM_ACTIONS  # a negative id too, as unsigned
        if outside.any():
            k = int(np.flatnonzero(outside)[0])
            raise IllegalActionError(
                f"table {k}: action id {int(actions[k])} is outside 0..{NUM_ACTIONS - 1}"
            )
        status = self.owner.status
        legal = self.mask[self.owner._rows, ids].view(bool)  # a new array
        legal &= np.array([s == CALLER for s in status])
        if raise_illegal and not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            raise IllegalActionError(
                f"table {k}: illegal action {int(actions[k])} for seat {int(self.seat[k])}"
            )
        self.legal = legal
        played = np.flatnonzero(legal).tolist()
        for k in played:
            table = self.tables[k]
            self.acted[k] = table.current
            table.step(int(ids[k]))
            self.moves[k] += 1
        return played

    def play_agents(self, tables: list[int]) -> None:
        """Play the agents' seats at each of ``tables`` (an agent is to act at each) until
        a caller's seat is to act, the hand is over or ``max_cycles`` decisions are
        played, adding the decisions to ``moves``."""
        limit = self.owner.max_cycles
        for k in tables:
            played = [0]

            def count(seat, observation, mask, action, played=played) -> None:
                played[0] += 1

            # the single env truncates after a decision that leaves the hand on with
            # max_cycles decisions played; never before the first of this call
            until = None
            if limit is not None:
                start = self.moves[k]

                def until(table, played=played, start=start) -> bool:
                    return played[0] > 0 and start + played[0] >= limit

            self.moves[k] += self.tables[k].play(self.agents[k], until, count)

    def hand_over(self, k: int) -> bool:
        return self.tables[k].hand_over

    def hidden_counts(self, k: int) -> np.ndarray:
        return self.tables[k].hidden_counts()

    def hand_rewards(self, k: int) -> list[float]:
        owner = self.owner
        return self.tables[k].seat_rewards(
            owner.reward_mode, owner.reward_scale, owner.episode_mode
        )

    def hand_end(self, k: int) -> HandEnd:
        return HandEnd.of_table(self.tables[k])

    def game_over(self, k: int) -> bool:
        return self.tables[k].engine.game_over

    def next_hand(self, k: int) -> None:
        self.tables[k].next_hand()

    def callers_act(self, k: int) -> bool:
        table = self.tables[k]
        return table.current not in self.agents[k]

    def final_view(self, k: int) -> dict[str, np.ndarray]:
        return self.tables[k].view(self.acted[k], live=False)


class _CoreBatch:
    """The tables as one ``_core.Batch``: the seats of the agents (their twins), the booking
    and, with every seat the caller's, the new deals in C++."""

    def __init__(self, owner: BatchedTable):
        self.owner = owner
        rules, players = owner.rules, owner.num_players
        self.rules_in_core = core.core_rules(rules, players)
        batch = self.batch = _core.Batch(
            self.rules_in_core,
            rules.name,
            players,
            owner.num_tables,
            owner.reward_mode,
            owner.reward_scale,
            owner.episode_mode,
        )
        # the batch's buffers, seen once (numpy views, rewritten in place)
        self.obs, self.mask, self.seat = batch.obs, batch.mask, batch.seat
        self.rewards, self.done = batch.paid, batch.done
        self.legal, self._final_obs = batch.legal, batch.final_obs
        self._hand_over, self._game_over = batch.hand_over, batch.game_over
        self._hand_sheets, self._game_scores = batch.hand_sheets, batch.game_scores
        self._end_reason, self._hand_rewards = batch.end_reason, batch.hand_rewards
        self.learner_seat, self.deal_seed = batch.learner_seat, batch.deal_seed
        self.redeals, self.dealt_rewards = batch.redeals, batch.dealt_rewards
        self._team_of = tuple(team_of_seat(players, s) for s in range(players))
        self._twins: dict[int, tuple[object, object]] = {}  # id(agent) -> (agent, its _core.Bot)
        self._reset_seed: int | None = None
        self.moves = None  # no max_cycles here

    # ------------------------------------------------------------------ every seat acts
    def reset(self, seed: int) -> None:
        self.batch.reset(*seed_words(seed))
        self._reset_seed = seed

    def step(self, actions) -> None:
        try:
            self.batch.step(actions)
        except ValueError as error:  # the core's IllegalAction, as a table's step raises it
            raise IllegalActionError(str(error)) from None

    def _table(self, game) -> Table:
        table = Table.__new__(Table)
        owner = self.owner
        table._seat_game(
            core.CoreGame.around(game, owner.rules, owner.num_players, self.rules_in_core)
        )
        return table

    @property
    def tables(self) -> list[Table]:
        return [self._table(self.batch.game(k)) for k in range(self.owner.num_tables)]

    @property
    def finished(self) -> list[Table | None]:
        games = [self.batch.finished(k) for k in range(self.owner.num_tables)]
        return [None if game is None else self._table(game) for game in games]

    @property
    def deal_seeds(self) -> list[int]:
        if self._reset_seed is None:
            return []
        return [self._reset_seed + number for number in self.batch.deal_numbers]

    # ------------------------------------------------------------------ agents in seats
    def _twin(self, agent):
        """``agent``'s twin in the batched core (made once per agent)."""
        known = self._twins.get(id(agent))
        if known is None or known[0] is not agent:
            twin = core.batch_twin(agent)
            if twin is None:
                raise ValueError(f"{agent!r} has no twin in the batched core")
            known = self._twins[id(agent)] = (agent, twin._bot)
        return known[1]

    def configure_episodes(self, agents: Sequence[Sequence], seat: int | None, team: bool) -> None:
        twins = [[self._twin(agent) for agent in row] for row in agents]
        self.batch.configure_episodes(twins, seat, team)

    def deal(self, k: int, deal_seed: int, agents: Sequence, agent_seeds: Sequence[int]) -> None:
        bots = [None if agent is None else self._twin(agent) for agent in agents]
        seeds = [0 if agent is None else seed for agent, seed in zip(agents, agent_seeds)]
        self.batch.deal_table(k, *seed_words(deal_seed), bots, seeds)

    def play(self, actions: np.ndarray, raise_illegal: bool) -> list[int]:
        try:  # the tables played whose hand is over
            return self.batch.play_learner(actions, raise_illegal)
        except ValueError as error:  # the core's IllegalAction, as the tables raise it
            raise IllegalActionError(str(error)) from None

    def hand_over(self, k: int) -> bool:
        return bool(self._hand_over[k])

    def hidden_counts(self, k: int) -> np.ndarray:
        return self.batch.game(k).hidden_counts()

    def hand_rewards(self, k: int) -> np.ndarray:
        return self._hand_rewards[k]

    def hand_end(self, k: int) -> HandEnd:
        sheets = self._hand_sheets[k].tolist()
        return HandEnd(
            Result.of([sheet[_SHEET_TOTAL] for sheet in sheets], self._team_of),
            [dict(zip(_SHEET_KEYS, sheet)) for sheet in sheets],
            self._game_scores[k].tolist(),
            END_REASONS[self._end_reason[k]],
        )

    def game_over(self, k: int) -> bool:
        return bool(self._game_over[k])

    def next_hand(self, k: int) -> None:
        self.batch.next_hand(k)

    def callers_act(self, k: int) -> bool:
        return True  # the batch played its agents up to a caller's seat

    def final_view(self, k: int) -> dict[str, np.ndarray]:
        # the batch wrote it when the hand ended (Batch.final_obs), as _core.view does
        return {
            "observation": self._final_obs[k].copy(),
            "action_mask": np.zeros(NUM_ACTIONS, MASK_DTYPE),
        }


__all__ = [
    "AGENTS",
    "CALLER",
    "ENDED",
    "TRUNCATED",
    "BatchedTable",
    "HandEnd",
    "pcg64_state",
    "seed_words",
]
