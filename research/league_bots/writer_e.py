"""Two Canasta bots written from the public documentation alone (writer E).

Both read the 686-float observation directly by the offsets of ``docs/observation.md``
(one ``tolist`` a decision, no ``decode_view``), interpret the legal ids with
``canasta_env.actions.MOVES`` and never look at anything but the observation, the mask
and the rules handed to ``reset``. They play every preset and player count: where a rule
does not exist at a table (a take onto a meld, a wild-card take) the mask simply never
offers it.

Design note
===========

``Reckoner`` (an all-round card counter)
    * **Counting.** Every decision it rebuilds the unseen count of each kind: the deck
      (from the rules) minus its hand, the pot's face-up cards, every team's melds
      (finished Spanish canastas included) and the cards each seat is known to hold from
      pot takes (G-8). The unseen cards are spread over the stock and the unknown part of
      the other hands.
    * **Pile danger.** For every possible discard it estimates the chance that the *next*
      player takes the pot with it: certain for a card that joins that team's meld while
      the pot is open (C-11) or that they are known to hold twice; otherwise a
      hypergeometric draw of the unseen copies into the unknown part of their hand (a pair,
      three for a frozen/crossed pot, or one natural and a wild card where C-11 allows it),
      cut when they discarded that kind earlier or let that top card go by drawing, and
      when their team still has to reach its opening minimum. The danger times the pot's
      worth to them (which grows with its size, more when they lead) plus what the card is
      worth in hand gives each discard a cost; the cheapest is discarded. Black 3s and wild
      cards block the next player; a black 3 is its shield for big pots.
    * **Score estimate.** Each team's hand is estimated from the table (melded points,
      canasta bonuses, red 3s by the preset's table) minus about 9 points per card held
      by others (its own hand is counted exactly).
    * **Two modes.** It *races* when it leads, when an opposing team could go out soon
      (a canasta and a short hand) or when the stock runs low: it wants to go out, melds
      eagerly, puts wild cards on its biggest meld toward a first canasta and declines
      small pots once it can go out. Behind with stock left it *builds*: keeps pairs and
      triples to take the pot, lays a new meld only with four naturals and adds to a meld
      only when it reaches six cards, takes every pot (a wild-card take from a middling
      pot), saves wild cards to finish canastas and never empties its hand.

``Freezer2`` (a defensive pile player)
    * **Freezing.** While the pot is open it discards a 2 (a joker only when nothing else
      is safe) to freeze (or, in Spanish, cross) it as soon as the pot holds a few cards
      or the opponents have melds a discard could feed; a frozen pot needs natural pairs
      (three in spanish and italian), which it hoards. Black 3s are kept as shields and
      thrown when the pot is big or no other discard is safe.
    * **Pairs and takes.** It never breaks a natural pair while it has another choice and
      takes the pot with naturals or onto a meld whenever it can; it spends a wild card on
      a take only for a big pot.
    * **Late melding.** It opens only to take the pot, when the opponents have opened,
      or when the stock is half gone; after opening it keeps triples and pairs in hand and
      lays them only when a meld reaches six cards, the stock runs low, the opponents
      could go out, or its hand grows very long (tuning found that melding late won
      about ten points of hands against ``expert``).
    * **Safe discards only.** Its discard cost weighs the pile danger far above the
      card's worth in hand: cards already discarded by the next player, kinds with every
      copy accounted for, and black 3s come first.
    * **Going out.** Once its team may go out (the canastas the preset needs) and its
      estimated hand score leads, or when the opponents are about to go out and it is not
      far behind, it melds everything and goes out.
"""

from __future__ import annotations

import random

import numpy as np

from canasta_env.actions import (
    ADD_NATURAL,
    DISCARD,
    DRAW,
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
)
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, TWO, deck_counts

# ---------------------------------------------------------------- observation offsets
# (docs/observation.md, "Fields")
_POT_TOP = 28
_POT_SIZE = 44
_POT_FROZEN = 46
_POT_CROSSED = 47
_POT_BLOCKED = 48
_POT_FROZEN_FOR_ME = 49
_POT_KNOWN = 50
_TEAMS = 65
_TEAM = 86
_PLAYERS = 323
_PLAYER = 17
_STAGED = 427
_STILL_NEEDED = 428
_TOOK_POT = 429
_MAY_GO_OUT = 431
_STOCK = 433
_STOCK_SHORT = 434
_NUM_PLAYERS = 436
_HISTORY = 504
_HISTORY_SEAT = 28

