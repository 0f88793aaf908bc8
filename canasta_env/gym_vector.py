"""The Gymnasium vector face: N tables, one learner at each, opponents in between.

Usage::

    import gymnasium as gym
    import canasta_env  # registers "canasta_env/Canasta-v0" with its vector entry point

    envs = gym.make_vec("canasta_env/Canasta-v0", num_envs=64, num_players=2,
                        vectorization_mode="vector_entry_point", opponents="expert")
    obs, info = envs.reset(seed=0)
    while training:
        actions = policy(obs["observation"], obs["action_mask"])    # (64,) ids
        obs, rewards, terminated, truncated, info = envs.step(actions)

Each table is what one :class:`~canasta_env.gym_env.CanastaGymEnv` with the same
options would be (``docs/vector.md``): a step is one decision of the learner's seat to
act at every table; the other seats are played by the opponents between the learner's
decisions. The face is a thin layer over one
:class:`~canasta_env.batched_table.BatchedTable` (``envs.tables``), which steps the
tables, plays the opponents, books each hand and deals; each episode's seat and seeds
are drawn from its table's generator (by the batch itself on the fast path) and the face
gathers Gymnasium's returns. The rewards, the
episode ends and the seeding are the single env's: table ``k`` reset with seed ``s + k``
and stepped with the same actions gives the rewards that ``CanastaGymEnv`` reset with
``s + k`` gives (``tests/test_vector_faces.py``).

Spaces
    ``single_observation_space``: the single env's ``Dict(observation=Box(686,)
    float32, action_mask=Box(500,) int8)``; ``observation_space`` its batch (arrays of
    ``(N, 686)`` and ``(N, 500)``). ``single_action_space``: ``Discrete(500)``;
    ``action_space``: ``MultiDiscrete([500] * N)``. ``action_masks()``: the masks as
    ``(N, 500)`` bools (sb3-contrib's name).

Autoreset
    ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``): a table whose episode
    ends is dealt again within the step, so every row of the returned observation is a
    decision to take and every mask has a legal action (a masked sampler never meets an
    empty row). The ended episode's last observation and info are in
    ``info["final_obs"]`` and ``info["final_info"]`` (``info["_final_obs"]`` marks the
    rows), as Gymnasium's ``SyncVectorEnv`` gives them in that mode; the top-level info
    of such a row is the new episode's.

Infos
    Every step: ``seat`` (the seat to act, a learner seat) and ``deal_seed`` of each
    table. A hand that ends adds its result for the learner's team (its
    :class:`~canasta_env.batched_table.HandEnd`, by the one convention of
    :mod:`canasta_env.engine.outcome`): ``outcome`` (+1/0/-1), ``margin`` (points minus
    the other teams' mean) and ``points`` (every team's hand total, ``(N, teams)``),
    with ``end_reason``, ``hand_scores`` and ``scores`` as the single env gives them; in
    ``final_info`` when the hand ends the episode, at the top level when it does not
    (``episode="game"``). An illegal action ended with ``illegal_action="terminate"``
    puts ``illegal_action`` (the id) in ``final_info``.

Engines and opponents
    ``backend``: "core", "python" or None (the core where it is built). On the core,
    with every opponent a house bot that has a twin in the batched core
    (:func:`canasta_env.core.batch_twin`) and no ``max_cycles``, the tables are one
    ``_core.Batch`` and one call plays the learner's moves and the opponents' (the fast
    path, ``batched``); otherwise each table is a ``Table`` and the opponents play
    through ``Table.play``: the batched table's two engines. Both give the same steps,
    bit for bit; ``batched=False`` forces the second, ``batched=True`` requires the first
    (``docs/vector.md``).

Threads
    One face is stepped by one thread at a time: a ``reset`` or ``step`` while another
    thread is inside one of the same face raises ``RuntimeError`` ("... is being stepped
    by another thread: one thread at a time"; :class:`~canasta_env.threads.OneThread`).
    Separate faces step in separate threads.
"""

