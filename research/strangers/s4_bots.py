"""Two Canasta bots written from the public documentation alone (the fourth writer).

``Scorer`` and ``WildBanker`` play every preset (classic, canastone, spanish, italian) at
every player count. They read the 686-float observation through the documented layout
(``canasta_env.observation.LAYOUT``: one vectorised rescale, then list slices), interpret
each legal id with the move table ``canasta_env.actions.MOVES`` and rank the legal ids in
one pass: no search, no copy of a game, about 40 microseconds a decision. The mask keeps
them legal; the plans only choose among the ids it allows. Neither draws a random number,
so the same observations always give the same actions (``seed`` exists for the contract).

Shared machinery
================

*Card counting.* The deck's copies of each kind (from the table's rules) minus what the
seat can see: its own hand, every meld on the table (finished Spanish canastas too), the
face-up pot, and the cards every player saw go into another hand with a pot (G-8). What
is left is the *unseen pool*: the stock, the face-down pot and the unknown part of the
other hands. An opponent's hand is modelled as its known cards plus a draw from that pool
(the binomial approximation of the hypergeometric draw).

*Danger of a discard.* The chance that the next player, always an opponent, can take the
pot with a natural on top: certain when it fits one of their melds on a pot that is not
frozen (C-11) or when they are known to hold the naturals; otherwise the chance that their
unknown cards hold the naturals a take needs (two, or three on a frozen Italian or crossed
Spanish pot; one natural and a wild card where C-11 allows it), lowered when their team
has not opened, when they discarded that kind and when they drew while it lay on top of
the pot. Black 3s and wild cards block the next player. The price of a dangerous discard
grows with the pot it would hand over. (Measured over 300 hands: predicted chances of
0.1-0.2, 0.2-0.3, 0.3-0.4 came true 21%, 34% and 46% of the time.)

*The hand's score.* For every team: card points of its melds, canasta bonuses, red 3s
with the sign of the rules, minus the cards its players hold (the seat's own exactly,
others' known cards exactly and unknown ones at the unseen pool's mean value). From it,
the margin if the hand stopped now and the margin if the seat went out now (going-out
bonus, its own hand melded, its partners' cards still counted against the team). Over 770
of its going-outs (classic, 4 players), grouped by why it went out, the mean predicted
margin was within 15 points of the mean real one in every group.

*Going out.* A quick check says whether the hand can be melded this turn: every natural
kind fits a meld or makes one, pairs get a wild card each, spare wild cards fit the melds'
limits (C-5, I-5; melds that close at seven, S-7), the required canasta is on the table or
can be finished now, and where the rules want a final discard (S-15, I-11) one card is
kept back for it. In going-out mode the bot lays the canasta it needs first, then
naturals, then new melds that need wild cards, then the remaining wild cards, so that the
greedy steps keep the way out open.

*Holding cards.* Measured against the house bots, a hand kept large wins: pairs and
triples in hand take pots (and a frozen pot needs them), cards on the table only score.
Both bots therefore add naturals to their melds but keep new melds in hand until their
plan says otherwise, and their discards guard pairs and triples first.

Scorer: the accountant
======================

Reads the score and the stock every turn and picks between racing and building.

* Racing: it goes out as soon as going out now wins the hand (its estimate, going out
  counted), when an opponent team that can go out is down to a few cards and going out
  loses by little, or when the stock runs short and going out beats staying. While racing
  without a way out this turn it lays its melds down to shrink the hand, and once it has
  its canasta it lets small pots go rather than fill its hand.
* Building: behind, with stock to spare and nobody about to go out, it builds canastas:
  naturals onto its melds at once, new melds only from a large hand (it keeps a dozen
  cards to take the pot with; 25 where draws bring two cards), wild cards only to finish
  a canasta in the same turn, and then only onto a meld that is already dirty, or while
  it still needs a (dirty) canasta, or when a clean canasta is out of reach (too few
  natural copies unseen, or the stock short). Otherwise a clean meld waits for its
  naturals while enough copies remain unseen.
* Opens as soon as the mask allows, with the fewest wild cards (2s before jokers).
* Takes the pot whenever it may with naturals or onto a meld, spends a wild card on a take
  only for a pot worth more than the wild card, and with the stock out passes when it
  leads.
* Discards the card of least cost: what keeping it is worth (a pair or triple most, a
  singleton by its chance to pair from the unseen copies, less its penalty if caught)
  plus the danger times the pot it would give away; black 3s first while they block.

WildBanker: the hoarder
=======================

Plays for canasta bonuses with wild cards in reserve and shows little.

* Hoards wild cards: a wild card is its dearest card to keep; it never opens with one
  unless the turn must end by opening, and spends one on a take only for a pot of seven
  cards or more.
* Quick dirty canastas, then natural ones: wild cards leave the hand in bulk, to finish a
  canasta in the same turn (a meld and the wild cards it holds reaching seven, or a new
  meld of seven), while its team still needs a (dirty) canasta to go out, or onto a meld
  that is already dirty; otherwise clean melds get no wild card. Where the rules have wild-only
  melds (spanish, italian) the hoard starts one from six wild cards.
* Melds late and in big groups: it adds naturals to its melds but keeps new melds in hand,
  out of the opponents' sight and ready to take a frozen pot with, until it holds five of
  the rank (seven where draws bring two cards: a Spanish meld of seven from the hand is a
  hidden canasta worth 1000), until its hand grows large, or until an opponent comes
  close to going out or the stock runs short.
* Takes the pot whenever it is worth more than it costs: the pot's cards are valued by what
  they add to its melds, pairs and wild reserve (a wild card in the pot counts high).
* Holds back from going out until going out gives its team a lead of 30 points or more,
  or the stock is short; then it melds everything, wild cards included. It does not race
  an opponent who is about to go out.
* Its discards follow the same danger count as the Scorer's, with dearer pairs and a
  heavier price on feeding the pot while behind.
"""

from __future__ import annotations

import random

import numpy as np

