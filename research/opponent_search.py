"""The 4-player search with a model of the other team: g6 plays their seats in the rollouts.

    python -m research.gauntlet compare --first research.opponent_search:racer_model \\
        --second research.opponent_search:own_model --players 4 --hands 600 --seed 7500 --jobs 2

The shipped search (``search:classic-4p``) plays every seat of its rollouts with its own
network, so it plans against opponents who play as it does. The strangers go out earlier
(docs/training/history.md, "A price on slow hands"); g6 (``hardening/classic_4p_g6.npz``),
a network trained with a price on slow hands, goes out as early as they do. Here it plays
the other team in the rollouts (``SearchAgent(opponent=...)``); the agent's own network
still plays its team's seats, chooses the candidates and values the cut rollouts. Both at
128 rollouts a decision. docs/search.md ("A model of the other team") has the result.
"""

from __future__ import annotations

from agents.search import SearchAgent, SearchConfig

#: The network of the other team in the rollouts.
RACER = "research/hardening/classic_4p_g6.npz"
ROLLOUTS = 128


def own_model() -> SearchAgent:
    """``search:classic-4p@128``: the agent's own network at every seat of a rollout."""
    return SearchAgent("classic-4p", SearchConfig(rollouts=ROLLOUTS))


def racer_model() -> SearchAgent:
    """The same with g6 at the other team's seats of every rollout."""
    return SearchAgent("classic-4p", SearchConfig(rollouts=ROLLOUTS), opponent=RACER)
