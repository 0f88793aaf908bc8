"""The learner's episodes drawn and dealt in the batched core (``_core.Batch.new_episodes``,
the fast path of :class:`~canasta_env.gym_vector.CanastaVectorEnv`).

The face's returns are checked step by step against the table-play path in
``tests/test_vector_faces.py``; here: each table's generator, seat and deal seed against
the single env's and the table-play path's, and the batch's refusals of bad input (a bad
table, twins not one per opponent seat, a bad generator state, a call before
``configure_episodes``), each a named Python exception that changes nothing.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils import seeding

import canasta_env.gym_env as gym_env
from agents.registry import make_agent
from canasta_env import core
from canasta_env.batched_table import pcg64_state
from canasta_env.gym_env import CanastaGymEnv
from canasta_env.gym_vector import CanastaVectorEnv
from canasta_env.rules import make_rules
from tests.test_vector_faces import _same, _sample

if not core.AVAILABLE:
    pytest.skip(core.WHY_NOT, allow_module_level=True)

from canasta_env import _core  # noqa: E402


@pytest.fixture(autouse=True)
def names(monkeypatch):
    """Agent names resolved by agents.registry whatever the installed metadata declares."""
    monkeypatch.setattr(gym_env, "agent_name_resolver", lambda: make_agent)


CONFIGS = [
    dict(num_players=2, opponents="expert"),
    dict(num_players=4, opponents="greedy"),
    dict(num_players=4, learner="seat", opponents=["expert", "style:racer", "random"]),
    dict(num_players=3, opponents="random", seat=2),
]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda kwargs: "-".join(map(str, kwargs.values())))
def test_each_tables_reset_is_the_single_envs(kwargs):
    venv = CanastaVectorEnv(4, batched=True, **kwargs)
    _, info = venv.reset(seed=40)
    for k in range(4):
        env = CanastaGymEnv(**kwargs)
        env.reset(seed=40 + k)
        assert venv.tables.generator_state(k) == env.np_random.bit_generator.state
        assert int(venv.tables.learner_seat[k]) == env.seat
        assert int(info["deal_seed"][k]) == env.deal_seed


@pytest.mark.parametrize("kwargs", CONFIGS, ids=lambda kwargs: "-".join(map(str, kwargs.values())))
def test_generators_go_on_as_the_table_play_paths(kwargs):
    fast = CanastaVectorEnv(4, batched=True, **kwargs)
    slow = CanastaVectorEnv(4, batched=False, **kwargs)
    rng = np.random.default_rng(2)
    ended = 0
    for seeds in ([5, 6, 2**40, 7], None):  # then an unseeded reset: the generators go on
        obs, _ = fast.reset(seed=seeds)
        slow.reset(seed=seeds)
        for _ in range(60):
            mask = obs["action_mask"]
            actions = np.argmax((rng.random(mask.shape) + 1.0) * mask, axis=1)
            obs, _, terminated, truncated, _ = fast.step(actions)
            slow.step(actions)
            ended += int((terminated | truncated).sum())
    assert ended > 0
    for k in range(4):
        assert fast.tables.generator_state(k) == slow._rngs[k].bit_generator.state
    assert np.array_equal(fast._seat, slow._seat)


#: Hands of three cards that may go out without a canasta: many a hand ends before the
#: learner's first decision, so the batch redeals (episode="hand") or books the hand and
#: deals the game's next (episode="game").
SHORT_HANDS = dict(go_out_min_canastas=0, hand_size=((2, 3), (3, 3), (4, 3), (6, 3)))


@pytest.mark.parametrize("episode", ("hand", "game"))
def test_hands_over_before_the_learner_acts_as_the_table_play_path(episode):
    kwargs = dict(num_players=2, opponents="greedy", episode=episode, **SHORT_HANDS)
    fast = CanastaVectorEnv(8, batched=True, target_score=1500, **kwargs)
    slow = CanastaVectorEnv(8, batched=False, target_score=1500, **kwargs)
    rng = np.random.default_rng(0)
    obs, info = fast.reset(seed=1)
    _same((obs, info), slow.reset(seed=1), "reset")
    redeals = dealt_rewards = ended = 0
    for t in range(200):
        actions = _sample(rng, obs["action_mask"])
        got = fast.step(actions)
        _same(got, slow.step(actions), f"step {t}")
        obs = got[0]
        ended += int((got[2] | got[3]).sum())
        redeals += int(fast.tables.redeals.sum())
        dealt_rewards += int(fast.tables.engine.dealt_rewards.any())
    assert (redeals if episode == "hand" else dealt_rewards) > 0  # the case is met
    assert ended > 0


# ------------------------------------------------------------------ refusals
def _batch(tables: int = 3) -> _core.Batch:
    return _core.Batch(core.core_rules(make_rules("classic"), 2), "classic", 2, tables)


def _expert():
    return core.CoreBot("expert")._bot


def _snapshot(batch) -> tuple:
    states = []
    for k in range(batch.num_tables):
        try:
            states.append(batch.generator(k))
        except ValueError:
            states.append(None)
    return (
        batch.obs.copy(),
        batch.mask.copy(),
        batch.learner_seat.copy(),
        batch.deal_seed.copy(),
        batch.redeals.copy(),
        states,
    )


def _unchanged(before: tuple, after: tuple) -> None:
    for a, b in zip(before[:5], after[:5]):
        assert np.array_equal(a, b)
    assert before[5] == after[5]


def _ready(tables: int = 3) -> _core.Batch:
    batch = _batch(tables)
    batch.configure_episodes([[_expert()] for _ in range(tables)], None, True)
    for k in range(tables):
        batch.set_generator(k, pcg64_state(seeding.np_random(k)[0]))
    batch.new_episodes(list(range(tables)), [None] * tables)
    return batch


def test_new_episodes_before_configure_episodes_raises():
    batch = _batch()
    batch.set_generator(0, pcg64_state(seeding.np_random(0)[0]))
    before = _snapshot(batch)
    with pytest.raises(RuntimeError, match="new_episodes before configure_episodes"):
        batch.new_episodes([0], [None])
    _unchanged(before, _snapshot(batch))


@pytest.mark.parametrize(
    "tables, seeds, match",
    [
        ([3], [None], "table 3 is not in the batch"),
        ([0, -1], [None, None], "table -1 is not in the batch"),
        ([1, 1], [None, None], "table 1 is listed twice"),
        ([0, 1], [None], "one seed \\(or None\\) per table"),
        ([0], [(False, [])], "at least one word"),
    ],
)
def test_new_episodes_refuses_bad_tables_and_seeds_changing_nothing(tables, seeds, match):
    batch = _ready()
    before = _snapshot(batch)
    with pytest.raises(ValueError, match=match):
        batch.new_episodes(tables, seeds)
    _unchanged(before, _snapshot(batch))


def test_a_table_without_a_generator_is_refused_before_any_deal():
    batch = _batch()
    batch.configure_episodes([[_expert()] for _ in range(3)], None, True)
    batch.set_generator(0, pcg64_state(seeding.np_random(0)[0]))
    before = _snapshot(batch)
    with pytest.raises(ValueError, match="table 2 has no generator"):
        batch.new_episodes([0, 2], [None, None])
    _unchanged(before, _snapshot(batch))
    with pytest.raises(ValueError, match="table 1 has no generator"):
        batch.generator(1)


@pytest.mark.parametrize(
    "twins, seat, error, match",
    [
        ([[]] * 3, None, ValueError, "table 0: one twin per opponent seat \\(1\\), got 0"),
        ([["x", "x"]] * 3, None, ValueError, "one twin per opponent seat \\(1\\), got 2"),
        ([["x"]] * 2, None, ValueError, "the twins of each of the 3 tables, got 2"),
        ([["x"]] * 3, 2, ValueError, "seat 2 is not at the table"),
        ([["x"]] * 3, -1, ValueError, "seat -1 is not at the table"),
        ([[None]] * 3, None, (TypeError, ValueError), None),
        ([[object()]] * 3, None, TypeError, None),
    ],
)
def test_configure_episodes_refuses_bad_twins_and_seats_changing_nothing(twins, seat, error, match):
    expert = _expert()
    twins = [[expert if twin == "x" else twin for twin in row] for row in twins]
    batch = _ready()
    before = _snapshot(batch)
    with pytest.raises(error, match=match):
        batch.configure_episodes(twins, seat, True)
    _unchanged(before, _snapshot(batch))
    batch.new_episodes([0], [None])  # the configuration before still holds
    assert int(batch.learner_seat[0]) in (0, 1)


def test_a_team_learner_at_three_seats_leaves_as_many_opponents_at_every_seat():
    batch = _core.Batch(core.core_rules(make_rules("classic"), 4), "classic", 4, 1)
    expert = _expert()
    with pytest.raises(ValueError, match="one twin per opponent seat \\(2\\), got 3"):
        batch.configure_episodes([[expert] * 3], None, True)  # a team learner: 2 opponents
    batch.configure_episodes([[expert] * 3], None, False)  # a seat learner: 3


@pytest.mark.parametrize(
    "state, error",
    [
        ((1, 2, 0), ValueError),
        ((1, 2, 0, 0, 0), ValueError),
        ([1, 2, 0, 0], TypeError),
        ((-1, 1, 0, 0), ValueError),
        ((1, 2**128, 0, 0), ValueError),
        ((1, 1, 2, 0), ValueError),
        ((1, 1, 0, 2**32), ValueError),
        ((1, 1.5, 0, 0), TypeError),
    ],
)
def test_set_generator_refuses_a_bad_state_changing_nothing(state, error):
    batch = _ready()
    before = _snapshot(batch)
    with pytest.raises(error, match="PCG64 state"):
        batch.set_generator(0, state)
    with pytest.raises(ValueError, match="table 5 is not in the batch"):
        batch.set_generator(5, before[5][0])
    _unchanged(before, _snapshot(batch))


def test_new_episodes_writes_the_draws_and_keeps_the_generator():
    """Table 0 against the same draws made in numpy: seat, the opponent's seed, the deal's."""
    batch = _batch(2)
    batch.configure_episodes([[_expert()], [_expert()]], None, True)
    generator = seeding.np_random(17)[0]
    batch.set_generator(0, pcg64_state(generator))
    batch.set_generator(1, pcg64_state(seeding.np_random(18)[0]))
    batch.new_episodes([0], [None])
    seat = int(generator.integers(2))
    generator.integers(2**31 - 1)  # the opponent's seed
    deal_seed = int(generator.integers(2**31 - 1))
    assert int(batch.learner_seat[0]) == seat and int(batch.deal_seed[0]) == deal_seed
    assert int(batch.redeals[0]) == 0 and batch.generator(0) == pcg64_state(generator)
    assert int(batch.seat[0]) == seat  # the learner is to act
    batch.new_episodes([1], [(False, [2**32 - 1, 3])])  # a given seed: 3 * 2**32 + 2**32 - 1
    assert int(batch.deal_seed[1]) == 4 * 2**32 - 1
    batch.new_episodes([1], [(True, [1, 1, 1])])  # past int64: the caller holds it
    assert int(batch.deal_seed[1]) == 0
