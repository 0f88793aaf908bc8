"""Card kinds, card codes, values and deck building.

The engine never needs a card's suit except to tell red 3s from black 3s
(docs/rules.md resolved ambiguity 13), so a card is one of 15 *kinds*:

====  ========  =====================================
id    kind      notes
====  ========  =====================================
0-10  4 .. A    naturals, in rank order (4 5 6 7 8 9 T J Q K A)
11    2         wild (a "pinella" in Italian)
12    JK        joker, wild
13    B3        black 3 (spades, clubs)
14    R3        red 3 (hearts, diamonds); never held (G-6)
====  ========  =====================================

Card codes (for stacked decks and the text interface) are a rank character
and a suit character, ``AS TH 2C 3D``, or ``JK`` for a joker. Rank characters:
``A K Q J T 9 8 7 6 5 4 3 2`` (``10`` is accepted for ``T``); suits ``S H D C``.
"""

from __future__ import annotations

NATURAL_RANKS = "456789TJQKA"
NUM_NATURALS = 11
TWO = 11
JOKER = 12
BLACK3 = 13
RED3 = 14
NUM_KINDS = 15
#: Kinds a player can hold (red 3s are laid out at once, G-6).
NUM_HAND_KINDS = 14

KIND_NAMES = tuple(NATURAL_RANKS) + ("2", "JK", "B3", "R3")

# G-2: joker 50; 2 = 20; A = 20; K..8 = 10; 7..4 = 5; black 3 = 5 when melded.
# The red 3 has no card value; its bonus is in the rules tables.
CARD_VALUES = (5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20, 20, 50, 5, 0)

WILD_KINDS = (TWO, JOKER)
SUITS = "SHDC"
RED_SUITS = "HD"

_RANK_ALIASES = {"10": "T"}


def is_wild(kind: int) -> bool:
    return kind == TWO or kind == JOKER


def is_natural(kind: int) -> bool:
    return 0 <= kind < NUM_NATURALS


def kind_of_code(code: str) -> int:
    """Return the kind of a card code such as ``"AS"``, ``"10H"``, ``"3D"`` or ``"JK"``.

    Raises ``ValueError`` naming the code when it is not a card.
    """
    text = code.strip().upper()
    if text in ("JK", "JOKER", "*"):
        return JOKER
    if len(text) < 2:
        raise ValueError(f"not a card code: {code!r} (expected e.g. 'AS', 'TH', '2C', 'JK')")
    rank, suit = text[:-1], text[-1]
    rank = _RANK_ALIASES.get(rank, rank)
    if suit not in SUITS or len(rank) != 1:
        raise ValueError(f"not a card code: {code!r} (expected e.g. 'AS', 'TH', '2C', 'JK')")
    if rank == "3":
        return RED3 if suit in RED_SUITS else BLACK3
    if rank == "2":
        return TWO
    index = NATURAL_RANKS.find(rank)
    if index < 0:
        raise ValueError(f"not a card code: {code!r} (unknown rank {rank!r})")
    return index


def parse_cards(text: str | list[str] | tuple[str, ...]) -> list[int]:
    """Parse ``"AS TH 2C JK"`` (or a list of codes) into a list of kinds."""
    codes = text.split() if isinstance(text, str) else list(text)
    return [kind_of_code(code) for code in codes]


def suit_of_code(code: str) -> int:
    """The suit index (in ``SUITS``) of a card code; -1 for a joker. Only S-19 runs read it."""
    text = code.strip().upper()
    if text in ("JK", "JOKER", "*"):
        return -1
    kind_of_code(code)  # raises on a malformed code
    return SUITS.index(text[-1])


def parse_suited(text: str | list[str] | tuple[str, ...]) -> list[tuple[int, int]]:
    """Parse card codes into ``(kind, suit)`` pairs (suit -1 for a joker)."""
    codes = text.split() if isinstance(text, str) else list(text)
    return [(kind_of_code(code), suit_of_code(code)) for code in codes]


def suited_code(kind: int, suit: int) -> str:
    """The card code of a kind in a suit (``suit`` < 0: the kind's representative code)."""
    if suit < 0 or kind == JOKER:
        return kind_code(kind)
    if kind == BLACK3 or kind == RED3:
        if (SUITS[suit] in RED_SUITS) != (kind == RED3):
            return kind_code(kind)
        return "3" + SUITS[suit]
    return ("2" if kind == TWO else NATURAL_RANKS[kind]) + SUITS[suit]


def kind_code(kind: int) -> str:
    """A representative code for a kind (the suit is arbitrary where it is irrelevant)."""
    if kind == JOKER:
        return "JK"
    if kind == TWO:
        return "2S"
    if kind == BLACK3:
        return "3S"
    if kind == RED3:
        return "3H"
    return NATURAL_RANKS[kind] + "S"


def kind_from_name(name: str) -> int:
    """Inverse of ``KIND_NAMES``: ``"A"``, ``"T"`` or ``"10"``, ``"2"``, ``"JK"``, ``"B3"``."""
    text = _RANK_ALIASES.get(name.strip().upper(), name.strip().upper())
    if text in KIND_NAMES:
        return KIND_NAMES.index(text)
    raise ValueError(f"unknown card kind {name!r}; expected one of {' '.join(KIND_NAMES)}")


def deck_counts(num_decks: int, jokers_per_deck: int) -> list[int]:
    """G-1: number of cards of each kind in ``num_decks`` 52-card decks plus jokers."""
    counts = [4 * num_decks] * NUM_NATURALS
    counts += [4 * num_decks, jokers_per_deck * num_decks, 2 * num_decks, 2 * num_decks]
    return counts


def counts_to_cards(counts: list[int]) -> list[int]:
    return [kind for kind, n in enumerate(counts) for _ in range(n)]


def cards_to_counts(cards: list[int]) -> list[int]:
    counts = [0] * NUM_KINDS
    for kind in cards:
        counts[kind] += 1
    return counts
