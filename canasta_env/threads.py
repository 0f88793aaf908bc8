"""One thread at a time: the guard of the faces that step many tables in one call.

A vector env (:func:`canasta_env.vector_env`, :class:`~canasta_env.gym_vector.CanastaVectorEnv`
and the SB3 face over it) rewrites its tables and its arrays in place at every step, and
on the compiled core the step runs with the GIL released: two threads stepping one object
once crashed the process. Each such object holds a :class:`OneThread`; its ``reset`` and
``step`` take it without waiting, so a second thread's call raises ``RuntimeError`` naming
the rule instead of interleaving with the first. Separate objects step in separate
threads freely. The core's own objects (``_core.Game``, ``Batch``, ``Bot``) refuse a
second thread the same way (``csrc/busy.hpp``, ``docs/core.md``).
"""

from __future__ import annotations

import threading

#: Where the rule is written.
THREADS_DOC = 'docs/vector.md, "Threads"'


class OneThread:
    """A lock that is never waited for: ``with guard:`` runs the block, or raises
    ``RuntimeError`` at once when another thread is inside a block of the same guard.
    ``what`` names the object in the message ("this vector_env")."""

    def __init__(self, what: str):
        self.what = what
        self._lock = threading.Lock()

    def __enter__(self) -> None:
        if not self._lock.acquire(blocking=False):
            raise RuntimeError(
                f"{self.what} is being stepped by another thread: one thread at a time "
                f"({THREADS_DOC}); give each thread its own env"
            )

    def __exit__(self, *exc) -> None:
        self._lock.release()

    def __reduce__(self):  # a copy or a pickle gets a free lock of its own
        return OneThread, (self.what,)


__all__ = ["THREADS_DOC", "OneThread"]
