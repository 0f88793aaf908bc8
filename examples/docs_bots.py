"""Three house-style Canasta bots written from the public documentation alone.

They measure how a trained agent meets styles of play it never trained against
(docs/generalisation.md). Each was written as an outside bot writer would write it,
reading only README.md, docs/agents.md (the agent interface, the arena), docs/rules.md
and docs/rules_classic.md (the rules and their ids), docs/presets.md (the rules fields),
docs/observation.md (the observation), docs/getting_started.md, docs/tutorials.md,
``examples/my_bot.py``, the public ``canasta_env`` API (``canasta_env/actions.py``: the
move table ``MOVES``; ``canasta_env/cards.py``; ``canasta_env.observation.decode_view``)
and ``agents/base.py`` (the ``Agent`` interface); never the project's own heuristic bots
or its training code.

* ``Hoarder``: plays for canastas. Takes every pot it can with naturals (a wild card only
  for a pot of 6 or more), keeps pairs and wild cards, melds late in big groups: a new
  meld only of four or more naturals, a natural onto its meld only two at a time (or to
  finish a canasta), triples and lone cards waiting until the hand runs long (the stock
  under 25, an opponent down to 3 cards); puts wild cards down only toward a canasta the
  wild cards it holds finish, and does not go out before its team has two canastas
  (unless the stock runs short). Discards to deny: a black 3 first (a stop card), never a
  wild card, and otherwise the card the next player is least likely to take the pot with
  (a rank of their team's melds or a pair they are known to hold is certain; unseen
  copies are counted), breaking pairs last.
* ``Sprinter``: races to go out. Opens as soon as it can, melds everything it can as soon
  as it can (naturals first, then wild cards on the meld nearest a canasta, never on a
  clean canasta) and goes out the first turn the rules allow. Takes only a pot small
  enough not to slow it down: up to 4 cards with a pair, up to 8 onto one of its melds;
  never spends a wild card on a take; sheds the costliest lone card, black 3s first.
* ``PileBlocker``: defends the pile. Takes a pot of 3 cards or more whenever it may with
  naturals (a wild card for 6 or more), small pots only onto a meld; freezes a pot of 6
  cards or more, once the other side has opened, by discarding a 2 (a joker only when it
  holds no 2); keeps natural pairs (a frozen pot is taken only with a pair, C-10: no new
  meld of a pair and a wild card) and, while the pot holds 4 cards or more, its last wild
  card to freeze with; discards safe cards: black 3s, ranks the next player discarded or
  let go, ranks already in the pot, never a rank the next team melded or is known to
  hold. Goes out once it has a canasta and an opponent is close to going out, its team
  has two canastas or the stock is low.

Every choice is among the ids the mask allows, so each bot plays every preset and player
count (the action layout is the same for all, docs/getting_started.md). Ties are broken
by the action id, and by the bot's own ``random.Random`` (``rng``, reseeded by the arena
before every hand) for the Sprinter's and Hoarder's equal discards, so the same seed gives
the same hand.

``canasta arena --variant classic --players 4 --agents examples.docs_bots:Hoarder random``
"""

from __future__ import annotations

import math
import random

import numpy as np

