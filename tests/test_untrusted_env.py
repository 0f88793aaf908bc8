"""Issue 21: the env's arguments, saved states and replay files from elsewhere.

``render()`` without a render_mode warns and returns None (on every PettingZoo the
project supports); ``reward_scale`` is bounded so that every reward is finite; a
saved state whose random generator could only ever deal one way (all its words
zero) is refused; a replay file that is huge, nested too deep, truncated or not
text, or that holds too many actions, raises one ``ValueError`` naming the file.
"""

from __future__ import annotations

import copy
import json
import math
import random
import re

import numpy as np
import pytest

import canasta_env
from canasta_env.engine.game import Game
from canasta_env.env import raw_env
from canasta_env.gym_env import CanastaGymEnv
from canasta_env.replay import MAX_REPLAY_ACTIONS, MAX_REPLAY_BYTES, MAX_REPLAY_HANDS, Replay
from canasta_env.rules import make_rules, parse_rule_overrides
from canasta_env.state_io import (
    load_state,
    save_state,
    state_from_dict,
    state_from_json,
    state_to_dict,
)
from canasta_env.state_io.layout import MAX_STATE_BYTES

CLASSIC = make_rules("classic")


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


# ---------------------------------------------------------------------- the saved generator
def _saved(seed: int = 1) -> dict:
    return state_to_dict(Game(CLASSIC, 2, seed=seed))


def _with_words(words: list[int], index: int = 624) -> dict:
    data = _saved()
    data["rng"]["internal"] = [*words, index]
    return data


ZERO_WORDS = [0] * 624
RNG_REFUSED = r"^invalid state: field 'rng\.internal': "


def test_a_saved_generator_loads_and_deals_as_the_original():
    game = Game(CLASSIC, 2, seed=1)
    loaded = state_from_dict(state_to_dict(game))
    assert loaded.rng.getstate() == game.rng.getstate()
    assert loaded.rng.random() == game.rng.random()


@pytest.mark.parametrize("index", [0, 1, 623, 624])
def test_an_all_zero_generator_is_refused_and_the_input_kept(index):
    data = _with_words(ZERO_WORDS, index)
    before = copy.deepcopy(data)
    with pytest.raises(
        ValueError,
        match=RNG_REFUSED
        + re.escape(
            "0 of the generator's 19,937 state bits are set (all zero: it would return 0 "
            "forever); a seeded generator has about half of them (8,000..12,000 accepted)"
        ),
    ):
        state_from_dict(data)
    assert data == before


def test_an_all_zero_generator_from_json_text_and_a_file_is_refused(tmp_path):
    text = json.dumps(_with_words(ZERO_WORDS))
    with pytest.raises(ValueError, match=RNG_REFUSED + "0 of"):
        state_from_json(text)
    path = tmp_path / "zero.state.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=re.escape(f"{path}: ") + RNG_REFUSED[1:] + "0 of"):
        load_state(path)


@pytest.mark.parametrize(
    ("words", "bits"),
    [
        # the low 31 bits of word 0 are no part of the state: zero forever after one word
        pytest.param([0x7FFFFFFF] + [0] * 623, "0", id="only-word-0-low-bits"),
        pytest.param([0x80000000] + [0] * 623, "1", id="one-bit"),
        pytest.param([0] * 300 + [1] + [0] * 323, "1", id="one-bit-mid"),
        pytest.param([0xFFFFFFFF] * 624, "19,937", id="all-ones"),
    ],
)
def test_a_generator_with_few_or_many_bits_set_is_refused(words, bits):
    with pytest.raises(ValueError, match=RNG_REFUSED + f"{bits} of the generator's"):
        state_from_dict(_with_words(words))


def test_the_degenerate_generators_are_degenerate():
    """What the refusals guard against: the twister from those states returns zeros."""
    for words in ([0] * 624, [0x7FFFFFFF] + [0] * 623, [0x80000000] + [0] * 623):
        rng = random.Random()
        rng.setstate((3, (*words, 624), None))
        assert [rng.getrandbits(32) for _ in range(1000)].count(0) > 990


