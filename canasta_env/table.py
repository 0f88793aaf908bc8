"""The table: a hand played around the engine, one table or N of them batched.

Every driver of a hand (the PettingZoo, Gymnasium and OpenSpiel faces, the arena's
hands, training rollouts and the RLlib env, ``canasta play``, the demo and the browser
table) goes through a :class:`Table`, and none builds or steps a
:class:`~canasta_env.engine.game.Game` itself (the compliance checks, which test the
engine, are the one reader that drives it directly); when a second engine plugs in, it plugs
in here. A table owns, for one game:

========================  ==================================================================
seats                     ``seats`` (``range(num_players)``), ``current`` (the seat to act)
a seat's view             ``view(seat)``: ``{"observation", "action_mask"}``, the
                          observation (:class:`~canasta_env.observation.ObservationBuilder`,
                          float32) and the action mask (int8, as PettingZoo envs use; all
                          zero for a seat not to act); ``mask()``, ``legal_actions()``,
                          ``is_legal()``
stepping                  ``step(action)``: an illegal action raises the engine's
                          :class:`~canasta_env.engine.game.IllegalActionError` and changes
                          nothing
playing with agents       ``play(agents, until, on_decision)``: the one loop that plays a
                          hand with agents (every driver's); :func:`play_together` steps
                          many tables a round at a time with one batched chooser; on the
                          core a house bot's twin plays its seat in C++ (``core_twins``)
the hand's outcome        ``hand_over``, ``end_reason``, ``team_scores``, ``game_scores``,
                          ``went_out``, ``result(scope)`` (points, margins, outcomes:
                          :mod:`~canasta_env.engine.outcome`), ``outcome()``
                          (the env's end-of-hand info), ``seat_rewards(reward, scale,
                          episode)`` (the env's rewards, bit for bit), ``episode_ends``
the next hand             ``next_hand()`` (the first player rotates one seat)
the hidden cards          ``hidden_counts()``: each seat's hand, the stock and the face-down
                          pot by kind, for a reader allowed to see everything (a training
                          critic), never an agent
a search agent's world    ``world_for(seat, rng)``: a determinized copy
                          (:func:`~canasta_env.engine.determinize.determinize`);
                          ``choose_action(agent, observation, mask)`` hands a search agent
                          one before it acts
========================  ==================================================================

:class:`~canasta_env.batched_table.BatchedTable` holds N tables on either engine (the
batched faces' one object).

Rewards (``seat_rewards``), given when a hand ends:

* ``reward="score"``: the seat's team hand score minus the mean hand score of the other
  teams, divided by ``reward_scale``; every hand that ends earns it.
* ``reward="win"``: once the episode is over (``episode="hand"``: the hand;
  ``"game"``: the game), +1 / 0 / -1 for a team with the highest (alone) / a tied
  highest / a lower score (the hand's totals, or the game's totals and its winner).
"""

from __future__ import annotations

import operator
import os
import random
import warnings
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from canasta_env import core
from canasta_env.actions import NUM_ACTIONS
from canasta_env.engine.determinize import act_with_world, determinize
from canasta_env.engine.game import PHASE_HAND_OVER, Game, IllegalActionError
from canasta_env.engine.outcome import Result
from canasta_env.observation import ObservationBuilder
from canasta_env.rules import Rules
from canasta_env.state_io import state_from_dict, state_to_dict

#: The one dtype of every action mask a table gives (PettingZoo's classic envs use int8).
MASK_DTYPE = np.dtype(np.int8)
#: The dtype of observations, as the observation builder writes them.
OBS_DTYPE = np.dtype(np.float32)
#: The dtype of :meth:`Table.hidden_counts` (the core's).
HIDDEN_DTYPE = np.dtype(np.int16)
REWARD_MODES = ("score", "win")
EPISODE_MODES = ("hand", "game")
#: Deals a batched table tries for one new game whose hand ends during its deal (rare).
MAX_REDEALS = 100
#: The bound of every seed a learner's episode draws from its generator (the opponents',
#: the deal's: ``integers(SEED_BOUND)``, 2**31 - 1), in the single env and the batched core.
SEED_BOUND = 2_147_483_647
_ZERO_MASK = np.zeros(NUM_ACTIONS, MASK_DTYPE)
#: The engines a table can play on: the compiled core (:mod:`canasta_env.core`) and the
#: Python engine (:mod:`canasta_env.engine`), the same game bit for bit.
BACKENDS = ("core", "python")
#: The environment variable that picks the engine where a face is given none.
BACKEND_VARIABLE = "CANASTA_BACKEND"
_fallback_said = False


