"""Search settings scored decision by decision against the truth of real positions.

An arena run of 200 hands tells two search settings apart only by 7 points or more. This
tool scores single decisions instead (docs/search.md, "Tuning on positions"):

1. **Positions.** Hands of ``ppo:classic-Np`` self-play (greedy, deals from ``--seed``
   on); of each hand's decisions where the network hesitates (2+ legal ids, its top prior
   under 0.95) ``--per-hand`` are drawn. A position is (deal, moves played), replayed to.
2. **The truth.** Each of the network's top 4 moves is played, then the hand to its end by
   the network at every seat, in ``--worlds`` worlds that keep *every hand as it really
   is* and shuffle only the stock and the face-down pot cards. The real hands are one
   draw from what the seat should believe about them, so over many positions the mean
   of ``Q(move)`` (the training reward of the hand for the seat) is an unbiased yardstick
   of a move, whatever belief the searcher holds. (Choosing by it would be cheating; the
   tool only scores with it.)
3. **Settings.** Each ``search:`` setting decides each position, as a runner asks it
   (a world dealt from the seat's view), with ``--seeds`` seeds. Its **gain** is the mean
   of ``Q(its move) - Q(the network's move)``: what it adds to the network, a decision.

    python -m research.search_positions truth --players 2 --hands 150 --worlds 200 \\
        --out runs/positions_2p.json
    python -m research.search_positions eval runs/positions_2p.json 128 128,belief=history

The truth file is JSON: ``{"players", "worlds", "seed", "positions": [{"deal", "step",
"candidates", "q"}]}``; loading one checks its shape and replays each position, so a
file that does not fit the game is refused with the position named.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from agents.base import choose_action
from agents.search import SHIPPED, SearchAgent, SearchConfig, load_agent
from canasta_env.engine.game import Game
from canasta_env.jsonfile import read_json_file
from canasta_env.rules import make_rules
from canasta_env.table import Table

#: A prior at or above this on the network's move: not a position (the search's default).
HESITANT = 0.95
#: Moves scored at each position: the network's and its runners-up.
CANDIDATES = 4
#: The most a truth file may hold (a bounded read of a file from elsewhere).
MAX_POSITIONS = 20_000
#: The most bytes of a truth file (20,000 positions take about 3 MB).
MAX_TRUTH_BYTES = 64 * 2**20


def _priors(agent: SearchAgent, table: Table) -> tuple[np.ndarray, np.ndarray]:
    legal = np.flatnonzero(table.mask())
    logits = agent.policy.logits(table.observation(table.current))[legal]
    priors = np.exp(logits - logits.max())
    return legal, priors / priors.sum()


class _Greedy:
    """The search's network playing its top move; ``priors`` of its last decision."""

    name = "network"

    def __init__(self, agent: SearchAgent):
        self.policy = agent.policy
        self.legal = self.priors = None

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        logits = self.policy.logits(observation)[legal]
        priors = np.exp(logits - logits.max())
        self.legal, self.priors = legal, priors / priors.sum()
        return int(legal[np.argmax(self.priors)])


def replay(agent: SearchAgent, players: int, deal: int, step: int) -> Game:
    """The game after ``step`` greedy moves of the network from ``deal``."""
    table = Table(make_rules("classic"), players, seed=deal)
    played = table.play([_Greedy(agent)] * players, until=lambda t: t.game.num_steps >= step)
    if played < step:
        raise ValueError(f"deal {deal}: the hand ends before move {step}")
    return table.game


def collect(
    agent: SearchAgent,
    players: int,
    hands: int,
    per_hand: int,
    seed: int,
    priors_within: tuple[float, float] = (0.0, HESITANT),
):
    """``(deal, step)`` of up to ``per_hand`` decisions a hand (drawn by ``seed``) with 2+
    legal ids where the network's top prior is within ``priors_within`` (from, below)."""
    low, high = priors_within
    rng = random.Random(seed)
    greedy = _Greedy(agent)
    positions = []
    for deal in range(seed, seed + hands):
        table = Table(make_rules("classic"), players, seed=deal)
        found: list[tuple[int, int]] = []

        def look(_seat, _obs, _mask, _action, found=found, table=table, deal=deal) -> None:
            if len(greedy.legal) > 1 and low <= greedy.priors.max() < high:
                found.append((deal, table.game.num_steps))

        table.play([greedy] * players, on_decision=look)
        positions += rng.sample(found, min(per_hand, len(found)))
    return positions


def true_world(game: Game, rng: random.Random) -> Game:
    """``game`` with only its stock and face-down pot cards shuffled (every hand kept)."""
    world = game.copy()
    face_down = game.pot_hidden
    rest = list(game.stock) + list(game.pot[:face_down])
    rng.shuffle(rest)
    world.pot = rest[:face_down] + list(game.pot[face_down:])
    world.stock = rest[face_down:]
    world.seed = None
    world.rng = random.Random(rng.getrandbits(64))
    world.state_changed()
    return world


def truth(agent: SearchAgent, game: Game, worlds: int, rng: random.Random):
    """(candidates, Q) of a position: the network's top moves, each played to the hand's
    end in ``worlds`` true worlds (the same worlds for every move)."""
    table = Table.from_game(game.copy())
    legal, priors = _priors(agent, table)
    order = np.argsort(-priors, kind="stable")
    candidates = [int(legal[i]) for i in order[:CANDIDATES]]
    true_worlds = [true_world(game, rng) for _ in range(worlds)]
    return candidates, agent.score_moves(true_worlds, candidates, game.current).mean(axis=1)


