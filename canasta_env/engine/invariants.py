"""Invariants of a game's state: card conservation (C-1, K-1, S-1, I-1, G-6).

Every card of the deck is somewhere, exactly once: in the stock, the pot, a hand, the
pot cards held for an opening (C-8), a team's melds, finished canastas (S-7) and runs
(S-19), or laid out as a red 3 (G-6). The compliance checks assert it of a game as it
plays (:func:`state_card_counts`), the state loader of a saved state before any game is
built (:func:`card_counts` on the parsed fields); both compare with
:func:`conservation_gaps`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from canasta_env.actions import SLOT_WILD, natural_kind
from canasta_env.cards import JOKER, NUM_KINDS, RED3, TWO
from canasta_env.engine.state import Closed, GameState, Run


def card_counts(
    piles: Iterable[Sequence[int]],
    holdings: Iterable[Sequence[int]],
    melds: Iterable[tuple[Sequence[int], Sequence[int], Sequence[int]]],
    closed: Iterable[Iterable[Closed]],
    escalas: Iterable[Iterable[Run]],
    red3: Iterable[int],
) -> list[int]:
    """Cards per kind wherever they lie.

    ``piles``: lists of card kinds (the stock, the pot); ``holdings``: counts by kind
    (each hand, the held pot cards); ``melds``: per team, its unfinished melds as the
    engine's per-slot naturals, twos and jokers; ``closed``, ``escalas`` and ``red3``:
    per team, as the state declares them. Naturals in the wild-only slot are no card of
    any kind and are not counted (the checks report them on their own).
    """
    counts = [0] * NUM_KINDS
    for pile in piles:
        for card in pile:
            counts[card] += 1
    for holding in holdings:
        for kind, count in enumerate(holding):
            counts[kind] += count
    for naturals, twos, jokers in melds:
        for slot, count in enumerate(naturals):
            if slot != SLOT_WILD:
                counts[natural_kind(slot)] += count
        counts[TWO] += sum(twos)
        counts[JOKER] += sum(jokers)
    for canastas in closed:
        for slot, n, twos, jokers, _hidden in canastas:
            if slot != SLOT_WILD:
                counts[natural_kind(slot)] += n
            counts[TWO] += twos
            counts[JOKER] += jokers
    for runs in escalas:
        for _suit, first, length in runs:
            for rank in range(first, first + length):
                counts[rank] += 1
    counts[RED3] += sum(red3)
    return counts


def state_card_counts(state: GameState) -> list[int]:
    """:func:`card_counts` of a game's declared state."""
    return card_counts(
        (state.stock, state.pot),
        [*state.hands, state.held],
        zip(state.nat, state.two, state.jok),
        state.closed,
        state.escalas,
        state.red3,
    )


def conservation_gaps(counts: Sequence[int], deck: Sequence[int]) -> list[tuple[int, int, int]]:
    """``(kind, counted, in the deck)`` for each kind whose count is not the deck's."""
    return [
        (kind, counts[kind], deck[kind]) for kind in range(NUM_KINDS) if counts[kind] != deck[kind]
    ]
