"""Two Canasta bots with opposite plans, ``Tempo`` and ``PotTaker``, written from the public
documentation only (README, docs/agents.md, the rules, docs/observation.md, the action table).

Both play every preset (classic, canastone, spanish, italian) at every player count from the
observation and the mask alone: one read of the observation vector by the offsets that
``canasta_env.observation.LAYOUT`` declares (docs/observation.md), then a few loops over the
legal ids, read with the move table ``canasta_env.actions.MOVES``. No game object, no copies,
no search: a decision costs about 30 microseconds. Both are deterministic: they draw no random
numbers, so ``seed`` (kept for the arena's contract) changes nothing and the same seed always
gives the same actions.

    canasta arena --players 4 --agents research.strangers.s3_bots:Tempo expert --hands 200

Shared machinery
================
* **Reading.** The 686 floats become whole numbers once (``obs / SCALES``); the fields are
  read at their documented offsets: the hand, the pot (top, size, frozen or crossed, its
  face-up cards), each team's melds per slot and its canastas, red 3s, scores and opening
  state, each seat's hand size and the cards it is known to hold (G-8), each seat's discards
  and the pot tops it let go, and the turn flags (``may_go_out``, ``still_needed``, ...).
* **Card counting** (discards). The chance that the *next* player, always an opponent (G-3),
  takes the pot with a card: certain when the card fits that team's meld and the pot is not
  frozen for them (C-11), or when they are known to hold the naturals a take needs (G-8);
  otherwise a binomial draw of the card's unseen copies (the deck minus our hand, every
  meld, the face-up pot and every known card) into the unknown part of their hand, plus the
  take with one natural and a wild card where the rules have it. A kind they let go by
  drawing is much safer, one they discarded somewhat safer; an unopened team must also reach
  its minimum, which halves the chance. The binomial draw runs low against real hands
  (players keep pairs): measured take rates were about 1.5 times the predicted chance, so
  the chance is scaled by 1.5. A discard costs what the card is worth in hand (a pair, a
  set, a wild card) plus that chance times what the pot is worth to them.
* **Score estimate** (when to go out, when to end the hand at the stock's end): a team's
  public score (melded card values, the variant's canasta bonuses, red 3s with the variant's
  sign rule) minus the cards its players hold (ours exactly; the others' known cards and
  about 9 points per unknown card), plus the going-out bonus for us.
* **Openings** (G-5). For an unopened team a legal meld means the opening can be finished
  this turn (the mask is exact); both bots then open at once, laying the melds that reach the
  minimum with the fewest wild cards, naturals first (a wild-only meld where it starts a wild
  canasta, a 7-card meld where a hidden canasta opens whatever the points, S-8).
* **Going out** is a mode. When the plan wants to end the hand, the team may go out (or one
  meld of the hand completes its canasta) and a rough count says every card but one can be
  melded this turn, the bot sheds every card it can, naturals first, and discards the last.
  Outside that mode it never melds down to fewer than two cards, so it never goes out by
  accident.
* **Variant goals**, read from the rules: where wild canastas score (spanish S-9/S-10,
  italian I-6/I-12: 2000 and more) a wild-only meld is started as soon as the hand holds
  enough wild cards, every later wild card goes onto it, and no wild card is ever discarded;
  a 7-card meld laid from the hand (a spanish hidden canasta, 1000) is the best meld there
  is; a clean canasta of aces (italian, 1000) stays clean; spanish black 3s are melded or
  thrown at once (100 each in hand, S-14); italian black 3s, which never meld, go first.

Tempo: out early and cheaply
============================
The race plan. A hand ends with little on the table for either side when it ends early, and
the side that ends it takes the going-out bonus and leaves the other holding its cards.

* **Opening**: as soon as any opening is legal, from the hand or with the pot (a take that
  opens the team is always made).
* **Melding**: every natural set and every natural that fits a meld goes down at once. Wild
  cards are concentrated: until the team has the canasta it needs to go out (C-14), a wild
  card goes onto its biggest meld of four cards or more, so the first canasta comes fast;
  after that, wild cards finish canastas when the hand can finish one now. A pair is laid
  with a wild card only to go out or to open. Two exceptions, both for speed: while the pot is
  frozen a natural set stays in hand (only naturals take a frozen pot, C-10, and that pot is
  the fastest material there is), and in spanish a set waits for seven cards while the hand
  is not large (a canasta laid whole is a hidden canasta, S-10).
* **Pot**: a pot of five cards or more is always taken with naturals (the material of the
  first canasta); a smaller one only when it speeds the hand up: its top joins a meld, or its
  cards that join melds or make sets outnumber the junk it brings (cards that would each take
  a turn to throw away). A wild card is spent only on a pot of 8 cards (a 2) or 12 (a joker)
  whose cards are mostly useful. In spanish and italian, where going out needs a clean and a
  dirty canasta, every pot that naturals take is taken.
* **Going out**: as soon as the rules allow, when the estimated margin after going out is
  not worse than -60 (not badly behind).
* **Discard**: black 3s first (they block the next player), then the card least useful to
  the melds (a singleton before a pair, a wild card last: it is the racer's fuel), with
  moderate pile control: what the pot is worth to the next player counts (20 + 40 a card,
  five times less than for PotTaker), but not so much that pairs and sets are broken for it.

PotTaker: lives on the discard pile
===================================
The pile plan: the pot is where the cards, and so the canastas, come from.

* **Pot**: takes every pot its meld or a natural pair takes, spends a 2 on a pot of five
  cards or more and a joker on nine.
* **Pairs and sets**: keeps natural pairs to take the pot with: never lays a pair with a
  wild card except to go out, to open, or to make a canasta at once. While the pot is frozen
  (and always where no take onto a meld exists: spanish, italian) it keeps natural sets of up
  to four or five cards in hand too: a frozen pot is taken only with naturals from the hand
  (C-10, S-6, I-8). In spanish it holds sets until seven (hidden canastas) while the hand has
  fewer than 24 cards and the stock lasts.
* **Wild cards** go onto a natural meld only when those in hand finish a canasta now, and
  onto a clean meld only while the team still needs that canasta.
* **Freezing**: when the pot holds six cards or more, is not frozen yet and the opponents
  have opened, a 2 becomes a cheap discard (C-9): the next player cannot take the pot at all,
  and after that only a natural pair takes it, which is what this bot keeps.
* **Defensive discards**: the card the next player is least likely to take the pot with,
  weighted heavily by the size of the pot (20 + 200 a card: pairs and sets are broken before
  a big pot is risked); a black 3 is held back as a blocker while the pot is small and thrown
  once it is worth blocking.
* **Going out**: builds its canastas first: it goes out only when it leads and has them (one
  canasta with classic rules, where hands are short; two, the minimum, in spanish and
  italian), or when it leads and an opponent could go out with a short hand, or when the
  stock is nearly spent.
"""

