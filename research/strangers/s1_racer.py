"""Racer: a stranger bot that goes out as early as the rules let it.

Written from the public documentation only (docs/rules.md, docs/observation.md,
docs/agents.md and the public API of ``canasta_env``): it reads the observation with
``decode_view`` and every legal id of the mask with ``MOVES``.

The plan. A hand ends when a player goes out, and the cards still in the other hands then
count against them, so the side that empties its hand first usually wins the hand. The
Racer plays for the shortest road to going out: one canasta (C-14), then an empty hand.

* **Opening.** It opens the first turn the opening minimum allows (G-5), with the melds of
  fewest wild cards, so the wild cards stay for the first canasta.
* **Toward the first canasta.** Until its team has the canastas going out needs, it grows
  the melds on the table: naturals onto them at once, and a wild card onto the biggest
  meld once that meld holds ``RACE_WILD_MELD`` cards. New melds wait in the hand (a
  triple laid early spreads the cards over melds that are far from a canasta, and its
  pair is what takes the pot); only a meld that is a canasta by itself is laid at once.
* **Going out.** Once it may, it melds everything and goes out the first moment the mask
  allows it: a meld or a discard that empties the hand is played at once. After the
  first canasta it lays its new melds too (while the pot is small), so the hand is short
  when the chance comes. At four and six players the team shares its melds; asking the
  partner is not part of the game (resolved ambiguity 5), so the Racer simply goes out
  when its team may.
* **The pot.** It takes the pot while it has no canasta (its cards build one). Once its
  team may go out, or another team is about to, it takes only a pot whose cards it can
  meld at once, or one too big to leave to the others: a pot of cards that stay in the
  hand would keep it from going out.
* **Discarding.** The card that costs least: its worth in hand (pairs, cards toward a
  meld, wild cards) plus the chance that the next player takes the pot with it times what
  the pot is worth to them. The chance comes from counting the cards seen (the own hand,
  every meld, the pot, the cards known to be in other hands) and from what the next
  player let go or threw away. A black 3 blocks the next player and goes first; a card
  that would complete the next team's canasta costs more; with another team about to
  go out it sheds its highest cards.

The Racer draws nothing at random: the same observation and mask give the same action.
"""

from __future__ import annotations

import math
import random

import numpy as np

from canasta_env.actions import (
    DRAW,
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
)
from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    TWO,
    deck_counts,
)
from canasta_env.observation import decode_view
from canasta_env.rules import Rules, make_rules

# ------------------------------------------------------------------ the pot
#: Once the team may go out, or another team is about to (a player of a team that may go
#: out holds at most ``THREAT_HAND`` cards), a pot is still taken when at most this many
#: of its cards would stay in the hand unmelded (a small pot that melds away costs no
#: time) ...
RACE_DEAD_CARDS = 1
THREAT_HAND = 6
#: ... or when it holds at least this many cards: too big to leave to the others.
RACE_BIG_POT = 10
#: While the pot holds this many cards, new melds wait in the hand even after the first
#: canasta (unless the Racer goes out this turn): their pairs may win the pot.
HOLD_POT = 6
#: Without a canasta, a wild card goes onto the biggest meld once it holds this many cards.
RACE_WILD_MELD = 4
#: A wild card is spent on a take (``take +2``, ``take +JK``) only for a pot this big.
WILD_TAKE_POT = 6

# ------------------------------------------------------------------ meld priorities
#: The tiers of meld moves, lowest first: the Racer plays the legal meld of the highest
#: tier (then the highest tie-breaks within it) and discards when the best is ``KEEP``.
#: While going out: a wild card onto a clean canasta comes last (it makes it dirty), then
#: onto a dirty one, onto an unfinished meld, a pair with a wild card; at any time a wild
#: card that completes a canasta, naturals, the opening melds and S-19 runs come first.
(
    KEEP,
    WILD_ON_CLEAN_CANASTA,
    WILD_ON_DIRTY_CANASTA,
    WILD_ON_MELD,
    PAIR_WITH_WILD,
    WILD_COMPLETES,
    NATURALS,
    OPENING,
    RUN,
) = range(9)

