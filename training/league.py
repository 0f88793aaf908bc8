"""``canasta train``: imitation warm start, then PPO against a league, in one run directory.

    canasta train --variant classic --players 2 --run-dir runs/c2     # every stage
    canasta train --resume runs/c2                                     # continue it
    canasta train record|imitate|ppo --run-dir runs/c2                 # one stage

Stages (each skipped when its output exists, so a killed run resumes):

1. ``record``: the teacher bots (``--teachers``, default ``expert``) play against
   a mix of bots; their decisions go to ``RUN/data/``
   (:mod:`training.imitation`).
2. ``imitate``: the network clones them (masked cross-entropy, value on the
   hand reward) -> ``RUN/imitation.npz``.
3. ``ppo``: PPO from the clone. Each hand the learner's team meets one entry of
   the league: itself (both teams learn), an admitted snapshot, or a bot. The
   reward comes at the end of the hand (won/lost plus a clipped margin, see
   :func:`training.rollout.hand_reward`). Kickstarting: a shadow teacher bot
   labels the learner's own states and a cross-entropy towards its move is
   added, with a weight falling to 0 at ``--kick-steps``. Every
   ``--eval-every`` iterations the greedy policy plays duplicate deals against
   each bot and the newest snapshot; it joins the league as a snapshot when it
   beats that snapshot. ``RUN/checkpoint.pt`` (network, Adam, RNG and league
   state: tensors and plain values, loaded with ``weights_only`` so a run from
   elsewhere never runs code) is written atomically after every evaluation, the
   one before it kept as ``RUN/checkpoint.prev.pt``; ``RUN/model.npz`` is
   the latest policy, ``RUN/best.npz`` the best against the expert, and
   ``RUN/evals/`` keeps every evaluated policy.

``RUN/config.json`` holds every setting and the seed: ``--resume RUN`` reads it,
so a resumed run is the same run (bit for bit when nothing changes: a test
checks it). Budgets, parallelism, the evaluation cadence, the kickstarting
schedule, the learning rate, the league's weights and the table weights may be
changed on a resume, each checked as on a new run before anything is written;
``train.log`` records each change. ``--time-limit`` holds for one session only
and is not saved. Progress: a bar with learner steps/s and the
latest win rates, TensorBoard in ``RUN/tb``, ``RUN/curve.png`` (win rate
against each bot over steps) and ``RUN/history.jsonl``.
"""

from __future__ import annotations

import json
import math
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

from agents.stats import wilson_interval
from canasta_env.actions import NUM_ACTIONS
from canasta_env.engine.game import teams_of
from canasta_env.jsonfile import loads_bounded, read_json_file
from canasta_env.rules import make_rules
from training.rollout import LEARNER

VARIANTS = ("classic", "canastone", "spanish", "italian")
BOTS = ("random", "greedy", "expert")
#: ``--backend``: this module's recipe, or RLlib (training/rllib_backend.py, extra ``scale``).
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


#: Whole-number settings and their least value (``seed``: below 2**63, torch's bound).
INT_RANGES = {
    "seed": 0, "record_steps": 1, "record_chunk": 1, "bc_epochs": 1, "bc_batch": 1,
    "ppo_steps": 1, "rollout_steps": 1, "ppo_epochs": 1, "minibatch": 1, "kick_steps": 0,
    "max_snapshots": 1, "eval_every": 1, "eval_deals": 1, "envs": 1, "jobs": 0, "threads": 1,
}  # fmt: skip
#: Real-number settings: (least value, whether the least value itself is allowed, greatest).
FLOAT_RANGES = {
    "bc_lr": (0.0, False, None), "lr": (0.0, False, None), "clip": (0.0, False, None),
    "ent_coef": (0.0, True, None), "vf_coef": (0.0, True, None), "gamma": (0.0, True, 1.0),
    "gae_lambda": (0.0, True, 1.0), "max_grad_norm": (0.0, False, None),
    "score_coef": (0.0, True, None), "kick_coef": (0.0, True, None),
    "time_limit": (0.0, False, None),
}  # fmt: skip


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_real(value) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def _check_int(key: str, value) -> None:
    least = INT_RANGES[key]
    if not _is_int(value):
        raise SettingError(key, f"{key} must be a whole number, got {value!r}")
    if value < least:
        extra = " (0: in process)" if key == "jobs" else ""
        raise SettingError(key, f"{key} must be at least {least}{extra}, got {value}")
    if value >= 2**63:
        raise SettingError(key, f"{key} must be below 2**63, got {value}")