from __future__ import annotations

import math

import numpy as np

from canasta_env.actions import MOVE_MELD, MOVE_RUN, MOVES, NUM_ACTIONS
from canasta_env.cards import CARD_VALUES, deck_counts
from canasta_env.observation import LAYOUT, OBS_SIZE, SCALES

# ----------------------------------------------------------------------------- offsets

_INV = (1.0 / SCALES.astype(np.float64)).astype(np.float32)


def _at(name: str, copy: int = 0) -> int:
    return LAYOUT.span(name, copy).start


HAND = _at("hand")
POT_TOP = _at("pot_top")
POT_TOP_VALUES = LAYOUT.span("pot_top").field.values
POT_SIZE = _at("pot_size")
POT_FACE_DOWN = _at("pot_face_down")
POT_FROZEN = _at("pot_frozen")
POT_CROSSED = _at("pot_crossed")
POT_KNOWN = _at("pot_known")
TEAM0 = _at("teams.naturals", 0)
TEAM_STRIDE = _at("teams.naturals", 1) - TEAM0
T_TWO = _at("teams.twos") - TEAM0
T_JK = _at("teams.jokers") - TEAM0
T_CAN = _at("teams.is_canasta") - TEAM0
T_CCLEAN = _at("teams.closed_clean") - TEAM0
T_CDIRTY = _at("teams.closed_dirty") - TEAM0
T_RED3 = _at("teams.red3") - TEAM0
T_OPENED = _at("teams.opened") - TEAM0
T_CANASTAS = _at("teams.canastas") - TEAM0
T_CLEAN = _at("teams.clean") - TEAM0
T_DIRTY = _at("teams.dirty") - TEAM0
PLAYER0 = _at("players.present", 0)
PLAYER_STRIDE = _at("players.present", 1) - PLAYER0
P_MATE = _at("players.teammate") - PLAYER0
P_SIZE = _at("players.hand_size") - PLAYER0
P_KNOWN = _at("players.known") - PLAYER0
DRAW_PHASE = _at("draw_phase")
STILL_NEEDED = _at("still_needed")
MAY_GO_OUT = _at("may_go_out")
STOCK = _at("stock")
NUM_PLAYERS = _at("num_players")
NUM_PLAYERS_VALUES = LAYOUT.span("num_players").field.values
HIST0 = _at("history.discarded", 0)
HIST_STRIDE = _at("history.discarded", 1) - HIST0
H_DECLINED = _at("history.declined") - HIST0

assert OBS_SIZE == len(SCALES) and NUM_ACTIONS == len(MOVES)

# card kinds and meld slots (canasta_env.cards; docs/observation.md, "Index orders")
NATS = range(11)
TWO, JOKER, B3, RED3 = 11, 12, 13, 14
SLOT_B3, SLOT_WILD = 11, 12
VAL = CARD_VALUES
# action ids (canasta_env.actions)
DRAW, TAKE, TAKE2, TAKEJ, TAKE_ONTO, PASS = 0, 1, 2, 3, 4, 5
DISCARD0, MELD0 = 6, 20

#: per action id: (is_meld, slot, naturals, twos, jokers, new, cards, points, is_run)
_INFO = tuple(
    (
        m.kind in (MOVE_MELD, MOVE_RUN),
        m.slot,
        m.naturals,
        m.twos,
        m.jokers,
        m.new,
        m.naturals + m.twos + m.jokers,
        m.points,
        m.kind == MOVE_RUN,
    )
    for m in MOVES
)

#: the value of a move the plan refuses
NEG = -1.0e9


