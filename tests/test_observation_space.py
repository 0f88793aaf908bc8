"""The observation space's bounds are the ranges the layout declares, and every observation
lies within them: on both engines, every preset and player count, and at the ends of what a
loaded state may hold (``rules.MAX_COUNT``, ``rules.MAX_SCORE``), which both engines refuse
past, with the same message."""

from __future__ import annotations

import numpy as np
import pytest

from canasta_env import core
from canasta_env import env as make_env
from canasta_env.observation import HIGHS, LAYOUT, LOWS, OBS_SIZE, SCALES
from canasta_env.observation.layout import FLAG, FLAGS, ONE_HOT
from canasta_env.rules import MAX_COUNT, MAX_DECK_CARDS, MAX_SCORE, OBSERVATION_BYTE_MAX
from canasta_env.state_io import state_to_dict

BACKENDS = [
    "python",
    pytest.param("core", marks=pytest.mark.skipif(not core.AVAILABLE, reason=str(core.WHY_NOT))),
]


def _space(env):
    return env.observation_space(env.possible_agents[0])["observation"]


def _entries(name: str, copy: int = 0) -> slice:
    span = LAYOUT.span(name, copy)
    return slice(span.start, span.stop)


def test_each_entry_has_the_range_of_its_field():
    assert LOWS.shape == HIGHS.shape == (OBS_SIZE,)
    space = _space(make_env(num_players=2))
    assert np.array_equal(space.low, LOWS) and np.array_equal(space.high, HIGHS)
    assert space.is_bounded("both")
    for span in LAYOUT.spans:
        entries = slice(span.start, span.stop)
        if span.field.kind in (FLAG, FLAGS, ONE_HOT):
            expected = (0.0, 1.0)
        elif not span.field.big:  # written as a byte
            expected = (0.0, np.float32(OBSERVATION_BYTE_MAX) * np.float32(span.field.scale))
        else:
            continue
        assert (LOWS[entries] == expected[0]).all() and (HIGHS[entries] == expected[1]).all()
    # the big fields: cards, counters and scores
    scale = SCALES[_entries("stock")][0]
    assert HIGHS[_entries("stock")][0] == np.float32(MAX_DECK_CARDS) * scale
    assert HIGHS[_entries("steps")][0] == np.float32(2 * MAX_COUNT) * SCALES[_entries("steps")][0]
    score = _entries("teams.score", 2)
    assert LOWS[score][0] == -HIGHS[score][0] == np.float32(-2 * MAX_SCORE) * SCALES[score][0]


def _random_game(env, rng, decisions: int) -> list[np.ndarray]:
    """Random legal play: the observation of each player to act, the last ones at the end."""
    seen = []
    for _ in range(decisions):
        if not env.agents:
            break
        obs, _, terminated, truncated, _ = env.last()
        seen.append(obs["observation"])
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "variant,num_players",
    [
        ("classic", 2),
        ("classic", 4),
        ("classic", 3),
        ("classic", 6),
        ("spanish", 4),
        ("italian", 2),
        ("canastone", 4),
    ],
)
def test_every_observation_lies_in_the_space(backend, variant, num_players):
    rng = np.random.default_rng(num_players)
    env = make_env(variant=variant, num_players=num_players, backend=backend)
    space = _space(env)
    seen = []
    for seed in range(2):
        env.reset(seed=seed)
        seen += _random_game(env, rng, 400)
    assert len(seen) > 100
    outside = [i for i, obs in enumerate(seen) if not space.contains(obs)]
    assert not outside, f"{len(outside)} observations outside the space"
    # the positive control: one entry past its bound is outside
    past = seen[-1].copy()
    past[_entries("steps")] = HIGHS[_entries("steps")] * 2
    assert not space.contains(past)
    below = seen[-1].copy()
    below[_entries("hand")][0] = -0.25
    assert not space.contains(below)


def _loaded(backend: str, **fields):
    """A 2-player game after a few random decisions, saved, changed and loaded back."""
    env = make_env(num_players=2, backend=backend)
    env.reset(seed=3)
    _random_game(env, np.random.default_rng(3), 6)
    state = state_to_dict(env.game)
    state.update(fields)
    loaded = make_env(num_players=2, backend=backend)
    loaded.reset(options={"state": state})
    return loaded


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_state_at_the_loaders_bounds_plays_inside_the_space(backend):
    history = [
        {"hand": 0, "reason": "went out", "scores": [-MAX_SCORE, 0]},
        {"hand": 1, "reason": "went out", "scores": [0, 0]},
    ]
    env = _loaded(  # hand 2: led by seat 0 again, as the saved hand 0
        backend,
        num_steps=MAX_COUNT,
        hand_index=2,
        scores=[-MAX_SCORE, 0],  # a score past the target would have ended the game
        need=[15, 50],  # C-8: the opening minimums of those scores
        hand_history=history,
    )
    seen = _random_game(env, np.random.default_rng(0), 200)
    space = _space(env)
    assert all(space.contains(obs) for obs in seen)
    steps = seen[0][_entries("steps")][0] / SCALES[_entries("steps")][0]
    assert steps == pytest.approx(MAX_COUNT, rel=1e-6)  # the bound reached the observation
    scores = [seen[0][_entries("teams.score", team)][0] for team in (0, 1)]
    least = min(scores) / SCALES[_entries("teams.score")][0]
    assert max(scores) == 0 and least == pytest.approx(-MAX_SCORE, rel=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "fields,message",
    [
        ({"num_steps": MAX_COUNT + 1}, f"'num_steps': must be at most {MAX_COUNT}, got"),
        ({"hand_index": MAX_COUNT + 1}, f"'hand_index': must be at most {MAX_COUNT}, got"),
        ({"scores": [MAX_SCORE + 1, 0]}, f"'scores[0]': must be at most {MAX_SCORE}, got"),
        ({"scores": [0, -MAX_SCORE - 1]}, f"'scores[1]': must be at least {-MAX_SCORE}, got"),
    ],
)
def test_both_engines_refuse_a_state_past_the_bounds(backend, fields, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        _loaded(backend, **fields)
