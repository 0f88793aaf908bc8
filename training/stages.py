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
   :func:`agents.reward.hand_reward`). Kickstarting: a shadow teacher bot
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
checks it). Budgets, parallelism, the device, the evaluation cadence, the kickstarting
schedule, the learning rate, the league's weights and the table weights may be
changed on a resume, each checked as on a new run before anything is written;
``train.log`` records each change. ``--time-limit`` holds for one session only
and is not saved. Progress: a bar with learner steps/s and the
latest win rates, TensorBoard in ``RUN/tb``, ``RUN/curve.png`` (win rate
against each bot over steps) and ``RUN/history.jsonl``.

The settings, their defaults and ranges: :mod:`training.config`; the run folder:
:mod:`training.run`; PPO: :mod:`training.ppo`; the league
and the training loop: :mod:`training.league`; evaluation: :mod:`training.evaluation`.
"""

from __future__ import annotations

import json

from canasta_env.safe_write import atomic_write
from training.league import Trainer
from training.run import Run

STAGES = ("record", "imitate", "ppo")


def run_stages(run: Run, stages, progress: bool = True) -> None:
    """The ``stages`` of ``run`` in order, each skipped when its output exists."""
    from training import imitation
    from training.machine import budget, device_label, resolve_device
    from training.rollout import WorkerPool

    c = run.config
    plan = budget(int(c["jobs"]), c["threads"])
    run.log(f"[run] {plan}; the learner on {device_label(resolve_device(c['device']))}")
    with WorkerPool(int(c["jobs"]), int(c["envs"])) as pool:
        if "record" in stages and c["init"] is None:
            if not (run.path / "imitation.npz").exists():
                imitation.record(pool, c, run.path / "data", log=run.log)
        if "imitate" in stages and c["init"] is None:
            if not (run.path / "imitation.npz").exists():
                import torch

                torch.set_num_threads(plan.threads)
                paths = sorted((run.path / "data").glob("chunk*.npz"))
                report = imitation.train_imitation(
                    c, paths, run.path / "imitation.npz", log=run.log, writer=run.tb()
                )
                atomic_write(run.path / "imitation.json", json.dumps(report, indent=2) + "\n")
        if "ppo" in stages:
            Trainer(run, pool).train(progress=progress)
