"""The house bots' twins in the compiled core, and how an agent hands its seat to one.

``greedy``, ``expert``, the styled bots and ``random`` are written a second time in C++
(``csrc/bots/``, :class:`canasta_env.core.CoreBot`), making the same moves bit for bit
(``tests/test_core_bots.py``). Such an agent keeps its twin in ``core_bot``, reset by its
own ``reset`` for the hand; a table on the core (:meth:`canasta_env.table.Table.play`) then
plays that seat in C++ instead of calling ``act``: the arena's hands and every other
``Table.play`` run at the core's speed with the same results. On the Python engine, or
with ``agent.use_core = False``, the agent plays its Python ``act`` as always.

Only the classes themselves have twins: a subclass (which may change any method) plays
in Python. A styled bot's generator travels with it: its twin starts each hand from the
agent's ``random.Random``, and a hand the twin played hands its draws back at the next
``reset`` (:meth:`agents.styles.StyledAgent.reset`).

The batched core (:class:`canasta_env.gym_vector.CanastaVectorEnv`'s fast path) asks an
agent for a twin with its ``batch_twin()`` method (:func:`canasta_env.core.batch_twin`);
each of these classes answers for itself, and only for exactly itself.
"""

from __future__ import annotations

import atexit
import weakref
from collections.abc import Callable

from canasta_env import core
from canasta_env.rules import Rules


def core_twin(
    agent,
    cls: type,
    seat: int,
    num_players: int,
    rules: Rules,
    make: Callable[[], core.CoreBot],
    fresh: bool = False,
) -> core.CoreBot | None:
    """The twin of ``agent`` (an instance of exactly ``cls``) reset for a hand, or None where
    it has none: the core is not built, ``agent.use_core`` is false, or ``agent`` is of a
    subclass. ``make()`` builds a twin; the agent's last one is reset again unless
    ``fresh``."""
    if not (getattr(agent, "use_core", False) and type(agent) is cls and core.AVAILABLE):
        return None
    bot = None if fresh else getattr(agent, "core_bot", None)
    if bot is None:
        bot = make()
        _OWNERS.add(agent)
    bot.reset(seat, num_players, rules)
    return bot


def twin_free_state(agent) -> dict:
    """``agent``'s attributes for a pickle or a copy (its ``__getstate__``): its twin, a C++
    object, left out and made again at its next ``reset``. A twin that has played moves of
    this hand holds what the agent has not seen (the moves' memory, a styled bot's draws):
    such an agent is refused (``TypeError``) rather than copied into another player."""
    state = dict(agent.__dict__)
    twin = state.get("core_bot")
    if twin is not None and twin.acted:
        raise TypeError(
            f"{type(agent).__name__} is playing this hand in the compiled core, which holds "
            "the hand's memory: copy or pickle it between hands, or set use_core = False"
        )
    state["core_bot"] = None
    return state


#: The agents that hold a twin (weakly): at exit their twins are let go while the core
#: module still stands, so no C++ object outlives it (nanobind reports those as leaks when
#: an agent is still referenced at shutdown, e.g. by a module's cache).
_OWNERS: weakref.WeakSet = weakref.WeakSet()


@atexit.register
def _drop_twins() -> None:
    for agent in list(_OWNERS):
        try:
            agent.core_bot = None
        except AttributeError:  # an object that takes no attributes
            pass


__all__ = ["core_twin", "twin_free_state"]
