"""Agents by name: ``make_agent("expert", seed=3)``, ``make_agent("ppo:models/run1.zip")``.

Built-in names are ``random``, ``greedy`` and ``expert``. A name of the form
``ppo:PATH`` is a trained agent: it is resolved lazily by importing
``training.agent`` and calling its ``load_agent(PATH)``, so everything else works
when the training extras are not installed. :func:`register_agent` adds a name
for the running process (tests use it for scripted agents); a fresh process (the
arena's workers) knows only the built-in names until it is handed the parent's
:func:`registered_factories`.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable

from agents.base import Agent, RandomAgent
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent

#: Prefixes of trained-agent names, resolved by ``training.agent.load_agent``.
TRAINED_PREFIXES = ("ppo",)

_FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
}
_BUILT_IN = dict(_FACTORIES)


def available_agents() -> list[str]:
    """Names :func:`make_agent` accepts (trained agents as ``ppo:PATH``)."""
    return sorted(_FACTORIES) + [f"{prefix}:PATH" for prefix in TRAINED_PREFIXES]


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``name`` build ``factory(seed=...)`` in this process."""
    if ":" in name:
        raise ValueError(f"agent names may not contain ':' (reserved for trained agents): {name!r}")
    _FACTORIES[name] = factory


def registered_factories(names: Iterable[str]) -> dict[str, Callable[..., Agent]]:
    """The factories that :func:`register_agent` gave to any of ``names`` in this process.

    Built-in and trained names are left out: every process resolves those itself.
    """
    return {
        name: _FACTORIES[name]
        for name in dict.fromkeys(names)
        if name in _FACTORIES and _FACTORIES[name] is not _BUILT_IN.get(name)
    }


def make_agent(name: str, seed: int | None = None) -> Agent:
    """Build the agent called ``name``, seeded with ``seed``.

    Raises ``ValueError`` with the accepted names for an unknown name, and when a
    trained agent is asked for but ``training.agent`` cannot be imported.
    """
    if name in _FACTORIES:
        agent = _FACTORIES[name](seed=seed)
    elif ":" in name and name.split(":", 1)[0] in TRAINED_PREFIXES:
        agent = _load_trained(name.split(":", 1)[1])
        reseed(agent, seed)
    else:
        raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(available_agents())}")
    if getattr(agent, "name", None) in (None, "agent"):
        agent.name = name
    return agent


def _load_trained(path: str) -> Agent:
    try:
        module = importlib.import_module("training.agent")
    except ImportError as error:
        raise ValueError(
            f"cannot load trained agent {path!r}: training.agent is not available ({error}); "
            "install the training extras (pip install -e '.[train]')"
        ) from error
    loader = getattr(module, "load_agent", None)
    if loader is None:
        raise ValueError("training.agent has no load_agent(path) function")
    try:
        return loader(path)
    except OSError as error:  # a missing or unreadable model file
        raise ValueError(f"cannot load trained agent {path!r}: {error}") from error


def reseed(agent: Agent, seed: int | None) -> None:
    """Seed an agent for one hand: its ``seed(s)`` method, or its ``rng`` attribute."""
    method = getattr(agent, "seed", None)
    if callable(method):
        method(seed)
        return
    rng = getattr(agent, "rng", None)
    if isinstance(rng, random.Random):
        rng.seed(seed)
    elif rng is not None and hasattr(rng, "seed"):
        rng.seed(seed)
