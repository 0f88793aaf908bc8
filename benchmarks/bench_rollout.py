"""Speed of the training rollout's ``collect`` on its two paths, in one process: the hands on
tables (``HandRunner(batched=False)``) and on one batched table (the default where it can).

    python benchmarks/bench_rollout.py [--players 2] [--opponent expert] [--envs 64]
        [--steps 4096] [--rounds 5] [--model ppo:classic-2p]

The learner is a trained network (``--model``, default the shipped agent of the table),
sampled as in training; ``--opponent`` is a controller of :mod:`training.rollout`
(``expert``: a bot; ``self``: self-play). Each round times one ``collect`` of ``--steps``
learner decisions on each path, the paths alternating, with the same seed on both (so the
same hands: the equality is checked); it prints the median over the rounds of hands and
learner steps per CPU-second (``time.process_time``: other processes do not inflate it)
with the shares of it spent in the network's forward passes and in sampling its actions
(:func:`training.rollout.masked_choice`), the same work on both paths. One BLAS thread, as
a rollout worker has.
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy loads: a worker's one BLAS thread

import argparse  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from canasta_env.engine.game import teams_of  # noqa: E402
from training import rollout  # noqa: E402
from training.league_pool import LEARNER, frozen_layers  # noqa: E402
from training.rollout import HandRunner, collect, numpy_policy  # noqa: E402


class _Timed:
    """A function (or a policy's ``logits``) whose calls are timed: CPU seconds in
    ``seconds``."""

    def __init__(self, function):
        self.function = function
        self.seconds = 0.0

    def __call__(self, *args):
        start = time.process_time()
        out = self.function(*args)
        self.seconds += time.process_time() - start
        return out

    logits = __call__


def one_collect(batched: bool, args, policy, seed: int) -> tuple[dict, dict]:
    """One ``collect`` on a path: (its output, its figures)."""
    controller = LEARNER if args.opponent == "self" else ("bot", args.opponent)
    runner = HandRunner(args.envs, batched=None if batched else False)
    forward = _Timed(policy.logits)
    sampling = rollout.masked_choice = _Timed(_MASKED_CHOICE)
    start = time.process_time()
    out = collect(
        runner, args.steps, [("classic", args.players)], [1.0], [(controller, 1.0)],
        {"learner": forward}, [seed], 0.25,
    )  # fmt: skip
    seconds = time.process_time() - start
    rollout.masked_choice = _MASKED_CHOICE
    assert runner.path == ("batched" if batched else "tables"), runner.path
    # a hand ends one trajectory of each learner team: every team in self-play
    hands = int(out["dones"].sum()) // (teams_of(args.players) if controller == LEARNER else 1)
    figures = {
        "hands": hands / seconds,
        "steps": len(out["actions"]) / seconds,
        "forward": forward.seconds / seconds,
        "sampling": sampling.seconds / seconds,
    }
    return out, figures


_MASKED_CHOICE = rollout.masked_choice


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="expert")
    parser.add_argument("--envs", type=int, default=64)
    parser.add_argument("--steps", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--model", default=None, help="default: ppo:classic-<players>p")
    args = parser.parse_args(argv)
    model = args.model or f"ppo:classic-{args.players}p"
    policy = numpy_policy(frozen_layers(model))
    widths = [w.shape[1] for w, _ in policy.layers]
    print(
        f"classic {args.players}p against {args.opponent}, {args.envs} hands at once, "
        f"{args.steps} learner steps a collect, learner {model} {widths}, {args.rounds} rounds"
    )
    rows: dict[str, list[dict]] = {"tables": [], "batched": []}
    for round_ in range(args.rounds):
        order = (False, True) if round_ % 2 == 0 else (True, False)
        outs = {}
        for batched in order:
            outs[batched], figures = one_collect(batched, args, policy, seed=round_)
            rows["batched" if batched else "tables"].append(figures)
        for key in outs[False]:  # the same hands on both paths
            same = outs[False][key] == outs[True][key]
            assert same if key == "results" else np.array_equal(outs[False][key], outs[True][key])
    medians = {
        path: {key: statistics.median(row[key] for row in got) for key in got[0]}
        for path, got in rows.items()
    }
    for path, m in medians.items():
        print(
            f"  {path:>7}: {m['hands']:8.1f} hands/CPU-s, {m['steps']:8,.0f} learner steps/CPU-s "
            f"({100 * m['forward']:.0f}% in the forward passes, {100 * m['sampling']:.0f}% "
            "in the sampling)"
        )
    ratio = medians["batched"]["steps"] / medians["tables"]["steps"]
    print(f"  batched / tables: x{ratio:.2f} (the same hands, checked)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
