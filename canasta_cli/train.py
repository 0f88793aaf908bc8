"""``canasta train``: the command line of training (:mod:`training.league`).

Usage::

    canasta train --variant classic --players 2 --run-dir runs/c2     # every stage
    canasta train --resume runs/c2                                     # continue it
    canasta train record|imitate|ppo --run-dir runs/c2                 # one stage
    canasta train --backend rllib ...      # self-play PPO on RLlib (training.rllib_backend)
    canasta train --evaluate MODEL ...     # evaluate saved models (training.selfplay)

A run trains on several tables at once, so here ``--variant`` and ``--players`` take
comma lists (``--variant classic,spanish --players 2,4``: every table of both that the
presets allow); the run's settings are :func:`training.league.make_config`'s, and an
option left out keeps the run's value. ``--backend rllib`` and ``--evaluate`` hand the
whole command line to their own parsers (``canasta train --backend rllib --help``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from canasta_cli.options import command_parser, name_list
from canasta_env.rules import PRESETS
from training.league import BACKENDS, STAGES, Run, RunFileError, run_stages


def _backend(argv: list[str]) -> str:
    """The ``--backend`` of a command line (``torch`` when not given)."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--backend", choices=BACKENDS, default="torch")
    return parser.parse_known_args(argv)[0].backend


def _list(text: str, cast=str, option: str = "") -> list:
    try:
        return [cast(item.strip()) for item in text.split(",") if item.strip()]
    except ValueError:
        kind = "whole numbers" if cast is int else "numbers"
        raise ValueError(f"{option} takes {kind} separated by commas, got {text!r}") from None


def _weights(text: str, option: str = "--opponents") -> dict:
    out = {}
    for item in _list(text):
        name, _, weight = item.partition("=")
        try:
            out[name.strip()] = float(weight) if weight else 1.0
        except ValueError:
            raise ValueError(f"{option}: {item!r} is not NAME=WEIGHT") from None
    return out


def _fail(message: str) -> None:
    """A bad setting: one line on stderr, exit status 2 (as argparse, without the usage)."""
    print(f"canasta train: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta train",
        "Imitation warm start, then PPO against a league (see training/README.md).",
    )
    parser.add_argument(
        "stage", nargs="?", choices=STAGES + ("all",), default="all", help="the stages to run"
    )
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="torch",
        help="torch: this recipe; rllib: self-play PPO on RLlib (extra scale, "
        "canasta train --backend rllib --help)",
    )
    parser.add_argument("--run-dir", default=None, help="run directory (config, data, models)")
    parser.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue this run")
    parser.add_argument(
        "--variant",
        default=None,
        type=name_list(PRESETS),
        metavar="NAME[,NAME]",
        help="presets of the run's tables, a comma list (a new run: classic)",
    )
    parser.add_argument(
        "--players",
        default=None,
        metavar="N[,N]",
        help="player counts of the run's tables, a comma list (a new run: 2)",
    )
    parser.add_argument(
        "--table-weights", default=None, help="relative share of hands per table, comma list"
    )
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--hidden", default=None, help="hidden layer widths (512,256)")
    parser.add_argument("--teachers", default=None, help="bots to imitate (expert)")
    parser.add_argument("--record-steps", type=int, default=None)
    parser.add_argument("--bc-epochs", type=int, default=None)
    parser.add_argument("--ppo-steps", type=int, default=None, help="learner steps in all")
    parser.add_argument("--rollout-steps", type=int, default=None)
    parser.add_argument("--lr", type=float, default=None)
    parser.add_argument("--ent-coef", type=float, default=None)
    parser.add_argument("--gamma", type=float, default=None)
    parser.add_argument("--score-coef", type=float, default=None)
    parser.add_argument(
        "--opponents", default=None, help="league weights, e.g. self=0.25,snapshot=0.2,expert=0.35"
    )
    parser.add_argument("--kick-teacher", default=None, help="bot the learner is pulled to")
    parser.add_argument("--kick-coef", type=float, default=None, help="its initial weight (1.0)")
    parser.add_argument(
        "--kick-steps", type=int, default=None, help="learner steps until the pull is 0"
    )
    parser.add_argument("--eval-every", type=int, default=None, help="iterations")
    parser.add_argument("--eval-deals", type=int, default=None)
    parser.add_argument("--init", default=None, help="start PPO from this model file")
    parser.add_argument("--envs", type=int, default=None, help="hands at once per process")
    parser.add_argument("--jobs", type=int, default=None, help="worker processes (0: in process)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads")
    parser.add_argument("--time-limit", type=float, default=None, help="seconds, this session")
    parser.add_argument("--ship", default=None, help="copy the final model file here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--evaluate" in argv:  # the evaluation of saved models lives with the SB3 wrapper
        from training.selfplay import main as selfplay_main

        return selfplay_main(argv)
    if _backend(argv) == "rllib":
        try:
            from training.rllib_backend import main as rllib_main
        except ImportError as error:
            _fail(f"--backend rllib needs Ray: pip install -e '.[scale]' ({error})")
        return rllib_main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.run_dir is None) == (args.resume is None):
        _fail("give exactly one of --run-dir (a new or existing run) and --resume RUN_DIR")
    overrides = {
        "variant": args.variant or None,
        "seed": args.seed,
        "teachers": _list(args.teachers) if args.teachers else None,
        "record_steps": args.record_steps,
        "bc_epochs": args.bc_epochs,
        "ppo_steps": args.ppo_steps,
        "rollout_steps": args.rollout_steps,
        "lr": args.lr,
        "ent_coef": args.ent_coef,
        "gamma": args.gamma,
        "score_coef": args.score_coef,
        "kick_teacher": args.kick_teacher,
        "kick_coef": args.kick_coef,
        "kick_steps": args.kick_steps,
        "eval_every": args.eval_every,
        "eval_deals": args.eval_deals,
        "init": args.init,
        "envs": args.envs,
        "jobs": args.jobs,
        "threads": args.threads,
        "time_limit": args.time_limit,
    }
    try:
        overrides["opponents"] = _weights(args.opponents) if args.opponents else None
        overrides["players"] = _list(args.players, int, "--players") if args.players else None
        overrides["hidden"] = _list(args.hidden, int, "--hidden") if args.hidden else None
        overrides["table_weights"] = (
            _list(args.table_weights, float, "--table-weights") if args.table_weights else None
        )
        path = Path(args.resume or args.run_dir)
        if args.resume and not (path / "config.json").exists():
            raise ValueError(f"{path}: not a run directory (no config.json)")
        if args.init is not None and not Path(args.init).exists():
            raise ValueError(f"--init {args.init}: no such model file")
        run = Run.open(path, overrides)
    except ValueError as error:
        _fail(str(error))
    run.log(f"[run] {run.path}: {json.dumps(run.config)}")
    stages = STAGES if args.stage == "all" else (args.stage,)
    try:
        run_stages(run, stages, progress=not args.no_progress)
    except KeyboardInterrupt:
        run.log("[run] interrupted; continue with: canasta train --resume " + str(run.path))
        return 130
    except RunFileError as error:
        _fail(str(error))
    if args.ship:
        import shutil

        final = run.path / "model.npz"
        shutil.copyfile(final, args.ship)
        run.log(f"[run] copied {final} to {args.ship}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
