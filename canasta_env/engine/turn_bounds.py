"""Quick proofs that a turn cannot end: the opening or going out out of reach.

The turn search (:mod:`canasta_env.engine.opening`) asks these before any search, and
once for each position it expands; each is an upper bound, never an approximation of
legality: it says False only where no sequence of meld moves ends the turn that way.

* :func:`opening_in_reach` (G-5, C-8, S-8, I-9, I-10): can the hand meld its opening
  minimum and keep the cards the end of the turn needs? Each slot on its own (moves on
  different slots commute), the wild cards the one resource the slots share: for every
  count of wild cards a slot may take, the fewest naturals laid with them (the exact meld
  rules of C-5, I-5 on a slot whose melds grow; with S-7's closing melds, the sums every
  meld of the slot keeps); then a knapsack over the slots by wild cards and cards kept,
  the jokers counted first (the most points). Pot cards held aside do not count: they
  join the hand once the minimum is reached. This is the draw phase's costliest proof:
  a pot the player may not take because the hand cannot reach a high minimum.
* :func:`hidden_canasta_possible` (S-8): may a hidden canasta open the team whatever
  the count?
* :func:`going_out_in_reach` (C-7, C-14, S-15, I-11): may the canastas going out needs
  be made, with at most one card no meld can take?
* :func:`black3_canasta_in_reach` (S-11): may a black-3 canasta that wins the game end
  the turn?

The core mirrors this file in ``csrc/turn_bounds.hpp``, line for line.
"""

from __future__ import annotations

import functools

from canasta_env.actions import MAX_NEW_MELD, SLOT_BLACK3, SLOT_WILD
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, NUM_NATURALS, TWO
from canasta_env.engine.melds import MeldTables
from canasta_env.rules import OBSERVATION_BYTE_MAX, Rules

#: The fewest points a wild card adds (a 2; a joker adds more, G-2).
LEAST_WILD_POINTS = CARD_VALUES[TWO]
#: Wild cards the knapsack counts beyond those whose points alone reach the minimum: a
#: slot's wild counts above this one have no gaps (every slot starts a meld with at most
#: MAX_NEW_MELD cards), so a total past that many is matched by one at most this far past.
WILD_SLACK = MAX_NEW_MELD
#: The knapsack's widest row: an opening minimum is at most OBSERVATION_BYTE_MAX (its
#: bound in rules.BOUNDS); past it (no legal position) the search decides.
MOST_WILDS_COUNTED = OBSERVATION_BYTE_MAX // LEAST_WILD_POINTS + 1 + WILD_SLACK
#: No bound on a slot's wild cards (closing melds start anew, S-7).
NO_LIMIT = 1 << 30


def hidden_canasta_possible(tables: MeldTables, hand, nat, two, jok, clean_only: bool) -> bool:
    """S-8: may a new meld of exactly ``canasta_size`` cards, laid at once from ``hand``,
    open the team? (New melds have at most MAX_NEW_MELD cards: the action layout.) With
    closing melds (S-7) a slot empties again, so its meld on the table is no obstacle."""
    rules = tables.rules
    size = rules.canasta_size
    if not rules.hidden_canasta_opens or size > MAX_NEW_MELD:
        return False
    closes = rules.meld_closes_at
    wilds = 0 if clean_only else hand[TWO] + hand[JOKER]
    for rank in range(NUM_NATURALS):
        have = hand[rank]
        if have < 2 or (not closes and nat[rank] + two[rank] + jok[rank]):
            continue
        for naturals in range(max(2, size - wilds), min(have, size) + 1):
            if tables.natural_meld_ok(naturals, size - naturals, 0):
                return True
    if (
        rules.black3_melds
        and hand[BLACK3] >= size
        and max(3, rules.min_meld_size) <= size <= rules.black3_meld_max_size
        and (closes or not nat[SLOT_BLACK3])
    ):
        return True
    if rules.wild_melds and (closes or not two[SLOT_WILD] + jok[SLOT_WILD]):
        for twos, jokers, _ in tables.new_wild:
            if twos + jokers == size and twos <= hand[TWO] and jokers <= hand[JOKER]:
                if not clean_only or (twos, jokers) in tables.clean_wild_openings:
                    return True
    return False


