"""MaskablePPO self-play: a single-agent Gymnasium view of the AEC env, training and evaluation.

    python -m training.selfplay --variant classic --players 2 --timesteps 200000 --out runs/x
    python -m training.selfplay --variant classic,spanish --players 2,4 --out runs/mix
    canasta train --evaluate training/models/classic_2p.npz --hands 500 --json report.json

This is the Stable-Baselines3 recipe (``SelfPlayEnv`` for MaskablePPO and any SB3
algorithm). ``canasta train`` itself runs the faster recipe of
:mod:`training.league` and hands ``--evaluate`` to :func:`main` here.

:class:`SelfPlayEnv` is canasta_env's Gymnasium face
(:class:`canasta_env.gym_env.CanastaGymEnv`) with what training adds: a table
(preset, player count) drawn at each hand, opponents from the pool and a flat
observation. It hands the learner's decisions to the RL algorithm and plays
every other seat with an opponent drawn from an :class:`OpponentPool` at each
hand: the random agent, earlier snapshots of the learner (self-play) and, when
``agents.registry`` provides them, heuristic bots. One episode is one hand; the
reward is the env's ``reward="score"`` reward of the learner's team (its hand
score minus the other teams' mean, / 1000), summed over the opponents' moves
until the learner acts again or the hand ends. Observations and actions keep
the env's layout (686 floats, ``Discrete(500)``) for every preset, so one network
can train on a mix of presets and player counts.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import canasta_env
from agents.base import Agent, RandomAgent, play_hands
from agents.stats import wilson_interval
from canasta_env.actions import NUM_ACTIONS
from canasta_env.engine.game import team_of_seat
from canasta_env.gym_env import CanastaGymEnv
from canasta_env.observation import OBS_SIZE
from training.agent import PolicyAgent, PolicyWeights
from training.rollout import hand_reward

VARIANTS = ("classic", "canastone", "spanish", "italian")


def _bot_factory():
    """``agents.registry.make_agent`` if that module exists (heuristic bots), else None."""
    try:
        from agents.registry import make_agent
    except ImportError:
        return None
    return make_agent


def make_bot(name: str, seed: int | None = None) -> Agent:
    """A heuristic bot from ``agents.registry`` (raises if the registry is missing)."""
    make_agent = _bot_factory()
    if make_agent is None:
        raise RuntimeError("agents.registry is not available: no heuristic bots")
    try:
        return make_agent(name, seed=seed)
    except TypeError:
        return make_agent(name)


# ---------------------------------------------------------------------- pool
class OpponentPool:
    """What plays the other seats: random, snapshots of the learner, heuristic bots.

    Each hand draws one entry: random with ``random_prob``, a bot with
    ``bot_prob`` (when bots are given), else one of the last ``max_snapshots``
    snapshots uniformly (random while there is none). Snapshots sample their
    moves from the policy unless ``snapshot_deterministic``.
    """

    def __init__(
        self,
        bots: Sequence[str] = (),
        random_prob: float = 0.25,
        bot_prob: float = 0.25,
        max_snapshots: int = 20,
        snapshot_deterministic: bool = False,
    ):
        self.bots = list(bots)
        if self.bots and _bot_factory() is None:
            raise RuntimeError("bots requested but agents.registry is not available")
        self.random_prob = float(random_prob)
        self.bot_prob = float(bot_prob) if self.bots else 0.0
        self.snapshots: deque[tuple[str, PolicyWeights]] = deque(maxlen=max_snapshots)
        self.snapshot_deterministic = snapshot_deterministic

    def add_snapshot(self, weights: PolicyWeights, label: str) -> None:
        self.snapshots.append((label, weights))

    def sample(self, rng: np.random.Generator) -> tuple[str, object]:
        """(kind, payload): ("random", None), ("bot", name) or ("snapshot", (label, weights))."""
        u = rng.random()
        if u < self.random_prob:
            return "random", None
        if u < self.random_prob + self.bot_prob:
            return "bot", self.bots[int(rng.integers(len(self.bots)))]
        if self.snapshots:
            return "snapshot", self.snapshots[int(rng.integers(len(self.snapshots)))]
        return "random", None

    def make(self, entry: tuple[str, object], seed: int) -> Agent:
        kind, payload = entry
        if kind == "random":
            return RandomAgent(seed)
        if kind == "bot":
            return make_bot(payload, seed)
        _label, weights = payload
        return PolicyAgent(weights, deterministic=self.snapshot_deterministic, seed=seed)


# ---------------------------------------------------------------------- env
class SelfPlayEnv(CanastaGymEnv):
    """One learner against pool opponents: :class:`~canasta_env.gym_env.CanastaGymEnv`
    with a flat observation and a table drawn at each hand.

    ``variant`` and ``num_players`` may be lists: each hand draws one valid
    combination. ``learner="team"`` (default) gives the learner every seat of its
    team (both partners at 4 players); ``"seat"`` only one seat, the partner then
    comes from the pool. The learner's seat is drawn at random each hand, and the
    opponents from ``pool``. The observation is the 686-float vector alone (the
    ``MlpPolicy`` input); ``action_masks()`` is the env's mask for the learner (all
    False once the hand is over). An illegal action ends the episode with
    ``illegal_reward`` (``illegal_action="terminate"``) or raises. ``max_decisions``
    truncates after that many learner decisions.
    """

    def __init__(
        self,
        variant: str | Sequence[str] = "classic",
        num_players: int | Sequence[int] = 2,
        learner: str = "team",
        pool: OpponentPool | None = None,
        reward_scale: float = 1000.0,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        max_decisions: int = 2000,
        render_mode: str | None = None,
    ):
        variants = [variant] if isinstance(variant, str) else list(variant)
        counts = [num_players] if isinstance(num_players, int) else list(num_players)
        self.tables: list[tuple[str, int]] = []
        for v in variants:
            for n in counts:
                try:
                    canasta_env.raw_env(variant=v, num_players=n)
                except ValueError:
                    continue  # e.g. italian with 3 or 6 players
                self.tables.append((v, n))
        if not self.tables:
            raise ValueError(f"no valid (variant, players) among {variants} x {counts}")
        variant, num_players = self.tables[0]
        super().__init__(
            variant=variant,
            num_players=num_players,
            learner=learner,
            reward_scale=reward_scale,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            render_mode=render_mode,
        )
        self.pool = pool if pool is not None else OpponentPool()
        self.max_decisions = max_decisions
        self._envs = {self.tables[0]: self.aec}
        self.observation_space = self.observation_space["observation"]

    @property
    def env(self) -> canasta_env.raw_env:
        """The AEC env of the current table (``aec``)."""
        return self.aec

    def _choose_table(self, rng: np.random.Generator) -> None:
        self.table = self.tables[int(rng.integers(len(self.tables)))]
        aec = self._envs.get(self.table)
        if aec is None:
            aec = canasta_env.raw_env(
                variant=self.table[0],
                num_players=self.table[1],
                reward_scale=self.aec.reward_scale,
            )
            self._envs[self.table] = aec
        self.aec = aec
        self.num_players = self.table[1]

    def _deal_opponents(self, rng: np.random.Generator) -> dict:
        entry = self.pool.sample(rng)
        kind, payload = entry
        if kind == "snapshot":
            self.opponent_label = payload[0]
        else:
            self.opponent_label = f"bot:{payload}" if kind == "bot" else kind
        opponents = {}
        for seat in range(self.num_players):
            if seat not in self.learner_seats:
                agent = self.pool.make(entry, int(rng.integers(2**31 - 1)))
                agent.reset(seat, self.num_players, self.aec.rules)
                opponents[seat] = agent.act
        return opponents

    def _observation(self) -> np.ndarray:
        return self._last["observation"]

    def _info(self) -> dict:
        info = super()._info()
        info.update(
            variant=self.table[0],
            num_players=self.table[1],
            opponent=self.opponent_label,
        )
        table = self.aec.table
        if self._over and table is not None and table.hand_over:
            _, outcome, diff = hand_reward(table, self.seat, 0.0)
            info["team_scores"] = table.team_scores
            info["score_diff"] = diff
            info["win"] = (outcome + 1) / 2  # a tie counts half
        return info

    def step(self, action):
        obs, reward, terminated, truncated, info = super().step(action)
        if not (terminated or truncated) and self.decisions >= self.max_decisions:
            truncated = self._over = True
        return obs, reward, terminated, truncated, info

    def add_snapshot(self, weights: PolicyWeights, label: str) -> None:
        """Add a policy snapshot to this env's pool (called through ``VecEnv.env_method``)."""
        self.pool.add_snapshot(weights, label)