def test_generators_of_many_seeds_are_well_inside_the_accepted_range():
    for seed in [*range(100), "lunch", 2**200, None]:
        rng = random.Random(seed)
        for _ in range(4):  # the seeded state, then after 1, 2 and 3 full regenerations
            words = rng.getstate()[1]
            bits = (words[0] >> 31) + sum(bin(word).count("1") for word in words[1:624])
            assert 9_500 <= bits <= 10_450
            rng.getrandbits(32 * 624)


def test_env_reset_with_a_zeroed_generator_changes_nothing():
    env = canasta_env.env(variant="classic", num_players=2)
    env.reset(seed=4)
    env.step(int(np.flatnonzero(env.action_mask())[0]))
    game, saved = env.unwrapped.game, state_to_dict(env.unwrapped.game)
    selection, moves = env.agent_selection, env.unwrapped.num_moves
    with pytest.raises(ValueError, match=RNG_REFUSED + "0 of"):
        env.reset(options={"state": _with_words(ZERO_WORDS)})
    assert env.unwrapped.game is game and state_to_dict(game) == saved
    assert (env.agent_selection, env.unwrapped.num_moves) == (selection, moves)
    env.reset(options={"state": _saved()})  # the positive control: a real state loads
    assert state_to_dict(env.unwrapped.game) == _saved()


# ---------------------------------------------------------------------- replay and state files
def _replay() -> Replay:
    game = Game(CLASSIC, 2, seed=7)
    rng = random.Random(7)
    actions = []
    for _ in range(30):
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    return Replay.from_game(game, actions)


def _refused(path, problem: str) -> str:
    """The one message of a refused file: its path, then the problem."""
    return "^" + re.escape(f"{path}: ") + problem


def test_a_saved_replay_loads(tmp_path):
    replay = _replay()
    path = tmp_path / "game.replay.json"
    replay.save(path)
    assert Replay.load(path) == replay
    assert Replay.load(str(path)) == replay


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        pytest.param(
            b"[" * 200_000, r"invalid replay: not valid JSON \(nested too deeply\)$", id="deep"
        ),
        pytest.param(
            b"[" * 100 + b"]" * 100,
            r"invalid replay: nested deeper than 64 levels$",
            id="deeper-than-64",
        ),
        pytest.param(
            b'{"format": "canasta-env/replay", "version": 1, "actions": [[0, 12',
            r"invalid replay: not valid JSON \(Expecting ',' delimiter",
            id="truncated",
        ),
        pytest.param(
            b"\x80\x81{}",
            r"invalid replay: not valid JSON \(the bytes are not UTF-8, UTF-16 or UTF-32 text",
            id="not-utf8",
        ),
        pytest.param(b"", r"invalid replay: not valid JSON \(Expecting value", id="empty"),
    ],
)
def test_a_bad_replay_file_raises_one_value_error_naming_it(tmp_path, content, problem):
    path = tmp_path / "bad.replay.json"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=_refused(path, problem)):
        Replay.load(path)


def test_a_truncated_saved_replay_names_the_file(tmp_path):
    text = _replay().to_json()
    path = tmp_path / "cut.replay.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(ValueError, match=_refused(path, r"invalid replay: not valid JSON")):
        Replay.load(path)


def test_a_replay_file_larger_than_the_bound_is_refused_unread(tmp_path):
    path = tmp_path / "huge.replay.json"
    with open(path, "wb") as file:  # sparse: no disk space taken
        file.truncate(MAX_REPLAY_BYTES + 1)
    with pytest.raises(
        ValueError, match=_refused(path, re.escape("invalid replay: larger than 67,108,864 bytes"))
    ):
        Replay.load(path)


def test_a_replay_file_that_cannot_be_read_raises_value_error(tmp_path):
    for path in (tmp_path / "missing.replay.json", tmp_path):
        with pytest.raises(ValueError, match="^" + re.escape(f"cannot read replay {path}: ")):
            Replay.load(path)


