"""Two Canasta training opponents with opposite plans: ``Sprint`` and ``Patient``.

Written from the public documentation only (docs/rules.md, docs/agents.md,
docs/observation.md, docs/presets.md, ``canasta_env.actions.MOVES``). Both read the
raw observation once per decision (offsets of docs/observation.md) and score each
legal id of the mask; no game copy, no search. Play any preset at any player count.

Design note
-----------

Shared machinery
    * A *table estimate* of each team: melded card values, canasta bonuses, red 3s,
      minus about 8 points per card still held. It decides the end-of-stock pass.
    * A *discard price* per legal discard: what keeping the card is worth to the plan
      (pairs, triples, wild cards, high points) plus the chance that the next player
      can take the pot with it, times the pot's worth. The chance is card counting
      from public information: certain when the next team has a meld of that rank
      (an unfrozen classic pot is taken onto a meld) or the next player is known to
      hold the pair (pot takes, G-8); otherwise the unseen copies (deck minus own
      hand, every meld, the face-up pot, known cards) drawn into the unknown part of
      the next hand. A kind the next player discarded or let go is safer. A black 3
      or a wild card on top blocks the pot, so both are "safe".
    * *Going out* melds everything: naturals first, then wild cards where they finish
      a canasta, pair-and-wild melds, and wild cards on dirty melds before clean ones.

``Sprint`` -- the race
    * Opens at the first chance with the cheapest melds (fewest wild cards, fewest
      points above the minimum) and then sheds: every natural it can lay goes down
      (adds and new triples), so the hand shrinks quickly.
    * Wild cards go where they complete the first required canasta soonest: onto the
      biggest meld (four cards or more) while the team has no canasta; where a clean
      and a dirty canasta are both required, the biggest clean meld is kept clean.
    * Takes the pot when it speeds going out: always to open (an unopened team faces
      a frozen pot), onto a meld or with a natural pair while the team still needs its
      canasta, and afterwards only a small pot (or a very large one); a wild card is
      spent on a take only for a big pot before the first canasta.
    * Goes out the first turn the rules allow (``hold_out_loss`` can make it wait
      while going out would lose big; off by default). Discards shed high-point cards first
      (cards left in hand when somebody else goes out count against it).

``Patient`` -- the builder
    * Takes every profitable pot: every pot it may take with a natural pair or onto
      a meld, and with a wild card from a middling pot on.
    * Keeps a large hand: holds pairs and triples (they take pots), lays a new meld
      only in a big group (five naturals or more) or when the hand passes its hold
      limit (the deal's size plus two at partnership tables, plus four alone),
      and keeps wild cards until they finish a canasta now; a meld that may still
      become clean (5+ naturals, no wild) gets no wild card while the team has a
      canasta to spare. Lays hidden canastas, wild-only canastas and runs where the
      preset pays for them.
    * Plays for several canastas: it does not go out before its team holds its goal
      (two canastas, three at partnership tables), and then only when it leads; but
      it goes out at once (if that does not seal a big loss) when an opponent with the
      canastas to go out is down to a few cards, or when the stock runs short.
    * Discards guard the pile hard (it values pots, so it fears feeding them) and keep
      pairs dearly; high points matter little to it.
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
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, NUM_NATURALS, TWO
from canasta_env.observation import LAYOUT, SCALES

# ------------------------------------------------------------------ observation offsets

_INV_SCALES = (1.0 / np.asarray(SCALES, dtype=np.float64)).astype(np.float64)


def _start(name: str, copy: int | None = None) -> int:
    span = LAYOUT.span(name, copy) if copy is not None else LAYOUT.span(name)
    return span.start


_HAND = _start("hand")
_HELD = _start("held")
_POT_TOP = _start("pot_top")
_POT_SIZE = _start("pot_size")
_POT_FROZEN = _start("pot_frozen")
_POT_CROSSED = _start("pot_crossed")
_POT_KNOWN = _start("pot_known")
_FACE_DOWN = _start("pot_face_down")
_TEAM0 = _start("teams.naturals", 0)
_TEAM_STRIDE = _start("teams.naturals", 1) - _TEAM0
_T_TWOS = _start("teams.twos", 0) - _TEAM0
_T_JOKERS = _start("teams.jokers", 0) - _TEAM0
_T_IS_CANASTA = _start("teams.is_canasta", 0) - _TEAM0
_T_CLOSED_CLEAN = _start("teams.closed_clean", 0) - _TEAM0
_T_CLOSED_DIRTY = _start("teams.closed_dirty", 0) - _TEAM0
_T_RED3 = _start("teams.red3", 0) - _TEAM0
_T_OPENED = _start("teams.opened", 0) - _TEAM0
_T_CANASTAS = _start("teams.canastas", 0) - _TEAM0
_T_CLEAN = _start("teams.clean", 0) - _TEAM0
_T_DIRTY = _start("teams.dirty", 0) - _TEAM0
_PL0 = _start("players.present", 0)
_PL_STRIDE = _start("players.present", 1) - _PL0
_PL_HAND = _start("players.hand_size", 0) - _PL0
_PL_KNOWN = _start("players.known", 0) - _PL0
_STAGED = _start("staged")
_STILL_NEEDED = _start("still_needed")
_MAY_GO_OUT = _start("may_go_out")
_STOCK = _start("stock")
_STOCK_SHORT = _start("stock_short")
_HIST0 = _start("history.discarded", 0)
_HIST_STRIDE = _start("history.discarded", 1) - _HIST0
_H_DECLINED = _start("history.declined", 0) - _HIST0
_SINCE_MINE = _start("since_my_discard")

_NO_POT = -1
_WILD_VALUE = {TWO: 20, JOKER: 50}


def _read(observation: np.ndarray) -> list[int]:
    """The observation's entries, unscaled, as Python ints (one numpy pass)."""
    return (
        np.rint(np.asarray(observation, dtype=np.float64) * _INV_SCALES).astype(np.int64).tolist()
    )


