"""``canasta train --backend rllib``: masked self-play PPO on RLlib (extra ``scale``).

    canasta train --backend rllib --run-dir runs/r1 --variant classic --players 2 \\
        --ppo-steps 60000 --env-runners 2 [--ray ADDRESS]

What it builds, on RLlib's new API stack (``ray[rllib]==2.60.0``, torch):

* :class:`CanastaMultiAgentEnv`, an own ``MultiAgentEnv`` over the table. Its
  agents are named by role, not by seat: ``learner_i`` (the seats of the
  learning team, randomly team 0 or 1 each hand) and ``opponent_i@MODULE``. Each
  hand the env draws the opponent from the league of ``canasta train``
  (:class:`training.league_pool.League`, the same ``--opponents`` weights and
  draw): a bot (``random``, ``greedy``, ``expert``, played inside the env, so a
  bot keeps its memory of the hand), the learner itself (``MODULE`` ``main``) or
  an admitted snapshot (the module that holds it). Only the agent to move gets an
  observation, ``{"observations": 686 floats, "action_mask": 500 0/1}``; the
  reward comes when the hand ends (:func:`agents.reward.hand_reward`: won or
  lost plus a clipped margin, from the table's outcome), for every agent that
  played. The hand is a :class:`~canasta_env.table.Table` and its bots act
  through ``Table.choose_action`` (a search bot gets a determinized world).
* :class:`MaskedPolicyModule`, a ``TorchRLModule`` with the value-function API
  wrapping this project's own network (:func:`training.net.build`): illegal
  ids get -1e9 logits, so they are never sampled and the terminal observation
  (an empty mask) still gives finite numbers.
* The league through the env config and the policy mapping: the env draws, the
  mapping (:func:`module_for`) plays what it drew: ``learner_*`` -> module
  ``main``, ``opponent_i@MODULE`` -> ``MODULE``. The snapshots live in
  ``--max-snapshots`` frozen modules ``snapshot_k``. Every ``--eval-every``
  iterations ``main`` plays ``--eval-deals`` duplicate deals against the newest
  snapshot (:func:`training.evaluation.evaluate`, greedy); the league's rule
  (:meth:`~training.league_pool.League.admits`) admits it as a snapshot, in the
  module of the one it drops (RLlib syncs the weights, the env runners get the
  league). Only ``main`` is trained.
* ``--env-runners N`` sampling actors (0: sample in the driver), each with
  ``--envs-per-runner`` hands at once; one local learner.

Outputs in ``RUN``: ``model.npz`` (the ``main`` policy in :mod:`training.net`'s
format: ``canasta arena --agents ppo:RUN/model.npz``, ``canasta play
--opponents ppo:RUN``), ``checkpoint/`` (RLlib's own, written every
``--checkpoint-every`` iterations and at the end; ``--resume RUN`` continues
from it), ``league.json`` (the snapshots' keys and modules, written with the
checkpoint), ``rllib_config.json``, ``history.jsonl`` (per iteration: env steps,
steps/s, mean return; the league's evaluation when there was one) and
``evaluation.json`` (the exported policy against each bot in the arena,
``--eval-hands`` duplicate hands each).

``--resume RUN`` reads ``rllib_config.json`` as data (bounded JSON, every
setting checked with the changes given, before anything is written). RLlib's
own ``checkpoint/`` is not data: RLlib restores it with pickle, so a resume
that would restore one needs ``--trust-pickle`` (only for runs you made yourself,
or whose code you would run). A run folder written before the backend shared the
league (``snapshots``, ``snapshot_every`` in its config) is refused with a message
saying so.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from agents.reward import hand_reward
from canasta_env.actions import NUM_ACTIONS
from canasta_env.jsonfile import read_json_file
from canasta_env.observation import HIGHS, LOWS
from canasta_env.rules import check_player_count, make_rules
from canasta_env.safe_write import append_text, atomic_write, check_folder
from canasta_env.table import Table
from training.config import (
    RLLIB,
    RLLIB_DEFAULTS,
    RLLIB_RENAMED,
    SettingError,
    is_int,
    settings_of,
)
from training.league_pool import BOTS, LEARNER, League, is_network, label, pick

#: A new run's settings (:data:`training.config.RLLIB_DEFAULTS`: the one table of both
#: stacks, with RLlib's overrides and their reasons).
DEFAULTS: dict = RLLIB_DEFAULTS


# ---------------------------------------------------------------------- the env
def team_agents(num_players: int) -> int:
    """Seats per team: 1 in a solo game (2, 3 players), else 2 or 3 (4, 6 players)."""
    return 1 if num_players < 4 else num_players // 2


def snapshot_modules(count: int) -> list[str]:
    """The RLlib modules that hold the league's snapshots."""
    return [f"snapshot_{k}" for k in range(count)]


