"""``canasta train``: the command line of training (:mod:`training.stages`).

Usage::

    canasta train --variant classic --players 2 --run-dir runs/c2     # every stage
    canasta train --resume runs/c2                                     # continue it
    canasta train record|imitate|ppo --run-dir runs/c2                 # one stage
    canasta train --backend rllib ...      # self-play PPO on RLlib (training.rllib_backend)
    canasta train --evaluate MODEL ...     # a saved model against bots, in the arena

A run trains on several tables at once, so here ``--variant`` and ``--players`` take
lists (``--variant classic,spanish --players 2,4``: every table of both that the
presets allow; :func:`canasta_cli.options.add_table_options` with ``many``); the run's
settings are :func:`training.run.make_config`'s, and an option left out keeps the
run's value. ``--backend rllib`` and ``--evaluate`` have parsers of their own, below
(``canasta train --backend rllib --help``): RLlib trains one table (``--variant NAME
--players N``, as every one-table command), and ``--evaluate`` plays
:func:`canasta_arena.arena.run_arena` once per table and opponent. Both training backends
take their options from one table (:data:`training.config.SETTINGS`, through
:func:`add_setting_options`): one option per setting a backend reads, with the
setting's help and a new run's default, and one meaning in both (the league's
``--opponents``, ``--max-snapshots``, ``--eval-every``, ``--eval-deals`` are those of
:mod:`training.league_pool`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from pathlib import Path

from canasta_cli.options import (
    add_jobs_option,
    add_table_options,
    command_parser,
    did_you_mean,
)
from canasta_env.extras import install_command
from canasta_env.jsonfile import read_json_file
from canasta_env.safe_write import atomic_write, check_outputs, copy_atomic
from training.config import (
    BACKENDS,
    BOTS,
    DEFAULTS,
    RLLIB,
    RLLIB_DEFAULTS,
    RLLIB_RENAMED,
    TORCH,
    Choice,
    Real,
    Setting,
    Whole,
    device,
    model_path,
    settings_of,
)
from training.critic import CRITICS, SHARED
from training.league_pool import ENTRIES, HELD_OUT, held_out_message, is_network
from training.run import Run, RunFileError
from training.stages import STAGES, run_stages


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


#: The league's entries as the help lists them: the training families as ``style:FAMILY``.
LEAGUE_HELP = (
    "self",
    "snapshot",
    *BOTS,
    "styled",
    "style:FAMILY (a training family: agents/styles.py)",
    "ppo:MODEL (a frozen network, e.g. an exploiter's best.npz from canasta exploit)",
)


def weights_of(
    text: str | None, option: str = "--opponents", names: tuple = ENTRIES
) -> dict[str, float] | None:
    """``--opponents self=0.25,snapshot=0.2,expert`` to weights of ``names`` (a name alone
    weighs 1; None stays None), for both backends; ``ValueError`` (one line) naming a bad
    item, with the nearest name to a mistyped one."""
    if text is None:
        return None
    what = "league entry" if names == ENTRIES else "bot"
    out = {}
    for item in _list(text):
        name, _, weight = (part.strip() for part in item.partition("="))
        if names == ENTRIES and name in HELD_OUT:
            raise ValueError(f"{option}: {held_out_message(name)}")
        if names == ENTRIES and is_network(name):
            pass  # a frozen network: its file is checked with the run's settings
        elif name not in names:
            raise ValueError(
                f"{option}: unknown {what} {name!r}{did_you_mean(name, names)}; "
                f"choose from {', '.join(names)}"
            )
        try:
            out[name] = float(weight) if weight else 1.0
        except ValueError:
            raise ValueError(f"{option}: {item!r} is not NAME=WEIGHT") from None
    return out


def league_weights(text: str | None) -> dict[str, float] | None:
    """``--opponents``: the league's weights (:func:`weights_of` of its entries)."""
    return weights_of(text)


#: Settings written as comma lists on the command line, and their items' type.
LISTS = {"hidden": int, "table_weights": float, "teachers": str, "eval_opponents": str}
#: Settings written as ``NAME=W[,NAME=W]``, and the names they weigh.
WEIGHTS = {"opponents": ENTRIES, "record_opponents": BOTS}
#: Settings whose options the table options give (:func:`add_table_options`).
TABLE = ("variant", "players")


