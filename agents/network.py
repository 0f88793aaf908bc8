"""Trained agents: a MaskablePPO model behind the one :class:`~agents.base.Agent` interface.

    from agents.network import DEFAULT_MODEL, load_agent
    agent = load_agent(DEFAULT_MODEL)          # or load_agent("runs/x/model.npz")
    action = agent.act(observation, action_mask)

The actor network of an ``MlpPolicy`` is a plain MLP (``Linear`` + ``Tanh``/``ReLU``
layers, then the action head), so :class:`PolicyWeights` copies it into numpy
arrays: acting costs a few matrix products and no torch call, and a copy is a
cheap, picklable snapshot for the self-play opponent pool. ``backend="torch"``
acts through ``MaskablePPO.predict`` instead (the two agree; a test checks it).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from agents.base import Agent
from canasta_env.jsonfile import open_regular, zip_members

MODELS_DIR = Path(__file__).resolve().parent / "models"
#: Shipped agents by name (``ppo:NAME``): model files in :data:`MODELS_DIR`.
#: The one network trained on every table (run ``all15``, then ``a1b``: training/README.md):
#: the ``ppo:<preset>-<N>p`` names of the tables it was shipped for are aliases of it.
ALL_TABLES_MODEL = MODELS_DIR / "all_tables.npz"
#: The tables ``ppo:all-tables`` is shipped for: on each it beat ``expert`` and ``greedy``
#: with the 95% interval above 50% over 2,000 duplicate hands (all_tables.json). Classic
#: 2- and 4-player keep their own networks, which are stronger there.
ALL_TABLES = (
    "classic-3p",
    "classic-6p",
    "canastone-2p",
    "canastone-3p",
    "canastone-4p",
    "canastone-6p",
    "spanish-2p",
    "spanish-3p",
    "spanish-4p",
    "spanish-6p",
    "italian-2p",
    "italian-4p",
    "spanish-runs-4p",
)
SHIPPED = {
    "classic-2p": MODELS_DIR / "classic_2p.npz",
    "classic-4p": MODELS_DIR / "classic_4p.npz",
    "all-tables": ALL_TABLES_MODEL,
    **dict.fromkeys(ALL_TABLES, ALL_TABLES_MODEL),
    "sb3-classic-2p": MODELS_DIR / "sb3_classic_2p.zip",
}
#: The tables each shipped agent plays on the leaderboard (:mod:`canasta_arena.leaderboard`), by
#: table key (``classic-2p``; ``spanish-runs-4p``: spanish with the S-19 runs). A shipped name
#: left out plays the table whose key it is, if any (a ``canastone-4p`` alias plays
#: ``canastone-4p``); ``sb3-classic-2p``, the Stable-Baselines3 example, plays none.
SHIPPED_TABLES: dict[str, tuple[str, ...]] = {
    "classic-2p": ("classic-2p",),
    "classic-4p": ("classic-4p",),
    "all-tables": (),  # on the leaderboard under the name of each table it is shipped for
    "sb3-classic-2p": (),
}
#: ``ppo:default``: the shipped classic 2-player agent.
DEFAULT_MODEL = SHIPPED["classic-2p"]
#: The most bytes the members of a Stable-Baselines3 ``.zip`` may unpack to, together
#: (checked before it is loaded): its actor and critic with the optimizer's state. The
#: shipped one unpacks to about 2 MB.
MAX_SB3_MODEL_BYTES = 256 * 2**20


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


_ACTIVATIONS = {"Tanh": np.tanh, "ReLU": _relu}


class PolicyWeights:
    """The actor of a MaskablePPO ``MlpPolicy`` or ``MultiInputPolicy`` as numpy arrays.

    ``inputs`` is what the first layer reads, in order: ``("observation", n)`` (the first
    ``n`` entries of the observation: an ``MlpPolicy`` on the observation vector, or this
    project's networks) and, for a ``MultiInputPolicy`` on the Gymnasium env's dict,
    ``("action_mask", m)`` where its key comes (SB3 flattens each key of the dict and
    concatenates them in the space's order).
    """

    def __init__(
        self,
        layers: list[tuple[np.ndarray, np.ndarray]],
        activation: str,
        inputs: list[tuple[str, int]] | None = None,
    ):
        if activation not in _ACTIVATIONS:
            raise ValueError(f"unsupported activation {activation!r}")
        self.layers = layers  # hidden layers, then the action head (no activation)
        self.activation = activation
        self._act_fn = _ACTIVATIONS[activation]
        self.inputs = inputs or [("observation", layers[0][0].shape[0])]
        if sum(size for _key, size in self.inputs) != layers[0][0].shape[0]:
            raise ValueError("the inputs do not add up to the first layer's width")

    @classmethod
    def from_policy(cls, policy) -> PolicyWeights:
        """Copy the actor of a ``MaskableActorCriticPolicy`` (raises if it is no plain MLP
        over the observation, or over the env's dict of observation and mask)."""
        import torch.nn as nn
        from stable_baselines3.common.torch_layers import CombinedExtractor, FlattenExtractor

        extractor = getattr(policy, "pi_features_extractor", policy.features_extractor)
        if isinstance(extractor, FlattenExtractor):
            inputs = None
        elif isinstance(extractor, CombinedExtractor):
            inputs = _dict_inputs(extractor, policy.observation_space)
        else:
            raise ValueError(
                f"the policy's features extractor {type(extractor).__name__} is not supported "
                "(MlpPolicy's FlattenExtractor or MultiInputPolicy's CombinedExtractor are)"
            )
        layers, activation = [], None
        for module in policy.mlp_extractor.policy_net:
            if isinstance(module, nn.Linear):
                layers.append(_linear(module))
            else:
                name = type(module).__name__
                if activation not in (None, name):
                    raise ValueError("mixed activations are not supported")
                activation = name
        layers.append(_linear(policy.action_net))
        return cls(layers, activation or "Tanh", inputs)

    @property
    def obs_size(self) -> int:
        """How many observation entries the network reads."""
        return dict(self.inputs)["observation"]

    @property
    def num_actions(self) -> int:
        return self.layers[-1][0].shape[1]

    def features(self, observation: np.ndarray, action_mask: np.ndarray | None = None):
        """The first layer's input: the observation's prefix (a row or a batch), with the
        mask where the network reads it."""
        # A policy trained on an older, shorter layout reads its prefix: the layout only
        # ever grows at the end (the S-19 block; the escala action ids).
        observation = np.asarray(observation, dtype=np.float32)
        if len(self.inputs) == 1:
            return observation[..., : self.obs_size]
        if action_mask is None:
            raise ValueError("this network reads the action mask: pass it")
        parts = {"observation": observation, "action_mask": np.asarray(action_mask, np.float32)}
        return np.concatenate([parts[key][..., :size] for key, size in self.inputs], axis=-1)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        x = self.features(observation, action_mask)
        for weight, bias in self.layers[:-1]:
            x = self._act_fn(x @ weight + bias)
        weight, bias = self.layers[-1]
        return x @ weight + bias

    def act(
        self,
        observation: np.ndarray,
        action_mask: np.ndarray,
        rng: np.random.Generator | None = None,
    ) -> int:
        """The best legal action (``rng`` None) or one sampled from the masked softmax."""
        legal = np.asarray(action_mask).astype(bool)
        logits = np.full(len(legal), -1e9)  # ids the policy never learned: last resort
        known = min(len(legal), self.num_actions)
        logits[:known] = self.logits(observation, action_mask)[:known]
        logits[~legal] = -np.inf
        if rng is None:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return int(rng.choice(len(probs), p=probs))


def _dict_inputs(extractor, space) -> list[tuple[str, int]]:
    """The keys a ``CombinedExtractor`` reads, in order, with their sizes: only the env's
    ``observation`` and ``action_mask``, each flattened as it is."""
    import torch.nn as nn

    inputs = []
    for key, module in extractor.extractors.items():
        if key not in ("observation", "action_mask") or not isinstance(module, nn.Flatten):
            raise ValueError(
                f"a MultiInputPolicy over the key {key!r} ({type(module).__name__}) is not "
                "supported: the env's dict has 'observation' and 'action_mask'"
            )
        inputs.append((key, int(np.prod(space[key].shape))))
    if not any(key == "observation" for key, _size in inputs):
        raise ValueError("the MultiInputPolicy does not read the 'observation' key")
    return inputs


def _linear(module) -> tuple[np.ndarray, np.ndarray]:
    weight = module.weight.detach().cpu().numpy().astype(np.float32).T.copy()
    bias = module.bias.detach().cpu().numpy().astype(np.float32).copy()
    return weight, bias


class PolicyAgent(Agent):
    """An agent acting with :class:`PolicyWeights`: greedy, or sampling with its own seed."""

    name = "policy"

    def __init__(self, weights: PolicyWeights, deterministic: bool = True, seed: int | None = None):
        self.weights = weights
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def seed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.weights.act(observation, action_mask, None if self.deterministic else self.rng)


class PPOAgent(PolicyAgent):
    """A saved MaskablePPO model (``model.zip``) playing greedily among legal actions.

    ``MaskablePPO.load`` unpickles the file, which can run code it carries: build
    one only from a file you trust (:func:`load_agent` asks for ``trust_pickle``).

    ``backend="numpy"`` (default) runs the copied actor weights; ``"torch"`` calls
    ``model.predict(obs, action_masks=mask, deterministic=True)``.
    """

    def __init__(
        self,
        path: str | os.PathLike = DEFAULT_MODEL,
        backend: str = "numpy",
        deterministic: bool = True,
        seed: int | None = None,
        name: str | None = None,
    ):
        from sb3_contrib import MaskablePPO

        if backend not in ("numpy", "torch"):
            raise ValueError("backend must be 'numpy' or 'torch'")
        self.path = Path(path)
        if not self.path.exists() and self.path.with_suffix(".zip").exists():
            self.path = self.path.with_suffix(".zip")
        if not self.path.exists():
            raise FileNotFoundError(f"no model at {self.path}")
        what = f"model file {self.path}"
        with open_regular(self.path, what) as file:
            zip_members(file, what, MAX_SB3_MODEL_BYTES)
            self.model = MaskablePPO.load(file, device="cpu")
        _check_sb3_policy(self.model, what)
        self.backend = backend
        try:
            weights = PolicyWeights.from_policy(self.model.policy)
        except ValueError:
            if backend == "numpy":
                raise
            weights = None
        super().__init__(weights, deterministic=deterministic, seed=seed)
        self.name = name or f"ppo:{self.path.stem}"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.backend == "numpy":
            return super().act(observation, action_mask)
        space = self.model.observation_space
        obs_size = _observation_size(space)
        num_actions = self.model.action_space.n
        mask = np.asarray(action_mask).astype(bool)
        if len(mask) > num_actions and not mask[:num_actions].any():
            return int(np.flatnonzero(mask)[0])  # only ids newer than the model are legal
        obs = np.asarray(observation, dtype=np.float32)[:obs_size]
        if hasattr(space, "spaces"):  # a MultiInputPolicy: the env's dict
            obs = {"observation": obs, "action_mask": mask[:num_actions].astype(np.int8)}
        action, _ = self.model.predict(
            obs, action_masks=mask[:num_actions], deterministic=self.deterministic
        )
        return int(action)


def _observation_size(space) -> int:
    """The observation entries an SB3 model reads: its Box's, or its dict's observation's."""
    if hasattr(space, "spaces"):
        if "observation" not in space.spaces:
            raise ValueError(f"an observation dict without 'observation': {sorted(space.spaces)}")
        space = space.spaces["observation"]
    return int(space.shape[0])


def _check_sb3_policy(model, what: str) -> None:
    """``ValueError`` ("WHAT: ...") unless the loaded SB3 model fits the table and every
    weight of its policy is finite."""
    from agents.model_file import check_fits_table

    space = model.observation_space
    if hasattr(space, "spaces") and set(space.spaces) - {"observation", "action_mask"}:
        raise ValueError(f"{what}: its observation dict has keys {sorted(space.spaces)}")
    check_fits_table(_observation_size(space), model.action_space.n, what)
    for name, tensor in model.policy.state_dict().items():
        if tensor.is_floating_point() and not bool(tensor.isfinite().all()):
            raise ValueError(f"{what}: tensor {name!r} holds NaN or infinite weights")


class NetAgent(PolicyAgent):
    """A model file of :mod:`agents.model_file` (``.npz``), acting with numpy only (no torch).

    Greedy among legal actions (``deterministic=False`` samples with ``seed``).
    """

    def __init__(
        self,
        path: str | os.PathLike,
        deterministic: bool = True,
        seed: int | None = None,
        name: str | None = None,
    ):
        from agents.model_file import ModelFile

        self.path = Path(path)
        if not self.path.exists():
            raise FileNotFoundError(f"no model at {self.path}")
        self.model_file = ModelFile(self.path)
        super().__init__(
            PolicyWeights(self.model_file.actor, "ReLU"), deterministic=deterministic, seed=seed
        )
        self.name = name or f"ppo:{self.path.stem}"
        self.meta = self.model_file.meta


def resolve_model(path: str | os.PathLike | None) -> Path:
    """The model file of a name (``classic-2p``, ``default``), a file or a run folder."""
    if path is None or str(path) in ("", "default"):
        return DEFAULT_MODEL
    if str(path) in SHIPPED:
        return SHIPPED[str(path)]
    path = Path(path)
    if path.is_dir():
        for name in ("model.npz", "model.zip"):
            if (path / name).exists():
                return path / name
        raise FileNotFoundError(f"no model.npz or model.zip in {path}")
    if not path.exists():
        for suffix in (".npz", ".zip"):
            if path.with_suffix(suffix).exists():
                return path.with_suffix(suffix)
        names = ", ".join(["default", *SHIPPED])
        raise FileNotFoundError(f"no model at {path} (shipped names: {names})")
    return path


def load_agent(
    path: str | os.PathLike | None = None, *, trust_pickle: bool = False, **kwargs
) -> PolicyAgent:
    """The agent saved at ``path``: a shipped name, a ``.npz`` or SB3 ``.zip``, a run folder.

    ``None`` or ``"default"`` loads :data:`DEFAULT_MODEL`. Used by the arena for
    agent names like ``ppo:classic-2p`` or ``ppo:runs/x/model.npz``.

    A ``.npz`` model file is data (:class:`agents.model_file.ModelFile` checks it before
    reading it). A Stable-Baselines3 ``.zip`` is unpickled, which can run code that
    the file carries: it is loaded only when ``trust_pickle`` is true or it is one of
    the :data:`SHIPPED` files of this package; any other raises ``ValueError``.
    """
    resolved = resolve_model(path)
    if resolved.suffix == ".npz":
        kwargs.pop("backend", None)
        name = f"ppo:{path}" if path is not None and str(path) in SHIPPED else None
        return NetAgent(resolved, name=kwargs.pop("name", name), **kwargs)
    if resolved.suffix != ".zip":  # not a model at all: no word of pickle for it
        raise ValueError(
            f"model {resolved} is neither a .npz model (what canasta train writes) nor a "
            "Stable-Baselines3 .zip: name one of those, a run folder or a shipped name"
        )
    if not (trust_pickle or _is_shipped(resolved)):
        raise ValueError(
            f"model {resolved} is a Stable-Baselines3 zip, which Python's pickle loads and "
            "can run code; load it only if you trust its source: pass trust_pickle=True "
            "(command line: --trust-pickle)"
        )
    return PPOAgent(resolved, **kwargs)


def _is_shipped(path: Path) -> bool:
    """Whether ``path`` is one of the model files shipped with this package."""
    try:
        return any(path.resolve() == shipped.resolve() for shipped in SHIPPED.values())
    except OSError:
        return False
