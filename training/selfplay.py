"""The opponent pool of the former MaskablePPO recipe, kept for :mod:`training.diagnostics`.

That recipe (``SelfPlayEnv`` over the Gymnasium face, MaskablePPO, ``python -m
training.selfplay``) lost to both bots and is gone: ``canasta train`` is the project's
recipe (:mod:`training.league`), ``examples/sb3_maskable_ppo.py`` shows Stable-Baselines3
on the env, and ``canasta train --evaluate`` measures a saved model in the arena. Its
shipped model, ``training/models/sb3_classic_2p.zip``, still loads
(:class:`training.agent.PPOAgent`, ``ppo:sb3-classic-2p``). :class:`OpponentPool` stays
because ``training.diagnostics`` reports what that recipe put in front of its learner.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

import numpy as np

from agents.base import Agent, RandomAgent
from training.agent import PolicyAgent, PolicyWeights


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