def _shown(value) -> str:
    """A default as the command line writes it."""
    if isinstance(value, dict):
        return ",".join(f"{name}={weight}" for name, weight in value.items())
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def add_setting_options(parser: argparse.ArgumentParser, stack: str) -> None:
    """An option for each setting of ``stack`` (:data:`training.config.SETTINGS`, in its
    order), with the setting's help and a new run's default (a resumed run keeps its own);
    each left None when not given. RLlib's ``--epochs`` is kept as ``--ppo-epochs``'
    former name."""
    defaults = DEFAULTS if stack == TORCH else RLLIB_DEFAULTS
    for setting in settings_of(stack):
        if setting.name in TABLE:
            continue
        default = defaults[setting.name]
        text = setting.help
        if setting.name == "opponents":
            text += f", of {', '.join(LEAGUE_HELP)}"
        if default is not None:
            text += f" (a new run: {_shown(default)})"
        names = [setting.option]
        if stack == RLLIB:
            names += ["--" + old for old, new in RLLIB_RENAMED.items() if new == setting.name]
        metavar = _metavar(setting)
        parser.add_argument(
            *names,
            dest=setting.name,
            type=_option_type(setting),
            default=None,
            metavar=metavar,
            help=text,
        )


def _metavar(setting: Setting) -> str | None:
    if setting.name in WEIGHTS:
        return "NAME=W[,NAME=W]"
    if setting.name in LISTS:
        return "A[,B]"
    if setting.check is model_path:
        return "PATH"
    if setting.check is device:
        from training.machine import DEVICES

        return "|".join(DEVICES)
    if isinstance(setting.check, Choice):
        return "|".join(setting.check.values)
    return {Whole: "N", Real: "X"}.get(type(setting.check))


def _option_type(setting: Setting):
    if isinstance(setting.check, Whole):
        return int
    if isinstance(setting.check, Real):
        return float
    return str


def given_settings(args: argparse.Namespace, stack: str) -> dict:
    """The settings of ``stack`` that ``args`` give, parsed (lists, weights), each None
    when not given; ``ValueError`` (one line) for text that is not a setting's."""
    given = {}
    for setting in settings_of(stack):
        value = getattr(args, setting.name, None)
        if isinstance(value, str) and setting.name in LISTS:
            value = _list(value, LISTS[setting.name], setting.option)
        elif setting.name in WEIGHTS:
            value = weights_of(value, setting.option, WEIGHTS[setting.name])
        given[setting.name] = value
    return given


def _require_torch() -> None:
    """Name the missing extra in one line before any work (without it, a run recorded
    its teachers' games for most of a minute, then failed with a traceback)."""
    if importlib.util.find_spec("torch") is None:
        _fail(
            f"training needs PyTorch, which is not installed: {install_command('train')} "
            "(the 'train' extra; make test installs it)"
        )


def _fail(message: str) -> None:
    """A bad setting: one line on stderr, exit status 2 (as argparse, without the usage)."""
    print(f"canasta train: error: {message}", file=sys.stderr)
    raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta train",
        "Imitation warm start, then PPO against a league (see training/README.md). A finished "
        "run's policy is RUN_DIR/model.npz (the best against expert: RUN_DIR/best.npz); play it "
        "with canasta play --opponents ppo:RUN_DIR/model.npz, or measure it with canasta train "
        "--evaluate RUN_DIR/model.npz (canasta train --evaluate MODEL --help).",
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
    # a resumed run keeps its own tables
    new_run = tuple(f"a new run: {_shown(DEFAULTS[key])}" for key in TABLE)
    add_table_options(parser, None, rules=False, variant=None, many=True, otherwise=new_run)
    add_setting_options(parser, TORCH)
    parser.add_argument("--ship", default=None, help="copy the final model file here")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


# ---------------------------------------------------------------------- --evaluate


def build_evaluate_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta train --evaluate",
        "A saved model against bots in the arena (canasta_arena.arena.run_arena): every deal is\n"
        "played once per seat arrangement (both seat orders at 2 players), for each table\n"
        "and each opponent.",
    )
    parser.add_argument(
        "--evaluate", required=True, metavar="MODEL", help="a model file, run folder or name"
    )
    add_table_options(parser, players="2", rules=False, variant="classic", many=True)
    parser.add_argument("--opponents", default="random", help="bots, a comma list")
    parser.add_argument("--hands", type=int, default=500, help="deals per table and opponent")
    parser.add_argument("--eval-seed", type=int, default=10_000, help="the arena's seed")
    parser.add_argument("--json", default=None, help="write the results here")
    parser.add_argument("--meta", default=None, help="training meta.json to copy into --json")
    parser.add_argument("--threads", type=int, default=1, help="torch threads (at most the cores)")
    add_jobs_option(parser)
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="--evaluate a Stable-Baselines3 .zip, which Python's pickle loads and can run "
        "code: only a file whose source you trust (the shipped ones need no flag)",
    )
    return parser


