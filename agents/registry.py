"""Agents by name: ``make_agent("expert", seed=3)``, ``make_agent("ppo:models/run1.zip")``,
``make_agent("mypkg.bots:MyAgent")``.

A name is resolved in this order, the first match winning:

1. a built-in name (``random``, ``greedy``, ``expert``; the styled bots of
   :mod:`agents.styles`: ``styled`` and ``style:FAMILY``, the only built-in names
   with ``:``) or one added with :func:`register_agent` (such names never contain
   ``:``);
2. ``PREFIX:PATH`` where ``PREFIX`` names a loader that an installed package
   declares in the ``canasta_env.agents`` entry-point group (this project's
   ``training`` declares ``ppo``: see ``pyproject.toml``), called with ``PATH``.
   The loader is imported only when such a name is asked for, so everything else
   works when the training extras are not installed, and the bots know nothing
   of training. A loader with a ``trust_pickle`` parameter is given
   :func:`make_agent`'s (``ppo`` refuses a Stable-Baselines3 ``.zip``, which
   pickle loads and can run code, unless it is true: ``--trust-pickle``);
3. an import path ``module.path:Attribute`` (any other name with ``:``): the
   module is imported, the current working directory searched first as
   ``python -m`` does, and the attribute (a class or factory function) is called
   to build the agent (see :func:`make_agent` for the contract). A module that
   shares its name with a loader prefix (a ``ppo.py``) is reached through its
   package (``mypkg.ppo:Agent``), never as ``ppo:Agent``.

:func:`register_agent` adds a name for the running process (tests use it for
scripted agents); a fresh process (the arena's workers) knows only the built-in
names until it is handed the parent's :func:`registered_factories`. Import paths
and loaded agents need no handing over: every process resolves them itself.

A name may carry a short label for reports: ``LABEL=NAME`` (``fast=ppo:runs/a/model.npz``)
builds ``NAME`` and calls the agent ``LABEL`` (:func:`split_label`); the arena prints the
label and keeps the whole name in its results, so a run is repeated from them.

A name that resolves to nothing is refused with the nearest accepted name, if one is
close (``did you mean 'expert'?``): the built-in and registered names, and the
ready-made agents of each loader (the keys of a ``SHIPPED`` mapping in the loader's
module, as ``ppo:classic-2p``), looked up only when a name fails.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import importlib
import inspect
import numbers
import os
import random
import re
import sys
from collections.abc import Callable, Iterable
from importlib.metadata import entry_points

from agents.base import Agent, RandomAgent
from agents.expert import ExpertAgent
from agents.greedy import GreedyAgent
from agents.styles import FAMILIES, STYLED, StyledAgent, style_name

#: How the accepted names and the errors show an import path.
IMPORT_PATH = "module.path:Attribute"

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
#: The styled bots (:mod:`agents.styles`), built in beside the house bots: ``styled`` (a
#: training family drawn each hand) and ``style:FAMILY``.
_STYLES: dict[str, Callable[..., Agent]] = {
    STYLED: StyledAgent,
    **{style_name(family): functools.partial(StyledAgent, family=family) for family in FAMILIES},
}
_FACTORIES.update(_STYLES)


def available_agents() -> list[str]:
    """Names :func:`make_agent` accepts (loaded agents as ``PREFIX:PATH``, then the import path)."""
    loaded = [f"{prefix}:PATH" for prefix in loader_prefixes()]
    return sorted(_FACTORIES) + loaded + [IMPORT_PATH]


def register_agent(name: str, factory: Callable[..., Agent]) -> None:
    """Make ``name`` build ``factory(seed=...)`` in this process."""
    if not isinstance(name, str) or not name or name != name.strip():
        raise ValueError(f"an agent name is non-empty text without outer spaces, got {name!r}")
    if ":" in name or "=" in name:
        raise ValueError(
            f"agent names may not contain ':' (loaded agents) or '=' (labels): {name!r}"
        )
    if not callable(factory):
        raise ValueError(f"the factory of agent {name!r} must be callable, got {factory!r}")
    _FACTORIES[name] = factory


def registered_factories(names: Iterable[str]) -> dict[str, Callable[..., Agent]]:
    """The factories that :func:`register_agent` gave to any of ``names`` in this process.

    Built-in and trained names are left out: every process resolves those itself.
    """
    return {
        name: _FACTORIES[name]
        for name in dict.fromkeys(names)
        if name in _FACTORIES and _FACTORIES[name] is not _BUILT_IN.get(name, _STYLES.get(name))
    }


def make_agent(
    name: str, seed: int | None = None, trust_pickle: bool = False, import_paths: bool = True
) -> Agent:
    """Build the agent called ``name`` (resolved as the module doc says), seeded with ``seed``.

    ``trust_pickle`` is handed to a loader that takes that keyword (``ppo``): a
    model file that Python's pickle loads (a Stable-Baselines3 ``.zip``) can run
    code, so such a loader refuses one unless it is true (``--trust-pickle``).

    An import path ``module.path:Attribute`` names a class or factory function.
    It is called as ``factory(seed=seed)`` when it takes a ``seed`` keyword (a
    parameter of that name, or ``**kwargs``), as registered factories are; one
    that takes no argument is called as ``factory()`` and, when ``seed`` is not
    None, the agent is then seeded with :func:`reseed`. What it returns must have
    ``act(observation, action_mask)``; an agent without ``reset`` is given one
    that does nothing, so every table can call it.

    ``import_paths=False`` refuses an import path (``ValueError``, nothing imported):
    for a name that a file from elsewhere holds, which may name data but not code
    (docs/security.md).

    Raises ``ValueError`` naming the problem: an unknown name (with the accepted
    names); a loader that cannot be imported (its extras are not installed) or a
    missing model file; for an import path, a module that is not found (the
    current directory is searched first) or fails to import, a missing
    attribute, an attribute that is not callable or takes other arguments, and
    a factory whose result has no ``act``.
    """
    if not isinstance(name, str):
        raise ValueError(f"an agent name is text, got {name!r}")
    if isinstance(seed, numbers.Integral) and not isinstance(seed, bool):
        seed = int(seed)  # a numpy integer seeds as its int (random.Random refuses one)
    label, spec = split_label(name)
    if label is not None:
        if split_label(spec)[0] is not None:  # what a cap on the name checks is the name built
            raise ValueError(f"agent {name[:60]!r} has two labels; give one: LABEL=NAME")
        agent = _make_unlabelled(spec, seed, trust_pickle, import_paths)
        with contextlib.suppress(AttributeError):  # an object that takes no attributes
            agent.name = label
        return agent
    return _make_unlabelled(name, seed, trust_pickle, import_paths)


def _make_unlabelled(name: str, seed: int | None, trust_pickle: bool, import_paths: bool) -> Agent:
    if name in _FACTORIES:
        agent = _FACTORIES[name](seed=seed)
        if not callable(getattr(agent, "act", None)):
            raise ValueError(f"agent {name!r}: its factory made {type(agent).__name__}, no act()")
    elif ":" in name and name.split(":", 1)[0] in loader_prefixes():
        prefix, path = name.split(":", 1)
        agent = _load(prefix, path, trust_pickle)
        reseed(agent, seed)
    elif ":" in name and any(known.startswith(name.split(":", 1)[0] + ":") for known in _FACTORIES):
        raise ValueError(  # a family of built-in names (style:...), not a module
            f"unknown agent {name!r}{did_you_mean(name)}; choose one of "
            f"{', '.join(available_agents())}"
        )
    elif ":" in name and not import_paths:
        raise ValueError(
            f"agent {name[:40]!r} is Python code (an import path), which is not taken here: "
            "a name read from a file may not name code to run"
        )
    elif ":" in name:
        agent = _build_imported(name, seed)
    else:
        raise ValueError(
            f"unknown agent {name!r}{did_you_mean(name)}; choose one of "
            f"{', '.join(available_agents())}"
        )
    if getattr(agent, "name", None) in (None, "agent"):
        with contextlib.suppress(AttributeError):  # an object that takes no attributes
            agent.name = name
    return agent


_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,39}")


def split_label(name: str) -> tuple[str | None, str]:
    """``("fast", "ppo:x.npz")`` for ``"fast=ppo:x.npz"``; ``(None, name)`` for a name
    without a label (an ``=`` after a ``:`` is the agent's own setting, as in
    ``search:classic-2p@64,belief=history``)."""
    label, sep, spec = name.partition("=")
    if sep and _LABEL.fullmatch(label) and spec:
        return label, spec
    return None, name


def display_name(name: str) -> str:
    """How reports show an agent: its label, else its name."""
    return split_label(name)[0] or name


def _load(prefix: str, path: str, trust_pickle: bool = False) -> Agent:
    """Load ``path`` with the loader that the entry point ``prefix`` names (given
    ``trust_pickle`` when it takes that keyword)."""
    (point,) = [p for p in entry_points(group=LOADER_GROUP) if p.name == prefix][:1]
    try:
        loader = point.load()
    except ImportError as error:
        from canasta_env.extras import install_command

        raise ValueError(
            f"cannot load agent {prefix}:{path}: its loader {point.value} is not available "
            f"({error}); install its extra ({install_command('train')} for ppo, "
            f"{install_command('openspiel')} for openspiel)"
        ) from error
    try:
        if _takes_keyword(loader, "trust_pickle"):
            return loader(path, trust_pickle=trust_pickle)
        return loader(path)
    except OSError as error:  # a missing or unreadable model file
        hint = did_you_mean(f"{prefix}:{path}")
        raise ValueError(f"cannot load agent {prefix}:{path}{hint}: {error}") from error


def did_you_mean(name: str) -> str:
    """`` (did you mean 'expert'?)`` with the accepted name nearest to ``name``, or ``""``."""
    near = difflib.get_close_matches(name, _known_names(), n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _known_names() -> list[str]:
    """Every whole name :func:`make_agent` is known to accept: the built-in and registered
    names, and each loader's ready-made agents (``ppo:classic-2p``)."""
    names = list(_FACTORIES)
    points = {point.name: point for point in entry_points(group=LOADER_GROUP)}
    for prefix in loader_prefixes():
        if prefix not in points:
            continue
        try:
            module = sys.modules[points[prefix].load().__module__]
        except Exception:  # a loader that does not import: no names of its own
            continue
        names += [f"{prefix}:{shipped}" for shipped in getattr(module, "SHIPPED", {})]
    return names


