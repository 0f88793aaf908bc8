"""``canasta demo`` (``make demo``): the main job in a few minutes.

1. The compliance check over every preset and player count (quick settings).
2. A short duplicate-deal tournament of the baseline bots in classic 4-player.
3. A look at the shipped trained agent: its recorded evaluation, one hand it
   plays against the random agent drawn as a table, and a fresh short match.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time

from canasta_cli.options import command_parser


def _section(title: str) -> None:
    print(f"\n=== {title} ===", flush=True)


def compliance(quick: bool) -> bool:
    from canasta_env.compliance import format_table, run_checks

    _section(
        "1. compliance: PettingZoo api/seed/render tests, truncation, mask, cards, hidden info"
    )
    start = time.perf_counter()
    results = run_checks(quick=quick, cycles=200 if quick else 1000)
    print(format_table(results))
    failed = [r for r in results if not r.passed]
    print(
        f"{len(results) - len(failed)}/{len(results)} checks passed "
        f"in {time.perf_counter() - start:.0f} s"
    )
    for result in failed:
        print(f"FAILED {result.variant} {result.players}p {result.check}: {result.detail}")
    return not failed


def tournament(hands: int, out_dir: str, overwrite: bool = False) -> int:
    from canasta_cli.arena import main as arena_main

    _section(f"2. tournament: random, greedy, expert; classic 4 players; {hands} hands per pairing")
    return arena_main(
        [
            "--variant", "classic", "--players", "4",
            "--agents", "random", "greedy", "expert",
            "--hands", str(hands), "--seed", "0", "--out", out_dir,
        ] + (["--overwrite"] if overwrite else [])
    )  # fmt: skip


def _shown(key: str, value) -> str:
    """A recorded training figure as a person reads it: ``classic 2-player, classic
    4-player`` for ``[["classic", 2], ["classic", 4]]``, ``10,000,000`` for a step count."""
    if key == "tables" and isinstance(value, list):
        return ", ".join(f"{v} {p}-player" for v, p in value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 10_000:
        return f"{value:,}"
    return str(value)


def trained_agent(hands: int) -> None:
    from agents.base import RandomAgent, play_hands
    from agents.network import DEFAULT_MODEL, load_agent
    from canasta_env.render import render_table
    from canasta_env.rules import make_rules
    from canasta_env.table import Table

    _section(f"3. trained agent: {DEFAULT_MODEL.name}")
    meta_path = DEFAULT_MODEL.with_suffix(".json")
    meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    training = meta.get("training", meta)
    for key in ("stage", "tables", "steps", "seed"):
        if key in training:
            print(f"{key}: {_shown(key, training[key])}")
    rows = meta.get("evaluation", [])
    if rows:
        print(f"recorded evaluation (duplicate deals, every seat order): {meta.get('command', '')}")
        header = f"  {'preset':10} {'players':>7} {'opponent':>9} {'hands':>6} {'won':>6}"
        print(header + f"  {'95% CI':>15} {'score diff':>10}")
        for row in rows:
            low, high = row["ci95"]
            print(
                f"  {row['variant']:10} {row['num_players']:>7} {row['opponent']:>9} "
                f"{row['hands']:>6} {row['win_rate']:>6.3f}  [{low:.3f}, {high:.3f}] "
                f"{row['mean_score_diff']:>+10.0f}"
            )
    stranger = meta.get("worst_stranger")
    if stranger:
        low, high = stranger["ci95"]
        print(
            f"against bots written outside the project (docs/generalisation.md), the worst: "
            f"{stranger['opponent'].rpartition(':')[2]}, won {stranger['win_rate']:.3f} "
            f"[{low:.3f}, {high:.3f}] of {stranger['hands']:,} hands"
        )
    agent = load_agent(DEFAULT_MODEL)
    variant = meta.get("variant", "classic")
    players = int(meta.get("num_players", 2))
    table = Table(make_rules(variant), players, seed=2026, backend=None)
    table.play([agent] + [RandomAgent(seed) for seed in range(1, players)])
    print("one hand, trained agent in seat 0 against random (final table):")
    print(render_table(table.game))
    outcomes = []
    for seats in ((agent, RandomAgent(7)), (RandomAgent(7), agent)):
        records = play_hands(list(seats), hands, variant=variant, seed=100)
        me = 0 if seats[0] is agent else 1
        outcomes += [record.result.outcome(me) for record in records]
    won, tied = outcomes.count(1), outcomes.count(0)
    print(
        f"fresh match against random, both seat orders: won {won}, tied {tied} of "
        f"{len(outcomes)} hands"
    )


def main(argv: list[str] | None = None) -> int:
    parser = command_parser("canasta demo", __doc__)
    parser.add_argument("--full", action="store_true", help="full compliance settings (slower)")
    parser.add_argument("--hands", type=int, default=100, help="tournament hands per pairing")
    parser.add_argument("--match-hands", type=int, default=50, help="trained-agent match hands")
    parser.add_argument(
        "--out",
        default=None,
        help="keep the tournament's files in this folder (a new one; if not given they go "
        "into a temporary folder, removed at the end)",
    )
    parser.add_argument(
        "--overwrite", action="store_true", help="replace the files of a --out folder in use"
    )
    args = parser.parse_args(argv)
    try:  # every option checked before the first step runs
        if args.hands < 1 or args.match_hands < 1:
            raise ValueError(
                f"--hands and --match-hands must be at least 1, got {args.hands} and "
                f"{args.match_hands}"
            )
        if args.out:
            from canasta_arena.arena import check_out_dir

            check_out_dir(args.out, args.overwrite)
    except ValueError as error:
        print(f"canasta demo: {error}", file=sys.stderr)
        return 2
    ok = compliance(quick=not args.full)
    if args.out:
        tournament_code = tournament(args.hands, args.out, args.overwrite)
        if tournament_code == 0:
            print(f"tournament files (hands.csv, results.json, ratings.png) in {args.out}")
    else:
        with tempfile.TemporaryDirectory(prefix="canasta-demo-") as out_dir:
            tournament_code = tournament(args.hands, out_dir, args.overwrite)
        print("tournament files: removed with their temporary folder (--out DIR keeps them)")
    trained_agent(args.match_hands)
    return 0 if ok and tournament_code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
