"""The agents a request may name at this server, and nothing else (docs/security.md):
:func:`check_bot_name` (the allowlist: the built-in bots, the shipped trained agents by
name, and search bots with a bounded budget) and :func:`make_bot`, which builds one.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

from agents.registry import make_agent, reseed
from canasta_web.tables import TableError, short

#: Agent names a request may ask for, and nothing else (docs/security.md): the built-in
#: bots, the shipped trained agents by name, and search bots with a bounded budget. Never a
#: file path, an import path or a name resolved against the working folder.
BUILT_IN_BOTS = ("random", "greedy", "expert")
#: The most simulations per move a search bot may use here (about 0.6 s a move at the
#: start of a classic 4-player hand on one core of the project's machines).
MAX_SEARCH_SIMULATIONS = 1000
#: Search bots by name: ``openspiel:ismcts`` (its default budget), ``openspiel:ismcts-N``
#: (1 <= N <= MAX_SEARCH_SIMULATIONS) and ``openspiel:random``.
SEARCH_NAME = re.compile(r"openspiel:(?:random|ismcts(?:-(?P<simulations>[1-9][0-9]{0,3}))?)")
#: The most rollouts per move a search over a shipped network may play here (at 512 about
#: 0.07 s of CPU a decision on average and 0.3 s at the 99th percentile, classic 4 players,
#: on the project's machines): agents/search.py's largest default budget
#: (``search:classic-4p``), so every shipped search the page offers plays as named.
MAX_SEARCH_ROLLOUTS = 512
#: Searches over a shipped network: ``search:NAME`` (its default budget) and
#: ``search:NAME@N`` (1 <= N <= MAX_SEARCH_ROLLOUTS), NAME a shipped numpy model; none of
#: the loader's other forms (a file path, settings) is taken.
POLICY_SEARCH_NAME = re.compile(
    r"search:(?P<model>[a-z0-9][a-z0-9-]{0,63})(?:@(?P<rollouts>[1-9][0-9]{0,3}))?"
)


def shipped_agents() -> dict[str, str]:
    """``ppo:NAME`` of every shipped trained agent the server may load, and its shipped name.

    Only the numpy models: a Stable-Baselines3 zip is loaded through pickle, which the
    server never does (docs/security.md).
    """
    try:
        from agents.network import SHIPPED
    except ImportError:  # the training package is absent
        return {}
    return {f"ppo:{name}": name for name, path in SHIPPED.items() if Path(path).suffix == ".npz"}


def bot_names() -> list[str]:
    """Agent names to offer on the page (the shipped trained agents, and a search over
    each, when installed)."""
    shipped = list(shipped_agents().values())
    return (
        list(BUILT_IN_BOTS)
        + [f"ppo:{name}" for name in shipped]
        + [f"search:{name}" for name in shipped]
    )


def _within_budget(name: str, count: str | None, limit: int, unit: str) -> str:
    """``name`` when its budget (``count`` of ``unit``, None: the default) is at most
    ``limit``; TableError 400 saying the bound otherwise."""
    if count is None or int(count) <= limit:
        return name
    raise TableError(400, f"bot {short(name)}: at most {limit} {unit} per move on this server")


def check_bot_name(name: Any) -> str:
    """``name`` when the server may build that agent; TableError 400 naming it otherwise."""
    if isinstance(name, str):
        if name in BUILT_IN_BOTS or name in shipped_agents():
            return name
        match = POLICY_SEARCH_NAME.fullmatch(name)
        if match is not None and f"ppo:{match.group('model')}" in shipped_agents():
            return _within_budget(name, match.group("rollouts"), MAX_SEARCH_ROLLOUTS, "rollouts")
        match = SEARCH_NAME.fullmatch(name)
        if match is not None:
            simulations = match.group("simulations")
            return _within_budget(name, simulations, MAX_SEARCH_SIMULATIONS, "simulations")
    raise TableError(
        400,
        f"unknown bot {short(name)}: choose one of {', '.join(BUILT_IN_BOTS)}, "
        "ppo:NAME or search:NAME@N for a shipped network NAME (ppo:classic-2p, "
        f"search:classic-4p@64, ...; N <= {MAX_SEARCH_ROLLOUTS}; every name: /api/options), "
        f"openspiel:ismcts-N (N <= {MAX_SEARCH_SIMULATIONS}) or openspiel:random",
    )


def make_bot(name: Any, seed: int | None):
    """The agent ``name`` of the allowlist (:func:`check_bot_name`), seeded with ``seed``."""
    name = check_bot_name(name)
    try:
        if name in BUILT_IN_BOTS:
            return make_agent(name, seed=seed)
        shipped = shipped_agents().get(name)
        if shipped is not None:
            from agents.network import load_agent

            agent = load_agent(shipped)
        elif name.startswith("search:"):  # a shipped network and a budget, checked above
            from agents.search import load_agent as load_search

            agent = load_search(name.split(":", 1)[1])
        else:
            from agents.openspiel_bot import load_agent

            agent = load_agent(name.split(":", 1)[1])
    except (ImportError, ValueError, OSError) as error:
        raise TableError(400, f"bot {name!r} is not available here: {error}") from None
    reseed(agent, seed)
    with contextlib.suppress(AttributeError):
        agent.name = name
    return agent