def _rules_of(rules):
    if isinstance(rules, str):
        from canasta_env.rules import make_rules

        return make_rules(rules)
    return rules


class _State:
    """What one decision needs, read from the entries (teams and seats from the viewer)."""

    __slots__ = (
        "e",
        "hand",
        "hand_total",
        "pot_top",
        "pot_size",
        "pot_frozen",
        "pot_crossed",
        "num_teams",
        "stock",
        "stock_short",
        "may_go_out",
        "opened",
        "players",
    )

    def __init__(self, e: list[int], num_players: int):
        self.e = e
        self.hand = e[_HAND : _HAND + 14]
        self.hand_total = sum(self.hand)
        onehot = e[_POT_TOP : _POT_TOP + 16]
        self.pot_top = onehot.index(1) if 1 in onehot else _NO_POT
        if self.pot_top == 15:
            self.pot_top = _NO_POT
        self.pot_size = e[_POT_SIZE]
        self.pot_frozen = bool(e[_POT_FROZEN])
        self.pot_crossed = bool(e[_POT_CROSSED])
        self.num_teams = 2 if num_players in (4, 6) else num_players
        self.players = num_players
        self.stock = e[_STOCK]
        self.stock_short = bool(e[_STOCK_SHORT])
        self.may_go_out = bool(e[_MAY_GO_OUT])
        self.opened = bool(e[_TEAM0 + _T_OPENED]) or (e[_STAGED] > 0 and e[_STILL_NEEDED] == 0)

    # team k (0 = own), slot s
    def t(self, k: int, offset: int) -> int:
        return self.e[_TEAM0 + k * _TEAM_STRIDE + offset]

    def meld_size(self, k: int, slot: int) -> int:
        base = _TEAM0 + k * _TEAM_STRIDE
        e = self.e
        return e[base + slot] + e[base + _T_TWOS + slot] + e[base + _T_JOKERS + slot]

    def meld_wilds(self, k: int, slot: int) -> int:
        base = _TEAM0 + k * _TEAM_STRIDE
        return self.e[base + _T_TWOS + slot] + self.e[base + _T_JOKERS + slot]

    def player_hand(self, p: int) -> int:
        return self.e[_PL0 + p * _PL_STRIDE + _PL_HAND]

    def player_known(self, p: int, kind: int) -> int:
        return self.e[_PL0 + p * _PL_STRIDE + _PL_KNOWN + kind]

    def team_of(self, p: int) -> int:
        return p % self.num_teams