def _check_float(key: str, value) -> None:
    least, inclusive, greatest = FLOAT_RANGES[key]
    if value is None and key == "time_limit":
        return
    bound = f"at least {least}" if inclusive else f"above {least}"
    if greatest is not None:
        bound += f" and at most {greatest}"
    if (
        not _is_real(value)
        or value < least
        or (value == least and not inclusive)
        or (greatest is not None and value > greatest)
    ):
        raise SettingError(key, f"{key} must be a finite number {bound}, got {value!r}")


def _check_weights(key: str, weights, names: tuple | None) -> None:
    """Relative weights: finite, >= 0, a positive sum; a mapping of ``names`` when given."""
    values = weights
    if names is not None:
        if not isinstance(weights, dict) or not weights:
            raise SettingError(key, f"{key} must map names to weights, got {weights!r}")
        for name in weights:
            if name not in names:
                what = "league entry" if key == "opponents" else "bot"
                raise SettingError(
                    key, f"unknown {what} {name!r} in {key}; choose from {', '.join(names)}"
                )
        values = list(weights.values())
    if not isinstance(values, list) or not all(_is_real(w) and w >= 0 for w in values):
        raise SettingError(key, f"{key} must be finite numbers >= 0, got {weights!r}")
    if not sum(values) > 0:
        raise SettingError(key, f"{key} must have a positive sum, got {weights!r}")


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
    if not isinstance(players, list) or not all(_is_int(n) for n in players):
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
    for key in INT_RANGES:
        _check_int(key, config[key])
    for key in FLOAT_RANGES:
        _check_float(key, config.get(key))
    hidden = config["hidden"]
    if not isinstance(hidden, list) or not all(_is_int(w) and w >= 1 for w in hidden):
        raise SettingError("hidden", f"hidden must be layer widths of at least 1, got {hidden!r}")
    weights = config["table_weights"]
    _check_weights("table_weights", weights, None)
    if len(weights) != len(tables):
        raise SettingError(
            "table_weights",
            f"table_weights needs {len(tables)} numbers, one per table {tables}; got {weights}",
        )
    _check_names("teachers", config["teachers"], BOTS)
    _check_weights("record_opponents", config["record_opponents"], BOTS)
    _check_names("eval_opponents", config["eval_opponents"], BOTS, empty=True)
    teacher = config["kick_teacher"]
    if teacher is not None and teacher not in BOTS:
        raise SettingError(
            "kick_teacher", f"unknown bot {teacher!r}; choose from {', '.join(BOTS)}"
        )
    _check_weights("opponents", config["opponents"], BOTS + ("self", "snapshot"))
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
        _atomic_write(self.path / "config.json", json.dumps(config, indent=2) + "\n")

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


