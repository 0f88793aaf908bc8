"""The compiled engine (``canasta_env._core``, built from ``csrc/``) behind a Game-like face.

The core is the Python engine (:mod:`canasta_env.engine`) written again in C++, bit for
bit: the same deal from the same ``random.Random`` state, the same legal actions, the
same state after every action (``tests/test_core_parity.py`` is the proof). It is
optional: when the extension is not built, ``AVAILABLE`` is False and ``WHY_NOT`` says
why in one line; the pure-Python package works either way.

:class:`CoreGame` plays a game in the core. The Python rules object (already checked) is
sent to the core as plain values (:func:`rules_values`); the random generator is sent as
its state (``random.Random(seed).getstate()``), so seeding stays CPython's own. A core
game converts to and from a Python :class:`~canasta_env.engine.game.Game` with every
state field equal (:meth:`CoreGame.to_game`, :meth:`CoreGame.from_game`); saving and
loading state JSON goes through those and :mod:`canasta_env.state_io`.

:class:`CoreBot` is a house bot of ``agents/`` (``greedy``, ``expert``, the styled bots)
written again in C++ (``csrc/bots/``), making the same moves bit for bit
(``tests/test_core_bots.py``); :func:`play_bots` lets such bots play their seats of a core
game inside C++, and ``_core.Batch.set_bot`` seats them in the batched core. A bot's
``act`` checks an observation from outside the core before reading it ("not an
observation", naming the entry; ``docs/core.md``, "What the core refuses").

Threads: a core game, bot or batch is used by one thread at a time; a call from a second
thread while another is inside (``play_bots`` and ``random_steps`` release the GIL) raises
``RuntimeError`` naming the rule (``docs/core.md``, "Threads").
"""

from __future__ import annotations

import functools
import random

import numpy as np

from canasta_env.actions import NUM_ACTIONS
from canasta_env.core_values import rules_values
from canasta_env.engine.game import (
    Game,
    IllegalActionError,
    _deck_kinds,
    _deck_suited,
    action_id,
)
from canasta_env.engine.outcome import Result, result_of
from canasta_env.engine.state import (
    PHASE_HAND_OVER,
    PYTHON_ONLY_FIELDS,
    STATE_FIELDS,
    team_of_seat,
    teams_of,
)
from canasta_env.engine.suits import NO_SUITS, Suits
from canasta_env.rules import Rules

try:
    from canasta_env import _core
except ImportError as error:  # not built (no compiler at install time), or a stale build
    _core = None
    AVAILABLE = False
    WHY_NOT = f"canasta_env._core is not built ({error}); reinstall with a C++17 compiler"
else:
    AVAILABLE = True
    WHY_NOT = ""

#: State fields that do not cross as they are: the rules and the seed stay on this side
#: (``PYTHON_ONLY_FIELDS``); the suits component (S-19) crosses as its four parts
#: (:data:`_SUIT_PARTS`).
_PYTHON_ONLY = (*PYTHON_ONLY_FIELDS, "suits")
#: The core's suited arrays, by the :class:`~canasta_env.engine.suits.Suits` part each is.
_SUIT_PARTS = {
    "stock_suits": "stock",
    "hand_suits": "hands",
    "pot_suits": "pot",
    "held_suits": "held",
}


@functools.lru_cache(maxsize=64)
def core_rules(rules: Rules, num_players: int):
    """The core's rules object for ``rules`` at ``num_players`` (made once per pair: a new
    game per hand must not convert the rules again)."""
    return _core.Rules.from_values(rules_values(rules, num_players))


def _require() -> None:
    if not AVAILABLE:
        raise RuntimeError(WHY_NOT)


