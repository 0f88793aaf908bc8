"""Moves of cards onto a team's table, written once.

Play (:class:`~canasta_env.engine.game.Game`) applies these to the game's own
lists; the legality search (:class:`~canasta_env.engine.opening.TurnSearch`)
applies them to copies to look ahead. Each takes the hand's kind counts and the
team's melds (``nat``, ``two``, ``jok`` by slot, ``closed`` canastas), changes the
counts in place and returns the team's ``closed`` list (a new list when a meld
closed); a pot take also returns what its cards count towards an opening.
"""

from __future__ import annotations

from canasta_env.actions import SLOT_BLACK3, SLOT_WILD
from canasta_env.cards import BLACK3, JOKER, TWO
from canasta_env.engine.melds import meld_points
from canasta_env.rules import Rules


def close_if_full(rules: Rules, nat, two, jok, closed: list, slot: int, hidden: bool) -> list:
    """S-7: a meld that reaches its size limit becomes a finished canasta and its slot
    empties; returns the team's ``closed`` list (a new one if the meld closed)."""
    if not rules.meld_closes_at:
        return closed
    size = nat[slot] + two[slot] + jok[slot]
    limit = rules.wild_meld_max_size if slot == SLOT_WILD else rules.meld_closes_at
    if size < limit:
        return closed
    closed = closed + [(slot, nat[slot], two[slot], jok[slot], hidden)]
    nat[slot] = two[slot] = jok[slot] = 0
    return closed


def lay(rules: Rules, hand, nat, two, jok, closed: list, move) -> tuple[list, bool]:
    """A meld move (C-5..C-7, S-7, S-9, I-5): its cards leave the hand and join the slot.

    Returns (closed, hidden): the team's canastas and whether the move laid a whole
    canasta at once (S-8). What the cards count towards an opening (G-5) is
    :func:`~canasta_env.engine.melds.meld_points`, needed only by a team that has
    not opened.
    """
    _, slot, naturals, twos, jokers, is_new = move
    kind = BLACK3 if slot == SLOT_BLACK3 else slot  # natural_kind, inline: a hot path
    if naturals:
        hand[kind] -= naturals
        nat[slot] += naturals
    if twos:
        hand[TWO] -= twos
        two[slot] += twos
    if jokers:
        hand[JOKER] -= jokers
        jok[slot] += jokers
    hidden = is_new and naturals + twos + jokers == rules.canasta_size
    if rules.meld_closes_at:
        closed = close_if_full(rules, nat, two, jok, closed, slot, hidden)
    return closed, hidden


def take_top(rules: Rules, hand, nat, two, jok, closed: list, top: int, option) -> tuple[list, int]:
    """Taking the pot (C-10, S-5, I-7): its top card and the cards ``option`` names
    (action, naturals, twos, jokers from the hand) form or join the top card's meld.

    Returns (closed, points), as :func:`lay`. The rest of the pot is the caller's:
    the player sees and gets it, the search counts only what the player can see.
    """
    _, naturals, twos, jokers = option
    hand[top] -= naturals
    hand[TWO] -= twos
    hand[JOKER] -= jokers
    nat[top] += 1 + naturals
    two[top] += twos
    jok[top] += jokers
    points = meld_points(top, 1 + naturals, twos, jokers)
    if rules.meld_closes_at:
        closed = close_if_full(rules, nat, two, jok, closed, top, False)
    return closed, points
