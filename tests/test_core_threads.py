"""One object, several threads: each call works or raises the one-thread rule's
``RuntimeError`` ("... is being used by another thread: one thread at a time"), never a
crash (outside probes: 4 threads stepping one core ``vector_env`` crashed in 2 of 4 runs,
the Gymnasium vector face's batched path in 3 of 3, with SIGSEGV and SIGABRT).

Four threads hammer one object of each kind (``tests/core_fuzz.py``), each run in a
child process so that a crash fails its test, not the suite: ``vector_env`` on both
backends, ``CanastaVectorEnv`` on its batched and ``Table.play`` paths and under the SB3
face, a ``_core.Batch`` on the learner's face, a ``CoreGame`` (``random_steps`` releases
the GIL), and one ``CoreBot`` shared by games in ``play_bots``. The rule's words are
checked on both layers: the faces' lock (``canasta_env.threads``) and the core's flags
(``csrc/busy.hpp``).
"""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from canasta_env import core
from canasta_env.threads import OneThread

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason=f"core not built: {core.WHY_NOT}")


def _in_child(call: str, timeout: float = 240):
    code = f"from tests import core_fuzz\nprint(repr(core_fuzz.{call}))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, cwd=ROOT
    )
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return ast.literal_eval(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("backend", ["core", "python"])
def test_one_vector_env_in_four_threads(backend) -> None:
    done, _ = _in_child(f"hammer_vector_env({backend!r})")
    assert done > 0


@pytest.mark.parametrize("batched", [True, False])
def test_the_gym_vector_face_in_four_threads(batched) -> None:
    done, _ = _in_child(f"hammer_face({batched})")
    assert done > 0


def test_the_sb3_face_in_four_threads() -> None:
    pytest.importorskip("stable_baselines3", reason="the train extra is not installed")
    done, _ = _in_child("hammer_face(True, rounds=20, sb3=True)")
    assert done > 0


def test_one_batch_in_four_threads() -> None:
    done, _ = _in_child("hammer_batch()")
    assert done > 0


def test_one_core_game_in_four_threads() -> None:
    done, _ = _in_child("hammer_game()")
    assert done > 0


def test_one_bot_in_four_threads() -> None:
    done, _ = _in_child("hammer_shared_bot()")
    assert done > 0


def test_a_second_thread_is_refused_naming_the_rule() -> None:
    """Held by one thread, a face refuses another at once, and works again after."""
    import canasta_env

    venv = canasta_env.vector_env(num_envs=2, num_players=2, backend="core")
    venv.reset()
    errors = []

    def step() -> None:
        try:
            venv.step(np.argmax(venv.tables.mask, axis=1))
        except RuntimeError as error:
            errors.append(str(error))

    with venv._one_thread:  # as a step in progress holds it
        other = threading.Thread(target=step)
        other.start()
        other.join()
    assert errors == [
        "this vector_env is being stepped by another thread: one thread at a time "
        '(docs/vector.md, "Threads"); give each thread its own env'
    ]
    step()
    assert len(errors) == 1


def test_the_core_refuses_a_second_thread_naming_the_rule() -> None:
    """A batch busy in one thread (a long reset, the GIL released) refuses a call from
    another with the core's words; the call never waits."""
    from canasta_env import _core
    from canasta_env.rules import make_rules

    batch = _core.Batch(core.core_rules(make_rules("classic"), 4), "classic", 4, 4096)
    resetting = threading.Thread(target=lambda: [batch.reset(False, [k]) for k in range(3)])
    refusals = set()
    resetting.start()
    while resetting.is_alive():
        try:
            batch.deal_numbers  # noqa: B018 - the property is the call under test
        except RuntimeError as error:
            refusals.add(str(error))
    resetting.join()
    assert refusals == {
        "core: this _core.Batch is being used by another thread: one thread at a time "
        '(docs/core.md, "Threads")'
    }


def test_the_guard_copies_free() -> None:
    import copy
    import pickle

    guard = OneThread("this env")
    with guard:
        for twin in (copy.deepcopy(guard), pickle.loads(pickle.dumps(guard))):
            with twin:  # a copy holds a lock of its own
                assert twin.what == "this env"
