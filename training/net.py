"""The policy-value network and its file format.

:class:`ActorCritic` is a plain MLP: a shared ReLU trunk, then an action head
(logits over the 500 ids, masked by the caller) and a value head. A model file
is a ``.npz`` archive that numpy alone can read (no torch needed to play):

* ``trunk_w{i}``, ``trunk_b{i}``: the hidden layers, ``x @ w + b`` then ReLU;
* ``pi_w``, ``pi_b``: the action head; ``v_w``, ``v_b``: the value head;
* ``meta``: a JSON string (``format``, ``obs_size``, ``num_actions``,
  ``hidden``, and what the run that made it recorded).

A network reads the first ``obs_size`` entries of an observation, so a model
keeps working when the observation grows at its end.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FORMAT = "canasta-mlp-1"


def build(obs_size: int, num_actions: int, hidden: Sequence[int]):
    """A new :class:`ActorCritic` (imports torch)."""
    import torch
    from torch import nn

    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            layers, size = [], obs_size
            for width in hidden:
                layers += [nn.Linear(size, width), nn.ReLU()]
                size = width
            self.trunk = nn.Sequential(*layers)
            self.pi = nn.Linear(size, num_actions)
            self.v = nn.Linear(size, 1)
            self.obs_size, self.num_actions, self.hidden = obs_size, num_actions, list(hidden)
            for module in self.trunk:
                if isinstance(module, nn.Linear):
                    nn.init.orthogonal_(module.weight, gain=2**0.5)
                    nn.init.zeros_(module.bias)
            nn.init.orthogonal_(self.pi.weight, gain=0.01)
            nn.init.zeros_(self.pi.bias)
            nn.init.orthogonal_(self.v.weight, gain=1.0)
            nn.init.zeros_(self.v.bias)

        def forward(self, obs: torch.Tensor, masks: torch.Tensor | None = None):
            x = self.trunk(obs[:, : self.obs_size])
            logits = self.pi(x)
            if masks is not None:
                logits = logits.masked_fill(~masks, -1e9)
            return logits, self.v(x).squeeze(-1)

    return ActorCritic()


def _numpy(module) -> tuple[np.ndarray, np.ndarray]:
    """A ``Linear`` as (weight [in, out], bias) float32 arrays, C-contiguous copies."""
    weight = np.ascontiguousarray(module.weight.detach().cpu().numpy().T, dtype=np.float32)
    return weight, module.bias.detach().cpu().numpy().astype(np.float32)


def _trunk(model) -> list:
    from torch import nn

    return [m for m in model.trunk if isinstance(m, nn.Linear)]


def actor_layers(model) -> list[tuple[np.ndarray, np.ndarray]]:
    """The actor as (weight [in, out], bias) numpy pairs: the trunk layers, then the head."""
    return [_numpy(m) for m in _trunk(model) + [model.pi]]


def save(model, path: str | os.PathLike, meta: dict | None = None) -> Path:
    """Write ``model`` as a ``.npz`` model file (atomically: a temporary file, then rename)."""
    path = Path(path)
    arrays: dict[str, np.ndarray] = {}
    named = [(f"trunk_{{}}{i}", m) for i, m in enumerate(_trunk(model))]
    named += [("pi_{}", model.pi), ("v_{}", model.v)]
    for pattern, module in named:
        arrays[pattern.format("w")], arrays[pattern.format("b")] = _numpy(module)
    info = {
        "format": FORMAT,
        "obs_size": model.obs_size,
        "num_actions": model.num_actions,
        "hidden": model.hidden,
        **(meta or {}),
    }
    arrays["meta"] = np.frombuffer(json.dumps(info).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(buffer.getvalue())
    os.replace(tmp, path)
    return path


class ModelFile:
    """A model file read with numpy: ``actor`` layers, ``value`` head, ``meta``."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        try:
            with np.load(self.path) as data:
                arrays = {key: data[key] for key in data.files}
        except (OSError, ValueError) as error:
            raise ValueError(f"{self.path}: not a model file ({error})") from error
        if "meta" not in arrays:
            raise ValueError(f"{self.path}: not a model file (no meta entry)")
        self.meta = json.loads(arrays["meta"].tobytes().decode())
        if self.meta.get("format") != FORMAT:
            raise ValueError(f"{self.path}: unknown model format {self.meta.get('format')!r}")
        count = sum(1 for key in arrays if key.startswith("trunk_w"))
        trunk = [(arrays[f"trunk_w{i}"], arrays[f"trunk_b{i}"]) for i in range(count)]
        self.actor = trunk + [(arrays["pi_w"], arrays["pi_b"])]
        self.trunk = trunk
        self.value_head = (arrays["v_w"], arrays["v_b"])

    @property
    def obs_size(self) -> int:
        return int(self.meta["obs_size"])

    def load_into(self, model) -> None:
        """Copy the weights into a torch :class:`ActorCritic` of the same shape."""
        import torch

        pairs = list(zip(_trunk(model), self.trunk)) + [(model.pi, self.actor[-1])]
        pairs.append((model.v, self.value_head))
        with torch.no_grad():
            for module, (weight, bias) in pairs:
                if module.weight.shape != weight.T.shape:
                    raise ValueError(
                        f"{self.path}: layer shape {weight.T.shape} does not fit "
                        f"{tuple(module.weight.shape)}"
                    )
                module.weight.copy_(torch.from_numpy(weight.T.copy()))
                module.bias.copy_(torch.from_numpy(bias.copy()))

    def to_torch(self):
        model = build(self.obs_size, int(self.meta["num_actions"]), self.meta["hidden"])
        self.load_into(model)
        return model
