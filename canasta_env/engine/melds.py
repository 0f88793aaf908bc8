"""Meld composition rules and the meld moves a hand allows (C-5..C-7, S-7, S-9, S-11, I-5, I-6).

A team's unfinished melds live in three lists indexed by slot (natural ranks
0-10, black 3s 11, wild-only 12): naturals, twos and jokers. Finished canastas
of variants whose melds close at seven cards (S-7) move to a list of
``(slot, naturals, twos, jokers, hidden)`` tuples.

These functions work on plain lists so that the engine and the opening
search (:mod:`canasta_env.engine.opening`) share one implementation.
"""

from __future__ import annotations

import functools

from canasta_env.actions import (
    ADD_JOKER,
    ADD_NATURAL,
    ADD_TWO,
    COMPOSITIONS,
    NEW_BLACK3,
    NEW_MELD,
    NEW_WILD,
    NUM_COMPOSITIONS,
    NUM_SLOTS,
    SLOT_BLACK3,
    SLOT_WILD,
    WILD_COMPOSITIONS,
)
from canasta_env.actions import natural_kind as natural_kind  # its home is the slot layout
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, NUM_NATURALS, TWO
from canasta_env.rules import Rules

#: The slots of the natural ranks (0-10): a loop over them stops there.
NATURAL_SLOTS = range(NUM_NATURALS)
#: A meld move: (action id, slot, naturals, twos, jokers, is_new).
Move = tuple
TABLE_SIZE = 72


class MeldTables:
    """Per-rules precomputed tables of which compositions are legal melds."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.closes_at = rules.meld_closes_at
        # new natural melds, grouped by naturals: n -> [(twos, jokers, comp index)]
        self.new_natural_by_n: list[list[tuple[int, int, int]]] = [[] for _ in range(8)]
        for index, (n, twos, jokers) in enumerate(COMPOSITIONS):
            if self.natural_meld_ok(n, twos, jokers):
                self.new_natural_by_n[n].append((twos, jokers, index))
        self.new_wild: list[tuple[int, int, int]] = []
        if rules.wild_melds:
            for index, (twos, jokers) in enumerate(WILD_COMPOSITIONS):
                if rules.wild_meld_min_start <= twos + jokers <= rules.wild_meld_max_size:
                    self.new_wild.append((twos, jokers, index))
        self.clean_wild_openings = set(rules.clean_opening_wild_melds)
        self._new_options: dict[tuple, list] = {}
        self._new_counts: dict[tuple, tuple] = {}
        # natural_ok[n][wilds]: natural_meld_ok as a table (at most 8 decks: 32 of a rank)
        self.natural_ok = [
            [self.natural_meld_ok(n, wilds, 0) for wilds in range(TABLE_SIZE)]
            for n in range(TABLE_SIZE)
        ]

    def new_natural_options(self, twos_in_hand: int, jokers_in_hand: int, clean_only: bool):
        """New natural melds a hand allows, by naturals held (0..7, capped at 7): for each,
        the (composition index, naturals, twos, jokers) in the order meld_moves lists them."""
        key = (min(twos_in_hand, 8), min(jokers_in_hand, 8), clean_only)
        found = self._new_options.get(key)
        if found is None:
            found = []
            for have in range(8):
                options = []
                for n in range(2, have + 1):
                    for twos, jokers, index in self.new_natural_by_n[n]:
                        if twos <= key[0] and jokers <= key[1]:
                            if clean_only and twos + jokers:
                                continue
                            options.append((index, n, twos, jokers))
                found.append(tuple(options))
            self._new_options[key] = found
        return found

    def new_natural_counts(self, have: int, wilds_in_hand: int, clean_only: bool):
        """The new natural melds of a hand by (naturals, wild cards): the compositions of
        :meth:`new_natural_options` with the kind of each wild card left open (a 2 and a
        joker weigh alike on a natural meld), for ``have`` naturals (capped at 7)."""
        key = (min(have, 7), min(wilds_in_hand, 8), clean_only)
        found = self._new_counts.get(key)
        if found is None:
            found = []
            for n in range(2, key[0] + 1):
                for wilds in range(0, min(key[1], n) + 1):
                    if 3 <= n + wilds <= 7 and self.natural_ok[n][wilds]:
                        if clean_only and wilds:
                            continue
                        found.append((n, wilds))
            found = self._new_counts[key] = tuple(found)
        return found

    def natural_meld_ok(self, n: int, twos: int, jokers: int) -> bool:
        """C-5, S-7, I-5: is (n naturals, twos, jokers) a legal meld of a natural rank?"""
        rules = self.rules
        wilds = twos + jokers
        size = n + wilds
        return (
            n >= rules.min_naturals
            and size >= rules.min_meld_size
            and wilds <= rules.max_wilds_per_meld
            and n - wilds >= rules.min_natural_excess
            and (not self.closes_at or size <= self.closes_at)
        )


@functools.lru_cache(maxsize=64)
def meld_tables(rules: Rules) -> MeldTables:
    """The (immutable) tables of a rules object, built once per distinct rules value."""
    return MeldTables(rules)


def meld_moves(
    tables: MeldTables,
    hand: list[int],
    nat: list[int],
    two: list[int],
    jok: list[int],
    clean_only: bool,
) -> list[Move]:
    """Every meld move the hand allows onto a team's melds, before turn guards.

    ``clean_only`` restricts to moves allowed in a clean opening (I-10).
    """
    rules = tables.rules
    moves: list[Move] = []
    append = moves.append
    twos_in_hand = hand[TWO]
    jokers_in_hand = hand[JOKER]
    ok = tables.natural_ok
    new_by_have = None
    for rank, have, n0, twos_on, jokers_on in zip(NATURAL_SLOTS, hand, nat, two, jok):
        if n0 or twos_on or jokers_on:
            wilds = twos_on + jokers_on
            if have and ok[n0 + 1][wilds]:
                append((ADD_NATURAL + rank, rank, 1, 0, 0, False))
            if clean_only or not ok[n0][wilds + 1]:
                continue
            if twos_in_hand:
                append((ADD_TWO + rank, rank, 0, 1, 0, False))
            if jokers_in_hand:
                append((ADD_JOKER + rank, rank, 0, 0, 1, False))
        elif have >= 2:
            if new_by_have is None:
                new_by_have = tables.new_natural_options(twos_in_hand, jokers_in_hand, clean_only)
            base = NEW_MELD + rank * NUM_COMPOSITIONS
            for index, n, twos, jokers in new_by_have[have if have < 7 else 7]:
                append((base + index, rank, n, twos, jokers, True))
    if rules.black3_melds and hand[BLACK3]:
        size = nat[SLOT_BLACK3]
        if size:
            if size < rules.black3_meld_max_size:
                append((ADD_NATURAL + SLOT_BLACK3, SLOT_BLACK3, 1, 0, 0, False))
        else:
            least = max(3, rules.min_meld_size)  # C-5's minimum holds for black 3s too
            for n in range(least, min(hand[BLACK3], rules.black3_meld_max_size) + 1):
                append((NEW_BLACK3 + n - 3, SLOT_BLACK3, n, 0, 0, True))
    if rules.wild_melds and (twos_in_hand or jokers_in_hand):
        size = two[SLOT_WILD] + jok[SLOT_WILD]
        if size:
            if size < rules.wild_meld_max_size and not clean_only:
                if twos_in_hand:
                    append((ADD_TWO + 11, SLOT_WILD, 0, 1, 0, False))
                if jokers_in_hand:
                    append((ADD_JOKER + 11, SLOT_WILD, 0, 0, 1, False))
        else:
            clean_set = tables.clean_wild_openings
            for twos, jokers, index in tables.new_wild:
                if twos <= twos_in_hand and jokers <= jokers_in_hand:
                    if clean_only and (twos, jokers) not in clean_set:
                        continue
                    append((NEW_WILD + index, SLOT_WILD, 0, twos, jokers, True))
    return moves


def going_out_only(rules: Rules, nat: list[int]) -> bool:
    """C-7: black 3s are melded only by a player who goes out in that turn, so with a
    black-3 meld on the table the turn can end only by going out."""
    return rules.black3_meld_only_going_out and nat[SLOT_BLACK3] > 0


def black3_canasta(rules: Rules, nat: list[int], closed: list) -> bool:
    """S-11: does the team hold a canasta of black 3s (open or closed)?"""
    if nat[SLOT_BLACK3] >= rules.canasta_size:
        return True
    return any(canasta[0] == SLOT_BLACK3 for canasta in closed)


def canasta_kind(slot: int, n: int, twos: int, jokers: int) -> tuple[bool, bool]:
    """(is clean, is dirty) of a canasta, for the clean-and-dirty going-out rules (S-15, I-11).

    A wild-only canasta is clean when it holds one kind of wild card only (S-10).
    """
    if slot == SLOT_WILD:
        clean = twos == 0 or jokers == 0
    else:
        clean = twos + jokers == 0
    return clean, not clean


def meld_points(slot: int, naturals: int, twos: int, jokers: int) -> int:
    """G-2: the card values of a meld's cards (or of the cards a move adds to it)."""
    kind = BLACK3 if slot == SLOT_BLACK3 else slot  # natural_kind, inline: a hot path
    return CARD_VALUES[kind] * naturals + CARD_VALUES[TWO] * twos + CARD_VALUES[JOKER] * jokers


