"""Faster racers from the house bots' numbers: can they play the strangers' pace?

The strangers go out first in about half the hands at 4 players, at decision 83 on average
(``python -m research.pace``; docs/training/history.md, "A price on slow hands"); the
league's ``style:racer`` at 94. These bots push the racer family (:mod:`agents.styles`)
further, each a probe for the league, and play in Python (a subclass has no twin):

    python -m research.pace --agent ppo:classic-4p --opponent research.fast_racers:Hasty \\
        --players 4 --deals 100 --seed 5000

* :class:`Sprinter`: the racer that melds everything it can at once (``meld_all``);
* :class:`Denier`: the racer with the ``controller`` family's discards (it races and
  keeps the pile from the other side);
* :class:`Hasty`: the racer that puts a wild card on a meld of three, takes no pot once
  it has a canasta, melds everything at once, spends no wild card on a pot and keeps no
  pairs or cards of its melds.

None of them goes out sooner than decision 90 (docs/training/history.md, "Faster racers").
"""

from __future__ import annotations

from dataclasses import replace

from agents.styles import StyledAgent
from canasta_env.rules import Rules


class _Racer(StyledAgent):
    """The racer family with this hand's numbers changed by :meth:`change`."""

    def __init__(self, seed: int | None = None):
        super().__init__(seed, family="racer")

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        super().reset(seat, num_players, rules)
        self.style = self.change(self.style)
        self.params = self.style.expert
        self.core_bot = None  # the core's racer would play the family's own numbers

    def change(self, style):
        return style


class Sprinter(_Racer):
    def change(self, style):
        return replace(style, meld_all=True)


class Denier(_Racer):
    def change(self, style):
        rng = self.rng  # drawn after the family's own numbers, as the controller draws them
        numbers = replace(
            style.expert,
            pot_loss_base=rng.uniform(60.0, 120.0),
            pot_loss_per_card=rng.uniform(900.0, 1500.0),
            behind_pot_factor=rng.uniform(1.4, 2.0),
            black3_keep=rng.uniform(-40.0, 0.0),
            recent_discount=rng.uniform(0.3, 0.6),
        )
        return replace(style, expert=numbers)


class Hasty(_Racer):
    def change(self, style):
        numbers = replace(
            style.expert,
            race_wild_meld=3,
            race_take_pot=99,
            small_pot=99,
            meld_keep=0.0,
            pair_keep=0.0,
        )
        return replace(style, expert=numbers, meld_all=True)
