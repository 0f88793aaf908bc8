"""The greedy bot: takes every pot, melds everything, discards its least useful card.

:class:`GreedyAgent` ("greedy") plays a simple, strong-against-random policy:

* draw phase: take the pot whenever a take is legal (onto a meld first, then
  with a natural pair, then with a 2, then with a joker), else draw, else pass;
* meld phase: step after step, lay the legal meld move that completes a
  canasta, else the one with the most cards (onto the biggest meld, then the
  most points), until none is left: it melds everything it can, and goes out
  as soon as the mask allows;
* discard: the least useful card: a black 3 first (it blocks the next player),
  then a low singleton that matches no meld on the table (its team's or an
  opponent's); pairs, cards of its melds and wild cards last.

It uses no memory and no card counting; it is deterministic.

The observation and action readers it uses live in :mod:`agents.heuristics`.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent
from agents.heuristics import (
    TableView,
    biggest_meld_key,
    choose_take_or_draw,
    read_observation,
    split_legal,
)
from canasta_env.actions import DISCARD
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, TWO


class GreedyAgent(Agent):
    """Takes every pot it can, melds everything it can, discards its least useful card."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.seed_value = seed  # the policy is deterministic; kept for a uniform API

    def seed(self, seed: int | None) -> None:
        self.seed_value = seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        draw_ids, meld_ids, discard_ids = split_legal(action_mask)
        if draw_ids:
            return choose_take_or_draw(draw_ids)
        view = read_observation(observation)
        if meld_ids:
            return max(meld_ids, key=lambda a: biggest_meld_key(view, a))
        return min(discard_ids, key=lambda a: (self.keep_value(view, a - DISCARD), a))

    @staticmethod
    def keep_value(view: TableView, kind: int) -> float:
        """How much the bot wants to keep one card of ``kind`` (lowest is discarded)."""
        if kind == BLACK3:
            return -100.0  # C-12: blocks the next player; worth nothing in hand
        if kind == TWO or kind == JOKER:
            return 1000.0 + CARD_VALUES[kind]
        value = 10.0 * min(view.hand[kind], 3) + CARD_VALUES[kind]
        if view.me.has_meld(kind):
            value += 50.0
        if any(team.has_meld(kind) for team in view.teams[1:]):
            value += 200.0  # it would join an opponent's meld (C-11): a gift
        return value
