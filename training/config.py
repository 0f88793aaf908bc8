"""The training configuration: every setting of both training stacks, in one table.

Both stacks read :data:`SETTINGS`: the project's own PPO (``canasta train``; a run's
``config.json``, checked by :func:`training.run.check_config`) and the RLlib adapter
(``canasta train --backend rllib``; ``rllib_config.json``, checked by
:func:`training.rllib_backend.check_settings`). Each :class:`Setting` is a name (the key of
the run's config file; ``--name-with-dashes`` on the command line), a new run's default,
the check of its type and range, the help that ``canasta train --help`` prints, and the
stacks that read it. Where RLlib's new run starts elsewhere, :data:`RLLIB_OVERRIDES` has
its value, one line each, with the reason beside it.

Settings (T: ``canasta train``; R: ``--backend rllib``; R's own default in brackets):

=====================  ==  ============================================================
``variant``            TR  the rules presets trained on [R: one name, ``"classic"``]
``players``            TR  player counts [R: one count, ``2``]
``table_weights``      T   hands of each table, relative (default: equal decisions)
``seed``               TR  the run's seed
``hidden``             TR  the network's hidden layer widths
``teachers``           T   bots imitated (stage ``record``)
``record_opponents``   T   the teachers' opponents while recording, weights of bots
``record_steps``       T   teacher decisions recorded
``record_chunk``       T   decisions per recorded file
``bc_epochs``          T   imitation: passes over the recorded decisions
``bc_lr``              T   imitation: learning rate
``bc_batch``           T   imitation: decisions per gradient step
``ppo_steps``          TR  PPO's budget: learner steps (R: env steps) [R: 60,000]
``rollout_steps``      TR  learner steps per PPO iteration, the batch [R: 4,000]
``ppo_epochs``         TR  passes over each batch [R: 4; R's files before: ``epochs``]
``minibatch``          TR  steps per gradient step [R: 500]
``lr``                 TR  PPO's learning rate [R: 3e-4]
``clip``               TR  PPO's clip of the probability ratio [R: 0.2]
``ent_coef``           TR  weight of the entropy bonus [R: 0.01]
``vf_coef``            T   weight of the value loss
``gamma``              TR  discount
``gae_lambda``         TR  GAE's lambda
``max_grad_norm``      T   gradient norm clip
``score_coef``         TR  weight of the hand's clipped score margin in the reward
``step_cost``          T   reward lost at each learner decision (a price on slow hands)
``critic``             T   value network: shared, separate, oracle (sees hidden cards)
``kick_teacher``       T   kickstarting: the bot the learner is pulled towards
``kick_coef``          T   kickstarting: the pull's first weight
``kick_steps``         T   kickstarting: learner steps until the pull is 0
``opponents``          TR  the league's weights (:mod:`training.league_pool`)
``max_snapshots``      TR  snapshots kept in the league [R: 2]
``eval_every``         TR  iterations between evaluations (and admissions) [R: 5]
``eval_deals``         TR  duplicate deals per evaluation opponent [R: 50]
``eval_opponents``     T   bots the learner is evaluated against
``init``               TR  a model file PPO starts from
``envs``               T   hands at once per process
``jobs``               T   worker processes (0: in process)
``threads``            T   the learner's torch threads (default: cores - jobs; never > cores)
``device``             T   where the learner's network trains: ``auto``, ``cpu``, ``cuda``
``time_limit``         T   seconds of this session (never saved: :data:`SESSION`)
``env_runners``        R   RLlib's sampling actors (0: sample in the driver)
``envs_per_runner``    R   hands at once in each env runner
``checkpoint_every``   R   iterations between RLlib checkpoints
``eval_hands``         R   duplicate hands per bot in the final evaluation
=====================  ==  ============================================================

The table is the one definition: :data:`DEFAULTS` and :data:`RLLIB_DEFAULTS` (a new run's
settings), :data:`INT_RANGES` and :data:`FLOAT_RANGES` (the bounds, also of settings read
from a run folder that may come from elsewhere: docs/security.md) and the command line's
help all follow from it. Which settings a resumed run may change depends on what each
stack's checkpoint holds, so each stack keeps its own ``RESUMABLE``.
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass

from canasta_env.jsonfile import shown
from training.critic import CRITICS
from training.league_pool import (
    BOTS,
    ENTRIES,
    HELD_OUT,
    held_out_message,
    is_network,
    network_entry_problem,
)

VARIANTS = ("classic", "canastone", "spanish", "italian")
#: The training stacks (``--backend``): torch (:mod:`training.league`), or RLlib
#: (:mod:`training.rllib_backend`, extra ``scale``).
BACKENDS = ("torch", "rllib")
TORCH, RLLIB = BACKENDS
BOTH = BACKENDS


class SettingError(ValueError):
    """A setting out of its range; ``key`` names it."""

    def __init__(self, key: str, message: str):
        super().__init__(message)
        self.key = key


# ---------------------------------------------------------------------- bounds
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
#: The most iterations between evaluations (``eval_every``, ``checkpoint_every``), and
#: deals in one (``eval_deals``, ``eval_hands``).
MAX_EVAL_EVERY = 10**6
MAX_EVAL_DEALS = 100_000
#: The most hands played at once by one process (``envs``, ``envs_per_runner``).
MAX_ENVS = 4096
#: The most worker processes (``jobs``, ``env_runners``) and torch threads (``threads``).
MAX_WORKERS = 1024
#: The greatest seed: below 2**63, torch's bound.
MAX_SEED = 2**63 - 1
#: The largest learning rate (``lr``, ``bc_lr``): Adam moves each weight by about the
#: learning rate a step, so at 1 a network's weights go astray within some steps, and far
#: above (1e30) they turn to NaN at the first update; the defaults are 1e-4 and 1e-3.
MAX_LR = 1.0
#: The largest PPO clip (``clip``): the ratio is clipped to [1 - clip, 1 + clip], which
#: loses its lower end past 1; the defaults are 0.15 (canasta train) and 0.2 (RLlib).
MAX_CLIP = 1.0
#: The largest gradient norm clip (``max_grad_norm``, default 0.5): 200 times it.
MAX_GRAD_NORM = 100.0
#: The largest weight of a loss term or of the score margin in the reward (``vf_coef``,
#: ``kick_coef``, ``score_coef``; their defaults 0.25 to 1): far above any that trains,
#: low enough that none turns the loss or the reward into an overflow.
MAX_COEF = 100.0
#: The largest weight of the entropy bonus (``ent_coef``; 0.001, RLlib's 0.01): at 1 the
#: bonus (up to ln 500 = 6.2 nats) already outweighs the policy's loss.
MAX_ENT_COEF = 1.0


# ---------------------------------------------------------------------- checks
def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_real(value) -> bool:
    """A finite number (an integer too large for a float is not: 10**400 in a file)."""
    if not (is_int(value) or isinstance(value, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def check_int(key: str, value, bounds: tuple[int, int], name: str | None = None) -> None:
    """``SettingError`` naming the setting (``name``, or ``key``) and its range unless
    ``value`` is a whole number within ``bounds`` (least, greatest)."""
    least, greatest = bounds
    name = name or key
    if not is_int(value):
        raise SettingError(key, f"{name} must be a whole number, got {shown(repr(value))}")
    if not least <= value <= greatest:
        extra = " (0: in process)" if key == "jobs" else ""
        raise SettingError(
            key, f"{name} must be at least {least}{extra} and at most {greatest:,}, got {value}"
        )


def check_weights(key: str, weights, names: tuple | None, name: str | None = None) -> None:
    """Relative weights: finite, >= 0, a positive sum; a mapping of ``names`` when given."""
    name = name or key
    values = weights
    if names is not None:
        if not isinstance(weights, dict) or not weights:
            raise SettingError(key, f"{name} must map names to weights, got {shown(repr(weights))}")
        for entry in weights:
            if key == "opponents" and entry in HELD_OUT:
                raise SettingError(key, f"opponents: {held_out_message(entry)}")
            if key == "opponents" and is_network(entry):
                problem = network_entry_problem(entry)
                if problem:
                    raise SettingError(key, f"opponents: {problem}")
                continue
            if entry not in names:
                what = "league entry" if key == "opponents" else "bot"
                raise SettingError(
                    key,
                    f"unknown {what} {shown(repr(entry))} in {key}; choose from {', '.join(names)}",
                )
        values = list(weights.values())
    if not isinstance(values, list) or not all(is_real(w) and w >= 0 for w in values):
        raise SettingError(key, f"{name} must be finite numbers >= 0, got {shown(repr(weights))}")
    if not sum(values) > 0:
        raise SettingError(key, f"{name} must have a positive sum, got {shown(repr(weights))}")


def check_hidden(hidden, name: str = "hidden") -> None:
    """``SettingError`` unless ``hidden`` is a list of layer widths whose network (of the
    table's observation and action ids) fits a model file: at most :data:`MAX_LAYERS
    <agents.model_file.MAX_LAYERS>` layers, its float32 weights at most :data:`MAX_MODEL_BYTES
    <agents.model_file.MAX_MODEL_BYTES>` (the file a run writes must be one it can read back)."""
    from agents.model_file import MAX_LAYERS, MAX_MODEL_BYTES

    if not isinstance(hidden, list) or not all(is_int(w) and w >= 1 for w in hidden):
        raise SettingError(
            "hidden", f"{name} must be layer widths of at least 1, got {shown(repr(hidden))}"
        )
    if len(hidden) > MAX_LAYERS:
        raise SettingError("hidden", f"{name} has {len(hidden)} layers; at most {MAX_LAYERS}")
    size = network_bytes(hidden)
    if size > MAX_MODEL_BYTES:
        raise SettingError(
            "hidden",
            f"{name} {str(hidden)[:80]} makes a network of {size:,} bytes; a model "
            f"file holds at most {MAX_MODEL_BYTES:,}",
        )


def network_bytes(hidden: list[int]) -> int:
    """The bytes of the float32 parameters of the network of hidden layer widths ``hidden``
    over the table's observation and action ids (its trunk, its action and value heads)."""
    from canasta_env.actions import NUM_ACTIONS
    from canasta_env.observation import OBS_SIZE

    sizes = [OBS_SIZE, *hidden]
    weights = sum((a + 1) * b for a, b in zip(sizes, hidden))
    weights += (sizes[-1] + 1) * (NUM_ACTIONS + 1)  # the action and value heads
    return 4 * weights


#: A check: (key, value, the setting's name in messages) -> None, or ``SettingError``.
Check = Callable[[str, object, str], None]


@dataclass(frozen=True)
class Whole:
    """A whole number from ``least`` to ``greatest``; None too where ``optional``."""

    least: int
    greatest: int
    optional: bool = False

    def __call__(self, key: str, value, name: str) -> None:
        if value is None and self.optional:
            return
        check_int(key, value, (self.least, self.greatest), name)


@dataclass(frozen=True)
class Real:
    """A finite number above ``least`` (or at it, ``inclusive``), at most ``greatest``;
    None too where ``optional``."""

    least: float
    inclusive: bool
    greatest: float | None = None
    optional: bool = False

    def __call__(self, key: str, value, name: str) -> None:
        if value is None and self.optional:
            return
        bound = f"at least {self.least}" if self.inclusive else f"above {self.least}"
        if self.greatest is not None:
            bound += f" and at most {self.greatest}"
        if (
            not is_real(value)
            or value < self.least
            or (value == self.least and not self.inclusive)
            or (self.greatest is not None and value > self.greatest)
        ):
            raise SettingError(
                key, f"{name} must be a finite number {bound}, got {shown(repr(value))}"
            )


def variants(key: str, value, name: str) -> None:
    """Names of :data:`VARIANTS`, a list."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SettingError(key, f"{name} must be a list of names, got {shown(repr(value))}")
    for variant in value:
        if variant not in VARIANTS:
            raise SettingError(
                key, f"unknown variant {shown(repr(variant))}; choose from {', '.join(VARIANTS)}"
            )


def player_counts(key: str, value, name: str) -> None:
    """Player counts among 2, 3, 4, 6, a list."""
    if not isinstance(value, list) or not all(is_int(n) for n in value):
        raise SettingError(key, f"{name} must be a list of whole numbers, got {shown(repr(value))}")
    bad = [n for n in value if n not in (2, 3, 4, 6)]
    if bad:
        raise SettingError(key, f"{name} must be among 2, 3, 4, 6; got {bad}")


def table_weights(key: str, value, name: str) -> None:
    """Relative weights, one per table (their count: :func:`training.run.check_config`)."""
    check_weights(key, value, None, name)


def hidden(key: str, value, name: str) -> None:
    check_hidden(value, name)


def bots(empty: bool = False) -> Check:
    """A list of :data:`BOTS` names (``empty``: may be empty)."""

    def check(key: str, value, name: str) -> None:
        if not isinstance(value, list) or not (value or empty):
            raise SettingError(key, f"{name} must be a list of names, got {shown(repr(value))}")
        for bot in value:
            if bot not in BOTS:
                raise SettingError(
                    key, f"unknown bot {shown(repr(bot))}; choose from {', '.join(BOTS)}"
                )

    return check


def bot_weights(key: str, value, name: str) -> None:
    check_weights(key, value, BOTS, name)


def league_weights(key: str, value, name: str) -> None:
    check_weights(key, value, ENTRIES, name)


def bot_or_none(key: str, value, name: str) -> None:
    if value is not None and value not in BOTS:
        raise SettingError(key, f"unknown bot {shown(repr(value))}; choose from {', '.join(BOTS)}")


@dataclass(frozen=True)
class Choice:
    """One of ``values``."""

    values: tuple[str, ...]

    def __call__(self, key: str, value, name: str) -> None:
        if value not in self.values:
            raise SettingError(
                key, f"{name} must be one of {', '.join(self.values)}, got {shown(repr(value))}"
            )


def device(key: str, value, name: str) -> None:
    """One of :data:`training.machine.DEVICES`."""
    from training.machine import DEVICES

    if value not in DEVICES:
        raise SettingError(
            key, f"{name} must be one of {', '.join(DEVICES)}, got {shown(repr(value))}"
        )


#: What a model file a run starts from (``init``) is called: a ``.npz`` model file, or a
#: Stable-Baselines3 ``.zip``.
MODEL_SUFFIXES = (".npz", ".zip")


def model_path(key: str, value, name: str) -> None:
    """None, or the path of an existing regular model file (:data:`MODEL_SUFFIXES`): a run
    folder's config may come from elsewhere, and its ``init`` names nothing else."""
    if value is None:
        return
    if not isinstance(value, str) or not value.endswith(MODEL_SUFFIXES):
        raise SettingError(
            key,
            f"{name} must be a model file's path ({' or '.join(MODEL_SUFFIXES)}), got "
            f"{shown(repr(value))}",
        )
    try:
        mode = os.stat(value).st_mode
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        detail = getattr(error, "strerror", None) or "not a path"
        raise SettingError(key, f"{name} {shown(value)}: no model file there ({detail})") from None
    if not stat.S_ISREG(mode):
        raise SettingError(key, f"{name} {shown(value)}: not a regular file (a model file)")


# ---------------------------------------------------------------------- the table
@dataclass(frozen=True)
class Setting:
    """One setting: its key, a new run's default, its check, its help, and the stacks
    (:data:`BACKENDS`) that read it."""

    name: str
    default: object
    check: Check
    help: str
    stacks: tuple[str, ...] = BOTH

    @property
    def option(self) -> str:
        return "--" + self.name.replace("_", "-")


S = Setting
SETTINGS: tuple[Setting, ...] = (
    S("variant", ["classic"], variants, "rules presets trained on"),
    S("players", [2], player_counts, "player counts"),
    S("table_weights", None, table_weights,
      "hands of each table, relative, a comma list (default: each table as many decisions)",
      (TORCH,)),
    S("seed", 0, Whole(0, MAX_SEED), "seed of the run"),
    S("hidden", [512, 256], hidden, "hidden layer widths, a comma list"),
    # record and imitate
    S("teachers", ["expert"], bots(), "bots to imitate, a comma list", (TORCH,)),
    S("record_opponents", {"expert": 0.5, "greedy": 0.3, "random": 0.2}, bot_weights,
      "the teachers' opponents while recording: weights of bots", (TORCH,)),
    S("record_steps", 800_000, Whole(1, MAX_RECORD_STEPS), "teacher decisions recorded",
      (TORCH,)),
    S("record_chunk", 100_000, Whole(1, MAX_BATCH_STEPS), "decisions per recorded file",
      (TORCH,)),
    S("bc_epochs", 4, Whole(1, MAX_EPOCHS), "imitation: passes over the recorded decisions",
      (TORCH,)),
    S("bc_lr", 1e-3, Real(0.0, False, MAX_LR),
      f"imitation: learning rate, at most {MAX_LR:g}", (TORCH,)),
    S("bc_batch", 1024, Whole(1, MAX_BATCH_STEPS), "imitation: decisions per gradient step",
      (TORCH,)),
    # ppo
    S("ppo_steps", 10_000_000, Whole(1, MAX_STEPS),
      "PPO's budget: learner steps in all (RLlib: env steps sampled, every network's moves)"),
    S("rollout_steps", 16_384, Whole(1, MAX_BATCH_STEPS), "steps per PPO iteration (the batch)"),
    S("ppo_epochs", 2, Whole(1, MAX_EPOCHS), "passes over each batch"),
    S("minibatch", 2048, Whole(1, MAX_BATCH_STEPS), "steps per gradient step"),
    S("lr", 1e-4, Real(0.0, False, MAX_LR), f"PPO's learning rate, at most {MAX_LR:g}"),
    S("clip", 0.15, Real(0.0, False, MAX_CLIP),
      f"PPO's clip of the probability ratio, at most {MAX_CLIP:g}"),
    S("ent_coef", 0.001, Real(0.0, True, MAX_ENT_COEF),
      f"weight of the entropy bonus, at most {MAX_ENT_COEF:g}"),
    S("vf_coef", 0.5, Real(0.0, True, MAX_COEF),
      f"weight of the value loss, at most {MAX_COEF:g}", (TORCH,)),
    S("gamma", 1.0, Real(0.0, True, 1.0), "discount"),
    S("gae_lambda", 0.95, Real(0.0, True, 1.0), "GAE's lambda"),
    S("max_grad_norm", 0.5, Real(0.0, False, MAX_GRAD_NORM),
      f"clip of the gradient's norm, at most {MAX_GRAD_NORM:g}", (TORCH,)),
    S("score_coef", 0.25, Real(0.0, True, MAX_COEF),
      "weight of the hand's clipped score margin in the reward, beside won or lost; at "
      f"most {MAX_COEF:g}"),
    # 0.01 since 2026-11-29 (issue 45): against the worst stranger +2.7 [+1.3, +4.1] points
    # of 4,000 paired hands at 2 players, nothing lost against expert (history.md, g3p)
    S("step_cost", 0.01, Real(0.0, True, 0.1),
      "reward lost at each learner decision: a price on slow hands", (TORCH,)),
    S("critic", "shared", Choice(CRITICS),
      "the value's network: shared (the policy's trunk), separate (its own, on the "
      "observation), oracle (its own, on the observation and the hidden cards: other hands, "
      "stock, face-down pot; training only, training/critic.py)", (TORCH,)),
    # kickstarting: cross-entropy towards a shadowing bot's move, weight decaying to 0
    S("kick_teacher", "expert", bot_or_none, "bot the learner is pulled to", (TORCH,)),
    S("kick_coef", 1.0, Real(0.0, True, MAX_COEF),
      f"the pull's first weight, at most {MAX_COEF:g}", (TORCH,)),
    S("kick_steps", 4_000_000, Whole(0, MAX_STEPS), "learner steps until the pull is 0",
      (TORCH,)),
    # the league (training.league_pool)
    S("opponents", {"self": 0.25, "snapshot": 0.2, "expert": 0.35, "greedy": 0.15,
                    "random": 0.05}, league_weights, "the league's weights"),
    S("max_snapshots", 8, Whole(1, MAX_SNAPSHOTS), "snapshots kept in the league"),
    S("eval_every", 10, Whole(1, MAX_EVAL_EVERY),
      "iterations between evaluations (and snapshot admissions)"),
    S("eval_deals", 150, Whole(1, MAX_EVAL_DEALS),
      "duplicate deals against each evaluation opponent"),
    S("eval_opponents", ["expert", "greedy", "random"], bots(empty=True),
      "bots the learner is evaluated against, a comma list", (TORCH,)),
    S("init", None, model_path, "start PPO from this model file"),
    # processes
    S("envs", 64, Whole(1, MAX_ENVS), "hands at once per process", (TORCH,)),
    S("jobs", 2, Whole(0, MAX_WORKERS), "worker processes (0: in process)", (TORCH,)),
    S("threads", None, Whole(1, MAX_WORKERS, optional=True),
      "the learner's torch threads (default: the cores the workers leave, at least 1; never "
      "more than the cores: training/machine.py)", (TORCH,)),
    S("device", "auto", device,
      "where the learner's network trains: auto (cuda when torch sees a GPU), cpu or cuda; "
      "the rollout workers play on the CPU", (TORCH,)),
    S("time_limit", None, Real(0.0, False, optional=True), "seconds, this session", (TORCH,)),
    # RLlib's own
    S("env_runners", 1, Whole(0, MAX_WORKERS),
      "RLlib's sampling actors, one CPU each (0: sample in the driver)", (RLLIB,)),
    S("envs_per_runner", 8, Whole(1, MAX_ENVS),
      "hands side by side in each env runner (one batched forward pass)", (RLLIB,)),
    S("checkpoint_every", 10, Whole(1, MAX_EVAL_EVERY),
      "iterations between RLlib checkpoints", (RLLIB,)),
    S("eval_hands", 100, Whole(1, MAX_EVAL_DEALS),
      "duplicate hands against each bot, at the end", (RLLIB,)),
)  # fmt: skip
del S
BY_NAME: dict[str, Setting] = {setting.name: setting for setting in SETTINGS}

#: Where a new RLlib run starts elsewhere than ``canasta train``'s, and why. RLlib has no
#: imitation stage, so by default it starts PPO from a random network, and a default run
#: is a trial of minutes on a local instance (no RLlib run has been shipped).
RLLIB_OVERRIDES: dict[str, object] = {
    "variant": "classic",  # RLlib trains one table: a preset's name (checked as a list of one)
    "players": 2,  # ... and one player count
    "ppo_steps": 60_000,  # a trial of minutes; a real run gives --ppo-steps
    "rollout_steps": 4_000,  # so that a trial has some 15 iterations, not 4
    "minibatch": 500,  # an eighth of the batch, as canasta train's
    "ppo_epochs": 4,  # more passes over the smaller batch: 32 gradient steps an iteration
    "lr": 3e-4,  # PPO's usual step from a random network; canasta train fine-tunes imitation
    "ent_coef": 0.01,  # a random network must explore; an imitation policy has its moves
    "clip": 0.2,  # PPO's usual clip; canasta train's tighter one keeps near what it imitated
    "max_snapshots": 2,  # a frozen RLlib module each, built at the start in every env runner
    "eval_every": 5,  # a trial of 15 iterations evaluates 3 times
    "eval_deals": 50,  # the evaluation plays in the driver, in one process, between iterations
}

#: Settings of one invocation, never written to ``config.json`` (a resume does not inherit them).
SESSION = ("time_limit",)
#: RLlib settings renamed since runs were written: a run folder's old key reads as the new.
RLLIB_RENAMED = {"epochs": "ppo_epochs"}
#: ``canasta train`` settings added since runs were written, and what an older run's
#: ``config.json`` without them reads as: those runs trained on the CPU, with no price
#: on a decision, with the value head on the policy's trunk.
ADDED = {"device": "cpu", "step_cost": 0.0, "critic": "shared"}


def settings_of(stack: str) -> tuple[Setting, ...]:
    """The settings that ``stack`` (:data:`BACKENDS`) reads, in the table's order."""
    return tuple(setting for setting in SETTINGS if stack in setting.stacks)


def defaults(stack: str) -> dict:
    """A new run's settings in ``stack``: the table's defaults, then RLlib's overrides."""
    import copy

    values = {setting.name: copy.deepcopy(setting.default) for setting in settings_of(stack)}
    if stack == RLLIB:
        values.update(copy.deepcopy(RLLIB_OVERRIDES))
    return values


DEFAULTS = defaults(TORCH)
RLLIB_DEFAULTS = defaults(RLLIB)

#: Whole-number settings and their range, least and greatest: the command line, a new
#: run and a resumed run's config file of either stack are checked against these.
INT_RANGES = {
    s.name: (s.check.least, s.check.greatest) for s in SETTINGS if isinstance(s.check, Whole)
}
#: Real-number settings: (least value, whether the least value itself is allowed, greatest).
FLOAT_RANGES = {
    s.name: (s.check.least, s.check.inclusive, s.check.greatest)
    for s in SETTINGS
    if isinstance(s.check, Real)
}


def check(key: str, value, name: str | None = None) -> None:
    """``value`` of setting ``key`` in its range (``SettingError`` naming ``name``, or
    ``key``, otherwise)."""
    BY_NAME[key].check(key, value, name or key)


assert set(RLLIB_OVERRIDES) <= set(RLLIB_DEFAULTS), "an override of a setting RLlib reads"