def evaluate_model(
    model: str,
    opponent: str,
    variant: str = "classic",
    num_players: int = 2,
    deals: int = 500,
    seed: int = 10_000,
    jobs: int = 1,
    trust_pickle: bool = False,
) -> dict:
    """``ppo:MODEL`` against ``opponent`` over ``deals`` duplicate deals of the arena."""
    from canasta_arena.arena import run_arena
    from canasta_arena.schedule import make_pairings

    name = model if model.startswith("ppo:") else f"ppo:{model}"
    seatings = len(make_pairings([name, opponent], num_players, "round-robin")[0].arrangements)
    result = run_arena(
        [name, opponent],
        variant,
        num_players,
        hands=deals * seatings,
        seed=seed,
        jobs=jobs,
        plot=False,
        trust_pickle=trust_pickle,
    )
    row = next(r for r in result.summary["ranking"] if r["agent"] == name)
    won = [len(h.winners) if name in h.winners else 0 for h in result.hands]
    wins, ties = won.count(1), sum(1 for w in won if w > 1)
    return {
        "agent": name,
        "opponent": opponent,
        "variant": variant,
        "num_players": num_players,
        "deals": deals,
        "hands": row["hands"],
        "seed": seed,
        "wins": wins,
        "ties": ties,
        "losses": row["hands"] - wins - ties,
        "win_rate": row["win_rate"],
        "ci95": list(row["win_ci"]),
        "mean_score_diff": row["score_diff"],
        "score_diff_ci95": list(row["score_diff_ci"]),
    }


def _summary(result: dict) -> str:
    low, high = result["ci95"]
    diff_low, diff_high = result["score_diff_ci95"]
    return (
        f"{result['agent']} vs {result['opponent']} ({result['variant']}, "
        f"{result['num_players']}p, {result['hands']} hands): win rate "
        f"{result['win_rate']:.3f} [95% CI {low:.3f}, {high:.3f}], "
        f"W/T/L {result['wins']}/{result['ties']}/{result['losses']}, mean score diff "
        f"{result['mean_score_diff']:+.1f} [95% CI {diff_low:+.1f}, {diff_high:+.1f}]"
    )


def evaluate_main(argv: list[str]) -> int:
    args = build_evaluate_parser().parse_args(argv)
    _require_torch()
    model = args.evaluate.removeprefix("ppo:")
    # every option checked, and --meta read, before any hand is played
    if args.hands < 1:
        _fail(f"--hands must be at least 1 (deals per table and opponent), got {args.hands}")
    if args.threads < 1:
        _fail(f"--threads must be at least 1, got {args.threads}")
    if not _list(args.opponents):
        _fail("--opponents names no bot: give a comma list, e.g. --opponents expert,greedy")
    meta = None
    if args.json:  # the report is a file of its own, never an input
        try:
            check_outputs({"--json": args.json}, [model, *([args.meta] if args.meta else [])])
            if not Path(args.json).parent.is_dir():
                raise ValueError(f"--json {args.json}: its folder does not exist")
            if args.meta:
                meta = read_json_file(args.meta, "training meta")
        except (OSError, ValueError) as error:
            _fail(str(error))
    try:
        import torch

        from agents.network import load_agent
        from training.machine import budget

        plan = budget(args.jobs, args.threads)  # the arena's workers, then torch's threads
        for note in plan.notes:
            print(f"canasta train: {note}", file=sys.stderr)
        torch.set_num_threads(plan.threads)
        agent = load_agent(model, trust_pickle=args.trust_pickle)  # a bad model fails here
        results = []
        for variant in args.variant:
            for players in args.players:
                for opponent in _list(args.opponents):
                    result = evaluate_model(
                        model,
                        opponent,
                        variant,
                        players,
                        args.hands,
                        args.eval_seed,
                        args.jobs,
                        args.trust_pickle,
                    )
                    results.append(result)
                    print(_summary(result), flush=True)
    except (OSError, ValueError) as error:
        _fail(str(error))
    if args.json:
        report = {"model": Path(model).name, "command": "canasta train " + " ".join(argv)}
        report["evaluation"] = results
        meta_path = Path(args.meta) if args.meta else Path(model).parent / "meta.json"
        try:
            if meta is not None:
                report["training"] = meta
            elif getattr(agent, "meta", None) is not None:
                report["training"] = agent.meta  # a .npz model file carries its own record
            elif meta_path.exists():
                report["training"] = read_json_file(meta_path, "training meta")
            elif Path(args.json).exists():  # keep the training record of an earlier report
                previous = read_json_file(args.json, "evaluation report")
                if isinstance(previous, dict) and "training" in previous:
                    report["training"] = previous["training"]
        except ValueError as error:
            _fail(str(error))
        try:
            atomic_write(args.json, json.dumps(report, indent=2) + "\n", "--json")
        except (OSError, ValueError) as error:
            _fail(str(error))
    return 0


# ---------------------------------------------------------------------- --backend rllib