def _takes_keyword(function: Callable, keyword: str) -> bool:
    """Whether ``function`` has a parameter ``keyword`` (not ``**kwargs``: a loader that
    passes unknown keywords on might hand it to something that refuses it)."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False
    parameter = parameters.get(keyword)
    return parameter is not None and parameter.kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


def _build_imported(name: str, seed: int | None) -> Agent:
    """The agent that the import path ``name`` (``module.path:Attribute``) builds.

    ``python -m`` puts the current directory first on ``sys.path``; a console
    script (``canasta``) puts its own folder there instead. So the current
    directory is put first for the import, and kept after a success (the module
    may import its neighbours later); after any failure it is taken out again.
    """
    module_name, attribute = name.split(":", 1)
    if not (_is_dotted_name(module_name) and _is_dotted_name(attribute)):
        prefixes = ", ".join(loader_prefixes()) or "none is installed"
        raise ValueError(
            f"unknown agent {name!r}: {module_name!r} is not an agent loader ({prefixes}), and "
            f"the name is not an import path {IMPORT_PATH} (dotted Python names)"
            f"{did_you_mean(name)}; choose one of {', '.join(available_agents())}"
        )
    cwd = os.getcwd()
    on_path = any(
        isinstance(entry, str) and os.path.abspath(entry or os.curdir) == cwd for entry in sys.path
    )
    if not on_path:
        sys.path.insert(0, cwd)
    try:
        factory = _find_factory(name, module_name, attribute, cwd)
        return _check_agent(name, attribute, _call_factory(name, factory, seed))
    except BaseException:
        if not on_path:
            sys.path.remove(cwd)
        raise


def _is_dotted_name(text: str) -> bool:
    return all(part.isidentifier() for part in text.split("."))


def _find_factory(name: str, module_name: str, attribute: str, cwd: str) -> Callable[..., Agent]:
    """Import ``module_name`` and return its callable ``attribute``."""
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:  # other errors come from the module's code: its traceback
        missing = getattr(error, "name", None) or ""
        if isinstance(error, ModuleNotFoundError) and (module_name + ".").startswith(missing + "."):
            raise ValueError(
                f"agent {name!r}: no module named {missing!r} (searched the current directory "
                f"{cwd} first, then sys.path)"
            ) from error
        message = f"agent {name!r}: importing module {module_name} failed: {error}"
        raise ValueError(message) from error
    factory = module
    for part in attribute.split("."):
        if not hasattr(factory, part):
            where = getattr(module, "__file__", None) or module_name
            raise ValueError(f"agent {name!r}: module {module_name} ({where}) has no {attribute!r}")
        factory = getattr(factory, part)
    if not callable(factory):
        raise ValueError(
            f"agent {name!r}: {attribute} is an object of type {type(factory).__name__!r}, not "
            f"a class or factory function (name the class, not an instance)"
        )
    return factory


def _check_agent(name: str, attribute: str, agent: Agent) -> Agent:
    """``agent`` if it can act; one without ``reset`` gets :func:`_ignore_reset`."""
    if not callable(getattr(agent, "act", None)):
        raise ValueError(
            f"agent {name!r}: {attribute}() returned an object of type {type(agent).__name__!r}, "
            f"which has no act(observation, action_mask) method"
        )
    if not callable(getattr(agent, "reset", None)):
        try:
            agent.reset = _ignore_reset
        except AttributeError as error:
            raise ValueError(
                f"agent {name!r}: its {type(agent).__name__} object has no reset method and "
                f"takes no attributes; define reset(seat, num_players, rules)"
            ) from error
    return agent


def _call_factory(name: str, factory: Callable[..., Agent], seed: int | None) -> Agent:
    """``factory(seed=seed)``, or ``factory()`` and :func:`reseed` for one without a seed."""
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # no signature to read (some builtins): the main contract
        return factory(seed=seed)
    if _binds(signature, seed=seed):
        return factory(seed=seed)
    if not _binds(signature):
        raise ValueError(
            f"agent {name!r}: it is called as factory(seed=seed) or factory(), but it takes "
            f"{signature}"
        )
    agent = factory()
    if seed is not None:
        reseed(agent, seed)
    return agent


def _binds(signature: inspect.Signature, **arguments) -> bool:
    try:
        signature.bind(**arguments)
    except TypeError:
        return False
    return True


def _ignore_reset(seat: int, num_players: int, rules) -> None:
    """The ``reset`` of an agent that has none: it needs neither its seat nor the rules."""


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
