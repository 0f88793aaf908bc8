"""Widen a model file: more hidden units, the same policy and value.

    python -m research.widen agents/models/classic_4p.npz runs/wide.npz --hidden 768,384

Each hidden layer gets new units whose incoming weights are random (with the
spread of the layer's old weights) and whose outgoing weights are zero, so the
wider network computes exactly what the narrower one did (net2net's identity
widening). PPO started from it with ``--init`` then has room the old network
lacked, without first losing what it had learned.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

import numpy as np

from training import net


def widen_layers(
    model: net.ModelFile, hidden: Sequence[int], seed: int = 0
) -> tuple[list[tuple[np.ndarray, np.ndarray]], list[tuple[np.ndarray, np.ndarray]]]:
    """The trunk and the two heads (action, value) of the widened network, as numpy pairs."""
    hidden = [int(width) for width in hidden]
    old = [w.shape[1] for w, _ in model.trunk]
    if len(hidden) != len(old):
        raise ValueError(f"--hidden {hidden}: the model has {len(old)} hidden layers {old}")
    if any(new < width for new, width in zip(hidden, old)):
        raise ValueError(f"--hidden {hidden}: narrower than the model's {old}")
    rng = np.random.default_rng(seed)
    trunk, added = [], 0
    for (weight, bias), width in zip(model.trunk, hidden):
        rows, cols = weight.shape
        weight = np.vstack([weight, np.zeros((added, cols), np.float32)])
        new = width - cols
        spread = float(weight[:rows].std())
        fresh = rng.normal(0.0, spread, (rows + added, new)).astype(np.float32)
        trunk.append(
            (np.hstack([weight, fresh]), np.concatenate([bias, np.zeros(new, np.float32)]))
        )
        added = new
    heads = [
        (np.vstack([w, np.zeros((added, w.shape[1]), np.float32)]), b.copy())
        for w, b in (model.actor[-1], model.value_head)
    ]
    return trunk, heads


def widen(src: str, dst: str, hidden: Sequence[int], seed: int = 0) -> None:
    """Write ``src`` widened to ``hidden`` as the model file ``dst``."""
    import torch

    model = net.ModelFile(src)
    trunk, heads = widen_layers(model, hidden, seed)
    wide = net.build(model.obs_size, int(model.meta["num_actions"]), list(hidden))
    modules = net._trunk(wide) + [wide.pi, wide.v]
    with torch.no_grad():
        for module, (weight, bias) in zip(modules, trunk + heads):
            module.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight.T)))
            module.bias.copy_(torch.from_numpy(bias))
    keep = {"format", "obs_size", "num_actions", "hidden"}
    meta = {key: value for key, value in model.meta.items() if key not in keep}
    net.save(wide, dst, {**meta, "widened_from": str(src), "widen_seed": seed})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("src", help="model file to widen")
    parser.add_argument("dst", help="where to write the wider model file")
    parser.add_argument("--hidden", required=True, help="new hidden widths, e.g. 768,384")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        hidden = [int(width) for width in args.hidden.split(",")]
    except ValueError:
        parser.exit(2, f"widen: --hidden {args.hidden!r}: not a comma list of widths\n")
    try:
        widen(args.src, args.dst, hidden, args.seed)
    except ValueError as error:
        parser.exit(2, f"widen: {error}\n")
    print(f"wrote {args.dst}: hidden {hidden}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
