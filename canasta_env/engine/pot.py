"""The pot as the rules read it: when it is frozen, what taking it needs (C-9..C-11, I-7, I-8).

Pure functions of the rules and public facts, so that the engine (on its state) and a
bot (on what its observation shows) ask the same question of the same code:
:meth:`~canasta_env.engine.game.Game.pot_frozen_for` is the engine's form.
"""

from __future__ import annotations

from canasta_env.rules import Rules


def frozen_until_opened(rules: Rules, team_opened: bool) -> bool:
    """C-9: the pot is frozen against a team that has not opened (``frozen_for_unopened``)."""
    return rules.frozen_for_unopened and not team_opened


def pot_frozen(rules: Rules, pot_wild: bool, team_opened: bool) -> bool:
    """C-9, S-6, I-8: is the pot frozen (or crossed) for a team?

    ``pot_wild``: a wild card lies in the pot (discarded, or turned up at the start,
    C-3, I-3); ``team_opened``: the team has met its opening minimum.
    """
    return pot_wild or frozen_until_opened(rules, team_opened)


def naturals_to_take(rules: Rules, frozen: bool) -> int:
    """C-10, C-11, S-5, I-7, I-8: naturals of the top card's rank a plain take needs."""
    return rules.take_naturals_frozen if frozen else rules.take_naturals
