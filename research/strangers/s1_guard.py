"""Guard: a stranger bot that never hands the pot to the next player if it can help it.

Written from the public documentation only (docs/rules.md, docs/observation.md,
docs/agents.md and the public API of ``canasta_env``): it reads the observation with
``decode_view`` and every legal id of the mask with ``MOVES``.

The plan. Every discard offers the pot to the next player, and a pot taken is the biggest
swing of a hand; the Guard plays its discards as a defender:

* **Tracking every card seen.** The cards it has not seen are the deck less its own hand,
  every meld on the table (finished canastas too), the pot's face-up cards and the cards
  known to be in other hands because they came from a taken pot (G-8). It also keeps, for
  the next player, a memory of the hand: when that player let a pot go by drawing (the
  top card's rank is then one they could not take with) and what they threw away, with
  how many turns ago, since every card drawn since may have brought a pair.
* **Discarding what the next player is least likely to use.** The chance that they can
  take the pot with a card (their team's meld of its rank, a natural pair, one natural and
  a wild card; only a natural pair while the pot is frozen, C-9 to C-11) comes from that
  count and that memory; a rank whose every copy is seen is dead and safe. A card that
  goes onto one of their melds is never thrown while any other card will do.
* **Stop cards.** A black 3 on top blocks the next player (C-12): the Guard keeps its black
  3s for when the pot is worth blocking (``STOP_POT`` cards), and throws them then, or at
  once where a black 3 left in hand costs more than a stop card is worth (S-14). A wild
  card blocks too, but it is thrown only when every other card would give the next player
  the pot or feed their melds.
* **Melding soundly.** It opens as soon as the opening minimum allows, with the fewest wild
  cards, adds naturals to its team's melds, keeps new melds in hand while the team has no
  canasta or the pot is frozen (the pairs in them take the pot), and puts wild cards on a
  meld toward a canasta. It goes out when its estimated hand score leads, when another
  team could go out, or when the stock runs short; at a table without partners, where one
  canasta lets a player go out (classic, canastone), it goes out at once.
* **Taking big pots.** It takes the pot whenever the mask allows it with naturals (or onto
  a meld), and spends a wild card on a take only for a big pot. In a race, once its team
  may go out, a small pot is taken only if its cards meld at once: cards that stay in the
  hand would keep it from going out.

The Guard draws nothing at random: the same observations and masks give the same actions.
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

# ------------------------------------------------------------------ the race
#: Tables of at most this many players have no partners: where one canasta lets a player
#: go out, the Guard goes out the first time it may.
RACE_PLAYERS = 3

# ------------------------------------------------------------------ the pot
#: In a race, once its team may go out, the Guard takes a pot of fewer than ``BIG_POT``
#: cards only when at most ``SMALL_POT_DEAD_CARDS`` of its cards would stay unmelded in the
#: hand.
BIG_POT = 10
SMALL_POT_DEAD_CARDS = 1
#: A wild card is spent on a take (``take +2``, ``take +JK``) only for a pot this big.
WILD_TAKE_POT = 6

# ------------------------------------------------------------------ melding
#: Once the team has its first canasta, new melds still wait in the hand while the pot is
#: frozen and holds this many cards: the pairs and triples in hand are what takes it.
HOLD_FROZEN_POT = 4
#: Without a canasta, a wild card goes onto the biggest meld once it holds this many cards.
WILD_ONTO_MELD = 4

# ------------------------------------------------------------------ meld priorities
#: The tiers of meld moves, lowest first: the Guard plays the legal meld of the highest
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

# ------------------------------------------------------------------ going out
#: Points guessed for each card in an opponent's hand at the end of the hand.
CARD_IN_HAND = 9
#: With fewer stock cards than this per player the Guard goes out when it can.
STOCK_SHORT_PER_PLAYER = 3
#: An opponent with a hand this small, whose team may go out, is about to.
NEARLY_OUT = 4

# ------------------------------------------------------------------ discarding
#: A pot's worth to the player who takes it: a base and so much per card.
POT_BASE = 60
POT_PER_CARD = 45
#: A take that completes the next team's canasta costs this much more.
CANASTA_GIFT = 300
#: A card that the next team can take onto its meld costs this much on top of the pot.
FEED_COST = 400
#: What keeping a card of a natural pair is worth (a pair takes the pot) ...
PAIR_KEEP = 35
#: ... and this share of what the pot is worth while it is frozen.
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
#: What keeping a natural of a rank the team has melded is worth.
MELDED_KEEP = 25
#: What keeping a 2 and a joker is worth.
TWO_KEEP = 250
JOKER_KEEP = 400
#: What keeping a black 3 is worth while the pot is small: a stop card for later ...
STOP_KEEP = 40
#: ... and from this many pot cards (with the discard) a black 3 is thrown at once.
STOP_POT = 5
#: The next player's chance to hold a kind right after they let a pot with that top card
#: go by drawing, or right after they threw that kind away, is multiplied by this; the
#: factor fades back to 1 over ``MEMORY_TURNS`` of their turns.
DECLINED_FACTOR = 0.15
DISCARDED_FACTOR = 0.5
MEMORY_TURNS = 8
#: ... by this when their team has melded that rank (while the pot is frozen: else any
#: such card takes it), since a player lays such cards on the meld ...
MELDED_RANK_FACTOR = 0.3
#: ... and by this when their team has not opened (it must also reach its minimum).
UNOPENED_FACTOR = 0.5


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


class _NextPlayerMemory:
    """What the next player showed this hand: per kind, their discard count at the turn
    they last let a pot with that top card go or threw that kind away (their discards
    count their turns)."""

    def __init__(self):
        self.declined = [0] * NUM_HAND_KINDS
        self.discarded = [0] * NUM_HAND_KINDS
        self.declined_at = [-1] * NUM_HAND_KINDS
        self.discarded_at = [-1] * NUM_HAND_KINDS

    def update(self, history) -> int:
        """Note what changed since the last look; returns their turns so far."""
        turns = sum(history.discarded)
        for kind in range(NUM_HAND_KINDS):
            if history.declined[kind] > self.declined[kind]:
                self.declined_at[kind] = turns
            if history.discarded[kind] > self.discarded[kind]:
                self.discarded_at[kind] = turns
        self.declined = list(history.declined)
        self.discarded = list(history.discarded)
        return turns

    def factor(self, kind: int, turns: int) -> float:
        """How much less likely they hold what takes a pot of ``kind`` than the count says."""
        factor = 1.0
        for at, base in (
            (self.declined_at[kind], DECLINED_FACTOR),
            (self.discarded_at[kind], DISCARDED_FACTOR),
        ):
            if at >= 0:
                faded = min(1.0, (turns - at) / MEMORY_TURNS)
                factor = min(factor, base + (1.0 - base) * faded)
        return factor


class Guard:
    """Discards what the next player cannot use, keeps black 3s as stop cards, melds
    soundly and takes big pots (module docstring)."""

    name = "s1-guard"

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
        self.race = (
            num_players <= RACE_PLAYERS
            and self.rules.go_out_min_canastas <= 1
            and not self.rules.go_out_needs_clean_and_dirty
        )
        self.memory = _NextPlayerMemory()
        self.turns = 0

    # ------------------------------------------------------------------ acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        view = decode_view(observation)
        self.turns = self.memory.update(view.history[1])
        if len(legal) == 1:
            return legal[0]
        if legal[0] <= PASS:
            return self._draw_phase(view, legal)
        return self._meld_phase(view, legal)

    # ------------------------------------------------------------------ the table
    def _lacks_canastas(self, team) -> bool:
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

    def _take_chance(self, view, kind: int, unseen: list[int], frozen: bool) -> float:
        """The chance that the next player can take the pot with ``kind`` on top."""
        if kind >= NUM_NATURALS:
            return 0.0  # a wild card or a black 3 on top blocks the pot (C-12, S-6, I-7)
        rules = self.rules
        nxt = view.players[1]
        team = view.teams[1]
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
            chance *= self.memory.factor(kind, self.turns)
            if not team.opened:
                chance *= UNOPENED_FACTOR
            elif team.has_meld(kind):
                chance *= MELDED_RANK_FACTOR
        return min(1.0, chance)

    def _meld_points(self, team) -> int:
        """Card values on a team's table, canasta bonuses and red 3s (G-9), roughly."""
        rules = self.rules
        points = 0
        for slot in range(SLOT_WILD + 1):
            if slot < NUM_NATURALS:
                value = CARD_VALUES[slot]
            else:
                value = CARD_VALUES[BLACK3] if slot == SLOT_BLACK3 else 0
            points += value * team.naturals[slot]
            points += CARD_VALUES[TWO] * team.twos[slot] + CARD_VALUES[JOKER] * team.jokers[slot]
        points += team.clean * rules.clean_canasta_bonus + team.dirty * rules.dirty_canasta_bonus
        red3 = rules.red3_total(team.red3)
        return points + (red3 if team.opened else -red3)

    def _team_of_players(self, view) -> list[int]:
        """The team copy (in ``view.teams``) of each seat copy (in ``view.players``)."""
        teams = len(view.teams)
        return [offset % teams for offset in range(len(view.players))]

    def _others_close(self, view) -> bool:
        """Some other team has what going out needs and a player with a short hand."""
        team_of = self._team_of_players(view)
        for player, team in zip(view.players, team_of):
            if team and player.hand_size <= NEARLY_OUT:
                if not self._lacks_canastas(view.teams[team]):
                    return True
        return False

    def _wants_out(self, view) -> bool:
        """Going out now leads every other team, another team is about to go out, or the
        stock runs short; always in a race."""
        if self.race or view.stock < STOCK_SHORT_PER_PLAYER * view.num_players:
            return True
        hands = [0] * len(view.teams)
        for player, team in zip(view.players[1:], self._team_of_players(view)[1:]):
            hands[team] += player.hand_size  # the partners' hands count too
        mine = self._meld_points(view.me) + self.rules.go_out_bonus - CARD_IN_HAND * hands[0]
        for index, team in enumerate(view.teams[1:], start=1):
            if self._meld_points(team) - CARD_IN_HAND * hands[index] >= mine:
                return self._others_close(view)
        return True

    # ------------------------------------------------------------------ draw or take
    def _draw_phase(self, view, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        fallback = DRAW if DRAW in legal else (PASS if PASS in legal else legal[0])
        if self.race and not self._lacks_canastas(view.me) and fallback == DRAW:
            # racing, once it may go out: a small pot is taken only if its cards meld at once
            if self._dead_cards(view) > SMALL_POT_DEAD_CARDS and view.pot_size < BIG_POT:
                return DRAW
        for take in (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER):
            if take not in takes:
                continue
            if take in (TAKE_WITH_TWO, TAKE_WITH_JOKER) and view.pot_size < WILD_TAKE_POT:
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
            if count <= 0 or kind in (TWO, JOKER):
                continue
            if kind < NUM_NATURALS and (me.has_meld(kind) or count + view.hand[kind] >= 3):
                continue
            dead += count
        return dead

    # ------------------------------------------------------------------ meld or discard
    def _meld_phase(self, view, legal: list[int]) -> int:
        hand_size = sum(view.hand)
        melds = [a for a in legal if MOVES[a].kind in (MOVE_MELD, MOVE_RUN)]
        discards = [a for a in legal if MOVES[a].kind == MOVE_DISCARD]
        wants_out = self._wants_out(view)
        if wants_out:
            for a in melds:
                if MOVES[a].cards == hand_size:
                    return a
            if hand_size == 1 and discards:
                return discards[0]
        going_out = wants_out and view.still_needed == 0 and self._can_go_out(view)
        if melds:
            scored = [(self._meld_priority(view, MOVES[a], going_out), a) for a in melds]
            if not wants_out:
                # a card stays in hand to discard: no move may leave fewer than two
                scored = [(p, a) for p, a in scored if hand_size - MOVES[a].cards >= 2]
            if scored:
                priority, best = max(scored)
                if priority[0] > KEEP or not discards:
                    return best
            elif not discards:
                return melds[0]
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

    def _holds_pairs(self, view) -> bool:
        """New melds wait in the hand: before the first canasta (the melds on the table
        grow toward it), and while the pot is frozen and worth a pair, unless another team
        is about to go out and the cards in hand would count against the team."""
        if self._lacks_canastas(view.me):
            return True
        if self._others_close(view):
            return False
        frozen = view.pot_frozen or view.pot_crossed or view.pot_frozen_for_me
        return frozen and view.pot_size >= HOLD_FROZEN_POT

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
        """How much the Guard wants a meld move now: its tier, then two tie-breaks within
        the tier; a move of tier ``KEEP`` is not played."""
        if move.kind == MOVE_RUN:
            return (RUN, move.cards, 0)
        me = view.me
        size = self.rules.canasta_size
        if view.still_needed > 0:
            # fewest wild cards, then most points: wild cards stay for the canasta
            return (OPENING, -move.wilds, move.points)
        before = 0 if move.new else me.meld_size(move.slot)
        after = before + move.cards
        lacks = self._lacks_canastas(me)
        if move.wilds == 0:
            if move.new and after < size and not going_out and self._holds_pairs(view):
                return (KEEP, 0, 0)  # the pairs in hand take a frozen pot
            return (NATURALS, move.cards, before)
        if self._spoils_clean(me, move):
            return (KEEP, 0, 0)
        if before < size <= after:
            return (WILD_COMPLETES, lacks, 0)
        if going_out:
            if move.new:
                return (PAIR_WITH_WILD, move.naturals, -move.wilds)
            if before >= size:
                dirty = me.twos[move.slot] + me.jokers[move.slot] > 0
                return (WILD_ON_DIRTY_CANASTA if dirty else WILD_ON_CLEAN_CANASTA, 0, 0)
            return (WILD_ON_MELD, before, 0)
        if lacks and not move.new and move.slot != SLOT_WILD:
            biggest = max(
                (me.meld_size(slot) for slot in range(NUM_NATURALS) if me.meld_size(slot) < size),
                default=0,
            )
            if before >= WILD_ONTO_MELD and before == biggest:
                return (WILD_ON_MELD, before, -move.jokers)
        return (KEEP, 0, 0)  # wild cards wait for a canasta

    # ------------------------------------------------------------------ discarding
    def _discard(self, view, discards: list[int]) -> int:
        unseen = self._unseen(view)
        pot_cards = view.pot_size + 1
        pot_worth = POT_BASE + POT_PER_CARD * pot_cards
        frozen = view.pot_frozen or view.pot_crossed
        me = view.me
        team = view.teams[1]
        feeds = (
            not frozen
            and self.rules.take_onto_meld
            and (team.opened or not self.rules.frozen_for_unopened)
        )
        best, best_cost = discards[0], math.inf
        for a in discards:
            kind = MOVES[a].slot
            keep = self._keep_value(view, kind, unseen, me, pot_worth, pot_cards, frozen)
            chance = self._take_chance(view, kind, unseen, frozen)
            worth = pot_worth + self._canasta_gift(view, kind)
            if feeds and kind < NUM_NATURALS and team.has_meld(kind):
                worth += FEED_COST
            cost = keep + chance * worth - SHED_TIE * CARD_VALUES[kind]
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

    def _keep_value(self, view, kind, unseen, me, pot_worth, pot_cards, frozen) -> float:
        held = view.hand[kind]
        if kind == TWO:
            return TWO_KEEP
        if kind == JOKER:
            return JOKER_KEEP
        if kind == BLACK3:
            penalty = self.rules.black3_in_hand_penalty
            if pot_cards >= STOP_POT or penalty > STOP_KEEP or self._others_close(view):
                return -penalty  # throw the stop card now (S-14: it may cost 100 in hand)
            return STOP_KEEP
        if me.has_meld(kind):
            return MELDED_KEEP
        if held >= 2:
            pair = PAIR_KEEP + (PAIR_POT_SHARE * pot_worth if frozen else 0.0)
            if held > 2:
                return SPARE_KEEP  # one of three or more: a pair stays in hand
            return pair + PAIR_VALUE_SHARE * CARD_VALUES[kind]
        return SINGLE_KEEP_PER_UNSEEN * unseen[kind]