def _tail(n: int, p: float, r: int) -> float:
    """P(X >= r) for X ~ Binomial(n, p), r up to 3 (0 or less: 1)."""
    if r <= 0:
        return 1.0
    if n < r or p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    q = 1.0 - p
    q_n2 = q ** (n - 2) if n >= 2 else 1.0
    p0 = q_n2 * q * q
    if r == 1:
        return 1.0 - p0
    p1 = n * p * q_n2 * q
    if r == 2:
        return max(0.0, 1.0 - p0 - p1)
    p2 = n * (n - 1) / 2.0 * p * p * q_n2
    return max(0.0, 1.0 - p0 - p1 - p2)


class _Rules:
    """The numbers of a table's rules (docs/presets.md) that the plans use, read per hand."""

    def __init__(self, rules) -> None:
        if rules is None or isinstance(rules, str):
            from canasta_env.rules import make_rules

            rules = make_rules(rules or "classic")

        def g(name, default):
            return getattr(rules, name, default)

        self.num_decks = g("num_decks", 2)
        self.jokers_per_deck = g("jokers_per_deck", 2)
        self.by_players = dict(g("num_decks_by_players", ()) or ())
        self.take_onto = bool(g("take_onto_meld", True))
        self.take_wild = bool(g("take_with_wild", True))
        self.take_n = g("take_naturals", 2)
        self.take_n_frozen = g("take_naturals_frozen", 2)
        self.frozen_unopened = bool(g("frozen_for_unopened", True))
        self.clean_dirty = bool(g("go_out_needs_clean_and_dirty", False))
        self.melds_minus = bool(g("melds_minus_without_canasta", False))
        self.b3_penalty = g("black3_in_hand_penalty", 5)
        self.b3_only_out = bool(g("black3_meld_only_going_out", True))
        self.b3_melds = bool(g("black3_melds", True))
        self.red3_scores = tuple(g("red3_scores", (0, 100, 200, 300, 800)))
        self.red3_extra = g("red3_extra_each", 200)
        self.red3_sign = tuple(g("red3_sign", (-1, 1, 1, 1, 1)))
        self.clean_bonus = g("clean_canasta_bonus", 500)
        self.dirty_bonus = g("dirty_canasta_bonus", 300)
        self.hidden_bonus = g("hidden_canasta_bonus", 0)
        self.wild_dirty_bonus = g("wild_canasta_dirty_bonus", 0)
        self.wild_melds = bool(g("wild_melds", False))
        self.max_wilds = g("max_wilds_per_meld", 3)
        self.go_out_bonus = g("go_out_bonus", 100)
        self.closes = g("meld_closes_at", 0) > 0
        self.canasta_size = g("canasta_size", 7)
        #: rank kind -> (clean bonus, dirty bonus) of a canasta of that rank (italian aces)
        self.rank_bonus = {
            rank: (clean, dirty) for rank, clean, dirty in (g("rank_canasta_bonus", ()) or ())
        }

    def red3_value(self, count: int, state: int) -> int:
        """Red 3s of a team; ``state``: 0 no meld, 1 no canasta, 2 clean only, 3 dirty only,
        4 both (the order of the ``red3_sign`` field)."""
        if count <= 0:
            return 0
        table = self.red3_scores
        if count < len(table):
            value = table[count]
        else:
            value = table[-1] + (count - len(table) + 1) * self.red3_extra
        return self.red3_sign[min(state, len(self.red3_sign) - 1)] * value