def _natural_slot(tables: MeldTables, have: int, n0: int, w0: int, clean_only: bool, top: int):
    """For w = 0..top wild cards laid on a natural slot this turn, the fewest naturals laid
    with them (-1: no way); laying more of the ``have`` naturals in hand is then legal too
    (and laying nothing always is). ``n0 w0``: the slot's meld on the table."""
    rules = tables.rules
    least = [-1] * (top + 1)
    if rules.meld_closes_at:
        # S-7: several melds in turn; each keeps min_natural_excess more naturals than wild
        # cards (so all of them together do), a new one starts with 2 naturals and 3 cards
        start = not (n0 or w0)
        for w in range(top + 1):
            if w and (clean_only or not rules.max_wilds_per_meld):
                break
            fewest = max(0, w + w0 + rules.min_natural_excess - n0)
            if start:
                fewest = max(fewest, 2, rules.min_naturals, max(3, rules.min_meld_size) - w)
            if fewest <= have:
                least[w] = fewest
        return least
    ok = tables.natural_meld_ok
    for w in range(top + 1):
        if w and clean_only:
            break
        if n0 or w0:  # a meld on the table grows a card at a time (C-5)
            first = 0
        else:  # a new meld: 2..7 cards laid at once, then naturals, then wild cards
            first = 2
            while first <= have and _least_start_wilds(tables, min(first, MAX_NEW_MELD)) > w:
                first += 1
        for added in range(first, have + 1):  # (more naturals keep a legal meld legal)
            if ok(n0 + added, w0 + w, 0):
                least[w] = added
                break
    return least


@functools.lru_cache(maxsize=1024)
def _least_start_wilds(tables: MeldTables, naturals: int):
    """The fewest wild cards of a new natural meld of at most ``naturals`` naturals that
    the action layout lays (3..MAX_NEW_MELD cards, 2 naturals at least); past
    MAX_NEW_MELD if none."""
    for wilds in range(0, MAX_NEW_MELD + 1):
        for n in range(2, naturals + 1):
            if (
                wilds <= n
                and 3 <= n + wilds <= MAX_NEW_MELD
                and tables.natural_meld_ok(n, wilds, 0)
            ):
                return wilds
    return MAX_NEW_MELD + 1


def _black3_laid(rules, have: int, n0: int) -> tuple[int, int]:
    """(fewest, most) black 3s a turn lays when it lays any (C-7, S-11): a new meld of
    max(3, min_meld_size) to black3_meld_max_size cards, then one at a time up to that
    size; with closing melds (S-7) a full meld closes and another may start. (1, 0) when
    it lays none."""
    least = 1 if n0 else max(3, rules.min_meld_size)
    if not rules.black3_melds or not have or (not n0 and rules.black3_meld_max_size < least):
        return 1, 0
    most = have if rules.meld_closes_at else min(have, rules.black3_meld_max_size - n0)
    return least, most


def _wild_slot(tables: MeldTables, size: int, clean_only: bool) -> tuple[int, int]:
    """(fewest, most) wild cards the wild-only slot takes this turn when it takes any
    (S-9, I-6); (1, 0) when it takes none. ``size``: its meld on the table."""
    rules = tables.rules
    if not rules.wild_melds:
        return 1, 0
    if size:
        if clean_only:
            return 1, 0
        return 1, NO_LIMIT if rules.meld_closes_at else max(0, rules.wild_meld_max_size - size)
    sizes = [
        twos + jokers
        for twos, jokers, _ in tables.new_wild
        if not clean_only or (twos, jokers) in tables.clean_wild_openings
    ]
    if not sizes:
        return 1, 0
    if clean_only:
        return min(sizes), max(sizes)
    most = NO_LIMIT if rules.meld_closes_at else rules.wild_meld_max_size
    return min(sizes), most


