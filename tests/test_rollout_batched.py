"""The rollout on one batched table plays the same hands as on tables, bit for bit: every
array ``collect`` returns and every result of ``collect`` and ``evaluate_deals``, for house
bots (a styled bot's draws included), snapshots, frozen networks and self-play, at 2 and
4 players; and it is taken where it can be, and only there."""

from __future__ import annotations

import numpy as np
import pytest

from agents.expert import ExpertAgent
from canasta_env import core
from canasta_env.actions import NUM_ACTIONS
from canasta_env.batched_table import BatchedTable
from canasta_env.observation import OBS_SIZE
from training import rollout
from training.rollout import LEARNER, HandRunner, collect, evaluate_deals, numpy_policy

pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason=core.WHY_NOT)


def _policy(seed: int):
    rng = np.random.default_rng(seed)
    hidden = rng.normal(size=(OBS_SIZE, 16)).astype(np.float32) * 0.1
    head = rng.normal(size=(16, NUM_ACTIONS)).astype(np.float32)
    return numpy_policy([(hidden, np.zeros(16, np.float32)), (head, np.zeros(NUM_ACTIONS))])


POLICIES = {"learner": _policy(0), "s1": _policy(1), "f1": _policy(2)}
OPPONENTS = [
    ("bot", "expert"),
    ("bot", "greedy"),
    ("bot", "style:racer"),
    ("bot", "styled"),  # a family drawn each hand from the bot's seed
    ("bot", "random"),
    ("snapshot", "s1"),
    ("frozen", "f1"),
    LEARNER,
]
#: A bot without a twin in the batched core (a subclass of a house bot), by import path.
NO_TWIN = f"{__name__}:NoTwin"


class NoTwin(ExpertAgent):
    """The expert's moves, but a subclass: it has no twin (agents.core_twins)."""


MIXED = [
    (("bot", "expert"), 0.3),
    (("bot", "styled"), 0.3),
    (LEARNER, 0.15),
    (("snapshot", "s1"), 0.15),
    (("frozen", "f1"), 0.1),
]


def _collect(runner: HandRunner, players: int, opponents, seed: int, steps: int = 240) -> dict:
    return collect(runner, steps, [("classic", players)], [1.0], opponents, POLICIES, [seed], 0.25)


def _both(run) -> tuple:
    """``run(runner)`` on tables and on the batched table (checking each took its path)."""
    tables, batched = HandRunner(envs=3, batched=False), HandRunner(envs=3)
    on_tables, on_batch = run(tables), run(batched)
    assert (tables.path, batched.path) == ("tables", "batched")
    return on_tables, on_batch


def _differences(a: dict, b: dict) -> list[str]:
    """The outputs of two ``collect`` that differ (in values, dtype or shape)."""
    assert a.keys() == b.keys()
    return [
        key
        for key, value in a.items()
        if (value != b[key] if key == "results" else value.dtype != b[key].dtype)
        or (key != "results" and not np.array_equal(value, b[key]))
    ]


def _assert_same(a: dict, b: dict) -> None:
    assert _differences(a, b) == []


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("opponent", OPPONENTS, ids=lambda c: ":".join(c))
def test_collect_and_evaluation_are_the_same_hands_batched(players, opponent, seed):
    on_tables, on_batch = _both(lambda r: _collect(r, players, [(opponent, 1.0)], seed))
    assert len(on_tables["actions"]) > 50 and on_tables["dones"].sum() >= 2
    _assert_same(on_tables, on_batch)
    deals = [100 * seed + i for i in range(3)]
    on_tables, on_batch = _both(
        lambda r: evaluate_deals(r, ("classic", players), opponent, deals, POLICIES)
    )
    assert len(on_tables) == 3 * 2  # each deal with the learner in each of the two teams
    assert on_tables == on_batch


def test_a_league_mix_and_refills_are_the_same_hands_batched():
    """Hands of every kind of opponent side by side, more hands than slots (refills)."""
    on_tables, on_batch = _both(lambda r: _collect(r, 2, MIXED, 1, steps=900))
    assert on_tables["dones"].sum() > 3 * 2  # more hands than the 3 slots, twice over
    assert {label for _, label, *_ in on_tables["results"]} == {"expert", "styled", "s1", "f1"}
    _assert_same(on_tables, on_batch)


def test_other_bot_seeds_would_show(monkeypatch):
    """Positive control: the batched table dealing the styled bots other seeds (the
    mistake of seeding a slot's bots with ``bot_seed + seat + 1``) gives other hands,
    which the comparison sees."""
    styled = [(("bot", "styled"), 1.0)]
    on_tables = _collect(HandRunner(envs=3, batched=False), 2, styled, 0)
    _assert_same(on_tables, _collect(HandRunner(envs=3), 2, styled, 0))
    deal = BatchedTable.deal

    def shifted(self, deals):
        deal(self, [(k, seed, agents, [s + 1 for s in seeds]) for k, seed, agents, seeds in deals])

    monkeypatch.setattr(BatchedTable, "deal", shifted)
    runner = HandRunner(envs=3)
    shifted_out = _collect(runner, 2, styled, 0)
    assert runner.path == "batched"
    assert "obs" in _differences(on_tables, shifted_out)


class _Counting(BatchedTable):
    made = 0

    def __init__(self, *args, **kwargs):
        type(self).made += 1
        super().__init__(*args, **kwargs)


@pytest.fixture()
def counting(monkeypatch):
    _Counting.made = 0
    monkeypatch.setattr(rollout, "BatchedTable", _Counting)
    return _Counting


def _path(runner: HandRunner, tables, weights, opponents, teacher=None) -> str:
    collect(runner, 60, tables, weights, opponents, POLICIES, [3], 0.25, teacher=teacher)
    return runner.path


def test_the_batched_path_is_taken_where_it_can_be(counting):
    expert = [(("bot", "expert"), 1.0)]
    assert _path(HandRunner(2), [("classic", 2)], [1.0], expert) == "batched"
    assert counting.made == 1  # the path says what ran (positive control for the rest)
    # a second kind that is never drawn leaves one kind
    assert _path(HandRunner(2), [("classic", 2), ("classic", 4)], [1.0, 0.0], expert) == "batched"
    assert _path(HandRunner(2), [("classic", 4)], [1.0], [(("snapshot", "s1"), 1.0)]) == "batched"
    runner = HandRunner(2)
    evaluate_deals(runner, ("classic", 2), ("bot", "greedy"), [5], POLICIES)
    assert runner.path == "batched" and counting.made == 4


def test_the_tables_stay_where_the_batched_table_cannot(counting):
    expert = [(("bot", "expert"), 1.0)]
    two = [("classic", 2)]
    assert _path(HandRunner(2), two, [1.0], expert, teacher="expert") == "tables"
    assert _path(HandRunner(2), [*two, ("classic", 4)], [0.5, 0.5], expert) == "tables"
    assert _path(HandRunner(2, backend="python"), two, [1.0], expert) == "tables"
    no_twin = [(("bot", "expert"), 0.5), (("bot", NO_TWIN), 0.5)]
    assert _path(HandRunner(2), two, [1.0], no_twin) == "tables"
    assert _path(HandRunner(2, batched=False), two, [1.0], expert) == "tables"
    runner = HandRunner(2)
    evaluate_deals(runner, ("classic", 2), ("bot", "expert"), [-5], POLICIES)  # a negative seed
    assert runner.path == "tables"
    assert counting.made == 0
    with pytest.raises(ValueError, match="batched=True: no batched table with a shadow teacher"):
        _path(HandRunner(2, batched=True), two, [1.0], expert, teacher="expert")
