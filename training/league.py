"""PPO against a league: the :class:`Trainer` ties the learner (:mod:`training.ppo`), the
rollout workers (:mod:`training.rollout`) and the league
(:class:`training.league_pool.League`: itself, admitted snapshots, bots; the RLlib backend
plays the same one), evaluates (:mod:`training.evaluation`), admits snapshots and saves the
checkpoint (:mod:`training.run`). The stages and the run folder: :mod:`training.stages`.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import numpy as np

from canasta_arena.progress import progress_bar
from canasta_env.jsonfile import loads_bounded
from canasta_env.safe_write import atomic_write
from training.critic import ORACLE
from training.evaluation import evaluate, log_evaluation, plot_curve, postfix
from training.league_pool import League, frozen_layers
from training.ppo import Learner, TrainingDiverged, kick_weight
from training.run import (
    CHECKPOINT,
    CHECKPOINT_FORMAT,
    Run,
    checked_history,
    checkpoint_bound,
    checkpoint_misfit,
    is_int,
    read_checkpoint,
    write_checkpoint,
)


def rounding_note(total: int, rollout: int, done: int = 0) -> str:
    """How PPO's budget rounds, said at the start: whole rollouts of whole hands, so the
    run stops after the first rollout that reaches ``total`` learner steps."""
    left = total - done
    rollouts = -(-left // rollout)
    return (
        f"[ppo] budget {total:,} learner steps ({left:,} to go): PPO learns from whole "
        f"rollouts of about {rollout:,} steps (--rollout-steps, whole hands each), so it stops "
        f"after {rollouts:,} more, at about {done + rollouts * rollout:,} steps"
    )


class Trainer:
    """PPO against the league; see :mod:`training.stages`' docstring."""

    #: ``best.npz`` is the policy with the best mean win rate against the evaluation rows
    #: whose key ends with this
    best_against = "/expert"

    def __init__(self, run: Run, pool):
        self.run, self.pool, self.config = run, pool, run.config
        c = self.config
        init = run.path / "imitation.npz" if c["init"] is None else Path(c["init"])
        self.learner = Learner(c, init, run.log)
        self.steps = 0
        self.iteration = 0
        self.league = League(c["opponents"], c["max_snapshots"])
        self.snapshot_layers: dict[str, list] = {}  # key -> actor layers
        self.history: list[dict] = []
        self.best = -1.0
        self.seconds = 0.0  # collection + update time over every session (no evaluation)
        self.collect_seconds = 0.0
        self._load_checkpoint()
        if self.learner.hidden_change is not None:  # the run trains the init model's widths
            setting, widths = self.learner.hidden_change
            run.save_config()
            run.log(
                f"[ppo] hidden {setting} -> {widths}: the network is {init}'s, whose hidden "
                "layers these are (config.json now says so)"
            )

    @property
    def model(self):
        """The learner's network (torch)."""
        return self.learner.model

    # -------------------------------------------------------------- checkpoint
    def _load_checkpoint(self) -> None:
        """Continue from ``checkpoint.pt``: read as data only (``weights_only``), never run."""
        path = self.run.path / CHECKPOINT
        if not path.exists():
            return
        network_bytes = sum(p.numel() * p.element_size() for p in self.learner.parameters)
        state = read_checkpoint(path, checkpoint_bound(network_bytes, self.config["max_snapshots"]))
        try:
            league = loads_bounded(state["league"], what="its league state")
            snapshots = self._checked_snapshots(league["snapshots"], state["snapshots"])
            self.learner.load(state, league["rng"])
            steps, iteration = state["steps"], state["iteration"]
            if not (is_int(steps) and is_int(iteration) and steps >= 0 and iteration >= 0):
                raise ValueError(f"steps {steps!r} and iteration {iteration!r}")
            history, best = checked_history(league["history"]), float(state["best"])
            seconds = float(state["seconds"])
            collect_seconds = float(state["collect_seconds"])
            times = (seconds, collect_seconds)
            if not (-1.0 <= best <= 1.0 and all(0 <= t < math.inf for t in times)):
                raise ValueError(
                    f"best {best!r}, seconds {seconds!r} and collect_seconds "
                    f"{collect_seconds!r} (a win rate from -1 to 1; times finite, at least 0)"
                )
        except (KeyError, TypeError, ValueError, RuntimeError, IndexError, AttributeError) as e:
            raise checkpoint_misfit(path, e) from None
        self.run.commit()  # it fits: the resume's settings and log lines are written now
        self.learner.set_lr(self.config["lr"])  # the learning rate may change on resume
        self.steps, self.iteration = steps, iteration
        self.league.snapshots, self.snapshot_layers = list(snapshots), snapshots
        self.history, self.best = history, best
        self.seconds, self.collect_seconds = seconds, collect_seconds
        # evaluations logged after the checkpoint was written are dropped with it
        lines = "".join(json.dumps(entry) + "\n" for entry in self.history)
        atomic_write(self.run.path / "history.jsonl", lines)
        self.run.log(f"[ppo] resumed at iteration {self.iteration}, {self.steps} learner steps")

    def _checked_snapshots(self, names, layers) -> dict[str, list]:
        """The league's snapshots of a checkpoint, by name, as numpy actor layers;
        ``ValueError`` unless there are at most ``max_snapshots`` of them with distinct
        names, each of the learner's actor's shapes (float32, finite): a snapshot of other
        shapes fails in a rollout much later, one too many when the checkpoint is saved."""
        limit = int(self.config["max_snapshots"])
        if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
            raise ValueError(f"its snapshot names {str(names)[:80]} are not a list of names")
        if len(names) > limit or len(set(names)) != len(names):
            raise ValueError(
                f"it names {len(names)} snapshots ({len(set(names))} distinct); the run keeps "
                f"at most max_snapshots {limit}, each once"
            )
        shapes = [(w.shape, b.shape) for w, b in self._actor()]
        snapshots = {}
        for name, snapshot in zip(names, layers, strict=True):
            arrays = [(w.numpy(), b.numpy()) for w, b in snapshot]
            found = [(w.shape, b.shape) for w, b in arrays]
            if found != shapes:
                raise ValueError(
                    f"its snapshot {name[:40]} has layers {str(found)[:120]}, not the network's "
                    f"{str(shapes)[:120]}"
                )
            for w, b in arrays:
                if w.dtype != np.float32 or b.dtype != np.float32:
                    raise ValueError(f"its snapshot {name[:40]} holds {w.dtype}, not float32")
                if not (np.isfinite(w).all() and np.isfinite(b).all()):
                    raise ValueError(f"its snapshot {name[:40]} holds NaN or infinite weights")
            snapshots[name] = arrays
        return snapshots

    def save_checkpoint(self) -> None:
        """``checkpoint.pt``: tensors and plain values only (loadable with ``weights_only``).

        The network (and a critic network of its own: :mod:`training.critic`), Adam,
        torch's RNG state and the league's snapshots as tensors; the counters as numbers;
        the history, the snapshots' names and numpy's RNG state (whose integers pass 64
        bits) as one JSON string. Written atomically
        (:func:`training.run.write_checkpoint`), the last one kept as ``checkpoint.prev.pt``.
        """
        torch = self.learner.torch
        league = {
            "snapshots": list(self.league.snapshots),
            "history": self.history,
            "rng": self.learner.rng.bit_generator.state,
        }
        learned = self.learner.state()
        state = {
            "format": CHECKPOINT_FORMAT,
            "steps": int(self.steps),
            "iteration": int(self.iteration),
            "best": float(self.best),
            "seconds": float(self.seconds),
            "collect_seconds": float(self.collect_seconds),
            "model": learned["model"],
            "optimizer": learned["optimizer"],
            "torch_rng": learned["torch_rng"],
            "snapshots": [
                [[torch.from_numpy(np.array(w)), torch.from_numpy(np.array(b))] for w, b in layers]
                for layers in map(self.snapshot_layers.get, self.league.snapshots)
            ],
            "league": json.dumps(league, default=float),
        }
        if "critic" in learned:
            state["critic"] = learned["critic"]
        write_checkpoint(self.run.path, state)

    # -------------------------------------------------------------- league
    def _actor(self) -> list:
        return self.learner.actor()

    def _sync_snapshots(self) -> None:
        """The workers get the league's snapshots and its frozen networks (``ppo:MODEL``)."""
        frozen = {
            controller[1]: frozen_layers(controller[1])
            for controller, _ in self.opponents()
            if controller[0] == "frozen"
        }
        self.pool.broadcast("snapshots", {"add": {**self.snapshot_layers, **frozen}, "reset": True})

    def start_league(self) -> None:
        """A league without snapshots gets the learner as it is now (``s0``); the workers
        get the league's snapshots."""
        if not self.league.snapshots:
            self._admit("s0")
        self._sync_snapshots()

    def _admit(self, key: str) -> None:
        self.snapshot_layers[key] = self._actor()
        for dropped in self.league.admit(key):
            del self.snapshot_layers[dropped]

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
                    "opponents": self.opponents(),
                    "seed": [c["seed"], 4, self.iteration, worker],
                    "score_coef": c["score_coef"],
                    "step_cost": c["step_cost"],
                    "teacher": c["kick_teacher"] if self.kick_weight() > 0 else None,
                    "hidden": c["critic"] == ORACLE,
                }
                for worker in range(self.pool.size)
            ],
        )
        keys = ["obs", "masks", "actions", "logp", "rewards", "dones", "teacher"]
        if c["critic"] == ORACLE:
            keys.append("privileged")
        batch = {key: np.concatenate([p[key] for p in parts]) for key in keys}
        batch["results"] = [r for p in parts for r in p["results"]]
        return batch

    def opponents(self) -> list[tuple[tuple, float]]:
        """(controller, weight) of whom the learner's team meets: the league's entries."""
        return self.league.entries()

    def kick_weight(self) -> float:
        """The kickstarting weight now (:func:`training.ppo.kick_weight`)."""
        return kick_weight(self.config, self.steps)

    def update(self, batch: dict) -> dict:
        """One PPO update on ``batch`` (:meth:`training.ppo.Learner.update`).
        ``TrainingDiverged`` (one line: where, the likely cause, the way out) when the
        network is no longer finite after it: raised before anything is written from it, so
        ``model.npz``, ``best.npz`` and the checkpoint keep the last finite network."""
        try:
            return self.learner.update(batch, self.kick_weight())
        except TrainingDiverged as error:
            lr = float(self.config["lr"])
            raise TrainingDiverged(
                f"training diverged at learner step {self.steps + len(batch['actions']):,} "
                f"(iteration {self.iteration + 1}): {error}, so nothing was written from it "
                f"and the run's files keep the last finite network. The likely cause is the "
                f"learning rate: resume with a smaller --lr (e.g. {lr / 10:g})"
            ) from None

    # -------------------------------------------------------------- evaluation
    def evaluate(self) -> dict:
        """Duplicate deals against each bot and the newest snapshot; greedy play."""
        return evaluate(self.pool, self.config, self._actor(), self.league.newest)

    # -------------------------------------------------------------- loop
    def train(self, progress: bool = True) -> None:
        from training import net

        c = self.config
        writer = self.run.tb()
        self.start_league()
        total = int(c["ppo_steps"])
        if self.steps < total:
            self.run.log(rounding_note(total, int(c["rollout_steps"]), self.steps))
        bar = progress_bar(total, "ppo", "step", enabled=progress, initial=min(self.steps, total))
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
                bar.set_postfix_str(postfix(rate, latest), refresh=False)
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
        log_evaluation(self.run, entry, seconds, writer)
        if self.iteration > 0 and self.league.admits(rows):
            key = f"s{self.iteration}"
            self._admit(key)
            self._sync_snapshots()
            count = len(self.league.snapshots)
            self.run.log(f"[league] snapshot {key} admitted ({count} in the league)")
        # every evaluated policy is kept, to pick from with a larger evaluation later
        net.save(self.model, self.run.path / "evals" / f"step{self.steps:09d}.npz", self._meta())
        best_of = [r["win_rate"] for key, r in rows.items() if key.endswith(self.best_against)]
        if best_of and float(np.mean(best_of)) > self.best:
            self.best = float(np.mean(best_of))
            net.save(self.model, self.run.path / "best.npz", self._meta())
        plot_curve(self.history, self.run.path / "curve.png")
        return rows
