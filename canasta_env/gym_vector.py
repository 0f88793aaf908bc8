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
decisions, through :meth:`Table.play <canasta_env.table.Table.play>`. The rewards, the
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
    table. A hand that ends adds its result for the learner's team
    (:meth:`Table.result <canasta_env.table.Table.result>`, the one convention of
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
    path, ``batched``); otherwise the opponents' moves are made by
    :meth:`CanastaVectorEnv._play_opponents` through ``Table.play``. Both give the same
    steps, bit for bit; ``batched=False`` forces the second, ``batched=True`` requires
    the first (``docs/vector.md``).

Threads
    One face is stepped by one thread at a time: a ``reset`` or ``step`` while another
    thread is inside one of the same face raises ``RuntimeError`` ("... is being stepped
    by another thread: one thread at a time"; :class:`~canasta_env.threads.OneThread`).
    Separate faces step in separate threads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import gymnasium as gym
import numpy as np
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from canasta_env import core, gym_env
from canasta_env.actions import NUM_ACTIONS
from canasta_env.engine.game import IllegalActionError
from canasta_env.engine.outcome import Result
from canasta_env.engine.scoring import SHEET_ROWS
from canasta_env.engine.state import END_REASONS, team_of_seat
from canasta_env.env import OPTIONS, check_options, observation_space
from canasta_env.gym_env import GYM_OPTIONS, MAX_REDEALS, opponent_list
from canasta_env.observation import OBS_SIZE
from canasta_env.rules import Rules, check_player_count, make_rules, unknown_fields_text
from canasta_env.table import MASK_DTYPE, OBS_DTYPE, Table, resolve_backend
from canasta_env.threads import OneThread
from canasta_env.vector import seed_words

if core.AVAILABLE:
    from canasta_env import _core

_SEED_BOUND = 2**31 - 1  # the single env's bound of drawn seeds
_INT64 = np.iinfo(np.int64)


def _seed_array(seeds: list[int]) -> np.ndarray:
    """The tables' deal seeds as an ``int64`` array, or an ``object`` array of Python
    integers where one is past int64 (a seed given at ``reset``: every size is taken)."""
    fits = all(_INT64.min <= seed <= _INT64.max for seed in seeds)
    return np.array(seeds, np.int64 if fits else object)


_RULES_FIELDS = frozenset(field.name for field in dataclasses.fields(Rules))
#: The single env's options this face takes (render_mode aside: a batch is not drawn).
_FACE_OPTIONS = ("learner", "seat", "illegal_action")
_AEC_OPTIONS = ("num_players", "reward", "reward_scale", "episode", "max_cycles")

# What a table waits for once its moves are settled.
LEARNER, OPPONENTS, TERMINATED, TRUNCATED = "learner", "opponents", "terminated", "truncated"
#: the keys of a score sheet (engine/scoring.py), in the order _core.Batch.hand_sheets holds them
_SHEET_KEYS = (*(key for key, _ in SHEET_ROWS), "canastas")
_SHEET_TOTAL = _SHEET_KEYS.index("total")


def _hand_info(
    result: Result, team: int, hand_scores: list[dict], scores: list[int], end_reason: str
) -> dict:
    """The info of a hand that ended, for ``team`` (the learner's): its result by the one
    convention, then the single env's end-of-hand keys."""
    return {
        "outcome": result.outcome(team),
        "margin": float(result.margin(team)),
        "points": np.array(result.points, np.int64),
        "hand_scores": hand_scores,
        "scores": scores,
        "end_reason": end_reason,
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
        values = {
            "num_players": num_players,
            "reward": reward,
            "reward_scale": reward_scale,
            "episode": episode,
            "max_cycles": max_cycles,
            "learner": learner,
            "seat": seat,
            "illegal_action": illegal_action,
            "illegal_reward": illegal_reward,
            "backend": backend,
        }
        checks = {name: OPTIONS[name] for name in (*_AEC_OPTIONS, "illegal_reward", "backend")}
        checks.update({name: GYM_OPTIONS[name] for name in _FACE_OPTIONS})
        check_options(values, checks)
        unknown = set(rule_overrides) - _RULES_FIELDS
        if unknown:
            own = ("num_envs", "variant", "opponents", "batched", *checks)
            raise ValueError(
                f"unknown argument(s) {unknown_fields_text(unknown, own)}; the env's own "
                f"arguments are {', '.join(own)}, the rest are rules fields"
            )
        self.rules = make_rules(variant, **rule_overrides)
        self.num_players = int(num_players)
        check_player_count(self.rules, self.num_players)
        if seat is not None and not 0 <= seat < self.num_players:
            raise ValueError(f"seat must be None or a seat 0..{self.num_players - 1}, got {seat!r}")
        self.num_envs = int(num_envs)
        self.backend = resolve_backend(backend)
        self.learner_mode = learner
        self.fixed_seat = None if seat is None else int(seat)
        self.reward_mode = reward
        self.reward_scale = float(reward_scale)
        self.episode_mode = episode
        self.max_cycles = None if max_cycles is None else int(max_cycles)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = None

        self.single_observation_space = observation_space()
        self.single_action_space = gym.spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        n = self.num_envs
        self._resolve = None  # the agent-name resolver, looked up once (entry points are slow)
        self._specs = self._check_opponents(opponents)
        self._rngs: list[np.random.Generator | None] = [None] * n
        self.tables: list[Table | None] = [None] * n
        self._seat = [0] * n  # each table's learner seat (drawn at its reset)
        self._learner_seats: list[frozenset[int]] = [frozenset()] * n
        self._opponents: list[dict] = [{}] * n  # seat -> agent, each table's other seats
        self._deal_seeds = [0] * n
        self._moves = [0] * n  # every seat's decisions this episode (max_cycles counts them)
        self._owed = [0.0] * n  # the learner's rewards not yet returned
        self._hand_info: list[dict | None] = [None] * n  # the last hand ended since a step
        self._obs = np.zeros((n, OBS_SIZE), OBS_DTYPE)
        self._mask = np.zeros((n, NUM_ACTIONS), MASK_DTYPE)
        self._has_reset = False
        self._batch = None  # the fast path's _core.Batch (None: Table.play)
        self._twins: list = []  # its bot of each other seat, in seat order
        self._choose_path(batched)

    # -------------------------------------------------------------- the fast path
    def _choose_path(self, batched: bool | None) -> None:
        """The fast path where it can run (``batched`` None), required (True) or not
        (False): the core, no ``max_cycles``, and every opponent a house bot with a twin in
        the batched core (:func:`canasta_env.core.batch_twin`)."""
        if batched is not None and not isinstance(batched, bool):
            raise ValueError(f"batched must be None, True or False, got {batched!r}")
        why_not = None
        if self.backend != "core":
            why_not = "the Python engine"
        elif self.max_cycles is not None:
            why_not = "max_cycles"
        elif self._specs is None:
            why_not = "the default random opponent (numpy draws)"
        else:
            self._twins = [core.batch_twin(agent) for _, agent in self._specs[0]]
            if any(twin is None for twin in self._twins):
                why_not = "an opponent without a twin in the core"
        if batched and why_not is not None:
            raise ValueError(f"batched=True: no batched path with {why_not}")
        if batched is False or why_not is not None:
            self._twins = []
            return
        self._core_rules = core.core_rules(self.rules, self.num_players)
        batch = self._batch = _core.Batch(
            self._core_rules,
            self.rules.name,
            self.num_players,
            self.num_envs,
            self.reward_mode,
            self.reward_scale,
            self.episode_mode,
        )
        self._twins = [twin._bot for twin in self._twins]
        # the batch's buffers, seen once: the env's rows are the batch's (copied out once
        # per step) and an ended hand is read from its hand-end rows
        self._obs, self._mask, self._acting = batch.obs, batch.mask, batch.seat
        self._hand_over, self._game_over = batch.hand_over, batch.game_over
        self._hand_sheets, self._game_scores = batch.hand_sheets, batch.game_scores
        self._end_reason, self._hand_rewards = batch.end_reason, batch.hand_rewards
        self._team_of = tuple(team_of_seat(self.num_players, s) for s in range(self.num_players))
        seats = range(self.num_players)
        self._seat_sets = [self._seats_of(seat) for seat in seats]  # learner seat -> its seats
        self._seat_bots = []  # learner seat -> the bot at each seat (None: a learner's)
        for seat in seats:
            others = [s for s in seats if s not in self._seat_sets[seat]]
            bots = [None] * self.num_players
            for s, twin in zip(others, self._twins):
                bots[s] = twin
            self._seat_bots.append(bots)

    @property
    def batched(self) -> bool:
        """Whether the tables are one ``_core.Batch`` with the opponents inside it."""
        return self._batch is not None

    def _deal_batched(self, k: int, rng: np.random.Generator, deal_seed: int | None) -> int:
        """Deal table ``k`` with its opponents inside the batch: the seeds drawn from
        ``rng`` as :meth:`_deal_opponents` and the single env draw them."""
        bots = self._seat_bots[self._seat[k]]
        bot_seeds = [0 if bot is None else int(rng.integers(_SEED_BOUND)) for bot in bots]
        if deal_seed is None:
            deal_seed = int(rng.integers(_SEED_BOUND))
        self._batch.deal_table(k, *seed_words(deal_seed), bots, bot_seeds)
        return deal_seed

    def _settle_batched(self, k: int) -> str:
        """:meth:`_settle` of a batch table: its bots have played up to the learner's seat
        or the hand's end."""
        while self._hand_over[k]:
            if self._book_hand(k):
                return TERMINATED
            self._batch.next_hand(k)
        return LEARNER

    def _book_hand(self, k: int) -> bool:
        """Book the hand that ended at batch table ``k`` as :meth:`_settle` books a
        table's: the learner's seat's reward as the core booked it (``hand_rewards``,
        ``Table.seat_rewards``'s twin) and the hand's result; whether it ends the
        episode."""
        seat = self._seat[k]
        self._owed[k] += float(self._hand_rewards[k, seat])
        sheets = self._hand_sheets[k].tolist()
        self._hand_info[k] = _hand_info(
            Result.of([sheet[_SHEET_TOTAL] for sheet in sheets], self._team_of),
            self._team_of[seat],
            [dict(zip(_SHEET_KEYS, sheet)) for sheet in sheets],
            self._game_scores[k].tolist(),
            END_REASONS[self._end_reason[k]],
        )
        return self.episode_mode == "hand" or bool(self._game_over[k])

    def _start_episode(self, k: int, seed: int | None, attempt: int) -> np.random.Generator:
        """Table ``k``'s generator (seeded anew on a reset's first deal that gives a seed)
        and the learner's seat drawn from it, as the single env does; both paths' resets
        draw in this order."""
        if attempt == 0 and (seed is not None or self._rngs[k] is None):
            self._rngs[k] = seeding.np_random(seed)[0]
        rng = self._rngs[k]
        seat = self.fixed_seat
        if seat is None:
            seat = int(rng.integers(self.num_players))
        self._seat[k] = seat
        self._learner_seats[k] = self._seats_of(seat)
        return rng

    def _reset_batched(self, tables: list[int], seeds: list[int | None]) -> None:
        """:meth:`_reset_tables` on the batch: the same draws from each table's generator,
        the opponents dealt inside the batch, the views left in the batch's rows."""
        pending = dict(zip(tables, seeds))
        attempt = 0
        while pending:
            if attempt == MAX_REDEALS:
                raise RuntimeError(f"no deal in {MAX_REDEALS} in which the learner acts")
            again = {}
            for k, seed in pending.items():
                rng = self._start_episode(k, seed, attempt)
                self._moves[k] = 0
                self._owed[k] = 0.0
                deal_seed = seed if attempt == 0 and seed is not None else None
                self._deal_seeds[k] = self._deal_batched(k, rng, deal_seed)
                if self._settle_batched(k) != LEARNER:
                    again[k] = None
            pending = again
            attempt += 1
        for k in tables:
            self._hand_info[k] = None  # a hand over before the learner's first decision

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

    def _deal_opponents(self, k: int, rng: np.random.Generator) -> dict:
        """Table ``k``'s opponents for its episode, seeded and reset as the single env does."""
        seats = [s for s in range(self.num_players) if s not in self._learner_seats[k]]
        if self._specs is None:
            random_move = _RandomMove(rng)
            return {s: random_move for s in seats}
        specs = self._specs[k]
        opponents = {}
        for index, (s, (name, opponent)) in enumerate(zip(seats, specs)):
            seed = int(rng.integers(_SEED_BOUND))
            if callable(getattr(opponent, "act", None)):
                if callable(getattr(opponent, "seed", None)):
                    opponent.seed(seed)
                elif name is not None:  # an agent without seed(): built again, seeded
                    opponent = self._agent_by_name(name, seed)
                    specs[index] = (name, opponent)
                if callable(getattr(opponent, "reset", None)):
                    opponent.reset(s, self.num_players, self.rules)
                opponents[s] = opponent
            else:
                opponents[s] = _Callable(opponent)
        return opponents

    def _play_opponents(self, tables: list[int]) -> None:
        """Play the other seats at each of ``tables`` (an opponent is to act at each) until
        a learner seat is to act, the hand is over or ``max_cycles`` decisions are played,
        adding the decisions to ``self._moves``.

        The one place the opponents move: a batched path (bots stepped inside the compiled
        core) replaces this method, and nothing else, to play every listed table at once.
        """
        limit = self.max_cycles
        for k in tables:
            played = [0]

            def count(seat, observation, mask, action, played=played) -> None:
                played[0] += 1

            # the single env truncates after a decision that leaves the hand on with
            # max_cycles decisions played; never before the first of this call
            until = None
            if limit is not None:
                start = self._moves[k]

                def until(table, played=played, start=start) -> bool:
                    return played[0] > 0 and start + played[0] >= limit

            self._moves[k] += self.tables[k].play(self._opponents[k], until, count)

    # -------------------------------------------------------------- seats
    def _seats_of(self, seat: int) -> frozenset[int]:
        if self.learner_mode == "seat":
            return frozenset((seat,))
        team = team_of_seat(self.num_players, seat)
        return frozenset(
            s for s in range(self.num_players) if team_of_seat(self.num_players, s) == team
        )

    # -------------------------------------------------------------- one table's course
    def _settle(self, k: int, moved: bool) -> str:
        """Book what the last move (``moved``) or deal did at table ``k``: pay the hands
        that ended, deal the game's next hand, truncate; say who is to act now."""
        table = self.tables[k]
        while table.hand_over:
            self._owed[k] += table.seat_rewards(
                self.reward_mode, self.reward_scale, self.episode_mode
            )[self._seat[k]]
            self._hand_info[k] = self._hand_result(k, table)
            if table.episode_ends(self.episode_mode):
                return TERMINATED
            table.next_hand()
            moved = False  # the single env checks max_cycles only after a move
        if moved and self.max_cycles is not None and self._moves[k] >= self.max_cycles:
            return TRUNCATED
        return LEARNER if table.current in self._learner_seats[k] else OPPONENTS

    def _run(self, statuses: dict[int, str]) -> dict[int, str]:
        """Let the opponents play at the tables waiting for them, round after round, until
        every table waits for its learner or has ended."""
        waiting = [k for k, status in statuses.items() if status == OPPONENTS]
        while waiting:
            self._play_opponents(waiting)
            for k in waiting:
                statuses[k] = self._settle(k, moved=True)
            waiting = [k for k in waiting if statuses[k] == OPPONENTS]
        return statuses

    def _reset_tables(self, tables: list[int], seeds: list[int | None]) -> None:
        """Deal each of ``tables`` a new episode as the single env's ``reset(seed)`` does:
        the learner's seat, the opponents' seeds and the deal from its generator, dealt
        again (seed drawn) while the episode ends before the learner acts."""
        if self._batch is not None:
            self._reset_batched(tables, seeds)
            return
        pending = dict(zip(tables, seeds))
        attempt = 0
        while pending:
            if attempt == MAX_REDEALS:
                raise RuntimeError(f"no deal in {MAX_REDEALS} in which the learner acts")
            statuses = {}
            for k, seed in pending.items():
                rng = self._start_episode(k, seed, attempt)
                deal_seed = seed if attempt == 0 and seed is not None else None
                self._moves[k] = 0
                self._owed[k] = 0.0
                self._hand_info[k] = None
                self._opponents[k] = self._deal_opponents(k, rng)
                if deal_seed is None:
                    deal_seed = int(rng.integers(_SEED_BOUND))
                self._deal_seeds[k] = deal_seed
                self.tables[k] = Table(
                    self.rules, self.num_players, seed=deal_seed, backend=self.backend
                )
                statuses[k] = self._settle(k, moved=False)
            self._run(statuses)
            pending = {k: None for k, status in statuses.items() if status != LEARNER}
            attempt += 1
        for k in tables:
            self._hand_info[k] = None  # a hand over before the learner's first decision
            self._write_view(k)

    def _write_view(self, k: int) -> None:
        table = self.tables[k]
        view = table.view(table.current)
        self._obs[k] = view["observation"]
        self._mask[k] = view["action_mask"]

    def _hand_result(self, k: int, table: Table) -> dict:
        """The hand that ended at ``table`` (table ``k``), from the learner's team's side."""
        outcome = table.outcome()
        return _hand_info(
            table.result("hand"),
            team_of_seat(self.num_players, self._seat[k]),
            outcome["hand_scores"],
            outcome["scores"],
            outcome["end_reason"],
        )

    # -------------------------------------------------------------- gym API
    def reset(self, *, seed: int | Sequence[int | None] | None = None, options=None):
        """Deal every table a new episode: table ``k`` as the single env's
        ``reset(seed=seed + k)`` (a list: ``seed[k]``; None: from each table's generator)."""
        with self._one_thread:
            return self._reset(seed, options)

    def _reset(self, seed, options):
        if options:
            raise ValueError(f"the vector face takes no reset options, got {options!r}")
        if seed is None or isinstance(seed, (int, np.integer)):
            super().reset(seed=None if seed is None else int(seed))
            seeds = [None if seed is None else int(seed) + k for k in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"seed must be an integer or {self.num_envs} seeds, got {seed!r}")
        self._reset_tables(list(range(self.num_envs)), seeds)
        self._has_reset = True
        return self._observation(), self._info()

    def step(self, actions):
        """Play ``actions[k]`` (the learner's) at every table, then the opponents up to the
        learner's next decision; Gymnasium's ``(obs, rewards, terminated, truncated,
        info)``."""
        with self._one_thread:
            return self._step(actions)

    def _step(self, actions):
        if not self._has_reset:
            raise RuntimeError("reset() must be called before step()")
        ids = self._ids(actions)
        legal = self._mask[np.arange(self.num_envs), ids].astype(bool)
        if self.illegal_action == "raise" and not legal.all():
            k = int(np.flatnonzero(~legal)[0])
            seat = self._acting[k] if self._batch is not None else self.tables[k].current
            raise IllegalActionError(f"table {k}: illegal action {int(ids[k])} for seat {seat}")
        if self._batch is not None:
            return self._step_batched(ids, legal)
        acting = [table.current for table in self.tables]
        statuses = {}
        for k in np.flatnonzero(legal).tolist():
            self.tables[k].step(int(ids[k]))
            self._moves[k] += 1
            statuses[k] = self._settle(k, moved=True)
        self._run(statuses)

        rewards, terminated, truncated, ended = self._step_ends(statuses, legal)
        info: dict = {}
        for k in range(self.num_envs):
            if self._hand_info[k] is not None and k not in ended:
                info = self._add_info(info, self._hand_info[k], k)  # episode="game"
        final_obs = np.full(self.num_envs, None, dtype=object)
        final_info: dict = {}
        for k in ended:
            table = self.tables[k]
            final_obs[k], final_info = self._final(
                k, table, acting[k], int(ids[k]), legal[k], final_info
            )
        for k in statuses:
            if k not in ended:
                self._write_view(k)
        return self._step_result(ended, rewards, terminated, truncated, info, final_obs, final_info)

    def _step_batched(self, ids: np.ndarray, legal: np.ndarray):
        """:meth:`step` on the batch: one call plays the learner's actions and the
        opponents' moves; the tables whose hand ended are booked here, from the batch's
        hand-end rows, and their infos gathered as ``_add_info`` gathers the other path's."""
        acting = self._acting.copy()
        self._batch.step_learner(ids, legal)
        all_legal = legal.all()
        terminated = ~legal
        top_rows = []  # episode="game": a hand's result at the top level
        for k in np.flatnonzero(self._hand_over & legal).tolist():
            if self._settle_batched(k) == TERMINATED:
                terminated[k] = True
            else:
                top_rows.append((k, self._hand_info[k]))
        rewards = np.array(self._owed, np.float64)
        if not all_legal:
            rewards[~legal] += self.illegal_reward
        self._owed = [0.0] * self.num_envs
        ended = np.flatnonzero(terminated).tolist()
        final_obs = np.empty(self.num_envs, dtype=object)  # all None
        final_rows = []
        for k in ended:
            info = {"seat": int(acting[k]), "deal_seed": self._deal_seeds[k]}
            if legal[k]:
                observation, mask = _core.view(self._batch.game(k), int(acting[k]), False)
                final_obs[k] = {"observation": observation, "action_mask": mask}
                info.update(self._hand_info[k])
            else:  # ended by the illegal action: the position is the one the learner saw
                final_obs[k] = {
                    "observation": self._obs[k].copy(),
                    "action_mask": np.zeros_like(self._mask[k]),
                }
                info["illegal_action"] = int(ids[k])
            final_rows.append((k, info))
        return self._step_result(
            ended,
            rewards,
            terminated,
            np.zeros(self.num_envs, bool),
            self._gather_infos(top_rows),
            final_obs,
            self._gather_infos(final_rows),
        )

    def _gather_infos(self, rows: list[tuple[int, dict]]) -> dict:
        """The tables' infos (``(k, info)`` in ascending ``k``) as Gymnasium's
        ``_add_info`` gathers them one by one: the same keys in the same order, each with
        its ``_key`` mask, the same dtypes; flat infos only."""
        infos: dict = {}
        for k, info in rows:
            for key, value in info.items():
                array = infos.get(key)
                if array is None:
                    if type(value) in (int, float, bool) or issubclass(type(value), np.number):
                        array = np.zeros(self.num_envs, dtype=type(value))
                    elif isinstance(value, np.ndarray):
                        array = np.zeros((self.num_envs, *value.shape), dtype=value.dtype)
                    else:  # an object array is made all None
                        array = np.empty(self.num_envs, dtype=object)
                    infos[key] = array
                    infos["_" + key] = np.zeros(self.num_envs, np.bool_)
                array[k] = value
                infos["_" + key][k] = True
        return infos

    def _step_ends(self, statuses: dict[int, str], legal: np.ndarray):
        """The step's rewards (the owed ones paid), terminations, truncations and the
        tables whose episode ended."""
        rewards = np.array(self._owed, np.float64)
        terminated = np.zeros(self.num_envs, bool)
        truncated = np.zeros(self.num_envs, bool)
        for k in np.flatnonzero(~legal).tolist():
            rewards[k] += self.illegal_reward
            terminated[k] = True
        for k, status in statuses.items():
            terminated[k] = status == TERMINATED
            truncated[k] = status == TRUNCATED
        self._owed = [0.0] * self.num_envs
        return rewards, terminated, truncated, np.flatnonzero(terminated | truncated).tolist()

    def _step_result(self, ended, rewards, terminated, truncated, info, final_obs, final_info):
        """Deal the ended tables again and gather the step's return."""
        self._reset_tables(ended, [None] * len(ended))
        self._hand_info = [None] * self.num_envs
        info = {**self._info(), **info}
        if ended:
            ends = np.zeros(self.num_envs, bool)
            ends[ended] = True
            info.update(final_obs=final_obs, _final_obs=ends, final_info=final_info)
            info["_final_info"] = ends.copy()
        return self._observation(), rewards, terminated, truncated, info

    def _final(
        self, k: int, table: Table | None, acting: int, action: int, legal: bool, final_info: dict
    ):
        """Table ``k``'s last observation (the seat that acted, shown as not to act) and
        its info, added to ``final_info``."""
        if legal:
            view = table.view(acting, live=False)
        else:  # ended by the illegal action: the position is the one the learner saw
            view = {"observation": self._obs[k].copy(), "action_mask": np.zeros_like(self._mask[k])}
        info = {"seat": acting, "deal_seed": self._deal_seeds[k]}
        if self._hand_info[k] is not None:
            info.update(self._hand_info[k])
        if not legal:
            info["illegal_action"] = action
        return view, self._add_info(final_info, info, k)

    def _ids(self, actions) -> np.ndarray:
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,) or actions.dtype.kind not in "iu":
            raise IllegalActionError(
                f"actions must be {self.num_envs} integer ids, got shape {actions.shape} "
                f"of {actions.dtype}"
            )
        outside = (actions < 0) | (actions >= NUM_ACTIONS)
        if outside.any():
            k = int(np.flatnonzero(outside)[0])
            raise IllegalActionError(
                f"table {k}: action id {int(actions[k])} is outside 0..{NUM_ACTIONS - 1}"
            )
        return actions.astype(np.int64)

    def _observation(self) -> dict[str, np.ndarray]:
        return {"observation": self._obs.copy(), "action_mask": self._mask.copy()}

    def _info(self) -> dict:
        everywhere = np.ones(self.num_envs, bool)
        if self._batch is not None:
            seats = self._acting.copy()
        else:
            seats = np.array([table.current for table in self.tables], np.int64)
        return {
            "seat": seats,
            "_seat": everywhere,
            "deal_seed": _seed_array(self._deal_seeds),
            "_deal_seed": everywhere.copy(),
        }

    def action_masks(self) -> np.ndarray:
        """The legal actions of the learner's seat to act at every table, ``(N, 500)`` bool."""
        return self._mask.astype(bool)

    def close_extras(self, **kwargs) -> None:
        n = getattr(self, "num_envs", 0)  # 0: __init__ refused its arguments before the tables
        self._batch = None
        self._twins = []
        self.tables = [None] * n
        self._opponents = [{}] * n


__all__ = ["CanastaVectorEnv"]
