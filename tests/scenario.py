"""Helpers for scenario tests: stacked deals, action strings, masks and snapshots.

A scenario test builds an exact position from a stacked deck, plays readable
action strings and compares the full mask, the state and the score sheets with
numbers worked out by hand from RULES.md. Nothing here knows a preset: every
helper takes the variant name (and rules overrides) as arguments.

Cards are written as kind names (``4 .. A``, ``T``/``10``, ``2``, ``JK``,
``B3``, ``R3``) or as card codes (``AS``, ``7H``, ``3D``); suits never matter
except for 3s (RULES.md resolved ambiguity 13).
"""

from __future__ import annotations

import pytest

from canasta_env.actions import SLOT_BLACK3, SLOT_WILD, action_to_str, slot_name, str_to_action
from canasta_env.cards import (
    JOKER,
    KIND_NAMES,
    NUM_KINDS,
    TWO,
    cards_to_counts,
    deck_counts,
    kind_from_name,
    kind_of_code,
)
from canasta_env.engine import Game, IllegalActionError
from canasta_env.engine.state import state_snapshot
from canasta_env.rules import make_rules

# ----------------------------------------------------------------------------- cards


def cards(text: str) -> list[int]:
    """Kinds of ``"A A 7 JK B3 R3"`` (kind names) or ``"AS 7H 3D"`` (codes), in order."""
    kinds = []
    for token in text.split():
        upper = token.upper()
        if upper in KIND_NAMES or upper == "10":
            kinds.append(kind_from_name(upper))
        else:
            kinds.append(kind_of_code(upper))
    return kinds


def counts(text: str) -> list[int]:
    """The 15 kind counts of a card list, to compare with ``game.hands[p]``."""
    return cards_to_counts(cards(text))


def hand_text(hand: list[int]) -> str:
    """Kind counts as sorted kind names, e.g. ``"4 4 7 A 2 JK B3"``."""
    return " ".join(KIND_NAMES[k] for k in range(NUM_KINDS) for _ in range(hand[k]))


def hand_of(game: Game, player: int) -> str:
    return hand_text(game.hands[player])


def melds_of(game: Game, team: int) -> dict[str, str]:
    """A team's open melds as ``{"7": "7 7 7 2", ...}`` (naturals, then 2s, then jokers).

    Finished canastas of presets whose melds close at seven (S-7) are in ``game.closed``.
    """
    table = {}
    for slot in range(13):
        n, twos, jokers = game.nat[team][slot], game.two[team][slot], game.jok[team][slot]
        if n + twos + jokers:
            natural = (
                "" if slot == SLOT_WILD else ("B3" if slot == SLOT_BLACK3 else slot_name(slot))
            )
            words = [natural] * n + [KIND_NAMES[TWO]] * twos + [KIND_NAMES[JOKER]] * jokers
            table[slot_name(slot)] = " ".join(words)
    return table


# ----------------------------------------------------------------------------- deals


def stacked_deck(
    variant: str,
    players: int,
    hands: list[str],
    then: str = "",
    last: str | None = None,
    **overrides,
) -> list[int]:
    """The deck in draw order: each seat's hand (seat order from the first player),
    then ``then`` (red-3 replacements of the deal, the pot start, the draws).

    With ``last`` the whole deck is stacked: the cards not named follow ``then``
    in kind order, and ``last`` are the final cards of the stock (in draw order).
    """
    rules = make_rules(variant, **overrides)
    size = rules.hand_size_for(players)
    if len(hands) != players:
        raise ValueError(f"{len(hands)} hands for {players} players")
    order: list[int] = []
    for seat, hand in enumerate(hands):
        dealt = cards(hand)
        if len(dealt) != size:
            raise ValueError(f"hand {seat} has {len(dealt)} cards, the deal gives {size}")
        order += dealt
    order += cards(then)
    if last is None:
        return order
    tail = cards(last)
    left = deck_counts(rules.decks_for(players), rules.jokers_per_deck)
    for kind in order + tail:
        left[kind] -= 1
        if left[kind] < 0:
            raise ValueError(f"the deck holds too few {KIND_NAMES[kind]}")
    middle = [kind for kind in range(NUM_KINDS) for _ in range(left[kind])]
    return order + middle + tail


def new_game(
    hands: list[str],
    then: str = "",
    *,
    variant: str = "classic",
    last: str | None = None,
    scores: list[int] | None = None,
    seed: int = 0,
    **overrides,
) -> Game:
    """A game whose first hand is dealt from a stacked deck (see :func:`stacked_deck`).

    ``scores`` sets the teams' totals before the deal (they decide the opening
    minimum, C-8); the first player is then still player 0.
    """
    players = len(hands)
    deck = stacked_deck(variant, players, hands, then, last, **overrides)
    rules = make_rules(variant, **overrides)
    game = Game(rules, players, seed=seed, deck=deck)
    if scores is not None:
        game.scores = list(scores)
        game.start_hand(deck)
    return game


# ----------------------------------------------------------------------------- playing


def act(text: str) -> int:
    return str_to_action(text)


def play(game: Game, *actions: str) -> None:
    """Apply action strings in order (each must be legal)."""
    for text in actions:
        game.apply(str_to_action(text))


def legal_strings(game: Game) -> set[str]:
    """The mask as a set of action strings."""
    return {action_to_str(a) for a in game.legal_actions()}


def meld_strings(game: Game) -> set[str]:
    """The legal meld and add actions only (no draw, take, pass or discard)."""
    return {s for s in legal_strings(game) if s.startswith(("meld", "add"))}


def snapshot(game: Game) -> dict:
    """A deep copy of the game's declared state (caches excluded) to compare before/after."""
    return state_snapshot(game)


def assert_illegal(game: Game, *actions: str) -> None:
    """Each action is refused with IllegalActionError and the state is unchanged."""
    for text in actions:
        before = snapshot(game)
        assert action_to_str(str_to_action(text)) not in legal_strings(game), text
        with pytest.raises(IllegalActionError):
            game.apply(str_to_action(text))
        assert snapshot(game) == before, f"{text!r} changed the state"


def burn_stock(game: Game, leave: int) -> None:
    """Each player in turn draws and discards a card drawn until at most ``leave``
    stock cards remain (presets that draw two cards keep the second one).

    Used with a fully stacked deck (``last=...``) to reach stock exhaustion.
    """
    while len(game.stock) > leave:
        player = game.current
        before = game.hands[player][:]
        play(game, "draw")
        drawn = [k for k in range(NUM_KINDS) if game.hands[player][k] > before[k]]
        assert drawn, "the draw ended the hand"
        play(game, f"discard {KIND_NAMES[drawn[0]]}")


# ----------------------------------------------------------------------------- scores


def score_sheet(
    melded=0, canasta_bonus=0, red3=0, count_bonus=0, going_out=0, hand_penalty=0, n=0, sequences=0
):
    """A hand's score sheet as ``score_team`` writes it; the total is the sum of the parts
    (G-9). ``n`` is the team's number of canastas."""
    total = melded + canasta_bonus + sequences + red3 + count_bonus + going_out + hand_penalty
    return {
        "melded": melded,
        "canasta_bonus": canasta_bonus,
        "sequences": sequences,
        "red3": red3,
        "count_bonus": count_bonus,
        "going_out": going_out,
        "hand_penalty": hand_penalty,
        "total": total,
        "canastas": n,
    }