class CoreGame:
    """A game of Canasta played by the compiled core, with the Game API the table uses.

    ``CoreGame(rules, num_players, seed=None, deck=None)`` deals like ``Game`` (same
    arguments, same cards). Illegal or out-of-range actions raise
    :class:`~canasta_env.engine.game.IllegalActionError` (a ``ValueError``) and change
    nothing.
    """

    def __init__(self, rules: Rules, num_players: int, seed=None, deck=None):
        _require()
        self.rules = rules
        self.num_players = int(num_players)
        self._seat_teams()
        self.seed = seed
        self._core_rules = core_rules(rules, num_players)
        self._ended = None
        words = list(random.Random(seed).getstate()[1])
        kinds, suits = self._deck(deck)
        self._game = _core.Game(self._core_rules, rules.name, num_players, words, kinds, suits)
        self._mask_view = self._game.mask_view()

    def _seat_teams(self) -> None:
        """G-3: the teams and each seat's, as ``Game`` holds them."""
        self.num_teams = teams_of(self.num_players)
        self.team_of = [team_of_seat(self.num_players, s) for s in range(self.num_players)]

    def _deck(self, deck):
        """A stacked deck as the core takes it: kinds, and suits (S-19; -2 = not given)."""
        if deck is None:
            return None, None
        if not self.rules.sequences:
            return _deck_kinds(deck), None
        cards = _deck_suited(deck)
        return [kind for kind, _ in cards], [-2 if suit is None else suit for _, suit in cards]

    # ------------------------------------------------------------------ play
    def legal_actions(self) -> list[int]:
        return self._game.legal_actions()

    def mask(self) -> np.ndarray:
        """The legal actions as ``np.int8`` of shape ``(500,)`` (a new array per call)."""
        self._game.update_mask()
        return self._mask_view.copy()

    def is_legal(self, action: int) -> bool:
        """As :meth:`Game.is_legal <canasta_env.engine.game.Game.is_legal>`."""
        try:
            index = action_id(action)
        except IllegalActionError:
            return False
        return self._game.is_legal(index)

    def apply(self, action: int) -> None:
        """:meth:`Game.apply <canasta_env.engine.game.Game.apply>`, with its refusals word
        for word: the id read by the same function (:func:`~canasta_env.engine.game.action_id`)
        and an illegal one explained from this position by the Python engine's reasons
        (the error path only: the core says which ids are legal, Python says why not)."""
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            index = action
        else:
            index = action_id(action)
        self._ended = None
        try:
            self._game.apply(index)
        except ValueError:
            raise IllegalActionError(self.to_game().illegal_message(index)) from None

    def next_hand(self, deck=None) -> None:
        kinds, suits = self._deck(deck)
        self._ended = None
        try:
            self._game.next_hand(kinds, suits)
        except ValueError as error:
            if str(error) in ("the current hand is not over", "the game is over"):
                raise IllegalActionError(str(error)) from None
            raise

    def random_steps(self, steps: int, seed: int) -> int:
        """Play up to ``steps`` random legal actions in C++ (to the hand's end at most, or
        to a position whose player has no legal action: a loaded state may be one)."""
        self._ended = None
        return self._game.random_steps(steps, seed)

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        return self._game.current_player

    @property
    def current(self) -> int:
        return self._game.current_player

    @property
    def phase(self) -> int:
        return self._game.phase

    @property
    def hand_over(self) -> bool:
        return self._game.hand_over

    @property
    def game_over(self) -> bool:
        return self._game.game_over

    @property
    def scores(self) -> list[int]:
        return self._game.scores

    @property
    def hand_index(self) -> int:
        return self._game.hand_index

    @property
    def num_steps(self) -> int:
        return self._game.num_steps

    @property
    def winner_team(self) -> int | None:
        return self._game.winner_team

    @property
    def end_reason(self) -> str | None:
        return self._game.end_reason

    def _end_of_hand(self) -> tuple[list[dict], int | None]:
        """The score sheets and who went out, read once per finished hand (the state does
        not change until the next hand)."""
        if self._ended is None:
            state = self._game.get_state()
            self._ended = (state["hand_scores"], state["went_out"])
        return self._ended

    @property
    def hand_scores(self) -> list[dict] | None:
        return self._end_of_hand()[0] if self.phase == PHASE_HAND_OVER else None

    @property
    def went_out(self) -> int | None:
        if self.phase == PHASE_HAND_OVER:
            return self._end_of_hand()[1]
        return self._game.get_state()["went_out"]

    def view(self, seat: int, live: bool = True) -> dict[str, np.ndarray]:
        """:meth:`~canasta_env.table.Table.view` in one call to the core: the observation
        and mask of ``seat`` (new arrays; the mask all zero unless it is live and to act)."""
        observation, mask = _core.view(self._game, seat, live)
        return {"observation": observation, "action_mask": mask}

    def observation(self, seat: int, to_act: bool = True) -> np.ndarray:
        """``seat``'s observation (a new float32 array), bit for bit
        :meth:`~canasta_env.observation.ObservationBuilder.build` of the same state."""
        return _core.observation(self._game, seat, to_act)

    def hidden_counts(self) -> np.ndarray:
        """:meth:`Game.hidden_counts <canasta_env.engine.game.Game.hidden_counts>` in one
        call to the core, as a new int16 array ``[num_players + 2, NUM_KINDS]``."""
        return self._game.hidden_counts()

    def result(self, scope: str = "hand") -> Result:
        """The result of the hand that ended (``"hand"``) or of the game so far
        (``"game"``): points, margins and outcomes per team and seat, by the one
        convention of :mod:`canasta_env.engine.outcome`."""
        return result_of(self, scope)

    @classmethod
    def around(cls, game, rules: Rules, num_players: int, rules_in_core) -> CoreGame:
        """A ``CoreGame`` over a ``_core.Game`` that exists (a batch's table,
        ``_core.Batch.game``): not a copy, valid while that game lives. ``rules_in_core``:
        :func:`core_rules` of ``rules`` and ``num_players``."""
        other = object.__new__(cls)
        other.rules, other.num_players, other.seed = rules, num_players, None
        other._seat_teams()
        other._core_rules = rules_in_core
        other._ended = None
        other._game = game
        other._mask_view = game.mask_view()
        return other

    def copy(self) -> CoreGame:
        """An independent core game at the same position."""
        other = object.__new__(CoreGame)
        other.rules, other.num_players, other.seed = self.rules, self.num_players, self.seed
        other._seat_teams()
        other._core_rules = self._core_rules
        other._ended = None
        other._game = _core.Game(
            self._core_rules,
            self.rules.name,
            self.num_players,
            list(random.Random().getstate()[1]),
            None,
            None,
        )
        other._mask_view = other._game.mask_view()
        other._game.set_state(self._game.get_state())
        return other

    def state(self) -> dict:
        """Every state field the core holds, as the Python engine's values."""
        return self._game.get_state()

    # ------------------------------------------------------------------ exchange
    def to_game(self) -> Game:
        """A Python Game with every state field equal to this one's."""
        state = self._game.get_state()
        game = object.__new__(Game)
        rng = random.Random()
        rng.setstate(state.pop("rng"))
        parts = {part: state.pop(name) for name, part in _SUIT_PARTS.items()}
        game.suits = NO_SUITS if parts["stock"] is None else Suits(**parts)
        game.__dict__.update(state)
        game.rules = self.rules
        game.seed = self.seed
        game.rng = rng
        game._caches()
        return game

    @classmethod
    def from_game(cls, game: Game) -> CoreGame:
        """Load every state field of a Python Game (its generator's state included).

        Raises ``ValueError`` naming the field when the state is not one the core holds.
        """
        _require()
        self = object.__new__(cls)
        self.rules = game.rules
        self.num_players = game.num_players
        self._seat_teams()
        self.seed = game.seed
        self._core_rules = core_rules(game.rules, game.num_players)
        self._ended = None
        rng_state = game.rng.getstate()
        if rng_state[2] is not None:
            raise ValueError(
                "core state: field 'rng' has a pending gauss value the core cannot hold"
            )
        self._game = _core.Game(
            self._core_rules, game.rules.name, game.num_players, list(rng_state[1]), None, None
        )
        self._mask_view = self._game.mask_view()
        self.load(game)
        return self

    def load(self, game: Game) -> None:
        """Overwrite this game's state with a Python Game's (same rules and players).

        The state must be one the core can hold, whoever built the game (``state_io``,
        the engine, or a caller who set its fields by hand): the core's reader checks
        every field's type and range, every length against its array, the totals the
        engine keeps, card conservation against the rules' deck and the S-19 suits
        (docs/core.md, "What the core refuses"). Otherwise ``ValueError`` names the field
        and nothing changes.
        """
        values = {name: getattr(game, name) for name in STATE_FIELDS if name not in _PYTHON_ONLY}
        values["rng"] = game.rng.getstate()
        tracked = game.suits.tracked
        for name, part in _SUIT_PARTS.items():
            values[name] = getattr(game.suits, part) if tracked else None
        self._ended = None
        self._game.set_state(values)