from canasta_env.actions import (
    DISCARD,
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
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, NUM_NATURALS, TWO, deck_counts
from canasta_env.observation import decode_view
from canasta_env.rules import Rules, make_rules

CANASTA = 7  # G-4: a meld of 7 cards is a canasta
TAKES = (TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER, TAKE_ONTO_MELD)


class _DocsBot:
    """What the three bots share: the rules from ``reset``, the reading of the mask and
    the observation, and a card counter for the discard."""

    name = "docs-bot"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.seat = 0
        self.num_players = 2
        self.rules = make_rules("classic")
        self.copies = deck_counts(2, 2)

    def seed(self, seed: int | None) -> None:
        self.rng.seed(seed)

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        self.seat = seat
        self.num_players = num_players
        self.rules = make_rules(rules) if isinstance(rules, str) else rules
        decks = self.rules.decks_for(num_players)
        self.copies = deck_counts(decks, self.rules.jokers_per_deck)

    # ------------------------------------------------------------------ the turn

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if len(legal) == 1:
            return legal[0]
        view = decode_view(observation)
        if legal[0] < DISCARD:  # the draw phase: draw, a take or pass
            choice = self.draw_or_take(view, legal)
            return choice if choice in legal else legal[0]
        melds = [a for a in legal if MOVES[a].kind in (MOVE_MELD, MOVE_RUN)]
        discards = [MOVES[a].slot for a in legal if MOVES[a].kind == MOVE_DISCARD]
        if melds:
            choice = self.meld(view, melds, bool(discards))
            if choice is None and not discards:  # the turn cannot end yet: meld on
                choice = min(melds, key=lambda a: (MOVES[a].wilds, -MOVES[a].naturals, a))
            if choice is not None:
                return choice
        if not discards:
            return legal[0]
        return DISCARD + self.discard(view, discards)

    def draw_or_take(self, view, legal: list[int]) -> int:
        raise NotImplementedError

    def meld(self, view, melds: list[int], may_discard: bool) -> int | None:
        """A meld move, or None to stop melding (only asked while a discard is legal
        or some meld is)."""
        raise NotImplementedError

    def discard(self, view, kinds: list[int]) -> int:
        raise NotImplementedError

    # ------------------------------------------------------------------ reading the table

    @staticmethod
    def fallback_draw(legal: list[int]) -> int:
        """Draw when it may; else the stock is short: take the pot if it may, else pass."""
        if DRAW in legal:
            return DRAW
        takes = [a for a in legal if a in TAKES]
        return takes[0] if takes else (PASS if PASS in legal else legal[0])

    @staticmethod
    def size_after(view, action: int) -> int:
        """Cards in the team's meld of the move's slot after the move."""
        move = MOVES[action]
        if move.kind == MOVE_RUN:
            return move.cards
        if move.new:
            return move.cards
        return view.me.meld_size(move.slot) + move.cards

    @staticmethod
    def completes_canasta(view, action: int) -> bool:
        move = MOVES[action]
        if move.kind == MOVE_RUN or move.slot == SLOT_BLACK3:
            return False
        before = 0 if move.new else view.me.meld_size(move.slot)
        return before < CANASTA <= before + move.cards

    @staticmethod
    def onto_canasta(view, action: int) -> bool:
        move = MOVES[action]
        return not move.new and move.kind == MOVE_MELD and view.me.meld_size(move.slot) >= CANASTA

    @staticmethod
    def wilds_in_hand(view) -> int:
        return view.hand[TWO] + view.hand[JOKER]

    @staticmethod
    def smallest_opponent_hand(view) -> int:
        return min(p.hand_size for p in view.players if not p.teammate)

    def take_chance(self, view, kind: int) -> float:
        """How likely the next player (always an opponent, G-3) can take the pot if this
        kind is discarded on it: 0 for a black 3 or a wild card (they block it, C-12); 1 for a
        rank of their team's melds while the pot stays unfrozen, and for a known pair; otherwise a
        Poisson estimate from the unseen copies of the kind."""
        if kind >= NUM_NATURALS:  # 2, joker, black 3: the pot is blocked after it
            return 0.0
        nxt = view.players[1]
        their = view.teams[1]
        unfrozen = not view.pot_wild
        onto = unfrozen and their.opened and self.rules.take_onto_meld
        if onto and their.has_meld(kind):
            return 1.0
        if nxt.known[kind] >= 2:
            return 1.0
        seen = view.hand[kind] + view.pot_known[kind]
        seen += sum(team.naturals[kind] for team in view.teams)
        seen += sum(7 * (team.closed_clean[kind] + team.closed_dirty[kind]) for team in view.teams)
        seen += sum(p.known[kind] for p in view.players[1:])
        live = max(0, self.copies[kind] - seen)
        unknown_hand = max(0, nxt.hand_size - sum(nxt.known))
        pool = view.stock + view.pot_face_down
        pool += sum(max(0, p.hand_size - sum(p.known)) for p in view.players[1:])
        expected = live * unknown_hand / max(pool, 1)
        needed = max(1, (3 if view.pot_wild and view.three_to_take_frozen else 2) - nxt.known[kind])
        if needed == 1:
            chance = 1.0 - math.exp(-expected)
        else:
            chance = 1.0 - math.exp(-expected) * (1.0 + expected)
            if unfrozen and self.rules.take_with_wild:  # one natural and a wild card (C-11)
                chance += 0.4 * (1.0 - math.exp(-expected)) * (1.0 - chance)
        if not their.opened and self.rules.frozen_for_unopened:
            chance *= 0.6  # they must open with it too (C-10)
        return min(1.0, chance)


class Hoarder(_DocsBot):
    """Plays for canastas: takes pots, keeps pairs and wild cards, melds late in big groups,
    goes out only with two canastas, discards to deny (module docstring)."""

    name = "hoarder"

    def wants_out(self, view) -> bool:
        return view.me.canastas >= 2 or view.stock <= 10

    def draw_or_take(self, view, legal: list[int]) -> int:
        if TAKE_ONTO_MELD in legal:
            return TAKE_ONTO_MELD
        if TAKE in legal:
            return TAKE
        if view.pot_size >= 6:
            for take in (TAKE_WITH_TWO, TAKE_WITH_JOKER):
                if take in legal:
                    return take
        return self.fallback_draw(legal)

    def meld(self, view, melds: list[int], may_discard: bool) -> int | None:
        hand = view.hand_size
        out = self.wants_out(view)
        if out and view.may_go_out:  # melt the hand down: naturals, then wild cards
            return min(melds, key=lambda a: (MOVES[a].wilds, -self.size_after(view, a), a))
        keep = [a for a in melds if hand - MOVES[a].cards >= 2 or out]
        if not view.me.opened:
            natural = [a for a in keep if MOVES[a].wilds == 0]
            pressure = (
                any(t.opened for t in view.teams[1:]) or view.pot_size >= 6 or view.stock < 40
            )
            if view.staged or not may_discard:  # opening already begun: finish it
                pool = natural or keep or melds
            elif natural:
                pool = natural
            elif pressure:
                pool = keep
            else:
                return None
            return min(pool, key=lambda a: (MOVES[a].wilds, -MOVES[a].points, a))
        late = view.stock < 25 or hand >= 14 or self.smallest_opponent_hand(view) <= 3
        wilds = self.wilds_in_hand(view)
        best = None
        for a in keep:
            move = MOVES[a]
            if move.kind == MOVE_RUN:
                score = 0
            elif move.slot == SLOT_BLACK3:
                continue
            elif move.slot == SLOT_WILD:  # a wild-only meld: only a whole canasta
                if move.cards < CANASTA and not self.completes_canasta(view, a):
                    continue
                score = 1
            elif move.wilds == 0 and not move.new:
                if not (late or view.hand[move.slot] >= 2 or self.completes_canasta(view, a)):
                    continue  # a lone natural waits in hand for its partners
                score = 2  # naturals on a meld of ours
            elif move.wilds == 0 and (move.naturals >= 4 or late):
                score = 3
            elif move.wilds and self.completes_canasta(view, a):
                score = 4
            elif (
                move.wilds
                and not move.new
                and not self.onto_canasta(view, a)
                and view.me.meld_size(move.slot) + wilds >= CANASTA
            ):
                score = 5  # the wild cards held finish this canasta: start laying them
            else:
                continue
            key = (score, -self.size_after(view, a), a)
            if best is None or key < best[0]:
                best = (key, a)
        return best[1] if best else None

    def discard(self, view, kinds: list[int]) -> int:
        if BLACK3 in kinds:
            return BLACK3
        pot = view.pot_size + 1
        melded = view.me

        def cost(kind: int) -> float:
            if kind in (TWO, JOKER):
                return 10_000.0 + CARD_VALUES[kind]
            held = view.hand[kind]
            keep = 0.0 if held == 1 else 40.0 * (held - 1)  # pairs to take the pot with
            if melded.has_meld(kind):
                keep += 25.0
            deny = self.take_chance(view, kind) * (60.0 + 25.0 * pot)
            return deny + keep - 0.3 * CARD_VALUES[kind] + self.rng.random() * 1e-3

        return min(kinds, key=cost)


class Sprinter(_DocsBot):
    """Races to go out: melds all it can at once, goes out when the rules allow, takes
    only small pots (module docstring)."""

    name = "sprinter"
    SMALL_POT = 4

    def draw_or_take(self, view, legal: list[int]) -> int:
        if TAKE_ONTO_MELD in legal and (view.pot_size <= 2 * self.SMALL_POT or DRAW not in legal):
            return TAKE_ONTO_MELD
        if TAKE in legal and (view.pot_size <= self.SMALL_POT or DRAW not in legal):
            return TAKE
        return self.fallback_draw(legal)

    def meld(self, view, melds: list[int], may_discard: bool) -> int | None:
        def key(a: int):
            move = MOVES[a]
            if move.kind == MOVE_RUN:
                return (0, 0, a)
            if move.wilds == 0:
                return (1, -self.size_after(view, a), a)
            if self.onto_canasta(view, a) and not view.may_go_out:
                return (9, 0, a)  # a wild card on a canasta costs its clean bonus
            if move.new:
                return (3, move.wilds, a)
            return (2, -view.me.meld_size(move.slot), a)

        choice = min(melds, key=key)
        return None if key(choice)[0] == 9 else choice

    def discard(self, view, kinds: list[int]) -> int:
        if BLACK3 in kinds:
            return BLACK3

        def cost(kind: int) -> float:
            if kind in (TWO, JOKER):
                return 10_000.0 + CARD_VALUES[kind]
            return 100.0 * view.hand[kind] - CARD_VALUES[kind] + self.rng.random() * 1e-3

        return min(kinds, key=cost)


class PileBlocker(_DocsBot):
    """Defends the pile: freezes a big pot with a 2, takes big pots, discards safe cards
    (module docstring)."""

    name = "pile-blocker"
    BIG_POT = 6

    def wants_out(self, view) -> bool:
        if view.me.canastas == 0:
            return False
        return (
            view.me.canastas >= 2
            or self.smallest_opponent_hand(view) <= 4
            or view.stock <= 20
            or view.hand_size <= 3
        )

    def draw_or_take(self, view, legal: list[int]) -> int:
        if TAKE_ONTO_MELD in legal:
            return TAKE_ONTO_MELD
        if TAKE in legal and (view.pot_size >= 3 or DRAW not in legal):
            return TAKE
        if view.pot_size >= self.BIG_POT:
            for take in (TAKE_WITH_TWO, TAKE_WITH_JOKER):
                if take in legal:
                    return take
        return self.fallback_draw(legal)

    def meld(self, view, melds: list[int], may_discard: bool) -> int | None:
        hand = view.hand_size
        out = self.wants_out(view)
        if out and view.may_go_out:
            return min(melds, key=lambda a: (MOVES[a].wilds, -self.size_after(view, a), a))
        keep = [a for a in melds if hand - MOVES[a].cards >= 2 or out]
        if not view.me.opened:
            pool = [a for a in keep if MOVES[a].wilds <= 1] or keep or melds
            return min(pool, key=lambda a: (MOVES[a].wilds, -MOVES[a].points, a))
        wilds = self.wilds_in_hand(view)
        best = None
        for a in keep:
            move = MOVES[a]
            if move.kind == MOVE_RUN:
                score = 0
            elif move.slot == SLOT_BLACK3:
                continue
            elif move.wilds == 0 and (not move.new or move.naturals >= 3):
                score = 1  # naturals: onto a meld, or a new meld of three or more
            elif move.slot == SLOT_WILD:
                continue
            elif move.new or self.onto_canasta(view, a) or (wilds < 2 and view.pot_size >= 4):
                continue  # keep pairs for a frozen pot, and a last wild card to freeze one
            else:
                score = 2 if self.completes_canasta(view, a) else 3
            key = (score, -self.size_after(view, a), a)
            if best is None or key < best[0]:
                best = (key, a)
        return best[1] if best else None

    def discard(self, view, kinds: list[int]) -> int:
        opponents_open = any(t.opened for t in view.teams[1:])
        if view.pot_size >= self.BIG_POT and not view.pot_wild and opponents_open:
            for wild in (TWO, JOKER):  # freeze the pot (C-9)
                if wild in kinds:
                    return wild
        if BLACK3 in kinds:
            return BLACK3
        nxt_history = view.history[1]
        their = view.teams[1]

        def cost(kind: int) -> tuple:
            if kind in (TWO, JOKER):
                return (3, CARD_VALUES[kind], kind)
            unsafe = (their.opened and their.has_meld(kind)) or view.players[1].known[kind] > 0
            safety = (
                2 * (nxt_history.discarded[kind] > 0)
                + (nxt_history.declined[kind] > 0)
                + min(view.pot_known[kind], 3)
                + min(view.since_my_discard[kind], 2)
            )
            pair = view.hand[kind] >= 2
            return (int(unsafe), int(pair), -safety, -CARD_VALUES[kind], kind)

        return min(kinds, key=cost)
