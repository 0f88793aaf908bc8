"""The run folder: its settings (``config.json``, every one checked before anything is
written), its log and TensorBoard writer, and the checkpoint files (``checkpoint.pt`` read
as data only, written atomically beside ``checkpoint.prev.pt``). A run folder may come from
elsewhere: it is refused when it holds a symbolic link or a FIFO, before anything is read or
written, and every file is written by :mod:`canasta_env.safe_write` (never through a link).

What the settings mean and how a run resumes: :mod:`training.stages`.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

from canasta_env.engine.game import teams_of
from canasta_env.jsonfile import NotAZipError, open_regular, read_json_file, shown, zip_members
from canasta_env.rules import make_rules
from canasta_env.safe_write import (
    append_text,
    atomic_file,
    atomic_write,
    check_folder,
    copy_atomic,
)
from training.config import (
    ADDED,
    DEFAULTS,
    SESSION,
    TORCH,
    VARIANTS,
    SettingError,
    check,
    is_int,
    is_real,
    settings_of,
)
from training.machine import DeviceError, budget, resolve_device


# ---------------------------------------------------------------------- config
def tables_of(variants, players) -> list[tuple[str, int]]:
    tables = []
    for variant in variants:
        if variant not in VARIANTS:
            raise ValueError(
                f"unknown variant {shown(repr(variant))}; choose from {', '.join(VARIANTS)}"
            )
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
            raise ValueError(f"unknown setting {shown(repr(key))}")
        if value is not None:
            config[key] = value
    for key in ("variant", "players"):
        check(key, config[key])
    config["tables"] = tables_of(config["variant"], config["players"])
    if config["table_weights"] is None:
        # each table equally often in decisions: 4-player hands give the learner twice as many
        config["table_weights"] = [teams_of(n) / n for _, n in config["tables"]]
    check_config(config)
    return config


def check_config(config: dict) -> None:
    """Every setting of ``config`` in its range (``SettingError`` naming the first that is
    not): a new run's, and a saved run's with the changes of a resume, before anything is
    written."""
    missing = [key for key in DEFAULTS if key not in config and key not in SESSION]
    if missing or "tables" not in config:
        raise SettingError(
            (missing or ["tables"])[0], f"settings missing: {', '.join(missing or ['tables'])}"
        )
    for setting in settings_of(TORCH):
        setting.check(setting.name, config.get(setting.name), setting.name)
    try:
        tables = tables_of(config["variant"], config["players"])
    except ValueError as error:
        raise SettingError("variant", str(error)) from None
    if config["tables"] != [list(t) for t in tables] and config["tables"] != tables:
        raise SettingError(
            "tables",
            f"tables {shown(repr(config['tables']))} are not those of the variants and players",
        )
    weights = config["table_weights"]
    if len(weights) != len(tables):
        raise SettingError(
            "table_weights",
            f"table_weights needs {len(tables)} numbers, one per table {tables}; got "
            f"{shown(repr(weights))}",
        )


# ---------------------------------------------------------------------- run state
class Run:
    """A run directory: config, logs, checkpoints."""

    def __init__(self, path: str | os.PathLike, config: dict):
        self.path = Path(path)
        self.config = config
        self.path.mkdir(parents=True, exist_ok=True)
        self.writer = None
        #: the log lines of a resume not yet committed (:meth:`commit`), or None
        self._pending: list[str] | None = None

    #: Settings that may change when a run is continued: budgets, parallelism, the device,
    #: time limit, evaluation cadence, the kickstarting schedule (``train.log`` records every
    #: change). A resumed run keeps its device unless ``--device`` is given.
    RESUMABLE = (
        "ppo_steps", "jobs", "envs", "threads", "device", "time_limit", "eval_every",
        "eval_deals", "kick_coef", "kick_steps", "lr", "opponents", "table_weights",
    )  # fmt: skip

    @classmethod
    def open(cls, path, overrides: dict):
        """A new run from ``overrides``, or the saved one with only the resumable ones applied.

        Every setting is checked (:func:`check_config`) before anything is written, so a
        refused change leaves the run as it was. ``ValueError``: one line naming the problem
        (and ``config.json`` when the problem is in it); a folder that is or holds a symbolic
        link, a FIFO or a device is refused first (:func:`canasta_env.safe_write.check_folder`).
        """
        path = Path(path)
        check_folder(path, "run folder")  # a link or a FIFO in it: refused before anything
        saved = path / "config.json"
        if saved.exists():
            config = read_json_file(saved, what="run config")
            if not isinstance(config, dict):
                raise ValueError(f"run config {saved}: not a JSON object")
            for key in SESSION:  # older runs saved them: this session's values (or none) count
                config[key] = None
            for key, value in ADDED.items():  # settings older runs did not have
                config.setdefault(key, value)
            given = {k: v for k, v in overrides.items() if v is not None}
            # a fixed setting given again as saved changes nothing: only another value is refused
            fixed = sorted(
                k for k, v in given.items() if k not in cls.RESUMABLE and config.get(k) != v
            )
            if fixed:
                raise ValueError(
                    f"{path} is an existing run; only {', '.join(cls.RESUMABLE)} may change "
                    f"(got {', '.join(fixed)}): use another --run-dir for other settings"
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
        # the learner's threads this run uses (the budget, training/machine.py), saved so that
        # a resume on this machine is the same run
        plan = budget(int(config["jobs"]), config["threads"])
        config["threads"] = plan.threads
        if config["device"] == "cuda":  # refused before anything is written
            try:
                resolve_device("cuda")
            except DeviceError as error:
                if overrides.get("device") == "cuda":
                    raise
                raise DeviceError(f"run config {saved} says device cuda: {error}") from None
        run = cls(path, config)
        if (path / CHECKPOINT).exists():  # a resume: written once the checkpoint fits
            run._pending = []
        else:
            run.save_config()
        for key, (old, new) in changed.items():
            run.log(f"[run] {key}: {old} -> {new}")
        for note in plan.notes:
            run.log(f"[run] {note}")
        return run

    def commit(self) -> None:
        """Write what :meth:`open` kept back on a resume (``config.json`` with the changed
        settings, the log lines since): the trainer calls it once the checkpoint has been
        read and found to fit, so a refused resume leaves the folder as it was."""
        pending, self._pending = self._pending, None
        if pending is None:
            return
        self.save_config()
        append_text(self.path / "train.log", "".join(line + "\n" for line in pending))

    def save_config(self) -> None:
        """``config.json``: every setting but those of this session (:data:`SESSION`)."""
        config = {k: v for k, v in self.config.items() if k not in SESSION}
        atomic_write(self.path / "config.json", json.dumps(config, indent=2) + "\n")

    def log(self, text: str) -> None:
        print(text, file=sys.stderr, flush=True)
        if self._pending is not None:
            self._pending.append(text)
        else:
            append_text(self.path / "train.log", text + "\n")

    def tb(self):
        if self.writer is None:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.writer = SummaryWriter(str(self.path / "tb"))
            except ImportError:  # tensorboard missing: everything else still logs
                self.writer = False
        return self.writer or None


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
    with atomic_file(path, "checkpoint") as handle:
        torch.save(state, handle)
        if path.exists():  # the last one kept before the new one takes its name
            copy_atomic(path, path.with_name(PREV_CHECKPOINT), "checkpoint")


def checkpoint_misfit(path: Path, error: Exception) -> RunFileError:
    """The one-line refusal of a checkpoint that reads but does not fit this run."""
    detail = (str(error).splitlines() or [type(error).__name__])[0][:200]
    return RunFileError(
        f"checkpoint {path} does not fit this run ({type(error).__name__}: {detail}); "
        f"{_way_out(path)}"
    )