def build_rllib_parser() -> argparse.ArgumentParser:
    parser = command_parser(
        "canasta train --backend rllib",
        "Masked self-play PPO on RLlib, one table (training/rllib_backend.py, docs/ray.md).\n"
        "Needs Ray: pip install -e '.[scale]'. A new run's settings default to\n"
        "training.config's but for RLLIB_OVERRIDES, each with its reason (docs/ray.md);\n"
        "a resumed run keeps its own unless given.",
    )
    parser.add_argument("--backend", choices=["rllib"], default="rllib")
    parser.add_argument("--run-dir", default=None, help="run directory")
    parser.add_argument("--resume", default=None, metavar="RUN_DIR", help="continue this run")
    add_table_options(parser, players=None, rules=False, variant=None)
    add_setting_options(parser, RLLIB)
    parser.add_argument(
        "--critic",
        default=None,
        metavar="|".join(CRITICS),
        help=f"canasta train's --critic; RLlib's network has one value head on the policy's "
        f"trunk: {SHARED} only",
    )
    parser.add_argument(
        "--ray", default=None, metavar="ADDRESS", help="a running cluster (default: local)"
    )
    parser.add_argument("--no-progress", action="store_true")
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="with --resume: restore RLlib's own checkpoint/, which RLlib loads with pickle "
        "(code can run): only for a run you made or trust",
    )
    return parser


def rllib_main(argv: list[str]) -> int:
    args = build_rllib_parser().parse_args(argv)
    if args.critic not in (None, SHARED):  # before Ray: refused whether or not it is there
        print(
            f"canasta train: error: --critic {args.critic} is canasta train's (the torch "
            f"backend: training/critic.py); the RLlib backend trains one network whose value "
            f"head shares the policy's trunk (--critic {SHARED})",
            file=sys.stderr,
        )
        return 2
    try:  # through sys.modules (a package attribute left by an earlier import would not ask)
        rllib_backend = importlib.import_module("training.rllib_backend")
    except ImportError as error:
        _fail(f"--backend rllib needs Ray: {install_command('scale')} ({error})")
    if (args.run_dir is None) == (args.resume is None):
        print(
            "canasta train: error: give exactly one of --run-dir and --resume RUN_DIR",
            file=sys.stderr,
        )
        return 2
    try:
        for key, value in given_settings(args, RLLIB).items():
            setattr(args, key, value)
        settings = rllib_backend.run_settings(args)
    except ValueError as error:
        print(f"canasta train: error: {error}", file=sys.stderr)
        return 2
    run_dir = Path(args.resume or args.run_dir)
    table = rllib_backend.run(run_dir, settings, address=args.ray, progress=not args.no_progress)
    for bot, row in table.items():
        low, high = row["win_ci"]
        print(
            f"vs {bot}: {100 * row['win_rate']:.1f}% of {row['hands']} hands "
            f"[{100 * low:.1f}, {100 * high:.1f}]"
        )
    return 0


# ---------------------------------------------------------------------- the league


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--evaluate" in argv:
        return evaluate_main(argv)
    if _backend(argv) == "rllib":
        return rllib_main(argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    _require_torch()
    if (args.run_dir is None) == (args.resume is None):
        _fail("give exactly one of --run-dir (a new or existing run) and --resume RUN_DIR")
    try:
        overrides = given_settings(args, TORCH)
        path = Path(args.resume or args.run_dir)
        if args.resume and not (path / "config.json").exists():
            raise ValueError(f"{path}: not a run directory (no config.json)")
        if (path / "exploit.json").exists():  # its curve and result are against its target
            raise ValueError(
                f"{path} holds an exploit run: continue it with canasta exploit (the same "
                "command and --run-dir), or train in another folder"
            )
        if args.init is not None and not Path(args.init).exists():
            raise ValueError(f"--init {args.init}: no such model file")
        if args.init is not None:
            from training.ppo import init_model

            init_model(Path(args.init))  # a model PPO cannot start from: refused before writing
        if args.ship:
            check_outputs({"--ship": args.ship}, [path / "model.npz", *filter(None, [args.init])])
            ship, folder = Path(args.ship).resolve(), path.resolve()
            if folder == ship or folder in ship.parents:  # its config, checkpoint, data
                raise ValueError(
                    f"--ship {args.ship} is inside the run folder {path}, whose files the run "
                    "reads: ship the model to a file outside it"
                )
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
    run.commit()  # a resume whose stages read no checkpoint (record or imitate only)
    final = run.path / "model.npz"
    if args.ship:
        try:
            copy_atomic(final, args.ship, "--ship", link=False)
        except (OSError, ValueError) as error:
            _fail(str(error))
        run.log(f"[run] copied {final} to {args.ship}")
    if final.exists() and "ppo" in stages:  # where the policy is, and what to do with it
        run.log(
            f"[run] the policy: {final}; play it: canasta play --opponents ppo:{final}; "
            f"measure it: canasta train --evaluate {final}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
