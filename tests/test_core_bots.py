"""The house bots in the core (csrc/bots/, canasta_env.core.CoreBot) make the Python bots'
moves, bit for bit: every decision of whole hands compared side by side at every preset,
player count and house-rule mix of the core parity tables; the styled bots' generators
equal after every hand; the table seam (Table.play on the core plays a twin's seat in C++)
and the batched core's bot seats give the Python engine's hands. A doctored twin and a
one-card change in the observation are caught (the positive control).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.base import RandomAgent, play_hands
from agents.expert import ExpertAgent, ExpertParams
from agents.registry import make_agent
from agents.styles import FAMILIES, STYLED, style_name
from canasta_env import _core
from canasta_env.actions import NUM_ACTIONS
from canasta_env.core import AVAILABLE, WHY_NOT, CoreBot, batch_twin, core_rules
from canasta_env.observation import LAYOUT, OBS_SIZE
from canasta_env.rules import make_rules
from canasta_env.table import Table
from tests.core_parity import HOUSE_MIXES, TABLES, table_id

pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT or "core not built")

#: Every bot with a twin in the core.
BOTS = ("greedy", "expert", STYLED, *map(style_name, FAMILIES))
ALL_TABLES = TABLES + HOUSE_MIXES


def python_bot(name: str, seed: int):
    agent = make_agent(name, seed=seed)
    agent.use_core = False  # the reference: its own act, never its twin
    return agent


def compare_hands(
    table, name: str, hands: int, seed: int, agent=None, twin=None, doctor=None
) -> tuple:
    """Play ``hands`` hands of ``table`` with the Python bot ``name`` (or ``agent(seat)``) in
    every seat, asking a twin (``twin(seat)``, default ``CoreBot(name)``) every decision too
    (the observation changed by ``doctor`` first, for the positive control). Returns
    (decisions, the first difference or None); the styled bots' generators are compared
    after every hand."""
    variant, overrides, players = table
    rules = make_rules(variant, **overrides)
    agents = [agent(s) if agent else python_bot(name, seed + s) for s in range(players)]
    twins = [twin(s) if twin else CoreBot(name, seed=seed + s) for s in range(players)]
    decisions = 0
    for hand in range(hands):
        game = Table(rules, players, seed=seed * 1000 + hand, backend="core")
        for s in range(players):
            agents[s].reset(s, players, rules)
            twins[s].reset(s, players, rules)
        while not game.hand_over:
            seat = game.current
            observation, mask = game.observation(seat), game.mask()
            action = agents[seat].act(observation, mask)
            seen = observation if doctor is None else doctor(observation)
            other = twins[seat].act(seen, mask)
            decisions += 1
            if other != action:
                return decisions, f"hand {hand}, seat {seat}: python {action}, core {other}"
            game.step(action)
        for s in range(players):
            state = twins[s].rng_state()
            if state is not None and state != agents[s].rng.getstate():
                return decisions, f"hand {hand}, seat {s}: the generators differ"
    return decisions, None


@pytest.mark.parametrize("table", ALL_TABLES, ids=table_id)
def test_every_decision_matches(table) -> None:
    """Every bot, two hands of every table: the same move at every decision."""
    total = 0
    for name in BOTS:
        decisions, difference = compare_hands(table, name, hands=2, seed=7)
        assert difference is None, f"{name} at {table_id(table)}: {difference}"
        total += decisions
    assert total > 1000


def test_styled_bots_draw_the_same_numbers() -> None:
    """A styled twin draws each hand's family and numbers as the Python bot does."""
    rules = make_rules("classic")
    for name in (STYLED, *map(style_name, FAMILIES)):
        agent = python_bot(name, 11)
        twin = CoreBot(name, seed=11)
        for _ in range(30):
            agent.reset(0, 2, rules)
            twin.reset(0, 2, rules)
            assert twin.style == agent.family
        assert twin.rng_state() == agent.rng.getstate()


def test_expert_params_travel() -> None:
    """ExpertAgent(params=...) and its twin play the given numbers at every player count."""
    params = dataclasses.replace(ExpertParams(), pot_loss_per_card=50.0, pair_keep=0.0, race=True)

    def agent(seat: int) -> ExpertAgent:
        python = ExpertAgent(params=params)
        python.use_core = False
        return python

    def twin(seat: int) -> CoreBot:
        return CoreBot("expert", params=dataclasses.asdict(params))

    for table in ALL_TABLES[::2]:
        _, difference = compare_hands(table, "expert", 2, 3, agent=agent, twin=twin)
        assert difference is None, f"{table_id(table)}: {difference}"


