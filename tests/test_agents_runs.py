"""S-19: the bots lay a run when one is legal (the runs' bonus beats any meld)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.registry import make_agent
from canasta_env.actions import str_to_action
from canasta_env.engine import Game
from canasta_env.observation import ObservationBuilder
from canasta_env.rules import make_rules


def _position() -> Game:
    """Spanish with runs, player 0 opened with A A A and holds 5-J of hearts."""
    deck = (
        "AS AH AD 5H 6H 7H 8H 9H TH JH 4C 4D 5C 6C 8C "
        "4C 5C 6C 8C 9C TC JC QC KC 4D 5D 6D 8D 9D TD "
        "5S 6S 8S 9S TS JS 9D 9C TC"
    )
    game = Game(make_rules("spanish", sequences=True), 2, seed=0, deck=deck)
    for text in ("draw", "meld A A A"):
        game.apply(str_to_action(text))
    return game


@pytest.mark.parametrize("name", ["greedy", "expert"])
def test_S19_bots_lay_a_legal_run(name):
    game = _position()
    legal = game.legal_actions()
    run = str_to_action("escala 5-J H")
    assert run in legal
    mask = np.zeros(500, dtype=np.int8)
    mask[legal] = 1
    agent = make_agent(name)
    agent.reset(0, 2, game.rules)
    obs = ObservationBuilder(game).build(0)
    assert agent.act(obs, mask) == run
    mask[run] = 0  # without the run, a meld or discard of the same hand is chosen
    assert agent.act(obs, mask) in np.flatnonzero(mask)
