"""The run folder: its settings (``config.json``, every one checked before anything is
written), its log and TensorBoard writer, atomic writes, and the checkpoint files
(``checkpoint.pt`` read as data only, written atomically beside ``checkpoint.prev.pt``).

What the settings mean and how a run resumes: :mod:`training.stages`.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
from pathlib import Path

from canasta_env.engine.game import teams_of
from canasta_env.jsonfile import NotAZipError, open_regular, read_json_file, zip_members
from canasta_env.rules import make_rules
from training.league_pool import BOTS, ENTRIES, HELD_OUT, held_out_message

VARIANTS = ("classic", "canastone", "spanish", "italian")
#: ``--backend``: torch (training/league.py), or RLlib (training/rllib_backend.py, extra ``scale``).
BACKENDS = ("torch", "rllib")

DEFAULTS: dict = {
    "variant": ["classic"],
    "players": [2],
    "table_weights": None,  # hands of each table, relative (default: equal decisions)
    "seed": 0,
    "hidden": [512, 256],
    # record
    "teachers": ["expert"],
    "record_opponents": {"expert": 0.5, "greedy": 0.3, "random": 0.2},
    "record_steps": 800_000,
    "record_chunk": 100_000,
    # imitate
    "bc_epochs": 4,
    "bc_lr": 1e-3,
    "bc_batch": 1024,
    # ppo
    "ppo_steps": 10_000_000,
    "rollout_steps": 16_384,
    "ppo_epochs": 2,
    "minibatch": 2048,
    "lr": 1e-4,
    "clip": 0.15,
    "ent_coef": 0.001,
    "vf_coef": 0.5,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "max_grad_norm": 0.5,
    "score_coef": 0.25,
    # kickstarting: cross-entropy towards a shadowing bot's move, weight decaying to 0
    "kick_teacher": "expert",
    "kick_coef": 1.0,
    "kick_steps": 4_000_000,
    "opponents": {"self": 0.25, "snapshot": 0.2, "expert": 0.35, "greedy": 0.15, "random": 0.05},
    "max_snapshots": 8,
    "eval_every": 10,
    "eval_deals": 150,
    "eval_opponents": ["expert", "greedy", "random"],
    "init": None,
    "envs": 64,
    "jobs": 2,
    "threads": 2,
    "time_limit": None,
}
#: Settings of one invocation, never written to ``config.json`` (a resume does not inherit them).
SESSION = ("time_limit",)


# ---------------------------------------------------------------------- config
def tables_of(variants, players) -> list[tuple[str, int]]:
    tables = []
    for variant in variants:
        if variant not in VARIANTS:
            raise ValueError(f"unknown variant {variant!r}; choose from {', '.join(VARIANTS)}")
        rules = make_rules(variant)
        for n in players:
            if n in rules.player_counts:
                tables.append((variant, n))
    if not tables:
        raise ValueError(f"no valid table among variants {variants} and players {players}")
    return tables


def make_config(**overrides) -> dict:
    """A new run's settings: the defaults, then ``overrides`` (checked: :func:`check_config`)."""
    config = json.loads(json.dumps(DEFAULTS))
    for key, value in overrides.items():
        if key not in DEFAULTS:
            raise ValueError(f"unknown setting {key!r}")
        if value is not None:
            config[key] = value
    _check_tables(config)
    config["tables"] = tables_of(config["variant"], config["players"])
    if config["table_weights"] is None:
        # each table equally often in decisions: 4-player hands give the learner twice as many
        config["table_weights"] = [teams_of(n) / n for _, n in config["tables"]]
    check_config(config)
    return config


