"""A run folder's learned numbers as one hash per file, for comparing two runs byte for byte.

The files themselves cannot be compared: a ``.npz`` (a zip) and ``checkpoint.pt`` carry the
time they were written, and a checkpoint its seconds of training. So each file is read and
what the run learned is hashed: every array of ``model.npz`` and ``imitation.npz`` (name,
dtype, shape, bytes) with their JSON meta (less imitation's seconds), every tensor of
``checkpoint.pt`` (network, Adam, torch's RNG, the league's snapshots) with its counters
and league JSON, and ``history.jsonl`` (every evaluation's figures) as written.

    python tests/training_digest.py RUN_DIR      # prints {file: sha256} as JSON
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

#: Checkpoint entries that hold time, not learning.
TIMINGS = ("seconds", "collect_seconds")


def _add(digest, name: str, value) -> None:
    """``value`` (arrays, tensors, lists, dicts, plain values) into ``digest``, named."""
    digest.update(name.encode() + b"\0")
    if hasattr(value, "detach"):  # a torch tensor: where it lived does not count
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        array = np.ascontiguousarray(value)
        digest.update(f"{array.dtype.str}{array.shape}".encode() + array.tobytes())
    elif isinstance(value, dict):
        for key in sorted(value, key=str):
            _add(digest, f"{name}/{key}", value[key])
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _add(digest, f"{name}/{index}", item)
    else:
        digest.update(repr(value).encode())


def _untimed(value):
    """JSON ``value`` without its ``seconds`` entries (imitation's report has one)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k != "seconds"}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    return value


def _npz(path: Path) -> str:
    digest = hashlib.sha256()
    with np.load(path) as arrays:
        for name in sorted(arrays.files):
            if name == "meta":  # the model file's JSON record
                _add(digest, name, _untimed(json.loads(arrays[name].tobytes())))
            else:
                _add(digest, name, arrays[name])
    return digest.hexdigest()


def _checkpoint(path: Path) -> str:
    import torch

    state = torch.load(path, map_location="cpu", weights_only=True)
    digest = hashlib.sha256()
    _add(digest, "checkpoint", {k: v for k, v in state.items() if k not in TIMINGS})
    return digest.hexdigest()


def run_digest(run_dir: str | Path) -> dict[str, str]:
    """``{file: sha256}`` of what the run in ``run_dir`` learned (the files it has)."""
    run_dir = Path(run_dir)
    readers = {
        "imitation.npz": _npz,
        "model.npz": _npz,
        "checkpoint.pt": _checkpoint,
        "history.jsonl": lambda path: hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    return {
        name: read(run_dir / name) for name, read in readers.items() if (run_dir / name).exists()
    }


if __name__ == "__main__":
    print(json.dumps(run_digest(sys.argv[1]), indent=2))