class _PlanBot:
    """The shared machinery; the two plans set their numbers and override a few hooks."""

    name = "plan"

    # -- discard: what a card is worth in hand, and what the pot is worth to the next player --
    pair_keep = 40.0
    triple_keep = 60.0
    single_keep = 8.0
    two_keep = 45.0
    joker_keep = 70.0
    #: extra keep value of a wild card where wild canastas score (spanish, italian)
    wild_meld_keep = 500.0
    #: a discard the next player takes the pot with costs (base + per_card x pot cards)
    danger_base = 15.0
    danger_per_card = 12.0
    #: the next player's take chance, times this for a kind they let go by drawing / discarded
    declined_factor = 0.3
    discarded_factor = 0.6
    #: the binomial draw underestimates real hands (players keep pairs): measured takes ran
    #: about 1.5 times the predicted chance between 0.1 and 0.4
    chance_scale = 1.5
    #: a classic black 3: keep value, plus this per pot card (below zero: thrown as a blocker)
    b3_keep = -30.0
    b3_keep_per_pot = 0.0
    #: a 2 discarded onto an unfrozen pot of this many cards or more freezes it (C-9): its keep
    #: value falls by freeze_per_card per pot card
    freeze_min_pot = 99
    freeze_per_card = 0.0
    # -- draw --
    #: smallest pot worth taking with a 2 / a joker (C-11)
    wild_take_two = 8
    wild_take_joker = 12
    # -- opening: what a wild card laid in the opening costs, in opening points --
    opening_wild_cost = 40.0
    #: enter the going-out mode only when the count says the hand can be emptied this turn
    out_needs_feasible = 1

    def __init__(self, seed: int | None = None) -> None:
        self._seed = seed
        self.seat = 0
        self.num_players = 0
        self.num_teams = 0
        self.rules: _Rules | None = None
        self._total: list[int] = []
        self._one_canasta = True

    # ------------------------------------------------------------------ interface

    def seed(self, s) -> None:
        """Kept for the arena's contract: the plans draw no random numbers."""
        self._seed = s

    def reset(self, seat: int, num_players: int, rules) -> None:
        """A new hand at a table of ``num_players`` with these ``Rules`` (or a preset name)."""
        self.seat = seat
        self._setup(num_players, rules)

    def _setup(self, num_players: int, rules) -> None:
        self.num_players = num_players
        self.num_teams = num_players if num_players <= 3 else 2
        r = self.rules = _Rules(rules)
        decks = r.by_players.get(num_players, r.num_decks)
        self._total = deck_counts(decks, r.jokers_per_deck)
        self._one_canasta = not r.clean_dirty

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal[0]
        e = np.rint(np.asarray(observation, dtype=np.float32) * _INV).astype(np.int64).tolist()
        if self.rules is None:  # act before reset: the player count from the observation
            onehot = e[NUM_PLAYERS : NUM_PLAYERS + len(NUM_PLAYERS_VALUES)]
            self._setup(NUM_PLAYERS_VALUES[onehot.index(max(onehot))], None)
        if e[DRAW_PHASE]:
            return self._draw_phase(e, legal)
        return self._meld_phase(e, legal)

    # ------------------------------------------------------------------ reading

    @staticmethod
    def _pot_top(e) -> int:
        row = e[POT_TOP : POT_TOP + len(POT_TOP_VALUES)]
        return POT_TOP_VALUES[row.index(max(row))] if max(row) > 0 else -1

    @staticmethod
    def _meld_sizes(e, team: int) -> list[int]:
        """Cards in the team's open (unfinished) meld of each slot."""
        b = TEAM0 + TEAM_STRIDE * team
        return [e[b + s] + e[b + T_TWO + s] + e[b + T_JK + s] for s in range(13)]

    def _team_of_player(self, p: int) -> int:
        """Team copy (from the viewer) of the seat ``p`` places after the viewer (G-3)."""
        return p if self.num_players <= 3 else p % 2

    def _wild_canasta_done(self, e) -> bool:
        b = TEAM0
        return bool(
            e[b + T_CAN + SLOT_WILD] or e[b + T_CCLEAN + SLOT_WILD] or e[b + T_CDIRTY + SLOT_WILD]
        )

    # ------------------------------------------------------------------ score estimate

    def _team_points(self, e, team: int) -> float:
        """Public part of a team's hand score: melds, canasta bonuses, red 3s (G-9)."""
        r = self.rules
        b = TEAM0 + TEAM_STRIDE * team
        pts = 0.0
        for s in NATS:
            pts += e[b + s] * VAL[s]
            pts += e[b + T_CCLEAN + s] * 7 * VAL[s] + e[b + T_CDIRTY + s] * (5 * VAL[s] + 40)
        pts += e[b + SLOT_B3] * 5
        pts += sum(e[b + T_TWO : b + T_TWO + 13]) * 20 + sum(e[b + T_JK : b + T_JK + 13]) * 50
        canastas, clean, dirty = e[b + T_CANASTAS], e[b + T_CLEAN], e[b + T_DIRTY]
        if r.melds_minus and canastas == 0:
            pts = -pts  # S-14
        pts += clean * r.clean_bonus + dirty * r.dirty_bonus
        wild = e[b + T_CAN + SLOT_WILD] + e[b + T_CCLEAN + SLOT_WILD] + e[b + T_CDIRTY + SLOT_WILD]
        if wild and r.wild_dirty_bonus:
            pts += wild * (r.wild_dirty_bonus - r.dirty_bonus)
        for rank, (cb, db) in r.rank_bonus.items():
            if 0 <= rank < 11 and e[b + T_CAN + rank]:
                dirty_meld = e[b + T_TWO + rank] + e[b + T_JK + rank]
                pts += (db - r.dirty_bonus) if dirty_meld else (cb - r.clean_bonus)
        if not e[b + T_OPENED]:
            state = 0
        elif canastas == 0:
            state = 1
        elif clean and dirty:
            state = 4
        else:
            state = 2 if clean else 3
        return pts + r.red3_value(e[b + T_RED3], state)

    def _hand_cost(self, hand) -> float:
        cost = 0.0
        for k in range(13):
            cost += hand[k] * VAL[k]
        return cost + hand[B3] * self.rules.b3_penalty

    def _margins(self, e):
        """(margin now, margin if this player went out now) over the best other team."""
        hand = e[HAND : HAND + 14]
        mine = self._team_points(e, 0)
        partners = 0.0
        others = [self._team_points(e, t) for t in range(1, self.num_teams)]
        for p in range(1, self.num_players):
            b = PLAYER0 + PLAYER_STRIDE * p
            known = e[b + P_KNOWN : b + P_KNOWN + 14]
            unknown = max(0, e[b + P_SIZE] - sum(known))
            cost = unknown * 9.0 + sum(known[k] * VAL[k] for k in range(13))
            if e[b + P_MATE]:
                partners += cost
            else:
                others[self._team_of_player(p) - 1] -= cost
        best_other = max(others) if others else 0.0
        own = self._hand_cost(hand)
        now = mine - partners - own - best_other
        out = mine - partners + self.rules.go_out_bonus + own - 10.0 - best_other
        if self._one_canasta and e[TEAM0 + T_CANASTAS] == 0:
            out += self.rules.dirty_bonus  # the canasta that going out will complete
        return now, out

    def _threat(self, e) -> bool:
        """An opposing team that meets its canasta condition and holds a short hand."""
        for p in range(1, self.num_players):
            b = PLAYER0 + PLAYER_STRIDE * p
            if e[b + P_MATE]:
                continue
            tb = TEAM0 + TEAM_STRIDE * self._team_of_player(p)
            if self.rules.clean_dirty:
                ready = e[tb + T_CLEAN] >= 1 and e[tb + T_DIRTY] >= 1
            else:
                ready = e[tb + T_CANASTAS] >= 1
            if ready and e[b + P_SIZE] <= 5:
                return True
        return False

    # ------------------------------------------------------------------ draw phase

    def _draw_phase(self, e, legal) -> int:
        takes = [a for a in (TAKE_ONTO, TAKE, TAKE2, TAKEJ) if a in legal]
        if PASS in legal:  # the stock is spent: passing ends the hand (C-16, S-17, I-11)
            now, _ = self._margins(e)
            if now > 0 or not takes:
                return PASS
            return takes[0]
        if not takes:
            return DRAW if DRAW in legal else legal[0]
        choice = self._take_choice(e, takes)
        if choice is not None:
            return choice
        return DRAW if DRAW in legal else takes[0]

    def _take_choice(self, e, takes):
        """The take to make, or None to draw (the plans decide)."""
        return takes[0]

    def _pot_usefulness(self, e, hand, sizes):
        """(useful, junk): the pot's cards that join melds or make sets, and the others."""
        top = self._pot_top(e)
        pk = e[POT_KNOWN : POT_KNOWN + 15]
        useful = 0.0
        junk = 0.0
        for k in NATS:
            cnt = pk[k] - (1 if k == top else 0)
            if cnt <= 0:
                continue
            if sizes[k] or k == top or hand[k] + cnt >= 3:
                useful += cnt
            elif hand[k] + cnt == 2:
                useful += 0.5 * cnt
                junk += 0.5 * cnt
            else:
                junk += cnt
        useful += pk[TWO] + pk[JOKER] + 2 * pk[RED3]
        junk += pk[B3]
        down = e[POT_FACE_DOWN]
        return useful + 0.4 * down, junk + 0.6 * down

    # ------------------------------------------------------------------ meld phase

    def _meld_phase(self, e, legal) -> int:
        hand = e[HAND : HAND + 14]
        total = sum(hand)
        discards = [a for a in legal if DISCARD0 <= a < MELD0]
        melds = [a for a in legal if a >= MELD0]
        if not melds:
            return self._discard(e, hand, discards, out=False) if discards else legal[0]
        if not e[TEAM0 + T_OPENED]:
            return self._opening_meld(e, melds)
        sizes = self._meld_sizes(e, 0)
        # no discard legal: the turn can only end by melding out (C-7), so shed cards
        out = not discards or self._want_out(e, hand, total, sizes)
        best, best_v = melds[0], -math.inf
        for a in melds:
            v = self._meld_value(e, a, hand, total, sizes, out)
            if v > best_v:
                best, best_v = a, v
        if best_v > 0 or not discards:
            return best
        return self._discard(e, hand, discards, out)

    def _opening_meld(self, e, melds) -> int:
        """Lay the opening (G-5): naturals first, as few wild cards as possible."""
        r = self.rules
        best, best_v = melds[0], -math.inf
        need = e[STILL_NEEDED]
        for a in melds:
            _, slot, n, t, j, new, cards, points, is_run = _INFO[a]
            w = t + j
            v = min(points, need + 10) - self.opening_wild_cost * w + 4.0 * n
            if is_run:
                v += 1000.0
            if new and cards >= r.canasta_size and r.hidden_bonus:
                v += 500.0  # a hidden canasta opens the team whatever the points (S-8)
            if slot == SLOT_B3 and r.b3_only_out:
                v -= 40.0
            if slot == SLOT_WILD:
                # where wild canastas score, a wild-only meld is where they start
                v += self.opening_wild_cost * w + 10.0 if r.wild_melds else -20.0
            if v > best_v:
                best, best_v = a, v
        return best

    def _out_feasible(self, hand, sizes) -> bool:
        """A rough count: can every card but at most one be melded this turn?"""
        r = self.rules
        wild = hand[TWO] + hand[JOKER]
        left = 0
        for k in NATS:
            c = hand[k]
            if not c or sizes[k] or c >= 3:
                continue
            if c == 2 and wild:
                wild -= 1
            else:
                left += c
        b3 = hand[B3]
        if b3 and (not r.b3_melds or b3 < 3):
            left += b3
        if wild:
            room = any(sizes[s] and (not r.closes or sizes[s] < r.canasta_size) for s in NATS)
            if not (room or (r.wild_melds and sizes[SLOT_WILD])):
                left += wild
        return left <= 1

    def _can_reach_going_out(self, e, hand, sizes) -> bool:
        """The team may go out now, or (one-canasta rules) a meld can become its canasta."""
        if e[MAY_GO_OUT]:
            return True
        if not self._one_canasta or e[TEAM0 + T_CANASTAS] > 0:
            return False
        wild = min(hand[TWO] + hand[JOKER], self.rules.max_wilds)
        for k in NATS:
            naturals = sizes[k] + hand[k]
            if naturals >= 2 and naturals + wild >= self.rules.canasta_size:
                return True
        return False

    def _want_out(self, e, hand, total, sizes) -> bool:
        """Whether the plan goes out this turn (the plans decide)."""
        return False

    def _meld_value(self, e, a, hand, total, sizes, out) -> float:
        """How much the plan wants the meld move ``a`` now (above 0: lay it)."""
        r = self.rules
        _, slot, n, t, j, new, cards, points, is_run = _INFO[a]
        if total - cards < 2 and not out:
            return NEG  # keep a card: never go out by accident
        if is_run:
            return 500.0  # S-19
        w = t + j
        b = TEAM0
        if slot == SLOT_B3:
            if r.b3_only_out:
                return 30.0 if out else NEG
            return 60.0  # spanish: a black 3 left in hand costs 100 (S-14)
        if slot == SLOT_WILD:
            return 80.0 + 4.0 * w if new else 75.0  # toward a wild canasta (S-9, I-6)
        joker_pen = 4.0 if j else 0.0
        if new:
            if cards >= r.canasta_size:  # a canasta at once (hidden in spanish, S-10)
                return 100.0 + (150.0 if r.hidden_bonus else 0.0) - 2.0 * w
            if w == 0:
                return self._set_value(e, slot, n, hand, total, out)
            if out:
                return 20.0 + 3.0 * n - 6.0 * w - joker_pen
            return self._mixed_value(e, n, w) - joker_pen
        if w == 0:  # a natural onto a meld
            if not e[b + T_CAN + slot] and sizes[slot] + 1 >= r.canasta_size:
                return 75.0
            return 50.0
        # a wild card onto a natural meld
        sz = sizes[slot]
        wilds_on = e[b + T_TWO + slot] + e[b + T_JK + slot]
        clean = wilds_on == 0
        if e[b + T_CAN + slot]:
            if out and not clean:
                return 8.0 - joker_pen
            return -60.0 if out else NEG
        if slot in r.rank_bonus and clean:
            return -80.0  # a clean canasta of aces is worth twice (I-12)
        wild_hand = hand[TWO] + hand[JOKER]
        finish_now = sz + min(wild_hand, r.max_wilds - wilds_on) >= r.canasta_size
        need_canasta = e[b + T_CANASTAS] == 0 or (r.clean_dirty and e[b + T_DIRTY] == 0)
        if r.clean_dirty and clean and e[b + T_CLEAN] == 0 and e[b + T_DIRTY] >= 1 and sz >= 4:
            return -25.0  # keep the best clean meld clean: going out needs one
        v = self._wild_value(e, sz, clean, finish_now, need_canasta, sizes, out) - joker_pen
        if r.wild_melds and not out and not self._wild_canasta_done(e):
            v -= 60.0  # the wild cards belong in a wild canasta (2000 or more)
        return v

    def _set_value(self, e, slot, n, hand, total, out) -> float:
        """A new natural meld of ``n`` cards, fewer than a canasta."""
        return 35.0 + 3.0 * n

    def _mixed_value(self, e, n, w) -> float:
        """A new meld of naturals and wild cards, outside the going-out turn."""
        return -20.0

    def _wild_value(self, e, sz, clean, finish_now, need_canasta, sizes, out) -> float:
        """A wild card onto an open natural meld of ``sz`` cards."""
        if self.rules.canasta_size - sz <= 1:
            return 50.0
        if finish_now:
            return 45.0 + sz
        return 15.0 if out else -20.0

    # ------------------------------------------------------------------ discard

    def _take_chance(self, e, hand) -> list[float]:
        """Per natural kind: the chance the next player takes the pot if it is the top."""
        r = self.rules
        nb = PLAYER0 + PLAYER_STRIDE
        tb1 = TEAM0 + TEAM_STRIDE * self._team_of_player(1)
        their_opened = e[tb1 + T_OPENED]
        frozen_now = e[POT_FROZEN] or e[POT_CROSSED]
        frozen_them = frozen_now or (r.frozen_unopened and not their_opened)
        need = r.take_n_frozen if frozen_now else r.take_n
        known_next = e[nb + P_KNOWN : nb + P_KNOWN + 14]
        unknown_next = max(0, e[nb + P_SIZE] - sum(known_next))
        # the unseen pool: the stock, face-down pot cards, the unknown part of other hands
        pool = e[STOCK] + e[POT_FACE_DOWN]
        seen = [hand[k] + e[POT_KNOWN + k] for k in range(14)]
        for p in range(1, self.num_players):
            b = PLAYER0 + PLAYER_STRIDE * p
            known = e[b + P_KNOWN : b + P_KNOWN + 14]
            pool += max(0, e[b + P_SIZE] - sum(known))
            for k in range(14):
                seen[k] += known[k]
        for t in range(self.num_teams):
            b = TEAM0 + TEAM_STRIDE * t
            for s in NATS:
                seen[s] += e[b + s] + 7 * (e[b + T_CCLEAN + s] + e[b + T_CDIRTY + s])
        pool = max(pool, 1)
        total = self._total
        p_wild = 0.0
        if r.take_wild and not frozen_them and unknown_next:
            wild_unseen = max(0, total[TWO] + total[JOKER] - seen[TWO] - seen[JOKER] - 8)
            p_wild = 1.0 - (1.0 - min(1.0, wild_unseen / pool)) ** unknown_next
        hist = HIST0 + HIST_STRIDE
        sizes1 = self._meld_sizes(e, self._team_of_player(1))
        chance = [0.0] * 11
        for k in NATS:
            if r.take_onto and not frozen_them and sizes1[k]:
                chance[k] = 1.0  # the card fits their meld (C-11)
                continue
            kn = known_next[k]
            if kn >= need:
                p = 1.0
            else:
                q = min(1.0, max(0, total[k] - seen[k]) / pool)
                p = _tail(unknown_next, q, need - kn)
                if p_wild:
                    p_one = 1.0 if kn >= 1 else _tail(unknown_next, q, 1)
                    p += (1.0 - p) * p_one * p_wild * 0.6
                p = min(1.0, p * self.chance_scale)
            if e[hist + H_DECLINED + k]:
                p *= self.declined_factor
            elif e[hist + k]:
                p *= self.discarded_factor
            if not their_opened:
                p *= 0.5
            chance[k] = p
        return chance

    def _discard(self, e, hand, discards, out: bool) -> int:
        if len(discards) == 1:
            return discards[0]
        if out and sum(hand) == 1:
            return discards[0]  # the last card: going out
        r = self.rules
        sizes = self._meld_sizes(e, 0)
        pot = e[POT_SIZE]
        chance = self._take_chance(e, hand)
        pot_worth = self.danger_base + self.danger_per_card * (pot + 1)
        threat = self._threat(e)
        their_opened = e[TEAM0 + TEAM_STRIDE * self._team_of_player(1) + T_OPENED]
        frozen_now = e[POT_FROZEN] or e[POT_CROSSED]
        best, best_c = discards[0], math.inf
        for a in discards:
            k = a - DISCARD0
            c = hand[k]
            if k < 11:
                if sizes[k]:
                    keep = 3.0  # it fits our meld: kept only to keep a card
                elif c >= 3:
                    keep = self.triple_keep
                elif c == 2:
                    keep = self.pair_keep
                else:
                    keep = self.single_keep
                keep -= (0.5 if threat else 0.05) * VAL[k]  # shed high cards when it may end
                cost = keep + chance[k] * pot_worth
            elif k == B3:
                if r.b3_penalty >= 50 or not r.b3_melds:
                    cost = -60.0  # spanish: 100 each in hand; italian: never melded
                elif out and c >= 3:
                    cost = 50.0  # melded when going out (C-7)
                else:
                    cost = self.b3_keep + self.b3_keep_per_pot * pot
            else:  # a wild card: it blocks the next player (C-12) but is lost to the pot
                cost = self.two_keep if k == TWO else self.joker_keep
                if r.wild_melds:
                    cost += self.wild_meld_keep
                if k == TWO and not frozen_now and their_opened and pot >= self.freeze_min_pot:
                    cost -= self.freeze_per_card * pot
            if cost < best_c:
                best, best_c = a, cost
        return best


