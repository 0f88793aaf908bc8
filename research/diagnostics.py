"""Measurements behind training/README.md's "why learning plateaued" section.

    python -m research.diagnostics --hands 400 --data runs/c24/data

Each line measures one suspect of masked self-play in a long card game:

* reward scale: the spread of the hand score difference / 1000 (the old reward)
  against the +-1 hand outcome (what the arena counts), and how often a hand's
  margin is so large that it dominates a batch;
* horizon: decisions per learner team and hand, and what ``gamma`` leaves of a
  reward that comes only at the end of the hand;
* observation scaling: the largest value of each feature over recorded states;
* entropy: legal ids per decision, and the entropy of the old shipped policy
  (``agents/models/sb3_classic_2p.zip``) against the uniform policy over legal ids;
* opponent pool: what the old default pool put in front of the learner;
* losses (``--losses AGENT``): how the hands that an agent loses against ``random``
  end: the random team went out, the agent's team went out behind, or the stock ran out.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from agents.base import play_hands
from agents.registry import make_agent
from canasta_env.actions import NUM_ACTIONS
from canasta_env.observation import BLOCKS
from training.imitation import load_data

BLOCKS_SIZES = [size for _, size in BLOCKS]


def reward_scale(hands: int, players: int) -> dict:
    """Expert against greedy: the score difference per hand, in units of 1000 points."""
    diffs = []
    for order in (("expert", "greedy"), ("greedy", "expert")):
        seats = [make_agent(order[s % 2], seed=s) for s in range(players)]
        for record in play_hands(seats, hands, variant="classic", seed=50_000):
            scores = record.team_scores
            diffs.append((scores[0] - scores[1]) / 1000)
    d = np.asarray(diffs)
    outcome = np.sign(d)
    return {
        "hands": len(d),
        "mean_abs_diff": float(np.abs(d).mean()),
        "std_diff": float(d.std()),
        "share_abs_over_2": float((np.abs(d) > 2).mean()),
        "top5pct_share_of_sum_abs": float(
            np.sort(np.abs(d))[-max(1, len(d) // 20) :].sum() / np.abs(d).sum()
        ),
        "corr_diff_outcome": float(np.corrcoef(d, outcome)[0, 1]),
    }


def horizon(hands: int, players: int) -> dict:
    seats = [make_agent("expert", seed=s) for s in range(players)]
    steps = [r.steps for r in play_hands(seats, hands, variant="classic", seed=60_000)]
    per_team = np.asarray(steps) / 2  # two teams at 2 and 4 players
    mean = float(per_team.mean())
    return {
        "decisions_per_team_mean": mean,
        "decisions_per_team_p90": float(np.percentile(per_team, 90)),
        "gamma_0.995_weight_at_start": 0.995**mean,
        "gamma_0.99_weight_at_start": 0.99**mean,
    }


def observation_ranges(data_dir: Path, limit: int = 200_000) -> list[tuple[str, int, float]]:
    """(block, index in block, max) of features whose recorded maximum exceeds 1.5."""
    paths = sorted(data_dir.glob("chunk*.npz"))[:2]
    obs = load_data(paths)["obs"][:limit]
    top = np.abs(obs).max(axis=0)
    out, offset = [], 0
    for name, size in BLOCKS:
        for i in range(size):
            if offset + i < len(top) and top[offset + i] > 1.5:
                out.append((name, i, float(top[offset + i])))
        offset += size
    return out


def entropy(data_dir: Path, limit: int = 20_000) -> dict:
    path = sorted(data_dir.glob("chunk*.npz"))[0]
    data = load_data([path])
    obs = data["obs"][:limit]
    masks = np.unpackbits(data["masks"][:limit], axis=1, count=NUM_ACTIONS).astype(bool)
    legal = masks.sum(1)
    result = {
        "legal_ids_mean": float(legal.mean()),
        "legal_ids_median": float(np.median(legal)),
        "share_single_legal": float((legal == 1).mean()),
        "uniform_entropy_mean": float(np.log(legal).mean()),
    }
    try:
        from agents.network import SHIPPED, PolicyWeights, PPOAgent

        old = PPOAgent(SHIPPED["sb3-classic-2p"])
        weights: PolicyWeights = old.weights
        logits = np.stack([weights.logits(o) for o in obs])
        z = np.where(masks[:, : logits.shape[1]], logits, -np.inf)
        z -= z.max(1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(1, keepdims=True)
        ent = -(p * np.where(p > 0, np.log(np.where(p > 0, p, 1)), 0)).sum(1)
        result["old_policy_entropy_mean"] = float(ent.mean())
        result["old_policy_top_prob_mean"] = float(p.max(1).mean())
    except Exception as error:  # the SB3 extras are optional
        result["old_policy"] = f"skipped: {error}"
    return result


def old_pool() -> dict:
    """What the former MaskablePPO recipe's opponent pool put in front of its learner, with
    its defaults: random a quarter of the hands, no bots (its bot share applied only when
    bots were given), else one of its last 20 snapshots."""
    random_share, bot_share = 0.25, 0.0
    return {
        "random": random_share,
        "bots": bot_share,
        "snapshots": 1 - random_share - bot_share,
        "max_snapshots": 20,
    }


def losses(
    agent: str, players: int, hands: int, seed: int = 30_000, opponent: str = "random"
) -> dict:
    """How the hands ``agent`` loses against ``opponent`` end, over duplicate deals.

    Every deal is played twice, the agent's team dealt first and second. A hand is
    lost when the other team scores more (a tie is not a loss).
    """
    counts = {"hands": 0, "lost": 0, "opponent went out": 0, "agent went out": 0, "stock": 0}
    for first in (0, 1):
        names = [agent if (s + first) % 2 == 0 else opponent for s in range(players)]
        seats = [make_agent(name, seed=seed + 7 * s + first) for s, name in enumerate(names)]
        for record in play_hands(seats, hands, variant="classic", seed=seed):
            counts["hands"] += 1
            if record.result.outcome(first) != -1:  # a tie is not a loss
                continue
            counts["lost"] += 1
            if record.went_out is None:
                counts["stock"] += 1
            elif names[record.went_out] == agent:
                counts["agent went out"] += 1
            else:
                counts["opponent went out"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400)
    parser.add_argument("--data", default=None, help="a run's data folder (recorded states)")
    parser.add_argument(
        "--losses", metavar="AGENT", help="only: how AGENT's hands lost to random end"
    )
    parser.add_argument("--players", type=int, default=4, help="with --losses (default 4)")
    args = parser.parse_args(argv)
    if args.losses:
        print(f"losses of {args.losses} against random, classic {args.players}p:")
        print(losses(args.losses, args.players, args.hands))
        return 0
    for players in (2, 4):
        print(f"reward scale, classic {players}p:", reward_scale(args.hands, players))
        print(f"horizon, classic {players}p:", horizon(args.hands // 2, players))
    if args.data:
        data = Path(args.data)
        ranges = observation_ranges(data)
        print(
            f"observation features with a recorded max > 1.5: {len(ranges)} of {sum(BLOCKS_SIZES)}"
        )
        for name, i, value in sorted(ranges, key=lambda r: -r[2])[:8]:
            print(f"  {name}[{i}] max {value:.2f}")
        print("entropy:", entropy(data))
    print("old default opponent pool:", old_pool())
    print(f"log(500) = {math.log(500):.2f} (uniform over every id)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
