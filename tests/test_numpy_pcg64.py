"""numpy's PCG64 and ``Generator.integers(bound)`` in the core (``csrc/numpy_pcg64.hpp``),
against numpy itself: the values and the state after them, bit for bit.

The learner's face on its fast path draws each episode's seat and seeds in C++ from the
table's ``seeding.np_random`` generator (``_core.Batch.new_episodes``), so the core's
draws must be numpy's for every bound the face uses (the player count, ``SEED_BOUND``)
and for any state a generator may be in (its 32-bit buffer full or empty).
``_core._pcg64_integers(state, bounds)`` is the test hook: the state is ``(state, inc,
has_uint32, uinteger)``, as ``bit_generator.state`` holds them.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

from canasta_env import core
from canasta_env.batched_table import pcg64_state
from canasta_env.table import SEED_BOUND

if not core.AVAILABLE:
    pytest.skip(core.WHY_NOT, allow_module_level=True)

from canasta_env import _core  # noqa: E402

#: The bounds the face draws with, the edges of the 32-bit range numpy's Lemire path takes
#: for them (1 draws nothing), and a few in between.
BOUNDS = (1, 2, 3, 4, 5, 6, 7, 1000, 2**16 + 1, 2**30, 2**30 + 1, SEED_BOUND - 1, SEED_BOUND)


def _numpy_draws(generator: np.random.Generator, bounds) -> list[int]:
    return [int(generator.integers(bound)) for bound in bounds]


def _core_draws(generator: np.random.Generator, bounds) -> tuple[list[int], tuple]:
    return _core._pcg64_integers(pcg64_state(generator), list(bounds))


@pytest.mark.parametrize("has_uint32", (0, 1))
@pytest.mark.parametrize("seed", range(0, 400, 7))
def test_draws_and_the_state_after_them_are_numpys(seed, has_uint32):
    generator = seeding.np_random(seed)[0]
    if has_uint32:
        generator.integers(SEED_BOUND)  # one 32-bit half left in the buffer
    assert generator.bit_generator.state["has_uint32"] == has_uint32
    chooser = np.random.default_rng(seed + 10_000)
    bounds = [int(b) for b in chooser.choice(BOUNDS, 60)]
    bounds += [int(b) for b in chooser.integers(1, SEED_BOUND + 1, 20)]
    chooser.shuffle(bounds)
    values, state = _core_draws(generator, bounds)
    assert values == _numpy_draws(generator, bounds)
    assert state == pcg64_state(generator)


def test_a_bound_of_one_draws_nothing_as_numpy():
    generator = seeding.np_random(3)[0]
    before = pcg64_state(generator)
    values, state = _core_draws(generator, [1, 1, 1])
    assert values == [0, 0, 0] and state == before
    assert _numpy_draws(generator, [1, 1, 1]) == [0, 0, 0] and pcg64_state(generator) == before


def test_the_rejection_path_draws_again_as_numpy():
    """A bound just past 2**31 rejects close to half the 32-bit draws: many redraws."""
    generator = np.random.default_rng(12345)
    bounds = [2**31 - 1] * 2000
    values, state = _core_draws(generator, bounds)
    assert values == _numpy_draws(generator, bounds)
    assert state == pcg64_state(generator)


def test_any_state_numpy_holds_draws_as_numpy():
    """States that no seeding gives: huge and small words, an even increment, the buffer."""
    chooser = np.random.default_rng(99)
    for _ in range(40):
        state = (
            int.from_bytes(chooser.bytes(16), "little"),
            int.from_bytes(chooser.bytes(16), "little"),
            int(chooser.integers(0, 2)),
            int(chooser.integers(0, 2**32)),
        )
        generator = np.random.Generator(np.random.PCG64())
        generator.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": state[0], "inc": state[1]},
            "has_uint32": state[2],
            "uinteger": state[3],
        }
        assert pcg64_state(generator) == state
        bounds = [int(b) for b in chooser.choice(BOUNDS, 30)]
        values, after = _core._pcg64_integers(state, bounds)
        assert values == _numpy_draws(generator, bounds) and after == pcg64_state(generator)


@pytest.mark.parametrize(
    "state, bounds, error, match",
    [
        ((1, 2, 0), [2], ValueError, "tuple of 4"),
        ((1, 2, 0, 0, 0), [2], ValueError, "tuple of 4"),
        ([1, 2, 0, 0], [2], TypeError, "is a tuple"),
        ("state", [2], TypeError, "is a tuple"),
        ((-1, 1, 0, 0), [2], ValueError, "state must be 0..2\\*\\*128"),
        ((2**128, 1, 0, 0), [2], ValueError, "state must be"),
        ((1, 2**128 + 5, 0, 0), [2], ValueError, "inc must be"),
        ((1, 1, 2, 0), [2], ValueError, "has_uint32 must be 0..2\\*\\*1"),
        ((1, 1, -1, 0), [2], ValueError, "has_uint32"),
        ((1, 1, 0, 2**32), [2], ValueError, "uinteger must be 0..2\\*\\*32"),
        ((1.0, 1, 0, 0), [2], TypeError, "state must be an int"),
        ((1, None, 0, 0), [2], TypeError, "inc must be an int"),
        ((1, 1, True, 0), [2], TypeError, "has_uint32 must be an int"),
        ((1, 1, 0, 0), [0], ValueError, "a bound must be 1..2147483647, got 0"),
        ((1, 1, 0, 0), [-5], ValueError, "got -5"),
        ((1, 1, 0, 0), [2**31], ValueError, "got 2147483648"),
        ((1, 1, 0, 0), [2**70], TypeError, None),
        ((1, 1, 0, 0), 5, TypeError, None),
    ],
)
def test_bad_states_and_bounds_raise_naming_them(state, bounds, error, match):
    with pytest.raises(error, match=match):
        _core._pcg64_integers(state, bounds)