# ============================================================================= Tempo


class Tempo(_PlanBot):
    """Out early and cheaply: open at once, meld everything, race to the first canasta."""

    name = "s3_tempo"
    pair_keep = 30.0
    triple_keep = 60.0
    single_keep = 6.0
    two_keep = 100.0
    joker_keep = 150.0
    danger_base = 20.0
    danger_per_card = 40.0
    b3_keep = -30.0
    wild_take_two = 8
    wild_take_joker = 12
    #: a pot of this many cards is big (taken); a smaller one only when its useful cards,
    #: plus this slack, are at least its junk
    big_pot = 5
    small_pot_slack = 1.0
    #: go out when the estimated margin after going out is at least this
    out_margin = -60.0
    #: until the team has its canasta, wild cards go onto its biggest meld from this size on
    push_size = 4
    #: a pair (or more) laid with wild cards outside the going-out turn, once the team may go
    #: out / before
    pair_wild_ready = -20.0
    pair_wild_early = -20.0
    #: spanish (S-10): a set of this many naturals or more waits for seven (a hidden canasta)
    #: while the hand holds fewer than ``hidden_hand`` cards
    hidden_hold = 3
    hidden_hand = 20
    #: a natural set stays in hand while the pot is frozen with this many cards or more
    keep_sets_pot = 0

    def _take_choice(self, e, takes):
        natural = [a for a in takes if a in (TAKE_ONTO, TAKE)]
        pot = e[POT_SIZE]
        if not e[TEAM0 + T_OPENED]:  # a take that opens the team is the fastest opening
            return natural[0] if natural else (takes[0] if pot >= self.wild_take_two else None)
        if self.rules.clean_dirty and natural:
            return natural[0]  # two canastas to build: the pot is the material
        hand = e[HAND : HAND + 14]
        useful, junk = self._pot_usefulness(e, hand, self._meld_sizes(e, 0))
        if pot >= self.big_pot:
            good = True  # a big pot is the material of the first canasta
        else:  # a small pot only when it speeds the hand up
            good = TAKE_ONTO in takes or useful + self.small_pot_slack >= junk
        if natural:
            return natural[0] if good else None
        if good and useful >= junk:
            if TAKE2 in takes and pot >= self.wild_take_two:
                return TAKE2
            if TAKEJ in takes and pot >= self.wild_take_joker:
                return TAKEJ
        return None

    def _want_out(self, e, hand, total, sizes) -> bool:
        if not self._can_reach_going_out(e, hand, sizes):
            return False
        if self.out_needs_feasible and not self._out_feasible(hand, sizes):
            return False
        return self._margins(e)[1] >= self.out_margin

    def _set_value(self, e, slot, n, hand, total, out) -> float:
        if not out:
            r = self.rules
            if r.hidden_bonus and hand[slot] >= self.hidden_hold and total < self.hidden_hand:
                return -5.0  # seven laid at once make a hidden canasta (S-10)
            if (
                (e[POT_FROZEN] or e[POT_CROSSED])
                and e[POT_SIZE] >= self.keep_sets_pot
                and hand[slot] <= r.take_n_frozen + 1
            ):
                return -5.0  # only naturals from the hand take a frozen pot (C-10)
        return 35.0 + 3.0 * n

    def _mixed_value(self, e, n, w) -> float:
        ready = self._one_canasta and e[TEAM0 + T_CANASTAS] > 0
        base = self.pair_wild_ready if ready else self.pair_wild_early
        return base + 3.0 * n - 6.0 * w

    def _wild_value(self, e, sz, clean, finish_now, need_canasta, sizes, out) -> float:
        if self.rules.canasta_size - sz <= 1:
            return 60.0
        if finish_now:
            return 45.0 + sz
        if need_canasta and sz >= self.push_size and sz == max(sizes[:11]):
            return 35.0 + sz  # the race to the first canasta: onto the biggest meld
        return 15.0 if out else -20.0


