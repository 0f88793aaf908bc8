"""One hand of bots played by the table's own loop (:meth:`Table.play`), every move kept:
the bot tests check with it that a bot's moves are legal (the table refuses an illegal
one, naming the agent, and the mask is checked again here), that a seed gives the same
hand, and that two plans differ."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from canasta_env.rules import make_rules
from canasta_env.table import Table


def hand_moves(
    agents: Sequence,
    variant: str = "classic",
    deal: int = 0,
    shadow: Callable | None = None,
) -> list[int]:
    """The moves of the hand dealt with seed ``deal``, ``agents[seat]`` in each seat (each
    reset for its seat first); ``shadow(seat, observation, mask, action)`` sees every
    decision before it is played."""
    rules = make_rules(variant)
    players = len(agents)
    table = Table(rules, players, seed=deal, backend="python")
    for seat, agent in enumerate(agents):
        agent.reset(seat, players, rules)
    moves: list[int] = []

    def seen(seat, observation, mask, action):
        assert mask[action] == 1
        moves.append(int(action))
        if shadow is not None:
            shadow(seat, observation, mask, action)

    table.play(agents, on_decision=seen)
    assert table.hand_over
    return moves
