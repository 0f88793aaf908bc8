"""The suits of the cards, one component of the state (S-19, ``rules.sequences``).

The engine plays with card kinds; only the optional Spanish runs need suits
(:mod:`~canasta_env.engine.sequences` tells how they are followed and which suit a
meld, a pot take or a discard gives up). :class:`Suits` holds every suit the game
follows, beside the kind counts of the state:

* ``stock`` and ``pot``: the suit of each stock and pot card, in their order
  (-1 for a card that is not a natural);
* ``hands[seat]`` and ``held``: counts of naturals per ``kind * 4 + suit``
  (:data:`~canasta_env.engine.sequences.SUITED_SIZE` entries), the suited view of
  ``hands`` and ``held``.

Its methods are the moves of the engine that carry suits (a card dealt or drawn,
a discard, a meld, a pot take, set-aside cards released, a run laid), each named
as the engine names the move; the runs laid are in the state's ``escalas``.

Without the option the state holds :data:`NO_SUITS`, a null object whose moves do
nothing, rather than ``None``. Why: the engine then makes the same call at every move,
with or without suits, instead of asking at each one whether suits are followed (the
four parallel ``None``-or-list fields this replaces took 18 such branches in the
engine alone), and the four parts can never be half there. A no-op call costs the
game without suits about as much as the test it replaces (one per card moved, next to
the work of the move). Only the readers outside the engine ask: :meth:`Suits.hand`
(``None`` without suits) or :attr:`Suits.tracked`, where what they show or write
differs; the state file format does not change (:mod:`canasta_env.state_io`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import ClassVar

from canasta_env.cards import NUM_NATURALS
from canasta_env.engine.sequences import NUM_SUITS, SUITED_SIZE, held_runs, remove_suits


@dataclass(eq=True, repr=False)
class Suits:
    """The suits of a hand's cards (S-19): stock and pot in order, hands and held counted."""

    stock: list[int]  #: suits of the stock, in its order (draws pop from the end)
    hands: list[list[int]]  #: [seat][kind * 4 + suit] naturals held
    pot: list[int]  #: suits of the pot cards, bottom first
    held: list[int]  #: [kind * 4 + suit] pot naturals set aside for an opening (C-8)

    #: Are suits followed? (False only for :data:`NO_SUITS`.)
    tracked: ClassVar[bool] = True

    @classmethod
    def dealt(cls, order: list[tuple[int, int]], num_players: int) -> Suits:
        """The suits of a new hand whose stock is ``order`` (``(kind, suit)``, drawn from
        the end): only naturals keep their suit (runs are made of naturals), -1 for the
        rest; empty hands, pot and held cards."""
        stock = [suit if kind < NUM_NATURALS else -1 for kind, suit in order]
        hands = [[0] * SUITED_SIZE for _ in range(num_players)]
        return cls(stock, hands, [], [0] * SUITED_SIZE)

    def __repr__(self) -> str:
        return f"Suits(stock={len(self.stock)}, pot={len(self.pot)}, hands={len(self.hands)})"

    # ------------------------------------------------------------------ reading
    def hand(self, seat: int) -> list[int] | None:
        """``seat``'s naturals by ``kind * 4 + suit`` (None without suits)."""
        return self.hands[seat]

    def pot_top(self) -> int:
        """The suit of the pot's top card (-1 for an empty pot or without suits)."""
        return self.pot[-1] if self.pot else -1

    def stock_from_top(self) -> list[int] | None:
        """The stock's suits next card first, as the state file lists the stock (None
        without suits)."""
        return self.stock[::-1]

    def runs(self, seat: int) -> list[int]:
        """The ``escala`` action ids whose cards are all in ``seat``'s hand."""
        return held_runs(self.hands[seat])

    def seen(self, stock: list[int], pot: list[int], escalas: list[list]) -> list[int]:
        """Every suited natural of the hand counted by ``kind * 4 + suit``: in the
        hands, held, stock and pot (whose kinds are ``stock`` and ``pot``) and in
        the runs ``escalas`` (the conservation check: none more than the decks hold)."""
        seen = [0] * SUITED_SIZE
        for counts in self.hands + [self.held]:
            for index, count in enumerate(counts):
                seen[index] += count
        for kind, suit in zip(stock + pot, self.stock + self.pot, strict=True):
            if kind < NUM_NATURALS:
                seen[kind * NUM_SUITS + suit] += 1
        for runs in escalas:
            for suit, start, length in runs:
                for rank in range(start, start + length):
                    seen[rank * NUM_SUITS + suit] += 1
        return seen

    # ------------------------------------------------------------------ the moves
    def draw(self, seat: int, card: int) -> None:
        """The stock's last card ``card`` went to ``seat``'s hand (or, a red 3, to the
        table: its suit is not followed)."""
        suit = self.stock.pop()
        if card < NUM_NATURALS:
            self.hands[seat][card * NUM_SUITS + suit] += 1

    def stock_to_pot(self, at: int) -> None:
        """The stock's last card went into the pot at position ``at`` (C-3, S-3, I-3)."""
        self.pot.insert(at, self.stock.pop())

    def take_pot(self, seat: int, top: int, naturals: int, rest: list[int]) -> None:
        """``seat`` took the pot: its top card ``top`` and ``naturals`` of its kind from
        the hand go to the table, the other cards ``rest`` (kinds) are set aside."""
        self.pot.pop()
        rest_suits = self.pot
        self.pot = []
        remove_suits(self.hands[seat], top, naturals)
        held = self.held
        for card, suit in zip(rest, rest_suits):
            if card < NUM_NATURALS:
                held[card * NUM_SUITS + suit] += 1

    def release_held(self, seat: int) -> None:
        """The set-aside pot cards join ``seat``'s hand (C-8)."""
        suited = self.hands[seat]
        for index, count in enumerate(self.held):
            suited[index] += count
        self.held = [0] * SUITED_SIZE

    def clear_held(self) -> None:
        """A new turn: nothing is set aside."""
        self.held = [0] * SUITED_SIZE

    def meld(self, seat: int, kind: int, naturals: int) -> None:
        """``seat`` melded ``naturals`` cards of ``kind`` (melds keep no suits)."""
        if kind < NUM_NATURALS:
            remove_suits(self.hands[seat], kind, naturals)

    def discard(self, seat: int, kind: int) -> None:
        """``seat`` discarded a card of ``kind`` onto the pot."""
        suit = remove_suits(self.hands[seat], kind, 1)[0] if kind < NUM_NATURALS else -1
        self.pot.append(suit)

    def lay_run(self, seat: int, suit: int, start: int, length: int) -> None:
        """``seat`` laid the run of ``suit`` from rank ``start`` (S-19)."""
        suited = self.hands[seat]
        for rank in range(start, start + length):
            suited[rank * NUM_SUITS + suit] -= 1

    # ------------------------------------------------------------------ whole
    def copy(self) -> Suits:
        """An independent copy."""
        return Suits(self.stock[:], [hand[:] for hand in self.hands], self.pot[:], self.held[:])

    def redealt(self, game, world, seat: int, rng: random.Random) -> Suits:
        """The suits of ``world``, a redeal of ``game`` for ``seat`` whose kinds are dealt
        already (:func:`~canasta_env.engine.determinize.determinize`): the suits of the
        naturals ``seat`` cannot see, rank by rank, shuffled over their new places. (Both
        are game states, untyped here: the state holds this component, not the reverse.)"""
        others = [other for other in range(game.num_players) if other != seat]
        face_down = game.pot_hidden
        pools: list[list[int]] = [[0] * NUM_SUITS for _ in range(NUM_NATURALS)]
        for other in others:
            hand = self.hands[other]
            for kind in range(NUM_NATURALS):
                for suit in range(NUM_SUITS):
                    pools[kind][suit] += hand[kind * NUM_SUITS + suit]
        unseen = game.pot[:face_down] + game.stock
        for kind, suit in zip(unseen, self.pot[:face_down] + self.stock):
            if kind < NUM_NATURALS:
                pools[kind][suit] += 1
        # a fixed order (by suit), so the result depends on the hidden suits' counts only
        dealt = []
        for kind in range(NUM_NATURALS):
            pool = [suit for suit in range(NUM_SUITS) for _ in range(pools[kind][suit])]
            rng.shuffle(pool)
            dealt.append(pool)
        hands = [hand[:] for hand in self.hands]
        for other in others:
            hand = [0] * SUITED_SIZE
            for kind in range(NUM_NATURALS):
                for _ in range(world.hands[other][kind]):
                    hand[kind * NUM_SUITS + dealt[kind].pop()] += 1
            hands[other] = hand

        def place(kinds: list[int]) -> list[int]:
            return [dealt[kind].pop() if kind < NUM_NATURALS else -1 for kind in kinds]

        pot = place(world.pot[:face_down]) + self.pot[face_down:]
        return Suits(place(world.stock), hands, pot, self.held[:])


class NoSuits(Suits):
    """No suits are followed (the option is off): every move does nothing."""

    tracked: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__(None, None, None, None)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return "NO_SUITS"

    def hand(self, seat: int) -> None:
        return None

    def pot_top(self) -> int:
        return -1

    def stock_from_top(self) -> None:
        return None

    def runs(self, seat: int) -> list[int]:
        return []

    def draw(self, seat: int, card: int) -> None:
        pass

    def stock_to_pot(self, at: int) -> None:
        pass

    def take_pot(self, seat: int, top: int, naturals: int, rest: list[int]) -> None:
        pass

    def release_held(self, seat: int) -> None:
        pass

    def clear_held(self) -> None:
        pass

    def meld(self, seat: int, kind: int, naturals: int) -> None:
        pass

    def discard(self, seat: int, kind: int) -> None:
        pass

    def lay_run(self, seat: int, suit: int, start: int, length: int) -> None:
        pass

    def copy(self) -> NoSuits:
        return self

    def redealt(self, game, world, seat: int, rng: random.Random) -> NoSuits:
        return self

    def __deepcopy__(self, memo) -> NoSuits:
        return self


#: The suits of a game without the optional runs: none (the one :class:`NoSuits`).
NO_SUITS = NoSuits()
