"""Which of another bot's decisions would help the agent: its moves put in the agent's place.

    python -m research.swap --agent ppo:classic-4p \\
        --other research.strangers.s4_bots:WildBanker --players 4 --deals 1000 --seed 7100

:class:`Swap` plays the agent, except in one class of decisions, where it plays what the
other bot would play in the same position. Both are asked at every decision (a bot that
keeps memory through the hand sees every position), and the classes split every decision
by the two moves:

========  ==============================================================================
``draw``  the draw phase: draw, take the pot or pass
``card``  both would discard: the other's card
``hold``  the other would discard where the agent lays or adds: the other keeps its cards
``lay``   the agent would discard where the other lays or adds: the other lays down more
``meld``  both would lay or add: the other's meld
========  ==============================================================================

For each class the swapped agent and the agent itself play the same duplicate deals against
``--opponent`` (the other bot by default), each side in the first seat once, and the hands
are compared one by one: a class where the other's moves win more hands is a place where
the agent plays worse than that bot; none such says the agent loses to it by a plan, not a
move. The other bot is only asked, never trained with: strangers stay out of every league.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from functools import partial

import numpy as np

from canasta_env.actions import ADD_NATURAL, DISCARD

#: the classes of decisions, which split every decision (the module doc)
CLASSES = ("draw", "card", "hold", "lay", "meld")


def decision_class(mask: np.ndarray, mine: int, theirs: int) -> str:
    """The class of a decision by its mask and the two moves (the agent's, the other's)."""
    if mask[:DISCARD].any():
        return "draw"
    mine_discards = DISCARD <= mine < ADD_NATURAL
    theirs_discards = DISCARD <= theirs < ADD_NATURAL
    if mine_discards:
        return "card" if theirs_discards else "lay"
    return "hold" if theirs_discards else "meld"


def check_classes(classes: Sequence[str]) -> None:
    """``ValueError`` naming any name of ``classes`` that is not one of :data:`CLASSES`."""
    unknown = sorted(set(classes) - set(CLASSES))
    if unknown or not classes:
        raise ValueError(f"decision classes {unknown or []}: choose from {list(CLASSES)}")


class Swap:
    """The agent, with the other's move in the decisions of ``classes``; ``counts`` holds
    the decisions of each class seen and ``changed`` those where the two moves differ."""

    def __init__(self, agent, other, classes: Sequence[str]):
        check_classes(classes)
        self.agent, self.other, self.classes = agent, other, frozenset(classes)
        self.name = f"{getattr(agent, 'name', 'agent')}+{'+'.join(sorted(self.classes))}"
        self.counts = dict.fromkeys(CLASSES, 0)
        self.changed = dict.fromkeys(CLASSES, 0)

    def reset(self, seat: int, num_players: int, rules) -> None:
        self.agent.reset(seat, num_players, rules)
        self.other.reset(seat, num_players, rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mine = int(self.agent.act(observation, action_mask))
        theirs = int(self.other.act(observation, action_mask))
        kind = decision_class(action_mask, mine, theirs)
        self.counts[kind] += 1
        self.changed[kind] += mine != theirs
        return theirs if kind in self.classes else mine


def swap(
    agent: str, other: str, opponent: str, players: int, deals: int, seed: int,
    classes: Sequence[str] = CLASSES,
) -> list[dict]:  # fmt: skip
    """One row per class: the swapped agent's hands won, the agent's own, their difference
    with its 95% interval over the hands, and how many decisions the class held and changed."""
    from agents.registry import make_agent
    from canasta_arena.stats import mean_interval
    from research.pace import check_deals, pace

    check_classes(classes)
    check_deals(deals)
    built: list[Swap] = []

    def build(name: str, seat: int, is_agent: bool, swapped: Sequence[str] = ()):
        bot = make_agent(name, seed=seat)
        if not (is_agent and swapped):
            return bot
        built.append(Swap(bot, make_agent(other, seed=seat), swapped))
        return built[-1]

    base = [_points(r) for r in pace(agent, opponent, players, deals, seed, build)]
    rows = []
    for kind in classes:
        built.clear()
        won = [
            _points(r)
            for r in pace(agent, opponent, players, deals, seed, partial(build, swapped=(kind,)))
        ]
        diff, low, high = mean_interval([a - b for a, b in zip(won, base, strict=True)])
        rows.append(
            {
                "class": kind,
                "hands": len(won),
                "swapped": sum(won) / len(won),
                "agent": sum(base) / len(base),
                "diff": diff,
                "diff_ci": [low, high],
                "decisions": sum(s.counts[kind] for s in built),
                "changed": sum(s.changed[kind] for s in built),
            }
        )
    return rows


def _points(row: dict) -> float:
    """The agent's hand as the arena counts it: 1 won, 0.5 tied, 0 lost."""
    mine, theirs = row["agent"], row["opponent"]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def report(rows: Sequence[dict]) -> str:
    lines = ["class | decisions (changed) | hands won swapped / agent | difference [95%]"]
    for row in rows:
        low, high = row["diff_ci"]
        lines.append(
            f"  {row['class']:5} | {row['decisions']:7,} ({row['changed']:6,}) | "
            f"{100 * row['swapped']:5.1f}% / {100 * row['agent']:5.1f}% | "
            f"{100 * row['diff']:+5.1f} [{100 * low:+.1f}, {100 * high:+.1f}] points"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.swap", description=__doc__)
    parser.add_argument("--agent", default="ppo:classic-4p")
    parser.add_argument("--other", required=True, help="the bot whose moves are swapped in")
    parser.add_argument("--opponent", help="who both play against (default: --other)")
    parser.add_argument("--players", type=int, choices=(2, 4), default=4)
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7100)
    parser.add_argument("--classes", default=",".join(CLASSES), help="a comma list of classes")
    args = parser.parse_args(argv)
    classes = [c for c in args.classes.split(",") if c]
    try:
        rows = swap(args.agent, args.other, args.opponent or args.other, args.players,
                    args.deals, args.seed, classes)  # fmt: skip
    except ValueError as error:
        print(f"research.swap: {error}", file=sys.stderr)
        return 2
    print(report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