class CoreBot:
    """A house bot in the core: ``CoreBot("expert")`` makes the moves of
    ``agents.make_agent("expert")``, bit for bit, in C++ (``csrc/bots/``, the mirror of
    ``agents/heuristics.py``, ``greedy.py``, ``expert.py`` and ``styles.py``).

    ``name``: ``greedy``, ``expert``, ``styled``, ``style:FAMILY`` or ``random``
    (``agents.base.RandomAgent``'s draws: ``legal[rng.randrange(len(legal))]``). ``params``: the
    expert's :class:`~agents.expert.ExpertParams` as a dict (``dataclasses.asdict``), for
    every player count, as ``ExpertAgent(params=...)``. A styled bot draws from its own
    ``random.Random`` (as do ``random``'s draws): ``rng`` (its state is copied) or else
    ``random.Random(seed)``.
    ``reset`` and ``act`` are the agent's (:class:`agents.base.Agent`); the bot keeps the
    same memory across decisions as the Python bot.
    """

    def __init__(
        self,
        name: str,
        seed: int | None = None,
        params: dict | None = None,
        rng: random.Random | None = None,
    ):
        _require()
        if not isinstance(name, str):
            raise ValueError(f"a core bot's name is text, got {name!r}")
        if rng is not None and not isinstance(rng, random.Random):
            raise ValueError(f"rng must be a random.Random, got {type(rng).__name__}")
        self.name = name
        words = gauss_next = None
        if name in ("random", "styled") or name.startswith("style:"):
            version, state, gauss_next = (rng or random.Random(seed)).getstate()
            words = list(state)
        values = None if params is None else {key: float(value) for key, value in params.items()}
        self._bot = _core.Bot(name, values, words, gauss_next)

    def reset(self, seat: int, num_players: int, rules: Rules) -> None:
        """Before each hand (or game), as ``Agent.reset`` (``rules``: the table's ``Rules``)."""
        if not isinstance(rules, Rules):
            raise TypeError(f"rules must be a Rules object (make_rules({rules!r})), got {rules!r}")
        self._bot.reset(seat, num_players, core_rules(rules, num_players))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The action for this observation and mask, as ``Agent.act``. A mask of another
        dtype than int8 must hold 0s and 1s (256 would wrap to 0 as int8); the core checks
        the rest ("not an observation", "not a mask": ``ValueError`` naming the entry)."""
        mask = np.asarray(action_mask)
        if mask.dtype != np.int8:
            if mask.dtype.kind not in "biuf" or not np.isin(mask, (0, 1)).all():
                raise ValueError(f"not a mask: its entries must be 0 or 1 (dtype {mask.dtype})")
            mask = mask.astype(np.int8)
        return self._bot.act(
            np.ascontiguousarray(observation, dtype=np.float32), np.ascontiguousarray(mask)
        )

    @property
    def acted(self) -> bool:
        """Whether the bot acted since its last ``reset``."""
        return self._bot.acted

    @property
    def style(self) -> str | None:
        """A styled bot's family for this hand (None for the others)."""
        return self._bot.style

    def rng_state(self) -> tuple | None:
        """A styled bot's generator as ``random.Random.getstate()`` gives it (else None)."""
        state = self._bot.rng_state
        if state is None:
            return None
        words, gauss_next = state
        return (3, tuple(words), gauss_next)


