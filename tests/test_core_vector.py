"""The compiled observation and batched core against the Python ones.

* ``test_offsets_equal_layout``: every field of the C++ layout (name, start, size, scale)
  equals :data:`canasta_env.observation.LAYOUT`'s.
* ``test_observation_fuzz``: a Python game and a core game play the same seeded random
  masked actions; at every step the core's observation of every seat, to act and not,
  equals ``ObservationBuilder.build`` bit for bit (every preset and player count, spanish
  with the S-19 runs, house-rule mixes); ``test_long_observation_fuzz`` (slow): longer.
* ``test_vector_core_equals_python``: ``vector_env`` backends "core" and "python" give the
  same obs, mask, seat, rewards and done at every step (rewards score and win, episodes
  hand and game, 2 and 4 players).
* ``test_rows_rewritten_whatever_a_caller_wrote``: NaN observations and scrambled masks
  written into the core's arrays change nothing: the next step rewrites every row.
* ``test_bad_actions_change_nothing``: a wrong shape, a float dtype, an illegal or
  out-of-range action raises ValueError, and the env then plays on as a fresh copy does.
* ``test_threads_match_sequential``: two batches stepped in two threads give what they
  give one after the other.
"""

from __future__ import annotations

import random
import threading
import zlib

import numpy as np
import pytest

from canasta_env.core import AVAILABLE, WHY_NOT, CoreGame
from canasta_env.engine.game import PHASE_HAND_OVER, Game
from canasta_env.observation import LAYOUT, OBS_SIZE, SCALES, ObservationBuilder
from canasta_env.rules import PRESETS, make_rules
from canasta_env.vector import vector_env

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT or "core not built")

#: (variant, house rules, players): every preset at its player counts, and mixes.
TABLES: list[tuple[str, dict, int]] = [
    (name, {}, n) for name, rules in PRESETS.items() for n in rules.player_counts
]
TABLES += [("spanish", {"sequences": True}, n) for n in (2, 4)]
TABLES += [
    ("classic", {"draw_count": 2, "wild_crosses_pot": True}, 4),
    ("classic", {"wild_melds": True, "target_score": 3000}, 3),
    ("canastone", {"frozen_for_unopened": False, "must_take_matching_pot": False}, 6),
    ("italian", {"pot_face_down": 3, "unopened_hand_penalty_factor": 3}, 2),
    ("spanish", {"sequences": True, "black3_melds": False}, 3),
    ("italian", {"frozen_for_unopened": False, "go_out_min_canastas": 2}, 4),
]
FUZZ_STEPS = 5_000
LONG_FUZZ_STEPS = 50_000


def table_id(table) -> str:
    name, overrides, n = table
    extra = ",".join(f"{k}={v}" for k, v in overrides.items())
    return f"{name}{'[' + extra + ']' if extra else ''}-{n}p"


def test_offsets_equal_layout():
    from canasta_env import _core

    expected = [
        (span.name, span.start, span.field.size, float(np.float32(span.field.scale)))
        for span in LAYOUT.spans
    ]
    assert _core.observation_spans() == expected
    assert _core.OBS_SIZE == OBS_SIZE == len(SCALES)


def observation_fuzz(table, steps: int, seed: int = 0) -> None:
    """Play ``steps`` random masked actions in a Python game and a core game side by side,
    comparing every seat's observations at every step (new hands and games as needed)."""
    name, overrides, n = table
    rules = make_rules(name, **overrides)
    chooser = random.Random(seed)
    deal = seed
    py, core = Game(rules, n, seed=deal), CoreGame(rules, n, seed=deal)
    builder = ObservationBuilder(py)
    for step in range(steps):
        for seat in range(n):
            for to_act in (True, False):
                expected = builder.build(seat, to_act)
                got = core.observation(seat, to_act)
                if got.tobytes() != expected.tobytes():
                    wrong = [
                        s.name for s in LAYOUT.spans if (got != expected)[s.start : s.stop].any()
                    ]
                    pytest.fail(f"step {step} seat {seat} to_act {to_act}: fields {wrong} differ")
        if py.phase == PHASE_HAND_OVER:
            if py.game_over:
                deal += 1
                py, core = Game(rules, n, seed=deal), CoreGame(rules, n, seed=deal)
                builder = ObservationBuilder(py)
            else:
                py.next_hand()
                core.next_hand()
            continue
        legal = core.legal_actions()
        assert legal == py.legal_actions(), f"step {step}: the engines' masks differ"
        action = chooser.choice(legal)
        py.apply(action)
        core.apply(action)


@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_observation_fuzz(table):
    observation_fuzz(table, FUZZ_STEPS)


