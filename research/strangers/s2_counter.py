"""Counter: a card-counting, adaptive, all-round Canasta player written from the public docs.

**Counting.** Every card it has seen is counted from the observation alone: its own hand,
every meld on the table (finished canastas included), the face-up pot, and the cards each
player took with a pot and still holds (G-8). The rest of the deck is *unseen*: the stock,
the face-down pot and the unknown part of the other hands. From that count it estimates how
likely the next player holds the naturals to take the pot with a card (a hypergeometric draw
of their unknown cards from the unseen ones, ``PAIR_BIAS`` times more likely since players
keep their pairs), lowered by what they did in public: a kind they discarded, or a pot top of
that kind they let go by drawing, is one they probably cannot take with.

**Reading the score.** It scores every team as the hand will be scored (melded cards,
canasta bonuses, red 3s, and the other hands at the average value of the unseen cards) and
reads two things from it: the lead its team would have if it went out now, and how close each
opponent team is to going out (the canastas it needs, or a meld two cards short of one, and
few cards in a hand).

**Racing or building.** Where one canasta lets a team go out (classic, canastone) it races,
unless it trails by more than ``BUILD_BEHIND`` with stock to spare and no opponent about to
go out. Racing, it puts a wild card on a meld of ``RACE_WILD_MELD`` cards or more toward its
first canasta, finishes canastas with wild cards, and once its team has a canasta it draws
past a small pot whose cards would only slow its going out. Building (and on tables that need
a clean and a dirty canasta), wild cards stay in hand until they finish a canasta that is
dirty anyway or that the team needs.

**Always.** It opens with the cheapest melds that reach the minimum (the fewest cards, a wild
card counting as ``OPEN_WILD_COST`` more); after the opening, a new meld of up to
``HOLD_NATURALS`` naturals stays in hand, where it takes the pot even when frozen, until an
opponent is close to going out or the stock runs short: then everything it can lay comes
down, where it counts for it instead of against it. It goes out as soon as going out leaves
its team ahead, and never behind. It takes the pot when its cards are worth more than what
they add to its hand, spending a wild card only on a big pot. Its discard is the card that
costs least: what the card is worth in hand, plus the chance that the next player takes the
pot with it times the pot's worth to them, plus its points, weighed more as an opponent
nears going out.
"""

from __future__ import annotations

import math
import random

import numpy as np

from canasta_env.actions import (
    ADD_NATURAL,
    COMPOSITIONS,
    DISCARD,
    DRAW,
    MAX_NEW_MELD,
    MOVE_DISCARD,
    MOVE_MELD,
    MOVE_RUN,
    MOVES,
    PASS,
    SLOT_BLACK3,
    SLOT_WILD,
    TAKE,
    TAKE_ONTO_MELD,
    TAKE_WITH_JOKER,
    TAKE_WITH_TWO,
    new_meld_action,
)
from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    RED3,
    TWO,
    deck_counts,
)
from canasta_env.observation import decode_view
from canasta_env.rules import (
    TEAM_CLEAN_AND_DIRTY,
    TEAM_CLEAN_ONLY,
    TEAM_DIRTY_ONLY,
    TEAM_NO_CANASTA,
    TEAM_NO_MELD,
    Rules,
    make_rules,
)

# ------------------------------------------------------------------ named numbers
#: Tables of two partnerships (G-3); every other table is one team per seat.
PARTNERSHIP_TABLES = (4, 6)
#: Wild cards counted in a finished dirty canasta (S-7), whose cards the table does not show.
CLOSED_DIRTY_WILDS = 2
#: Points a card left in an unknown hand is expected to cost, before any card is counted.
DEFAULT_CARD_POINTS = 9.0
#: Lead (points) the going-out must leave before it goes out.
OUT_MARGIN = 0
#: Closeness to going out of an opponent team (0..1): ``READY_CLOSENESS`` with the canastas it
#: needs, ``NEAR_CLOSENESS`` one meld short of them (a meld two cards from a canasta); times
#: 1 with a hand of at most ``LAST_CARDS`` cards, ``CLOSE_FACTOR`` with at most ``CLOSE_HAND``,
#: ``FAR_FACTOR`` with at most ``CLOSE_HAND + FAR_EXTRA``, 0 with more.
READY_CLOSENESS = 1.0
NEAR_CLOSENESS = 0.5
LAST_CARDS = 2
CLOSE_HAND = 4
CLOSE_FACTOR = 0.6
FAR_EXTRA = 3
FAR_FACTOR = 0.25
#: Stock (cards) below which the hand is near its end: race, and dump points.
SHORT_STOCK = 12
#: Racing: a wild card goes onto a meld of at least this many cards toward the first canasta.
RACE_WILD_MELD = 4
#: Racing with a canasta: a pot of fewer cards than this is drawn past, unless it adds none.
RACE_TAKE_POT = 8
#: A take that spends a wild card (C-11) is made only for a pot of at least this many cards.
WILD_TAKE_POT = 7

