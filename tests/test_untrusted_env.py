"""Issue 21: the env's arguments, saved states and replay files from elsewhere.

``render()`` without a render_mode warns and returns None (on every PettingZoo the
project supports); ``reward_scale`` is bounded so that every reward is finite; a
saved state whose random generator could only ever deal one way (all its words
zero) is refused; a replay file that is huge, nested too deep, truncated or not
text, or that holds too many actions, raises one ``ValueError`` naming the file.
"""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest

import canasta_env
from canasta_env.env import raw_env
from canasta_env.gym_env import CanastaGymEnv


def play_hand(env, seed: int = 3) -> dict[str, float]:
    """Random legal actions until the hand is over; each agent's summed reward."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        _, reward, termination, truncation, _ = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(env.action_mask()))))
    return totals


# ---------------------------------------------------------------------- render
def test_aec_render_without_render_mode_warns_and_returns_none():
    env = canasta_env.env(variant="classic", num_players=2)
    env.reset(seed=1)
    with pytest.warns(UserWarning, match=r"render\(\) was called without a render_mode"):
        assert env.render() is None


def test_raw_env_render_without_render_mode_warns_and_returns_none():
    env = raw_env(variant="classic", num_players=2)
    env.reset(seed=1)
    with pytest.warns(UserWarning, match=r"render_mode"):
        assert env.render() is None


def test_gym_render_without_render_mode_warns_and_returns_none():
    env = CanastaGymEnv(num_players=2)
    env.reset(seed=1)
    with pytest.warns(UserWarning, match=r"render\(\) without a render_mode"):
        assert env.render() is None


# ---------------------------------------------------------------------- reward_scale
@pytest.mark.parametrize("scale", [5e-324, 1e-300, 0.000999, 1.000001e9, 1e300])
@pytest.mark.parametrize("face", ["aec", "gym"])
def test_a_reward_scale_outside_its_range_is_refused(scale, face):
    make = canasta_env.env if face == "aec" else CanastaGymEnv
    with pytest.raises(
        ValueError, match=re.escape(f"reward_scale must be a number in 1e-3..1e9, got {scale!r}")
    ):
        make(num_players=2, reward_scale=scale)


@pytest.mark.parametrize("scale", [1e-3, 1e9])
def test_a_reward_scale_at_a_bound_plays_a_hand_with_finite_rewards(scale):
    totals = play_hand(canasta_env.env(variant="classic", num_players=2, reward_scale=scale))
    unscaled = play_hand(canasta_env.env(variant="classic", num_players=2, reward_scale=1))
    assert all(math.isfinite(reward) for reward in totals.values())
    assert any(reward != 0 for reward in unscaled.values())
    for agent, reward in totals.items():
        assert reward == pytest.approx(unscaled[agent] / scale, rel=1e-12)
        assert reward == 0 or abs(reward) >= 1e-300  # not subnormal


def test_the_smallest_reward_scale_of_the_gym_face_gives_finite_rewards():
    env = CanastaGymEnv(num_players=2, reward_scale=1e-3, seat=0)
    env.reset(seed=5)
    rng = random.Random(5)
    total, over = 0.0, False
    while not over:
        mask = env.action_masks()
        _, reward, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(mask).tolist()))
        assert math.isfinite(reward)
        total += reward
        over = terminated or truncated
    assert total != 0 and math.isfinite(total)