class SettingError(ValueError):
    """A setting out of its range; ``key`` names it."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


#: The most learner steps of a run (``ppo_steps``, ``kick_steps``): a budget of time only.
MAX_STEPS = 10**12
#: The most steps of one batch (``rollout_steps``, ``minibatch``, ``record_chunk``,
#: ``bc_batch``): a batch lies in memory, about 3 kB a step (an observation of 686 floats,
#: its mask, the move and its return), so 2**20 steps take about 3 GB.
MAX_BATCH_STEPS = 2**20
#: The most teacher decisions recorded for imitation (``record_steps``): imitation holds
#: them all in memory, about 3 kB each (30 GB at the bound; the default is 800,000).
MAX_RECORD_STEPS = 10**7
#: The most passes over a batch or the recorded decisions (``ppo_epochs``, ``bc_epochs``).
MAX_EPOCHS = 1000
#: The most snapshots the league keeps (``max_snapshots``): each is a copy of the network's
#: actor, in every worker's memory and in every checkpoint.
MAX_SNAPSHOTS = 64
#: The most iterations between evaluations (``eval_every``), and deals in one (``eval_deals``).
MAX_EVAL_EVERY = 10**6
MAX_EVAL_DEALS = 100_000
#: The most hands played at once by one process (``envs``).
MAX_ENVS = 4096
#: The most worker processes (``jobs``) and torch threads (``threads``).
MAX_WORKERS = 1024
#: Whole-number settings and their range, least and greatest (``seed``: below 2**63, torch's
#: bound). The command line, a new run and a resumed run's ``config.json`` are all checked
#: against these (:func:`check_config`), and the RLlib backend's settings of the same
#: meaning too (:mod:`training.rllib_backend`).
INT_RANGES = {
    "seed": (0, 2**63 - 1), "record_steps": (1, MAX_RECORD_STEPS),
    "record_chunk": (1, MAX_BATCH_STEPS), "bc_epochs": (1, MAX_EPOCHS),
    "bc_batch": (1, MAX_BATCH_STEPS), "ppo_steps": (1, MAX_STEPS),
    "rollout_steps": (1, MAX_BATCH_STEPS), "ppo_epochs": (1, MAX_EPOCHS),
    "minibatch": (1, MAX_BATCH_STEPS), "kick_steps": (0, MAX_STEPS),
    "max_snapshots": (1, MAX_SNAPSHOTS), "eval_every": (1, MAX_EVAL_EVERY),
    "eval_deals": (1, MAX_EVAL_DEALS), "envs": (1, MAX_ENVS), "jobs": (0, MAX_WORKERS),
    "threads": (1, MAX_WORKERS),
}  # fmt: skip
#: Real-number settings: (least value, whether the least value itself is allowed, greatest).
FLOAT_RANGES = {
    "bc_lr": (0.0, False, None), "lr": (0.0, False, None), "clip": (0.0, False, None),
    "ent_coef": (0.0, True, None), "vf_coef": (0.0, True, None), "gamma": (0.0, True, 1.0),
    "gae_lambda": (0.0, True, 1.0), "max_grad_norm": (0.0, False, None),
    "score_coef": (0.0, True, None), "kick_coef": (0.0, True, None),
    "time_limit": (0.0, False, None),
}  # fmt: skip


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_real(value) -> bool:
    return (is_int(value) or isinstance(value, float)) and math.isfinite(value)


def check_int(key: str, value, bounds: tuple[int, int], name: str | None = None) -> None:
    """``SettingError`` naming the setting (``name``, or ``key``) and its range unless
    ``value`` is a whole number within ``bounds`` (least, greatest)."""
    least, greatest = bounds
    name = name or key
    if not is_int(value):
        raise SettingError(key, f"{name} must be a whole number, got {value!r}")
    if not least <= value <= greatest:
        extra = " (0: in process)" if key == "jobs" else ""
        raise SettingError(
            key, f"{name} must be at least {least}{extra} and at most {greatest:,}, got {value}"
        )


def _check_float(key: str, value) -> None:
    least, inclusive, greatest = FLOAT_RANGES[key]
    if value is None and key == "time_limit":
        return
    bound = f"at least {least}" if inclusive else f"above {least}"
    if greatest is not None:
        bound += f" and at most {greatest}"
    if (
        not is_real(value)
        or value < least
        or (value == least and not inclusive)
        or (greatest is not None and value > greatest)
    ):
        raise SettingError(key, f"{key} must be a finite number {bound}, got {value!r}")


def check_weights(key: str, weights, names: tuple | None) -> None:
    """Relative weights: finite, >= 0, a positive sum; a mapping of ``names`` when given."""
    values = weights
    if names is not None:
        if not isinstance(weights, dict) or not weights:
            raise SettingError(key, f"{key} must map names to weights, got {weights!r}")
        for name in weights:
            if key == "opponents" and name in HELD_OUT:
                raise SettingError(key, f"opponents: {held_out_message(name)}")
            if name not in names:
                what = "league entry" if key == "opponents" else "bot"
                raise SettingError(
                    key, f"unknown {what} {name!r} in {key}; choose from {', '.join(names)}"
                )
        values = list(weights.values())
    if not isinstance(values, list) or not all(is_real(w) and w >= 0 for w in values):
        raise SettingError(key, f"{key} must be finite numbers >= 0, got {weights!r}")
    if not sum(values) > 0:
        raise SettingError(key, f"{key} must have a positive sum, got {weights!r}")


def check_hidden(hidden, name: str = "hidden") -> None:
    """``SettingError`` unless ``hidden`` is a list of layer widths whose network (of the
    table's observation and action ids) fits a model file: at most :data:`MAX_LAYERS
    <agents.model_file.MAX_LAYERS>` layers, its float32 weights at most :data:`MAX_MODEL_BYTES
    <agents.model_file.MAX_MODEL_BYTES>` (the file a run writes must be one it can read back)."""
    from agents.model_file import MAX_LAYERS, MAX_MODEL_BYTES
    from canasta_env.actions import NUM_ACTIONS
    from canasta_env.observation import OBS_SIZE

    if not isinstance(hidden, list) or not all(is_int(w) and w >= 1 for w in hidden):
        raise SettingError("hidden", f"{name} must be layer widths of at least 1, got {hidden!r}")
    if len(hidden) > MAX_LAYERS:
        raise SettingError("hidden", f"{name} has {len(hidden)} layers; at most {MAX_LAYERS}")
    sizes = [OBS_SIZE, *hidden]
    weights = sum((a + 1) * b for a, b in zip(sizes, hidden))
    weights += (sizes[-1] + 1) * (NUM_ACTIONS + 1)  # the action and value heads
    if 4 * weights > MAX_MODEL_BYTES:
        raise SettingError(
            "hidden",
            f"{name} {str(hidden)[:80]} makes a network of {4 * weights:,} bytes; a model "
            f"file holds at most {MAX_MODEL_BYTES:,}",
        )


def _check_names(key: str, names, allowed: tuple, empty: bool = False) -> None:
    if not isinstance(names, list) or not (names or empty):
        raise SettingError(key, f"{key} must be a list of names, got {names!r}")
    for name in names:
        if name not in allowed:
            raise SettingError(key, f"unknown bot {name!r}; choose from {', '.join(allowed)}")


def _check_tables(config: dict) -> None:
    """``variant`` (names) and ``players`` (2, 3, 4, 6), the settings that make the tables."""
    variants, players = config.get("variant"), config.get("players")
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise SettingError("variant", f"variant must be a list of names, got {variants!r}")
    if not isinstance(players, list) or not all(is_int(n) for n in players):
        raise SettingError("players", f"players must be a list of whole numbers, got {players!r}")
    bad = [n for n in players if n not in (2, 3, 4, 6)]
    if bad:
        raise SettingError("players", f"players must be among 2, 3, 4, 6; got {bad}")


def check_config(config: dict) -> None:
    """Every setting of ``config`` in its range (``SettingError`` naming the first that is
    not): a new run's, and a saved run's with the changes of a resume, before anything is
    written."""
    missing = [key for key in DEFAULTS if key not in config and key not in SESSION]
    if missing or "tables" not in config:
        raise SettingError(
            (missing or ["tables"])[0], f"settings missing: {', '.join(missing or ['tables'])}"
        )
    _check_tables(config)
    try:
        tables = tables_of(config["variant"], config["players"])
    except ValueError as error:
        raise SettingError("variant", str(error)) from None
    if config["tables"] != [list(t) for t in tables] and config["tables"] != tables:
        raise SettingError(
            "tables", f"tables {config['tables']!r} are not those of the variants and players"
        )
    for key, bounds in INT_RANGES.items():
        check_int(key, config[key], bounds)
    for key in FLOAT_RANGES:
        _check_float(key, config.get(key))
    check_hidden(config["hidden"])
    weights = config["table_weights"]
    check_weights("table_weights", weights, None)
    if len(weights) != len(tables):
        raise SettingError(
            "table_weights",
            f"table_weights needs {len(tables)} numbers, one per table {tables}; got {weights}",
        )
    _check_names("teachers", config["teachers"], BOTS)
    check_weights("record_opponents", config["record_opponents"], BOTS)
    _check_names("eval_opponents", config["eval_opponents"], BOTS, empty=True)
    teacher = config["kick_teacher"]
    if teacher is not None and teacher not in BOTS:
        raise SettingError(
            "kick_teacher", f"unknown bot {teacher!r}; choose from {', '.join(BOTS)}"
        )
    check_weights("opponents", config["opponents"], ENTRIES)
    if config["init"] is not None and not isinstance(config["init"], str):
        raise SettingError("init", f"init must be a model file's path, got {config['init']!r}")


# ---------------------------------------------------------------------- run state
class Run:
    """A run directory: config, logs, checkpoints."""

    def __init__(self, path: str | os.PathLike, config: dict):
        self.path = Path(path)
        self.config = config
        self.path.mkdir(parents=True, exist_ok=True)
        self.writer = None

    #: Settings that may change when a run is continued: budgets, parallelism, time limit,
    #: evaluation cadence, the kickstarting schedule (``train.log`` records every change).
    RESUMABLE = (
        "ppo_steps", "jobs", "envs", "threads", "time_limit", "eval_every", "eval_deals",
        "kick_coef", "kick_steps", "lr", "opponents", "table_weights",
    )  # fmt: skip

    @classmethod
    def open(cls, path, overrides: dict):
        """A new run from ``overrides``, or the saved one with only the resumable ones applied.

        Every setting is checked (:func:`check_config`) before anything is written, so a
        refused change leaves the run as it was. ``ValueError``: one line naming the problem
        (and ``config.json`` when the problem is in it).
        """
        path = Path(path)
        saved = path / "config.json"
        if saved.exists():
            config = read_json_file(saved, what="run config")
            if not isinstance(config, dict):
                raise ValueError(f"run config {saved}: not a JSON object")
            for key in SESSION:  # older runs saved them: this session's values (or none) count
                config[key] = None
            given = {k: v for k, v in overrides.items() if v is not None}
            fixed = sorted(k for k in given if k not in cls.RESUMABLE)
            if fixed:
                raise ValueError(
                    f"{path} is an existing run; only {', '.join(cls.RESUMABLE)} may change "
                    f"(got {', '.join(fixed)})"
                )
            changed = {
                k: (config.get(k), v)
                for k, v in given.items()
                if config.get(k) != v and k not in SESSION
            }
            config.update(given)
            try:
                check_config(config)
            except SettingError as error:
                if error.key in given:
                    raise
                raise ValueError(f"run config {saved}: {error}") from None
        else:
            config = make_config(**overrides)
            changed = {}
        run = cls(path, config)
        run.save_config()
        for key, (old, new) in changed.items():
            run.log(f"[run] {key}: {old} -> {new}")
        return run

    def save_config(self) -> None:
        """``config.json``: every setting but those of this session (:data:`SESSION`)."""
        config = {k: v for k, v in self.config.items() if k not in SESSION}
        atomic_write(self.path / "config.json", json.dumps(config, indent=2) + "\n")

    def log(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)
        with open(self.path / "train.log", "a") as handle:
            handle.write(text + "\n")

    def tb(self):
        if self.writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.writer = SummaryWriter(str(self.path / "tb"))
            except ImportError:  # tensorboard missing: everything else still logs
                self.writer = False
        return self.writer or None


def atomic_write(path: Path, text: str) -> None:
    """``path`` holds ``text`` or what it held before, never a part (temporary file, fsync,
    rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    """The renames in ``folder`` on disk (where the system allows opening a folder)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


class RunFileError(ValueError):
    """A file of a run directory that cannot be used (one line: the file and the way out)."""


# ---------------------------------------------------------------------- checkpoints
CHECKPOINT = "checkpoint.pt"
PREV_CHECKPOINT = "checkpoint.prev.pt"
#: What ``checkpoint.pt`` holds (:meth:`training.league.Trainer.save_checkpoint`); older ones
#: are refused.
CHECKPOINT_FORMAT = "canasta-ppo-checkpoint-2"


def _way_out(path: Path) -> str:
    prev = path.with_name(PREV_CHECKPOINT)
    if prev.exists():
        return f"the previous one is kept at {prev}: rename it to {CHECKPOINT} to resume from it"
    return "remove it to start the ppo stage over (the run's other files are kept)"


def checked_history(history) -> list:
    """A checkpoint's evaluation history, each entry in the shape
    :meth:`training.league.Trainer.train` and :func:`training.evaluation.plot_curve` read
    (``ValueError`` otherwise)."""
    if not isinstance(history, list):
        raise ValueError("history is not a list")
    for entry in history:
        ok = (
            isinstance(entry, dict)
            and is_int(entry.get("iteration"))
            and is_int(entry.get("steps"))
            and isinstance(entry.get("eval"), dict)
        )
        for row in entry["eval"].values() if ok else ():
            ci = row.get("ci95") if isinstance(row, dict) else None
            ok = ok and isinstance(ci, list) and len(ci) == 2 and all(map(is_real, ci))
            ok = ok and is_real(row.get("win_rate"))
        if not ok:
            raise ValueError(f"history entry {str(entry)[:80]} is not an evaluation")
    return history


#: What a checkpoint holds besides copies of the network's weights: the pickle of its plain
#: values, the league's JSON (with the evaluation history, one entry of some hundred bytes
#: per evaluation) and the random generators' states.
CHECKPOINT_EXTRA_BYTES = 64 * 2**20


def checkpoint_bound(network_bytes: int, max_snapshots: int) -> int:
    """The most bytes a checkpoint of a run may unpack to, from the bytes of its network's
    parameters: the network, Adam's two moments of it and up to ``max_snapshots`` copies of
    its actor, with :data:`CHECKPOINT_EXTRA_BYTES` besides (about 95 MB for the default
    network of 512 and 256 units and 8 snapshots)."""
    return (3 + max_snapshots) * network_bytes + CHECKPOINT_EXTRA_BYTES


def read_checkpoint(path: Path, max_bytes: int) -> dict:
    """The checkpoint's state, read with ``torch.load(weights_only=True)``: tensors and plain
    values only, so a file from elsewhere is data and never runs code; only a regular file,
    and only when its zip directory says that its members unpack to at most ``max_bytes``
    together (:func:`checkpoint_bound`), before any tensor is read. ``RunFileError`` (one
    line: the file, the problem, the way out) for a file that is truncated, corrupt, too
    large, of an older format, or holds anything else."""
    import pickle

    import torch

    label = f"checkpoint {path}"
    try:
        file = open_regular(path, label)
    except ValueError as error:
        raise RunFileError(f"{error}; {_way_out(path)}") from None
    with file:
        try:
            zip_members(file, label, max_bytes)
        except NotAZipError as error:
            detail = str(error).removeprefix(f"{label}: ")
            raise RunFileError(
                f"{label} is truncated or corrupt ({detail}); {_way_out(path)}"
            ) from None
        except ValueError as error:  # members that unpack to more than max_bytes
            raise RunFileError(f"{error}; {_way_out(path)}") from None
        try:
            state = torch.load(file, map_location="cpu", weights_only=True)
        except pickle.UnpicklingError as error:
            found = re.search(r"Unsupported global: GLOBAL (\S+)", str(error))
            if found is None:  # not a pickle torch writes: cut short or overwritten
                detail = re.search(r"Unsupported operand \S+", str(error))
                raise RunFileError(
                    f"{label} is truncated or corrupt "
                    f"({detail.group(0) if detail else 'not a torch checkpoint'}); "
                    f"{_way_out(path)}"
                ) from None
            raise RunFileError(
                f"{label} holds more than tensors and plain values (it names "
                f"{found.group(1)}); it is not loaded, as loading it could run code. A "
                f"checkpoint written before canasta-env saved plain data reads so too: "
                f"{_way_out(path)}"
            ) from None
        except Exception as error:  # noqa: BLE001 - zip, EOF, OS errors: all one line
            detail = (str(error).splitlines() or [""])[0][:160] or type(error).__name__
            raise RunFileError(
                f"{label} is truncated or corrupt ({detail}); {_way_out(path)}"
            ) from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise RunFileError(
            f"checkpoint {path} is not a {CHECKPOINT_FORMAT} checkpoint (one of an older "
            f"canasta-env?); {_way_out(path)}"
        )
    return state


def write_checkpoint(folder: Path, state: dict) -> None:
    """``state`` to ``folder/checkpoint.pt`` with ``torch.save``: written to a temporary file,
    synced, then renamed over the last one, which stays as ``checkpoint.prev.pt``
    (``checkpoint.pt`` is never missing)."""
    import torch

    path = folder / CHECKPOINT
    tmp = path.with_name(CHECKPOINT + ".tmp")
    with open(tmp, "wb") as handle:
        torch.save(state, handle)
        handle.flush()
        os.fsync(handle.fileno())
    if path.exists():
        prev = path.with_name(PREV_CHECKPOINT)
        prev_tmp = path.with_name(PREV_CHECKPOINT + ".tmp")
        prev_tmp.unlink(missing_ok=True)
        try:
            os.link(path, prev_tmp)
        except OSError:  # no hard links here: a copy
            import shutil

            shutil.copyfile(path, prev_tmp)
        os.replace(prev_tmp, prev)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def checkpoint_misfit(path: Path, error: Exception) -> RunFileError:
    """The one-line refusal of a checkpoint that reads but does not fit this run."""
    detail = (str(error).splitlines() or [type(error).__name__])[0][:200]
    return RunFileError(
        f"checkpoint {path} does not fit this run ({type(error).__name__}: {detail}); "
        f"{_way_out(path)}"
    )