# what a card is worth in hand (the discard's keep value)
KEEP_WILD = 260.0
KEEP_PAIR = 80.0
KEEP_TRIPLE = 110.0
KEEP_SINGLE = 6.0
#: Keep value per unseen copy of a single card's kind (its chance to pair up).
KEEP_PER_UNSEEN = 2.0
#: A natural whose kind the team has melded: it only waits to be added.
KEEP_ON_MELD = 4.0
#: A black 3 blocks the next player (C-12): negative keep, it is the first discard.
KEEP_BLACK3 = -30.0
#: Points in hand weigh this much in the discard, times 1 + ``THREAT_POINTS`` x the closeness
#: of the nearest opponent to going out (then the big cards leave first).
HAND_POINTS_WEIGHT = 0.3
THREAT_POINTS = 2.0

# what the pot is worth to the next player if they take it (the discard's danger)
POT_BASE = 30.0
POT_PER_CARD = 35.0
#: Extra worth of each wild card lying in the pot.
POT_PER_WILD = 60.0
#: Evidence: a kind the seat let go by drawing, or discarded, is this much less likely held.
DECLINED_FACTOR = 0.25
DISCARDED_FACTOR = 0.5
#: Players keep their pairs: a hand holds a pair about this much more often than chance says.
PAIR_BIAS = 2.0
#: A team that has not opened must also reach its minimum when it takes (C-10).
UNOPENED_TAKE_FACTOR = 0.6

# what the pot is worth to us (the take): a base, then per card by what the card does for us
TAKE_BASE = 40.0
TAKE_CARD_ON_MELD = 25.0
TAKE_CARD_PAIRS = 22.0
TAKE_CARD_OTHER = 8.0
TAKE_CARD_WILD = 45.0
TAKE_CARD_RED3 = 100.0
TAKE_CARD_FACE_DOWN = 10.0
#: Cost of each card the take adds to the hand (times ``RACE_HAND_FACTOR`` while racing with
#: a canasta, when every card in hand delays the going-out).
TAKE_HAND_COST = 6.0
RACE_HAND_FACTOR = 2.0
#: A take with the last natural pair of its kind spends this share of the pair's keep value.
PAIR_SPENT = 0.5

#: A new meld of at most this many naturals stays in hand (it takes the pot, C-10) unless
#: the cards must come down (an opponent close to going out, a short stock).
HOLD_NATURALS = 4
#: Closeness of an opponent (0..1) from which the cards in hand are laid down.
PRESSURE = 0.5
#: It builds instead of racing when it trails by more than this (points) with stock to spare.
BUILD_BEHIND = 300
#: The opening: a wild card costs as much as this many more cards; at most this many melds.
OPEN_WILD_COST = 2.0
OPEN_MAX_MELDS = 3
#: Building, it waits to open while an opening would cost wild cards and it holds more cards.
OPEN_WAIT_HAND = 8

# meld priorities (larger first; a move of priority 0 or less is not made)
PRI_RUN = 500
PRI_ADD_NATURAL = 300
PRI_NEW_NATURAL = 200
PRI_WILD_FINISH = 250
PRI_WILD_RACE = 150
PRI_WILD_MELD = 120
PRI_PAIR_WILD = 100