# ---------------------------------------------------------------------- positive control


def test_a_doctored_twin_is_caught() -> None:
    """The comparison fails for a twin with one number changed, and for an observation with
    one card more in hand: the parity above is not vacuous."""
    doctored = dataclasses.asdict(dataclasses.replace(ExpertParams(), pair_keep=0.0))
    found = [
        compare_hands(t, "expert", 3, 7, twin=lambda s: CoreBot("expert", params=doctored))[1]
        for t in TABLES[:4]
    ]
    assert any(found), "a twin with pair_keep=0 played every move of the expert"

    hand = LAYOUT.span("hand")

    def one_more_card(observation: np.ndarray) -> np.ndarray:
        changed = observation.copy()
        changed[hand.start + 5] += np.float32(0.25)  # one more 9 in hand
        return changed

    for name in ("greedy", "expert"):
        _, difference = compare_hands(TABLES[0], name, 3, 7, doctor=one_more_card)
        assert difference is not None, f"{name}'s twin ignored a card of its hand"


# ---------------------------------------------------------------------- the table seam


@pytest.mark.parametrize("table", ALL_TABLES[::3], ids=table_id)
def test_table_play_on_the_core_plays_the_python_hands(table) -> None:
    """play_hands (the arena's loop): the same records on the Python engine and on the core,
    where the twins play every seat in C++; styled bots over several hands (their draws
    travel back at reset)."""
    variant, overrides, players = table
    names = ["greedy", "expert", STYLED, "style:noisy", "style:naive", "style:racer"]
    for episode in ("hand", "game"):
        hands = 3 if episode == "hand" else 1
        python = [python_bot(names[s % len(names)], 40 + s) for s in range(players)]
        core = [make_agent(names[s % len(names)], seed=40 + s) for s in range(players)]
        kwargs = dict(variant=variant, seed=9, episode=episode, **overrides)
        expected = play_hands(python, hands, backend="python", **kwargs)
        got = play_hands(core, hands, backend="core", **kwargs)
        assert [dataclasses.asdict(r) for r in got] == [dataclasses.asdict(r) for r in expected]
        assert all(agent.core_bot is not None and agent.core_bot.acted for agent in core)


def test_a_subclass_or_use_core_false_plays_in_python() -> None:
    class Changed(ExpertAgent):
        pass

    rules = make_rules("classic")
    changed, kept = Changed(), make_agent("greedy")
    kept.use_core = False
    changed.reset(0, 2, rules)
    kept.reset(1, 2, rules)
    assert changed.core_bot is None and kept.core_bot is None
    assert Table(rules, 2, seed=1, backend="core").core_twins({0: changed, 1: kept}) == {}


def test_a_wrapper_or_a_changed_act_plays_in_python() -> None:
    """A wrapper that hands the bot's attributes on (training's recorder of a teacher's
    decisions) and an agent whose act was replaced are asked for their moves in Python."""

    class Recording:
        def __init__(self, bot):
            self.bot, self.log = bot, []

        def __getattr__(self, name):
            return getattr(self.bot, name)

        def act(self, observation, mask):
            action = self.bot.act(observation, mask)
            self.log.append(action)
            return action

    rules = make_rules("classic")
    wrapped, patched = Recording(make_agent("expert")), make_agent("greedy")
    calls = []
    patched.act = lambda o, m, inner=patched.act: calls.append(1) or inner(o, m)
    for seat, agent in enumerate((wrapped, patched)):
        agent.reset(seat, 2, rules)
    table = Table(rules, 2, seed=1, backend="core")
    assert table.core_twins({0: wrapped, 1: patched}) == {}
    steps = table.play([wrapped, patched])
    assert len(wrapped.log) + len(calls) == steps > 0


def test_on_decision_sees_the_twins_moves() -> None:
    rules = make_rules("classic")
    agents = [make_agent("expert"), make_agent("greedy")]
    for seat, agent in enumerate(agents):
        agent.reset(seat, 2, rules)
    seen = []
    core_table = Table(rules, 2, seed=3, backend="core")
    core_table.play(agents, on_decision=lambda s, o, m, a: seen.append((s, a)))
    python_table = Table(rules, 2, seed=3, backend="python")
    reference = [python_bot("expert", 0), python_bot("greedy", 0)]
    for seat, agent in enumerate(reference):
        agent.reset(seat, 2, rules)
    expected = []
    python_table.play(reference, on_decision=lambda s, o, m, a: expected.append((s, a)))
    assert seen == expected


# ---------------------------------------------------------------------- the batched core


