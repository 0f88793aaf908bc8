"""Replays of random legal play, for the tests of replay viewers (the browser table)."""

from __future__ import annotations

import random

from canasta_env.engine.game import Game
from canasta_env.replay import Replay, record
from canasta_env.rules import make_rules


def random_replay(seed: int, moves: int, one_hand: bool = False) -> Replay:
    """A classic 2-player replay of at most ``moves`` random legal actions from ``seed``;
    it deals the next hand when one ends, unless ``one_hand``."""
    rules = make_rules("classic")
    game = Game(rules, 2, seed=seed)
    rng = random.Random(seed)
    actions = []
    while len(actions) < moves and not game.game_over:
        if game.hand_over:
            if one_hand:
                break
            game.next_hand()
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    return record(rules, 2, seed, actions)
