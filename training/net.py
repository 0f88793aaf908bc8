"""The policy-value network in torch: built, written as a model file, loaded from one.

:class:`ActorCritic` is a plain MLP: a shared ReLU trunk, then an action head
(logits over the 500 ids, masked by the caller) and a value head. Its file is
:mod:`agents.model_file`'s ``.npz`` format (numpy alone plays it: :mod:`agents.network`);
:func:`save` writes one, :func:`to_torch` and :func:`load_into` read one back into torch.
:func:`build_critic` is a value network of its own, beside it in training only
(:mod:`training.critic`); no model file holds it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from agents.model_file import FORMAT, ModelFile, write_model


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

        def forward(
            self, obs: torch.Tensor, masks: torch.Tensor | None = None, probe: bool = False
        ):
            """(logits, values); ``probe``: the value head reads the trunk without
            sending it gradients (it learns values, the trunk is the policy's alone)."""
            x = self.trunk(obs[:, : self.obs_size])
            logits = self.pi(x)
            if masks is not None:
                logits = logits.masked_fill(~masks, -1e9)
            return logits, self.v(x.detach() if probe else x).squeeze(-1)

    return ActorCritic()


def build_critic(inputs: int, hidden: Sequence[int]):
    """A value network of its own (the ``critic`` settings ``separate`` and ``oracle``:
    :mod:`training.critic`): ReLU layers of ``hidden`` widths over ``inputs`` features,
    then one value, initialised as :func:`build`'s trunk and value head. It trains only:
    no model file holds it (imports torch)."""
    from torch import nn

    layers, size = [], inputs
    for width in hidden:
        layers += [nn.Linear(size, width), nn.ReLU()]
        size = width
    layers.append(nn.Linear(size, 1))
    critic = nn.Sequential(*layers)
    linear = [module for module in critic if isinstance(module, nn.Linear)]
    for module in linear:
        nn.init.orthogonal_(module.weight, gain=1.0 if module is linear[-1] else 2**0.5)
        nn.init.zeros_(module.bias)
    return critic


def is_finite(network, inputs) -> bool:
    """Whether every parameter of the torch module ``network`` is finite, and so is what
    it computes from ``inputs`` (some rows it trains on, on its device): weights finite but
    so large that they overflow are not (a learning rate far too large)."""
    import torch

    if not all(bool(torch.isfinite(p).all()) for p in network.parameters()):
        return False
    with torch.no_grad():
        outputs = network(inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return all(bool(torch.isfinite(out).all()) for out in outputs)


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
    """Write ``model`` as a ``.npz`` model file (atomically, never through a link:
    :func:`canasta_env.safe_write.atomic_write`)."""
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
    return write_model(path, arrays, info)


def load_into(model_file: ModelFile, model) -> None:
    """Copy a model file's weights into a torch :class:`ActorCritic` of the same shape."""
    import torch

    pairs = list(zip(_trunk(model), model_file.trunk)) + [(model.pi, model_file.actor[-1])]
    pairs.append((model.v, model_file.value_head))
    with torch.no_grad():
        for module, (weight, bias) in pairs:
            if module.weight.shape != weight.T.shape:
                raise ValueError(
                    f"{model_file.path}: layer shape {weight.T.shape} does not fit "
                    f"{tuple(module.weight.shape)}"
                )
            module.weight.copy_(torch.from_numpy(weight.T.copy()))
            module.bias.copy_(torch.from_numpy(bias.copy()))


def to_torch(model_file: ModelFile):
    """A new torch :class:`ActorCritic` holding a model file's weights."""
    meta = model_file.meta
    model = build(model_file.obs_size, int(meta["num_actions"]), meta["hidden"])
    load_into(model_file, model)
    return model