from canasta_env.actions import (
    ADD_NATURAL,
    DISCARD,
    DRAW,
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
from canasta_env.observation import LAYOUT, SCALES

__all__ = ["Scorer", "WildBanker"]

# ------------------------------------------------------------------------ the layout

_INV = 1.0 / np.asarray(SCALES, dtype=np.float64)


def _start(name: str, copy: int | None = None) -> int:
    return (LAYOUT.span(name) if copy is None else LAYOUT.span(name, copy)).start


_HAND = _start("hand")
_HELD = _start("held")
_POT_TOP = _start("pot_top")
_POT_TOP_VALUES = LAYOUT.span("pot_top").field.values
_POT_SIZE = _start("pot_size")
_POT_FACE_DOWN = _start("pot_face_down")
_POT_FROZEN = _start("pot_frozen")
_POT_CROSSED = _start("pot_crossed")
_POT_KNOWN = _start("pot_known")
_STILL_NEEDED = _start("still_needed")
_MAY_GO_OUT = _start("may_go_out")
_STOCK = _start("stock")
_STOCK_SHORT = _start("stock_short")
_DRAW_COUNT = _start("draw_count")
_MELDS_CLOSE = _start("melds_close_at_7")

# teams: copy k starts at _T0 + k * _T_STRIDE; fields are offsets from a copy's start
_T0 = _start("teams.naturals", 0)
_T_STRIDE = _start("teams.naturals", 1) - _T0
_T_TWOS = _start("teams.twos", 0) - _T0
_T_JOKERS = _start("teams.jokers", 0) - _T0
_T_CLOSED_CLEAN = _start("teams.closed_clean", 0) - _T0
_T_CLOSED_DIRTY = _start("teams.closed_dirty", 0) - _T0
_T_RED3 = _start("teams.red3", 0) - _T0
_T_OPENED = _start("teams.opened", 0) - _T0
_T_CANASTAS = _start("teams.canastas", 0) - _T0
_T_CLEAN = _start("teams.clean", 0) - _T0
_T_DIRTY = _start("teams.dirty", 0) - _T0

# seats, from the viewer (copy 1 is the next player)
_P0 = _start("players.hand_size", 0)
_P_STRIDE = _start("players.hand_size", 1) - _P0
_P_KNOWN = _start("players.known", 0) - _P0
_P_MATE = _start("players.teammate", 0) - _P0

# the public history of each seat
_H0 = _start("history.discarded", 0)
_H_STRIDE = _start("history.discarded", 1) - _H0
_H_DECLINED = _start("history.declined", 0) - _H0

# ------------------------------------------------------------------------ the moves

_KIND = tuple(m.kind for m in MOVES)
_SLOT = tuple(m.slot for m in MOVES)
_NAT = tuple(m.naturals for m in MOVES)
_TWOS = tuple(m.twos for m in MOVES)
_JOKERS = tuple(m.jokers for m in MOVES)
_WILDS = tuple(m.twos + m.jokers for m in MOVES)
_CARDS = tuple(m.naturals + m.twos + m.jokers for m in MOVES)
_NEW = tuple(m.new for m in MOVES)
_POINTS = tuple(m.points for m in MOVES)

_NATURALS = range(11)  # natural kinds, which are also their meld slots
_HOLDABLE = range(14)
_TAKES = (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER)  # cheapest first
_RED3 = 14  # the red 3's entry in pot_known


def _rule(rules, name: str, default):
    """A field of the table's rules (``None`` rules: the classic default)."""
    value = getattr(rules, name, default)
    return default if value is None else value


class _Table:
    """What one observation says, read once per decision, with the card count."""

    __slots__ = (
        "e",
        "hand",
        "hand_size",
        "pot_size",
        "face_down",
        "frozen",
        "crossed",
        "pot_known",
        "still_needed",
        "may_go_out",
        "stock",
        "stock_short",
        "draw_count",
        "closes",
        "team_base",
        "player_base",
        "hist_base",
        "nteams",
        "nplayers",
        "team_of",
        "unseen",
        "pool",
        "pool_mean",
    )

    def __init__(self, obs: np.ndarray, nplayers: int, nteams: int, totals: list[int]):
        e = np.rint(obs * _INV).astype(np.int64).tolist()
        self.e = e
        hand = e[_HAND : _HAND + 14]
        self.hand = hand
        self.hand_size = sum(hand)
        self.pot_size = e[_POT_SIZE]
        self.face_down = e[_POT_FACE_DOWN]
        self.frozen = e[_POT_FROZEN] > 0
        self.crossed = e[_POT_CROSSED] > 0
        self.pot_known = e[_POT_KNOWN : _POT_KNOWN + 15]
        self.still_needed = e[_STILL_NEEDED]
        self.may_go_out = e[_MAY_GO_OUT] > 0
        self.stock = e[_STOCK]
        self.stock_short = e[_STOCK_SHORT] > 0
        self.draw_count = max(1, e[_DRAW_COUNT])
        self.closes = e[_MELDS_CLOSE] > 0
        self.nteams = nteams
        self.nplayers = nplayers
        self.team_base = [_T0 + _T_STRIDE * t for t in range(nteams)]
        self.player_base = [_P0 + _P_STRIDE * p for p in range(nplayers)]
        self.hist_base = [_H0 + _H_STRIDE * p for p in range(nplayers)]
        # the team of each seat, counted from the viewer (G-3)
        if nteams == nplayers:
            self.team_of = list(range(nplayers))
        else:
            self.team_of = [0 if e[b + _P_MATE] else 1 for b in self.player_base]
        # card counting: what nobody has shown is in the unseen pool
        unseen = list(totals)
        held = e[_HELD : _HELD + 14]
        pot = self.pot_known
        for k in _HOLDABLE:
            unseen[k] -= hand[k] + held[k] + pot[k]
        for b in self.team_base:
            nat = e[b : b + 13]
            clean = e[b + _T_CLOSED_CLEAN : b + _T_CLOSED_CLEAN + 13]
            dirty = e[b + _T_CLOSED_DIRTY : b + _T_CLOSED_DIRTY + 13]
            for s in _NATURALS:
                if nat[s] or clean[s] or dirty[s]:
                    # a finished dirty canasta: about five naturals, a 2 and a joker
                    unseen[s] -= nat[s] + 7 * clean[s] + 5 * dirty[s]
            unseen[BLACK3] -= nat[SLOT_BLACK3] + 7 * clean[SLOT_BLACK3]
            finished_dirty = sum(dirty)
            unseen[TWO] -= sum(e[b + _T_TWOS : b + _T_TWOS + 13]) + finished_dirty
            unseen[JOKER] -= sum(e[b + _T_JOKERS : b + _T_JOKERS + 13]) + finished_dirty
        for p in range(1, nplayers):
            base = self.player_base[p] + _P_KNOWN
            known = e[base : base + 14]
            if any(known):
                for k in _HOLDABLE:
                    unseen[k] -= known[k]
        pool = 0
        value = 0
        for k in _HOLDABLE:
            if unseen[k] < 0:
                unseen[k] = 0
            pool += unseen[k]
            value += unseen[k] * CARD_VALUES[k]
        self.unseen = unseen
        self.pool = pool
        self.pool_mean = value / pool if pool else 8.0

    # teams (0 is the viewer's)
    def naturals(self, t: int) -> list[int]:
        """Naturals in the team's open meld of each slot (black 3s in the B3 slot)."""
        b = self.team_base[t]
        return self.e[b : b + 13]

    def wilds(self, t: int) -> list[int]:
        """Wild cards in the team's open meld of each slot."""
        b = self.team_base[t]
        e = self.e
        return [e[b + _T_TWOS + s] + e[b + _T_JOKERS + s] for s in range(13)]

    def opened(self, t: int) -> bool:
        return self.e[self.team_base[t] + _T_OPENED] > 0

    def canastas(self, t: int) -> tuple[int, int, int]:
        """(canastas, clean ones, dirty ones) of the team."""
        b = self.team_base[t]
        e = self.e
        return e[b + _T_CANASTAS], e[b + _T_CLEAN], e[b + _T_DIRTY]

    # seats (0 is the viewer, 1 the next to play)
    def hand_of(self, p: int) -> int:
        return self.e[self.player_base[p]]

    def known_of(self, p: int) -> list[int]:
        base = self.player_base[p] + _P_KNOWN
        return self.e[base : base + 14]

    def discarded_by(self, p: int) -> list[int]:
        b = self.hist_base[p]
        return self.e[b : b + 14]

    def declined_by(self, p: int) -> list[int]:
        b = self.hist_base[p] + _H_DECLINED
        return self.e[b : b + 14]


class _Plan:
    """What the bot decided about its turn before it ranks the moves."""

    __slots__ = (
        "out",  # go out this turn: meld everything
        "prepare",  # lay melds down to shrink the hand
        "late",  # an opponent is about to go out, or the stock is short
        "threat",  # 0, 1, 2: how close an opponent team is to going out
        "margin_now",  # estimated margin if the hand ended now
        "margin_out",  # estimated margin if the seat went out now
        "need_dirty",  # the team still needs a (dirty) canasta to go out
        "has_goal",  # the team meets the going-out condition now
        "feasible",  # the hand can be melded out this turn
        "target",  # the slot whose canasta the going out must finish, or -1
        "reserve",  # the kind kept back for the final discard, or -1
    )


class _CanastaBot:
    """The shared machinery of both plans: the rules, the card count, the estimates,
    the going-out check and the discard's price."""

    name = "s4_bots"

    # what keeping a card is worth, in points of play
    WILD_KEEP = {TWO: 100.0, JOKER: 130.0}
    PAIR_VALUE = 38.0
    TRIPLE_VALUE = 80.0
    SINGLE_BASE = 3.0
    SINGLE_PER_UNSEEN = 1.5  # a singleton, for each unseen copy that could pair it
    VALUE_WEIGHT = 0.3  # a card's penalty if caught, share counted against keeping it
    MELDABLE_KEEP = 6.0  # a natural that fits the team's open meld
    # what handing the pot over costs: GIFT_BASE + GIFT_CARD per card, times the danger
    GIFT_BASE = 0.0
    GIFT_CARD = 20.0
    BEHIND_FACTOR = 1.3  # dearer while the team trails
    B3_KEEP = -4.0  # a black 3 in hand (less its penalty): a blocker for later
    B3_BLOCK = 0.1  # share of that price a blocking black 3 saves
    WILD_FREEZE = 0.05  # and a blocking (freezing) wild card
    SEEN_DISCARDED = 0.45  # the take chance of a kind the next player discarded
    SEEN_DECLINED = 0.3  # or let go on top of the pot

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.reset(0, 4, None)

    def seed(self, s: int | None) -> None:
        """The bots draw no random numbers; the generator is kept for the contract."""
        self.rng = random.Random(s)

    # ------------------------------------------------------------------ the rules
    def reset(self, seat: int, num_players: int, rules) -> None:
        if isinstance(rules, str):
            from canasta_env.rules import make_rules

            rules = make_rules(rules)
        self.seat = seat
        self.nplayers = num_players
        self.nteams = num_players if num_players <= 3 else 2
        decks = _rule(rules, "num_decks", 2)
        for players, n in _rule(rules, "num_decks_by_players", ()) or ():
            if players == num_players:
                decks = n
        self.totals = deck_counts(decks, _rule(rules, "jokers_per_deck", 2))[:14]
        self.long_hands = int(_rule(rules, "draw_count", 1)) >= 2
        self.take_with_wild = bool(_rule(rules, "take_with_wild", True))
        self.take_onto_meld = bool(_rule(rules, "take_onto_meld", True))
        self.take_nat = int(_rule(rules, "take_naturals", 2))
        self.take_nat_frozen = int(_rule(rules, "take_naturals_frozen", 2))
        self.frozen_for_unopened = bool(_rule(rules, "frozen_for_unopened", True))
        self.max_wilds = int(_rule(rules, "max_wilds_per_meld", 3))
        self.nat_excess = int(_rule(rules, "min_natural_excess", 0))
        self.canasta = int(_rule(rules, "canasta_size", 7))
        self.clean_bonus = int(_rule(rules, "clean_canasta_bonus", 500))
        self.dirty_bonus = int(_rule(rules, "dirty_canasta_bonus", 300))
        self.hidden_bonus = int(_rule(rules, "hidden_canasta_bonus", 0))
        self.out_bonus = int(_rule(rules, "go_out_bonus", 100))
        self.need_both = bool(_rule(rules, "go_out_needs_clean_and_dirty", False))
        self.out_discard = bool(_rule(rules, "go_out_needs_discard", False))
        self.b3_melds = bool(_rule(rules, "black3_melds", True))
        self.b3_any_time = self.b3_melds and not bool(
            _rule(rules, "black3_meld_only_going_out", True)
        )
        self.wild_melds = bool(_rule(rules, "wild_melds", False))
        self.wild_start = int(_rule(rules, "wild_meld_min_start", 3))
        self.minus_without_canasta = bool(_rule(rules, "melds_minus_without_canasta", False))
        rank_bonus = _rule(rules, "rank_canasta_bonus", ()) or ()
        self.ace_clean = len(rank_bonus) >= 3 and rank_bonus[0] == 10  # I-12
        self.red3_scores = tuple(_rule(rules, "red3_scores", ())) or (0, 100, 200, 300, 800)
        self.red3_extra = int(_rule(rules, "red3_extra_each", 200))
        self.red3_sign = tuple(_rule(rules, "red3_sign", ())) or (-1, 1, 1, 1, 1)
        self.unopened_factor = int(_rule(rules, "unopened_hand_penalty_factor", 1))
        self.card_value = list(CARD_VALUES[:14])
        self.card_value[BLACK3] = int(_rule(rules, "black3_in_hand_penalty", 5))

    # ------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        v = _Table(observation, self.nplayers, self.nteams, self.totals)
        if legal[-1] <= PASS:
            return self.draw_phase(v, legal)
        return self.meld_phase(v, legal)

    def draw_phase(self, v: _Table, legal: list[int]) -> int:  # pragma: no cover
        raise NotImplementedError

    def meld_score(self, v: _Table, a: int, plan: _Plan, nat, wil) -> float:  # pragma: no cover
        raise NotImplementedError

    def decide(self, v: _Table, plan: _Plan) -> None:  # pragma: no cover
        raise NotImplementedError

    def meld_phase(self, v: _Table, legal: list[int]) -> int:
        """The best meld while one scores above 0 (or no discard is allowed), else a discard."""
        discards = [a - DISCARD for a in legal if DISCARD <= a < ADD_NATURAL]
        melds = [a for a in legal if a >= ADD_NATURAL]
        plan = self.make_plan(v)
        if melds:
            nat = v.naturals(0)
            wil = v.wilds(0)
            best, best_score = melds[0], None
            for a in melds:
                score = self.meld_score(v, a, plan, nat, wil)
                if best_score is None or score > best_score:
                    best, best_score = a, score
            if best_score > 0 or not discards:
                return best
        return DISCARD + self.choose_discard(v, discards, plan)

    # ------------------------------------------------------------------ estimates
    def red3_points(self, v: _Table, t: int) -> float:
        n = v.e[v.team_base[t] + _T_RED3]
        if not n:
            return 0.0
        table = self.red3_scores
        points = table[n] if n < len(table) else table[-1] + self.red3_extra * (n - len(table) + 1)
        count, clean, dirty = v.canastas(t)
        sign = self.red3_sign
        if self.need_both and len(sign) >= 5:
            # by the canastas the team holds (I-15; S-13 reads the same way)
            if clean and dirty:
                s = sign[4]
            elif dirty:
                s = sign[3]
            elif clean:
                s = sign[2]
            else:
                s = sign[0]
        elif self.minus_without_canasta or sign[1] < 0:
            s = 1 if count else -1
        else:
            s = 1 if v.opened(t) else -1  # C-17: against a team that melded nothing
        return s * points

    def table_points(self, v: _Table, t: int) -> float:
        """Card points of the team's melds, its canasta bonuses and red 3s."""
        e = v.e
        b = v.team_base[t]
        points = 0.0
        for s in _NATURALS:
            n = e[b + s]
            if n:
                points += n * CARD_VALUES[s]
            finished = e[b + _T_CLOSED_CLEAN + s] + e[b + _T_CLOSED_DIRTY + s]
            if finished:
                points += finished * 7 * CARD_VALUES[s]
        points += 5 * e[b + SLOT_BLACK3]
        points += 20 * sum(e[b + _T_TWOS : b + _T_TWOS + 13])
        points += 50 * sum(e[b + _T_JOKERS : b + _T_JOKERS + 13])
        count, clean, dirty = e[b + _T_CANASTAS], e[b + _T_CLEAN], e[b + _T_DIRTY]
        if self.minus_without_canasta and not count:
            points = -points  # S-14
        points += clean * self.clean_bonus + dirty * self.dirty_bonus
        return points + self.red3_points(v, t)

    def hand_penalty(self, v: _Table, p: int) -> float:
        """The card points seat ``p`` is expected to hold (the viewer's exactly)."""
        value = self.card_value
        if p == 0:
            hand = v.hand
            return float(sum(hand[k] * value[k] for k in _HOLDABLE))
        known = v.known_of(p)
        unknown = max(0, v.hand_of(p) - sum(known))
        return sum(known[k] * value[k] for k in _HOLDABLE) + unknown * v.pool_mean

    def margins(self, v: _Table) -> tuple[float, float]:
        """(the margin if the hand ended now, the margin if the viewer went out now)."""
        nt = v.nteams
        held = [0.0] * nt
        for p in range(v.nplayers):
            held[v.team_of[p]] += self.hand_penalty(v, p)
        for t in range(nt):
            if self.unopened_factor > 1 and not v.opened(t):
                held[t] *= self.unopened_factor  # I-14
        scores = [self.table_points(v, t) for t in range(nt)]
        best_other = max(scores[t] - held[t] for t in range(1, nt))
        mine = self.hand_penalty(v, 0)
        partners = held[0] - mine * (self.unopened_factor if not v.opened(0) else 1)
        now = scores[0] - held[0] - best_other
        # going out melds the hand (most of it scores) but the partners keep theirs
        out = scores[0] + self.out_bonus + 0.8 * mine - partners - best_other
        return now, out

    def threat(self, v: _Table) -> int:
        """0: no opponent near going out; 1: one may go out soon; 2: very soon."""
        level = 0
        for t in range(1, v.nteams):
            count, clean, dirty = v.canastas(t)
            goal = (clean >= 1 and dirty >= 1) if self.need_both else count >= 1
            smallest = min(v.hand_of(p) for p in range(1, v.nplayers) if v.team_of[p] == t)
            if goal:
                if smallest <= 3 + v.draw_count:
                    level = max(level, 2)
                elif smallest <= 7 + v.draw_count:
                    level = max(level, 1)
            elif smallest <= 3 + v.draw_count and (count >= 1 or not self.need_both):
                # one meld of five or more away from the goal, with few cards left
                nat = v.naturals(t)
                wil = v.wilds(t)
                if max(nat[s] + wil[s] for s in _NATURALS) >= 5:
                    level = max(level, 1)
        return level

    def stock_low(self, v: _Table) -> bool:
        """About two rounds of draws left, or fewer."""
        return v.stock_short or v.stock <= self.nplayers * v.draw_count * 2

    def goal_state(self, v: _Table) -> tuple[bool, bool]:
        """(the team's canastas let it go out, it still needs a dirty canasta)."""
        count, clean, dirty = v.canastas(0)
        if self.need_both:
            return clean >= 1 and dirty >= 1, dirty < 1
        return count >= 1, count < 1

    # ------------------------------------------------------------------ going out
    def out_route(self, v: _Table, nat: list[int], wil: list[int], has_goal: bool):
        """Can the whole hand be melded this turn (but one card to discard)?

        A quick estimate that returns ``(feasible, target, reserve)``: ``target`` is the
        slot whose canasta must be finished on the way out (-1 when the team meets the
        going-out condition already), ``reserve`` the kind kept back for the final discard
        where the rules want one (S-15, I-11), else -1.
        """
        hand = v.hand
        wild = hand[TWO] + hand[JOKER]
        closes = v.closes
        size7 = self.canasta
        left = []  # cards that cannot be melded
        pairs = []  # ranks held as a pair with no meld: a wild card each
        spare = []  # kinds with a copy no meld needs (one can be the final discard)
        size_after = [0] * 11  # each rank's meld once the hand's naturals are on it
        naturals_after = [0] * 11
        for k in _NATURALS:
            c = hand[k]
            size = nat[k] + wil[k]
            if nat[k] and not (closes and size >= size7):
                put = min(c, size7 - size) if closes else c
                size_after[k] = size + put
                naturals_after[k] = nat[k] + put
                c -= put
                if put:
                    spare.append(k)
            if not c:
                continue
            # a new meld of the rank (after a finished Spanish canasta, a second one)
            if c >= 3:
                if not size_after[k]:
                    size_after[k] = naturals_after[k] = c
                if c >= 4:
                    spare.append(k)
            elif c == 2 and self.nat_excess <= 1:
                pairs.append(k)
                if not size_after[k]:
                    size_after[k] = naturals_after[k] = 2
            else:
                left.extend([k] * c)
        b3 = hand[BLACK3]
        if b3:
            if nat[SLOT_BLACK3] and self.b3_any_time:
                spare.append(BLACK3)
            elif not (self.b3_melds and b3 >= 3):
                left.extend([BLACK3] * b3)
        if len(left) > 1:
            return False, -1, -1
        target = -1
        canasta_wilds = 0
        if not has_goal:
            if self.need_both:
                return False, -1, -1
            best = None  # the meld nearest to a canasta, in wild cards
            for k in _NATURALS:
                size = size_after[k]
                if size < 2:
                    continue
                cap = max(0, min(self.max_wilds, naturals_after[k] - self.nat_excess) - wil[k])
                short = max(0, size7 - size)
                if short <= cap and (best is None or short < best[0]):
                    best = (short, k)
            if best is None:
                return False, -1, -1
            canasta_wilds, target = best
            if target in pairs:
                pairs.remove(target)
                canasta_wilds = max(canasta_wilds, 1)
        need = len(pairs) + canasta_wilds
        if need > wild:
            return False, target, -1
        extra = wild - need
        if extra > 0:
            room = 0  # wild cards the melds can still take
            for k in _NATURALS:
                size = size_after[k]
                if not size:
                    continue
                on = wil[k] if nat[k] else 0
                used = on + (k in pairs) + (canasta_wilds if k == target else 0)
                cap = min(self.max_wilds, naturals_after[k] - self.nat_excess) - used
                if closes:
                    cap = min(cap, size7 - size - (used - on))
                if cap > 0:
                    room += cap
            if self.wild_melds and (wil[SLOT_WILD] or extra >= self.wild_start):
                room += extra
            if extra > room + (0 if left else 1):
                return False, target, -1
            if extra > room:
                left.append(JOKER if hand[JOKER] else TWO)
        reserve = -1
        if self.out_discard:
            if left:
                reserve = left[0]
            elif spare:
                reserve = spare[0]
            elif extra > 0:
                reserve = TWO if hand[TWO] else JOKER
            else:
                return False, target, -1
        return True, target, reserve

    def make_plan(self, v: _Table) -> _Plan:
        plan = _Plan()
        plan.margin_now, plan.margin_out = self.margins(v)
        plan.threat = self.threat(v)
        plan.need_dirty = self.goal_state(v)[1]
        plan.has_goal = v.may_go_out
        if v.opened(0):
            route = self.out_route(v, v.naturals(0), v.wilds(0), plan.has_goal)
            plan.feasible, plan.target, plan.reserve = route
        else:
            plan.feasible, plan.target, plan.reserve = False, -1, -1
        plan.late = plan.threat >= 2 or self.stock_low(v)
        plan.out = False
        plan.prepare = False
        self.decide(v, plan)
        return plan

    def out_score(self, v: _Table, a: int, plan: _Plan, nat: list[int], wil: list[int]) -> float:
        """Going-out mode: the needed canasta, naturals, melds needing wild cards, wild cards."""
        if _KIND[a] == MOVE_RUN:
            return 900.0
        slot = _SLOT[a]
        wilds = _WILDS[a]
        naturals = _NAT[a]
        reserve = plan.reserve
        if reserve >= 0:
            # never lay the last copy of the card kept for the final discard
            hand = v.hand
            if reserve == TWO and _TWOS[a] and hand[TWO] - _TWOS[a] < 1:
                return -900.0
            if reserve == JOKER and _JOKERS[a] and hand[JOKER] - _JOKERS[a] < 1:
                return -900.0
            kind = BLACK3 if slot == SLOT_BLACK3 else slot
            if reserve == kind and naturals and hand[reserve] - naturals < 1:
                return -900.0
        if slot == SLOT_BLACK3:
            return 700.0
        if slot == plan.target:
            return 800.0 + 10 * naturals + wilds
        if not wilds:
            return 600.0 + naturals
        if _NEW[a] and slot != SLOT_WILD:
            # a pair (or more) that needs wild cards: the fewest, 2s before jokers
            return 500.0 + naturals * 3 - wilds * 4 - _JOKERS[a]
        size = nat[slot] + wil[slot]
        bonus = 80.0 if plan.need_dirty and size < self.canasta <= size + wilds else 0.0
        return 300.0 + bonus + size - _JOKERS[a]

    def completes_with_wilds(self, v: _Table, slot: int, nat: list[int], wil: list[int]) -> int:
        """Wild cards needed to finish meld ``slot`` this turn with the hand's naturals and
        wild cards (0 when the hand cannot finish it)."""
        size = nat[slot] + wil[slot]
        if size >= self.canasta:
            return 0
        naturals = nat[slot] + v.hand[slot]
        cap = max(0, min(self.max_wilds, naturals - self.nat_excess) - wil[slot])
        held = min(v.hand[TWO] + v.hand[JOKER], cap)
        if size + v.hand[slot] + held >= self.canasta:
            return max(1, self.canasta - size - v.hand[slot])
        return 0

    # ------------------------------------------------------------------ discards
    def take_chance(self, v: _Table, k: int) -> float:
        """The chance that the next player can take the pot with a natural ``k`` on top."""
        their = v.team_of[1]
        opened = v.opened(their)
        wild_in_pot = v.frozen or v.crossed
        frozen = wild_in_pot or (self.frozen_for_unopened and not opened)
        if self.take_onto_meld and not frozen:
            size = v.naturals(their)[k]
            if size and not (v.closes and size + v.wilds(their)[k] >= self.canasta):
                return 1.0
        need = self.take_nat_frozen if wild_in_pot else self.take_nat
        known = v.known_of(1)
        have = known[k]
        if have >= need:
            return 1.0
        unknown = max(0, v.hand_of(1) - sum(known))
        pool = v.pool
        copies = v.unseen[k]
        if pool <= 0 or unknown <= 0 or copies <= 0:
            chance = 0.0
            one_short = 1.0 if have == need - 1 else 0.0
        else:
            q = min(copies / pool, 0.999)
            miss = 1.0 - q
            p0 = miss**unknown
            p1 = unknown * q * miss ** (unknown - 1)
            short = need - have
            if short <= 1:
                chance, one_short = 1.0 - p0, 0.0
            elif short == 2:
                chance, one_short = 1.0 - p0 - p1, p1
            else:
                p2 = 0.5 * unknown * (unknown - 1) * q * q * miss ** (unknown - 2)
                chance, one_short = max(0.0, 1.0 - p0 - p1 - p2), p2
            if short == 2 and self.take_with_wild and not frozen:
                # one natural and a wild card (C-11)
                wq = min((v.unseen[TWO] + v.unseen[JOKER]) / pool, 0.999)
                has_wild = 1.0 - (1.0 - wq) ** max(0, unknown - 1)
                if known[TWO] + known[JOKER]:
                    has_wild = 1.0
                chance += one_short * has_wild * 0.8
        if not opened:
            chance *= 0.45  # they must reach their minimum too
        if v.discarded_by(1)[k]:
            chance *= self.SEEN_DISCARDED
        if v.declined_by(1)[k]:
            chance *= self.SEEN_DECLINED
        return min(1.0, chance)

    def keep_value(self, v: _Table, k: int) -> float:
        """What the hand loses with one card of kind ``k``."""
        if k == TWO or k == JOKER:
            return self.WILD_KEEP[k]
        hand = v.hand
        c = hand[k]
        if k == BLACK3:
            if self.b3_any_time and c >= 3:
                return 20.0
            return self.B3_KEEP - self.card_value[BLACK3]
        penalty = self.VALUE_WEIGHT * CARD_VALUES[k]
        own = v.naturals(0)[k]
        if own and not (v.closes and own + v.wilds(0)[k] >= self.canasta):
            return self.MELDABLE_KEEP - penalty
        single = self.SINGLE_BASE + self.SINGLE_PER_UNSEEN * v.unseen[k]
        worth = (0.0, single, self.PAIR_VALUE, self.TRIPLE_VALUE)
        before = worth[c] if c <= 3 else self.TRIPLE_VALUE + 8.0 * (c - 3)
        after = worth[c - 1] if c - 1 <= 3 else self.TRIPLE_VALUE + 8.0 * (c - 4)
        return before - after - penalty

    def discard_cost(self, v: _Table, k: int, behind: bool) -> float:
        cards = v.pot_size + 1
        gift = self.GIFT_BASE + self.GIFT_CARD * cards
        if behind:
            gift *= self.BEHIND_FACTOR
        keep = self.keep_value(v, k)
        if k == BLACK3:
            return keep - self.B3_BLOCK * gift
        if k == TWO or k == JOKER:
            return keep - self.WILD_FREEZE * gift
        return keep + self.take_chance(v, k) * gift

    def choose_discard(self, v: _Table, kinds: list[int], plan: _Plan) -> int:
        if len(kinds) == 1:
            return kinds[0]
        behind = plan.margin_now < 0
        best, best_cost = kinds[0], None
        for k in kinds:
            cost = self.discard_cost(v, k, behind)
            if best_cost is None or cost < best_cost:
                best, best_cost = k, cost
        return best

    # ------------------------------------------------------------------ the pot
    def pot_worth(self, v: _Table, wild_weight: float) -> float:
        """What the pot's cards add to the viewer's hand, in points of play."""
        nat = v.naturals(0)
        hand = v.hand
        pot = v.pot_known
        worth = 0.0
        for k in _NATURALS:
            c = pot[k]
            if not c:
                continue
            if nat[k]:
                worth += c * (CARD_VALUES[k] + 8)
            elif hand[k] + c >= 3:
                worth += c * (CARD_VALUES[k] + 6)
            elif hand[k] + c == 2:
                worth += c * 5
            else:
                worth += c * 1.5
        worth += (pot[TWO] + pot[JOKER]) * wild_weight
        worth -= pot[BLACK3] * (2 + self.card_value[BLACK3] * 0.5)
        worth += pot[_RED3] * 100  # a red 3 on the pot (S-3, I-3) comes with it
        return worth + v.face_down * 3


# ===================================================================================
class Scorer(_CanastaBot):
    """All-round: reads the score and the stock; races when ahead or threatened, else
    builds canastas, clean ones first."""

    name = "s4_scorer"

    WILD_KEEP = {TWO: 100.0, JOKER: 130.0}
    KEEP_HAND = 12  # building: a new meld must leave this many cards in hand ...
    KEEP_HAND_LONG = 25  # ... where draws bring two cards
    RACE_MARGIN = 0.0  # it races once going out now would win by more than this
    RACE_THREAT = 2  # or once an opponent team is this close to going out ...
    THREAT_SLACK = 60.0  # ... and going out loses by less than this
    RACE_SKIP_POT = 4  # racing with its canasta, it lets pots this small go
    OPEN_WILD = 2.0  # an opening meld's wild card costs this many times its keep value
    WILD_TAKE = 1.1  # a take with a wild card must buy this many times the wild card

    def reset(self, seat: int, num_players: int, rules) -> None:
        super().reset(seat, num_players, rules)
        self.keep_hand = self.KEEP_HAND_LONG if self.long_hands else self.KEEP_HAND

    def decide(self, v: _Table, plan: _Plan) -> None:
        low = self.stock_low(v)
        # going out locks the result in: when it wins, when the stock is ending anyway
        # and going out loses less than staying, or against an opponent about to go out
        want = plan.margin_out > self.RACE_MARGIN or (low and plan.margin_out > plan.margin_now)
        if plan.threat >= self.RACE_THREAT and plan.margin_out > -self.THREAT_SLACK:
            want = True
        plan.out = want and plan.feasible
        # racing with no way out this turn, or the stock short: shrink the hand
        plan.prepare = not plan.out and ((want and plan.has_goal) or low)

    def draw_phase(self, v: _Table, legal: list[int]) -> int:
        takes = [a for a in _TAKES if a in legal]
        if not takes:
            if PASS in legal and DRAW not in legal:
                return PASS
            return DRAW if DRAW in legal else legal[0]
        margin_now, margin_out = self.margins(v)
        worth = self.pot_worth(v, 40.0)
        if PASS in legal:
            # the stock is out: passing ends the hand now, which suits a leader
            if margin_now > 0:
                return PASS
            return takes[0] if worth > 0 else PASS
        racing = self.goal_state(v)[0] and (margin_out > 0 or self.threat(v) >= 2)
        for a in takes:
            if a == TAKE_WITH_TWO or a == TAKE_WITH_JOKER:
                price = self.WILD_KEEP[TWO if a == TAKE_WITH_TWO else JOKER] * self.WILD_TAKE
                if racing:
                    price += 40
                if worth + 4 * v.pot_size > price:
                    return a
                continue
            if racing and v.pot_size <= self.RACE_SKIP_POT and worth < 25 and DRAW in legal:
                break  # a small pot only fills the hand it is emptying
            return a
        return DRAW if DRAW in legal else takes[0]

    def meld_score(self, v: _Table, a: int, plan: _Plan, nat, wil) -> float:
        if _KIND[a] == MOVE_RUN:
            return 1000.0  # an S-19 run (house rule): 1500 or 4000
        if plan.out:
            return self.out_score(v, a, plan, nat, wil)
        cards = _CARDS[a]
        after = v.hand_size - cards
        if after <= 1 and v.opened(0):
            return -500.0  # it would go out (or force it) against the plan
        slot = _SLOT[a]
        wilds = _WILDS[a]
        naturals = _NAT[a]
        if not v.opened(0) or v.still_needed > 0:
            # opening: the fewest wild cards (2s before jokers), then the most points
            wild_price = self.WILD_KEEP[TWO] * _TWOS[a] + self.WILD_KEEP[JOKER] * _JOKERS[a]
            return 200.0 + 0.5 * _POINTS[a] + 5 * naturals - self.OPEN_WILD * wild_price
        if slot == SLOT_BLACK3:
            return 150.0 + naturals if self.b3_any_time else -100.0
        if slot == SLOT_WILD:
            if _NEW[a]:
                # a wild-only meld only when it can soon be a canasta
                held = v.hand[TWO] + v.hand[JOKER]
                return 120.0 if held >= max(self.wild_start, 5) or cards >= self.canasta else -50.0
            return 110.0
        size = nat[slot] + wil[slot]
        if _NEW[a]:
            if cards >= self.canasta:
                return 400.0 + self.hidden_bonus / 5.0 - wilds  # a canasta at once
            if wilds == 0:
                if after < self.keep_hand and not (plan.prepare or plan.late):
                    return -10.0  # keeps a hand to take the pot with
                return 120.0 + 5 * naturals
            if plan.prepare and wilds == 1:
                return 30.0 - _JOKERS[a]
            return -60.0
        if wilds == 0:
            # a natural onto its meld
            return 150.0 + (100.0 if size + 1 == self.canasta else 0.0)
        # a wild card onto a natural meld: only to finish a canasta this turn
        if size >= self.canasta:
            return -80.0
        need = self.completes_with_wilds(v, slot, nat, wil)
        if need == 0:
            return -5.0 if plan.prepare else -60.0
        dirty = wil[slot] > 0
        if self.ace_clean and slot == 10 and not dirty:
            return -70.0  # a clean canasta of aces scores double (I-12)
        clean_hope = v.unseen[slot] >= self.canasta - size and not self.stock_low(v)
        if dirty or plan.need_dirty or not clean_hope or plan.late:
            if need > v.hand[TWO] + v.hand[JOKER]:
                return -40.0
            return 140.0 + size * 4 - _JOKERS[a] * 3
        return -30.0


# ===================================================================================
class WildBanker(_CanastaBot):
    """Hoards wild cards for quick dirty canastas, melds late and in big groups, takes
    the pot when it is worth it, and goes out only with a lead."""

    name = "s4_wildbanker"

    WILD_KEEP = {TWO: 160.0, JOKER: 200.0}
    PAIR_VALUE = 48.0
    TRIPLE_VALUE = 95.0
    BEHIND_FACTOR = 1.5
    LEAD = 30.0  # the lead (going out counted) it wants before it goes out
    BIG_GROUP = 5  # a new natural meld goes down once it holds this many of the rank ...
    BIG_HAND = 15  # ... or once the hand is this large
    BIG_HAND_LONG = 30  # (where draws bring two cards, the group waits for seven)
    WILD_TAKE_POT = 7  # a take with a wild card needs this many cards in the pot

    def reset(self, seat: int, num_players: int, rules) -> None:
        super().reset(seat, num_players, rules)
        # long hands (spanish, italian): a meld of seven from the hand may be hidden (S-10)
        self.big_group = 7 if self.long_hands else self.BIG_GROUP
        self.big_hand = self.BIG_HAND_LONG if self.long_hands else self.BIG_HAND

    def decide(self, v: _Table, plan: _Plan) -> None:
        plan.out = plan.feasible and (plan.margin_out >= self.LEAD or self.stock_low(v))
        plan.prepare = False

    def draw_phase(self, v: _Table, legal: list[int]) -> int:
        takes = [a for a in _TAKES if a in legal]
        if not takes:
            if PASS in legal and DRAW not in legal:
                return PASS
            return DRAW if DRAW in legal else legal[0]
        worth = self.pot_worth(v, 90.0)
        if PASS in legal:
            if self.margins(v)[0] >= self.LEAD * 0.5:
                return PASS
            return takes[0] if worth > 0 else PASS
        for a in takes:
            if a == TAKE_WITH_TWO or a == TAKE_WITH_JOKER:
                price = self.WILD_KEEP[TWO if a == TAKE_WITH_TWO else JOKER] * 0.5
                if v.pot_size >= self.WILD_TAKE_POT and worth + 6 * v.pot_size > price:
                    return a
                continue
            # with naturals or onto a meld a take costs only the cards' exposure
            if worth + 3 * v.pot_size > 0 or DRAW not in legal:
                return a
        return DRAW if DRAW in legal else takes[0]

    def meld_score(self, v: _Table, a: int, plan: _Plan, nat, wil) -> float:
        if _KIND[a] == MOVE_RUN:
            return 1000.0
        if plan.out:
            return self.out_score(v, a, plan, nat, wil)
        cards = _CARDS[a]
        if v.hand_size - cards <= 1 and v.opened(0):
            return -500.0
        slot = _SLOT[a]
        wilds = _WILDS[a]
        naturals = _NAT[a]
        held_wild = v.hand[TWO] + v.hand[JOKER]
        if not v.opened(0) or v.still_needed > 0:
            # opening with naturals only, unless the turn must end by opening
            return 200.0 + _POINTS[a] + 5 * naturals - 160 * wilds
        if slot == SLOT_BLACK3:
            return 150.0 + naturals if self.b3_any_time else -100.0
        if slot == SLOT_WILD:
            # a wild canasta (2000 to 5000) is the hoard's best use where the rules allow it
            if _NEW[a]:
                return 300.0 if cards >= self.canasta or held_wild >= 6 else -50.0
            return 200.0
        size = nat[slot] + wil[slot]
        if _NEW[a]:
            if cards >= self.canasta:
                return 500.0 + self.hidden_bonus / 5.0 - wilds  # a canasta in one go
            if wilds:
                return -80.0
            big = (
                naturals >= self.big_group
                or v.hand_size >= self.big_hand
                or plan.late
                or plan.threat >= 1
            )
            return 110.0 + 5 * naturals if big else -10.0
        if wilds == 0:
            return 150.0 + (100.0 if size + 1 == self.canasta else 0.0)
        # a wild card onto a natural meld: only to finish a canasta this turn
        if size >= self.canasta:
            return -90.0
        need = self.completes_with_wilds(v, slot, nat, wil)
        if need == 0 or need > held_wild:
            return -70.0
        dirty = wil[slot] > 0
        if self.ace_clean and slot == 10 and not dirty:
            return -80.0
        if dirty or plan.need_dirty or plan.late:
            return 160.0 + size * 4 - _JOKERS[a] * 3
        return -40.0
