"""The declared state of a game: every field, and nothing else.

:class:`GameState` lists every piece of state a game holds, grouped by how long it
lives (the game, the hand, the pot, the turn, the public history of the hand).
:class:`~canasta_env.engine.game.Game` inherits it and adds the behaviour; the
caches that ``Game`` keeps beside the state (legal actions, meld tables, the turn
search) are not fields. Copying and comparing games follow from this declaration
(:func:`copy_state`, :func:`same_state`); so do the tests that check that a refused
action changes nothing. Adding a piece of state is one line here and one in the
core's list (``CANASTA_STATE_FIELDS``, ``csrc/state.hpp``, which does not compile while
the two lists differ), plus where each engine sets it and where the file format
(:mod:`canasta_env.state_io`) writes it: docs/engine.md lists every file;
``tests/test_state_fields.py`` fails while the file's places differ.

Shapes: ``[team][slot]`` lists are indexed by team (G-3) then meld slot (natural
ranks 0-10, black 3s 11, wild cards 12: :data:`~canasta_env.actions.NUM_SLOTS`);
``[seat][kind]`` lists by seat then card kind (:mod:`canasta_env.cards`). The suits of
the cards (S-19 only) are one component, ``suits`` (:mod:`canasta_env.engine.suits`).
"""

from __future__ import annotations

import copy
import random
import types
import typing
from dataclasses import dataclass, fields

from canasta_env.engine.suits import Suits
from canasta_env.rules import Rules

PHASE_DRAW = 0
PHASE_MELD = 1
PHASE_HAND_OVER = 2
PHASE_NAMES = ("draw", "meld", "hand over")

END_WENT_OUT = "went out"
END_STOCK = "stock exhausted"
END_BLACK3 = "black-3 canasta"
END_REASONS = (END_WENT_OUT, END_STOCK, END_BLACK3)

#: A finished canasta of a preset whose melds close (S-7): (slot, naturals, twos, jokers, hidden).
Closed = tuple[int, int, int, int, bool]
#: A run laid from the hand (S-19): (suit, first rank, length).
Run = tuple[int, int, int]


def teams_of(num_players: int) -> int:
    """G-3: the number of teams: two partnerships at 4 and 6 players, else one per player."""
    return 2 if num_players in (4, 6) else num_players


def team_of_seat(num_players: int, seat: int) -> int:
    """G-3: 4 players play 0+2 against 1+3; 6 players 0+2+4 against 1+3+5; else solo."""
    return seat % 2 if num_players in (4, 6) else seat


@dataclass(init=False, eq=False, repr=False)
class GameState:
    """Every piece of state of a game of Canasta, hand after hand."""

    # ---------------------------------------------------------------- the game
    rules: Rules  #: the preset and house rules (immutable)
    num_players: int
    num_teams: int  #: G-3, from num_players
    team_of: list[int]  #: [seat] -> team (G-3)
    seed: int | str | None  #: what the game was seeded with
    rng: random.Random  #: every shuffle draws from it
    scores: list[int]  #: [team] game totals
    hand_index: int  #: 0 for the first hand
    game_over: bool
    winner_team: int | None  #: None while playing, or on a tie at the end
    hand_history: list[dict]  #: per finished hand: {"hand", "reason", "scores"}

    # ---------------------------------------------------------------- the hand
    first_player: int  #: who played first this hand (G-7 rotates it)
    current: int  #: the seat to act
    phase: int  #: PHASE_DRAW, PHASE_MELD or PHASE_HAND_OVER
    num_steps: int  #: actions applied this hand
    stock: list[int]  #: kinds; draws pop from the end
    hands: list[list[int]]  #: [seat][kind] counts
    hand_totals: list[int]  #: [seat] cards held
    known: list[list[int]]  #: [seat][kind]: cards all players saw it take with the pot
    nat: list[list[int]]  #: [team][slot] naturals in unfinished melds
    two: list[list[int]]  #: [team][slot] twos in them
    jok: list[list[int]]  #: [team][slot] jokers in them
    closed: list[list[Closed]]  #: [team] finished canastas (S-7)
    escalas: list[list[Run]]  #: [team] runs (S-19)
    red3: list[int]  #: [team] red 3s laid out
    #: [team] cards on the team's table (melds, canastas, runs, red 3s), as hand_totals
    #: counts a hand: it only grows within a hand, with every change of the table but
    #: the opened flag (:func:`table_cards` counts it afresh)
    table_totals: list[int]
    opened: list[bool]  #: [team] has met its opening minimum
    need: list[int]  #: [team] opening minimum this hand (C-8)
    went_out: int | None  #: the seat that went out
    concealed: bool  #: it went out without having opened before that turn (C-15)
    end_reason: str | None  #: one of END_REASONS once the hand is over
    hand_scores: list[dict] | None  #: [team] score sheet once the hand is over

    # ---------------------------------------------------------------- the pot
    pot: list[int]  #: kinds, bottom first; the first pot_hidden are face down
    pot_known: list[int]  #: [kind] face-up pot cards
    pot_hidden: int  #: face-down cards at the bottom (S-3, I-3)
    pot_wild: bool  #: frozen by a wild card (C-9)
    pot_start_frozen: bool  #: frozen by the card turned up at the start (C-3)

    # ---------------------------------------------------------------- the turn
    staged: int  #: opening points melded this turn by an unopened team
    held: list[int]  #: [kind] pot cards set aside until the opening is reached (C-8)
    took_pot: bool
    clean_only: bool  #: only clean melds may be laid this turn (I-10)
    hidden_open: bool  #: a hidden canasta opened the team this turn (S-8)
    melded_this_turn: bool
    opened_at_turn_start: bool  #: for a concealed going out (C-15)
    had_clean_at_turn_start: bool  #: S-15

    # ---------------------------------------------------------------- public history (G-8)
    discarded: list[list[int]]  #: [seat][kind] cards it discarded this hand
    declined: list[list[int]]  #: [seat][kind] pot tops it drew instead of taking
    since_discard: list[list[int]]  #: [seat][kind] others' discards since its last one
    #: [seat] its discards and declines this hand (:func:`history_entries` counts them)
    history_totals: list[int]

    # ---------------------------------------------------------------- suits (S-19)
    #: the suits of stock, hands, pot and held cards; NO_SUITS without the option
    suits: Suits

    @property
    def pot_hidden_cards(self) -> list[int]:
        """The face-down pot cards (never in an observation)."""
        return self.pot[: self.pot_hidden]