# ============================================================================= PotTaker


class PotTaker(_PlanBot):
    """Lives on the pile: keeps pairs, takes every pot, freezes big pots, discards safely."""

    name = "s3_pottaker"
    pair_keep = 50.0
    triple_keep = 80.0
    single_keep = 10.0
    two_keep = 55.0
    joker_keep = 95.0
    danger_base = 20.0
    danger_per_card = 200.0
    b3_keep = 20.0
    b3_keep_per_pot = -5.0
    freeze_min_pot = 6
    freeze_per_card = 7.0
    wild_take_two = 5
    wild_take_joker = 9
    opening_wild_cost = 28.0
    #: canastas the team holds before it goes out while leading: team tables and solo tables
    #: with one-canasta rules, and the clean-and-dirty presets
    want_canastas_team = 1
    want_canastas_solo = 1
    want_canastas_cd = 2
    #: spanish (S-10): natural sets stay in hand toward a hidden canasta while the hand holds
    #: fewer cards than this; no set is held back once the stock is under ``hoard_stock``
    hoard_hand = 24
    hoard_stock = 16
    #: while the pot is frozen (always, without a take onto a meld: ``keep_sets_unfrozen``), a
    #: natural set stays in hand while the hand holds at most (naturals a frozen take needs
    #: + keep_extra) of its kind and the stock lasts
    keep_extra = 2
    keep_sets_unfrozen = 1

    def _take_choice(self, e, takes):
        if TAKE_ONTO in takes:
            return TAKE_ONTO
        if TAKE in takes:
            return TAKE
        pot = e[POT_SIZE]
        if not e[TEAM0 + T_OPENED]:
            return takes[0] if pot >= self.wild_take_two else None
        if TAKE2 in takes and pot >= self.wild_take_two:
            return TAKE2
        if TAKEJ in takes and pot >= self.wild_take_joker:
            return TAKEJ
        return None

    def _want_out(self, e, hand, total, sizes) -> bool:
        if not self._can_reach_going_out(e, hand, sizes):
            return False
        if self.out_needs_feasible and not self._out_feasible(hand, sizes):
            return False
        if self._margins(e)[1] <= 0:
            return False
        if self.rules.clean_dirty:
            want = self.want_canastas_cd
        elif self.num_players >= 4:
            want = self.want_canastas_team
        else:
            want = self.want_canastas_solo
        if e[TEAM0 + T_CANASTAS] >= want:
            return True
        return self._threat(e) or e[STOCK] < 4 * self.num_players

    def _set_value(self, e, slot, n, hand, total, out) -> float:
        if out:
            return 35.0 + 3.0 * n
        r = self.rules
        if r.hidden_bonus and total < self.hoard_hand and e[STOCK] >= self.hoard_stock:
            if not self._threat(e):
                return -15.0  # hold the set toward a hidden canasta (S-10)
        frozen = e[POT_FROZEN] or e[POT_CROSSED] or (self.keep_sets_unfrozen and not r.take_onto)
        few = hand[slot] <= r.take_n_frozen + self.keep_extra
        if frozen and few and e[STOCK] >= self.hoard_stock:
            return -5.0  # keep the set: a frozen pot is taken with naturals (C-10, S-6, I-8)
        return 30.0 + 3.0 * n

    def _mixed_value(self, e, n, w) -> float:
        return -30.0

    def _wild_value(self, e, sz, clean, finish_now, need_canasta, sizes, out) -> float:
        if finish_now:
            if clean and not need_canasta:
                # a clean meld is worth more finished clean once the team has its canasta
                return 20.0 + sz if out else -10.0
            return 45.0 + sz
        return 12.0 if out else -25.0
