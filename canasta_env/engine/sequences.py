"""Suits for the optional Spanish runs (S-19, ``rules.sequences``).

Everything else in the engine plays with card kinds (docs/rules.md resolved
ambiguity 13). With ``sequences`` on, the game also follows the suit of every
natural card (4..A) from the shuffle to the table, in one component of the
state, ``suits`` (:class:`~canasta_env.engine.suits.Suits`: the suits of the stock
and pot cards in order, and counts of naturals per ``kind * 4 + suit``, 44
entries, beside ``hands`` and ``held``); ``escalas[team]`` holds the runs laid, as
``(suit, first rank, length)``.

Actions name card kinds, not suits, so when a meld, a pot take or a discard
gives up naturals of a rank held in several suits, the engine chooses the
suits by one fixed rule (:func:`remove_suits`): a copy of a suit held twice
first, then the copy whose loss shortens the player's same-suit run through
that rank the least, ties in suit order S H D C. It keeps runs intact when
that is possible, which is what a player collecting runs would choose.

The suited deck is listed in kind order and shuffled with the same random
calls as the kinds alone, so a seed deals the same kinds with the option on or
off: the option adds suits to the same deal.

Runs are laid whole by a team that has opened (``escala`` actions), do not
grow, and are not canastas (they count for no going-out or canasta-count
condition). At the end of the hand a run counts its cards' values as melded
cards, and its bonus only if the team has at least one canasta (S-19).
"""

from __future__ import annotations

from canasta_env.actions import ESCALA, MOVES, RUNS
from canasta_env.cards import BLACK3, JOKER, NUM_NATURALS, RED3, SUITS, TWO, suited_code

NUM_SUITS = len(SUITS)
#: Entries of a suited natural count list: ``kind * NUM_SUITS + suit``.
SUITED_SIZE = NUM_NATURALS * NUM_SUITS
#: Suits each kind exists in, per 52-card deck (black 3s are S and C, red 3s H and D).
_KIND_SUITS = {kind: (0, 1, 2, 3) for kind in range(NUM_NATURALS)}
_KIND_SUITS.update({TWO: (0, 1, 2, 3), BLACK3: (0, 3), RED3: (1, 2)})


def suited_deck(num_decks: int, jokers_per_deck: int) -> list[tuple[int, int]]:
    """Every card of the decks as ``(kind, suit)``, in a fixed order (suit -1: joker)."""
    cards = []
    for kind in range(RED3 + 1):
        if kind == JOKER:
            cards += [(JOKER, -1)] * (jokers_per_deck * num_decks)
            continue
        for suit in _KIND_SUITS[kind]:
            cards += [(kind, suit)] * num_decks
    return cards


def assign_suits(prefix, num_decks: int, jokers_per_deck: int) -> list[tuple[int, int]]:
    """The cards left after a stacked-deck ``prefix`` of ``(kind, suit)`` pairs.

    A prefix card with suit None (given as a kind number) takes the first suit
    of its kind still in the decks, in S H D C order. Raises ``ValueError`` when
    the prefix holds a card more often than the decks do. Returns the remaining
    cards in :func:`suited_deck` order; the prefix is completed in place.
    """
    left: dict[tuple[int, int], int] = {}
    for card in suited_deck(num_decks, jokers_per_deck):
        left[card] = left.get(card, 0) + 1
    for i, (kind, suit) in enumerate(prefix):
        if suit is None:
            suits = _KIND_SUITS.get(kind, (-1,))
            suit = next((s for s in suits if left.get((kind, s), 0) > 0), suits[0])
            prefix[i] = (kind, suit)
        count = left.get((kind, suit), 0)
        if count <= 0:
            raise ValueError(
                f"stacked deck has more {suited_code(kind, suit)} than the {num_decks} deck(s) hold"
            )
        left[(kind, suit)] = count - 1
    return [card for card, count in left.items() for _ in range(count)]


def run_length_through(hand_suits: list[int], kind: int, suit: int) -> int:
    """Length of the same-suit run of held naturals that contains ``kind``."""
    length = 1
    rank = kind - 1
    while rank >= 0 and hand_suits[rank * NUM_SUITS + suit]:
        length += 1
        rank -= 1
    rank = kind + 1
    while rank < NUM_NATURALS and hand_suits[rank * NUM_SUITS + suit]:
        length += 1
        rank += 1
    return length


def remove_suits(hand_suits: list[int], kind: int, count: int) -> list[int]:
    """Take ``count`` naturals of ``kind`` out of ``hand_suits``; return their suits.

    The rule (module docstring): a suit held twice first, then the suit whose
    run through ``kind`` is shortest, ties in S H D C order.
    """
    removed = []
    base = kind * NUM_SUITS
    for _ in range(count):
        best = -1
        best_cost = 0
        for suit in range(NUM_SUITS):
            have = hand_suits[base + suit]
            if not have:
                continue
            cost = 0 if have >= 2 else run_length_through(hand_suits, kind, suit)
            if best < 0 or cost < best_cost:
                best, best_cost = suit, cost
        if best < 0:
            raise AssertionError(f"no natural of kind {kind} in the suited hand")
        hand_suits[base + best] -= 1
        removed.append(best)
    return removed


def run_of_action(action: int) -> tuple[int, int, int]:
    """``(suit, first rank, length)`` of an ``escala`` action id, from the move table."""
    move = MOVES[action]
    return move.suit, move.start, move.naturals


#: Bit masks of the ranks of each run (bit r: rank r), in ``RUNS`` order.
_RUN_MASKS = tuple(((1 << length) - 1) << start for start, length in RUNS)
_SHORTEST_RUN = min(length for _, length in RUNS)


def held_runs(hand_suits: list[int]) -> list[int]:
    """The ``escala`` action ids whose cards are all in ``hand_suits``."""
    actions = []
    for suit in range(NUM_SUITS):
        held = 0
        count = 0
        for rank in range(NUM_NATURALS):
            if hand_suits[rank * NUM_SUITS + suit]:
                held |= 1 << rank
                count += 1
        if count < _SHORTEST_RUN:
            continue
        for index, mask in enumerate(_RUN_MASKS):
            if held & mask == mask:
                actions.append(ESCALA + suit * len(RUNS) + index)
    return actions