def team_canastas(
    rules: Rules, nat: list[int], two: list[int], jok: list[int], closed: list
) -> list[tuple[int, int, int, int, bool]]:
    """Every canasta of a team: its unfinished melds of canasta size (C-6), then its
    finished ones (S-7), each as (slot, naturals, twos, jokers, hidden)."""
    size_needed = rules.canasta_size
    canastas = [
        (slot, nat[slot], two[slot], jok[slot], False)
        for slot in range(NUM_SLOTS)
        if nat[slot] + two[slot] + jok[slot] >= size_needed
    ]
    return canastas + closed


def canasta_summary(
    rules: Rules, nat: list[int], two: list[int], jok: list[int], closed: list
) -> tuple[int, int, int]:
    """(canastas, clean canastas, dirty canastas) of one team."""
    canastas = team_canastas(rules, nat, two, jok, closed)
    clean = 0
    for slot, n, twos, jokers, _ in canastas:
        if canasta_kind(slot, n, twos, jokers)[0]:
            clean += 1
    return len(canastas), clean, len(canastas) - clean


def canastas_let_go_out(rules: Rules, count: int, clean: int, dirty: int) -> bool:
    """C-14, S-15, I-11: do a team's canastas (``count``, of them ``clean`` and ``dirty``)
    let it go out? Its opening and S-15's turn of the first clean canasta aside."""
    if count < rules.go_out_min_canastas:
        return False
    return not rules.go_out_needs_clean_and_dirty or bool(clean and dirty)
