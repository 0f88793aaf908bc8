"""Wide bots: the house bots' strategies with every number drawn, each hand, from ranges far
wider than any league draws.

The styled families of :mod:`agents.styles` draw the expert's numbers near the tuned ones
(``pot_loss_per_card`` in 300-700, ``small_pot`` in 5-11, ...), and the league trains
against those draws. These draw from ranges several times as wide (a pot worth nothing or
everything, wild cards kept or thrown, black 3s hoarded or shed), so that they play hands
no league opponent plays. They are subclasses, so they play in Python (a core table plays
only the house classes themselves in C++: :mod:`agents.core_twins`), and they are never
league entries (:mod:`training.league_pool` takes only its own names).

* :class:`WideExpert`: the expert's strategy, every number of
  :class:`~agents.expert.ExpertParams` drawn wide.
* :class:`WideStyled`: the same numbers, and the styled bots' switches drawn too (always
  wanting out, canastas wanted before going out, the smallest pot taken, melding
  everything, the greedy or the naive play with their numbers drawn wide).
"""

from __future__ import annotations

import random
from dataclasses import replace

from agents.expert import default_params
from agents.styles import StyledAgent, StyleParams
from canasta_env.rules import Rules


def wide_numbers(rng: random.Random, num_players: int):
    """Every number of the expert's strategy, drawn from wide ranges."""
    return replace(
        default_params(num_players),
        small_pot=rng.randint(0, 30),
        pot_loss_base=rng.uniform(-50.0, 300.0),
        pot_loss_per_card=rng.uniform(0.0, 3000.0),
        behind_pot_factor=rng.uniform(0.5, 3.0),
        recent_discount=rng.uniform(0.0, 1.0),
        pair_keep=rng.uniform(-50.0, 200.0),
        meld_keep=rng.uniform(-50.0, 200.0),
        two_keep=rng.uniform(-100.0, 150.0),
        joker_keep=rng.uniform(-50.0, 400.0),
        black3_keep=rng.uniform(-150.0, 150.0),
        black3_keep_penalised=rng.uniform(-200.0, 50.0),
        hold_triples_when_frozen=rng.random() < 0.5,
        wild_take_factor=rng.uniform(0.0, 1.0),
        far_behind=rng.uniform(0.0, 1000.0),
        race=rng.random() < 0.5,
        race_wild_meld=rng.randint(3, 7),
        race_take_pot=rng.randint(0, 20),
    )


def wide_style(rng: random.Random, num_players: int) -> StyleParams:
    """The numbers above and every switch of the styled bots, drawn."""
    numbers = wide_numbers(rng, num_players)
    play = rng.random()
    return StyleParams(
        numbers,
        always_go_out=rng.random() < 0.3,
        go_out_canastas=rng.randint(0, 4),
        min_take_pot=rng.randint(0, 10),
        meld_all=rng.random() < 0.3,
        greedy=play < 0.2,
        pot_loss_base=rng.uniform(-20.0, 200.0),
        pot_loss_per_card=rng.uniform(0.0, 100.0),
        discard_noise=rng.uniform(0.0, 60.0),
        naive=0.2 <= play < 0.35,
        naive_take_pot=rng.randint(0, 10),
        naive_wild_first=rng.random() < 0.5,
        naive_keep_wild=rng.uniform(-100.0, 600.0),
        naive_keep_count=rng.uniform(-20.0, 80.0),
        naive_keep_value=rng.uniform(-3.0, 3.0),
    )


class WideExpert(StyledAgent):
    """The expert's strategy with its numbers drawn wide each hand (module doc)."""

    name = "wide-expert"

    def __init__(self, seed: int | None = None):
        super().__init__(seed, family="tuned")
        self.name = type(self).name

    def draw(self, num_players: int) -> StyleParams:
        return StyleParams(wide_numbers(self.rng, num_players))

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        super().reset(seat, num_players, rules)  # the family's draw, then this one's
        self.style = self.draw(num_players)
        self.params = self.style.expert


class WideStyled(WideExpert):
    """The styled bots' switches and numbers, all drawn wide each hand (module doc)."""

    name = "wide-styled"

    def draw(self, num_players: int) -> StyleParams:
        return wide_style(self.rng, num_players)