# ---------------------------------------------------------------- the move table, flat
# per id: (slot, naturals, twos, jokers, new); -1 slot for non-melds
_MELD = {}
for _id, _m in enumerate(MOVES):
    if _m.kind == MOVE_MELD:
        _MELD[_id] = (_m.slot, _m.naturals, _m.twos, _m.jokers, _m.new, _m.points)
    elif _m.kind == MOVE_RUN:
        _MELD[_id] = (-2, _m.naturals, 0, 0, True, _m.points)


def _slot_kind(slot: int) -> int:
    return BLACK3 if slot == SLOT_BLACK3 else slot


class _Table:
    """What one decision needs from the observation, read once (unscaled)."""

    __slots__ = (
        "hand",
        "held",
        "top",
        "pot_size",
        "frozen",
        "blocked",
        "frozen_for_me",
        "pot_known",
        "teams",
        "nteams",
        "players",
        "nplayers",
        "stock",
        "stock_short",
        "may_go_out",
        "staged",
        "still_needed",
        "took_pot",
        "discarded",
        "declined",
    )

    def __init__(self, o: list, nplayers: int):
        self.nplayers = nplayers
        self.nteams = 3 if nplayers == 3 else 2
        self.hand = [round(x * 4) for x in o[0:14]]
        self.held = [round(x * 4) for x in o[14:28]]
        top = o[_POT_TOP : _POT_TOP + 16]
        self.top = top.index(1.0) if 1.0 in top else -1
        if self.top == 15:
            self.top = -1
        self.pot_size = round(o[_POT_SIZE] * 20)
        self.frozen = o[_POT_FROZEN] > 0.5 or o[_POT_CROSSED] > 0.5
        self.blocked = o[_POT_BLOCKED] > 0.5
        self.frozen_for_me = o[_POT_FROZEN_FOR_ME] > 0.5
        self.pot_known = [round(x * 4) for x in o[_POT_KNOWN : _POT_KNOWN + 15]]
        self.teams = [_Team(o, _TEAMS + _TEAM * t) for t in range(self.nteams)]
        self.players = []
        for p in range(nplayers):
            b = _PLAYERS + _PLAYER * p
            self.players.append((round(o[b + 2] * 15), [round(x * 4) for x in o[b + 3 : b + 17]]))
        self.stock = round(o[_STOCK] * 100)
        self.stock_short = o[_STOCK_SHORT] > 0.5
        self.may_go_out = o[_MAY_GO_OUT] > 0.5
        self.staged = round(o[_STAGED] * 100)
        self.still_needed = round(o[_STILL_NEEDED] * 100)
        self.took_pot = o[_TOOK_POT] > 0.5
        # history of the next seat only (the one that can take our discard)
        b = _HISTORY + _HISTORY_SEAT * 1
        self.discarded = [round(x * 4) for x in o[b : b + 14]]
        self.declined = [round(x * 4) for x in o[b + 14 : b + 28]]


class _Team:
    __slots__ = (
        "nat",
        "twos",
        "jok",
        "canasta",
        "closed_clean",
        "closed_dirty",
        "red3",
        "opened",
        "minimum",
        "score",
        "canastas",
        "clean",
        "dirty",
    )

    def __init__(self, o: list, b: int):
        self.nat = [round(x * 4) for x in o[b : b + 13]]
        self.twos = [round(x * 4) for x in o[b + 13 : b + 26]]
        self.jok = [round(x * 4) for x in o[b + 26 : b + 39]]
        self.canasta = [x > 0.5 for x in o[b + 39 : b + 52]]
        self.closed_clean = [round(x * 4) for x in o[b + 52 : b + 65]]
        self.closed_dirty = [round(x * 4) for x in o[b + 65 : b + 78]]
        self.red3 = round(o[b + 79] * 4)
        self.opened = o[b + 80] > 0.5
        self.minimum = round(o[b + 81] * 100)
        self.score = round(o[b + 82] * 5000)
        self.canastas = round(o[b + 83] * 4)
        self.clean = round(o[b + 84] * 4)
        self.dirty = round(o[b + 85] * 4)

    def size(self, slot: int) -> int:
        return self.nat[slot] + self.twos[slot] + self.jok[slot]


