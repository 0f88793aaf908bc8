"""Batched Canasta for training: N tables stepped with one array of actions.

Usage::

    import canasta_env

    venv = canasta_env.vector_env(variant="classic", num_players=4, num_envs=256, seed=0)
    obs, mask, seat = venv.reset()
    obs, mask, seat, rewards, done = venv.step(actions)

The env is a face over one :class:`~canasta_env.batched_table.BatchedTable` (``venv.tables``,
every seat the caller's, auto-deal on): row ``k`` of every array is table ``k``.

========  ========================  ===============================================================
array     shape, dtype              row ``k`` after ``reset`` and after each ``step``
========  ========================  ===============================================================
obs       (N, 686) float32          the observation of ``seat[k]``, the seat to act
                                    (:mod:`canasta_env.observation`)
mask      (N, 500) int8             its legal actions (never empty)
seat      (N,) int64                the seat to act
rewards   (N, num_players) float32  what each seat earned on this step (the env's rewards,
                                    ``Table.seat_rewards``, summed over the hands that ended)
done      (N,) bool                 the episode ended on this step; the table already holds a
                                    new game, whose view the row shows
========  ========================  ===============================================================

The arrays are the env's own buffers, rewritten in place by every ``reset`` and ``step``:
copy a row or an array (``obs.copy()``) to keep it past the next call.

Arguments
    ``variant`` and ``house_rules`` (a dict of rules fields) make the rules as the
    PettingZoo env does (:func:`~canasta_env.rules.make_rules`); ``num_players``,
    ``reward`` ("score" or "win"), ``reward_scale`` and ``episode`` ("hand" or "game")
    are the env's options, checked as the env checks them (``venv.options``, a
    :class:`~canasta_env.options.TableOptions`); ``num_envs`` tables; ``seed``:
    deal ``h`` (numbered over the batch in the order the deals are made) is seeded
    ``seed + h``, as ``random.Random(seed + h)``: any Python integer, negative or past
    64 bits, deals the same tables on both backends. ``backend``: "core" steps the
    compiled core (:mod:`canasta_env.core`; the GIL is released while it steps, so
    threads may step separate envs at once), "python" the pure-Python engine, a
    :class:`~canasta_env.table.Table` per table; None takes the core where it is built.
    Both give the same arrays, bit for bit (``tests/test_core_vector.py``).

Self-play
    Every seat acts, so a seat's trajectory is its own decisions at a table, and the
    rewards of a step go to every seat. :func:`seat_credit` books a rollout of steps to
    the seats that acted: each decision's reward up to the seat's next decision, the
    link to that decision and where the seat's episode ends (per-seat returns, GAE).

Errors
    ``step`` takes an integer array of shape ``(N,)`` (any integer dtype, either byte
    order); any other shape or dtype, an id outside 0..499, or an action not legal at its
    table raises :class:`~canasta_env.engine.game.IllegalActionError` (a ``ValueError``)
    naming it (and the table, and the id's real value) before anything changes, with the
    same message on both backends. ``step`` before ``reset`` raises ``RuntimeError``.

Threads
    One env is stepped by one thread at a time: a ``reset`` or ``step`` while another
    thread is inside one of the same env raises ``RuntimeError`` ("... is being stepped
    by another thread: one thread at a time") and changes nothing
    (:class:`~canasta_env.threads.OneThread`). Separate envs step in separate threads.
"""

from __future__ import annotations

import numpy as np

from canasta_env.actions import NUM_ACTIONS
from canasta_env.batched_table import BatchedTable, seed_words
from canasta_env.observation import OBS_SIZE
from canasta_env.options import TableOptions
from canasta_env.rules import Rules, make_rules
from canasta_env.table import MASK_DTYPE, OBS_DTYPE
from canasta_env.threads import OneThread

#: The dtype of the rewards array (BatchedTable's float64 sums, cast).
REWARD_DTYPE = np.dtype(np.float32)


class VectorEnv:
    """N tables of one rules object; see the module docstring. Made by :func:`vector_env`:
    a face over one :class:`~canasta_env.batched_table.BatchedTable` (``self.tables``)."""

    observation_size = OBS_SIZE
    num_actions = NUM_ACTIONS

    def __init__(self, options: TableOptions, num_envs: int, seed: int):
        #: the checked options (:class:`~canasta_env.options.TableOptions`)
        self.options = options
        self.rules = options.rules
        self.num_players = num_players = options.num_players
        self.num_envs = num_envs
        self.seed = seed
        self.backend = options.backend
        #: the tables: on the core one ``_core.Batch`` (every step in C++), else tables
        self.tables = BatchedTable(
            options.rules,
            num_players,
            num_envs,
            reward=options.reward,
            reward_scale=options.reward_scale,
            episode=options.episode,
            backend=options.backend,
        )
        self._rewards = np.zeros((num_envs, num_players), REWARD_DTYPE)
        self._reset_seed: int | None = None  # the seed of the last reset (None: not yet)
        self._one_thread = OneThread("this vector_env")

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every table a new game (seeds ``seed``, ``seed + 1``, ...; None: the seed
        the env was made with) and return ``(obs, mask, seat)``."""
        with self._one_thread:
            return self._reset(seed)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Play ``actions[k]`` at every table ``k``; return ``(obs, mask, seat, rewards,
        done)``."""
        with self._one_thread:
            return self._step(actions)

    def _reset(self, seed: int | None):
        tables = self.tables
        seed = self._seed(seed)
        tables.reset(seed)
        self._reset_seed = seed
        self._rewards.fill(0.0)
        return tables.obs, tables.mask, tables.seat

    def _step(self, actions):
        tables = self.tables
        tables.step(self._ids(actions))
        self._rewards[...] = tables.rewards
        return tables.obs, tables.mask, tables.seat, self._rewards, tables.done

    @property
    def deal_seeds(self) -> list[int]:
        """The seed of each table's game (the reset's seed plus the table's deal number)."""
        return list(self.tables.deal_seeds)

    def _seed(self, seed: int | None) -> int:
        if seed is None:
            seed = self.seed
        elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        return int(seed)

    def _ids(self, actions):
        """``actions``, once the env is reset: :class:`BatchedTable` checks them (one
        integer id per table, in one message for both backends)."""
        if self._reset_seed is None:
            raise RuntimeError("reset() must be called before step()")
        return actions