class _Planner:
    """Shared reading, card counting, discards and going out; the plans override hooks."""

    name = "writer_f"

    # discard prices (points)
    pair_keep = 55.0
    triple_keep = 75.0
    single_keep = 8.0
    two_keep = 70.0
    joker_keep = 110.0
    shed_weight = 0.5  # x card value subtracted from the keep price
    pot_base = 40.0
    pot_per_card = 45.0
    black3_keep = -25.0

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.rules = None
        self.seat = 0
        self.num_players = 2

    def seed(self, s: int | None) -> None:
        self.rng = random.Random(s)

    def reset(self, seat: int, num_players: int, rules) -> None:
        self.seat = seat
        self.num_players = num_players
        r = _rules_of(rules)
        self.rules = r
        decks = r.num_decks
        for players, n in getattr(r, "num_decks_by_players", ()) or ():
            if players == num_players:
                decks = n
        jokers = r.jokers_per_deck * decks
        self.copies = [4 * decks] * NUM_NATURALS + [4 * decks, jokers, 2 * decks]
        self.take_onto_meld = bool(r.take_onto_meld)
        self.take_with_wild = bool(r.take_with_wild)
        self.frozen_unopened = bool(r.frozen_for_unopened)
        self.need_frozen = int(r.take_naturals_frozen)
        self.need_plain = int(r.take_naturals)
        self.clean_and_dirty = bool(r.go_out_needs_clean_and_dirty)
        self.closes = int(r.meld_closes_at or 0)
        self.max_wilds = int(r.max_wilds_per_meld)
        self.black3_penalty = int(r.black3_in_hand_penalty)
        self.black3_only_out = bool(r.black3_meld_only_going_out)
        self.go_out_bonus = int(r.go_out_bonus)
        self.clean_bonus = int(r.clean_canasta_bonus)
        self.dirty_bonus = int(r.dirty_canasta_bonus)
        self.hidden_bonus = int(r.hidden_canasta_bonus)
        self.draw_count = int(r.draw_count)
        self.on_reset()

    def on_reset(self) -> None:
        """Per-hand setup of a plan."""

    # ------------------------------------------------------------------ entry point

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.rules is None:
            self.reset(self.seat, self.num_players, "classic")
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        s = _State(_read(observation), self.num_players)
        if legal[0] <= PASS and not any(DISCARD <= a for a in legal):
            return self.draw_phase(s, legal)
        return self.meld_phase(s, legal)

    # ------------------------------------------------------------------ estimates

    def team_points(self, s: _State, k: int) -> float:
        """Melded values, canasta bonuses and red 3s of team ``k``."""
        base = _TEAM0 + k * _TEAM_STRIDE
        e = s.e
        pts = 0.0
        for slot in range(13):
            n = e[base + slot]
            if n:
                pts += n * (CARD_VALUES[slot] if slot < NUM_NATURALS else 5)
            pts += 20 * e[base + _T_TWOS + slot] + 50 * e[base + _T_JOKERS + slot]
            if slot < NUM_NATURALS:
                cc = e[base + _T_CLOSED_CLEAN + slot]
                cd = e[base + _T_CLOSED_DIRTY + slot]
                if cc or cd:
                    pts += cc * 7 * CARD_VALUES[slot] + cd * (5 * CARD_VALUES[slot] + 50)
        pts += e[base + _T_CLEAN] * self.clean_bonus + e[base + _T_DIRTY] * self.dirty_bonus
        red3 = e[base + _T_RED3]
        if red3:
            value = 100 * red3 if red3 < 4 else 200 * red3
            pts += value if e[base + _T_OPENED] else -value
        return pts

    def hand_cards(self, s: _State, team: int) -> int:
        return sum(s.player_hand(p) for p in range(s.players) if s.team_of(p) == team)

    def margin(self, s: _State, going_out: bool) -> float:
        """Own estimated hand score minus the best opponent's."""
        mine = self.team_points(s, 0)
        if going_out:
            mine += self.go_out_bonus - 8 * (self.hand_cards(s, 0) - s.hand_total)
        else:
            mine -= 8 * self.hand_cards(s, 0)
        best = -1e9
        for k in range(1, s.num_teams):
            theirs = self.team_points(s, k) - 8 * self.hand_cards(s, k)
            best = max(best, theirs)
        return mine - best

    def team_may_go_out(self, s: _State, k: int) -> bool:
        if self.clean_and_dirty:
            return s.t(k, _T_CLEAN) >= 1 and s.t(k, _T_DIRTY) >= 1
        return s.t(k, _T_CANASTAS) >= 1

    def threat(self, s: _State, cards: int) -> bool:
        """An opponent whose team may go out holds ``cards`` cards or fewer."""
        for p in range(1, s.players):
            k = s.team_of(p)
            if k != 0 and self.team_may_go_out(s, k) and s.player_hand(p) <= cards:
                return True
        return False

    # ------------------------------------------------------------------ card counting

    def danger(self, s: _State, kind: int) -> float:
        """Chance that the next player can take the pot with ``kind`` on top."""
        if kind >= NUM_NATURALS:
            return 0.0  # a wild card or a black 3 blocks the pot
        nxt_team = s.team_of(1)
        opened = bool(s.t(nxt_team, _T_OPENED))
        frozen = s.pot_frozen or s.pot_crossed or (self.frozen_unopened and not opened)
        if self.take_onto_meld and not frozen and s.meld_size(nxt_team, kind) > 0:
            return 1.0
        need = self.need_frozen if (s.pot_frozen or s.pot_crossed) else self.need_plain
        known = s.player_known(1, kind)
        e = s.e
        unseen = self.copies[kind] - s.hand[kind] - e[_HELD + kind] - e[_POT_KNOWN + kind]
        for k in range(s.num_teams):
            base = _TEAM0 + k * _TEAM_STRIDE
            unseen -= e[base + kind]
            if self.closes:
                unseen -= (
                    7 * e[base + _T_CLOSED_CLEAN + kind] + 5 * e[base + _T_CLOSED_DIRTY + kind]
                )
        pool = s.stock + e[_FACE_DOWN]
        for p in range(1, s.players):
            known_p = 0
            base = _PL0 + p * _PL_STRIDE + _PL_KNOWN
            for j in range(14):
                known_p += e[base + j]
            unseen -= e[base + kind]
            pool += max(0, s.player_hand(p) - known_p)
            if p == 1:
                h = max(0, s.player_hand(1) - known_p)
        unseen = max(0, unseen)
        short = need - known
        if short <= 0:
            prob = 1.0
        elif pool <= 0 or unseen <= 0 or h <= 0:
            prob = 0.0
        else:
            p = min(1.0, unseen / pool)
            q = 1.0 - p
            p0 = q**h
            p1 = h * p * q ** (h - 1)
            if short == 1:
                prob = 1.0 - p0
            elif short == 2:
                prob = 1.0 - p0 - p1
            else:
                prob = max(0.0, 1.0 - p0 - p1 - h * (h - 1) / 2 * p * p * q ** (h - 2))
            if short == 2 and self.take_with_wild and not frozen:
                # one natural and a wild card also take an unfrozen classic pot
                prob = prob + (1.0 - p0 - prob) * 0.6
        hist = _HIST0 + _HIST_STRIDE * 1
        if e[hist + kind] or e[hist + _H_DECLINED + kind]:
            prob *= 0.35
        if not opened:
            prob *= 0.6  # it must also reach its opening minimum
        return prob

    # ------------------------------------------------------------------ discards

    def keep_price(self, s: _State, kind: int) -> float:
        """What keeping one card of ``kind`` is worth to the plan (points)."""
        if kind == BLACK3:
            return self.black3_keep - (self.black3_penalty if self.black3_penalty > 20 else 0)
        if kind == TWO:
            return self.two_keep
        if kind == JOKER:
            return self.joker_keep
        c = s.hand[kind]
        if c >= 3:
            keep = self.triple_keep
        elif c == 2:
            keep = self.pair_keep
        else:
            keep = self.single_keep
            if s.meld_size(0, kind):
                keep += 12
        return keep - self.shed_weight * CARD_VALUES[kind]

    def pot_worth(self, s: _State) -> float:
        worth = self.pot_base + self.pot_per_card * (s.pot_size + 1)
        return worth

    def choose_discard(self, s: _State, discards: list[int]) -> int:
        worth = self.pot_worth(s)
        best, best_cost = discards[0], 1e18
        for a in discards:
            kind = a - DISCARD
            cost = self.keep_price(s, kind) + self.danger(s, kind) * worth
            if cost < best_cost:
                best, best_cost = a, cost
        return best

    # ------------------------------------------------------------------ phases

    def draw_phase(self, s: _State, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        if PASS in legal:
            # the stock is out: take only when it helps a trailing team
            if takes and self.margin(s, False) < 0:
                return self.best_take(takes)
            return PASS
        if takes:
            choice = self.choose_take(s, takes)
            if choice is not None:
                return choice
        return DRAW if DRAW in legal else legal[0]

    @staticmethod
    def best_take(takes: list[int]) -> int:
        for a in (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER):
            if a in takes:
                return a
        return takes[0]

    def choose_take(self, s: _State, takes: list[int]) -> int | None:
        raise NotImplementedError

    def meld_phase(self, s: _State, legal: list[int]) -> int:
        discards = [a for a in legal if DISCARD <= a < ADD_NATURAL]
        melds = [a for a in legal if a >= ADD_NATURAL]
        if melds:
            runs = [a for a in melds if MOVES[a].kind == MOVE_RUN]
            if runs:
                return max(runs, key=lambda a: (MOVES[a].naturals, a))
            if not s.opened:
                choice = self.opening_meld(s, melds, bool(discards))
            elif s.may_go_out and self.want_out(s):
                choice = self.going_out_meld(s, melds)
            else:
                choice = self.plan_meld(s, melds)
            if choice is not None:
                return choice
            if not discards:
                return self.going_out_meld(s, melds)
        if not discards:
            return legal[0]
        if s.may_go_out and len(discards) == 1 and s.hand_total == 1:
            return discards[0]
        return self.choose_discard(s, discards)

    # ------------------------------------------------------------------ melds

    def unmeldable(self, s: _State) -> int:
        """Cards of the hand that no meld could take this turn (a rough count)."""
        wilds = s.hand[TWO] + s.hand[JOKER]
        stuck = 0
        for kind in range(NUM_NATURALS):
            c = s.hand[kind]
            if not c or c >= 3 or s.meld_size(0, kind):
                continue
            if c == 2 and wilds:
                wilds -= 1
                continue
            stuck += c
        b3 = s.hand[BLACK3]
        if b3 and (b3 < 3 or b3 > 4 and self.black3_only_out):
            stuck += b3
        return stuck

    def meld_score_out(self, s: _State, a: int) -> float:
        """Priority of a meld move when melding everything to go out."""
        m = MOVES[a]
        slot = m.slot
        if slot == SLOT_BLACK3:
            return 100.0
        if slot == SLOT_WILD:
            return 250.0 + m.cards
        size = s.meld_size(0, slot)
        after = size + m.cards
        if m.wilds == 0:
            return 500.0 + m.cards
        if size < 7 <= after:
            return 480.0
        if m.new:
            return 300.0 - 10 * m.wilds + m.naturals
        if s.meld_wilds(0, slot):
            return 200.0 + size
        if size >= 7:
            return 100.0
        return 150.0 + size

    def going_out_meld(self, s: _State, melds: list[int]) -> int:
        return max(melds, key=lambda a: (self.meld_score_out(s, a), -a))

    def opening_meld(self, s: _State, melds: list[int], may_discard: bool) -> int | None:
        raise NotImplementedError

    def plan_meld(self, s: _State, melds: list[int]) -> int | None:
        raise NotImplementedError

    def want_out(self, s: _State) -> bool:
        raise NotImplementedError

    # a natural meld that a wild card could still ruin
    def keep_clean(self, s: _State, slot: int) -> bool:
        if slot >= NUM_NATURALS or s.meld_wilds(0, slot):
            return False
        return s.meld_size(0, slot) >= 5 or (slot == 10 and self.rules.rank_canasta_bonus)


class Sprint(_Planner):
    """The race: open early, shed, put wild cards toward the first canasta, go out first."""

    name = "sprint"
    pair_keep = 40.0
    triple_keep = 45.0
    single_keep = 5.0
    two_keep = 60.0
    joker_keep = 85.0
    shed_weight = 1.2
    race_wild_meld = 4  # wild cards onto melds of this size or more toward the first canasta
    small_pot = 3  # once the team may go out, take only pots this small (or huge)
    huge_pot = 10
    wild_take_pot = 7  # spend a wild card on a take only from this pot size
    hold_out_loss = None  # None: always out; else stay in while going out loses by more

    def choose_take(self, s: _State, takes: list[int]) -> int | None:
        natural = [a for a in takes if a in (TAKE, TAKE_ONTO_MELD)]
        if not s.opened:
            return self.best_take(takes)  # opening through the pot unfreezes it
        if not self.team_may_go_out(s, 0):
            if natural:
                return self.best_take(natural)
            if s.pot_size >= self.wild_take_pot:
                return self.best_take(takes)
            return None
        if natural and (s.pot_size <= self.small_pot or s.pot_size >= self.huge_pot):
            return self.best_take(natural)
        return None

    def opening_meld(self, s: _State, melds: list[int], may_discard: bool) -> int | None:
        # the cheapest opening: fewest wild cards, then fewest points, natural melds first
        def key(a):
            m = MOVES[a]
            return (m.wilds, m.slot == SLOT_BLACK3, -m.naturals, m.points, a)

        return min(melds, key=key)

    def want_out(self, s: _State) -> bool:
        if self.hold_out_loss is None:
            return True
        # out at once, unless going out now would hand over a big loss and nobody presses
        if self.margin(s, True) >= -self.hold_out_loss or s.stock <= 8 or self.threat(s, 6):
            return True
        return False

    def plan_meld(self, s: _State, melds: list[int]) -> int | None:
        best, best_score = None, 0.0
        no_canasta = not self.team_may_go_out(s, 0)
        for a in melds:
            m = MOVES[a]
            if m.kind != MOVE_MELD:
                continue
            if s.may_go_out and s.hand_total - m.cards < 2:
                continue
            slot = m.slot
            score = 0.0
            if slot == SLOT_BLACK3:
                score = 50.0 if not self.black3_only_out else 0.0
            elif slot == SLOT_WILD:
                score = 0.0
            else:
                size = s.meld_size(0, slot)
                after = size + m.cards
                if m.new and m.cards == 7 and self.hidden_bonus:
                    score = 900.0
                elif m.wilds == 0:
                    score = (400.0 if size < 7 <= after else 300.0) + m.cards
                elif no_canasta and not m.new:
                    if size >= self.race_wild_meld and not self.spare_clean(s, slot):
                        score = 150.0 + 10 * size
            if score > best_score:
                best, best_score = a, score
        return best

    def spare_clean(self, s: _State, slot: int) -> bool:
        """Where a clean and a dirty canasta are both needed, keep the biggest clean meld clean."""
        if not self.clean_and_dirty or s.meld_wilds(0, slot) or s.t(0, _T_CLEAN):
            return False
        size = s.meld_size(0, slot)
        for other in range(NUM_NATURALS):
            if other != slot and not s.meld_wilds(0, other) and s.meld_size(0, other) > size:
                return False
        return True


class Patient(_Planner):
    """The builder: takes pots, holds pairs, lays big groups late, goes out for bonuses."""

    name = "patient"
    pair_keep = 75.0
    triple_keep = 95.0
    single_keep = 10.0
    two_keep = 90.0
    joker_keep = 130.0
    shed_weight = 0.3
    pot_base = 60.0
    pot_per_card = 60.0
    big_group = 5  # a new natural meld goes down from this many naturals
    wild_take_pot = 4  # spend a wild card on a take from this pot size
    threat_cards = 3  # an opponent able to go out with this many cards or fewer
    seal_loss = 150  # ... unless going out would lose by more than this
    goal_solo = 2  # canastas to hold before going out without a threat, alone
    goal_team = 3  # ... and at partnership tables
    hold_extra = 3  # added to the hold limit (cards) past which triples go down

    def on_reset(self) -> None:
        # hold limit: a hand bigger than this lays its triples
        dealt = dict(self.rules.hand_size).get(self.num_players, 11)
        self.hold_limit = dealt + (1 if self.num_players <= 3 else -1) + self.hold_extra
        self.goal = self.goal_solo if self.num_players <= 3 else self.goal_team
        if self.clean_and_dirty:
            self.goal += 1
        self.stock_low = 3 * self.num_players * self.draw_count

    def choose_take(self, s: _State, takes: list[int]) -> int | None:
        natural = [a for a in takes if a in (TAKE, TAKE_ONTO_MELD)]
        if natural:
            return self.best_take(natural)
        if s.pot_size >= self.wild_take_pot:
            return self.best_take(takes)
        return None

    def opening_meld(self, s: _State, melds: list[int], may_discard: bool) -> int | None:
        # open with the biggest natural groups first; wild cards last
        def key(a):
            m = MOVES[a]
            return (m.wilds, m.slot == SLOT_BLACK3, -m.cards, a)

        return min(melds, key=key)

    def danger_close(self, s: _State) -> bool:
        return self.threat(s, self.threat_cards) or s.stock <= self.stock_low or s.stock_short

    def want_out(self, s: _State) -> bool:
        if self.danger_close(s):
            return self.margin(s, True) > -self.seal_loss or s.stock_short
        if s.t(0, _T_CANASTAS) >= self.goal:
            return self.margin(s, True) > 0
        return False

    def plan_meld(self, s: _State, melds: list[int]) -> int | None:
        best, best_score = None, 0.0
        urgent = self.danger_close(s)
        wilds_in_hand = s.hand[TWO] + s.hand[JOKER]
        have_canasta = s.t(0, _T_CANASTAS) > 0
        need_dirty = self.clean_and_dirty and s.t(0, _T_DIRTY) == 0
        for a in melds:
            m = MOVES[a]
            if m.kind != MOVE_MELD:
                continue
            if s.may_go_out and s.hand_total - m.cards < 2:
                continue
            slot = m.slot
            score = 0.0
            if slot == SLOT_BLACK3:
                score = 400.0 if not self.black3_only_out else 0.0
            elif slot == SLOT_WILD:
                score = 700.0 + m.cards  # wild-only canastas pay thousands
            else:
                size = s.meld_size(0, slot)
                after = size + m.cards
                if m.new and m.cards == 7 and self.hidden_bonus:
                    score = 900.0
                elif m.wilds == 0:
                    if size < 7 <= after:
                        score = 600.0
                    elif not m.new:
                        score = 300.0
                    elif m.naturals >= self.big_group or urgent or s.hand_total > self.hold_limit:
                        score = 250.0 + m.cards
                elif not m.new:
                    # a wild card only where the wild cards in hand finish a canasta now
                    room = self.max_wilds - s.meld_wilds(0, slot)
                    finish = size + min(wilds_in_hand, max(0, room)) >= 7
                    if size < 7 and finish:
                        clean_hope = self.keep_clean(s, slot) and (have_canasta and not need_dirty)
                        if not clean_hope or urgent:
                            score = 350.0 + size
            if score > best_score:
                best, best_score = a, score
        return best