STATE_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(GameState))
#: The fields the compiled core's state leaves out: the rules stay beside it (in its
#: game), the seed on this side. The core's build checks its list (``CANASTA_STATE_FIELDS``,
#: ``csrc/state.hpp``) against the others, name by name and in this order.
PYTHON_ONLY_FIELDS = ("rules", "seed")


def table_cards(state: GameState, team: int) -> int:
    """The cards on a team's table, counted afresh (what ``table_totals`` keeps)."""
    melded = sum(state.nat[team]) + sum(state.two[team]) + sum(state.jok[team])
    melded += sum(n + twos + jokers for _, n, twos, jokers, _ in state.closed[team])
    melded += sum(length for _, _, length in state.escalas[team])
    return melded + state.red3[team]


def history_entries(state: GameState, seat: int) -> int:
    """A seat's discards and declined pot tops this hand (what ``history_totals`` keeps)."""
    return sum(state.discarded[seat]) + sum(state.declined[seat])


def _copier(hint) -> typing.Callable:
    """How to copy one field, from its declared type: rows of a nested list, a list, a
    component by its own ``copy()``, or the value itself (ints, strings, tuples and the
    rules are immutable)."""
    if hint is random.Random:
        return _copy_rng
    if hint is Suits:
        return lambda value: value.copy()  # NO_SUITS copies as itself
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        inner = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        if len(inner) > 1:  # a union of scalars (the seed)
            return lambda value: value
        copier = _copier(inner[0])
        return lambda value: None if value is None else copier(value)
    if origin is list:
        (item,) = typing.get_args(hint)
        if typing.get_origin(item) is list:
            return lambda value: [row[:] for row in value]
        return lambda value: value[:]
    return lambda value: value


def _copy_rng(rng: random.Random) -> random.Random:
    other = random.Random()
    other.setstate(rng.getstate())
    return other


_HINTS = typing.get_type_hints(GameState, globalns={**globals(), "Closed": Closed, "Run": Run})
_COPIERS: tuple[tuple[str, typing.Callable], ...] = tuple(
    (name, _copier(_HINTS[name])) for name in STATE_FIELDS
)


def copy_state(source: GameState, target: GameState) -> None:
    """Give ``target`` an independent copy of every field of ``source``."""
    values = target.__dict__
    for name, copier in _COPIERS:
        values[name] = copier(getattr(source, name))


def state_snapshot(state: GameState) -> dict:
    """Every field as an independent value (the generator as its state), to compare later."""
    values = {name: copy.deepcopy(getattr(state, name)) for name in STATE_FIELDS if name != "rng"}
    values["rng"] = state.rng.getstate()
    return values


def same_state(a: GameState, b: GameState) -> bool:
    """Do two games hold the same state, field by field (the generators by their state)?"""
    return all(
        (getattr(a, name).getstate() == getattr(b, name).getstate())
        if name == "rng"
        else getattr(a, name) == getattr(b, name)
        for name in STATE_FIELDS
    )