# ------------------------------------------------------------------ discarding
#: What keeping a card of a natural pair is worth, in points (a pair takes a pot).
PAIR_KEEP = 30
#: ... and this share of what the pot is worth.
PAIR_POT_SHARE = 0.05
#: A pair of higher cards is worth this share of its card value more (its meld scores more).
PAIR_VALUE_SHARE = 0.1
#: Among discards of equal cost, each point a card is worth counts this much for throwing
#: it (it would count against the hand at the end).
SHED_TIE = 0.01
#: What keeping one natural of three or more is worth (a pair stays in the hand).
SPARE_KEEP = 15
#: What keeping a lone natural is worth, for each unseen copy that could pair it.
SINGLE_KEEP_PER_UNSEEN = 3
#: What keeping a natural of a rank the team has melded is worth (it lays next turn).
MELDED_KEEP = 25
#: What keeping a 2 and a joker is worth: a wild card builds the first canasta.
TWO_KEEP = 250
JOKER_KEEP = 400
#: What keeping a black 3 is worth (negative: a black 3 is the card to throw).
BLACK3_KEEP = -15
#: A pot's worth to the player who takes it: a base and so much per card.
POT_BASE = 60
POT_PER_CARD = 45
#: A take that completes the next team's canasta costs this much more.
CANASTA_GIFT = 300
#: The next player's chance to hold a kind is multiplied by this when they let a pot
#: with that top card go by drawing, or threw that kind away this hand.
DECLINED_FACTOR = 0.2
DISCARDED_FACTOR = 0.6
#: ... by this when their team has melded that rank (the pot is frozen: else any such
#: card takes it) ...
MELDED_RANK_FACTOR = 0.3
#: ... and by this when their team has not opened (it must also reach its minimum).
UNOPENED_FACTOR = 0.5
#: Once the other side may go out (it has the canastas it needs) the hand is nearly
#: over: each point a card is worth counts this much more against keeping it.
SHED_WEIGHT = 1.5
#: A hand this small is "nearly out" for an opponent.
NEARLY_OUT = 4


#: The table assumed before the first ``reset``: classic rules (``_rules_of``) at two players.
DEFAULT_PLAYERS = 2


def _rules_of(rules: Rules | str | None) -> Rules:
    """The table's rules; a preset name is accepted too, and nothing means classic."""
    if rules is None:
        return make_rules("classic")
    return make_rules(rules) if isinstance(rules, str) else rules


def _at_least(need: int, copies: int, pool: int, drawn: int) -> float:
    """The chance that ``drawn`` cards dealt from a pool of ``pool`` cards, of which
    ``copies`` are of one kind, hold at least ``need`` of that kind (hypergeometric)."""
    if need <= 0:
        return 1.0
    if copies < need or drawn < need or pool <= 0:
        return 0.0
    drawn = min(drawn, pool)
    total = math.comb(pool, drawn)
    below = sum(
        math.comb(copies, x) * math.comb(pool - copies, drawn - x)
        for x in range(need)
        if drawn - x <= pool - copies
    )
    return max(0.0, 1.0 - below / total)