def opponent_role(index: int, module: str) -> str:
    """The agent id of a network opponent's ``index``-th seat, played by ``module``."""
    return f"opponent_{index}@{module}"


class CanastaMultiAgentEnv(MultiAgentEnv):
    """One hand per episode; agents by role (``learner_i``, ``opponent_i@MODULE``); see the
    module doc.

    ``config``: ``variant``, ``players`` (2, 4 or 6), ``seed``, ``score_coef``, the league's
    ``opponents`` weights and ``max_snapshots``, and ``snapshots``: the admitted
    snapshots, oldest first, as ``[key, module]`` pairs (:meth:`set_snapshots` changes them).
    """

    def __init__(self, config: dict | None = None):
        super().__init__()
        # RLlib's EnvContext: which env runner this is (read before the dict copy drops it)
        self.worker = int(getattr(config, "worker_index", 0))
        vector = int(getattr(config, "vector_index", 0))
        config = dict(config or {})
        self.rules = make_rules(config.get("variant", "classic"))
        self.num_players = int(config.get("players", 2))
        check_player_count(self.rules, self.num_players)
        if self.num_players == 3:
            raise ValueError("the RLlib backend plays 2, 4 or 6 players (two teams)")
        self.score_coef = float(config.get("score_coef", 0.25))
        max_snapshots = int(config.get("max_snapshots", DEFAULTS["max_snapshots"]))
        self.league = League(config.get("opponents", {"self": 1.0}), max_snapshots)
        self.set_snapshots(config.get("snapshots", []))
        self.rng = np.random.default_rng([int(config.get("seed", 0)), self.worker, vector])
        size = team_agents(self.num_players)
        roles = [f"learner_{i}" for i in range(size)] + [
            opponent_role(i, module)
            for module in ["main", *snapshot_modules(max_snapshots)]
            for i in range(size)
        ]
        self.agents = self.possible_agents = roles
        space = gym.spaces.Dict(
            {
                "observations": gym.spaces.Box(LOWS, HIGHS, dtype=np.float32),
                "action_mask": gym.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(roles, space)
        self.action_spaces = dict.fromkeys(roles, gym.spaces.Discrete(NUM_ACTIONS))
        self.table: Table | None = None

    def set_snapshots(self, snapshots) -> None:
        """The league's snapshots now: ``[key, module]`` pairs, oldest first."""
        self.league.snapshots = [str(key) for key, _ in snapshots]
        self.module_of = {("snapshot", str(key)): str(module) for key, module in snapshots}
        self.module_of[LEARNER] = "main"

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        from agents.registry import make_agent

        if seed is not None:
            # RLlib seeds env i of runner w with seed + w + i, so runner 1's env 1 and runner
            # 2's env 0 get the same number: the runner's index keeps their hands apart
            self.rng = np.random.default_rng([seed, self.worker])
        deal_seed = int(self.rng.integers(2**62))
        self.table = Table(self.rules, self.num_players, seed=deal_seed, backend=None)
        self.learner_team = int(self.rng.integers(2))
        self.draw = float(self.rng.random())
        self.opponent = pick(self.league.entries(), self.draw)
        network = self.module_of.get(self.opponent)  # None: a bot
        self.role_of: dict[int, str] = {}
        self.bots: dict[int, object] = {}
        counts = [0, 0]
        for seat in range(self.num_players):
            team = self.table.team_of[seat]
            learner = team == self.learner_team
            index = counts[learner]
            counts[learner] += 1
            if learner:
                self.role_of[seat] = f"learner_{index}"
            elif network is not None:
                self.role_of[seat] = opponent_role(index, network)
            else:
                bot = make_agent(self.opponent[1], seed=int(self.rng.integers(2**62)))
                bot.reset(seat, self.num_players, self.rules)
                self.bots[seat] = bot
        self.played: set[str] = set()
        self._play_bots()
        return self._observe(), {}

    def _observation(self, seat: int, to_act: bool = True) -> dict:
        table = self.table
        mask = table.mask().astype(np.float32) if to_act else np.zeros(NUM_ACTIONS, np.float32)
        return {"observations": table.observation(seat), "action_mask": mask}

    def _observe(self) -> dict:
        seat = self.table.current
        return {self.role_of[seat]: self._observation(seat)}

    def _play_bots(self) -> None:
        self.table.play(self.bots)  # until a network's seat is to act or the hand ends

    def step(self, action_dict: dict):
        seat = self.table.current
        role = self.role_of[seat]
        self.table.step(int(action_dict[role]))
        self.played.add(role)
        self._play_bots()
        if not self.table.hand_over:
            observations = self._observe()
            # RLlib wants a reward with every observation after an agent's first action
            rewards = {r: 0.0 for r in observations if r in self.played}
            return observations, rewards, {"__all__": False}, {"__all__": False}, {}
        observations, rewards, infos = {}, {}, {}
        for seat, role in self.role_of.items():
            if role not in self.played:
                continue
            reward, outcome, diff = hand_reward(self.table, seat, self.score_coef)
            observations[role] = self._observation(seat, to_act=False)
            rewards[role] = reward
            infos[role] = {"outcome": outcome, "diff": diff, "opponent": label(self.opponent)}
        done = dict.fromkeys(observations, True)
        return observations, rewards, {**done, "__all__": True}, {"__all__": False}, infos


# ---------------------------------------------------------------------- the module
class MaskedPolicyModule(TorchRLModule, ValueFunctionAPI):
    """This project's actor-critic (:func:`training.net.build`) as an RLlib module, masked.

    ``model_config``: ``hidden`` (layer widths). The observation is the env's dict;
    the network reads ``observations`` and the logits of ids outside
    ``action_mask`` are set to -1e9.
    """

    def setup(self):
        from training.net import build

        hidden = [int(width) for width in self.model_config.get("hidden", DEFAULTS["hidden"])]
        size = self.observation_space["observations"].shape[0]
        self.net = build(int(size), int(self.action_space.n), hidden)

    def _logits(self, batch: dict):
        obs = batch[Columns.OBS]
        features = self.net.trunk(obs["observations"][:, : self.net.obs_size])
        logits = self.net.pi(features).masked_fill(obs["action_mask"] < 0.5, -1e9)
        return logits, features

    def _forward(self, batch: dict, **kwargs) -> dict:
        logits, _ = self._logits(batch)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict, **kwargs) -> dict:
        logits, features = self._logits(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: features}

    def compute_values(self, batch: dict, embeddings=None):
        if embeddings is None:
            obs = batch[Columns.OBS]["observations"]
            embeddings = self.net.trunk(obs[:, : self.net.obs_size])
        return self.net.v(embeddings).squeeze(-1)


# ---------------------------------------------------------------------- the league
def module_for(agent_id: str, episode=None, **kwargs) -> str:
    """The policy mapping: the module the env drew for ``agent_id`` (``opponent_i@MODULE``
    -> ``MODULE``; the learner's seats play ``main``)."""
    return agent_id.partition("@")[2] or "main"


def env_config(settings: dict, snapshots) -> dict:
    """The env's config: the table, the seed, the reward and the league (``snapshots``:
    ``[key, module]`` pairs, oldest first)."""
    return {
        "variant": settings["variant"],
        "players": settings["players"],
        "seed": settings["seed"],
        "score_coef": settings["score_coef"],
        "opponents": dict(settings["opponents"]),
        "max_snapshots": settings["max_snapshots"],
        "snapshots": [list(pair) for pair in snapshots],
    }


def build_config(settings: dict):
    """The ``PPOConfig`` of a run's settings."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    check_settings(settings)
    # a new run's league: the starting network as snapshot s0 (train() restores a resumed one)
    config = env_config(settings, [("s0", "snapshot_0")])
    CanastaMultiAgentEnv(config)  # bad variant or player count: the error here, at once
    modules = ["main", *snapshot_modules(settings["max_snapshots"])]
    spec = RLModuleSpec(
        module_class=MaskedPolicyModule, model_config={"hidden": settings["hidden"]}
    )
    return (
        PPOConfig()
        # random actions are illegal in most states: RLlib's env check would fail on them
        .environment(CanastaMultiAgentEnv, env_config=config, disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=settings["env_runners"],
            num_envs_per_env_runner=settings["envs_per_runner"],
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)
        .multi_agent(
            policies=set(modules),
            policy_mapping_fn=module_for,
            policies_to_train=["main"],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=dict.fromkeys(modules, spec)))
        .training(
            train_batch_size_per_learner=settings["rollout_steps"],
            minibatch_size=settings["minibatch"],
            num_epochs=settings["ppo_epochs"],
            lr=settings["lr"],
            entropy_coeff=settings["ent_coef"],
            gamma=settings["gamma"],
            lambda_=settings["gae_lambda"],
            clip_param=settings["clip"],
            vf_clip_param=10.0,
        )
        .debugging(seed=settings["seed"], log_level="ERROR")
    )


class RLlibLeague:
    """The league of a run (:class:`~training.league_pool.League`) with the RLlib module
    that holds each snapshot; written to ``RUN/league.json`` beside the checkpoint."""

    FILE = "league.json"

    def __init__(self, settings: dict, slots: dict[str, str] | None = None):
        slots = {"s0": "snapshot_0"} if slots is None else slots
        self.league = League(settings["opponents"], settings["max_snapshots"], slots)
        self.slots = dict(slots)  # snapshot key -> module
        self.eval_config = {
            "eval_deals": settings["eval_deals"],
            "eval_opponents": [],
            "tables": [(settings["variant"], settings["players"])],
        }

    @classmethod
    def read(cls, run_dir: Path, settings: dict) -> RLlibLeague:
        """The league saved with the run's checkpoint (a new one when there is none)."""
        path = run_dir / cls.FILE
        if not path.exists():
            return cls(settings)
        saved = read_json_file(path, what="RLlib league")
        modules = snapshot_modules(settings["max_snapshots"])
        pairs = saved.get("snapshots") if isinstance(saved, dict) else None
        if not (
            isinstance(pairs, list)
            and 0 < len(pairs) <= len(modules)
            and all(
                isinstance(pair, list)
                and len(pair) == 2
                and isinstance(pair[0], str)
                and pair[1] in modules
                for pair in pairs
            )
            and len({module for _, module in pairs}) == len(pairs)
        ):
            raise ValueError(
                f"RLlib league {path}: snapshots must be [key, module] pairs, modules among "
                f"{', '.join(modules)}, each once; got {str(pairs)[:120]}"
            )
        return cls(settings, dict(pairs))

    def pairs(self) -> list[list[str]]:
        """``[key, module]`` of each snapshot, oldest first (the env's ``snapshots``)."""
        return [[key, self.slots[key]] for key in self.league.snapshots]

    def write(self, run_dir: Path) -> None:
        atomic_write(run_dir / self.FILE, json.dumps({"snapshots": self.pairs()}) + "\n")

    def sync(self, algo) -> None:
        """Every env (of every env runner, the local one included) gets the league now."""
        pairs = self.pairs()
        algo.env_runner_group.foreach_env_runner(
            lambda runner: [
                env.unwrapped.set_snapshots(pairs) for env in getattr(runner.env, "envs", ())
            ]
        )

    def evaluate(self, algo) -> dict:
        """``main`` against the newest snapshot, greedy, on duplicate deals: the rows of
        :func:`training.evaluation.evaluate`."""
        from training.evaluation import evaluate
        from training.net import actor_layers
        from training.rollout import WorkerPool

        modules = algo.learner_group._learner.module
        newest = self.league.newest
        with WorkerPool(jobs=0, envs=16) as pool:
            pool.broadcast(
                "snapshots", {"add": {newest: actor_layers(modules[self.slots[newest]].net)}}
            )
            return evaluate(pool, self.eval_config, actor_layers(modules["main"].net), newest)

    def admit(self, algo, key: str) -> list[str]:
        """``main`` joins as snapshot ``key``, in the module of the one it drops (or a free
        one); returns the dropped keys."""
        dropped = self.league.admit(key)
        free = [
            m for m in snapshot_modules(self.league.max_snapshots) if m not in self.slots.values()
        ]
        for old in dropped:
            free.insert(0, self.slots.pop(old))
        self.slots[key] = free[0]
        copy_module(algo, "main", free[0])
        self.sync(algo)
        return dropped


def main_module(algo):
    """The learner's copy of ``main`` (the one the optimizer updates)."""
    return algo.learner_group._learner.module["main"]


def copy_module(algo, source: str, target: str) -> None:
    """``target`` becomes a copy of ``source`` in the learner and every env runner."""
    state = algo.learner_group._learner.module[source].get_state()
    algo.set_state({"learner_group": {"learner": {"rl_module": {target: state}}}})


def load_init(algo, path: str) -> None:
    """Start ``main`` (and the snapshots) from a :mod:`training.net` model file."""
    from agents.model_file import ModelFile
    from training.net import load_into

    model = ModelFile(path)
    module = main_module(algo)
    load_into(model, module.net)
    state = module.get_state()
    modules = algo.learner_group._learner.module.keys()
    algo.set_state({"learner_group": {"learner": {"rl_module": dict.fromkeys(modules, state)}}})


def export(algo, path: Path, settings: dict) -> Path:
    """``main`` as a :mod:`training.net` model file (``ppo:PATH`` plays it)."""
    from training.net import save

    meta = {"trainer": "rllib", "variant": settings["variant"], "players": settings["players"]}
    return save(main_module(algo).net, path, meta)


# ---------------------------------------------------------------------- the run
def _metric(result: dict, *keys, default=0.0):
    value = result
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            return default
        value = value[key]
    return value


def train(run_dir: Path, settings: dict, address: str | None = None, progress: bool = True):
    """Train until ``ppo_steps`` env steps; export, checkpoint and evaluate. Returns the history."""
    import ray

    config = build_config(settings)
    check_folder(run_dir, "RLlib run folder")
    run_dir.mkdir(parents=True, exist_ok=True)
    atomic_write(run_dir / "rllib_config.json", json.dumps(settings, indent=1) + "\n")
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    algo = config.build_algo()
    checkpoint = run_dir / "checkpoint"
    history: list[dict] = []
    try:
        if checkpoint.exists():
            algo.restore_from_path(checkpoint.resolve())
            league = RLlibLeague.read(run_dir, settings)
            _log(run_dir, f"[rllib] resumed from {checkpoint}")
        else:
            if settings.get("init"):
                load_init(algo, settings["init"])
            league = RLlibLeague(settings)
            copy_module(algo, "main", league.slots["s0"])
        league.sync(algo)
        started = time.perf_counter()
        steps, before = 0, None  # before: the steps of earlier sessions of a resumed run
        while steps < settings["ppo_steps"]:
            result = algo.train()
            steps = int(_metric(result, "env_runners", "num_env_steps_sampled_lifetime"))
            if before is None:
                before = steps - int(_metric(result, "env_runners", "num_env_steps_sampled"))
            elapsed = time.perf_counter() - started
            row = {
                "iteration": algo.iteration,
                "env_steps": steps,
                "seconds": round(elapsed, 2),
                "env_steps_per_s": round((steps - before) / elapsed, 1),
                "episode_return_mean": _metric(
                    result, "env_runners", "agent_episode_returns_mean", default=None
                ),
                # where an iteration's time goes: sampling scales with env runners, the
                # update (one local learner) does not
                "sample_s": _metric(result, "timers", "env_runner_sampling_timer", default=None),
                "update_s": _metric(result, "timers", "learner_update_timer", default=None),
            }
            if algo.iteration % settings["eval_every"] == 0:
                row["eval"] = league.evaluate(algo)
                if league.league.admits(row["eval"]):
                    key = f"s{algo.iteration}"
                    dropped = league.admit(algo, key)
                    _log(
                        run_dir,
                        f"[league] snapshot {key} admitted in {league.slots[key]}"
                        + (f", {', '.join(dropped)} dropped" if dropped else ""),
                    )
                row["league"] = list(league.league.snapshots)
            history.append(row)
            append_text(run_dir / "history.jsonl", json.dumps(row, default=float) + "\n")
            if progress:
                print(
                    f"[rllib] iteration {row['iteration']}: {steps} env steps, "
                    f"{row['env_steps_per_s']:.0f}/s",
                    file=sys.stderr,
                )
            if algo.iteration % settings["checkpoint_every"] == 0:
                algo.save_to_path(checkpoint.resolve())
                league.write(run_dir)
        algo.save_to_path(checkpoint.resolve())
        league.write(run_dir)
        export(algo, run_dir / "model.npz", settings)
    finally:
        algo.stop()
    _log(run_dir, f"[rllib] {steps} env steps; wrote {run_dir / 'model.npz'} and {checkpoint}")
    return history


def evaluate(run_dir: Path, settings: dict, hands: int) -> dict:
    """The exported policy against each bot in the arena (duplicate deals, seed 0)."""
    from canasta_arena.arena import run_arena

    name = f"ppo:{run_dir / 'model.npz'}"
    table = {}
    for bot in BOTS:
        result = run_arena(
            [name, bot],
            variant=settings["variant"],
            num_players=settings["players"],
            hands=hands,
            seed=0,
            plot=False,
        )
        row = result.summary["head_to_head"][name][bot]
        table[bot] = {"hands": row["hands"], "win_rate": row["win_rate"], "win_ci": row["win_ci"]}
    atomic_write(run_dir / "evaluation.json", json.dumps(table, indent=1) + "\n")
    return table


def _log(run_dir: Path, text: str) -> None:
    print(text, file=sys.stderr)
    append_text(run_dir / "train.log", text + "\n")


# ---------------------------------------------------------------------- the command
#: Settings that may change when a run is resumed; the others (the table, the network, the
#: modules, the seed, the PPO batch) are in RLlib's checkpoint and stay as they were.
RESUMABLE = (
    "ppo_steps", "lr", "ent_coef", "opponents", "eval_every", "eval_deals", "env_runners",
    "envs_per_runner", "checkpoint_every", "eval_hands",
)  # fmt: skip


def settings_from(args, base: dict | None = None) -> dict:
    """The run settings: ``base`` (a resumed run's) or the defaults, then the given options
    (``args``' attributes by setting name, parsed: lists as lists)."""
    settings = json.loads(json.dumps(base or DEFAULTS))
    for key in DEFAULTS:
        value = getattr(args, key, None)
        if value is not None:
            settings[key] = value
    if base is not None:
        fixed = [k for k in DEFAULTS if k not in RESUMABLE and settings[k] != base.get(k)]
        if fixed:
            raise ValueError(
                f"--resume: {', '.join(fixed)} cannot change in a resumed run "
                f"(these may: {', '.join(RESUMABLE)})"
            )
    check_settings(settings)
    return settings


def _option(key: str) -> str:
    return "--" + key.replace("_", "-")


#: The settings whose value RLlib keeps as one item where canasta train keeps a list.
ONE_TABLE = ("variant", "players")


def check_settings(settings: dict) -> None:
    """Every setting in its range (:data:`training.config.SETTINGS`' checks), or
    ``ValueError`` naming the first that is not (a run's saved settings may come from
    elsewhere: types are checked too)."""
    missing = [key for key in DEFAULTS if key not in settings]
    if missing:
        raise SettingError(missing[0], f"settings missing: {', '.join(missing)}")
    for setting in settings_of(RLLIB):
        key, value = setting.name, settings[setting.name]
        if key in ONE_TABLE:  # one table: a name and a count, checked as lists of one
            if key == "variant" and not isinstance(value, str):
                raise SettingError(key, f"--variant must be a preset's name, got {value!r}")
            if key == "players" and not is_int(value):
                raise SettingError(key, f"--players must be a whole number, got {value!r}")
            value = [value]
        setting.check(key, value, _option(key))
    networks = [name for name in settings["opponents"] if is_network(name)]
    if networks:
        raise SettingError(
            "opponents",
            f"--opponents {networks[0]}: a frozen network plays in canasta train's league, "
            "not on the RLlib backend",
        )


#: Settings of the RLlib backend's own league, before it played canasta train's.
FORMER_LEAGUE = ("snapshots", "snapshot_every")


def run_settings(args) -> dict:
    """The settings of the run that ``args`` (``canasta train --backend rllib``'s options)
    start or resume, every one checked; ``ValueError`` names what is wrong, before
    anything is written."""
    run_dir = Path(args.resume or args.run_dir)
    check_folder(run_dir, "RLlib run folder")  # before anything in it is read
    base = None
    if args.resume:
        saved = run_dir / "rllib_config.json"
        if not saved.exists():
            raise ValueError(f"{run_dir}: not an RLlib run directory (no rllib_config.json)")
        base = read_json_file(saved, what="RLlib run config")
        if not isinstance(base, dict):
            raise ValueError(f"RLlib run config {saved}: not a JSON object")
        former = [key for key in FORMER_LEAGUE if key in base]
        if former:
            raise ValueError(
                f"RLlib run config {saved}: written before the RLlib backend played canasta "
                f"train's league ({', '.join(former)}: now max_snapshots and eval_every, with "
                "snapshots admitted by evaluation); it cannot be resumed: start a new run "
                f"(--init {run_dir / 'model.npz'} starts from its policy)"
            )
        for old, new in RLLIB_RENAMED.items():  # a run written before the key's rename
            if old in base and new not in base:
                base[new] = base.pop(old)
        missing = [key for key in DEFAULTS if key not in base]
        if missing:
            raise ValueError(f"RLlib run config {saved}: settings missing: {missing}")
    try:
        settings = settings_from(args, base)
    except SettingError as error:
        if base is None or getattr(args, error.key, None) is not None:
            raise
        # a value of the saved file (a resume may mend the resumable ones)
        raise ValueError(f"RLlib run config {saved}: {error}") from None
    # train() restores a checkpoint it finds, whether the folder came by --resume or --run-dir
    if (run_dir / "checkpoint").exists() and not args.trust_pickle:
        raise ValueError(
            f"{run_dir / 'checkpoint'} is RLlib's own checkpoint, which RLlib restores with "
            "pickle and so can run code; resume with --trust-pickle only if you made this "
            "run or trust where it came from"
        )
    build_config(settings)
    if args.ray is not None:
        from canasta_arena.ray_arena import check_address

        check_address(args.ray)
    return settings


def run(run_dir: Path, settings: dict, address: str | None = None, progress: bool = True) -> dict:
    """Train (:func:`train`), then :func:`evaluate`: the table of win rates per bot."""
    train(run_dir, settings, address=address, progress=progress)
    return evaluate(run_dir, settings, settings["eval_hands"])
