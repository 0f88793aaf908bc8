"""Freezer: a stranger bot that freezes the pot with wild cards and wins it with pairs.

Written from the public documentation only (docs/rules.md, docs/observation.md,
docs/agents.md and the public API of ``canasta_env``): it reads the observation with
``decode_view`` and every legal id of the mask with ``MOVES``.

The plan. The pot is the biggest prize of a hand, and who may take it depends on whether it
is frozen (C-9 to C-11): an unfrozen pot goes to anyone whose team has a meld of the top
card's rank, or who holds one natural of it and a wild card; a frozen pot only to a player
holding a natural pair of that rank (three naturals where a wild card crosses or freezes the
pot, S-6, I-8). The Freezer plays on that difference:

* **Freezing.** When the pot grows valuable (``FREEZE_POT`` cards), or when even the
  safest natural it could throw would give the next player the pot, it discards a 2 (a
  joker only for a big pot): the wild card blocks the next player at once (C-12) and
  freezes the pot for everybody afterwards, so the opponents' melds and wild cards no
  longer take it. It freezes only while it holds natural pairs of its own, since a frozen
  pot goes to pairs, and never against teams that face a frozen pot anyway (C-9).
* **Winning the frozen pot.** While the pot is frozen it keeps its natural pairs and
  triples in hand instead of melding them, throws the third card of a triple rather than
  break a pair, weighs each pair by the pot it may win, and takes the pot whenever the mask
  allows.
* **Solid play otherwise.** It opens as soon as the opening minimum allows (G-5) with the
  fewest wild cards, adds naturals to its team's melds, keeps new melds in hand until the
  first canasta (C-14) while its melds on the table grow, puts a wild card on the biggest
  meld from ``WILD_ONTO_MELD`` cards and on any meld it completes, and lays the rest when
  it goes out.
* **Going out.** It goes out once its estimated hand score (its melds, canasta bonuses and
  red 3s, less the cards its partners hold) leads every other team's, when another team
  could go out first, or when the stock runs short; otherwise it keeps a card and goes on
  building. At a table without partners where one canasta lets a player go out (classic
  and canastone at 2 and 3 players) the hand is a race: it always goes out, and once it
  may, it takes only a pot whose cards meld at once or a big one.
* **Discarding.** The card that costs least: its worth in hand plus the chance that the
  next player takes the pot with it (counted from the cards seen: the own hand, every meld,
  the pot, the cards known in other hands, what the next player let go or threw away) times
  what the pot is worth to them.

The Freezer draws nothing at random: the same observation and mask give the same action.
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

# ------------------------------------------------------------------ freezing
#: An unfrozen pot of this many cards (with the discard) is frozen with a 2.
FREEZE_POT = 8
#: ... or a smaller one (of at least ``FREEZE_MIN_POT`` cards) when the safest natural
#: discard still gives the next player the pot with this chance.
FREEZE_RISK = 0.5
FREEZE_MIN_POT = 3
#: The Freezer freezes only while it holds this many natural pairs (a frozen pot goes to
#: the player with a pair of its top card).
FREEZE_PAIRS = 2
#: A joker freezes only a pot of this many cards.
JOKER_FREEZE_POT = 15

# ------------------------------------------------------------------ the race
#: Tables of at most this many players have no partners: whoever goes out first usually
#: wins the hand, so where one canasta lets a player go out the Freezer races: it always
#: wants out, and once its team may go out it draws rather than take a pot whose cards it
#: cannot meld at once (more than ``RACE_DEAD_CARDS`` of them) unless the pot is big.
RACE_PLAYERS = 3
RACE_DEAD_CARDS = 1
RACE_BIG_POT = 10

# ------------------------------------------------------------------ the pot
#: A wild card is spent on a take (``take +2``, ``take +JK``) only for a pot this big.
WILD_TAKE_POT = 6

# ------------------------------------------------------------------ melding
#: Once the team has its first canasta, new melds still wait in the hand while the pot is
#: frozen and holds this many cards: the pairs and triples in hand are what takes it.
HOLD_FROZEN_POT = 4
#: Without a canasta, a wild card goes onto the biggest meld once it holds this many cards.
WILD_ONTO_MELD = 5
#: ... from this many in a race (module docstring).
RACE_WILD_ONTO_MELD = 4

# ------------------------------------------------------------------ meld priorities
#: The tiers of meld moves, lowest first: the Freezer plays the legal meld of the highest
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
#: With fewer stock cards than this per player the Freezer goes out when it can.
STOCK_SHORT_PER_PLAYER = 3
#: An opponent with a hand this small, whose team may go out, is about to.
NEARLY_OUT = 4

# ------------------------------------------------------------------ discarding
#: What keeping a card of a natural pair is worth (a pair takes a frozen pot) ...
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
TWO_KEEP = 200
JOKER_KEEP = 400
#: What keeping a black 3 is worth: a black 3 blocks the next player (C-12).
BLACK3_KEEP = -15
#: A pot's worth to the player who takes it: a base and so much per card.
POT_BASE = 60
POT_PER_CARD = 45
#: A take that completes the next team's canasta costs this much more.
CANASTA_GIFT = 300
#: The next player's chance to hold a kind is multiplied by this when they let a pot with
#: that top card go by drawing, or threw that kind away this hand ...
DECLINED_FACTOR = 0.2
DISCARDED_FACTOR = 0.6
#: ... by this when their team has melded that rank (the pot is frozen: else any such
#: card takes it) ...
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


class Freezer:
    """Freezes a valuable pot with a 2 and takes frozen pots with its pairs (module
    docstring)."""

    name = "s1-freezer"

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
        # a race: no partners, and one canasta lets a player go out (C-14)
        self.race = (
            num_players <= RACE_PLAYERS
            and self.rules.go_out_min_canastas <= 1
            and not self.rules.go_out_needs_clean_and_dirty
        )

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
    def _lacks_canastas(self, team) -> bool:
        """The team still lacks what going out needs (C-14, S-15, I-11)."""
        if team.canastas < self.rules.go_out_min_canastas:
            return True
        if self.rules.go_out_needs_clean_and_dirty:
            return team.clean < 1 or team.dirty < 1
        return False

    def _frozen(self, view) -> bool:
        """The pot is frozen (or crossed) against the Freezer's team."""
        return view.pot_frozen or view.pot_crossed or view.pot_frozen_for_me

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

    def _wants_out(self, view) -> bool:
        """Going out now leads every other team, another team is about to go out, or the
        stock runs short."""
        if self.race or view.stock < STOCK_SHORT_PER_PLAYER * view.num_players:
            return True
        hands = [0] * len(view.teams)
        for player, team in zip(view.players[1:], self._team_of_players(view)[1:]):
            hands[team] += player.hand_size  # the partners' hands count too
        mine = self._meld_points(view.me) + self.rules.go_out_bonus - CARD_IN_HAND * hands[0]
        for index, team in enumerate(view.teams[1:], start=1):
            theirs = self._meld_points(team) - CARD_IN_HAND * hands[index]
            if theirs >= mine:
                return self._others_close(view)
        return True

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

    # ------------------------------------------------------------------ draw or take
    def _draw_phase(self, view, legal: list[int]) -> int:
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        fallback = DRAW if DRAW in legal else (PASS if PASS in legal else legal[0])
        if self.race and not self._lacks_canastas(view.me) and fallback == DRAW:
            if self._dead_cards(view) > RACE_DEAD_CARDS and view.pot_size < RACE_BIG_POT:
                return DRAW
        for take in (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER):
            if take not in takes:
                continue
            if take in (TAKE_WITH_TWO, TAKE_WITH_JOKER) and view.pot_size < WILD_TAKE_POT:
                continue
            return take
        return fallback

    def _dead_cards(self, view) -> int:
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
        return self._frozen(view) and view.pot_size >= HOLD_FROZEN_POT

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
        """How much the Freezer wants a meld move now: its tier, then two tie-breaks within
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
            least = RACE_WILD_ONTO_MELD if self.race else WILD_ONTO_MELD
            if before >= least and before == biggest:
                return (WILD_ON_MELD, before, -move.jokers)
        return (KEEP, 0, 0)  # wild cards wait for a canasta

    # ------------------------------------------------------------------ discarding
    def _discard(self, view, discards: list[int]) -> int:
        unseen = self._unseen(view)
        pot_cards = view.pot_size + 1
        pot_worth = POT_BASE + POT_PER_CARD * pot_cards
        frozen = view.pot_frozen or view.pot_crossed
        me = view.me
        best, best_cost = discards[0], math.inf
        safest_natural = 1.0
        for a in discards:
            kind = MOVES[a].slot
            keep = self._keep_value(view, kind, unseen, me, pot_worth, frozen)
            chance = self._take_chance(view, kind, unseen, frozen)
            if kind < NUM_NATURALS:
                safest_natural = min(safest_natural, chance)
            worth = pot_worth + self._canasta_gift(view, kind)
            cost = keep + chance * worth - SHED_TIE * CARD_VALUES[kind]
            if cost < best_cost:
                best, best_cost = a, cost
        freeze = self._freeze_card(view, discards, safest_natural, frozen)
        if freeze is not None:
            return freeze
        return best

    def _freeze_card(self, view, discards, safest: float, frozen: bool) -> int | None:
        """The wild card to freeze the pot with now, if the pot calls for it."""
        if frozen:
            return None
        if self.rules.frozen_for_unopened and not any(t.opened for t in view.teams[1:]):
            return None  # the pot is frozen against every other team already (C-9)
        pairs = sum(1 for rank in range(NUM_NATURALS) if view.hand[rank] >= 2)
        if pairs < FREEZE_PAIRS:
            return None  # a frozen pot goes to pairs: without them, freezing helps the others
        cards = view.pot_size + 1
        if cards < FREEZE_POT and not (cards >= FREEZE_MIN_POT and safest >= FREEZE_RISK):
            return None
        by_kind = {MOVES[a].slot: a for a in discards}
        if TWO in by_kind:
            return by_kind[TWO]
        if JOKER in by_kind and cards >= JOKER_FREEZE_POT:
            return by_kind[JOKER]
        return None

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

    def _keep_value(self, view, kind, unseen, me, pot_worth: float, frozen: bool) -> float:
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
            pair = PAIR_KEEP + (PAIR_POT_SHARE * pot_worth if frozen else 0.0)
            if held > 2:
                return SPARE_KEEP  # one of three or more: a pair stays in hand
            return pair + PAIR_VALUE_SHARE * CARD_VALUES[kind]
        return SINGLE_KEEP_PER_UNSEEN * unseen[kind]
