"""The value of a hand for a seat: the reward recipe the learner trains on and the
search agent scores its playouts with (one recipe, so the search values hands as the
network it searches with was taught to).

The hand is won or lost (the :class:`~canasta_env.engine.outcome.Result`'s outcome, what
the arena counts) and its margin, in units of :data:`MARGIN_POINTS` clipped to
+-:data:`MARGIN_CLIP`, breaks ties between two wins without letting a 5000-point hand
drown the rest: ``outcome + score_coef * margin``.
"""

from __future__ import annotations

from canasta_env.table import Table

#: The margin of a hand is counted in units of this many points, clipped to +-MARGIN_CLIP.
MARGIN_POINTS = 1000.0
MARGIN_CLIP = 2.0


def shaped_reward(outcome: int, diff: float, score_coef: float) -> float:
    """The recipe's reward for a hand: ``outcome`` plus ``score_coef`` times
    ``diff / 1000`` clipped to [-2, 2]. The hand is won or lost (what the arena
    counts), and the margin breaks ties between two wins without letting a
    5000-point hand drown the rest."""
    margin = max(-MARGIN_CLIP, min(MARGIN_CLIP, diff / MARGIN_POINTS))
    return outcome + score_coef * margin


def hand_reward(table: Table, seat: int, score_coef: float) -> tuple[float, int, float]:
    """(reward, outcome, diff) of ``seat``'s team for the hand that ended at ``table``.

    Both parts are the hand's :class:`~canasta_env.engine.outcome.Result`: ``outcome``
    (+1 / 0 / -1 for the best alone / a tied best / a lower hand score, the env's
    ``"win"`` reward), ``diff`` the margin (the team's hand score minus the other teams'
    mean, the env's ``"score"`` reward in points);
    the reward is :func:`shaped_reward` of the two.
    """
    result = table.result("hand")
    team = table.team_of[seat]
    outcome, diff = result.outcome(team), result.margin(team)
    return shaped_reward(outcome, diff, score_coef), outcome, diff


__all__ = ["MARGIN_CLIP", "MARGIN_POINTS", "hand_reward", "shaped_reward"]
