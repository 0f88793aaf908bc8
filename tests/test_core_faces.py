"""The faces on the compiled core: ``env``/``raw_env(backend=...)``, the table, the arena.

Each face is played on both engines side by side with the same seeds and actions; what
the user sees (observations, masks, rewards, terminations, infos) must be equal at every
step. The engines' own parity is in ``test_core_parity.py``; the batched env's in
``test_core_vector.py``.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import canasta_env
from canasta_env import core, table
from canasta_env.state_io import state_to_dict
from canasta_env.table import Table

pytestmark = pytest.mark.skipif(not core.AVAILABLE, reason=f"core not built: {core.WHY_NOT}")

TABLES = [
    ("classic", 2, {}),
    ("classic", 4, {}),
    ("canastone", 3, {}),
    ("spanish", 6, {}),
    ("spanish", 4, {"sequences": True}),
    ("italian", 4, {}),
]


def _play_side_by_side(variant, players, rules, seed, steps, **options):
    envs = [
        canasta_env.raw_env(variant=variant, num_players=players, backend=b, **options, **rules)
        for b in ("core", "python")
    ]
    for env in envs:
        env.reset(seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        core_env, py_env = envs
        if not core_env.agents:
            assert not py_env.agents
            seed = rng.randrange(1000)
            for env in envs:
                env.reset(seed=seed)
            continue
        assert core_env.agent_selection == py_env.agent_selection
        agent = core_env.agent_selection
        for name in core_env.possible_agents:  # every seat's view, not only the actor's
            a, b = core_env.observe(name), py_env.observe(name)
            assert np.array_equal(a["observation"], b["observation"]), name
            assert np.array_equal(a["action_mask"], b["action_mask"]), name
            assert a["action_mask"].dtype == b["action_mask"].dtype == np.int8
        assert core_env.rewards == py_env.rewards
        assert core_env._cumulative_rewards == py_env._cumulative_rewards
        assert core_env.terminations == py_env.terminations
        assert core_env.truncations == py_env.truncations
        assert core_env.infos == py_env.infos
        if core_env.terminations[agent] or core_env.truncations[agent]:
            action = None
        else:
            action = rng.choice(np.flatnonzero(core_env.observe(agent)["action_mask"]).tolist())
        for env in envs:
            env.step(action)
    assert state_to_dict(envs[0].game) == state_to_dict(envs[1].game)


@pytest.mark.parametrize("variant,players,rules", TABLES)
def test_raw_env_core_plays_as_python(variant, players, rules) -> None:
    _play_side_by_side(variant, players, rules, seed=5, steps=1500)


@pytest.mark.parametrize("reward,episode", [("win", "hand"), ("score", "game"), ("win", "game")])
def test_reward_modes_on_both_engines(reward, episode) -> None:
    _play_side_by_side(
        "classic", 2, {"target_score": 1500}, 8, 2500, reward=reward, episode=episode
    )


def test_default_backend_is_the_core_where_built() -> None:
    assert canasta_env.raw_env().backend == "core"
    assert canasta_env.env(backend="python").unwrapped.backend == "python"
    with pytest.raises(ValueError, match="backend must be one of"):
        canasta_env.raw_env(backend="rust")


def test_missing_core_falls_back_with_one_line(monkeypatch) -> None:
    monkeypatch.setattr(core, "AVAILABLE", False)
    monkeypatch.setattr(core, "WHY_NOT", "canasta_env._core is not built (test)")
    monkeypatch.setattr(table, "_fallback_said", False)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        first = canasta_env.raw_env()
        second = canasta_env.raw_env()
    assert first.backend == second.backend == "python"
    assert [str(w.message) for w in said] == [
        "playing on the Python engine: canasta_env._core is not built (test)"
    ]
    with pytest.raises(RuntimeError, match="not built"):
        canasta_env.raw_env(backend="core")


def test_pettingzoo_api_test_on_the_core() -> None:
    from pettingzoo.test import api_test

    api_test(canasta_env.raw_env(num_players=4, backend="core"), num_cycles=300)
    api_test(canasta_env.env(num_players=2, backend="core"), num_cycles=300)


def test_loaded_state_and_stacked_deck_on_the_core() -> None:
    deck = "JK JK 2C 2D AS AH AD KS KH KD QS QH QD"
    envs = [canasta_env.raw_env(num_players=2, backend=b) for b in ("core", "python")]
    for env in envs:
        env.reset(seed=3, options={"deck": deck})
    assert state_to_dict(envs[0].game) == state_to_dict(envs[1].game)
    saved = state_to_dict(envs[1].game)
    for env in envs:
        env.reset(options={"state": saved})
    assert state_to_dict(envs[0].game) == saved
    assert np.array_equal(
        envs[0].observe("player_0")["observation"], envs[1].observe("player_0")["observation"]
    )


def test_core_table_game_is_a_copy_for_reading() -> None:
    t = Table(canasta_env.make_rules("classic"), 4, seed=1, backend="core")
    before = state_to_dict(t.game)
    t.game.hands[0][0] += 5  # a reader's slip changes nothing at the table
    t.game.phase = 2
    fresh = Table(canasta_env.make_rules("classic"), 4, seed=1, backend="core")
    assert np.array_equal(t.mask(), fresh.mask())
    t.step(t.legal_actions()[0])
    after = state_to_dict(t.game)
    assert after != before and after["num_steps"] == 1


def test_core_table_copy_is_independent() -> None:
    t = Table(canasta_env.make_rules("spanish"), 4, seed=2, backend="core", deck=None)
    other = t.copy()
    assert other.backend == "core"
    t.step(t.legal_actions()[0])
    assert other.game.num_steps == 0 and t.game.num_steps == 1
    assert state_to_dict(other.game) == state_to_dict(Table(t.rules, 4, seed=2).game)


def test_illegal_action_on_the_core_env_changes_nothing() -> None:
    env = canasta_env.raw_env(num_players=2, backend="core")
    env.reset(seed=4)
    before = state_to_dict(env.game)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=str(illegal)):
        env.step(illegal)
    with pytest.raises(ValueError, match="outside"):
        env.step(500)
    assert state_to_dict(env.game) == before


def test_arena_hands_are_the_same_on_both_engines() -> None:
    """The arena plays its hands with play_hands on the env's default engine (the core)."""
    from agents.base import play_hands
    from agents.registry import make_agent

    def records(backend):
        bots = [make_agent(name, seed=seat) for seat, name in enumerate(["greedy", "expert"] * 2)]
        return play_hands(bots, 5, "classic", seed=3, backend=backend)

    on_core, on_python = records("core"), records("python")
    assert on_core == on_python
    assert canasta_env.raw_env().backend == "core"  # what the arena gets without asking