def batch_twin(agent) -> CoreBot | None:
    """A twin of ``agent`` for the batched core (``_core.Batch.deal_table``, the fast path
    of :class:`canasta_env.gym_vector.CanastaVectorEnv`), or None where it has none: the
    core is not built, ``agent.use_core`` is false, or the agent offers none. An agent
    offers one with a ``batch_twin()`` method returning a :class:`CoreBot`: the house bots
    of :mod:`agents` (``random``, ``greedy``, ``expert``, the styled bots; exactly those
    classes, not a subclass, :mod:`agents.core_twins`). The batch copies it into each seat
    and seeds a drawing twin's generator per deal, as the agent would be by ``seed(s)``."""
    make = getattr(agent, "batch_twin", None)
    if not (AVAILABLE and getattr(agent, "use_core", False)) or make is None:
        return None
    return make()


def play_bots(game: CoreGame, bots) -> int:
    """Play the seats of ``game`` that have a :class:`CoreBot` (``bots[seat]``, a sequence
    by seat or a mapping; None for a seat without) inside C++, until a seat without one is
    to act or the hand is over. Returns the moves played."""
    if not isinstance(bots, (list, tuple)):
        bots = [bots.get(seat) for seat in range(game.num_players)]
    if not all(bot is None or isinstance(bot, CoreBot) for bot in bots):
        raise ValueError("play_bots takes a CoreBot or None for each seat")
    game._ended = None
    return _core.play_bots(game._game, [None if bot is None else bot._bot for bot in bots])


__all__ = [
    "AVAILABLE",
    "WHY_NOT",
    "CoreBot",
    "CoreGame",
    "core_rules",
    "play_bots",
    "rules_values",
]