def _p_at_least(need: int, draws: int, good: int, pool: int) -> float:
    """P(at least ``need`` of ``good`` cards among ``draws`` cards drawn from ``pool``)."""
    if need <= 0:
        return 1.0
    if good < need or draws < need or pool <= 0:
        return 0.0
    if draws >= pool:
        return 1.0
    # hypergeometric P(X = i) for i < need, built up from P(X = 0)
    p0 = 1.0
    bad = pool - good
    if bad < draws:
        p0 = 0.0
    else:
        for i in range(draws):
            p0 *= (bad - i) / (pool - i)
    below = p0
    pi = p0
    for i in range(need - 1):
        # P(X = i + 1) from P(X = i)
        denom = (i + 1) * (bad - draws + i + 1)
        if denom <= 0:
            break
        pi = pi * (good - i) * (draws - i) / denom
        below += pi
    return max(0.0, min(1.0, 1.0 - below))


class _Bot:
    """The machinery both bots share: rules, counting, danger, score estimates.

    A subclass sets its numbers (``P``) and its plan in ``_draw`` and ``_meld``."""

    name = "writer_e"
    P: dict = {}

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.reset(0, 4, None)

    def seed(self, s: int) -> None:
        self.rng = random.Random(s)

    # ----------------------------------------------------------- rules, once a hand
    def reset(self, seat: int, num_players: int, rules) -> None:
        if isinstance(rules, str):
            from canasta_env.rules import make_rules

            rules = make_rules(rules)
        self.seat = seat
        self.nplayers = num_players
        g = (
            (lambda name, default: getattr(rules, name, default))
            if rules is not None
            else (lambda name, default: default)
        )
        decks = g("num_decks", 2)
        for players, n in g("num_decks_by_players", ()) or ():
            if players == num_players:
                decks = n
        self.total = deck_counts(decks, g("jokers_per_deck", 2))[:14]
        self.take_onto_meld = bool(g("take_onto_meld", True))
        self.take_with_wild = bool(g("take_with_wild", True))
        self.take_frozen = int(g("take_naturals_frozen", 2))
        self.take_plain = int(g("take_naturals", 2))
        self.frozen_for_unopened = bool(g("frozen_for_unopened", True))
        self.clean_bonus = int(g("clean_canasta_bonus", 500))
        self.dirty_bonus = int(g("dirty_canasta_bonus", 300))
        self.go_out_bonus = int(g("go_out_bonus", 100))
        self.red3_scores = tuple(g("red3_scores", (0, 100, 200, 300, 800)))
        self.red3_extra = int(g("red3_extra_each", 200))
        self.b3_penalty = int(g("black3_in_hand_penalty", 5))
        self.b3_melds_anytime = bool(g("black3_melds", True)) and not bool(
            g("black3_meld_only_going_out", True)
        )
        self.max_wilds = int(g("max_wilds_per_meld", 3))
        self.closes = int(g("meld_closes_at", 0)) > 0
        self.needs_two_kinds = bool(g("go_out_needs_clean_and_dirty", False))
        self.draw_count = int(g("draw_count", 1))
        self.hand_size0 = 11
        hs = g("hand_size", ())
        for players, n in hs or ():
            if players == num_players:
                self.hand_size0 = n
        self.stock0 = None  # the stock's size at the first decision of the hand
        self.froze = 0  # wild cards this bot threw to freeze the pot this hand

    # ----------------------------------------------------------- the entry point
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        o = observation.tolist()
        t = _Table(o, self.nplayers)
        if self.stock0 is None or t.stock > self.stock0:
            self.stock0 = max(t.stock, 1)
        if legal[0] <= PASS:
            return self._draw(t, legal)
        return self._meld(t, legal)

    # ----------------------------------------------------------- counting
    def unseen(self, t: _Table) -> list[int]:
        seen = [t.hand[k] + t.held[k] + t.pot_known[k] for k in range(14)]
        for team in t.teams:
            for slot in range(11):
                seen[slot] += (
                    team.nat[slot] + 7 * team.closed_clean[slot] + 5 * team.closed_dirty[slot]
                )
                seen[TWO] += team.closed_dirty[slot]
                seen[JOKER] += team.closed_dirty[slot]
            seen[BLACK3] += team.nat[SLOT_BLACK3] + 7 * team.closed_clean[SLOT_BLACK3]
            seen[TWO] += sum(team.twos)
            seen[JOKER] += sum(team.jok)
            closed_wild = team.closed_clean[SLOT_WILD] + team.closed_dirty[SLOT_WILD]
            seen[TWO] += 4 * closed_wild
            seen[JOKER] += 3 * closed_wild
        for p in range(1, t.nplayers):
            known = t.players[p][1]
            for k in range(14):
                seen[k] += known[k]
        return [max(0, self.total[k] - seen[k]) for k in range(14)]

    def team_of(self, p: int, t: _Table) -> int:
        return p % t.nteams

    def take_chance(self, t: _Table, k: int, unseen: list[int], pool: int) -> float:
        """The chance the next player takes the pot if we discard kind ``k`` now."""
        if k >= 11:
            return 0.0  # a wild card or a black 3 blocks the next player (C-12, S-6, I-7)
        nxt = t.players[1]
        their = t.teams[self.team_of(1, t)]
        frozen = t.frozen or (self.frozen_for_unopened and not their.opened)
        if not frozen and self.take_onto_meld and their.opened and their.size(k) > 0:
            if not (self.closes and their.size(k) >= 7):
                return 1.0
        need = self.take_frozen if frozen else self.take_plain
        known = nxt[1]
        unknown = max(0, nxt[0] - sum(known))
        have = known[k]
        if have >= need:
            p = 0.95
        else:
            p = _p_at_least(need - have, unknown, unseen[k], pool)
            if not frozen and self.take_with_wild:
                wilds = known[TWO] + known[JOKER]
                p_wild = (
                    1.0 if wilds else _p_at_least(1, unknown, unseen[TWO] + unseen[JOKER], pool)
                )
                p_one = 1.0 if have else _p_at_least(1, unknown, unseen[k], pool)
                p += (1.0 - p) * p_one * p_wild * self.P["wild_take_willing"]
            if t.discarded[k]:
                p *= 0.45
            if t.declined[k]:
                p *= 0.35
        if not their.opened:
            p *= self.P["unopened_factor"]
        return p

    # ----------------------------------------------------------- scores
    def red3_value(self, n: int) -> int:
        if n <= 0:
            return 0
        table = self.red3_scores
        if n < len(table):
            return table[n]
        return table[-1] + (n - len(table) + 1) * self.red3_extra

    def table_score(self, team: _Team) -> int:
        """What a team has on the table: melded points, canasta bonuses, red 3s."""
        pts = 0
        for slot in range(11):
            pts += team.nat[slot] * CARD_VALUES[slot]
            pts += (team.closed_clean[slot] + team.closed_dirty[slot]) * 7 * CARD_VALUES[slot]
        pts += team.nat[SLOT_BLACK3] * 5
        pts += sum(team.twos) * 20 + sum(team.jok) * 50
        pts += team.clean * self.clean_bonus + team.dirty * self.dirty_bonus
        red = self.red3_value(team.red3)
        pts += red if team.opened else -red
        return pts

    def hand_points(self, hand: list[int]) -> int:
        pts = 0
        for k in range(14):
            if hand[k]:
                pts += hand[k] * (self.b3_penalty if k == BLACK3 else CARD_VALUES[k])
        return pts

    def margin(self, t: _Table, going_out: bool = False) -> float:
        """Own estimated hand score minus the best other team's (their hands at ~9 a card)."""
        scores = [float(self.table_score(team)) for team in t.teams]
        for p in range(1, t.nplayers):
            scores[self.team_of(p, t)] -= 9.0 * t.players[p][0]
        if going_out:
            scores[0] += self.go_out_bonus + self.hand_points(t.hand)
        else:
            scores[0] -= self.hand_points(t.hand)
        return scores[0] - max(scores[1:])

    def threat(self, t: _Table) -> bool:
        """Could an opposing team go out within about a round?"""
        for p in range(1, t.nplayers):
            team = t.teams[self.team_of(p, t)]
            if self.team_of(p, t) == 0:
                continue
            enough = team.canastas >= 2 if self.needs_two_kinds else team.canastas >= 1
            if enough and t.players[p][0] <= self.P["threat_hand"]:
                return True
            if team.canastas >= 1 and t.players[p][0] <= 2:
                return True
        return False

    def stock_low(self, t: _Table) -> bool:
        return t.stock <= self.P["low_stock"] * self.draw_count + t.nplayers

    # ----------------------------------------------------------- discards
    def keep_value(self, t: _Table, k: int, unseen: list[int], pool: int) -> float:
        """What losing one card of kind ``k`` from the hand costs."""
        P = self.P
        c = t.hand[k]
        if k == TWO:
            return P["keep_two"]
        if k == JOKER:
            return P["keep_joker"]
        if k == BLACK3:
            return P["keep_b3"] + (self.b3_penalty if self.b3_penalty >= 50 and c >= 2 else 0)
        me = t.teams[0]
        if c >= 3:
            v = P["triple"]
        elif c == 2:
            v = P["pair"]
        else:
            v = P["single"] + P["pair_chance"] * min(1.0, unseen[k] / 4.0)
        if me.size(k) > 0 and not (self.closes and me.size(k) >= 7):
            v += P["on_meld"] + 4 * me.size(k)
        v -= P["point_weight"] * CARD_VALUES[k]
        return v

    def pot_worth(self, t: _Table, margin: float) -> float:
        P = self.P
        w = P["pot_base"] + P["pot_card"] * (t.pot_size + 1)
        if margin < 0:
            w *= P["behind_factor"]
        return w

    def discard_costs(self, t: _Table, kinds: list[int], margin: float) -> dict[int, float]:
        unseen = self.unseen(t)
        pool = max(1, sum(unseen))
        worth = self.pot_worth(t, margin)
        costs = {}
        for k in kinds:
            cost = self.keep_value(t, k, unseen, pool)
            cost += self.take_chance(t, k, unseen, pool) * worth
            costs[k] = cost
        return costs

    # ----------------------------------------------------------- meld helpers
    def hand_after(self, t: _Table, a: int) -> int:
        m = _MELD[a]
        return sum(t.hand) - m[1] - m[2] - m[3]

    def can_meld_out(self, t: _Table) -> bool:
        """Could the whole hand go down this turn (all but one card for the discard)?"""
        me = t.teams[0]
        left = 0
        pairs = 0
        for k in range(11):
            c = t.hand[k]
            if not c:
                continue
            size = me.size(k)
            if size and not (self.closes and size >= 7):
                continue
            if c >= 3:
                continue
            if c == 2:
                pairs += 1
            else:
                left += 1
        b3 = t.hand[BLACK3]
        if b3 and not 3 <= b3 <= 4 + (3 if self.b3_melds_anytime else 0):
            left += b3
        wilds = t.hand[TWO] + t.hand[JOKER]
        if pairs > wilds:
            left += 2 * (pairs - wilds)
        return left <= 1

    def opening_key(self, t: _Table, a: int) -> float:
        slot, n, tw, jk, new, pts = _MELD[a]
        return pts + 6 * n - 45 * tw - 80 * jk

    def out_key(self, t: _Table, a: int) -> float:
        """Order of moves while melding out: naturals first, most cards first."""
        slot, n, tw, jk, new, pts = _MELD[a]
        me = t.teams[0]
        key = 10 * (n + tw + jk) - 15 * (tw + jk)
        if slot >= 0 and slot != SLOT_WILD and not new:
            size = me.size(slot)
            if size + n + tw + jk >= 7 > size:
                key += 60  # completes a canasta
            key += size
        return key


