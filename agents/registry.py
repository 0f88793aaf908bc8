"""Agents by name: ``make_agent("expert", seed=3)``, ``make_agent("ppo:models/run1.zip")``.

Built-in names are ``random``, ``greedy`` and ``expert``. A name of the form
``PREFIX:PATH`` is a loaded agent: ``PREFIX`` names a loader that an installed
package declares in the ``canasta_env.agents`` entry-point group (this project's
``training`` declares ``ppo``: see ``pyproject.toml``), called with ``PATH``. The
loader is imported only when such a name is asked for, so everything else works
when the training extras are not installed, and the bots know nothing of training.
:func:`register_agent` adds a name for the running process (tests use it for
scripted agents); a fresh process (the arena's workers) knows only the built-in
names until it is handed the parent's :func:`registered_factories`.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points

from agents.base import Agent, RandomAgent
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent

#: The entry-point group of agent loaders: ``PREFIX = "module:function"``, where
#: ``function(path)`` returns an :class:`Agent`.
LOADER_GROUP = "canasta_env.agents"


def loader_prefixes() -> list[str]:
    """The ``PREFIX`` of every agent loader that an installed package declares."""
    return sorted({point.name for point in entry_points(group=LOADER_GROUP)})


_FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "expert": ExpertAgent,
}
_BUILT_IN = dict(_FACTORIES)


def available_agents() -> list[str]:
    """Names :func:`make_agent` accepts (loaded agents as ``PREFIX:PATH``)."""
    return sorted(_FACTORIES) + [f"{prefix}:PATH" for prefix in loader_prefixes()]


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``name`` build ``factory(seed=...)`` in this process."""
    if ":" in name:
        raise ValueError(f"agent names may not contain ':' (reserved for loaded agents): {name!r}")
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
    loaded agent's loader cannot be imported (its extras are not installed).
    """
    if name in _FACTORIES:
        agent = _FACTORIES[name](seed=seed)
    elif ":" in name and name.split(":", 1)[0] in loader_prefixes():
        prefix, path = name.split(":", 1)
        agent = _load(prefix, path)
        reseed(agent, seed)
    else:
        raise ValueError(f"unknown agent {name!r}; choose one of {', '.join(available_agents())}")
    if getattr(agent, "name", None) in (None, "agent"):
        agent.name = name
    return agent


def _load(prefix: str, path: str) -> Agent:
    """Load ``path`` with the loader that the entry point ``prefix`` names."""
    (point,) = [p for p in entry_points(group=LOADER_GROUP) if p.name == prefix][:1]
    try:
        loader = point.load()
    except ImportError as error:
        raise ValueError(
            f"cannot load agent {prefix}:{path}: its loader {point.value} is not available "
            f"({error}); install its extra (pip install -e '.[train]' for ppo, "
            "'.[openspiel]' for openspiel)"
        ) from error
    try:
        return loader(path)
    except OSError as error:  # a missing or unreadable model file
        raise ValueError(f"cannot load agent {prefix}:{path}: {error}") from error


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
