"""A weight average ("model soup") of networks fine-tuned from one start.

    python -m research.soup --out runs/soup/classic_4p.npz agents/models/classic_4p.npz \\
        runs/gen/g1/evals/step004595666.npz runs/gen/g2/evals/step008004461.npz ...

Networks fine-tuned from the same network often stay in one basin of the loss, where the
mean of their weights plays at least as well as each (Wortsman et al., "Model soups", 2022).
Every input is read as data (:class:`agents.model_file.ModelFile`: checked, no pickle) and
must have the same layout (observation size, actions, hidden layers); every weight, the
value head's too, is the mean of the inputs' in float64, written as float32. Networks whose
``meta`` names different tables are refused. The output's ``meta`` names each input with
its sha256 (and its weight), and it never overwrites an input.
docs/training/history.md ("A weight average of the fine-tunes") measures one.

``--weights W1 W2 ...`` takes a weighted combination instead of the mean: one finite weight
an input, in their order, summing to 1; a negative one extrapolates (``FINE START --weights
1.5 -0.5`` goes half as far again from ``START`` along the fine-tune, a "task vector";
history.md, "Other ways to mix the weights", measures it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.model_file import FORMAT, ModelFile, file_digest, write_model

#: The most networks one average takes.
MAX_INPUTS = 64


def _layout(model: ModelFile) -> tuple:
    meta = model.meta
    return meta["obs_size"], meta["num_actions"], tuple(meta["hidden"])


def average(
    paths: Sequence[str | Path], out: str | Path, weights: Sequence[float] | None = None
) -> Path:
    """Write the mean of the networks at ``paths`` to ``out`` (a model file), or their
    combination with ``weights`` (one an input, finite, summing to 1); ``ValueError``
    naming the problem: fewer than 2 or more than :data:`MAX_INPUTS` inputs, weights that
    do not fit, an input that is not a model file, layouts or tables that differ, ``out``
    one of the inputs."""
    paths = [Path(p) for p in paths]
    out = Path(out)
    if not 2 <= len(paths) <= MAX_INPUTS:
        raise ValueError(f"an average takes 2 to {MAX_INPUTS} networks, got {len(paths)}")
    coefficients = None
    if weights is not None:
        coefficients = np.asarray(weights, dtype=np.float64)
        if coefficients.shape != (len(paths),):
            raise ValueError(f"{len(coefficients)} weights for {len(paths)} networks")
        if not np.all(np.isfinite(coefficients)) or abs(coefficients.sum() - 1.0) > 1e-9:
            raise ValueError(f"weights must be finite and sum to 1, got {list(weights)}")
    if any(out.resolve() == p.resolve() for p in paths):
        raise ValueError(f"{out}: the output is one of the inputs")
    models = [ModelFile(p) for p in paths]
    layout = _layout(models[0])
    for path, model in zip(paths[1:], models[1:]):
        if _layout(model) != layout:
            raise ValueError(
                f"{path}: layout {_layout(model)} (observation, actions, hidden) differs "
                f"from {paths[0]}'s {layout}"
            )
        tables, first = model.meta.get("tables"), models[0].meta.get("tables")
        if tables is not None and first is not None and tables != first:
            raise ValueError(f"{path}: trained for tables {tables}, {paths[0]} for {first}")
    obs_size, num_actions, hidden = layout
    arrays: dict[str, np.ndarray] = {}

    def mean(pick) -> np.ndarray:
        stack = np.stack([np.asarray(pick(m), dtype=np.float64) for m in models])
        if coefficients is None:  # np.mean, as the shipped averages were made
            return np.mean(stack, axis=0).astype(np.float32)
        return np.tensordot(coefficients, stack, axes=1).astype(np.float32)

    for i in range(len(hidden)):
        arrays[f"trunk_w{i}"] = mean(lambda m, i=i: m.trunk[i][0])
        arrays[f"trunk_b{i}"] = mean(lambda m, i=i: m.trunk[i][1])
    arrays["pi_w"], arrays["pi_b"] = mean(lambda m: m.actor[-1][0]), mean(lambda m: m.actor[-1][1])
    arrays["v_w"], arrays["v_b"] = mean(lambda m: m.value_head[0]), mean(lambda m: m.value_head[1])
    meta = {
        "format": FORMAT,
        "obs_size": obs_size,
        "num_actions": num_actions,
        "hidden": list(hidden),
        "stage": "soup",
        "tables": models[0].meta.get("tables"),
        "soup": [{"file": str(p), "sha256": file_digest(p)} for p in paths],
    }
    if weights is not None:
        for entry, weight in zip(meta["soup"], coefficients):
            entry["weight"] = float(weight)
    return write_model(out, arrays, meta)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.soup", description=__doc__.split("\n")[0]
    )
    parser.add_argument("models", nargs="+", help="model files (.npz) of one layout")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument(
        "--weights", nargs="+", type=float, help="one weight a model, summing to 1 (default: equal)"
    )
    args = parser.parse_args(argv)
    try:
        print(average(args.models, args.out, args.weights))
    except ValueError as error:
        print(f"research.soup: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