def test_a_replay_with_too_many_actions_or_hands_is_refused():
    data = _replay().to_dict()
    data["actions"] = [[0] * (MAX_REPLAY_ACTIONS + 1)]
    data["action_texts"] = [[]]
    with pytest.raises(
        ValueError,
        match=re.escape(
            "invalid replay: field 'actions': 1,000,001 actions; a replay holds at most 1,000,000"
        ),
    ):
        Replay.from_dict(data)
    data["actions"] = [[] for _ in range(MAX_REPLAY_HANDS + 1)]
    with pytest.raises(
        ValueError,
        match=re.escape(
            "invalid replay: field 'actions': 100,001 hands; a replay holds at most 100,000"
        ),
    ):
        Replay.from_dict(data)


def test_replay_text_is_checked_for_depth_and_size():
    with pytest.raises(ValueError, match=r"^invalid replay: nested deeper than 64 levels$"):
        Replay.from_json("[" * 100 + "]" * 100)
    with pytest.raises(ValueError, match=r"^invalid replay: larger than 67,108,864 bytes$"):
        Replay.from_json(b" " * (MAX_REPLAY_BYTES + 1))


def test_a_saved_state_loads_and_a_bad_state_file_names_itself(tmp_path):
    game = Game(CLASSIC, 2, seed=3)
    path = tmp_path / "game.state.json"
    save_state(game, path)
    assert state_to_dict(load_state(path)) == state_to_dict(game)
    text = path.read_text(encoding="utf-8")
    path.write_text(text[:100], encoding="utf-8")
    with pytest.raises(ValueError, match=_refused(path, r"invalid state: not valid JSON")):
        load_state(path)
    path.write_bytes(b"[" * 200_000)
    with pytest.raises(ValueError, match=_refused(path, r"invalid state: not valid JSON")):
        load_state(path)
    with open(path, "wb") as file:
        file.truncate(MAX_STATE_BYTES + 1)
    with pytest.raises(
        ValueError, match=_refused(path, re.escape("invalid state: larger than 67,108,864 bytes"))
    ):
        load_state(path)
    missing = tmp_path / "missing.state.json"
    with pytest.raises(ValueError, match="^" + re.escape(f"cannot read state {missing}: ")):
        load_state(missing)


# ---------------------------------------------------------------------- --rule KEY=VALUE
def test_rule_overrides_read_json_values_and_words():
    assert parse_rule_overrides(["target_score=5000", "sequences=true", "x=abc"]) == {
        "target_score": 5000,
        "sequences": True,
        "x": "abc",
    }


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 200_000, "the value is nested too deeply"),
        ("[" * 100 + "]" * 100, "nested deeper than 64 levels"),
        ("1" * 5000, "Exceeds the limit (4300 digits) for integer string conversion"),
    ],
)
def test_a_rule_override_too_deep_or_too_long_raises_value_error(text, problem):
    with pytest.raises(
        ValueError, match="^" + re.escape(f"rule override 'target_score': {problem}") + "$"
    ):
        parse_rule_overrides([f"target_score={text}"])


def _stuck_state() -> dict:
    """Classic 2 players, seat 0 to draw with no stock and a black 3 on the pot: no
    legal action (tests/test_serialize.py builds the same)."""
    data = state_to_dict(Game(CLASSIC, 2, seed=6))
    stock = data["stock"].split()
    stock.remove("3S")
    pot = data["pot"].split()
    data["pot"] = " ".join(stock + pot + ["3S"])
    data["pot_hidden"] = len(stock)
    data["pot_known"] = " ".join(pot + ["3S"])
    data["stock"] = ""
    return data


@pytest.mark.parametrize("backend", ["python", "core"])
def test_a_saved_state_whose_player_to_act_has_no_move_is_refused_on_both_engines(backend):
    """Issue 44 (9): such a state loaded, and the player faced an all-zero mask."""
    stuck = _stuck_state()
    assert state_from_dict(stuck, require_playable=False).legal_actions() == []  # control
    env = canasta_env.env(variant="classic", num_players=2, backend=backend)
    env.reset(seed=4)
    saved = state_to_dict(env.unwrapped.game)
    for given in (stuck, json.dumps(stuck)):
        with pytest.raises(ValueError, match=r"'phase'.*seat 0 has no legal action"):
            env.reset(options={"state": given})
        assert state_to_dict(env.unwrapped.game) == saved  # nothing changed
    env.reset(options={"state": _saved()})  # the positive control: a playable state loads
    assert env.action_mask().any()