def load_truth(path: Path) -> dict:
    """A truth file, its shape checked (``ValueError`` naming the problem)."""
    data = read_json_file(path, "truth file", max_bytes=MAX_TRUTH_BYTES)
    players = data.get("players") if isinstance(data, dict) else None
    if players not in (2, 3, 4, 6):
        raise ValueError(f"{path}: 'players' must be 2, 3, 4 or 6")
    positions = data.get("positions")
    if not isinstance(positions, list) or not 0 < len(positions) <= MAX_POSITIONS:
        raise ValueError(f"{path}: 'positions' must be a list of 1..{MAX_POSITIONS}")
    for k, p in enumerate(positions):
        ok = isinstance(p, dict) and all(isinstance(p.get(f), int) for f in ("deal", "step"))
        ok = ok and isinstance(p.get("candidates"), list) and isinstance(p.get("q"), list)
        ok = ok and 1 <= len(p["candidates"]) == len(p["q"]) <= CANDIDATES
        if not ok:
            raise ValueError(f"{path}: position {k} is not {{deal, step, candidates, q}}")
    return data


def gain(spec: str, data: dict, seeds: int) -> dict:
    """How a setting (``128``, ``128,belief=history``) decides the positions of ``data``."""
    players = data["players"]
    agent = load_agent(f"classic-{players}p@{spec}")
    gains, deviated = [], 0
    started = time.process_time()
    games = [replay(agent, players, p["deal"], p["step"]) for p in data["positions"]]
    for seed in range(seeds):
        agent.seed(100 + seed)
        for k, (p, game) in enumerate(zip(data["positions"], games)):
            table = Table.from_game(game.copy())
            legal = table.legal_actions()
            if p["candidates"][0] not in legal:
                raise ValueError(f"position {k} (deal {p['deal']}, move {p['step']}) does not fit")
            move = choose_action(agent, game, table.observation(game.current), table.mask())
            if move not in p["candidates"]:
                raise ValueError(f"position {k}: the setting chose {move}, not a scored move")
            gains.append(p["q"][p["candidates"].index(move)] - p["q"][0])
            deviated += move != p["candidates"][0]
    seconds = time.process_time() - started
    values = np.array(gains)
    return {
        "setting": spec,
        "gain": float(values.mean()),
        "standard_error": float(values.std(ddof=1) / np.sqrt(len(values))),
        "decisions": len(values),
        "deviated": deviated,
        "cpu_seconds_per_decision": seconds / len(values),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("truth", help="draw positions and score their moves")
    make.add_argument("--players", type=int, default=2, choices=(2, 4))
    make.add_argument("--hands", type=int, default=150)
    make.add_argument("--per-hand", type=int, default=3)
    make.add_argument("--worlds", type=int, default=200)
    make.add_argument("--seed", type=int, default=7000)
    make.add_argument(
        "--priors",
        type=float,
        nargs=2,
        default=(0.0, HESITANT),
        metavar=("FROM", "BELOW"),
        help="positions where the network's top prior is in [FROM, BELOW) (default: hesitant)",
    )
    make.add_argument(
        "--score-coef",
        type=float,
        default=SearchConfig.score_coef,
        help="weight of the score margin in Q (0: hands won, tied, lost only)",
    )
    make.add_argument("--out", type=Path, required=True)
    score = commands.add_parser("eval", help="score search settings on a truth file")
    score.add_argument("truth", type=Path)
    score.add_argument("settings", nargs="+", help="budget and settings: 128,belief=history")
    score.add_argument("--seeds", type=int, default=2)
    score.add_argument("--json", type=Path, help="write the results here")
    args = parser.parse_args(argv)

    if args.command == "truth":
        config = SearchConfig(depth=None, score_coef=args.score_coef)
        agent = SearchAgent(SHIPPED[f"classic-{args.players}p"], config)
        positions = collect(
            agent, args.players, args.hands, args.per_hand, args.seed, tuple(args.priors)
        )
        rng = random.Random(args.seed)
        scored = []
        for deal, step in positions:
            candidates, q = truth(agent, replay(agent, args.players, deal, step), args.worlds, rng)
            scored.append(
                {
                    "deal": deal,
                    "step": step,
                    "candidates": candidates,
                    "q": [round(float(v), 5) for v in q],
                }
            )
        data = {
            "players": args.players,
            "worlds": args.worlds,
            "seed": args.seed,
            "priors": list(args.priors),
            "score_coef": args.score_coef,
            "positions": scored,
        }
        args.out.write_text(json.dumps(data) + "\n")
        print(f"wrote {args.out}: {len(scored)} positions")
        return 0
    data = load_truth(args.truth)
    results = []
    for spec in args.settings:
        result = gain(spec, data, args.seeds)
        results.append(result)
        print(
            f"{spec:36s} gain {result['gain']:+.4f} ± {result['standard_error']:.4f}  "
            f"deviated {result['deviated']}/{result['decisions']}  "
            f"CPU s/decision {result['cpu_seconds_per_decision']:.3f}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
