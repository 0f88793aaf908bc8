"""Milliseconds per ``rgb_array`` render, and the example picture of docs/faces.md.

Run: ``python benchmarks/render_image.py`` times :func:`canasta_env.image.table_image`
on states of random masked play, for every preset and player count, in the spectator's
and in a player's view. ``--png docs/images/table.png`` also writes the picture of one
table (``--variant``, ``--players``, ``--seed`` and ``--steps`` choose it).
"""

from __future__ import annotations

import argparse
import random
import time

from PIL import Image

from canasta_env.compliance import CHECK_VARIANTS, variant_rules
from canasta_env.engine import Game
from canasta_env.engine.game import PHASE_HAND_OVER
from canasta_env.image import table_image


def play(variant: str, players: int, seed: int, steps: int) -> Game:
    """A game after ``steps`` random legal actions (or at the end of its first hand)."""
    game = Game(variant_rules(variant), players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.phase == PHASE_HAND_OVER:
            break
        game.apply(rng.choice(game.legal_actions()))
    return game


def states(variant: str, players: int, count: int, seed: int = 0) -> list[Game]:
    """``count`` states spread over one hand of random play."""
    game = Game(variant_rules(variant), players, seed=seed)
    rng = random.Random(seed)
    trace = []
    while game.phase != PHASE_HAND_OVER:
        trace.append(game.copy())
        game.apply(rng.choice(game.legal_actions()))
    trace.append(game)
    step = max(1, len(trace) // count)
    return trace[::step][:count]


def time_renders(games: list[Game], viewer, repeats: int) -> float:
    """Mean milliseconds of one render over ``games``, best of ``repeats`` passes."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for game in games:
            table_image(game, viewer)
        best = min(best, (time.perf_counter() - start) / len(games))
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", help="write one table's picture here")
    parser.add_argument("--variant", default="classic")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=84)
    parser.add_argument("--steps", type=int, default=98)
    parser.add_argument("--states", type=int, default=20, help="states timed per row")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-timing", action="store_true")
    args = parser.parse_args()
    if args.png:
        game = play(args.variant, args.players, args.seed, args.steps)
        Image.fromarray(table_image(game)).save(args.png, optimize=True)
        print(f"wrote {args.png}")
    if args.no_timing:
        return
    table_image(play("classic", 2, 0, 0))  # load the fonts before timing
    print(f"{'variant':<20}{'players':>8}{'spectator ms':>14}{'player ms':>11}")
    for variant in CHECK_VARIANTS:
        for players in variant_rules(variant).player_counts:
            games = states(variant, players, args.states)
            spectator = time_renders(games, None, args.repeats)
            player = time_renders(games, 0, args.repeats)
            print(f"{variant:<20}{players:>8}{spectator:>14.1f}{player:>11.1f}")


if __name__ == "__main__":
    main()
