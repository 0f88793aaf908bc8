"""Training's hands are played on the table: a search bot gets a determinized world in a
rollout (as an opponent, a shadow teacher and a recorded teacher), and a hand's reward is
the table's outcome."""

from __future__ import annotations

import random

import numpy as np
import pytest

from agents.base import Agent, RandomAgent
from agents.network import PolicyWeights
from agents.reward import hand_reward, shaped_reward
from canasta_env.actions import NUM_ACTIONS
from canasta_env.engine.state import same_state
from canasta_env.observation import OBS_SIZE, ObservationBuilder
from canasta_env.rules import make_rules
from canasta_env.table import Table
from training.rollout import (
    LEARNER,
    HandRunner,
    Recorder,
    collect,
    numpy_policy,
)

#: The scripted search agent below, by the import path ``make_agent`` resolves.
SEER = f"{__name__}:WorldSeer"


class WorldSeer(Agent):
    """A scripted search agent: it must be handed a world before each ``act``, checks that
    the world is at the position it sees, and plays a random legal id."""

    name = "world-seer"
    #: every world handed to any instance (cleared by the tests)
    worlds: list = []

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)
        self.world = None
        self.truth: Table | None = None  # the true table, where a test hands it over

    def see_world(self, world) -> None:
        self.world = world

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        world, self.world = self.world, None
        if world is None:
            raise RuntimeError("acted without a world: not run through Table.choose_action")
        legal = np.flatnonzero(action_mask).tolist()
        assert world.legal_actions() == legal
        assert np.array_equal(ObservationBuilder(world).build(world.current), observation)
        if self.truth is not None:
            assert world is not self.truth.game
            WorldSeer.worlds.append(same_state(world, self.truth.game))
        else:
            WorldSeer.worlds.append(None)
        return legal[self.rng.randrange(len(legal))]


@pytest.fixture()
def seen():
    WorldSeer.worlds = []
    yield WorldSeer.worlds
    WorldSeer.worlds = []


def _policy() -> PolicyWeights:
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(OBS_SIZE, 16)).astype(np.float32) * 0.1
    head = rng.normal(size=(16, NUM_ACTIONS)).astype(np.float32)
    return numpy_policy([(hidden, np.zeros(16, np.float32)), (head, np.zeros(NUM_ACTIONS))])


def test_acting_without_the_table_gives_the_seer_no_world():
    """Positive control: the seer's plain ``act`` (what rollouts used to call) fails."""
    table = Table(make_rules("classic"), 2, seed=3)
    seer = WorldSeer(seed=1)
    with pytest.raises(RuntimeError, match="without a world"):
        seer.act(table.observation(table.current), table.mask())
    action = table.choose_action(seer, table.observation(table.current), table.mask())
    assert table.is_legal(action)


@pytest.mark.parametrize("players", [2, 4])
def test_a_search_opponent_in_a_rollout_searches_a_determinized_world(seen, players):
    runner = HandRunner(envs=3)
    deals = iter(range(20, 24))
    finished = []

    def make_slot():
        seed = next(deals, None)
        if seed is None:
            return None
        slot = runner.new_slot(("classic", players), [LEARNER, ("bot", SEER)], seed, "seer", seed)
        for bot in slot.bots.values():
            bot.truth = slot.table
        return slot

    runner.run(make_slot, {"learner": _policy()}, np.random.default_rng(0), True, finished.append)
    assert len(finished) == 4 and all(slot.table.hand_over for slot in finished)
    assert len(seen) > 20
    # the worlds are redealt, not the true game (the last card of a hand may be known)
    assert seen.count(False) > 0.9 * len(seen)


def test_a_search_teacher_shadows_the_learner_through_the_table(seen):
    data = collect(
        HandRunner(envs=2), 60, [("classic", 2)], [1.0], [(("bot", "random"), 1.0)],
        {"learner": _policy()}, [0, 1], 0.25, teacher=SEER,
    )  # fmt: skip
    labels = data["teacher"]
    masks = np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    assert len(seen) == len(labels) > 0
    assert masks[np.arange(len(labels)), labels].all()


def test_a_recorded_search_teacher_gets_its_world(seen):
    recorder = Recorder(envs=2)
    data = recorder.record(60, [("classic", 2)], [1.0], [SEER], [("random", 1.0)], [0, 2], 0.0)
    # the seer is the only search agent: each recorded decision of it had a world
    assert 0 < len(data["actions"]) == len(seen)


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 3), ("classic", 4)])
def test_hand_reward_is_the_tables_outcome(variant, players):
    """Who won and by how much are the table's; checked against the team scores by hand."""
    for seed in range(6):
        table = Table(make_rules(variant), players, seed=seed)
        agent = RandomAgent(seed)
        while not table.hand_over:
            table.step(table.choose_action(agent, table.observation(table.current), table.mask()))
        totals = table.team_scores
        for seat in table.seats:
            team = table.team_of[seat]
            mine, others = totals[team], [s for t, s in enumerate(totals) if t != team]
            outcome = 1 if mine > max(others) else 0 if mine == max(others) else -1
            diff = mine - sum(others) / len(others)
            reward = hand_reward(table, seat, 0.25)
            assert reward == (shaped_reward(outcome, diff, 0.25), outcome, diff)
            assert type(reward[1]) is int