def resolve_backend(backend: str | None) -> str:
    """The engine a face plays on: ``backend`` itself ("core" or "python"); for None the
    environment variable ``CANASTA_BACKEND`` if set (to run every face of a process and
    its workers on one engine, e.g. to time both), else the core where it is built, else
    the Python engine, saying why once per process (a warning of one line). "core" where
    the core is not built raises ``RuntimeError``."""
    global _fallback_said
    if backend is None:
        backend = os.environ.get(BACKEND_VARIABLE) or None
    if backend is None:
        if core.AVAILABLE:
            return "core"
        if not _fallback_said:
            _fallback_said = True
            warnings.warn(f"playing on the Python engine: {core.WHY_NOT}", stacklevel=3)
        return "python"
    if backend not in BACKENDS:
        where = f" ({BACKEND_VARIABLE})" if backend == os.environ.get(BACKEND_VARIABLE) else ""
        raise ValueError(f"backend must be one of {(None, *BACKENDS)}, got {backend!r}{where}")
    if backend == "core" and not core.AVAILABLE:
        raise RuntimeError(core.WHY_NOT)
    return backend


class Table:
    """One game of Canasta around the engine: seats, views, steps and the hand's outcome.

    ``Table(rules, num_players, seed, deck)`` deals a new game (``deck``: a stacked deck
    in draw order, as ``env.reset(options={"deck": ...})`` takes);
    :meth:`from_game` seats a game that exists already (a loaded state).
    """

    def __init__(
        self,
        rules: Rules,
        num_players: int,
        seed: int | str | None = None,
        deck: list[int] | str | list[str] | None = None,
        backend: str = "python",
    ):
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules object (make_rules({rules!r})), got {rules!r}")
        if resolve_backend(backend) == "core":
            self._seat_game(core.CoreGame(rules, num_players, seed=seed, deck=deck))
        else:
            self._seat_game(Game(rules, num_players, seed=seed, deck=deck))

    @classmethod
    def from_game(cls, game: Game, backend: str = "python") -> Table:
        """A table around ``game``: on the Python engine the game itself (stepping the
        table steps it), on the core a core game loaded from it."""
        table = cls.__new__(cls)
        if resolve_backend(backend) == "core":
            table._seat_game(core.CoreGame.from_game(game))
        else:
            table._seat_game(game)
        return table

    def _seat_game(self, engine: Game | core.CoreGame) -> None:
        #: the engine's game: a :class:`Game`, or a :class:`~canasta_env.core.CoreGame`
        self.engine = engine
        self.backend = "core" if isinstance(engine, core.CoreGame) else "python"
        self._observer = ObservationBuilder(engine) if self.backend == "python" else None
        self._snapshot: Game | None = None
        self.rules = engine.rules
        self.num_players = engine.num_players
        self.seats = range(engine.num_players)
        self.team_of = engine.team_of

    @property
    def game(self) -> Game:
        """The position as a Python :class:`Game`, for reading (drawing, explaining,
        saving): on the Python engine the game itself; on the core a copy made when
        asked (and kept until the next step), so changing it changes nothing."""
        if self.backend == "python":
            return self.engine
        if self._snapshot is None:
            self._snapshot = self.engine.to_game()
        return self._snapshot

    def copy(self) -> Table:
        """An independent table at the same position (the game copied, its caches fresh)."""
        if self.backend == "core":
            table = Table.__new__(Table)
            table._seat_game(self.engine.copy())
            return table
        return Table.from_game(self.engine.copy())

    def __deepcopy__(self, memo) -> Table:
        return self.copy()

    def __reduce__(self):
        """A pickle holds the position as a saved state (``docs/state_format.md``: the
        generator's state in it), unpickled on the same engine: the same game from there
        on, on either engine."""
        return (_table_from_state, (state_to_dict(self.game), self.backend))

    # ------------------------------------------------------------------ seats and views
    @property
    def current(self) -> int:
        """The seat to act (after the hand is over: the seat that acted last)."""
        return self.engine.current

    @property
    def hand_over(self) -> bool:
        return self.engine.hand_over

    def legal_actions(self) -> list[int]:
        """The sorted legal action ids of the seat to act (empty once the hand is over)."""
        return self.engine.legal_actions()

    def is_legal(self, action: int) -> bool:
        return self.engine.is_legal(action)

    def mask(self) -> np.ndarray:
        """A new int8 mask of the seat to act's legal actions (all zero at hand over)."""
        if self._observer is None:
            return self.engine.mask()
        flags = bytearray(NUM_ACTIONS)
        for action in self.engine.legal_actions():
            flags[action] = 1
        return np.frombuffer(flags, MASK_DTYPE)

    def observation(self, seat: int, to_act: bool = True) -> np.ndarray:
        """The observation of ``seat`` (a new float32 array); ``to_act`` False shows it as
        a seat not to act even on its turn (the turn fields zeroed)."""
        seat = self._seat(seat)
        if self._observer is None:
            return self.engine.observation(seat, to_act)
        return self._observer.build(seat, to_act)

    def _seat(self, seat) -> int:
        """``seat`` as a seat of this table; ``ValueError`` as the core says it (a negative
        seat would read another seat's hand from the end of a list)."""
        try:
            index = -1 if isinstance(seat, bool) else operator.index(seat)
        except TypeError:
            raise ValueError(f"seat {seat!r} is not at the table") from None
        if not 0 <= index < self.num_players:
            raise ValueError(f"seat {seat!r} is not at the table")
        return index

    def view(self, seat: int, live: bool = True) -> dict[str, np.ndarray]:
        """What ``seat`` sees, as the faces give it: ``{"observation": ..., "action_mask":
        ...}`` (new arrays). The seat acts when it is live (its episode not over), the hand
        is on and it is its turn; any other seat gets an all-zero mask."""
        seat = self._seat(seat)
        if self._observer is None:
            return self.engine.view(seat, live)
        game = self.engine
        to_act = live and seat == game.current and game.phase != PHASE_HAND_OVER
        mask = self.mask() if to_act else _ZERO_MASK.copy()
        return {"observation": self.observation(seat, to_act), "action_mask": mask}

    def hidden_counts(self) -> np.ndarray:
        """The cards by kind that no seat's view shows in full, as a new int16 array
        ``[num_players + 2, NUM_KINDS]``: each seat's hand, the stock, the face-down pot
        cards (:meth:`Game.hidden_counts <canasta_env.engine.game.Game.hidden_counts>`). For
        a reader that may see everything (a training critic's input), never an agent."""
        return np.asarray(self.engine.hidden_counts(), HIDDEN_DTYPE)

    # ------------------------------------------------------------------ stepping
    def step(self, action: int) -> None:
        """Play ``action`` for the seat to act; an illegal one raises
        :class:`~canasta_env.engine.game.IllegalActionError` and changes nothing."""
        self._snapshot = None
        self.engine.apply(action)

    def next_hand(self, deck: list[int] | str | list[str] | None = None) -> None:
        """Deal the next hand of the game; raises while the hand is on or once the
        game is over."""
        self._snapshot = None
        self.engine.next_hand(deck)

    # ------------------------------------------------------------------ outcome
    @property
    def end_reason(self) -> str | None:
        return self.engine.end_reason

    @property
    def team_scores(self) -> list[int]:
        """Each team's score for the hand that ended."""
        return [sheet["total"] for sheet in self.engine.hand_scores]

    @property
    def game_scores(self) -> list[int]:
        """Each team's total over the game's hands so far (a new list)."""
        return list(self.engine.scores)

    @property
    def went_out(self) -> int | None:
        """The seat that went out to end the hand, if one did."""
        return self.engine.went_out

    def outcome(self) -> dict:
        """The end of the hand as the env's infos give it (new lists and dicts)."""
        game = self.engine
        return {
            "hand_scores": [dict(sheet) for sheet in game.hand_scores],
            "scores": list(game.scores),
            "end_reason": game.end_reason,
        }

    def episode_ends(self, episode: str = "hand") -> bool:
        """Whether the hand that ended ends an episode of ``episode`` ("hand" or "game")."""
        return episode == "hand" or self.engine.game_over

    def seat_rewards(
        self, reward: str = "score", reward_scale: float = 1000.0, episode: str = "hand"
    ) -> list[float]:
        """What each seat earns from the hand that ended (see the module docstring): the
        env adds these to its rewards, every hand for ``"score"``, at the episode's end for
        ``"win"`` (zeros before)."""
        if reward not in REWARD_MODES:
            raise ValueError(f"reward must be one of {REWARD_MODES}, got {reward!r}")
        if reward == "score":
            return [margin / reward_scale for margin in self.result("hand").seat_margins()]
        if not self.episode_ends(episode):
            return [0.0] * self.num_players
        return [float(outcome) for outcome in self.result(episode).seat_outcomes()]

    def result(self, scope: str = "hand") -> Result:
        """The result of the hand that ended (``"hand"``) or of the game so far
        (``"game"``), by the one convention of :mod:`canasta_env.engine.outcome`."""
        return self.engine.result(scope)

    # ------------------------------------------------------------------ playing
    def play(
        self,
        agents: Sequence | Mapping,
        until: Callable[[Table], bool] | None = None,
        on_decision: Callable[[int, np.ndarray, np.ndarray, int], None] | None = None,
    ) -> int:
        """Let ``agents`` play: the one loop that plays a hand with agents.

        ``agents`` gives each seat's agent (a sequence by seat, or a mapping seat ->
        agent); play goes on until the hand is over, a seat without an agent is to act
        (the learner's or a person's: "let the others move until it is their turn"), or
        ``until(table)``, asked before each decision, is true. Each agent acts through
        :meth:`choose_action` (a search agent gets its world first) on the seat's
        observation and mask; ``on_decision(seat, observation, mask, action)`` sees each
        decision before it is played. Returns the number of decisions played. An action
        the table refuses raises :class:`RefusedAction` (an ``IllegalActionError``)
        naming the agent and its seat, the table unchanged by it.

        On the core, a seat whose agent has a twin in the core (:meth:`core_twins`) is
        played by the twin in C++, the same moves as the agent's ``act``; with neither
        ``until`` nor ``on_decision``, every such seat in a row is played inside C++.
        """
        if not isinstance(agents, Mapping):
            agents = dict(enumerate(agents))
        twins = self.core_twins(agents)
        played = 0
        while not self.hand_over:
            seat = self.current
            agent = agents.get(seat)
            if agent is None or (until is not None and until(self)):
                break
            twin = twins.get(seat)
            if twin is not None and until is None and on_decision is None:
                self._snapshot = None  # every twin's seat in C++, up to a seat without one
                played += core.play_bots(self.engine, twins)
                continue
            observation, mask = self.observation(seat), self.mask()
            if twin is not None:
                action = twin.act(observation, mask)
            else:
                action = self.choose_action(agent, observation, mask)
            if on_decision is not None:
                on_decision(seat, observation, mask, action)
            try:
                self.step(action)
            except IllegalActionError as error:
                raise RefusedAction.of(agent, seat, played, error) from error
            played += 1
        return played

    def core_twins(self, agents: Mapping) -> dict[int, core.CoreBot]:
        """The seam of the house bots in the core: on a core table, each seat whose agent
        holds a twin in its own ``core_bot`` attribute (a :class:`~canasta_env.core.CoreBot`
        that makes the agent's moves, reset by the agent's own ``reset``:
        :mod:`agents.core_twins`), by seat; on the Python engine none."""
        if self.backend != "core":
            return {}
        twins = {}
        for seat, agent in agents.items():
            # the agent's own attribute: a wrapper that hands its attributes on (a recorder
            # of the bot's decisions) or an ``act`` set on the instance plays in Python
            own = getattr(agent, "__dict__", {})
            twin = own.get("core_bot")
            if twin is not None and "act" not in own:
                twins[seat] = twin
        return twins

    # ------------------------------------------------------------------ search
    def world_for(self, seat: int, rng: random.Random) -> Game:
        """A copy of the game in which every card ``seat`` cannot see is dealt again from
        ``rng``: what a search agent searches from, never the true game."""
        return determinize(self.game, seat, rng)

    def choose_action(self, agent, observation: np.ndarray, mask: np.ndarray) -> int:
        """``agent``'s action at the seat to act; a search agent (``see_world``) first gets
        a world for that seat drawn from its own ``rng``."""
        if getattr(agent, "see_world", None) is None:
            return agent.act(observation, mask)  # no world asked for: no copy of the game
        return act_with_world(agent, self.game, observation, mask)


