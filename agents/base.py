"""The one agent interface, the random agent, and a loop that plays hands between agents.

An agent sees exactly what the environment gives a player: the observation
vector and the action mask (see :mod:`canasta_env.observation`). It returns one
legal action id. Before each hand (or game) whoever runs the table calls
``reset(seat, num_players, rules)`` with the :class:`~canasta_env.rules.Rules`
of that table, house rules included: an agent that needs the rules (the
heuristic bots do) takes them from there, and one that keeps memory across a
hand clears it there. Agents that need neither may leave ``reset`` out.

Search agents need a whole game to search from, which no player has. Such an agent
defines ``see_world(world)`` and an ``rng`` (a ``random.Random``); whoever runs a
table asks for its action through :func:`choose_action`, which hands it, just
before ``act``, a determinized copy of the game from its seat (every card it cannot
see dealt again: :func:`~canasta_env.engine.determinize.determinize`, seeded from
the agent's ``rng``), never the true game.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from canasta_env.engine.determinize import act_with_world
from canasta_env.engine.game import IllegalActionError, team_of_seat
from canasta_env.engine.outcome import Result
from canasta_env.rules import Rules, check_player_count, make_rules
from canasta_env.table import RefusedAction, Table

#: The error of an agent that needs its table's rules, asked to act before ``reset``.
NOT_RESET = (
    "{agent}.act() before reset(seat, num_players, rules): "
    "the agent plays by the rules of its table, which reset gives it"
)


class Agent:
    """Base class: observation and mask in, action out."""

    name = "agent"

    def reset(self, seat: int, num_players: int, rules: Rules) -> None:
        """Called before each hand (or game) with the agent's seat and the table's rules.

        ``rules`` is the table's :class:`~canasta_env.rules.Rules`, house rules
        included (the env's ``rules``). The heuristic bots also accept a preset name.
        """

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniformly random among legal actions; seeded for reproducibility."""

    name = "random"
    #: let the batched core play this seat in C++ (canasta_env.core.batch_twin: the same
    #: draws); False keeps it in Python
    use_core = True

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def batch_twin(self):
        """This bot's twin for the batched core (:func:`canasta_env.core.batch_twin`); None
        for a subclass, which may play otherwise."""
        from canasta_env.core import CoreBot

        return CoreBot(self.name, seed=0) if type(self) is RandomAgent else None

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.randrange(len(legal))])


def refused_action(
    agent, seat: int, error: IllegalActionError, where: str = ""
) -> IllegalActionError:
    """The error for an agent whose ``act`` returned an action the table refused: a
    :class:`~canasta_env.table.RefusedAction` naming the agent and its seat (so an arena
    of several agents says whose bug it is), the engine's reason kept as the cause."""
    return RefusedAction.of(agent, seat, 0, error, where)


#: The action of an agent at a table's turn; search agents get a determinized world first
#: (:func:`canasta_env.engine.determinize.act_with_world`, which ``Table.choose_action`` calls).
choose_action = act_with_world


@dataclass
class HandRecord:
    """One hand (or game) played: by :func:`play_hands`, or by the arena, which adds the
    hand's place in its schedule (``pairing``, ``deal``, ``arrangement``) and names the
    seats as it was given them. Who won and by how much are read from :attr:`result`, the
    one convention of :mod:`canasta_env.engine.outcome`."""

    seed: int  # the deal's deck seed
    seats: list[str]  # the agents' names, seat by seat
    team_scores: list[int]
    seat_rewards: list[float]
    steps: int
    end_reason: str | None
    went_out: int | None = None  # the seat that went out, if one did
    pairing: int = 0
    deal: int = 0  # play_hands: the episode's index
    arrangement: int = 0
    extra: dict = field(default_factory=dict)

    @property
    def key(self) -> tuple[int, int, int]:
        """The hand's place in an arena's schedule."""
        return (self.pairing, self.deal, self.arrangement)

    @property
    def result(self) -> Result:
        """The hand's (or game's) result by the one convention of
        :mod:`canasta_env.engine.outcome` (the game's winner is the top score here);
        ``result.by_agent(seats)`` gives the agents' winners, margins and best scores."""
        players = len(self.seats)
        return Result.of(self.team_scores, [team_of_seat(players, s) for s in range(players)])

    @property
    def winners(self) -> list[str]:
        """The agents sharing the win (:meth:`~canasta_env.engine.outcome.Result.by_agent`)."""
        return self.result.by_agent(self.seats)[0]

    @property
    def score_diff(self) -> dict[str, float]:
        """Each agent's mean team score minus the other agents' (``by_agent``'s margin)."""
        return self.result.by_agent(self.seats)[1]


def play_hands(
    agents: Sequence[Agent],
    num_hands: int,
    variant: str | Rules = "classic",
    seed: int = 0,
    episode: str = "hand",
    deck_seeds: Sequence[int] | None = None,
    backend: str | None = None,
    **rules,
) -> list[HandRecord]:
    """Play ``num_hands`` episodes with ``agents[i]`` in seat ``i``.

    Episode ``k`` is dealt with seed ``deck_seeds[k]`` (default ``seed + k``), so the
    same seeds with the seats permuted replay the same decks (duplicate deals).
    ``variant`` is a preset's name or a :class:`~canasta_env.rules.Rules` object (played as
    it is: the arena's, checked once a run); ``rules`` are house rules on top of it
    (:func:`~canasta_env.rules.make_rules`); ``backend``
    the engine (:func:`~canasta_env.table.resolve_backend`). Rewards are the env's
    default (``"score"``, scale 1000). An action the table refuses raises
    ``IllegalActionError`` naming the agent, its seat, the step and the deal seed.
    """
    num_players = len(agents)
    table_rules = make_rules(variant, **rules)
    check_player_count(table_rules, num_players)
    records = []
    for k in range(num_hands):
        deal_seed = deck_seeds[k] if deck_seeds is not None else seed + k
        table = Table(table_rules, num_players, seed=deal_seed, backend=backend)
        for seat, agent in enumerate(agents):
            agent.reset(seat, num_players, table_rules)
        rewards = [0.0] * num_players
        steps = 0
        while True:
            try:
                steps += table.play(agents)
            except RefusedAction as refused:
                where = f" at step {steps + refused.step} of the hand dealt with seed {deal_seed}"
                raise RefusedAction(
                    refused.label, refused.seat, refused.step, refused.reason, where
                ) from refused.reason
            for seat, earned in enumerate(table.seat_rewards(episode=episode)):
                rewards[seat] += earned
            if table.episode_ends(episode):
                break
            table.next_hand()
        scores = table.game_scores if episode == "game" else table.team_scores
        records.append(
            HandRecord(
                seed=deal_seed,
                deal=k,
                seats=[getattr(a, "name", type(a).__name__) for a in agents],
                team_scores=scores,
                seat_rewards=rewards,
                steps=steps,
                end_reason=table.end_reason,
                went_out=table.went_out,
            )
        )
    return records
