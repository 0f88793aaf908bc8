"""Who goes out, when, and who wins then: the pace of an agent against an opponent.

    python -m research.pace --agent ppo:classic-4p --opponent research.strangers.s1_racer:Racer \\
        --players 4 --deals 150 --seed 5000

Plays ``--deals`` deals twice, each side in the first seat once (the arena's duplicate
deals, by :func:`agents.base.play_hands`), and splits the hands by who went out: the
agent's team, the opponent's, or nobody (the stock ran out). For each part: its share of
the hands, the agent's hands won there, the hand's decisions (every seat's) and both teams'
mean hand scores. docs/training/history.md ("A price on slow hands") reads it: the
strangers go out early, and the agent loses the hands they go out in.

``--tempo`` shows how: each team's progress at decisions 10, 20, ... 80 (opened, canastas,
cards on the table and in hand), docs/generalisation.md ("Where the fourth writer's bots
win") reads it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Sequence


def _make(name: str, seat: int, is_agent: bool):
    from agents.registry import make_agent

    return make_agent(name, seed=seat)


def _sides(agent: str, opponent: str, players: int, build=_make):
    """Both seatings of the duplicate deals, each side first once: (the seats' agents,
    the agent's team: the seats of its parity). ``build(name, seat, is_agent)`` makes
    each seat's agent."""
    for team in (0, 1):
        yield (
            [
                build(agent, seat, True) if seat % 2 == team else build(opponent, seat, False)
                for seat in range(players)
            ],
            team,
        )


def check_deals(deals: int) -> None:
    """``ValueError`` for fewer than one deal: there would be no hands to count."""
    if deals < 1:
        raise ValueError(f"--deals {deals}: at least 1")


def pace(agent: str, opponent: str, players: int, deals: int, seed: int, build=_make) -> list[dict]:
    """One row per hand: ``won``, ``out`` (``"agent"``, ``"opponent"`` or None), ``steps``
    and both teams' hand scores (``agent``, ``opponent``). ``build`` makes the seats'
    agents (:func:`_sides`)."""
    from agents.base import play_hands

    check_deals(deals)
    rows = []
    for seats, team in _sides(agent, opponent, players, build):
        for record in play_hands(seats, deals, "classic", seed=seed):
            scores = record.team_scores
            out = record.went_out
            rows.append(
                {
                    "won": record.result.outcome(team) > 0,
                    "out": None if out is None else "agent" if out % 2 == team else "opponent",
                    "steps": record.steps,
                    "agent": scores[team],
                    "opponent": scores[1 - team],
                }
            )
    return rows


#: the decisions (every seat's, from the deal) at which :func:`tempo` looks at the table
TEMPO_AT = (10, 20, 30, 40, 50, 60, 70, 80)


def tempo(agent: str, opponent: str, players: int, deals: int, seed: int) -> dict:
    """Each team's progress at the decisions of :data:`TEMPO_AT`, over the hands still on
    then (the same duplicate deals as :func:`pace`): ``{decision: {"hands": n, "agent": {...},
    "opponent": {...}}}``, each side's means of ``opened`` (the share of hands its team has
    met the opening minimum), ``table`` (cards on its table), ``hand`` (cards in its hands)
    and ``canastas`` (melds of seven cards or more). Where the pace is lost: which side opens
    later, or holds its cards longer."""
    from canasta_env.rules import make_rules
    from canasta_env.table import Table

    check_deals(deals)
    rules = make_rules("classic")
    sums: dict[int, dict] = {}
    for seats, team in _sides(agent, opponent, players):
        for k in range(deals):  # the deals of play_hands: seed + k
            table = Table(rules, players, seed=seed + k)
            for seat, bot in enumerate(seats):
                bot.reset(seat, players, rules)
            for decision in TEMPO_AT:
                table.play(
                    seats, until=lambda table, decision=decision: _decisions(table) >= decision
                )
                if table.hand_over:
                    break
                at = sums.setdefault(decision, {"hands": 0, "agent": {}, "opponent": {}})
                at["hands"] += 1
                for side, t in (("agent", team), ("opponent", 1 - team)):
                    for key, value in _progress(table.game, t, players).items():
                        at[side][key] = at[side].get(key, 0) + value
    return {
        decision: {
            "hands": at["hands"],
            **{
                side: {k: v / at["hands"] for k, v in at[side].items()}
                for side in ("agent", "opponent")
            },
        }
        for decision, at in sorted(sums.items())
    }


def _decisions(table) -> int:
    return table.game.num_steps  # every seat's actions this hand


def _progress(game, team: int, players: int) -> dict:
    melds = [n + w + j for n, w, j in zip(game.nat[team], game.two[team], game.jok[team])]
    return {
        "opened": float(game.opened[team]),
        "table": game.table_totals[team],
        "hand": sum(game.hand_totals[seat] for seat in range(players) if seat % 2 == team),
        "canastas": sum(size >= 7 for size in melds),
    }


def tempo_report(rows: dict) -> str:
    lines = [
        "decision (hands on) | opened | canastas | table cards | hand cards  (agent / opponent)"
    ]
    for decision, at in rows.items():
        a, o = at["agent"], at["opponent"]
        cells = [f"{a[k]:5.2f} / {o[k]:5.2f}" for k in ("opened", "canastas", "table", "hand")]
        lines.append(f"  {decision:3d} ({at['hands']:4d}) | " + " | ".join(cells))
    return "\n".join(lines)


def report(rows: Sequence[dict]) -> str:
    won = sum(r["won"] for r in rows) / len(rows)
    lines = [f"{len(rows)} hands, the agent won {100 * won:.1f}%"]
    for who in ("agent", "opponent", None):
        part = [r for r in rows if r["out"] == who]
        if not part:
            continue
        lines.append(
            f"  out: {who or 'nobody':8} {100 * len(part) / len(rows):5.1f}% of hands, "
            f"the agent won {100 * sum(r['won'] for r in part) / len(part):5.1f}%, "
            f"{statistics.mean(r['steps'] for r in part):.0f} decisions, hand scores "
            f"{statistics.mean(r['agent'] for r in part):+.0f} (agent) "
            f"{statistics.mean(r['opponent'] for r in part):+.0f} (opponent)"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.pace", description=__doc__)
    parser.add_argument("--agent", default="ppo:classic-4p")
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--players", type=int, choices=(2, 4), default=4)
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=5000)
    parser.add_argument(
        "--tempo",
        action="store_true",
        help="each team's progress by decision (opened, canastas, cards down and held)",
    )
    args = parser.parse_args(argv)
    study = tempo if args.tempo else pace
    try:
        rows = study(args.agent, args.opponent, args.players, args.deals, args.seed)
    except ValueError as error:
        print(f"research.pace: {error}", file=sys.stderr)
        return 2
    print(tempo_report(rows) if args.tempo else report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