class RefusedAction(IllegalActionError):
    """An agent's action the table refused: ``label`` (the agent's name), ``seat``,
    ``step`` (the decision of :meth:`Table.play` it came at, from 0) and the engine's
    ``reason``. Pickles (an arena worker sends it to its parent)."""

    def __init__(
        self, label: str, seat: int, step: int, reason: IllegalActionError, where: str = ""
    ):
        super().__init__(
            f"agent {label!r} in seat {seat} returned an illegal action{where}: {reason}"
        )
        self.label, self.seat, self.step, self.reason, self.where = label, seat, step, reason, where

    @classmethod
    def of(cls, agent, seat: int, step: int, reason: IllegalActionError, where: str = ""):
        return cls(agent_label(agent), seat, step, reason, where)

    def __reduce__(self):
        return (type(self), (self.label, self.seat, self.step, self.reason, self.where))


def _table_from_state(data: dict, backend: str) -> Table:
    """The table a pickled one stood for (:meth:`Table.__reduce__`), its state checked."""
    return Table.from_game(state_from_dict(data), backend=backend)


def agent_label(agent) -> str:
    """An agent's name in messages: its ``name``, else its class's."""
    return getattr(agent, "name", None) or type(agent).__name__


def play_together(
    tables: Sequence[Table],
    choose: Callable[[list[Table]], Sequence[int] | None],
    on_hand_over: Callable[[int, Table], None] | None = None,
) -> int:
    """Play many tables a round at a time: the batched form of :meth:`Table.play`.

    Each round ``choose(live)`` gets the tables whose hands go on (in their order in
    ``tables``) and returns one action for the seat to act at each (a network evaluated
    once over them all), or None to stop there (a search's cut: the hands left are
    valued, not played). ``on_hand_over(index, table)`` is told of each hand that ends,
    with its index in ``tables``; a hand over from the start is told at once. Returns
    the rounds played.
    """
    live = []
    for index, table in enumerate(tables):
        if table.hand_over:
            if on_hand_over is not None:
                on_hand_over(index, table)
        else:
            live.append(index)
    rounds = 0
    while live:
        actions = choose([tables[i] for i in live])
        if actions is None:
            break
        rounds += 1
        still = []
        for index, action in zip(live, actions):
            table = tables[index]
            table.step(action)
            if not table.hand_over:
                still.append(index)
            elif on_hand_over is not None:
                on_hand_over(index, table)
        live = still
    return rounds


def __getattr__(name: str):
    """``canasta_env.table.BatchedTable``, where it was: it lives in
    :mod:`canasta_env.batched_table` (which builds on this module)."""
    if name == "BatchedTable":
        from canasta_env.batched_table import BatchedTable

        return BatchedTable
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "BACKENDS",
    "EPISODE_MODES",
    "MASK_DTYPE",
    "OBS_DTYPE",
    "REWARD_MODES",
    "RefusedAction",
    "Table",
    "play_together",
    "resolve_backend",
]