def _atomic_write(path: Path, text: str) -> None:
    """``path`` holds ``text`` or what it held before, never a part (temporary file, fsync,
    rename)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
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
#: What ``checkpoint.pt`` holds (:meth:`Trainer.save_checkpoint`); older ones are refused.
CHECKPOINT_FORMAT = "canasta-ppo-checkpoint-2"


def _way_out(path: Path) -> str:
    prev = path.with_name(PREV_CHECKPOINT)
    if prev.exists():
        return f"the previous one is kept at {prev}: rename it to {CHECKPOINT} to resume from it"
    return "remove it to start the ppo stage over (the run's other files are kept)"


def _checked_history(history) -> list:
    """A checkpoint's evaluation history, each entry in the shape :meth:`Trainer.train` and
    :func:`plot_curve` read (``ValueError`` otherwise)."""
    if not isinstance(history, list):
        raise ValueError("history is not a list")
    for entry in history:
        ok = (
            isinstance(entry, dict)
            and _is_int(entry.get("iteration"))
            and _is_int(entry.get("steps"))
            and isinstance(entry.get("eval"), dict)
        )
        for row in entry["eval"].values() if ok else ():
            ci = row.get("ci95") if isinstance(row, dict) else None
            ok = ok and isinstance(ci, list) and len(ci) == 2 and all(map(_is_real, ci))
            ok = ok and _is_real(row.get("win_rate"))
        if not ok:
            raise ValueError(f"history entry {str(entry)[:80]} is not an evaluation")
    return history


def read_checkpoint(path: Path) -> dict:
    """The checkpoint's state, read with ``torch.load(weights_only=True)``: tensors and plain
    values only, so a file from elsewhere is data and never runs code. ``RunFileError`` (one
    line: the file, the problem, the way out) for a file that is truncated, corrupt, of an
    older format, or holds anything else."""
    import pickle

    import torch

    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as error:
        found = re.search(r"Unsupported global: GLOBAL (\S+)", str(error))
        if found is None:  # not a pickle torch writes: cut short or overwritten
            detail = re.search(r"Unsupported operand \S+", str(error))
            raise RunFileError(
                f"checkpoint {path} is truncated or corrupt "
                f"({detail.group(0) if detail else 'not a torch checkpoint'}); {_way_out(path)}"
            ) from None
        raise RunFileError(
            f"checkpoint {path} holds more than tensors and plain values (it names "
            f"{found.group(1)}); it is not loaded, as loading it could run code. A checkpoint "
            f"written before canasta-env saved plain data reads so too: {_way_out(path)}"
        ) from None
    except Exception as error:  # noqa: BLE001 - zip, EOF, OS errors: all one line
        detail = (str(error).splitlines() or [""])[0][:160] or type(error).__name__
        raise RunFileError(
            f"checkpoint {path} is truncated or corrupt ({detail}); {_way_out(path)}"
        ) from None
    if not isinstance(state, dict) or state.get("format") != CHECKPOINT_FORMAT:
        raise RunFileError(
            f"checkpoint {path} is not a {CHECKPOINT_FORMAT} checkpoint (one of an older "
            f"canasta-env?); {_way_out(path)}"
        )
    return state


# ---------------------------------------------------------------------- ppo
def _gae(rewards, dones, values, gamma, lam):
    """Advantages and returns per trajectory (a done closes each; no bootstrap)."""
    n = len(rewards)
    adv = np.zeros(n, dtype=np.float32)
    last = 0.0
    for t in range(n - 1, -1, -1):
        if dones[t]:
            next_value, last = 0.0, 0.0
        else:
            next_value = values[t + 1]
        delta = rewards[t] + gamma * next_value - values[t]
        last = delta + gamma * lam * last
        adv[t] = last
    return adv, adv + values


class Trainer:
    """PPO against the league; see the module docstring."""

    def __init__(self, run: Run, pool):
        import torch

        from training import net

        self.run, self.pool, self.config = run, pool, run.config
        c = self.config
        torch.set_num_threads(int(c["threads"]))
        torch.manual_seed(c["seed"])
        self.torch = torch
        init = run.path / "imitation.npz" if c["init"] is None else Path(c["init"])
        if init.exists():
            self.model = net.ModelFile(init).to_torch()
        else:
            from canasta_env.observation import OBS_SIZE

            run.log(f"[ppo] no {init}: PPO starts from a new network")
            self.model = net.build(OBS_SIZE, NUM_ACTIONS, c["hidden"])
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=c["lr"], eps=1e-5)
        self.steps = 0
        self.iteration = 0
        self.snapshots: list[tuple[str, list]] = []  # (key, actor layers)
        self.history: list[dict] = []
        self.best = -1.0
        self.rng = np.random.default_rng([c["seed"], 3])
        self.seconds = 0.0  # collection + update time over every session (no evaluation)
        self.collect_seconds = 0.0
        self._load_checkpoint()

    # -------------------------------------------------------------- checkpoint
    def _load_checkpoint(self) -> None:
        """Continue from ``checkpoint.pt``: read as data only (``weights_only``), never run."""
        path = self.run.path / CHECKPOINT
        if not path.exists():
            return
        state = read_checkpoint(path)
        try:
            league = loads_bounded(state["league"], what="its league state")
            snapshots = [
                (key, [(w.numpy(), b.numpy()) for w, b in layers])
                for key, layers in zip(league["snapshots"], state["snapshots"], strict=True)
            ]
            self.model.load_state_dict(state["model"])
            self.optimizer.load_state_dict(state["optimizer"])
            self.rng.bit_generator.state = league["rng"]
            self.torch.set_rng_state(state["torch_rng"])
            steps, iteration = state["steps"], state["iteration"]
            if not (_is_int(steps) and _is_int(iteration) and steps >= 0 and iteration >= 0):
                raise ValueError(f"steps {steps!r} and iteration {iteration!r}")
            history, best = _checked_history(league["history"]), float(state["best"])
            seconds = float(state["seconds"])
            collect_seconds = float(state["collect_seconds"])
        except (KeyError, TypeError, ValueError, RuntimeError, IndexError, AttributeError) as e:
            detail = (str(e).splitlines() or [type(e).__name__])[0][:200]
            raise RunFileError(
                f"checkpoint {path} does not fit this run ({type(e).__name__}: {detail}); "
                f"{_way_out(path)}"
            ) from None
        for group in self.optimizer.param_groups:  # the learning rate may change on resume
            group["lr"] = self.config["lr"]
        self.steps, self.iteration = steps, iteration
        self.snapshots, self.history, self.best = snapshots, history, best
        self.seconds, self.collect_seconds = seconds, collect_seconds
        # evaluations logged after the checkpoint was written are dropped with it
        lines = "".join(json.dumps(entry) + "\n" for entry in self.history)
        _atomic_write(self.run.path / "history.jsonl", lines)
        self.run.log(f"[ppo] resumed at iteration {self.iteration}, {self.steps} learner steps")

    def save_checkpoint(self) -> None:
        """``checkpoint.pt``: tensors and plain values only (loadable with ``weights_only``).

        The network, Adam, torch's RNG state and the league's snapshots as tensors; the
        counters as numbers; the history, the snapshots' names and numpy's RNG state (whose
        integers pass 64 bits) as one JSON string. Written to a temporary file, synced, then
        renamed over the last one, which stays as ``checkpoint.prev.pt``.
        """
        torch = self.torch
        league = {
            "snapshots": [key for key, _ in self.snapshots],
            "history": self.history,
            "rng": self.rng.bit_generator.state,
        }
        state = {
            "format": CHECKPOINT_FORMAT,
            "steps": int(self.steps),
            "iteration": int(self.iteration),
            "best": float(self.best),
            "seconds": float(self.seconds),
            "collect_seconds": float(self.collect_seconds),
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "torch_rng": torch.get_rng_state(),
            "snapshots": [
                [[torch.from_numpy(np.array(w)), torch.from_numpy(np.array(b))] for w, b in layers]
                for _, layers in self.snapshots
            ],
            "league": json.dumps(league, default=float),
        }
        path = self.run.path / CHECKPOINT
        tmp = path.with_name(CHECKPOINT + ".tmp")
        with open(tmp, "wb") as handle:
            torch.save(state, handle)
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            # the last checkpoint stays as checkpoint.prev.pt; checkpoint.pt is never missing
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
        _fsync_dir(path.parent)

    # -------------------------------------------------------------- league
    def _actor(self) -> list:
        from training import net

        return net.actor_layers(self.model)

    def _sync_snapshots(self) -> None:
        self.pool.broadcast("snapshots", {"add": dict(self.snapshots), "reset": True})

    def _opponents(self) -> list[tuple[tuple, float]]:
        entries = []
        for name, weight in self.config["opponents"].items():
            if name == "self":
                entries.append((LEARNER, weight))
            elif name == "snapshot":
                for key, _ in self.snapshots:
                    entries.append((("snapshot", key), weight / len(self.snapshots)))
            else:
                entries.append((("bot", name), weight))
        return [(c, w) for c, w in entries if w > 0]

    # -------------------------------------------------------------- one iteration
    def collect(self) -> dict:
        c = self.config
        layers = self._actor()
        per_worker = -(-int(c["rollout_steps"]) // self.pool.size)
        parts = self.pool.map(
            "collect",
            [
                {
                    "layers": layers,
                    "steps": per_worker,
                    "tables": [tuple(t) for t in c["tables"]],
                    "table_weights": c["table_weights"],
                    "opponents": self._opponents(),
                    "seed": [c["seed"], 4, self.iteration, worker],
                    "score_coef": c["score_coef"],
                    "teacher": c["kick_teacher"] if self.kick_weight() > 0 else None,
                }
                for worker in range(self.pool.size)
            ],
        )
        batch = {
            key: np.concatenate([p[key] for p in parts])
            for key in ("obs", "masks", "actions", "logp", "rewards", "dones", "teacher")
        }
        batch["results"] = [r for p in parts for r in p["results"]]
        return batch

    def kick_weight(self) -> float:
        """The kickstarting weight now: ``kick_coef`` falling linearly to 0 at ``kick_steps``."""
        c = self.config
        if not c.get("kick_teacher") or not c.get("kick_steps"):
            return 0.0
        return float(c["kick_coef"]) * max(0.0, 1.0 - self.steps / float(c["kick_steps"]))

    def update(self, batch: dict) -> dict:
        torch, c = self.torch, self.config
        model = self.model
        obs = torch.from_numpy(batch["obs"])
        masks = torch.from_numpy(
            np.unpackbits(batch["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
        )
        actions = torch.from_numpy(batch["actions"])
        old_logp = torch.from_numpy(batch["logp"])
        with torch.no_grad():
            values = torch.cat([model(obs[i : i + 8192])[1] for i in range(0, len(obs), 8192)])
        adv, returns = _gae(
            batch["rewards"], batch["dones"], values.numpy(), c["gamma"], c["gae_lambda"]
        )
        adv_t = torch.from_numpy(adv)
        adv_t = (adv_t - adv_t.mean()) / (adv_t.std() + 1e-8)
        returns_t = torch.from_numpy(returns.astype(np.float32))
        teacher = torch.from_numpy(batch["teacher"])
        kick = self.kick_weight() if bool((teacher >= 0).any()) else 0.0
        n = len(obs)
        stats = {
            "policy_loss": 0.0, "value_loss": 0.0, "entropy": 0.0, "kl": 0.0, "clipped": 0.0,
            "teacher_loss": 0.0, "teacher_agreement": 0.0,
        }  # fmt: skip
        count = 0
        model.train()
        for _ in range(int(c["ppo_epochs"])):
            perm = torch.from_numpy(self.rng.permutation(n))
            for start in range(0, n, int(c["minibatch"])):
                index = perm[start : start + int(c["minibatch"])]
                logits, value = model(obs[index], masks[index])
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, actions[index].unsqueeze(1)).squeeze(1)
                probs = logp_all.exp()
                entropy = -(probs * logp_all.masked_fill(~masks[index], 0.0)).sum(1).mean()
                ratio = (logp - old_logp[index]).exp()
                a = adv_t[index]
                policy_loss = -torch.min(
                    ratio * a, ratio.clamp(1 - c["clip"], 1 + c["clip"]) * a
                ).mean()
                value_loss = ((value - returns_t[index]) ** 2).mean()
                loss = policy_loss + c["vf_coef"] * value_loss - c["ent_coef"] * entropy
                if kick > 0:
                    labels = teacher[index]
                    known = labels >= 0
                    teacher_loss = -logp_all[known].gather(1, labels[known].unsqueeze(1)).mean()
                    loss = loss + kick * teacher_loss
                    with torch.no_grad():
                        stats["teacher_loss"] += float(teacher_loss)
                        agree = logits[known].argmax(1) == labels[known]
                        stats["teacher_agreement"] += float(agree.float().mean())
                self.optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), c["max_grad_norm"])
                self.optimizer.step()
                with torch.no_grad():
                    stats["policy_loss"] += float(policy_loss)
                    stats["value_loss"] += float(value_loss)
                    stats["entropy"] += float(entropy)
                    stats["kl"] += float((old_logp[index] - logp).mean())
                    stats["clipped"] += float(((ratio - 1).abs() > c["clip"]).float().mean())
                count += 1
        stats = {key: value / max(1, count) for key, value in stats.items()}
        stats["kick_weight"] = kick
        return stats

    # -------------------------------------------------------------- evaluation
    def evaluate(self) -> dict:
        """Duplicate deals against each bot and the newest snapshot; greedy play."""
        c = self.config
        layers = self._actor()
        deals = int(c["eval_deals"])
        opponents = [("bot", name) for name in c["eval_opponents"]]
        if self.snapshots:
            opponents.append(("snapshot", self.snapshots[-1][0]))
        rows = {}
        for table in [tuple(t) for t in c["tables"]]:
            for opponent in opponents:
                seeds = [10_000_000 + i for i in range(deals)]
                shares = np.array_split(np.asarray(seeds), self.pool.size)
                parts = self.pool.map(
                    "evaluate",
                    [
                        {
                            "layers": layers,
                            "table": table,
                            "opponent": opponent,
                            "deal_seeds": [int(s) for s in share],
                        }
                        for share in shares
                    ],
                )
                outcomes = [o for part in parts for _, o, _ in part]
                diffs = [d for part in parts for _, _, d in part]
                wins = sum(1.0 if o > 0 else 0.5 if o == 0 else 0.0 for o in outcomes)
                low, high = wilson_interval(wins, len(outcomes))
                name = "snapshot" if opponent[0] == "snapshot" else opponent[1]
                rows[f"{table[0]}-{table[1]}p/{name}"] = {
                    "win_rate": wins / len(outcomes),
                    "ci95": [low, high],
                    "hands": len(outcomes),
                    "score_diff": float(np.mean(diffs)),
                }
        return rows

    # -------------------------------------------------------------- loop
    def train(self, progress: bool = True) -> None:
        from tqdm import tqdm

        from training import net

        c = self.config
        writer = self.run.tb()
        if not self.snapshots:
            self.snapshots.append(("s0", self._actor()))
        self._sync_snapshots()
        total = int(c["ppo_steps"])
        bar = tqdm(
            total=total,
            initial=min(self.steps, total),
            unit="step",
            desc="ppo",
            file=sys.stderr,
            disable=not progress,
            dynamic_ncols=True,
        )
        session_start = time.perf_counter()
        deadline = None if c["time_limit"] is None else session_start + float(c["time_limit"])
        latest = self.history[-1]["eval"] if self.history else {}
        if not self.history:
            latest = self._evaluate_and_log(writer, bar)
        recent: dict[str, list] = {}
        try:
            while self.steps < total:
                if deadline is not None and time.perf_counter() > deadline:
                    self.run.log(f"[ppo] time limit {c['time_limit']}s reached")
                    break
                t0 = time.perf_counter()
                batch = self.collect()
                t1 = time.perf_counter()
                stats = self.update(batch)
                t2 = time.perf_counter()
                n = len(batch["actions"])
                self.steps += n
                self.iteration += 1
                self.seconds += t2 - t0
                self.collect_seconds += t1 - t0
                for _table, label, outcome, _diff in batch["results"]:
                    recent.setdefault(label, []).append(outcome > 0)
                rate = n / (t2 - t0)
                if writer:
                    for key, value in stats.items():
                        writer.add_scalar(f"ppo/{key}", value, self.steps)
                    writer.add_scalar("speed/learner_steps_per_s", rate, self.steps)
                    writer.add_scalar("speed/collect_share", (t1 - t0) / (t2 - t0), self.steps)
                    for label, wins in recent.items():
                        writer.add_scalar(f"rollout/win_{label}", np.mean(wins[-400:]), self.steps)
                bar.update(n)
                bar.set_postfix_str(_postfix(rate, latest), refresh=False)
                if self.iteration % int(c["eval_every"]) == 0:
                    latest = self._evaluate_and_log(writer, bar)
                    net.save(self.model, self.run.path / "model.npz", self._meta())
                    self.save_checkpoint()
        finally:
            bar.close()
        if not self.history or self.history[-1]["iteration"] != self.iteration:
            self._evaluate_and_log(writer, None)
        net.save(self.model, self.run.path / "model.npz", self._meta())
        self.save_checkpoint()
        if writer:
            writer.flush()
        rate = self.steps / self.seconds if self.seconds else 0.0
        self.run.log(
            f"[ppo] {self.steps} learner steps, {self.iteration} iterations, "
            f"{rate:.0f} learner steps/s over the ppo stage (evaluation excluded)"
        )

    def _meta(self) -> dict:
        return {
            "stage": "ppo",
            "steps": self.steps,
            "iteration": self.iteration,
            "tables": self.config["tables"],
            "seed": self.config["seed"],
            "eval": self.history[-1]["eval"] if self.history else {},
        }

    def _evaluate_and_log(self, writer, bar) -> dict:
        from training import net

        start = time.perf_counter()
        rows = self.evaluate()
        seconds = time.perf_counter() - start
        entry = {"iteration": self.iteration, "steps": self.steps, "eval": rows}
        self.history.append(entry)
        with open(self.run.path / "history.jsonl", "a") as handle:
            handle.write(json.dumps(entry) + "\n")
        text = ", ".join(
            f"{key} {row['win_rate']:.3f} [{row['ci95'][0]:.3f}, {row['ci95'][1]:.3f}]"
            for key, row in rows.items()
        )
        self.run.log(f"[eval] step {self.steps}: {text} ({seconds:.0f}s)")
        if writer:
            for key, row in rows.items():
                writer.add_scalar(f"eval/{key}", row["win_rate"], self.steps)
        # league admission: a snapshot joins when it beats the newest one
        snap_rows = [row for key, row in rows.items() if key.endswith("/snapshot")]
        if self.iteration > 0 and snap_rows and np.mean([r["win_rate"] for r in snap_rows]) > 0.5:
            key = f"s{self.iteration}"
            self.snapshots.append((key, self._actor()))
            self.snapshots = self.snapshots[-int(self.config["max_snapshots"]) :]
            self._sync_snapshots()
            self.run.log(f"[league] snapshot {key} admitted ({len(self.snapshots)} in the league)")
        # every evaluated policy is kept, to pick from with a larger evaluation later
        net.save(self.model, self.run.path / "evals" / f"step{self.steps:09d}.npz", self._meta())
        expert = [row["win_rate"] for key, row in rows.items() if key.endswith("/expert")]
        if expert and float(np.mean(expert)) > self.best:
            self.best = float(np.mean(expert))
            net.save(self.model, self.run.path / "best.npz", self._meta())
        plot_curve(self.history, self.run.path / "curve.png")
        return rows


def _postfix(rate: float, latest: dict) -> str:
    parts = [f"{rate:,.0f} steps/s"]
    for key, row in latest.items():
        parts.append(f"{key.split('/')[-1]}@{key.split('/')[0]} {row['win_rate']:.2f}")
    return " ".join(parts)


def plot_curve(history: list[dict], path: Path) -> None:
    """Win rate (with its 95% interval) against each opponent over learner steps, a panel
    per table."""
    try:
        # a bare Figure, not pyplot: the caller's backend (a notebook's) stays as it is
        from matplotlib.figure import Figure
    except ImportError:
        return
    keys = sorted({key for entry in history for key in entry["eval"]})
    tables = sorted({key.split("/")[0] for key in keys})
    fig = Figure(figsize=(6 * len(tables), 4.2))
    axes = fig.subplots(1, len(tables), squeeze=False)
    for ax, table in zip(axes[0], tables):
        for key in [k for k in keys if k.startswith(table + "/")]:
            points = [(e["steps"], e["eval"][key]) for e in history if key in e["eval"]]
            xs = [p[0] for p in points]
            ys = [p[1]["win_rate"] for p in points]
            lo = [p[1]["ci95"][0] for p in points]
            hi = [p[1]["ci95"][1] for p in points]
            (line,) = ax.plot(xs, ys, marker=".", label=f"vs {key.split('/')[1]}")
            ax.fill_between(xs, lo, hi, alpha=0.15, color=line.get_color())
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_title(table)
        ax.set_xlabel("learner steps")
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower right")
    axes[0][0].set_ylabel("hands won (duplicate deals, 95% CI)")
    fig.tight_layout()
    tmp = path.with_name(path.stem + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    os.replace(tmp, path)


# ---------------------------------------------------------------------- stages
STAGES = ("record", "imitate", "ppo")


def run_stages(run: Run, stages, progress: bool = True) -> None:
    from training import imitation
    from training.rollout import WorkerPool

    c = run.config
    with WorkerPool(int(c["jobs"]), int(c["envs"])) as pool:
        if "record" in stages and c["init"] is None:
            if not (run.path / "imitation.npz").exists():
                imitation.record(pool, c, run.path / "data", log=run.log)
        if "imitate" in stages and c["init"] is None:
            if not (run.path / "imitation.npz").exists():
                import torch

                torch.set_num_threads(int(c["threads"]))
                paths = sorted((run.path / "data").glob("chunk*.npz"))
                report = imitation.train_imitation(
                    c, paths, run.path / "imitation.npz", log=run.log, writer=run.tb()
                )
                _atomic_write(run.path / "imitation.json", json.dumps(report, indent=2) + "\n")
        if "ppo" in stages:
            Trainer(run, pool).train(progress=progress)