from __future__ import annotations

from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from canasta_env import core, gym_env
from canasta_env.actions import NUM_ACTIONS
from canasta_env.batched_table import CALLER, TRUNCATED, BatchedTable, HandEnd
from canasta_env.engine.game import IllegalActionError
from canasta_env.engine.state import team_of_seat
from canasta_env.env import observation_space
from canasta_env.gym_env import MAX_REDEALS, check_keywords, opponent_list
from canasta_env.options import LearnerOptions, is_integer
from canasta_env.rules import Rules, make_rules
from canasta_env.table import SEED_BOUND, RefusedAction
from canasta_env.threads import OneThread

_INT64_MIN, _INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)


def _hand_info_of(hand: HandEnd, team: int) -> dict:
    """The info of a hand that ended, for ``team`` (the learner's): its result by the one
    convention, then the single env's end-of-hand keys."""
    result = hand.result
    return {
        "outcome": result.outcome(team),
        "margin": float(result.margin(team)),
        "points": np.array(result.points, np.int64),
        "hand_scores": hand.hand_scores,
        "scores": hand.scores,
        "end_reason": hand.end_reason,
    }


class _RandomMove:
    """The single env's default opponent: a uniform legal action from the table's generator."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


class _Callable:
    """An opponent given as a function ``(observation, action_mask) -> action``."""

    def __init__(self, function):
        self.act = function


class CanastaVectorEnv(gym.vector.VectorEnv):
    """``num_envs`` single-learner tables stepped together (see the module doc).

    The arguments are :class:`~canasta_env.gym_env.CanastaGymEnv`'s (``render_mode``
    aside) and ``num_envs``, ``backend``, ``batched`` (None: the fast path where it can
    run; False: never; True: required). An agent name in ``opponents`` builds one agent
    per table and seat; an agent object or a callable given is shared by every table
    (on the fast path each table gets its own twin of it).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 8,
        variant: str | Rules = "classic",
        num_players: int = 2,
        opponents=None,
        learner: str = "team",
        seat: int | None = None,
        reward: str = "score",
        reward_scale: float = 1000.0,
        episode: str = "hand",
        max_cycles: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        backend: str | None = None,
        render_mode: str | None = None,
        batched: bool | None = None,
        **rule_overrides,
    ):
        self._one_thread = OneThread("this CanastaVectorEnv")
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)):
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
        if render_mode is not None:
            raise ValueError(f"render_mode must be None for the vector face, got {render_mode!r}")
        check_keywords(CanastaVectorEnv, rule_overrides)
        #: the checked options, as the single env's (:class:`LearnerOptions`)
        self.options = options = LearnerOptions(
            rules=make_rules(variant, **rule_overrides),
            num_players=num_players,
            reward=reward,
            reward_scale=reward_scale,
            episode=episode,
            max_cycles=max_cycles,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            backend=backend,
            learner=learner,
            seat=seat,
        )
        self.rules = options.rules
        self.num_players = options.num_players
        self.backend = options.backend
        self.num_envs = int(num_envs)
        self.render_mode = None

        self.single_observation_space = observation_space()
        self.single_action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        n = self.num_envs
        self._resolve = None  # the agent-name resolver, looked up once (entry points are slow)
        self._specs = self._check_opponents(opponents)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self._seat = np.zeros(n, np.int64)  # each table's learner seat (drawn at its reset)
        # the other seats of each learner seat, in seat order (the opponents')
        self._other_seats = [
            [s for s in range(self.num_players) if s not in self._seats_of(seat)]
            for seat in range(self.num_players)
        ]
        # each table's deal seed: as int64, and as given where one is past int64 (a seed
        # given at reset: every size is taken; the infos then hold them as objects)
        self._deal_seeds = np.zeros(n, np.int64)
        self._big_seeds: dict[int, int] = {}
        self._everywhere = np.ones(n, bool)
        self._has_reset = False
        self._stopped: str | None = None  # what stopped the episodes, until reset()
        #: the tables: one ``_core.Batch`` on the fast path, else a ``Table`` each
        self.tables = BatchedTable(
            options.rules,
            options.num_players,
            n,
            reward=options.reward,
            reward_scale=options.reward_scale,
            episode=options.episode,
            backend=options.backend,
            batched=self._choose_path(batched),
            max_cycles=options.max_cycles,
        )
        if self.tables.batched:  # the batch draws and deals each episode (_reset_tables)
            self.tables.configure_episodes(
                [[agent for _, agent in specs] for specs in self._specs],
                options.seat,
                options.learner == "team",
            )
            self._seat, self._deal_seeds = self.tables.learner_seat, self.tables.deal_seed

    def _choose_path(self, batched: bool | None) -> bool:
        """The fast path where it can run (``batched`` None), required (True) or not
        (False): the core, no ``max_cycles``, and every opponent a house bot with a twin in
        the batched core (:func:`canasta_env.core.batch_twin`)."""
        if batched is not None and not isinstance(batched, bool):
            raise ValueError(f"batched must be None, True or False, got {batched!r}")
        why_not = None
        if self.backend != "core":
            why_not = "the Python engine"
        elif self.options.max_cycles is not None:
            why_not = "max_cycles"
        elif self._specs is None:
            why_not = "the default random opponent (numpy draws)"
        elif any(core.batch_twin(agent) is None for _, agent in self._specs[0]):
            why_not = "an opponent without a twin in the core"
        if batched and why_not is not None:
            raise ValueError(f"batched=True: no batched path with {why_not}")
        return batched is not False and why_not is None

    @property
    def batched(self) -> bool:
        """Whether the tables are one ``_core.Batch`` with the opponents inside it."""
        return self.tables.batched

    def _start_episode(self, k: int, seed: int | None, attempt: int) -> np.random.Generator:
        """Table ``k``'s generator (seeded anew on a reset's first deal that gives a seed)
        and the learner's seat drawn from it, as the single env does."""
        if attempt == 0 and (seed is not None or self._rngs[k] is None):
            self._rngs[k] = seeding.np_random(seed)[0]
        rng = self._rngs[k]
        seat = self.options.seat
        if seat is None:
            seat = int(rng.integers(self.num_players))
        self._seat[k] = seat
        return rng

    def _set_deal_seed(self, k: int, seed: int) -> None:
        if _INT64_MIN <= seed <= _INT64_MAX:
            self._deal_seeds[k] = seed
            self._big_seeds.pop(k, None)
        else:
            self._big_seeds[k] = seed

    def _deal_seed(self, k: int) -> int:
        """Table ``k``'s deal seed, as given."""
        return self._big_seeds.get(k, int(self._deal_seeds[k]))

    def _seed_infos(self) -> np.ndarray:
        """The tables' deal seeds as an ``int64`` array, or an ``object`` array of Python
        integers where one is past int64."""
        if not self._big_seeds:
            return self._deal_seeds.copy()
        return np.array([self._deal_seed(k) for k in range(self.num_envs)], object)

    # -------------------------------------------------------------- opponents
    def _check_opponents(self, opponents) -> list[list] | None:
        """Per table, one ``(name, agent)`` per other seat; None: random legal moves."""
        if opponents is None:
            return None
        given = opponent_list(opponents, self.num_players - len(self._seats_of(0)), self)
        return [
            [(o, self._agent_by_name(o, None)) if isinstance(o, str) else (None, o) for o in given]
            for _ in range(self.num_envs)
        ]

    def _agent_by_name(self, name: str, seed: int | None):
        try:
            if self._resolve is None:
                self._resolve = gym_env.agent_name_resolver()
            return self._resolve(name, seed=seed)
        except ValueError as error:
            raise ValueError(f"opponents: {error}") from error

    def _deal_opponents(self, k: int, rng: np.random.Generator) -> tuple[list, list[int]]:
        """Table ``k``'s opponents for its episode, by seat (None: a learner's), and their
        seeds, drawn as the single env draws them (the table seeds and resets them)."""
        agents: list = [None] * self.num_players
        seeds = [0] * self.num_players
        seats = self._other_seats[self._seat[k]]
        if self._specs is None:
            random_move = _RandomMove(rng)
            for s in seats:
                agents[s] = random_move
            return agents, seeds
        specs = self._specs[k]
        for index, (s, (name, opponent)) in enumerate(zip(seats, specs)):
            seeds[s] = int(rng.integers(SEED_BOUND))
            if not callable(getattr(opponent, "act", None)):
                opponent = _Callable(opponent)
            elif not callable(getattr(opponent, "seed", None)) and name is not None:
                opponent = self._agent_by_name(name, seeds[s])  # built again, seeded
                specs[index] = (name, opponent)
            agents[s] = opponent
        return agents, seeds

    # -------------------------------------------------------------- seats
    def _seats_of(self, seat: int) -> frozenset[int]:
        if self.options.learner == "seat":
            return frozenset((seat,))
        team = team_of_seat(self.num_players, seat)
        return frozenset(
            s for s in range(self.num_players) if team_of_seat(self.num_players, s) == team
        )

    # -------------------------------------------------------------- one table's course
    def _reset_tables(self, tables: list[int], seeds: list[int | None] | None = None) -> None:
        """Deal each of ``tables`` a new episode as the single env's ``reset(seed)`` does:
        the learner's seat, the opponents' seeds and the deal from its generator, dealt
        again (seed drawn) while the episode ends before the learner acts (``seeds``: the
        deal seeds given, None for none). On the fast path the batch draws and deals in
        one call (``BatchedTable.new_episodes``) from the generators ``_reset`` gave it."""
        if self.batched:
            self._new_episodes(tables, seeds)
            return
        pending = dict(zip(tables, seeds or [None] * len(tables)))
        attempt = 0
        while pending:
            if attempt == MAX_REDEALS:
                raise RuntimeError(f"no deal in {MAX_REDEALS} in which the learner acts")
            deals = []
            for k, seed in pending.items():
                rng = self._start_episode(k, seed, attempt)
                agents, agent_seeds = self._deal_opponents(k, rng)
                deal_seed = seed if attempt == 0 and seed is not None else None
                if deal_seed is None:
                    deal_seed = int(rng.integers(SEED_BOUND))
                self._set_deal_seed(k, deal_seed)
                deals.append((k, deal_seed, agents, agent_seeds))
            self.tables.deal(deals)
            status = self.tables.status
            pending = {k: None for k in pending if status[k] != CALLER}
            attempt += 1
        for k in tables:
            self.tables.hand_ends.pop(k, None)  # a hand over before the learner's first decision

    def _new_episodes(self, tables: list[int], seeds: list[int | None] | None) -> None:
        """The fast path's ``_reset_tables``: the batch writes the seats (``_seat``) and
        the deal seeds (``_deal_seeds``); a given seed past int64 is kept here while its
        deal holds (``redeals`` 0)."""
        if not tables:
            return
        self.tables.new_episodes(tables, seeds)
        big_seeds = self._big_seeds
        for k in tables if big_seeds else ():
            big_seeds.pop(k, None)
        if seeds is None:
            return
        redeals = self.tables.redeals
        for k, seed in zip(tables, seeds):
            if seed is not None and not _INT64_MIN <= seed <= _INT64_MAX and redeals[k] == 0:
                big_seeds[k] = seed

    def _hand_info(self, k: int) -> dict:
        """The hand that ended at table ``k``, from the learner's team's side."""
        team = team_of_seat(self.num_players, self._seat[k])
        return _hand_info_of(self.tables.hand_ends[k], team)

    # -------------------------------------------------------------- gym API
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options=None):
        """Deal every table a new episode: table ``k`` as the single env's
        ``reset(seed=seed + k)`` (a sequence or array: ``seed[k]``; None: from each
        table's generator). Every seed is checked before anything changes."""
        with self._one_thread:
            self._check_open()
            if options:
                raise ValueError(f"the vector face takes no reset options, got {options!r}")
            seeds = self._table_seeds(seed)
            self._stopped = "an opponent's error in a reset"  # until the reset is done
            try:
                result = self._reset(seed, seeds)
            except RefusedAction as refused:
                raise self._stop(refused) from None
            self._stopped = None
            return result

    def _stop(self, refused: RefusedAction) -> IllegalActionError:
        """The error to raise for an opponent's illegal action, the env stopped: the
        opponent and its seat, not the engine's reason (which names that seat's cards,
        hidden from the learner; ``refused.reason`` keeps it)."""
        self._stopped = "an opponent's illegal action"
        error = IllegalActionError(
            f"the opponent {refused.label!r} at seat {refused.seat} chose an illegal action; "
            f"an opponent must pick an action of its mask (the env stopped: call reset())"
        )
        error.reason = refused.reason
        return error

    def _table_seeds(self, seed) -> list[int | None]:
        """Each table's reset seed: ``seed + k``, or ``seed[k]``; ``ValueError`` naming
        the first that is not None or an integer >= 0."""

        def checked(value, what: str) -> int | None:
            if value is not None and not (is_integer(value) and value >= 0):
                raise ValueError(f"{what} must be None or an integer >= 0, got {value!r}")
            return None if value is None else int(value)

        if seed is None or is_integer(seed):
            base = checked(seed, "seed")
            return [None if base is None else base + k for k in range(self.num_envs)]
        if isinstance(seed, (str, bytes)) or not isinstance(seed, (Sequence, np.ndarray)):
            raise ValueError(
                f"seed must be None, an integer or {self.num_envs} seeds, got {seed!r}"
            )
        if np.ndim(seed) != 1 or len(seed) != self.num_envs:
            raise ValueError(f"seed must be an integer or {self.num_envs} seeds, got {seed!r}")
        return [checked(value, f"seed[{k}]") for k, value in enumerate(seed)]

    def _check_open(self) -> None:
        if self.tables is None:
            raise RuntimeError("this CanastaVectorEnv is closed: make a new one")

    def _reset(self, seed, seeds: list[int | None]):
        if seed is None or is_integer(seed):
            super().reset(seed=None if seed is None else int(seed))
        if self.batched:  # each table's generator, as _start_episode seeds it
            for k, table_seed in enumerate(seeds):
                if table_seed is not None or not self._has_reset:
                    self.tables.set_generator(k, seeding.np_random(table_seed)[0])
        self._reset_tables(list(range(self.num_envs)), seeds)
        self._has_reset = True
        return self._observation(), self._info()

    def step(self, actions):
        """Play ``actions[k]`` (the learner's) at every table, then the opponents up to the
        learner's next decision; Gymnasium's ``(obs, rewards, terminated, truncated,
        info)``."""
        with self._one_thread:
            if not self._has_reset:
                raise RuntimeError("reset() must be called before step()")
            self._check_open()
            if self._stopped is not None:
                raise RuntimeError(f"{self._stopped} stopped this CanastaVectorEnv: call reset()")
            try:
                return self._step(actions)
            except IllegalActionError as error:
                if isinstance(error, RefusedAction):
                    raise self._stop(error) from None
                raise  # the learner's action, refused before anything changed
            except BaseException:
                self._stopped = "an opponent's error"
                raise

    def _step(self, actions):
        tables = self.tables
        actions = np.asarray(actions)
        acting = tables.seat.copy()
        # every id checked, then each action (raised, or its table not played)
        tables.play(actions, raise_illegal=self.options.illegal_action == "raise")
        legal = tables.legal
        all_legal = np.count_nonzero(legal) == self.num_envs  # (no wrapper: cheaper than all())
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        ended = tables.ended
        for k in ended:
            if tables.status[k] == TRUNCATED:
                truncated[k] = True
            else:
                terminated[k] = True
        rewards = tables.take_rewards(self._seat)
        if not all_legal:
            rewards[~legal] += self.options.illegal_reward
            terminated |= ~legal
            ended = np.flatnonzero(terminated | truncated).tolist()
        hands = tables.hand_ends
        top_rows = []  # episode="game": a hand's result at the top level
        if hands:
            over = set(ended)
            top_rows = [(k, self._hand_info(k)) for k in sorted(hands) if k not in over]
        final_obs = np.empty(self.num_envs, dtype=object) if ended else None  # all None
        final_rows = []
        for k in ended:
            info = {"seat": int(acting[k]), "deal_seed": self._deal_seed(k)}
            if legal[k]:
                final_obs[k] = tables.final_view(k)
                if k in tables.hand_ends:
                    info.update(self._hand_info(k))
            else:  # ended by the illegal action: the position is the one the learner saw
                final_obs[k] = {
                    "observation": tables.obs[k].copy(),
                    "action_mask": np.zeros_like(tables.mask[k]),
                }
                info["illegal_action"] = int(actions[k])
            final_rows.append((k, info))
        tables.hand_ends.clear()
        self._reset_tables(ended)
        info = {**self._info(), **self._gather_infos(top_rows)}
        if ended:
            ends = np.zeros(self.num_envs, bool)
            for k in ended:  # one or two tables: cheaper than fancy indexing
                ends[k] = True
            info.update(
                final_obs=final_obs, _final_obs=ends, final_info=self._gather_infos(final_rows)
            )
            info["_final_info"] = ends.copy()
        return self._observation(), rewards, terminated, truncated, info

    def _gather_infos(self, rows: list[tuple[int, dict]]) -> dict:
        """The tables' infos (``(k, info)`` in ascending ``k``) as Gymnasium's
        ``_add_info`` gathers them one by one: the same keys in the same order, each with
        its ``_key`` mask, the same dtypes (but an integer past int64, a deal seed given
        at reset: its column holds Python integers, as ``info["deal_seed"]``); flat infos
        only."""
        gathered: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # key -> (values, has)
        for k, info in rows:
            for key, value in info.items():
                pair = gathered.get(key)
                if pair is None:
                    if type(value) in (int, float, bool) or issubclass(type(value), np.number):
                        array = np.zeros(self.num_envs, dtype=type(value))
                    elif isinstance(value, np.ndarray):
                        array = np.zeros((self.num_envs, *value.shape), dtype=value.dtype)
                    else:  # an object array is made all None
                        array = np.empty(self.num_envs, dtype=object)
                    pair = gathered[key] = (array, np.zeros(self.num_envs, np.bool_))
                try:
                    pair[0][k] = value
                except OverflowError:  # an integer past int64 (a seed): the column holds objects
                    pair = gathered[key] = (pair[0].astype(object), pair[1])
                    pair[0][k] = value
                pair[1][k] = True
        infos: dict = {}
        for key, (array, has) in gathered.items():
            infos[key] = array
            infos["_" + key] = has
        return infos

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": self.tables.obs.copy(), "action_mask": self.tables.mask.copy()}

    def _info(self) -> dict:
        return {
            "seat": self.tables.seat.copy(),
            "_seat": self._everywhere.copy(),
            "deal_seed": self._seed_infos(),
            "_deal_seed": self._everywhere.copy(),
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's seat to act at every table, ``(N, 500)`` bool."""
        self._check_open()
        return self.tables.mask.astype(bool)

    def close_extras(self, **kwargs) -> None:
        self.tables = None  # the batch's games and buffers let go


__all__ = ["CanastaVectorEnv"]