@pytest.mark.slow
@pytest.mark.parametrize("table", TABLES, ids=table_id)
def test_long_observation_fuzz(table):
    observation_fuzz(table, LONG_FUZZ_STEPS, seed=1)


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One legal action per row of ``mask``, uniform over its legal ids."""
    return np.argmax(mask * rng.random(mask.shape), axis=1)


def both_backends(**options):
    return vector_env(backend="core", **options), vector_env(backend="python", **options)


NAMES = ("obs", "mask", "seat", "rewards", "done")


def assert_same(got, expected, where: str) -> None:
    for name, a, b in zip(NAMES, got, expected):
        assert a.dtype == b.dtype and a.shape == b.shape, f"{where}: {name} {a.dtype}{a.shape}"
        if a.tobytes() != b.tobytes():
            rows = sorted({int(k) for k in np.nonzero(a != b)[0]})
            pytest.fail(f"{where}: {name} differs at tables {rows[:10]}")


@pytest.mark.parametrize("players", (2, 4))
@pytest.mark.parametrize("episode", ("hand", "game"))
@pytest.mark.parametrize("reward", ("score", "win"))
def test_vector_core_equals_python(reward, episode, players):
    core, python = both_backends(
        num_players=players, num_envs=16, seed=11, reward=reward, episode=episode
    )
    got, expected = core.reset(), python.reset()
    assert_same(got, expected, "reset")
    rng = np.random.default_rng(3)
    ended = 0
    for step in range(2_000):
        actions = random_actions(got[1], rng)
        got, expected = core.step(actions), python.step(actions)
        assert_same(got, expected, f"step {step}")
        ended += int(got[4].sum())
    assert ended > 0  # episodes ended, were paid and dealt again
    assert core.deal_seeds == python.deal_seeds


def test_rows_rewritten_whatever_a_caller_wrote():
    """The core's arrays are rewritten whole at every step: what a caller wrote into them
    (here NaN observations and scrambled masks) neither shows nor decides legality."""
    core, python = both_backends(num_players=4, num_envs=8, seed=5)
    got, expected = core.reset(), python.reset()
    rng = np.random.default_rng(2)
    for step in range(300):
        actions = random_actions(got[1], rng)
        got[0][:] = np.nan
        got[1][:] = rng.integers(0, 2, got[1].shape, dtype=np.int8)
        got, expected = core.step(actions), python.step(actions)
        assert_same(got, expected, f"step {step}")


@pytest.mark.parametrize("seed", (0, -7, 2**32 - 2, 2**40 + 3))
def test_deal_seeds_as_python(seed):
    """Deal h is random.Random(seed + h) (CPython's integer seeding, negative seeds too)."""
    core, python = both_backends(variant="spanish", num_players=4, num_envs=4, seed=seed)
    assert_same(core.reset(), python.reset(), "reset")
    assert core.deal_seeds == python.deal_seeds


def test_vector_env_house_rules():
    options = dict(variant="spanish", num_players=3, num_envs=8, seed=5)
    core, python = both_backends(house_rules={"sequences": True}, **options)
    got, expected = core.reset(), python.reset()
    rng = np.random.default_rng(0)
    for step in range(300):
        actions = random_actions(got[1], rng)
        got, expected = core.step(actions), python.step(actions)
        assert_same(got, expected, f"step {step}")
    with pytest.raises(ValueError, match="unknown rules field"):
        vector_env(house_rules={"no_such_rule": 1}, backend="core")
    with pytest.raises(ValueError, match="num_envs"):
        vector_env(num_envs=0, backend="core")
    with pytest.raises(ValueError, match="reward"):
        vector_env(reward="points", backend="core")


def snapshot(arrays) -> list[np.ndarray]:
    return [np.array(a, copy=True) for a in arrays]


@pytest.mark.parametrize("backend", ("core", "python"))
def test_bad_actions_change_nothing(backend):
    options = dict(num_players=4, num_envs=8, seed=21, backend=backend)
    env, fresh = vector_env(**options), vector_env(**options)
    rng = np.random.default_rng(5)
    obs, mask, seat = env.reset()
    fresh.reset()
    for _ in range(30):
        actions = random_actions(mask, rng)
        state = env.step(actions)
        fresh.step(actions)
    before = snapshot(state)
    legal = random_actions(mask, rng)
    illegal = legal.copy()
    illegal[5] = int(np.flatnonzero(mask[5] == 0)[0])
    out_of_range = legal.copy()
    out_of_range[3] = 500
    negative = legal.copy()
    negative[0] = -1
    bad = {
        "shape": legal[:7],
        "2-d": legal.reshape(8, 1),
        "float": legal.astype(np.float64),
        "bool": legal.astype(bool),
        "illegal": illegal,
        "out of range": out_of_range,
        "negative": negative,
    }
    for why, actions in bad.items():
        with pytest.raises(ValueError) as error:
            env.step(actions)
        if why in ("illegal", "out of range", "negative"):
            table = {"illegal": 5, "out of range": 3, "negative": 0}[why]
            assert f"table {table}" in str(error.value), why
        assert_same(state, before, f"after a bad {why}")
    assert_same(env.step(legal), fresh.step(legal), "the next legal step")


def play(env, seed: int, steps: int) -> int:
    """Step ``env`` ``steps`` times with random legal actions; a digest of every array."""
    rng = np.random.default_rng(seed)
    obs, mask, seat = env.reset()
    digest = 0
    for _ in range(steps):
        for array in env.step(random_actions(mask, rng)):
            digest = zlib.crc32(array.tobytes(), digest)
    return digest


def test_threads_match_sequential():
    envs = [vector_env(num_players=n, num_envs=64, seed=n, backend="core") for n in (2, 4)]
    sequential = [play(env, seed, 300) for seed, env in enumerate(envs)]
    threaded = [None, None]
    start = threading.Barrier(2)

    def run(index: int) -> None:
        start.wait()
        threaded[index] = play(envs[index], index, 300)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert threaded == sequential