def opening_in_reach(
    tables: MeldTables, hand, nat, two, jok, clean_only: bool, lacking: int, keep: int = 0
) -> bool:
    """May meld moves from ``hand`` onto the team's melds (``nat two jok`` by slot) add
    ``lacking`` opening points this turn and leave ``keep`` (0, 1 or 2) cards in the hand?
    False only where none can (see the module)."""
    if lacking <= 0:
        return True
    rules = tables.rules
    twos, jokers = hand[TWO], hand[JOKER]
    wilds = 0 if clean_only and not rules.wild_melds else twos + jokers
    # wild cards whose points alone reach the minimum, and the knapsack's top
    enough = -(-lacking // LEAST_WILD_POINTS)
    top = min(wilds, enough + WILD_SLACK)
    if top > MOST_WILDS_COUNTED:
        return True  # no legal position: the search decides
    # best[left][w]: the most points of naturals and black 3s with w wild cards laid and
    # ``left`` of those naturals and black 3s kept in the hand (capped at keep); -1: none
    best = [[-1] * (top + 1) for _ in range(keep + 1)]
    low, high = _black3_laid(rules, hand[BLACK3], nat[SLOT_BLACK3])  # C-7, S-11 (G-2)
    for laid in {0, *(max(0, high - k) for k in range(keep + 1))}:
        if laid == 0 or low <= laid <= high:
            left = min(keep, hand[BLACK3] - laid)
            best[left][0] = max(best[left][0], CARD_VALUES[BLACK3] * laid)
    for rank in range(NUM_NATURALS):
        have = hand[rank]
        n0, w0 = nat[rank], two[rank] + jok[rank]
        if not have and (not (n0 or w0) or clean_only or not top):
            continue
        least = _natural_slot(tables, have, n0, w0, clean_only, top)
        # (wild cards, naturals laid) of each way worth trying: the most, or keep fewer
        options = [(0, 0)]
        for w, fewest in enumerate(least):
            if fewest >= 0:
                options += [(w, have - k) for k in range(keep + 1) if have - k >= fewest]
        value = CARD_VALUES[rank]
        merged = [row[:] for row in best]
        for left, row in enumerate(best):
            for used, base in enumerate(row):
                if base < 0:
                    continue
                for w, added in options:
                    if used + w > top:
                        continue
                    into = merged[min(keep, left + have - added)]
                    if base + value * added > into[used + w]:
                        into[used + w] = base + value * added
        best = merged
    low, high = _wild_slot(tables, two[SLOT_WILD] + jok[SLOT_WILD], clean_only)
    if low <= high and top:
        for row in best:
            merged = row[:]
            for used, base in enumerate(row):
                if base < 0:
                    continue
                for w in range(low, min(high, top - used) + 1):
                    if base > merged[used + w]:
                        merged[used + w] = base
            row[:] = merged
    for left, row in enumerate(best):
        for used, base in enumerate(row):
            if base < 0 or left + twos + jokers - used < keep:
                continue
            laid_jokers = min(used, jokers)
            wild_points = CARD_VALUES[JOKER] * laid_jokers + CARD_VALUES[TWO] * (used - laid_jokers)
            if base + wild_points >= lacking:
                return True
    return False


def _black3_size(rules: Rules) -> int:
    """The fewest black 3s of a black-3 canasta: canasta_size, or a meld that closes
    sooner (S-7); NO_LIMIT where black3_meld_max_size keeps a meld smaller."""
    most = rules.black3_meld_max_size
    size = rules.canasta_size if most >= rules.canasta_size else NO_LIMIT
    if rules.meld_closes_at and rules.meld_closes_at <= most:
        size = min(size, rules.meld_closes_at)
    return size


def black3_canasta_in_reach(rules: Rules, hand, held, nat, closed_black3: bool) -> bool:
    """S-11: may the team hold a canasta of black 3s at the end of this turn (one that
    wins the game ends the turn)? False only where its black 3s are too few."""
    if closed_black3:
        return True
    have = hand[BLACK3] + held[BLACK3] + nat[SLOT_BLACK3]
    return rules.black3_melds and have >= _black3_size(rules)


def cards_no_meld_takes(rules: Rules, hand, held, nat, two, jok) -> int:
    """Cards of the hand and the held pot cards (which join it at the opening, C-8) that
    no meld move can take: naturals of a rank without a meld and too few to start one
    (C-5), black 3s beyond what their meld may still hold (C-7)."""
    least = max(2, rules.min_naturals)
    stuck = 0
    for rank in range(NUM_NATURALS):
        have = hand[rank] + held[rank]
        if have and have < least and not (nat[rank] or two[rank] or jok[rank]):
            stuck += have
    black3 = hand[BLACK3] + held[BLACK3]
    if black3 and not rules.meld_closes_at:  # (closing melds start anew: not counted)
        if not rules.black3_melds:
            stuck += black3
        elif nat[SLOT_BLACK3]:
            stuck += max(0, black3 - (rules.black3_meld_max_size - nat[SLOT_BLACK3]))
        elif black3 < max(3, rules.min_meld_size):
            stuck += black3
        else:
            stuck += max(0, black3 - rules.black3_meld_max_size)
    return stuck


def _clean_canastas_forced(rules: Rules, hand, held, nat, two, jok, stuck: int) -> bool:
    """S-15 with melds that grow (one a rank, C-5): going out melds every natural but the
    discard, so each rank whose naturals reach canasta_size ends as a canasta, clean
    unless a wild card of its own lies in it. Are there more such ranks than wild cards
    (the discard sparing one rank of exactly canasta_size, where no stuck card takes
    its place)?"""
    size = rules.canasta_size
    forced = 0
    exact = False
    for rank in range(NUM_NATURALS):
        naturals = nat[rank] + hand[rank] + held[rank]
        if naturals >= size and not two[rank] + jok[rank]:
            forced += 1
            exact = exact or naturals == size
    if exact and not stuck:
        forced -= 1
    return forced > hand[TWO] + held[TWO] + hand[JOKER] + held[JOKER]


def going_out_in_reach(
    rules: Rules, hand, held, nat, two, jok, closed_count: int, closed_clean: int, had_clean: bool
) -> bool:
    """May the team's canastas let it go out at the end of this turn (C-14, S-15, I-11)?
    An upper bound: False only where no meld of the cards it holds, in hand, held aside
    (C-8) and on the table, makes the canastas going out needs.

    ``closed_count``, ``closed_clean``: its finished canastas (S-7), which nothing changes;
    ``had_clean``: it had a clean canasta when the turn began (S-15)."""
    stuck = cards_no_meld_takes(rules, hand, held, nat, two, jok)
    if stuck >= 2:
        return False  # two cards stay in the hand: one at most is discarded going out
    if rules.no_go_out_on_first_clean_turn and not had_clean:
        # S-15: a clean canasta made this turn forbids going out in it
        if closed_clean or rules.go_out_needs_clean_and_dirty:
            return False
        if not rules.meld_closes_at and _clean_canastas_forced(
            rules, hand, held, nat, two, jok, stuck
        ):
            return False
    # the fewest cards of a canasta: canasta_size, or a meld that closes sooner (S-7)
    size = rules.canasta_size
    closes = rules.meld_closes_at
    natural_size = min(size, closes) if closes else size
    wild_size = min(size, rules.wild_meld_max_size) if closes else size
    if not closes and rules.wild_meld_max_size < size:
        wild_size = NO_LIMIT
    black3_size = _black3_size(rules)
    smallest = min(natural_size, wild_size if rules.wild_melds else NO_LIMIT)
    twos, jokers = hand[TWO] + held[TWO], hand[JOKER] + held[JOKER]
    cards = sum(hand) + sum(held) + sum(nat) + sum(two) + sum(jok)
    if closed_count + cards // smallest < rules.go_out_min_canastas:
        return False
    if not rules.go_out_needs_clean_and_dirty:
        return True
    clean = closed_clean > 0
    dirty = closed_count > closed_clean
    wilds = twos + jokers
    for slot in range(NUM_NATURALS):
        naturals = hand[slot] + held[slot]
        wild_on = two[slot] + jok[slot]
        clean = clean or naturals + (0 if wild_on else nat[slot]) >= natural_size
        dirty = dirty or (
            wild_on + wilds and naturals + nat[slot] + wild_on + wilds >= natural_size
        )
    if rules.black3_melds:
        clean = clean or hand[BLACK3] + held[BLACK3] + nat[SLOT_BLACK3] >= black3_size
    if rules.wild_melds:  # S-10: a wild canasta of one kind of wild card is clean
        two_on, jok_on = two[SLOT_WILD], jok[SLOT_WILD]
        clean = clean or twos + two_on >= wild_size or jokers + jok_on >= wild_size
        dirty = dirty or (
            two_on + twos and jok_on + jokers and two_on + jok_on + wilds >= wild_size
        )
    return bool(clean and dirty)
