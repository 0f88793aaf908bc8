"""CanastaBuilder: a Canasta player that plays for canastas and their bonuses, from the public
docs.

A canasta is worth 300 (dirty) or 500 (clean) besides its cards, far more than anything else a
hand scores, so this player spends its cards on canastas and little else.

* **Few melds, grown tall.** Its team keeps few melds that are not yet canastas: after the
  opening (the fewest cards that reach the minimum, a wild card counting as
  ``OPEN_WILD_COST`` more) a new meld is laid only while fewer than ``MAX_GROWING`` are
  growing, or when it starts with ``FAST_START`` naturals or more. Every natural of a melded
  kind goes onto its meld at once, and the pot is taken for the cards it brings to those melds.
* **Natural canastas where it can.** Wild cards stay in hand for the canastas they will finish
  and are discarded last. A wild card goes onto a meld only to finish a canasta at once: the
  first canasta the team needs as soon as it can, a further one from a clean meld only when no
  natural of its kind is left unseen, or when an opponent is close to going out or the stock
  runs short.
* **Going out waits for the canastas.** It goes out with ``CANASTA_GOAL`` canastas on the
  table; earlier only when an opponent is close to going out, the stock runs short, or its
  lead is already ``BIG_LEAD`` (the bonus of two canastas); and never when going out would
  leave its team behind.

Its discard keeps its pairs and the cards of its growing melds, throws black 3s first, and
avoids what the next player can take the pot with (card counting from every card seen: the
other players' pots are what would outgrow its melds).
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
#: Canastas on the table before it goes out in the ordinary course of the hand.
CANASTA_GOAL = 2
#: A lead (points) large enough to go out before the goal.
BIG_LEAD = 600
#: Melds (not yet canastas) its team grows at once; a new meld beyond them needs
#: ``FAST_START`` naturals.
MAX_GROWING = 1
FAST_START = 5
#: Points a card in an unknown hand is expected to cost before any card is counted.
DEFAULT_CARD_POINTS = 9.0
#: Closeness to going out of an opponent team (0..1): ``READY_CLOSENESS`` with the canastas it
#: needs, ``NEAR_CLOSENESS`` with a meld two cards from a canasta; times 1 with a hand of at
#: most ``LAST_CARDS`` cards, ``CLOSE_FACTOR`` with at most ``CLOSE_HAND``, ``FAR_FACTOR`` with
#: at most ``CLOSE_HAND + FAR_EXTRA``, 0 with more.
READY_CLOSENESS = 1.0
NEAR_CLOSENESS = 0.5
LAST_CARDS = 2
CLOSE_HAND = 4
CLOSE_FACTOR = 0.6
FAR_EXTRA = 3
FAR_FACTOR = 0.25
#: Stock (cards) below which the hand is near its end.
SHORT_STOCK = 12
#: Closeness of an opponent (0..1) from which it lays its cards down and goes out when ahead.
PRESSURE = 0.5

# the take
TAKE_BASE = 30.0
TAKE_CARD_ON_MELD = 30.0
TAKE_CARD_PAIRS = 20.0
TAKE_CARD_OTHER = 6.0
TAKE_CARD_WILD = 50.0
TAKE_CARD_RED3 = 100.0
TAKE_CARD_FACE_DOWN = 10.0
TAKE_HAND_COST = 4.0
#: A take that spends a wild card (C-11) needs a pot of at least this many cards.
WILD_TAKE_POT = 8
TAKE_WILD_COST = 200.0

# what a card is worth in hand (the discard)
KEEP_WILD = 300.0
KEEP_PAIR = 70.0
KEEP_TRIPLE = 100.0
KEEP_SINGLE = 6.0
KEEP_PER_UNSEEN = 2.0
#: A natural of a growing meld's kind (it waits in hand only when it cannot be added).
KEEP_ON_MELD = 40.0
KEEP_BLACK3 = -30.0
#: Points in hand weigh this much in the discard, times 1 + ``THREAT_POINTS`` x the closeness
#: of the nearest opponent to going out (then the big cards leave first).
HAND_POINTS_WEIGHT = 0.3
THREAT_POINTS = 2.0

# what the pot is worth to the next player (the danger of a discard)
POT_BASE = 30.0
POT_PER_CARD = 35.0
POT_PER_WILD = 60.0
DECLINED_FACTOR = 0.25
DISCARDED_FACTOR = 0.5
PAIR_BIAS = 3.0
UNOPENED_TAKE_FACTOR = 0.6

#: The opening: a wild card costs as much as this many more cards; at most this many melds.
OPEN_WILD_COST = 2.0
OPEN_MAX_MELDS = 3

# meld priorities (larger first; 0 is "not now")
PRI_RUN = 500
PRI_ADD_NATURAL = 300
PRI_WILD_FINISH = 250
PRI_NEW_NATURAL = 200
PRI_WILD_MELD = 120
PRI_PAIR_WILD = 100


def _at_least(successes: int, population: int, draws: int, need: int) -> float:
    """P(at least ``need`` of ``successes`` among ``draws`` cards drawn from ``population``)."""
    if need <= 0:
        return 1.0
    if successes < need or draws < need or population <= 0:
        return 0.0
    draws = min(draws, population)
    miss = sum(
        math.comb(successes, got) * math.comb(population - successes, draws - got)
        for got in range(need)
    )
    return max(0.0, 1.0 - miss / math.comb(population, draws))


class CanastaBuilder:
    """Grows few melds into canastas (natural ones where it can), then goes out."""

    name = "s2_builder"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.rules: Rules | None = None
        self.num_players = 0
        self.seat = 0

    def seed(self, s: int) -> None:
        self.rng = random.Random(s)

    def reset(self, seat: int, num_players: int, rules: Rules | str | None = None) -> None:
        self.seat = seat
        self._set_rules(rules if rules is not None else "classic", num_players)

    def _set_rules(self, rules: Rules | str, num_players: int) -> None:
        self.rules = make_rules(rules) if isinstance(rules, str) else rules
        self.num_players = num_players
        self.deck = deck_counts(self.rules.decks_for(num_players), self.rules.jokers_per_deck)
        self.num_teams = 2 if num_players in PARTNERSHIP_TABLES else num_players

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
        r = self.rules
        unseen = list(self.deck[:NUM_HAND_KINDS])
        for k in range(NUM_HAND_KINDS):
            unseen[k] -= v.hand[k] + v.held[k] + v.pot_known[k]
            for p in v.players[1:]:
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
        points = sum(self.unseen[k] * self._points(k) for k in range(NUM_HAND_KINDS))
        self.avg_points = points / self.pool if self.pool else DEFAULT_CARD_POINTS
        self.team_of = [k % self.num_teams for k in range(len(v.players))]
        self.public = [self._public_score(t) for t in v.teams]
        self.hand_cost = [0.0] * len(v.teams)
        for k, p in enumerate(v.players):
            if k:
                known = sum(p.known)
                cost = sum(p.known[c] * self._points(c) for c in range(NUM_HAND_KINDS))
                cost += max(0, p.hand_size - known) * self.avg_points
                self.hand_cost[self.team_of[k]] += cost
        self.threat = max((self._closeness(v, t) for t in range(1, len(v.teams))), default=0.0)
        self.best_opp = max(
            (self.public[t] - self.hand_cost[t] for t in range(1, len(v.teams))), default=0.0
        )
        self.short = v.stock <= SHORT_STOCK or v.stock_short
        team = v.me
        self.growing = [
            s for s in range(NUM_NATURALS) if team.has_meld(s) and not team.is_canasta[s]
        ]

    def _points(self, kind: int) -> float:
        if kind == BLACK3:
            return float(self.rules.black3_in_hand_penalty)
        return float(CARD_VALUES[kind])

    def _public_score(self, t) -> float:
        r = self.rules
        melded = 0.0
        for s in range(SLOT_WILD + 1):
            if s < SLOT_WILD:
                melded += t.naturals[s] * CARD_VALUES[BLACK3 if s == SLOT_BLACK3 else s]
                closed = t.closed_clean[s] + t.closed_dirty[s]
                melded += closed * r.canasta_size * CARD_VALUES[BLACK3 if s == SLOT_BLACK3 else s]
            melded += t.twos[s] * CARD_VALUES[TWO] + t.jokers[s] * CARD_VALUES[JOKER]
        if r.melds_minus_without_canasta and t.canastas == 0:
            melded = -melded
        bonus = t.clean * r.clean_canasta_bonus + t.dirty * r.dirty_canasta_bonus
        if not t.red3:
            return melded + bonus
        if not t.opened:
            state = TEAM_NO_MELD
        elif t.canastas == 0:
            state = TEAM_NO_CANASTA
        elif t.clean and t.dirty:
            state = TEAM_CLEAN_AND_DIRTY
        elif t.clean:
            state = TEAM_CLEAN_ONLY
        else:
            state = TEAM_DIRTY_ONLY
        return melded + bonus + r.red3_total(t.red3) * r.red3_sign[state]

    def _canasta_ok(self, canastas: int, clean: int, dirty: int) -> bool:
        if self.rules.go_out_needs_clean_and_dirty:
            return clean > 0 and dirty > 0
        return canastas >= self.rules.go_out_min_canastas

    def _closeness(self, v, t_index: int) -> float:
        """How close an opponent team is to going out: 0 (far) to 1 (next turn)."""
        r = self.rules
        team = v.teams[t_index]
        if not team.opened:
            return 0.0
        ready = self._canasta_ok(team.canastas, team.clean, team.dirty)
        near = any(
            r.canasta_size - 2 <= team.meld_size(s) < r.canasta_size for s in range(NUM_NATURALS)
        )
        if not ready and not near:
            return 0.0
        hand = min(p.hand_size for k, p in enumerate(v.players) if k and self.team_of[k] == t_index)
        base = READY_CLOSENESS if ready else NEAR_CLOSENESS
        if hand <= LAST_CARDS:
            return base
        if hand <= CLOSE_HAND:
            return base * CLOSE_FACTOR
        if hand <= CLOSE_HAND + FAR_EXTRA:
            return base * FAR_FACTOR
        return 0.0

    # ------------------------------------------------------------ the pot
    def _draw(self, v, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        if PASS in legal and DRAW not in legal:
            hand = sum(v.hand[k] * self._points(k) for k in range(NUM_HAND_KINDS))
            if not takes or self.public[0] - hand > self.best_opp:
                return PASS
        if not takes:
            return DRAW if DRAW in legal else legal[0]
        best = max(takes, key=lambda a: self._take_value(v, a))
        if self._take_value(v, best) > 0 or DRAW not in legal:
            return best
        return DRAW

    def _take_value(self, v, action: int) -> float:
        r = self.rules
        top = v.pot_top
        value = TAKE_BASE
        added = v.pot_size - 1
        if action in (TAKE_WITH_TWO, TAKE_WITH_JOKER):
            if v.pot_size < WILD_TAKE_POT:
                return -1.0
            value -= TAKE_WILD_COST
            added -= 2
        elif action == TAKE:
            added -= r.take_naturals_frozen if v.pot_wild else r.take_naturals
        for k in range(NUM_HAND_KINDS):
            n = v.pot_known[k] - (k == top)
            if n <= 0 or k == BLACK3:
                continue
            if k == TWO or k == JOKER:
                value += n * TAKE_CARD_WILD
            elif v.me.has_meld(k) or k == top:
                value += n * TAKE_CARD_ON_MELD
            elif v.hand[k] + n >= 2:
                value += n * TAKE_CARD_PAIRS
            else:
                value += n * TAKE_CARD_OTHER
        value += v.pot_known[RED3] * TAKE_CARD_RED3 + v.pot_face_down * TAKE_CARD_FACE_DOWN
        return value - TAKE_HAND_COST * max(0, added)

    # ------------------------------------------------------------ melds
    def _meld_or_discard(self, v, legal: list[int]) -> int:
        melds = [a for a in legal if MOVES[a].kind in (MOVE_MELD, MOVE_RUN)]
        discards = [a for a in legal if MOVES[a].kind == MOVE_DISCARD]
        hand = list(v.hand)
        choice = self._go_out_step(v, hand, melds, discards)
        if choice is not None:
            return choice
        if not v.me.opened and melds:
            return self._opening_step(v, melds)
        size = sum(hand)
        best, best_pri = None, 0.0
        for a in melds:
            m = MOVES[a]
            if size - m.cards < 2:
                continue
            pri = self._priority(v, m)
            if pri > best_pri:
                best, best_pri = a, pri
        if best is not None:
            return best
        if discards:
            return self._discard(v, discards)
        return melds[0] if melds else legal[0]

    def _wants_out(self, v, canastas: int, lead: float) -> bool:
        """Going out is wanted with the goal's canastas, or early for a reason."""
        if lead <= 0:
            return False
        return canastas >= CANASTA_GOAL or self.threat >= PRESSURE or self.short or lead >= BIG_LEAD

    def _opening_step(self, v, melds):
        """The next meld of the cheapest opening (the fewest cards, a wild card counting as
        ``OPEN_WILD_COST`` more, whose points reach the minimum); the mask keeps it legal."""
        legal = set(melds)
        for action in self._opening_plan(v):
            if action in legal:
                return action
        return max(
            melds,
            key=lambda a: (
                MOVES[a].kind == MOVE_RUN,
                -MOVES[a].wilds,
                MOVES[a].points / max(1, MOVES[a].cards),
                MOVES[a].points,
            ),
        )

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

    def _priority(self, v, m) -> float:
        r = self.rules
        team = v.me
        if m.kind == MOVE_RUN:
            return PRI_RUN
        slot = m.slot
        if slot == SLOT_BLACK3:
            return 0.0
        if slot == SLOT_WILD:
            # a canasta of wild cards alone is the biggest bonus where it scores (S-10, I-12)
            if r.wild_canasta_clean_bonus or r.wild_canasta_dirty_bonus:
                return PRI_WILD_MELD + m.cards if m.cards >= r.wild_meld_min_start else 0.0
            return 0.0
        pressure = self.threat >= PRESSURE or self.short
        meld = team.meld_size(slot)
        if not m.new and m.wilds == 0:
            return PRI_ADD_NATURAL + meld
        if m.new and m.wilds == 0:
            if pressure or len(self.growing) < MAX_GROWING or m.naturals >= FAST_START:
                return PRI_NEW_NATURAL + m.naturals
            return 0.0
        if not m.new:
            if team.is_canasta[slot]:
                return PRI_WILD_MELD if pressure else 0.0
            if meld < r.canasta_size <= meld + m.wilds:
                clean = team.twos[slot] + team.jokers[slot] == 0
                waiting = self.unseen[slot] > 0 and not self.short and self.threat < PRESSURE
                need = not self._canasta_ok(team.canastas, team.clean, team.dirty)
                if clean and waiting and not need:
                    return 0.0  # a natural can still finish it clean
                return PRI_WILD_FINISH + (m.twos > 0)
            return PRI_WILD_MELD + (m.twos > 0) if pressure else 0.0
        return PRI_PAIR_WILD if pressure and m.wilds == 1 else 0.0

    # the going-out ------------------------------------------------------------
    def _plan_out(self, hand: list[int], nat: list[int], wil: list[int]):
        """Best-effort allocation of the whole hand to melds: (cards left, clean, dirty made)."""
        r = self.rules
        csize = r.canasta_size
        wilds = hand[TWO] + hand[JOKER]
        left = 0
        groups: list[list[int]] = []
        pairs: list[int] = []
        for k in range(NUM_NATURALS):
            c = hand[k]
            size = nat[k] + wil[k]
            if size:
                groups.append([nat[k] + c, wil[k], size >= csize])
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
        for g in sorted(groups, key=lambda g: -(g[0] + g[1])):
            if not wilds:
                break
            room = min(r.max_wilds_per_meld - g[1], g[0] - r.min_natural_excess - g[1])
            if r.meld_closes_at:
                room = min(room, r.meld_closes_at - g[0] - g[1])
            put = max(0, min(room, wilds))
            g[1] += put
            wilds -= put
        if r.wild_melds and r.wild_meld_min_start <= wilds <= r.wild_meld_max_size:
            wilds = 0
        left += wilds
        b3 = hand[BLACK3]
        if b3 and not (r.black3_melds and r.min_meld_size <= b3 <= r.black3_meld_max_size):
            left += b3
        clean = sum(1 for n, w, was in groups if not was and n + w >= csize and not w)
        dirty = sum(1 for n, w, was in groups if not was and n + w >= csize and w)
        return left, clean, dirty

    def _feasible(self, v, hand, nat, wil, made_clean=0, made_dirty=0) -> bool:
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
        team = v.me
        nat = [team.naturals[s] for s in range(SLOT_WILD + 1)]
        wil = [team.twos[s] + team.jokers[s] for s in range(SLOT_WILD + 1)]
        if not self._feasible(v, hand, nat, wil):
            return None
        _, clean, dirty = self._plan_out(hand, nat, wil)
        melded = sum(hand[k] * CARD_VALUES[k] for k in range(NUM_HAND_KINDS))
        mine = self.public[0] + melded + r.go_out_bonus - self.hand_cost[0]
        mine += clean * r.clean_canasta_bonus + dirty * r.dirty_canasta_bonus
        if not self._wants_out(v, team.canastas + clean + dirty, mine - self.best_opp):
            return None
        if sum(hand) == 1 and discards:
            return discards[0]
        best, best_key = None, None
        for a in melds:
            m = MOVES[a]
            if m.kind == MOVE_RUN:
                continue
            after = list(hand)
            for kind in m.uses:
                after[kind] -= 1
            if not sum(after):
                if r.go_out_needs_discard:
                    continue
                return a
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

    # ------------------------------------------------------------ the discard
    def _discard(self, v, discards: list[int]) -> int:
        return min(
            discards, key=lambda a: self._keep(v, a - DISCARD) + self._danger(v, a - DISCARD)
        )

    def _keep(self, v, kind: int) -> float:
        points = self._points(kind) * HAND_POINTS_WEIGHT * (1.0 + THREAT_POINTS * self.threat)
        if kind == BLACK3:
            return KEEP_BLACK3 - points
        if kind == TWO or kind == JOKER:
            return KEEP_WILD - points
        c = v.hand[kind]
        if kind in self.growing:
            return KEEP_ON_MELD + KEEP_PAIR * (c >= 2) - points
        if c >= 3:
            return KEEP_TRIPLE - points
        if c == 2:
            return KEEP_PAIR - points
        return KEEP_SINGLE + KEEP_PER_UNSEEN * self.unseen[kind] - points

    def _danger(self, v, kind: int) -> float:
        """Chance the next player takes the pot with this card, times its worth to them."""
        r = self.rules
        if kind in (BLACK3, TWO, JOKER):
            return 0.0
        p = v.players[1]
        team = v.teams[self.team_of[1]]
        frozen = v.pot_wild or (r.frozen_for_unopened and not team.opened)
        if r.take_onto_meld and not frozen and team.has_meld(kind):
            chance = 1.0
        else:
            need = r.take_naturals_frozen if frozen else r.take_naturals
            known = p.known[kind]
            hidden = max(0, p.hand_size - sum(p.known))
            if known >= need:
                chance = 1.0
            else:
                chance = min(
                    1.0, PAIR_BIAS * _at_least(self.unseen[kind], self.pool, hidden, need - known)
                )
                if r.take_with_wild and not frozen:
                    one = 1.0 if known else _at_least(self.unseen[kind], self.pool, hidden, 1)
                    wild = (
                        1.0
                        if p.known[TWO] + p.known[JOKER]
                        else _at_least(self.unseen[TWO] + self.unseen[JOKER], self.pool, hidden, 1)
                    )
                    spend = min(1.0, (v.pot_size + 1) / WILD_TAKE_POT)
                    chance += (1 - chance) * one * wild * spend
                if not known:
                    if v.history[1].declined[kind]:
                        chance *= DECLINED_FACTOR
                    if v.history[1].discarded[kind]:
                        chance *= DISCARDED_FACTOR
                if not team.opened:
                    chance *= UNOPENED_TAKE_FACTOR
        wilds = v.pot_known[TWO] + v.pot_known[JOKER]
        return chance * (POT_BASE + POT_PER_CARD * (v.pot_size + 1) + POT_PER_WILD * wilds)
