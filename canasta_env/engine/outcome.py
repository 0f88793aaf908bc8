"""A hand's or a game's result, counted once: per team, per seat, per agent.

Every reader of a result (the env's rewards, the arena and the leaderboard, training's
evaluation, the demo, the research tools, the web's score sheet) takes it from a
:class:`Result`, which both engines give (``game.result("hand")``, ``game.result("game")``,
and :meth:`canasta_env.table.Table.result`). The one convention (docs/rules.md, "The result
of a hand"):

* **points**: each team's total: the hand's score sheet ``total``, or the game's running
  total;
* **margin**: a team's points minus the mean points of the other teams (a seat has its
  team's);
* **outcome**: +1 won (the highest points alone), 0 tied (the highest, shared), -1 lost;
  a game that has a winner (the first team past the target, ties broken by the rules) has
  that team alone as winner;
* **share**: the win credit, ``1/k`` to each of the ``k`` teams with the highest points,
  0 to the others: a win rate is the mean share (a tie counts half in a two-team game).

An agent that plays several teams' seats (the arena's solo tables, ``A B A``) is judged by
its best team (:meth:`Result.by_agent`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

SCOPES = ("hand", "game")


@dataclass(frozen=True)
class Result:
    """Points per team and the seats' teams; every other figure is derived from them."""

    points: tuple[int, ...]
    team_of: tuple[int, ...]  # seat -> team
    winners: tuple[int, ...]  # the teams sharing the win, in team order

    @classmethod
    def of(cls, points: Sequence[int], team_of: Sequence[int], winner: int | None = None) -> Result:
        """The result of ``points`` (per team) at a table of ``team_of`` (per seat);
        ``winner``: a team the rules declared the winner (a game's), else the highest."""
        points = tuple(map(int, points))
        if winner is not None:
            winners: tuple[int, ...] = (int(winner),)
        else:
            top = max(points)
            winners = tuple(t for t, p in enumerate(points) if p == top)
        return cls(points, tuple(map(int, team_of)), winners)

    # ------------------------------------------------------------------ per team
    @property
    def num_teams(self) -> int:
        return len(self.points)

    def margin(self, team: int) -> float:
        """``team``'s points minus the mean points of the other teams."""
        others = [p for t, p in enumerate(self.points) if t != team]
        return self.points[team] - sum(others) / len(others)

    def outcome(self, team: int) -> int:
        """+1 won alone, 0 tied for the win, -1 lost."""
        if team not in self.winners:
            return -1
        return 1 if len(self.winners) == 1 else 0

    def share(self, team: int) -> float:
        """The win credit: ``1/k`` for one of ``k`` winners, else 0."""
        return 1.0 / len(self.winners) if team in self.winners else 0.0

    @property
    def margins(self) -> list[float]:
        return [self.margin(t) for t in range(self.num_teams)]

    @property
    def outcomes(self) -> list[int]:
        return [self.outcome(t) for t in range(self.num_teams)]

    # ------------------------------------------------------------------ per seat
    def seat_margins(self) -> list[float]:
        margins = self.margins
        return [margins[t] for t in self.team_of]

    def seat_outcomes(self) -> list[int]:
        outcomes = self.outcomes
        return [outcomes[t] for t in self.team_of]

    # ------------------------------------------------------------------ per agent
    def by_agent(self, seats: Sequence[str]) -> tuple[list[str], dict[str, float], dict[str, int]]:
        """``(winners, margin, best)`` of the agents named at each seat: an agent's *best*
        is the highest points among its teams; the agents with the highest best share the
        win; its *margin* is the mean points of its teams minus the mean points of the
        other agents' teams (0 where it plays every team)."""
        teams_of: dict[str, set[int]] = {}
        for seat, agent in enumerate(seats):
            teams_of.setdefault(agent, set()).add(self.team_of[seat])
        points = self.points
        best = {a: max(points[t] for t in teams) for a, teams in teams_of.items()}
        top = max(best.values())
        winners = sorted(a for a, b in best.items() if b == top)
        margins = {}
        for agent, teams in teams_of.items():
            own = sum(points[t] for t in teams) / len(teams)
            others = {t for a, ts in teams_of.items() if a != agent for t in ts}
            margins[agent] = own - sum(points[t] for t in others) / len(others) if others else 0.0
        return winners, margins, best


def result_of(game, scope: str = "hand") -> Result:
    """The result of the hand that ended (``"hand"``) or of the game's hands so far
    (``"game"``; its winner where it is over) of an engine's game (either engine)."""
    if scope == "hand":
        if game.hand_scores is None:
            raise ValueError("the hand has no result before it ends")
        return Result.of([sheet["total"] for sheet in game.hand_scores], game.team_of)
    if scope == "game":
        winner = game.winner_team
        return Result.of(game.scores, game.team_of, winner)
    raise ValueError(f"scope must be one of {SCOPES}, got {scope!r}")


__all__ = ["SCOPES", "Result", "result_of"]
