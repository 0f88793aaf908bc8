"""The rules engine: state, legal actions, applying an action, scoring.

No Gymnasium, no PettingZoo, no observation arrays here.
"""

from canasta_env.engine.game import Game, IllegalActionError

__all__ = ["Game", "IllegalActionError"]
