"""The greedy bot: takes every pot, melds everything, discards its least useful card.

:class:`GreedyAgent` ("greedy") plays a simple, strong-against-random policy:

* draw phase: take the pot whenever a take is legal (onto a meld first, then
  with a natural pair, then with a 2, then with a joker), else draw, else pass;
* meld phase: step after step, lay a legal meld move until none is left: it
  melds everything it can, and goes out as soon as the mask allows. The order
  decides where its wild cards end up (:func:`meld_all_key`): natural cards
  first, then a wild card that completes a canasta, then wild cards onto its
  biggest meld that is not yet a canasta (one meld reaches the canasta needed
  to go out, C-14, soonest), then a natural pair with a wild card as a new meld,
  and only then wild cards onto a canasta;
* discard: the least useful card, counting both what the card is worth in its
  hand and the risk of handing the pot to the next player: a black 3 first (it
  blocks the next player), then the natural whose keep value (pairs and high
  cards are kept, a singleton with unseen copies may still pair up) plus the
  chance that the next player can take the pot with it (1 if it joins their
  meld, C-11; else card counting from public information, see
  :func:`agents.heuristics.take_probability`) times the pot's worth is lowest;
  wild cards last.

It uses no memory and no randomness: the same observation gives the same move.
The observation and action readers it uses live in :mod:`agents.heuristics`. Its twin in
the compiled core (``csrc/bots/greedy.cpp``) plays its seat at a core table
(:mod:`agents.core_twins`).
"""

from __future__ import annotations

import numpy as np

from agents.base import NOT_RESET, Agent
from agents.core_twins import core_twin, twin_free_state
from agents.heuristics import (
    CANASTA_SIZE,
    choose_take_or_draw,
    split_legal,
    take_probability,
    unseen_counts,
)
from canasta_env.actions import MOVE_RUN, MOVES
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, TWO
from canasta_env.core import CoreBot
from canasta_env.observation import ObservationView, decode_view
from canasta_env.rules import Rules, make_rules

#: What handing the pot to the next player costs, in keep-value points: a base
#: plus this much per card in the pot (after our discard).
POT_LOSS_BASE = 50.0
POT_LOSS_PER_CARD = 20.0


def meld_all_key(view: ObservationView, action: int) -> tuple:
    """Order the meld moves of a bot that melds everything (highest first).

    Every legal meld is laid in the end; the order decides where the wild cards
    go. Natural cards first (the most cards, onto the biggest meld); then a wild
    move that completes a canasta (the fewest wild cards); then wild cards onto
    the biggest meld that is not yet a canasta; then a new meld of naturals with
    wild cards (the most naturals, the fewest wild cards, 2s before jokers); wild
    cards onto a finished canasta last: they add no bonus there.
    """
    move = MOVES[action]
    if move.kind == MOVE_RUN:
        return (5, move.cards, 0, 0, -action)  # an S-19 run first: its bonus beats any meld
    before = view.me.meld_size(move.slot)
    after = before + move.cards
    if move.wilds == 0:
        return (4, move.cards, after, move.points, -action)
    if before < CANASTA_SIZE <= after:
        return (3, -move.wilds, after, move.twos, -action)
    if move.new:
        return (1, move.naturals, -move.wilds, move.twos, -action)
    if after < CANASTA_SIZE:
        return (2, after, move.twos, -action)
    return (0, -after, move.twos, -action)


class GreedyAgent(Agent):
    """Takes every pot it can, melds everything it can, discards its least useful card."""

    name = "greedy"
    #: let a core table play this seat in C++ (agents.core_twins); False keeps it in Python
    use_core = True

    def __init__(self, seed: int | None = None):
        self.seed_value = seed  # the policy is deterministic; kept for a uniform API
        self.rules: Rules | None = None
        self.core_bot: CoreBot | None = None

    def seed(self, seed: int | None) -> None:
        self.seed_value = seed

    def __getstate__(self) -> dict:
        return twin_free_state(self)  # (its twin is a C++ object, made again at reset)

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        self.rules = make_rules(rules)
        self.core_bot = core_twin(
            self, GreedyAgent, seat, num_players, self.rules, lambda: CoreBot("greedy")
        )

    def batch_twin(self) -> CoreBot | None:
        """This bot's twin for the batched core (:func:`canasta_env.core.batch_twin`); None
        for a subclass, which may play otherwise."""
        return CoreBot("greedy") if type(self) is GreedyAgent else None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.rules is None:
            raise RuntimeError(NOT_RESET.format(agent="GreedyAgent"))
        return greedy_move(observation, action_mask, self.rules, self.choose_discard)

    @classmethod
    def choose_discard(cls, view: ObservationView, discard_ids: list[int], rules: Rules) -> int:
        """The legal discard with the lowest keep value plus risk of giving the pot away."""
        unseen, pool = unseen_counts(view, rules)
        pot_loss = POT_LOSS_BASE + POT_LOSS_PER_CARD * (view.pot_size + 1)

        def cost(action: int) -> tuple[float, int]:
            kind = MOVES[action].slot  # the kind discarded
            risk = take_probability(view, kind, rules, unseen, pool)
            return cls.keep_value(view, kind, unseen) + risk * pot_loss, action

        return min(discard_ids, key=cost)

    @staticmethod
    def keep_value(view: ObservationView, kind: int, unseen: list[int]) -> float:
        """How much the bot wants to keep one card of ``kind`` (``unseen``: copies not seen)."""
        if kind == BLACK3:
            return -100.0  # C-12: blocks the next player; worth nothing in hand
        if kind == TWO or kind == JOKER:
            return 1000.0 + CARD_VALUES[kind]
        count = view.hand[kind]
        value = float(CARD_VALUES[kind])
        if view.me.has_meld(kind):
            return 45.0 + value
        if count >= 2:
            return 15.0 * count + value  # a pair takes the pot
        return value + 3.0 * min(unseen[kind], 4)  # a singleton may still pair up


def greedy_move(
    observation: np.ndarray, action_mask: np.ndarray, rules: Rules, choose_discard
) -> int:
    """The greedy bot's turn: take or draw (the cheapest take first), meld everything it can
    (the biggest meld first), then the discard ``choose_discard(view, discard_ids, rules)``
    picks (:meth:`GreedyAgent.choose_discard`, or a variant's)."""
    draw_ids, meld_ids, discard_ids = split_legal(action_mask)
    if draw_ids:
        return choose_take_or_draw(draw_ids)
    view = decode_view(observation)
    if meld_ids:
        return max(meld_ids, key=lambda a: meld_all_key(view, a))
    return choose_discard(view, discard_ids, rules)