class Reckoner(_Bot):
    """An all-round card counter: races out when ahead or threatened, builds when behind."""

    name = "reckoner"
    P = {
        "wild_take_willing": 0.5,
        "unopened_factor": 0.55,
        "threat_hand": 4,
        "low_stock": 12,
        "keep_two": 70.0,
        "keep_joker": 120.0,
        "keep_b3": 22.0,
        "triple": 40.0,
        "pair": 60.0,
        "single": 6.0,
        "pair_chance": 10.0,
        "on_meld": 25.0,
        "point_weight": 0.4,
        "pot_base": 40.0,
        "pot_card": 30.0,
        "behind_factor": 1.3,
        "wild_take_pot": 6,
        "race_decline_pot": 4,
        "lead_to_go_out": 100.0,
        "far_behind": 250.0,
        "push_first": False,
        "push_size": 4,
        "keep_frozen_n": 3,
        "check_out": False,
        "build_new_at": 4,
        "build_add_at": 6,
    }

    # ----------------------------------------------------------- mode
    def racing(self, t: _Table, margin: float) -> bool:
        return margin > self.P["lead_to_go_out"] or self.threat(t) or self.stock_low(t)

    def want_out(self, t: _Table) -> bool:
        m = self.margin(t, going_out=True)
        if m > self.P["lead_to_go_out"]:
            return True
        if self.stock_low(t):
            return True
        if self.threat(t) and m > -self.P["far_behind"]:
            return True
        return False

    # ----------------------------------------------------------- draw phase
    def _draw(self, t: _Table, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        margin = self.margin(t)
        if PASS in legal:  # the stock is out: take if it helps, pass when ahead
            if takes and margin < 0:
                return self._best_take(takes)
            return PASS if not takes or margin >= 0 else takes[0]
        if not takes:
            return DRAW if DRAW in legal else legal[0]
        me = t.teams[0]
        plain = [a for a in takes if a in (TAKE, TAKE_ONTO_MELD)]
        can_out = me.canastas >= (2 if self.needs_two_kinds else 1)
        if (
            plain
            and can_out
            and self.racing(t, margin)
            and t.pot_size <= self.P["race_decline_pot"]
            and sum(t.hand) <= 5
            and DRAW in legal
        ):
            return DRAW  # a small pot would only keep us from going out
        if plain:
            return self._best_take(plain)
        # only wild-card takes are left
        if t.pot_size >= self.P["wild_take_pot"] or (not me.opened and t.pot_size >= 4):
            return TAKE_WITH_TWO if TAKE_WITH_TWO in takes else takes[0]
        return DRAW if DRAW in legal else takes[0]

    @staticmethod
    def _best_take(takes: list[int]) -> int:
        for a in (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER):
            if a in takes:
                return a
        return takes[0]

    # ----------------------------------------------------------- meld phase
    def _meld(self, t: _Table, legal: list[int]) -> int:
        discards = [a - DISCARD for a in legal if DISCARD <= a < ADD_NATURAL]
        melds = [a for a in legal if a >= ADD_NATURAL]
        me = t.teams[0]
        opened = me.opened or (t.staged > 0 and t.still_needed <= 0)
        margin = self.margin(t)
        if melds:
            if not opened:
                # open whenever we can (an unopened team faces a frozen pot, C-9)
                return max(melds, key=lambda a: self.opening_key(t, a))
            choice = self._meld_choice(t, melds, margin, bool(discards))
            if choice is not None:
                return choice
        if not discards:
            return melds[0] if melds else legal[0]
        return DISCARD + self._discard_choice(t, discards, margin)

    def _meld_choice(self, t: _Table, melds: list[int], margin: float, can_discard: bool):
        me = t.teams[0]
        hand_n = sum(t.hand)
        if t.may_go_out and self.want_out(t) and (not self.P["check_out"] or self.can_meld_out(t)):
            return max(melds, key=lambda a: self.out_key(t, a))
        race = self.racing(t, margin)
        keep_min = 2 if t.may_go_out else 1
        best, best_v = None, 0.0
        for a in melds:
            slot, n, tw, jk, new, pts = _MELD[a]
            if hand_n - n - tw - jk < keep_min:
                continue
            w = tw + jk
            if slot == -2:  # an S-19 run: always worth laying
                v = 100.0
            elif slot == SLOT_BLACK3:
                v = 50.0 if self.b3_melds_anytime else -1.0
            elif slot == SLOT_WILD:
                v = 80.0 if (new and n + w >= 7) else -1.0
            elif w == 0:
                size = me.size(slot)
                if new:
                    # a natural meld: lay it unless the pot is frozen and it can take it
                    if (
                        t.frozen
                        and n <= self.P["keep_frozen_n"]
                        and not race
                        and not self.stock_low(t)
                    ):
                        v = -1.0
                    elif not race and n < self.P["build_new_at"]:
                        v = -1.0
                    else:
                        v = 20.0 + n
                elif race or size + n >= self.P["build_add_at"]:
                    v = 30.0 + size
                else:
                    v = -1.0
            else:
                size = me.size(slot) if not new else 0
                after = size + n + w
                wild_in_meld = (me.twos[slot] + me.jok[slot]) if not new else 0
                if wild_in_meld + w > self.max_wilds:
                    continue
                if not new and size < 7 <= after:
                    # finishes a canasta: always in a race; else if it would be dirty
                    # anyway or no clean one is near
                    clean_now = wild_in_meld == 0
                    if race or not clean_now or me.canastas == 0:
                        v = 60.0 - 10 * w
                    else:
                        v = -1.0
                elif (
                    (race or self.P["push_first"])
                    and not new
                    and me.canastas == 0
                    and size >= self.P["push_size"]
                    and w == 1
                ):
                    v = 25.0 + size  # toward the first canasta
                elif race and new and w == 1 and n >= 2 and t.may_go_out and hand_n <= 4:
                    v = 10.0
                else:
                    v = -1.0
            if v > best_v:
                best, best_v = a, v
        if best is None and not can_discard:
            return max(melds, key=lambda a: self.out_key(t, a))
        return best

    def _discard_choice(self, t: _Table, kinds: list[int], margin: float) -> int:
        costs = self.discard_costs(t, kinds, margin)
        # a black 3 shields a worthwhile pot
        if BLACK3 in costs and t.pot_size >= 4:
            costs[BLACK3] -= 6.0 * t.pot_size
        if TWO in costs and not t.frozen and t.pot_size >= 6 and t.hand[TWO] >= 2:
            costs[TWO] -= 3.0 * t.pot_size
        return min(kinds, key=lambda k: (costs[k], k))


class Freezer2(_Bot):
    """A defensive pile player: freezes the pot, hoards pairs, melds late, discards safe."""

    name = "freezer2"
    P = {
        "wild_take_willing": 0.6,
        "unopened_factor": 0.6,
        "threat_hand": 2,
        "low_stock": 8,
        "keep_two": 55.0,
        "keep_joker": 130.0,
        "keep_b3": 30.0,
        "triple": 55.0,
        "pair": 90.0,
        "single": 4.0,
        "pair_chance": 8.0,
        "on_meld": 15.0,
        "point_weight": 0.2,
        "pot_base": 70.0,
        "pot_card": 55.0,
        "behind_factor": 1.4,
        "freeze_pot": 3,
        "wild_take_pot": 9,
        "long_hand": 20,
        "lead_to_go_out": 50.0,
        "far_behind": 200.0,
        "open_early": False,
        "late_natural_adds": True,
        "add_at": 6,
    }

    def late(self, t: _Table) -> bool:
        """Time to lay cards: the stock runs low or the opponents could go out."""
        return self.stock_low(t) or self.threat(t)

    def want_out(self, t: _Table) -> bool:
        m = self.margin(t, going_out=True)
        if m > self.P["lead_to_go_out"]:
            return True
        if self.stock_low(t) and m > -self.P["far_behind"]:
            return True
        if self.threat(t) and m > -self.P["far_behind"]:
            return True
        return False

    # ----------------------------------------------------------- draw phase
    def _draw(self, t: _Table, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        if PASS in legal:
            if takes and self.margin(t) < 0:
                return takes[0] if TAKE_ONTO_MELD not in takes else TAKE_ONTO_MELD
            return PASS if not takes or self.margin(t) >= 0 else takes[0]
        for a in (TAKE_ONTO_MELD, TAKE):
            if a in takes:
                return a
        if takes and t.pot_size >= self.P["wild_take_pot"]:
            return TAKE_WITH_TWO if TAKE_WITH_TWO in takes else takes[0]
        return DRAW if DRAW in legal else legal[0]

    # ----------------------------------------------------------- meld phase
    def _meld(self, t: _Table, legal: list[int]) -> int:
        discards = [a - DISCARD for a in legal if DISCARD <= a < ADD_NATURAL]
        melds = [a for a in legal if a >= ADD_NATURAL]
        me = t.teams[0]
        opened = me.opened or (t.staged > 0 and t.still_needed <= 0)
        if melds:
            if not opened:
                if not discards or t.staged > 0 or self._open_now(t):
                    return max(melds, key=lambda a: self.opening_key(t, a))
            else:
                choice = self._meld_choice(t, melds, bool(discards))
                if choice is not None:
                    return choice
        if not discards:
            return melds[0] if melds else legal[0]
        return DISCARD + self._discard_choice(t, discards)

    def _open_now(self, t: _Table) -> bool:
        if self.P["open_early"]:
            return True
        if any(team.opened for team in t.teams[1:]):
            return True
        if self.stock0 and t.stock * 2 <= self.stock0:
            return True
        return self.late(t) or sum(t.hand) >= self.P["long_hand"] + 3

    def _meld_choice(self, t: _Table, melds: list[int], can_discard: bool):
        me = t.teams[0]
        hand_n = sum(t.hand)
        if t.may_go_out and self.want_out(t):
            return max(melds, key=lambda a: self.out_key(t, a))
        late = self.late(t) or hand_n >= self.P["long_hand"]
        keep_min = 2 if t.may_go_out else 1
        best, best_v = None, 0.0
        for a in melds:
            slot, n, tw, jk, new, pts = _MELD[a]
            if hand_n - n - tw - jk < keep_min:
                continue
            w = tw + jk
            if slot == -2:
                v = 100.0
            elif slot == SLOT_BLACK3:
                v = 50.0 if self.b3_melds_anytime else -1.0
            elif slot == SLOT_WILD:
                v = 80.0 if (new and n + w >= 7) else -1.0
            elif w == 0:
                size = me.size(slot)
                if new:
                    v = 20.0 + n if (late or n >= 4) else -1.0
                else:
                    # naturals onto a meld: always toward a canasta, else only late
                    v = (
                        30.0 + size
                        if (late or size + n >= self.P["add_at"] or not self.P["late_natural_adds"])
                        else -1.0
                    )
            else:
                size = me.size(slot) if not new else 0
                wild_in_meld = (me.twos[slot] + me.jok[slot]) if not new else 0
                if wild_in_meld + w > self.max_wilds:
                    continue
                if not new and size < 7 <= size + n + w and (me.canastas == 0 or late):
                    v = 55.0 - 10 * w
                else:
                    v = -1.0
            if v > best_v:
                best, best_v = a, v
        if best is None and not can_discard:
            return max(melds, key=lambda a: self.out_key(t, a))
        return best

    def _discard_choice(self, t: _Table, kinds: list[int]) -> int:
        margin = self.margin(t)
        costs = self.discard_costs(t, kinds, margin)
        me = t.teams[0]
        if TWO in costs:
            # freeze an open pot that is worth denying
            their = t.teams[self.team_of(1, t)]
            worth = t.pot_size >= self.P["freeze_pot"] or (their.opened and t.pot_size >= 1)
            if not t.frozen and worth and me.canastas == 0 or (not t.frozen and t.pot_size >= 6):
                costs[TWO] -= 45.0 + 8.0 * t.pot_size
            elif t.frozen:
                costs[TWO] += 15.0  # it freezes nothing more
        if JOKER in costs and not t.frozen and t.pot_size >= 10:
            costs[JOKER] -= 5.0 * t.pot_size
        if BLACK3 in costs:
            costs[BLACK3] -= 7.0 * t.pot_size
        return min(kinds, key=lambda k: (costs[k], k))