def _hyper_at_least(successes: int, population: int, draws: int, need: int) -> float:
    """P(at least ``need`` successes among ``draws`` cards drawn from ``population``)."""
    if need <= 0:
        return 1.0
    if successes < need or draws < need or population <= 0:
        return 0.0
    draws = min(draws, population)
    total = math.comb(population, draws)
    miss = 0
    for got in range(need):
        miss += math.comb(successes, got) * math.comb(population - successes, draws - got)
    return max(0.0, 1.0 - miss / total)


class Counter:
    """Counts cards, estimates opponents, races or builds by the score and the stock."""

    name = "s2_counter"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.rules: Rules | None = None
        self.num_players = 0
        self.seat = 0

    # ------------------------------------------------------------ the interface
    def seed(self, s: int) -> None:
        self.rng = random.Random(s)

    def reset(self, seat: int, num_players: int, rules: Rules | str | None = None) -> None:
        self.seat = seat
        self.num_players = num_players
        self._set_rules(rules if rules is not None else "classic", num_players)

    def _set_rules(self, rules: Rules | str, num_players: int) -> None:
        self.rules = make_rules(rules) if isinstance(rules, str) else rules
        r = self.rules
        self.num_players = num_players
        self.deck = deck_counts(r.decks_for(num_players), r.jokers_per_deck)
        self.num_teams = 2 if num_players in PARTNERSHIP_TABLES else num_players
        self.race_table = r.go_out_min_canastas <= 1 and not r.go_out_needs_clean_and_dirty

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        v = decode_view(observation)
        if self.rules is None or self.num_players != v.num_players:
            self._set_rules(self.rules or "classic", v.num_players)
        self._read(v)
        if v.draw_phase:
            return self._draw(v, legal)
        return self._meld_or_discard(v, legal)

    # ------------------------------------------------------------ reading the table
    def _read(self, v) -> None:
        """Counts, scores and threats of this position."""
        r = self.rules
        unseen = list(self.deck[:NUM_HAND_KINDS])
        for k in range(NUM_HAND_KINDS):
            unseen[k] -= v.hand[k] + v.held[k] + v.pot_known[k]
        for p in v.players[1:]:
            for k in range(NUM_HAND_KINDS):
                unseen[k] -= p.known[k]
        for t in v.teams:
            for s in range(SLOT_WILD + 1):
                kind = BLACK3 if s == SLOT_BLACK3 else s
                if s < SLOT_WILD:
                    unseen[kind] -= t.naturals[s]
                unseen[TWO] -= t.twos[s]
                unseen[JOKER] -= t.jokers[s]
                closed = t.closed_clean[s] + t.closed_dirty[s]
                if closed and s < SLOT_WILD:
                    unseen[kind] -= closed * r.canasta_size - CLOSED_DIRTY_WILDS * t.closed_dirty[s]
                    unseen[TWO] -= CLOSED_DIRTY_WILDS * t.closed_dirty[s]
                elif closed:
                    unseen[TWO] -= closed * r.canasta_size
        self.unseen = [max(0, u) for u in unseen]
        self.pool = sum(self.unseen)
        points = sum(self.unseen[k] * self._card_points(k) for k in range(NUM_HAND_KINDS))
        self.avg_points = points / self.pool if self.pool else DEFAULT_CARD_POINTS

        self.team_of = [k % self.num_teams for k in range(len(v.players))]
        self.public = [self._public_score(t) for t in v.teams]
        hand_cost = [0.0] * len(v.teams)
        for k, p in enumerate(v.players):
            if k == 0:
                continue
            hand_cost[self.team_of[k]] += self._hand_estimate(p)
        self.hand_cost = hand_cost
        # closeness of each opponent team to going out, 0..1
        self.closeness = [0.0] * len(v.teams)
        for t_index in range(1, len(v.teams)):
            self.closeness[t_index] = self._closeness(v, t_index)
        self.threat = max(self.closeness[1:], default=0.0)
        opp_now = [self.public[i] - hand_cost[i] for i in range(1, len(v.teams))]
        self.best_opp = max(opp_now) if opp_now else 0.0
        self.short = v.stock <= SHORT_STOCK or v.stock_short

    def _card_points(self, kind: int) -> float:
        if kind == BLACK3:
            return float(self.rules.black3_in_hand_penalty)
        return float(CARD_VALUES[kind])

    def _hand_estimate(self, p) -> float:
        known = sum(p.known)
        cost = sum(p.known[k] * self._card_points(k) for k in range(NUM_HAND_KINDS))
        return cost + max(0, p.hand_size - known) * self.avg_points

    def _public_score(self, t) -> float:
        r = self.rules
        melded = 0.0
        for s in range(SLOT_WILD + 1):
            if s < SLOT_WILD:
                melded += t.naturals[s] * CARD_VALUES[BLACK3 if s == SLOT_BLACK3 else s]
            melded += t.twos[s] * CARD_VALUES[TWO] + t.jokers[s] * CARD_VALUES[JOKER]
            closed = t.closed_clean[s] + t.closed_dirty[s]
            if closed and s < SLOT_WILD:
                melded += closed * r.canasta_size * CARD_VALUES[BLACK3 if s == SLOT_BLACK3 else s]
        bonus = t.clean * r.clean_canasta_bonus + t.dirty * r.dirty_canasta_bonus
        if r.melds_minus_without_canasta and t.canastas == 0:
            melded = -melded
        return melded + bonus + self._red3_points(t.red3, t.opened, t.clean, t.dirty, t.canastas)

    def _red3_points(self, red3: int, opened: bool, clean: int, dirty: int, canastas: int):
        if not red3:
            return 0.0
        r = self.rules
        if not opened:
            state = TEAM_NO_MELD
        elif canastas == 0:
            state = TEAM_NO_CANASTA
        elif clean and dirty:
            state = TEAM_CLEAN_AND_DIRTY
        elif clean:
            state = TEAM_CLEAN_ONLY
        else:
            state = TEAM_DIRTY_ONLY
        return float(r.red3_total(red3) * r.red3_sign[state])

    def _closeness(self, v, t_index: int) -> float:
        """How close an opponent team is to going out: 0 (far) to 1 (next turn)."""
        r = self.rules
        team = v.teams[t_index]
        if not team.opened:
            return 0.0
        if r.go_out_needs_clean_and_dirty:
            has = (team.clean > 0) + (team.dirty > 0)
            need = 2 - has
        else:
            need = max(0, r.go_out_min_canastas - team.canastas)
        near = any(
            r.canasta_size - 2 <= team.meld_size(s) < r.canasta_size for s in range(NUM_NATURALS)
        )
        if need > 1 or (need == 1 and not near):
            return 0.0
        hand = min(p.hand_size for k, p in enumerate(v.players) if k and self.team_of[k] == t_index)
        base = READY_CLOSENESS if need == 0 else NEAR_CLOSENESS
        if hand <= LAST_CARDS:
            return base
        if hand <= CLOSE_HAND:
            return base * CLOSE_FACTOR
        if hand <= CLOSE_HAND + FAR_EXTRA:
            return base * FAR_FACTOR
        return 0.0

    # ------------------------------------------------------------ modes
    def _racing(self, v) -> bool:
        """Race (lay down, go out soon) where one canasta goes out, unless far behind with
        stock to spare and no opponent about to go out: then build."""
        if not self.race_table:
            return False
        lead = self.public[0] - self.hand_cost[0] - self.best_opp
        return self.short or self.threat >= PRESSURE or lead > -BUILD_BEHIND

    # ------------------------------------------------------------ draw phase
    def _draw(self, v, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        if PASS in legal and DRAW not in legal:
            if not takes:
                return PASS
            lead = self.public[0] - self._my_hand_points(v) - self.best_opp
            if lead > 0:
                return PASS
        if not takes:
            return DRAW if DRAW in legal else legal[0]
        best, best_value = None, -1e9
        for a in takes:
            value = self._take_value(v, a)
            if value > best_value:
                best, best_value = a, value
        if best_value > 0 or DRAW not in legal:
            return best
        return DRAW

    def _my_hand_points(self, v) -> float:
        return sum(v.hand[k] * self._card_points(k) for k in range(NUM_HAND_KINDS))

    def _take_value(self, v, action: int) -> float:
        r = self.rules
        team = v.me
        top = v.pot_top
        hand = v.hand
        value = TAKE_BASE
        added = v.pot_size - 1  # the top card is melded at once
        if action == TAKE_WITH_TWO or action == TAKE_WITH_JOKER:
            if v.pot_size < WILD_TAKE_POT:
                return -1.0
            value -= KEEP_WILD
            added -= 2
        elif action == TAKE:
            need = r.take_naturals_frozen if v.pot_wild else r.take_naturals
            added -= need
            if hand[top] == need:
                value -= KEEP_PAIR * PAIR_SPENT  # the pair leaves the hand for the table
        for k in range(NUM_HAND_KINDS):
            n = v.pot_known[k] - (1 if k == top else 0)
            if n <= 0 or k == BLACK3:
                continue  # a black 3 is worth nothing but a blocking discard
            if k == TWO or k == JOKER:
                value += n * TAKE_CARD_WILD
            elif team.has_meld(k) or k == top:
                value += n * TAKE_CARD_ON_MELD
            elif hand[k] + n >= 2:
                value += n * TAKE_CARD_PAIRS
            else:
                value += n * TAKE_CARD_OTHER
        value += v.pot_known[RED3] * TAKE_CARD_RED3
        value += v.pot_face_down * TAKE_CARD_FACE_DOWN
        cost = TAKE_HAND_COST
        if self._racing(v) and team.canastas > 0:
            cost *= RACE_HAND_FACTOR
            if v.pot_size < RACE_TAKE_POT and added > 0:
                return -1.0
        value -= cost * max(0, added)
        return value

    # ------------------------------------------------------------ meld phase
    def _meld_or_discard(self, v, legal: list[int]) -> int:
        melds = [a for a in legal if MOVES[a].kind in (MOVE_MELD, MOVE_RUN)]
        discards = [a for a in legal if MOVES[a].kind == MOVE_DISCARD]
        team = v.me
        hand = list(v.hand)
        size = sum(hand)

        # going out, when it leaves the team ahead
        choice = self._go_out_step(v, hand, melds, discards)
        if choice is not None:
            return choice
        # opening (once started, the mask allows only moves that can still complete it)
        if not team.opened and melds:
            choice = self._opening_step(v, melds)
            if choice is not None:
                return choice
        # ordinary melds
        racing = self._racing(v)
        best, best_pri = None, 0.0
        for a in melds:
            m = MOVES[a]
            left = size - m.cards
            if left < 2 and not (v.may_go_out and self._want_out(v, hand)):
                continue
            pri = self._meld_priority(v, m, racing)
            if pri > best_pri:
                best, best_pri = a, pri
        if best is not None:
            return best
        if discards:
            return self._discard(v, discards)
        return melds[0] if melds else legal[0]

    def _canasta_ok(self, canastas: int, clean: int, dirty: int) -> bool:
        r = self.rules
        if r.go_out_needs_clean_and_dirty:
            return clean > 0 and dirty > 0
        return canastas >= r.go_out_min_canastas

    def _want_out(self, v, hand: list[int]) -> bool:
        """Going out now would leave the team ahead of every other."""
        return self._out_lead(v, hand) > OUT_MARGIN

    def _out_lead(self, v, hand: list[int], new_clean: int = 0, new_dirty: int = 0) -> float:
        r = self.rules
        melded = sum(hand[k] * CARD_VALUES[k] for k in range(NUM_HAND_KINDS))
        mine = self.public[0] + melded + r.go_out_bonus
        mine += new_clean * r.clean_canasta_bonus + new_dirty * r.dirty_canasta_bonus
        mine -= self.hand_cost[0]  # partners' hands
        return mine - self.best_opp

    # the going-out plan ----------------------------------------------------
    def _team_melds(self, team) -> tuple[list[int], list[int]]:
        nat = [team.naturals[s] for s in range(SLOT_WILD + 1)]
        wil = [team.twos[s] + team.jokers[s] for s in range(SLOT_WILD + 1)]
        return nat, wil

    def _plan_out(self, hand: list[int], nat: list[int], wil: list[int]):
        """Best-effort allocation of the whole hand to melds this turn.

        Returns (cards left over, clean canastas made, dirty canastas made).
        """
        r = self.rules
        csize = r.canasta_size
        wilds = hand[TWO] + hand[JOKER]
        left = 0
        groups: list[list[int]] = []  # [naturals, wilds, was a canasta]
        pairs: list[int] = []
        for k in range(NUM_NATURALS):
            c = hand[k]
            if nat[k] + wil[k] > 0:
                was = nat[k] + wil[k] >= csize
                groups.append([nat[k] + c, wil[k], was])
            elif c >= r.min_meld_size and c >= r.min_naturals:
                groups.append([c, 0, False])
            elif c >= r.min_naturals:
                pairs.append(c)
            else:
                left += c
        for c in pairs:
            need = r.min_meld_size - c
            if need <= wilds and need <= r.max_wilds_per_meld and need <= c - r.min_natural_excess:
                wilds -= need
                groups.append([c, need, False])
            else:
                left += c
        # the rest of the wild cards: toward canastas, the biggest melds first
        if wilds:
            for g in sorted(groups, key=lambda g: -(g[0] + g[1])):
                room = min(r.max_wilds_per_meld - g[1], g[0] - r.min_natural_excess - g[1])
                if r.meld_closes_at:
                    room = min(room, r.meld_closes_at - g[0] - g[1])
                put = max(0, min(room, wilds))
                g[1] += put
                wilds -= put
                if not wilds:
                    break
        if wilds:
            if r.wild_melds and wilds >= r.wild_meld_min_start and wilds <= r.wild_meld_max_size:
                wilds = 0
            left += wilds
        b3 = hand[BLACK3]
        if b3:
            if not (r.black3_melds and r.min_meld_size <= b3 <= r.black3_meld_max_size):
                left += b3
        clean = dirty = 0
        for n, w, was in groups:
            if not was and n + w >= csize:
                if w:
                    dirty += 1
                else:
                    clean += 1
        return left, clean, dirty

    def _feasible(self, v, hand, nat, wil, made_clean: int = 0, made_dirty: int = 0) -> bool:
        """The whole hand can be melded this turn (one card may stay for a discard) with the
        canastas going out needs; ``made_*``: canastas finished by the moves already counted."""
        left, clean, dirty = self._plan_out(hand, nat, wil)
        clean += made_clean
        dirty += made_dirty
        team = v.me
        if not self._canasta_ok(
            team.canastas + clean + dirty, team.clean + clean, team.dirty + dirty
        ):
            return False
        return left <= 1

    def _go_out_step(self, v, hand, melds, discards):
        """The next move of a going-out this turn, or None when it is not wanted or possible."""
        r = self.rules
        nat, wil = self._team_melds(v.me)
        if not self._feasible(v, hand, nat, wil):
            return None
        _, clean, dirty = self._plan_out(hand, nat, wil)
        if self._out_lead(v, hand, clean, dirty) <= OUT_MARGIN:
            return None
        if sum(hand) == 1 and discards:
            return discards[0]  # the last card: the discard goes out
        best, best_key = None, None
        for a in melds:
            m = MOVES[a]
            if m.kind == MOVE_RUN:
                continue
            after = list(hand)
            for kind in m.uses:
                after[kind] -= 1
            if sum(after) == 0:
                if r.go_out_needs_discard:
                    continue
                return a  # the meld goes out
            n2, w2 = list(nat), list(wil)
            n2[m.slot] += m.naturals
            w2[m.slot] += m.wilds
            made_clean = made_dirty = 0
            if m.slot < NUM_NATURALS and nat[m.slot] + wil[m.slot] < r.canasta_size:
                if n2[m.slot] + w2[m.slot] >= r.canasta_size:
                    made_dirty, made_clean = (1, 0) if w2[m.slot] else (0, 1)
            if not self._feasible(v, after, n2, w2, made_clean, made_dirty):
                continue
            key = (m.naturals > 0, m.cards, -m.wilds)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    # opening -----------------------------------------------------------------
    def _opening_step(self, v, melds):
        """The next meld of the cheapest opening: the fewest cards (a wild card counts as
        ``OPEN_WILD_COST`` more) whose points reach the minimum; the mask keeps it legal."""
        legal = set(melds)
        plan = self._opening_plan(v)
        best = None
        if plan:
            for action in plan:
                if action in legal:
                    best = action
                    break
        if best is None:
            best = max(
                melds,
                key=lambda a: (
                    MOVES[a].kind == MOVE_RUN,
                    -MOVES[a].wilds,
                    MOVES[a].points / max(1, MOVES[a].cards),
                    MOVES[a].points,
                ),
            )
        if v.staged > 0 or v.took_pot or v.still_needed <= 0:
            return best
        # open now unless the opening costs wild cards and the pot is not frozen for us anyway
        wilds = sum(MOVES[a].wilds for a in plan) if plan else MOVES[best].wilds
        if wilds and not self._racing(v) and v.hand_size > OPEN_WAIT_HAND and not self.short:
            return None
        return best

    def _opening_plan(self, v) -> list[int]:
        """Meld actions (biggest first) that reach the opening minimum at the least cost."""
        r = self.rules
        hand = v.hand
        team = v.me
        twos, jokers = hand[TWO], hand[JOKER]
        wild_ok = not v.clean_only and r.max_wilds_per_meld > 0
        options = []  # (cost, points, rank, action, twos, jokers)
        for k in range(NUM_NATURALS):
            c = hand[k]
            if not c:
                continue
            if team.has_meld(k):
                options.append((c, c * CARD_VALUES[k], k, ADD_NATURAL + k, 0, 0))
                continue
            if c < r.min_naturals:
                continue
            shapes = set()
            if c >= r.min_meld_size:
                shapes.add((r.min_meld_size, 0, 0))
                shapes.add((min(c, MAX_NEW_MELD), 0, 0))
            if wild_ok:
                for n in (r.min_naturals, r.min_naturals + 1):
                    if n <= c and n - 1 >= r.min_natural_excess and n + 1 >= r.min_meld_size:
                        shapes.add((n, 1, 0))
                        shapes.add((n, 0, 1))
            for n, t, j in shapes:
                if t > twos or j > jokers or (n, t, j) not in COMPOSITIONS:
                    continue
                action = new_meld_action(k, n, t, j)
                m = MOVES[action]
                options.append((n + (t + j) * (1 + OPEN_WILD_COST), m.points, k, action, t, j))
        options.sort(key=lambda o: -o[1])
        need = v.still_needed
        best: list = [None, None]

        def search(start, points, cost, t_used, j_used, chosen):
            if points >= need:
                if best[0] is None or (cost, -points) < best[0]:
                    best[0], best[1] = (cost, -points), list(chosen)
                return
            if len(chosen) >= OPEN_MAX_MELDS or (best[0] is not None and cost >= best[0][0]):
                return
            for i in range(start, len(options)):
                o = options[i]
                if t_used + o[4] > twos or j_used + o[5] > jokers:
                    continue
                if any(other[2] == o[2] for other in chosen):
                    continue
                chosen.append(o)
                search(i + 1, points + o[1], cost + o[0], t_used + o[4], j_used + o[5], chosen)
                chosen.pop()

        search(0, 0, 0, 0, 0, [])
        if best[1] is None:
            return []
        return [o[3] for o in sorted(best[1], key=lambda o: -o[1])]

    # ordinary melds --------------------------------------------------------
    def _meld_priority(self, v, m, racing: bool) -> float:
        r = self.rules
        team = v.me
        if m.kind == MOVE_RUN:
            return PRI_RUN
        slot = m.slot
        if slot == SLOT_BLACK3:
            return 0.0
        if slot == SLOT_WILD:
            # a wild-only meld: worth it where wild canastas score
            if r.wild_canasta_clean_bonus or r.wild_canasta_dirty_bonus:
                return PRI_WILD_MELD if m.cards >= r.wild_meld_min_start else 0.0
            return 0.0
        meld = team.meld_size(slot)
        pressure = self.threat >= PRESSURE or self.short
        if not m.new and m.wilds == 0:
            return PRI_ADD_NATURAL + meld
        if m.new and m.wilds == 0:
            if m.naturals <= HOLD_NATURALS and not pressure:
                return 0.0  # kept in hand: it takes the pot, even a frozen one (C-10)
            return PRI_NEW_NATURAL + m.naturals
        # wild cards
        if not m.new:
            if team.is_canasta[slot] and not pressure:
                return 0.0
            after = meld + m.wilds
            if meld < r.canasta_size <= after:
                dirty_anyway = team.twos[slot] + team.jokers[slot] > 0
                need = not self._canasta_ok(team.canastas, team.clean, team.dirty)
                if dirty_anyway or need or racing or pressure:
                    return PRI_WILD_FINISH + (m.twos > 0)
                return 0.0
            if racing and team.canastas == 0 and meld >= RACE_WILD_MELD:
                return PRI_WILD_RACE + meld + (m.twos > 0)
            if pressure:
                return PRI_WILD_MELD + (m.twos > 0)
            return 0.0
        # a new meld with wild cards (a pair and a wild card)
        if pressure and m.wilds == 1:
            return PRI_PAIR_WILD
        return 0.0

    # ------------------------------------------------------------ discard
    def _discard(self, v, discards: list[int], going_out: bool = False) -> int:
        best, best_cost = discards[0], None
        for a in discards:
            kind = a - DISCARD
            cost = self._keep(v, kind) + self._danger(v, kind)
            if best_cost is None or cost < best_cost:
                best, best_cost = a, cost
        return best

    def _keep(self, v, kind: int) -> float:
        hand = v.hand
        team = v.me
        points = self._card_points(kind) * HAND_POINTS_WEIGHT * (1.0 + THREAT_POINTS * self.threat)
        if kind == BLACK3:
            return KEEP_BLACK3 - points
        if kind == TWO or kind == JOKER:
            return KEEP_WILD - points
        c = hand[kind]
        if team.has_meld(kind):
            return KEEP_ON_MELD - points
        if c >= 3:
            return KEEP_TRIPLE - points
        if c == 2:
            return KEEP_PAIR - points
        return KEEP_SINGLE + KEEP_PER_UNSEEN * self.unseen[kind] - points

    def _danger(self, v, kind: int) -> float:
        """Chance the next player can take the pot with this card, times its worth to them."""
        r = self.rules
        if kind == BLACK3 or kind == TWO or kind == JOKER:
            return 0.0
        nxt = v.players[1]
        team = v.teams[self.team_of[1]]
        frozen = v.pot_wild or (r.frozen_for_unopened and not team.opened)
        if r.wild_crosses_pot and v.pot_crossed:
            frozen = True
        p = self._take_chance(v, nxt, team, kind, frozen)
        if p <= 0.0:
            return 0.0
        wilds = v.pot_known[TWO] + v.pot_known[JOKER]
        worth = POT_BASE + POT_PER_CARD * (v.pot_size + 1) + POT_PER_WILD * wilds
        return p * worth

    def _take_chance(self, v, p, team, kind: int, frozen: bool) -> float:
        r = self.rules
        if r.take_onto_meld and not frozen and team.has_meld(kind):
            return 1.0
        need = r.take_naturals_frozen if frozen else r.take_naturals
        known = p.known[kind]
        if known >= need:
            return 1.0
        hidden = max(0, p.hand_size - sum(p.known))
        chance = min(
            1.0, PAIR_BIAS * _hyper_at_least(self.unseen[kind], self.pool, hidden, need - known)
        )
        if r.take_with_wild and not frozen:
            # one natural and a wild card (C-11), spent on a pot worth it
            one = 1.0 if known else _hyper_at_least(self.unseen[kind], self.pool, hidden, 1)
            wilds_unseen = self.unseen[TWO] + self.unseen[JOKER]
            wild = (
                1.0
                if p.known[TWO] + p.known[JOKER]
                else _hyper_at_least(wilds_unseen, self.pool, hidden, 1)
            )
            spend = min(1.0, (v.pot_size + 1) / WILD_TAKE_POT)
            chance += (1.0 - chance) * one * wild * spend
        history = v.history[1]  # the next seat's public history
        if known == 0:
            if history.declined[kind]:
                chance *= DECLINED_FACTOR
            if history.discarded[kind]:
                chance *= DISCARDED_FACTOR
        if not team.opened:
            chance *= UNOPENED_TAKE_FACTOR
        return min(1.0, chance)
