"""OpenSpiel's IS-MCTS as an arena agent: ``openspiel:ismcts``, ``openspiel:ismcts-200``.

Needs the optional extra (``pip install canasta-env[openspiel]``). The loader is
declared in the ``canasta_env.agents`` entry-point group (``pyproject.toml``), so
``make_agent("openspiel:ismcts-200")`` and ``canasta arena --agents openspiel:ismcts``
find it. Names:

* ``openspiel:ismcts`` (:data:`DEFAULT_SIMULATIONS` simulations per move) or
  ``openspiel:ismcts-N`` (N simulations per move);
* ``openspiel:random``: uniform among the legal actions, through the OpenSpiel game
  (a check of the adapter more than a player).

A search needs a whole game, which no player has: the agent defines ``see_world``, so
every runner of a table (:func:`agents.base.choose_action`) hands it a
determinization from its seat before each move. The search starts there and draws
each simulation's world again from that copy (``CanastaState.resample_with``, the
same :func:`~canasta_env.engine.determinize.determinize`), so it never sees the true
hidden cards.

Evaluator: a random rollout to the end of a Canasta hand is long (hundreds of moves)
and mostly noise, so a leaf is valued at once by the hand's score as if it ended
there (:func:`~canasta_env.engine.scoring.score_team` on the simulated position:
melds, canasta bonuses, red 3s, minus the cards left in hand), as the difference
with the other teams / 1000, like the returns. Priors are uniform (UCT).

The search's randomness (OpenSpiel's ``RandomState`` and the worlds) comes from the
agent's seed, so an agent is deterministic given it. Only the presets are supported
(the OpenSpiel game is built from a preset name); house rules raise ``ValueError``.
"""

from __future__ import annotations

import random

import numpy as np

from agents.base import NOT_RESET, Agent
from canasta_env.engine.game import Game
from canasta_env.engine.scoring import score_team
from canasta_env.rules import Rules, make_rules

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts

    from canasta_env import openspiel as canasta_openspiel
except ImportError as error:  # the optional extra
    from canasta_env.extras import install_command

    raise ImportError(
        f"the openspiel agents need OpenSpiel: {install_command('openspiel')}"
    ) from error

DEFAULT_SIMULATIONS = 100
#: UCT exploration constant; values are score differences / 1000 (about -2..2).
UCT_C = 1.0
PREFIX = "openspiel"


class ScoreEvaluator:
    """Values a leaf by the hand's score if it ended there (see the module docstring)."""

    def evaluate(self, state) -> np.ndarray:
        if state.is_terminal():
            return np.array(state.returns())
        game = state.engine
        totals = [score_team(game, team)["total"] for team in range(game.num_teams)]
        everyone = sum(totals)
        others = game.num_teams - 1
        return np.array(
            [
                (totals[team] - (everyone - totals[team]) / others) / canasta_openspiel.RETURN_SCALE
                for team in game.team_of
            ]
        )

    def prior(self, state) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(action, 1.0 / len(legal)) for action in legal]


class OpenSpielAgent(Agent):
    """Plays through the OpenSpiel game from the determinization its runner hands it."""

    def __init__(self, simulations: int | None, seed: int | None = None):
        self.simulations = simulations  # None: uniform random
        self.rng = random.Random(seed)
        self.rules: Rules | None = None
        self.game = None
        self.world: Game | None = None

    def seed(self, seed: int | None) -> None:
        self.rng.seed(seed)

    def reset(self, seat: int, num_players: int, rules: Rules | str) -> None:
        if isinstance(rules, str):
            rules = make_rules(rules)
        if rules != make_rules(rules.name):
            raise ValueError(f"{self.name}: only the presets are supported, not house rules")
        self.rules = rules
        self.game = canasta_openspiel.CanastaGame({"variant": rules.name, "players": num_players})
        self.world = None

    def see_world(self, world: Game) -> None:
        """The determinized game to search from (from :func:`agents.base.choose_action`)."""
        self.world = world

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.game is None:
            raise RuntimeError(NOT_RESET.format(agent=self.name))
        if self.world is None:
            raise RuntimeError(
                f"{self.name} searches from a determinized game: run it through "
                "agents.base.choose_action (every table runner of this project does)"
            )
        world, self.world = self.world, None
        legal = np.flatnonzero(action_mask).tolist()
        if world.legal_actions() != legal:
            raise RuntimeError(f"{self.name}: the game handed to it is not at this position")
        if self.simulations is None or len(legal) == 1:
            return int(legal[self.rng.randrange(len(legal))])
        state = self.game.state_from_engine(world)
        bot = ismcts.ISMCTSBot(
            self.game,
            ScoreEvaluator(),
            UCT_C,
            self.simulations,
            random_state=np.random.RandomState(self.rng.getrandbits(32)),
        )
        bot.set_resampler(lambda state, player: state.resample_with(player, self.rng))
        return int(bot.step(state))


def load_agent(path: str) -> OpenSpielAgent:
    """The loader of ``openspiel:NAME``: ``ismcts``, ``ismcts-N`` or ``random``."""
    if path == "random":
        return OpenSpielAgent(None)
    if path == "ismcts":
        return OpenSpielAgent(DEFAULT_SIMULATIONS)
    head, _, budget = path.partition("-")
    # at least 2: OpenSpiel's IS-MCTS with one simulation only expands the root, and its
    # final policy then asserts that some child was visited
    if head == "ismcts" and budget.isascii() and budget.isdigit() and int(budget) >= 2:
        return OpenSpielAgent(int(budget))
    raise ValueError(
        f"unknown OpenSpiel agent {PREFIX}:{path}; choose {PREFIX}:ismcts, "
        f"{PREFIX}:ismcts-N (N simulations per move, N >= 2) or {PREFIX}:random"
    )


__all__ = ["OpenSpielAgent", "ScoreEvaluator", "load_agent", "pyspiel"]