def batch_reference(rules, players: int, bots: dict, seed: int, steps: int) -> list:
    """The learner's view at seat 0 with bots in the other seats, on the Python engine: what
    a batch of one table with those bots must show, step by step (deal h seeded seed + h)."""
    learner = python_bot("greedy", 0)
    out = []
    deal = seed
    table = None
    while len(out) < steps:
        if table is None:
            table = Table(rules, players, seed=deal, backend="python")
            deal += 1
            for s, agent in bots.items():
                agent.reset(s, players, rules)
            learner.reset(0, players, rules)
            rewards = np.zeros(players)
        table.play(bots)
        if table.hand_over:
            rewards += table.seat_rewards()
            out[-1][2] = rewards.astype(np.float32)
            out[-1][3] = True
            table = None
            continue
        observation, mask = table.observation(0), table.mask()
        action = learner.act(observation, mask)
        out.append([observation, action, np.zeros(players, np.float32), False])
        table.step(action)
        if table.hand_over:
            rewards += table.seat_rewards()
            out[-1][2] = rewards.astype(np.float32)
            out[-1][3] = True
            table = None
    return out


@pytest.mark.parametrize("table", [t for t in ALL_TABLES if not t[1]][::2], ids=table_id)
def test_batch_plays_bot_seats_like_the_python_engine(table) -> None:
    variant, _, players = table
    rules = make_rules(variant)
    names = ["expert", "style:noisy", "greedy", STYLED, "style:naive"]
    bot_names = {s: names[(s - 1) % len(names)] for s in range(1, players)}
    reference = batch_reference(
        rules, players, {s: python_bot(n, 60 + s) for s, n in bot_names.items()}, 20, 300
    )
    batch = _core.Batch(core_rules(rules, players), rules.name, players, 1)
    for s, name in bot_names.items():
        batch.set_bot(0, s, CoreBot(name, seed=60 + s)._bot)
    batch.reset(False, [20])
    learner = python_bot("greedy", 0)
    learner.reset(0, players, rules)
    for step, (observation, action, rewards, done) in enumerate(reference):
        assert batch.seat[0] == 0, f"step {step}"
        np.testing.assert_array_equal(batch.obs[0], observation, err_msg=f"step {step}")
        if step and reference[step - 1][3]:
            learner.reset(0, players, rules)
        assert learner.act(batch.obs[0], batch.mask[0]) == action
        batch.step(np.array([action]))
        np.testing.assert_array_equal(batch.rewards[0], rewards, err_msg=f"step {step}")
        assert bool(batch.done[0]) == done, f"step {step}"


def test_batch_keeps_a_seat_for_the_learner() -> None:
    rules = make_rules("classic")
    batch = _core.Batch(core_rules(rules, 2), rules.name, 2, 2)
    batch.set_bot(0, 1, CoreBot("greedy")._bot)
    with pytest.raises(ValueError, match="no seat to step"):
        batch.set_bot(0, 0, CoreBot("greedy")._bot)
    batch.set_bot(1, 0, CoreBot("expert")._bot)
    batch.reset(False, [3])
    assert list(batch.seat) == [0, 1]


# ---------------------------------------------------------------------- soak


@pytest.mark.slow
def test_a_million_decisions() -> None:
    """make soak: every bot at every table, hands on until a million decisions matched."""
    total, seed = 0, 100
    while total < 1_000_000:
        for table in ALL_TABLES:
            for name in BOTS:
                decisions, difference = compare_hands(table, name, hands=2, seed=seed)
                assert difference is None, f"{name} at {table_id(table)} seed {seed}: {difference}"
                total += decisions
        seed += 1


def test_the_random_twin_draws_as_random_agent():
    """RandomAgent's draws (legal[rng.randrange(len(legal))]) in the core, for a batch."""
    twin, agent = CoreBot("random", seed=11), RandomAgent(11)
    rng = np.random.default_rng(0)
    observation = np.zeros(OBS_SIZE, np.float32)
    for count in [1, 2, 3, 7, 64, 255, 256, 257, 500] * 4:
        mask = np.zeros(NUM_ACTIONS, np.int8)
        mask[rng.choice(NUM_ACTIONS, count, replace=False)] = 1
        assert twin.act(observation, mask) == agent.act(observation, mask)
    assert batch_twin(RandomAgent(3)) is not None
    control = CoreBot("random", seed=12)  # positive control: another seed draws otherwise
    assert [control.act(observation, np.ones(500, np.int8)) for _ in range(8)] != [
        agent.act(observation, np.ones(500, np.int8)) for _ in range(8)
    ]