def test_faces_parity_catches_a_rule_change_in_the_core() -> None:
    """Positive control: one rule changed in the core (fault 1: a plain pot take needs
    one natural fewer, C-10) and the side-by-side env play above fails."""
    from canasta_env import _core

    _core._set_fault(1)
    try:
        with pytest.raises(AssertionError):
            _play_side_by_side("classic", 2, {}, seed=5, steps=3000)
    finally:
        _core._set_fault(0)
    _play_side_by_side("classic", 2, {}, seed=5, steps=300)


def test_backend_variable_picks_the_engine(monkeypatch) -> None:
    monkeypatch.setenv("CANASTA_BACKEND", "python")
    assert canasta_env.raw_env().backend == "python"
    assert canasta_env.raw_env(backend="core").backend == "core"  # an explicit choice wins
    monkeypatch.setenv("CANASTA_BACKEND", "rust")
    with pytest.raises(ValueError, match=r"got 'rust' \(CANASTA_BACKEND\)"):
        canasta_env.raw_env()


def test_a_rules_field_the_core_does_not_read_is_refused() -> None:
    """A field added to rules.py but not to csrc/rules.cpp stops the core at once (so every
    parity test fails) rather than being ignored (docs/core.md, adding a rule field)."""
    from canasta_env import _core
    from canasta_env.core import rules_values

    values = rules_values(canasta_env.make_rules("classic"), 4)
    _core.Rules.from_values(values)  # every field read
    values["new_house_rule"] = [1]
    with pytest.raises(ValueError, match="'new_house_rule' is not read by the core"):
        _core.Rules.from_values(values)
    del values["take_naturals"]
    with pytest.raises(ValueError, match="'take_naturals' is missing"):
        _core.Rules.from_values(values)