def seat_credit(
    seats: np.ndarray, rewards: np.ndarray, dones: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Book a rollout of :func:`vector_env` steps to the seats that acted: self-play's
    per-seat trajectories.

    ``seats[t]`` (T, N): the seat that acted at step ``t`` (the ``seat`` array given before
    that step); ``rewards[t]`` (T, N, num_players) and ``dones[t]`` (T, N): what that
    step returned. Returns ``(credit, next_decision, seat_done)``, each (T, N):

    * ``credit[t, k]``: what seat ``seats[t, k]`` earned from its decision at step ``t``
      up to its next decision at table ``k`` (its rewards of steps ``t .. next - 1``), or
      to the episode's end; summed over a seat's decisions in an episode it is that
      seat's return (its rewards of the episode), the hand's result under
      ``reward="score"`` booked to the seat's last decision;
    * ``next_decision[t, k]``: the step of the same seat's next decision at that table in
      the same episode, -1 where there is none in the rollout;
    * ``seat_done[t, k]``: the decision is its seat's last of the episode (its trajectory
      ends there: no bootstrap). A decision with ``next_decision`` -1 and ``seat_done``
      False is cut by the rollout's end: bootstrap it from the seat's next observation.

    Rewards that reach a seat before its first decision of an episode (a hand that ends
    before it acts, never seen with the auto-deal) are not booked.
    """
    seats = np.asarray(seats)
    rewards = np.asarray(rewards)
    dones = np.asarray(dones, bool)
    steps, num_envs, num_players = rewards.shape
    if seats.shape != (steps, num_envs) or dones.shape != (steps, num_envs):
        raise ValueError(
            f"seats and dones must be (T, N) = {(steps, num_envs)} as rewards (T, N, players), "
            f"got {seats.shape} and {dones.shape}"
        )
    credit = np.zeros((steps, num_envs), np.float64)
    next_decision = np.full((steps, num_envs), -1, np.int64)
    seat_done = np.zeros((steps, num_envs), bool)
    tables = np.arange(num_envs)
    open_step = np.full((num_envs, num_players), -1, np.int64)  # each seat's last decision
    for t in range(steps):
        seat = seats[t].astype(np.int64)
        previous = open_step[tables, seat]
        linked = previous >= 0
        next_decision[previous[linked], tables[linked]] = t
        open_step[tables, seat] = t
        for p in range(num_players):
            rows = np.flatnonzero(open_step[:, p] >= 0)
            credit[open_step[rows, p], rows] += rewards[t, rows, p]
            ended = rows[dones[t, rows]]
            seat_done[open_step[ended, p], ended] = True
        open_step[dones[t]] = -1
    return credit.astype(REWARD_DTYPE), next_decision, seat_done


def vector_env(
    variant: str | Rules = "classic",
    num_players: int = 4,
    num_envs: int = 256,
    seed: int = 0,
    house_rules: dict | None = None,
    reward: str = "score",
    reward_scale: float = 1000.0,
    episode: str = "hand",
    backend: str | None = None,
) -> VectorEnv:
    """``num_envs`` tables stepped together (see the module docstring)::

        venv = canasta_env.vector_env(variant="classic", num_players=4, num_envs=256, seed=0)
        obs, mask, seat = venv.reset()
        obs, mask, seat, rewards, done = venv.step(actions)

    The returned arrays are reused in place by the next call: copy what you keep.
    Raises ``ValueError`` naming a bad argument; ``RuntimeError`` for backend "core"
    when the core is not built (``canasta_env.core.WHY_NOT`` says why).
    """
    if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
        raise ValueError(f"num_envs must be a positive integer, got {num_envs!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if house_rules is not None and not isinstance(house_rules, dict):
        raise ValueError(f"house_rules must be a dict of rules fields, got {house_rules!r}")
    options = TableOptions(  # checked as the env checks them; backend None: the core if built
        rules=make_rules(variant, **(house_rules or {})),
        num_players=num_players,
        reward=reward,
        reward_scale=reward_scale,
        episode=episode,
        backend=backend,
    )
    return VectorEnv(options, int(num_envs), int(seed))


__all__ = [
    "MASK_DTYPE",
    "OBS_DTYPE",
    "REWARD_DTYPE",
    "VectorEnv",
    "seat_credit",
    "seed_words",
    "vector_env",
]