class Racer:
    """Opens at once, builds toward the first canasta, goes out at the first chance (module
    docstring)."""

    name = "s1-racer"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        # until a table resets it, the bot plays classic at two players
        self.reset(0, DEFAULT_PLAYERS, None)

    def seed(self, s: int | None) -> None:
        self.rng = random.Random(s)

    def reset(self, seat: int, num_players: int, rules: Rules | str | None = None) -> None:
        self.rules = _rules_of(rules)
        self.num_players = num_players
        self.deck = deck_counts(self.rules.decks_for(num_players), self.rules.jokers_per_deck)

    # ------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        view = decode_view(observation)
        if legal[0] <= PASS:
            return self._draw_phase(view, legal)
        return self._meld_phase(view, legal)

    # ------------------------------------------------------------------ the table
    def _canastas_needed(self, team) -> bool:
        """The team still lacks what going out needs (C-14, S-15, I-11)."""
        if team.canastas < self.rules.go_out_min_canastas:
            return True
        if self.rules.go_out_needs_clean_and_dirty:
            return team.clean < 1 or team.dirty < 1
        return False

    def _unseen(self, view) -> list[int]:
        """Cards of each holdable kind the viewer has not seen: the deck less its own hand,
        every meld, the pot's face-up cards and the cards known in other hands."""
        seen = list(view.hand)
        for kind in range(NUM_HAND_KINDS):
            seen[kind] += view.pot_known[kind]
        clean = self.rules.canasta_size
        dirty = (clean + 1) // 2
        for team in view.teams:
            for slot in range(SLOT_WILD + 1):
                kind = BLACK3 if slot == SLOT_BLACK3 else slot
                if slot != SLOT_WILD:
                    seen[kind] += team.naturals[slot]
                    # a finished canasta (S-7) holds only naturals when clean, and at least
                    # half its cards when dirty (never more wild cards than naturals)
                    seen[kind] += clean * team.closed_clean[slot] + dirty * team.closed_dirty[slot]
                seen[TWO] += team.twos[slot]
                seen[JOKER] += team.jokers[slot]
        for player in view.players[1:]:
            for kind in range(NUM_HAND_KINDS):
                seen[kind] += player.known[kind]
        return [max(0, self.deck[kind] - seen[kind]) for kind in range(NUM_HAND_KINDS)]

    def _take_chance(self, view, kind: int, unseen: list[int], freezes: bool) -> float:
        """The chance that the next player can take the pot with ``kind`` on top."""
        if kind >= NUM_NATURALS:
            return 0.0  # a wild card or a black 3 on top blocks the pot (C-12, S-6, I-7)
        rules = self.rules
        nxt = view.players[1]
        team = view.teams[1]
        frozen = freezes or view.pot_frozen or view.pot_crossed
        if not team.opened and rules.frozen_for_unopened:
            frozen = True
        if not frozen and rules.take_onto_meld and team.has_meld(kind):
            return 1.0
        need = rules.take_naturals_frozen if frozen else rules.take_naturals
        known = nxt.known[kind]
        hidden = max(0, nxt.hand_size - sum(nxt.known))
        pool = max(1, sum(unseen))
        chance = _at_least(need - known, unseen[kind], pool, hidden)
        if not frozen and rules.take_with_wild:
            wilds_known = nxt.known[TWO] + nxt.known[JOKER]
            one_short = _at_least(need - 1 - known, unseen[kind], pool, hidden) - chance
            wild = 1.0 if wilds_known else _at_least(1, unseen[TWO] + unseen[JOKER], pool, hidden)
            chance += max(0.0, one_short) * wild
        if known < need:
            history = view.history[1]
            if history.declined[kind]:
                chance *= DECLINED_FACTOR
            elif history.discarded[kind]:
                chance *= DISCARDED_FACTOR
            if not team.opened:
                chance *= UNOPENED_FACTOR
            elif team.has_meld(kind):
                # a player keeps no pair of a rank the team has melded: it goes on the meld
                chance *= MELDED_RANK_FACTOR
        return min(1.0, chance)

    def _others_close(self, view, hand: int = 0) -> bool:
        """Some other team has what going out needs and a player with a short hand. Seat
        copy ``k`` of ``view.players`` plays in team copy ``k % teams`` (G-3)."""
        teams = len(view.teams)
        for offset, player in enumerate(view.players):
            team = offset % teams
            if team and player.hand_size <= (hand or NEARLY_OUT):
                if not self._canastas_needed(view.teams[team]):
                    return True
        return False

    # ------------------------------------------------------------------ draw or take
    def _draw_phase(self, view, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        fallback = DRAW if DRAW in legal else (PASS if PASS in legal else legal[0])
        if not takes:
            return fallback
        pot = view.pot_size
        me = view.me
        racing = not self._canastas_needed(me) or self._others_close(view, THREAT_HAND)
        if racing and fallback == DRAW and pot < RACE_BIG_POT:
            if self._dead_cards(view) > RACE_DEAD_CARDS:
                return DRAW
        for take in (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER):
            if take not in takes:
                continue
            if take in (TAKE_WITH_TWO, TAKE_WITH_JOKER) and pot < WILD_TAKE_POT:
                continue
            return take
        return fallback

    def _dead_cards(self, view) -> int:
        """Pot cards below the top that would stay in the hand unmelded after a take:
        those that join no team meld and make no meld of three with the hand."""
        me = view.me
        dead = view.pot_face_down
        top = view.pot_top
        for kind in range(NUM_HAND_KINDS):
            count = view.pot_known[kind] - (1 if kind == top else 0)
            if count <= 0:
                continue
            if kind < NUM_NATURALS and (me.has_meld(kind) or count + view.hand[kind] >= 3):
                continue
            if kind in (TWO, JOKER):
                continue  # a wild card goes onto a meld
            dead += count
        return dead

    # ------------------------------------------------------------------ meld or discard
    def _meld_phase(self, view, legal: list[int]) -> int:
        hand_size = sum(view.hand)
        melds = [a for a in legal if MOVES[a].kind in (MOVE_MELD, MOVE_RUN)]
        discards = [a for a in legal if MOVES[a].kind == MOVE_DISCARD]
        # going out at once: a meld that empties the hand, or the last card discarded
        for a in melds:
            if MOVES[a].cards == hand_size:
                return a
        if hand_size == 1 and discards:
            return discards[0]
        if melds:
            going_out = view.still_needed == 0 and self._can_go_out(view)
            best = max(melds, key=lambda a: self._meld_priority(view, MOVES[a], going_out))
            if self._meld_priority(view, MOVES[best], going_out)[0] > KEEP or not discards:
                return best
        return self._discard(view, discards)

    def _wild_room(self, naturals: int, wilds: int) -> int:
        """Wild cards a meld of ``naturals`` and ``wilds`` still takes (C-5, S-7, I-5)."""
        rules = self.rules
        return max(
            0,
            min(rules.max_wilds_per_meld - wilds, naturals - rules.min_natural_excess - wilds),
        )

    def _can_go_out(self, view) -> bool:
        """Whether the hand can be melded down to at most one card this turn, the team then
        holding the canastas going out needs (a plan by counts; the mask has the last word)."""
        rules = self.rules
        me = view.me
        hand = view.hand
        size = rules.canasta_size
        wilds = hand[TWO] + hand[JOKER]
        left = 0
        pairs = 0
        melds = []  # (naturals, wilds) of every meld after the natural cards are laid
        for rank in range(NUM_NATURALS):
            held = hand[rank]
            if me.has_meld(rank):
                melds.append((me.naturals[rank] + held, me.twos[rank] + me.jokers[rank]))
            elif held >= rules.min_meld_size:
                melds.append((held, 0))
            elif held == rules.min_naturals and rules.max_wilds_per_meld > 0:
                pairs += 1
            else:
                left += held
        black3 = hand[BLACK3]
        if black3:
            if not rules.black3_melds or black3 < rules.min_meld_size:
                left += black3
            elif black3 > rules.black3_meld_max_size:
                left += black3 - rules.black3_meld_max_size
        used = min(pairs, wilds)
        left += 2 * (pairs - used)
        wilds -= used
        melds += [(rules.min_naturals, 1)] * used
        # the remaining wild cards: onto the biggest melds first, toward a canasta
        melds.sort(key=lambda m: -(m[0] + m[1]))
        placed = []
        for naturals, on in melds:
            extra = min(wilds, self._wild_room(naturals, on))
            wilds -= extra
            placed.append((naturals, on + extra))
        if rules.wild_melds and wilds >= rules.wild_meld_min_start:
            placed.append((0, wilds))
            wilds = 0
        left += wilds
        if left > 1:
            return False
        canastas = me.canastas + sum(
            1 for (n, w), (n0, w0) in zip(placed, melds) if n + w >= size > 0 and n0 + w0 < size
        )
        if canastas < rules.go_out_min_canastas:
            return False
        if rules.go_out_needs_clean_and_dirty:
            return me.clean >= 1 and me.dirty >= 1
        return True

    def _spoils_clean(self, me, move) -> bool:
        """A wild card onto the team's best clean meld while going out needs a clean canasta
        the team lacks (S-15, I-11): that meld stays clean."""
        if not self.rules.go_out_needs_clean_and_dirty or me.clean or move.new:
            return False
        slot = move.slot
        if slot >= NUM_NATURALS or me.twos[slot] + me.jokers[slot]:
            return False
        best = max(
            (me.naturals[s] for s in range(NUM_NATURALS) if not me.twos[s] + me.jokers[s]),
            default=0,
        )
        return me.naturals[slot] >= best

    def _meld_priority(self, view, move, going_out: bool) -> tuple[int, int, int]:
        """How much the Racer wants a meld move now: its tier, then two tie-breaks within the
        tier; a move of tier ``KEEP`` is not played."""
        if move.kind == MOVE_RUN:
            return (RUN, move.cards, 0)
        me = view.me
        size = self.rules.canasta_size
        if view.still_needed > 0:
            # fewest wild cards, then most points: wild cards stay for the canasta
            return (OPENING, -move.wilds, move.points)
        before = 0 if move.new else me.meld_size(move.slot)
        after = before + move.cards
        needs = self._canastas_needed(me)
        if move.wilds == 0:
            holds = needs or view.pot_size >= HOLD_POT
            if move.new and after < size and not going_out and holds:
                # before the first canasta (or while the pot is big) a new meld waits in
                # the hand: its cards take the pot, and the melds on the table grow
                # toward the canasta instead
                return (KEEP, 0, 0)
            return (NATURALS, move.cards, before)
        if self._spoils_clean(me, move):
            return (KEEP, 0, 0)
        if before < size <= after:
            return (WILD_COMPLETES, needs, 0)
        if going_out:
            if move.new:
                return (PAIR_WITH_WILD, move.naturals, -move.wilds)
            if before >= size:
                dirty = me.twos[move.slot] + me.jokers[move.slot] > 0
                return (WILD_ON_DIRTY_CANASTA if dirty else WILD_ON_CLEAN_CANASTA, 0, 0)
            return (WILD_ON_MELD, before, 0)
        if move.new or not needs:
            return (KEEP, 0, 0)  # pairs with a wild card wait: a pair takes the pot
        if move.slot == SLOT_WILD:
            return (WILD_ON_MELD, before, 0)
        biggest = max(
            (me.meld_size(slot) for slot in range(NUM_NATURALS) if me.meld_size(slot) < size),
            default=0,
        )
        if before >= RACE_WILD_MELD and before == biggest:
            return (WILD_ON_MELD, before, -move.jokers)
        return (KEEP, 0, 0)

    def _discard(self, view, discards: list[int]) -> int:
        unseen = self._unseen(view)
        pot_cards = view.pot_size + 1
        pot_worth = POT_BASE + POT_PER_CARD * pot_cards
        closing = self._others_close(view)
        me = view.me
        best, best_cost = discards[0], math.inf
        for a in discards:
            kind = MOVES[a].slot
            keep = self._keep_value(view, kind, unseen, me, pot_worth)
            if closing:
                keep -= SHED_WEIGHT * CARD_VALUES[kind]
            freezes = kind in (TWO, JOKER) and not self.rules.wild_crosses_pot
            worth = pot_worth + self._canasta_gift(view, kind)
            danger = self._take_chance(view, kind, unseen, freezes) * worth
            cost = keep + danger - SHED_TIE * CARD_VALUES[kind]
            if cost < best_cost:
                best, best_cost = a, cost
        return best

    def _canasta_gift(self, view, kind: int) -> float:
        """What a take with ``kind`` on top adds for the next team beyond the pot's cards:
        a canasta when their meld of that rank is one card short of it."""
        if kind >= NUM_NATURALS:
            return 0.0
        team = view.teams[1]
        size = self.rules.canasta_size
        before = team.meld_size(kind)
        if before and before < size <= before + 1 + view.pot_known[kind]:
            return CANASTA_GIFT
        return 0.0

    def _keep_value(self, view, kind: int, unseen: list[int], me, pot_worth: float) -> float:
        held = view.hand[kind]
        if kind == TWO:
            return TWO_KEEP
        if kind == JOKER:
            return JOKER_KEEP
        if kind == BLACK3:
            return BLACK3_KEEP
        if me.has_meld(kind):
            return MELDED_KEEP
        if held >= 2:
            # a pair takes the pot, the only way while it is frozen (C-10)
            pair = PAIR_KEEP + PAIR_POT_SHARE * pot_worth
            if held > 2:
                return SPARE_KEEP  # one of three or more: a pair stays in hand
            return pair + PAIR_VALUE_SHARE * CARD_VALUES[kind]
        return SINGLE_KEEP_PER_UNSEEN * unseen[kind]