# ---------------------------------------------------------------------- evaluation
def evaluate(
    agent: Agent | Callable[[], Agent],
    opponent: Agent | Callable[[], Agent] | None = None,
    variant: str = "classic",
    num_players: int = 2,
    hands: int = 500,
    seed: int = 10_000,
) -> dict:
    """``agent`` against ``opponent`` (default: random) over ``hands`` duplicate deals.

    Every deal (deck seeds ``seed .. seed + hands - 1``) is played once per team
    the agent can sit in (both seat orders at 2 players), so ``2 * hands`` hands
    at 2 or 4 players. A hand is won when the agent's team scores more than every
    other team; ties count half in ``win_rate``. ``ci95`` is the Wilson interval of
    the win rate over all hands played (ties counted half). An Agent instance
    plays all of its side's seats; pass a zero-argument factory instead for agents
    that keep per-seat memory (one instance per seat).
    """
    if opponent is None:
        opponent = RandomAgent(seed)
    teams = sorted({team_of_seat(num_players, s) for s in range(num_players)})
    deck_seeds = [seed + k for k in range(hands)]
    wins = ties = losses = 0
    diffs: list[float] = []
    per_team = {}
    start = time.perf_counter()
    names = {}
    for team in teams:
        seats = []
        for s in range(num_players):
            side = "agent" if team_of_seat(num_players, s) == team else "opponent"
            player = agent if side == "agent" else opponent
            if not isinstance(player, Agent):
                player = player()
            names.setdefault(side, getattr(player, "name", type(player).__name__))
            seats.append(player)
        for player in seats:
            if isinstance(player, RandomAgent):
                player.rng.seed(seed + 7919 * (team + 1))
        records = play_hands(seats, hands, variant=variant, deck_seeds=deck_seeds)
        team_wins = 0.0
        for record in records:
            scores = record.team_scores
            mine = scores[team]
            others = [s for t, s in enumerate(scores) if t != team]
            diffs.append(mine - sum(others) / len(others))
            if mine > max(others):
                wins += 1
                team_wins += 1
            elif mine == max(others):
                ties += 1
                team_wins += 0.5
            else:
                losses += 1
        per_team[f"team_{team}"] = team_wins / hands
    n = wins + ties + losses
    rate = (wins + 0.5 * ties) / n
    low, high = wilson_interval(wins + 0.5 * ties, n)
    diffs_arr = np.asarray(diffs, dtype=np.float64)
    return {
        "agent": names["agent"],
        "opponent": names["opponent"],
        "variant": variant,
        "num_players": num_players,
        "deals": hands,
        "hands": n,
        "deck_seeds": [seed, seed + hands - 1],
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "win_rate": rate,
        "ci95": [low, high],
        "win_rate_by_team": per_team,
        "mean_score_diff": float(diffs_arr.mean()),
        "score_diff_sem": float(diffs_arr.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0,
        "seconds": round(time.perf_counter() - start, 2),
    }


# ---------------------------------------------------------------------- training
def _versions() -> dict:
    import sb3_contrib
    import stable_baselines3
    import torch

    return {
        "canasta_env": canasta_env.__version__,
        "stable_baselines3": stable_baselines3.__version__,
        "sb3_contrib": sb3_contrib.__version__,
        "torch": torch.__version__,
    }


def _make_callback(snapshot_every: int, time_limit: float | None, verbose: int):
    from stable_baselines3.common.callbacks import BaseCallback

    class SelfPlayCallback(BaseCallback):
        """Snapshots into the pool, rolling win rates per opponent kind, a wall-clock limit."""

        def __init__(self):
            super().__init__(verbose)
            self.next_snapshot = snapshot_every
            self.results: dict[str, deque] = {}
            self.start = time.perf_counter()
            self.snapshots = 0

        def _on_step(self) -> bool:
            for done, info in zip(self.locals["dones"], self.locals["infos"]):
                if done and "win" in info:
                    kind = info["opponent"].split("@")[0]
                    self.results.setdefault(kind, deque(maxlen=500)).append(
                        (info["win"], info["score_diff"])
                    )
            if snapshot_every and self.num_timesteps >= self.next_snapshot:
                self.next_snapshot += snapshot_every
                weights = PolicyWeights.from_policy(self.model.policy)
                label = f"snapshot@{self.num_timesteps}"
                self.training_env.env_method("add_snapshot", weights, label)
                self.snapshots += 1
                if self.verbose:
                    print(f"[selfplay] {label} added to the opponent pool", flush=True)
            if time_limit is not None and time.perf_counter() - self.start > time_limit:
                if self.verbose:
                    print(f"[selfplay] wall-clock limit {time_limit:.0f}s reached", flush=True)
                return False
            return True

        def _on_rollout_end(self) -> None:
            for kind, values in self.results.items():
                if values:
                    wins, diffs = zip(*values)
                    self.logger.record(f"selfplay/win_rate_{kind}", float(np.mean(wins)))
                    self.logger.record(f"selfplay/score_diff_{kind}", float(np.mean(diffs)))
            self.logger.record("selfplay/snapshots", self.snapshots)

    return SelfPlayCallback()


def export_model(model, path: str | Path) -> Path:
    """Save ``model`` without its optimizer state (about a third of the size); loads as usual."""
    import torch

    policy = model.policy
    saved = policy.optimizer
    policy.optimizer = torch.optim.Adam(policy.parameters(), lr=1e-4)  # empty state
    try:
        model.save(path)
    finally:
        policy.optimizer = saved
    return Path(path).with_suffix(".zip")


def train(
    variant: str | Sequence[str] = "classic",
    num_players: int | Sequence[int] = 2,
    timesteps: int = 200_000,
    seed: int = 0,
    out_dir: str | Path = "runs/ppo",
    n_envs: int = 4,
    n_steps: int = 512,
    batch_size: int = 256,
    n_epochs: int = 4,
    learning_rate: float = 3e-4,
    gamma: float = 0.995,
    gae_lambda: float = 0.95,
    ent_coef: float = 0.01,
    net_arch: Sequence[int] = (256, 256),
    learner: str = "team",
    snapshot_every: int = 25_000,
    random_prob: float = 0.25,
    bots: Sequence[str] = (),
    bot_prob: float = 0.25,
    tensorboard: bool = False,
    eval_hands: int = 200,
    time_limit: float | None = None,
    threads: int = 1,
    verbose: int = 1,
):
    """Train MaskablePPO by self-play; save ``model.zip`` and ``meta.json`` in ``out_dir``.

    ``n_steps`` is per env (the rollout is ``n_envs * n_steps`` decisions).
    ``time_limit`` (seconds) stops training early at a rollout boundary.
    ``eval_hands`` deals are played against the random agent after training
    (both seat orders); 0 skips it. Returns ``(model, meta)``.
    """
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(threads)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    variants = [variant] if isinstance(variant, str) else list(variant)
    counts = [num_players] if isinstance(num_players, int) else list(num_players)

    def make_env():
        pool = OpponentPool(bots=bots, random_prob=random_prob, bot_prob=bot_prob)
        return Monitor(SelfPlayEnv(variants, counts, learner=learner, pool=pool))

    vec_env = DummyVecEnv([make_env for _ in range(n_envs)])
    model = MaskablePPO(
        "MlpPolicy",
        vec_env,
        learning_rate=learning_rate,
        n_steps=n_steps,
        batch_size=batch_size,
        n_epochs=n_epochs,
        gamma=gamma,
        gae_lambda=gae_lambda,
        ent_coef=ent_coef,
        policy_kwargs={"net_arch": list(net_arch)},
        tensorboard_log=str(out / "tb") if tensorboard else None,
        seed=seed,
        device="cpu",
        verbose=verbose,
    )
    callback = _make_callback(snapshot_every, time_limit, verbose)
    start = time.perf_counter()
    model.learn(total_timesteps=timesteps, callback=callback, progress_bar=False)
    wall = time.perf_counter() - start
    model_path = out / "model.zip"
    model.save(model_path)
    meta = {
        "algorithm": "MaskablePPO",
        "variant": variants if len(variants) > 1 else variants[0],
        "num_players": counts if len(counts) > 1 else counts[0],
        "timesteps_requested": timesteps,
        "timesteps": int(model.num_timesteps),
        "seed": seed,
        "obs_size": OBS_SIZE,
        "num_actions": NUM_ACTIONS,
        "wall_seconds": round(wall, 1),
        "steps_per_second": round(model.num_timesteps / wall, 1),
        "threads": threads,
        "hyperparameters": {
            "n_envs": n_envs,
            "n_steps": n_steps,
            "batch_size": batch_size,
            "n_epochs": n_epochs,
            "learning_rate": learning_rate,
            "gamma": gamma,
            "gae_lambda": gae_lambda,
            "ent_coef": ent_coef,
            "net_arch": list(net_arch),
            "learner": learner,
            "snapshot_every": snapshot_every,
            "random_prob": random_prob,
            "bots": list(bots),
            "bot_prob": bot_prob if bots else 0.0,
        },
        "snapshots": callback.snapshots,
        "versions": _versions(),
        "evaluation": [],
    }
    if eval_hands:
        from training.agent import PPOAgent

        agent = PPOAgent(model_path)
        for v in variants:
            for n in counts:
                if (v, n) in vec_env.envs[0].unwrapped.tables:
                    result = evaluate(agent, None, v, n, hands=eval_hands, seed=10_000 + seed)
                    meta["evaluation"].append(result)
                    if verbose:
                        print(_summary(result), flush=True)
    (out / "meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    vec_env.close()
    return model, meta


def _summary(result: dict) -> str:
    low, high = result["ci95"]
    return (
        f"{result['agent']} vs {result['opponent']} ({result['variant']}, "
        f"{result['num_players']}p, {result['hands']} hands): win rate "
        f"{result['win_rate']:.3f} [95% CI {low:.3f}, {high:.3f}], "
        f"W/T/L {result['wins']}/{result['ties']}/{result['losses']}, mean score diff "
        f"{result['mean_score_diff']:+.1f} ± {result['score_diff_sem']:.1f}"
    )


# ---------------------------------------------------------------------- CLI
def _list(text: str, cast=str) -> list:
    return [cast(item) for item in text.split(",") if item.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m training.selfplay",
        description="MaskablePPO self-play training (sb3-contrib); --evaluate a saved model.",
    )
    parser.add_argument("--variant", default="classic", help="preset, or a comma list to mix")
    parser.add_argument("--players", default="2", help="player count, or a comma list")
    parser.add_argument("--timesteps", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="runs/ppo", help="output folder (model.zip, meta.json)")
    parser.add_argument("--n-envs", type=int, default=4)
    parser.add_argument("--n-steps", type=int, default=512, help="rollout length per env")
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--n-epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--gamma", type=float, default=0.995)
    parser.add_argument("--ent-coef", type=float, default=0.01)
    parser.add_argument("--net-arch", default="256,256")
    parser.add_argument("--learner", choices=("team", "seat"), default="team")
    parser.add_argument("--snapshot-every", type=int, default=25_000)
    parser.add_argument("--random-prob", type=float, default=0.25)
    parser.add_argument("--bots", default="", help="comma list of agents.registry bot names")
    parser.add_argument("--bot-prob", type=float, default=0.25)
    parser.add_argument("--tensorboard", action="store_true", help="log to OUT/tb")
    parser.add_argument("--eval-hands", type=int, default=200, help="deals vs random after")
    parser.add_argument("--time-limit", type=float, default=None, help="stop after N seconds")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--ship", default=None, help="also export to this .zip (no optimizer)")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument(
        "--evaluate", default=None, metavar="MODEL", help="only evaluate MODEL (a file or name)"
    )
    parser.add_argument(
        "--opponents", default="random", help="bots for --evaluate, comma list (random)"
    )
    parser.add_argument("--hands", type=int, default=500, help="deals for --evaluate")
    parser.add_argument("--eval-seed", type=int, default=10_000)
    parser.add_argument("--json", default=None, help="write the --evaluate results here")
    parser.add_argument("--meta", default=None, help="training meta.json to copy into --json")
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help="--evaluate a Stable-Baselines3 .zip, which Python's pickle loads and can run "
        "code: only a file whose source you trust (the shipped ones need no flag)",
    )
    args = parser.parse_args(argv)
    variants = _list(args.variant)
    counts = _list(args.players, int)
    for v in variants:
        if v not in VARIANTS:
            parser.error(f"unknown variant {v!r}; choose from {', '.join(VARIANTS)}")

    if args.evaluate:
        import torch

        from training.agent import load_agent

        torch.set_num_threads(args.threads)
        try:
            agent = load_agent(args.evaluate, trust_pickle=args.trust_pickle)
            names = _list(args.opponents)
            for name in names:
                make_bot(name)  # an unknown name fails here, with the accepted ones
            # factories: one bot per seat (bots keep memory of their own seat's hand)
            opponents = [(lambda name=name: make_bot(name)) for name in names]
        except (OSError, ValueError) as error:
            parser.error(str(error))
        results = []
        for v in variants:
            for n in counts:
                for name, opponent in zip(names, opponents):
                    if name == "random":
                        opponent = None  # evaluate's own seeded random agent
                    result = evaluate(agent, opponent, v, n, hands=args.hands, seed=args.eval_seed)
                    results.append(result)
                    print(_summary(result), flush=True)
        if args.json:
            report = {
                "model": Path(args.evaluate).name,
                "command": "canasta train " + " ".join(sys.argv[1:] if argv is None else argv),
                "evaluation": results,
            }
            meta_path = Path(args.meta) if args.meta else Path(args.evaluate).parent / "meta.json"
            if getattr(agent, "meta", None) is not None and not args.meta:
                report["training"] = agent.meta  # a .npz model file carries its own record
            elif meta_path.exists():
                report["training"] = json.loads(meta_path.read_text())
            elif Path(args.json).exists():  # keep the training record of an earlier report
                previous = json.loads(Path(args.json).read_text())
                if "training" in previous:
                    report["training"] = previous["training"]
            Path(args.json).write_text(json.dumps(report, indent=2) + "\n")
        return 0

    model, meta = train(
        variant=variants,
        num_players=counts,
        timesteps=args.timesteps,
        seed=args.seed,
        out_dir=args.out,
        n_envs=args.n_envs,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        learning_rate=args.lr,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        net_arch=_list(args.net_arch, int),
        learner=args.learner,
        snapshot_every=args.snapshot_every,
        random_prob=args.random_prob,
        bots=_list(args.bots),
        bot_prob=args.bot_prob,
        tensorboard=args.tensorboard,
        eval_hands=args.eval_hands,
        time_limit=args.time_limit,
        threads=args.threads,
        verbose=0 if args.quiet else 1,
    )
    print(
        f"trained {meta['timesteps']} steps in {meta['wall_seconds']}s "
        f"({meta['steps_per_second']} steps/s); saved {Path(args.out) / 'model.zip'}"
    )
    if args.ship:
        path = export_model(model, args.ship)
        print(f"exported {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
