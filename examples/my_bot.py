"""An outside agent: ``canasta arena --agents examples.my_bot:MyBot random`` (docs/agents.md)."""

import numpy as np

from canasta_env.actions import ACTION_TEXTS, ADD_NATURAL, DISCARD, TAKE, TAKE_ONTO_MELD
from canasta_env.cards import CARD_VALUES, is_wild
from canasta_env.observation import decode_view


def wild_cards(action: int) -> int:
    """How many 2s and jokers a meld action lays."""
    return sum(word in ("2", "JK") for word in ACTION_TEXTS[action].split())


class MyBot:
    """Takes the pot, melds all it can (wild cards last), discards its costliest single card."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        takes = [a for a in legal if TAKE <= a <= TAKE_ONTO_MELD]
        melds = sorted((a for a in legal if a >= ADD_NATURAL), key=wild_cards)
        if takes or melds:
            return (takes or melds)[0]
        discards = [a - DISCARD for a in legal if DISCARD <= a < ADD_NATURAL]
        if not discards:
            return legal[0]  # draw (or pass, once the stock is out)
        hand = decode_view(observation).hand  # cards held per kind
        return DISCARD + min(discards, key=lambda k: (is_wild(k), hand[k], -CARD_VALUES[k]))
