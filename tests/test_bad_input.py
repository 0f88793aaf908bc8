"""Bad input gets a clear error and loses nothing.

Malformed action ids, unknown variants, fields, options and agents, wrongly typed
or out-of-range fields and options, bad seeds and malformed stacked decks raise
``ValueError`` (``IllegalActionError`` and ``UnknownAgentError`` are subclasses)
with a message that names the problem and what is allowed; after a failed step,
observe or reset the environment is exactly as before and goes on with a legal
action. The rules fields' own ranges are tested in ``test_rules_bounds.py``.
"""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

import canasta_env
from canasta_env.actions import DRAW, NUM_ACTIONS
from canasta_env.engine import IllegalActionError
from canasta_env.engine.state import state_snapshot
from canasta_env.env import UnknownAgentError, raw_env

BAD_ACTIONS = [
    pytest.param(NUM_ACTIONS, r"500 is outside 0\.\.499", id="out-of-range"),
    pytest.param(10**9, r"outside 0\.\.499", id="huge"),
    pytest.param(-1, r"-1 is outside", id="negative"),
    pytest.param(np.int64(NUM_ACTIONS), r"500 is outside", id="numpy-out-of-range"),
    pytest.param(np.int32(-3), r"-3 is outside", id="numpy-negative"),
    pytest.param(1.0, r"integer id, got 1\.0", id="float"),
    pytest.param(np.float32(0.0), r"integer id", id="numpy-float"),
    pytest.param(True, r"integer id, got True", id="bool"),
    pytest.param("draw", r"integer id, got 'draw'", id="string"),
    pytest.param(None, r"must act: got action None", id="None"),
    pytest.param(
        np.array([DRAW]),
        r"integer id, got array\(\[0\]\) \(an array of shape \(1,\): one action is one id\); "
        r"expected an int, a numpy integer or a 0-d integer array in 0\.\.499",
        id="one-element-array",
    ),
    pytest.param(
        np.array([[DRAW]]), r"got array\(\[\[0\]\]\) \(an array of shape \(1, 1\)", id="2d"
    ),
    pytest.param(np.array([], dtype=int), r"shape \(0,\)", id="empty-array"),
    pytest.param(np.array(0.0), r"integer id, got array\(0\.\)", id="0d-float-array"),
    pytest.param(np.bool_(True), r"integer id, got (np\.)?True", id="numpy-bool"),
    pytest.param(np.array(True), r"integer id, got array\(True\)", id="0d-bool-array"),
    pytest.param(np.array(NUM_ACTIONS), r"action id 500 is outside 0\.\.499", id="0d-out-of-range"),
    pytest.param([DRAW], r"integer id, got \[0\]", id="list"),
    pytest.param(1j, r"integer id, got 1j", id="complex"),
]
GOOD_ACTION_TYPES = [int, np.int64, np.int8, np.uint16, np.array, lambda a: np.array(a, np.uint8)]


def state(env) -> dict:
    """Everything a failed call must leave untouched (env bookkeeping and the game)."""
    raw = env.unwrapped
    game = raw.game
    return {
        "obs": {a: raw.observe(a)["observation"].tobytes() for a in raw.agents},
        "mask": {a: raw.observe(a)["action_mask"].tobytes() for a in raw.agents},
        "selection": raw.agent_selection,
        "agents": list(raw.agents),
        "rewards": dict(raw.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations),
        "truncations": dict(raw.truncations),
        "num_moves": raw.num_moves,
        "game": state_snapshot(game),
    }


def legal_step(env, rng: random.Random) -> None:
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(rng.choice(np.flatnonzero(mask).tolist())))


def started(make=raw_env, **kwargs):
    env = make(**{"variant": "classic", "num_players": 2, **kwargs})
    env.reset(seed=1)
    return env


# ---------------------------------------------------------------------------- action ids
@pytest.mark.parametrize(("action", "pattern"), BAD_ACTIONS)
def test_raw_env_rejects_malformed_action_and_continues(action, pattern):
    env = started()
    rng = random.Random(0)
    for _ in range(3):
        legal_step(env, rng)
    before = state(env)
    with pytest.raises(ValueError, match=pattern) as info:
        env.step(action)
    assert isinstance(info.value, IllegalActionError)
    assert state(env) == before
    legal_step(env, rng)
    assert env.unwrapped.num_moves == 4


def test_raw_env_rejects_masked_out_action_in_every_phase():
    env = started(num_players=4)
    rng = random.Random(2)
    for _ in range(40):
        mask = env.observe(env.agent_selection)["action_mask"]
        before = state(env)
        bad = int(rng.choice(np.flatnonzero(mask == 0).tolist()))
        with pytest.raises(IllegalActionError, match=rf"illegal action {bad} \("):
            env.step(bad)
        assert state(env) == before
        legal_step(env, rng)


@pytest.mark.parametrize("action", [None])
def test_env_rejects_none_with_value_error(action):
    env = started(canasta_env.env)
    before = state(env)
    with pytest.raises(ValueError, match="must act"):
        env.step(action)
    assert state(env) == before
    legal_step(env, random.Random(0))


def test_env_accepts_numpy_integer_actions():
    env = started(canasta_env.env)
    env.step(np.int64(DRAW))
    assert env.unwrapped.num_moves == 1
    env.step(np.int32(int(np.flatnonzero(env.unwrapped.action_mask())[0])))
    assert env.unwrapped.num_moves == 2


@pytest.mark.parametrize("make", [raw_env, canasta_env.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("convert", GOOD_ACTION_TYPES, ids=lambda c: getattr(c, "__name__", "u8"))
def test_integer_scalars_and_0d_integer_arrays_are_actions(make, convert):
    """What ``Discrete(500).contains`` takes is what ``step`` takes."""
    env = started(make)
    action = convert(DRAW)
    assert env.action_space(env.agent_selection).contains(action)
    env.step(action)
    assert env.unwrapped.num_moves == 1


def test_step_after_every_agent_left_says_to_reset():
    env = started(canasta_env.env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(int(np.flatnonzero(env.unwrapped.action_mask() == 0)[0]))
    for _ in env.agent_iter():
        env.step(None)
    assert env.agents == []
    with pytest.raises(
        RuntimeError, match=r"the episode is over and every agent has left; call reset\(\)"
    ):
        env.step(None)


def test_env_terminates_on_masked_out_action():
    env = started(canasta_env.env)
    bad = int(np.flatnonzero(env.unwrapped.action_mask() == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(bad)
    assert all(env.terminations.values())
    assert env.infos[env.agent_selection]["illegal_action"] == str(bad)


@pytest.mark.parametrize(("action", "pattern"), [p for p in BAD_ACTIONS if p.id != "None"])
def test_env_rejects_action_outside_the_space_without_ending(action, pattern):
    env = started(canasta_env.env)
    before = state(env)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=pattern):
            env.step(action)
    assert state(env) == before


@pytest.mark.parametrize("make", [raw_env, canasta_env.env], ids=["raw_env", "env"])
def test_failed_step_keeps_pending_reward(make):
    env = make(variant="classic", num_players=2, episode="game", target_score=100_000)
    env.reset(seed=0)
    rng = random.Random(0)
    while env.unwrapped.game.hand_index == 0:
        legal_step(env, rng)
    reward = env.last()[1]
    assert reward != 0, "the first hand's reward is pending for the next agent"
    before = state(env)
    with pytest.raises(ValueError):
        env.step(None)
    assert env.last()[1] == reward
    assert state(env) == before


# ---------------------------------------------------------------------------- construction
@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"variant": "klondike"}, r"unknown variant 'klondike'; choose one of"),
        ({"variant": "Classic"}, r"unknown variant 'Classic'"),
        (
            {"variant": "italian", "num_players": 3},
            r"'italian' is played by \[2, 4\] players, not 3",
        ),
        ({"variant": "italian", "num_players": 6}, r"not 6"),
        ({"variant": "classic", "num_players": 0}, r"not 0"),
        ({"variant": "classic", "num_players": "4"}, r"num_players must be an integer, got '4'"),
        ({"variant": "classic", "num_players": 4.0}, r"num_players must be an integer"),
        ({"variant": "classic", "num_players": True}, r"num_players must be an integer"),
        ({"variant": "classic", "targetscore": 100}, r"unknown rules field\(s\) \['targetscore'\]"),
        ({"variant": "spanish", "target_score": "5000"}, r"'target_score' expects int, got '5000'"),
        ({"variant": "spanish", "target_score": 5000.0}, r"'target_score' expects int"),
        ({"variant": "classic", "black3_melds": 1}, r"'black3_melds' expects bool, got 1"),
        ({"variant": "classic", "draw_count": True}, r"'draw_count' expects int, got True"),
        ({"variant": "classic", "name": 7}, r"'name' expects str"),
        ({"variant": "classic", "reward": "points"}, r"reward must be one of"),
        ({"variant": "classic", "episode": "match"}, r"episode must be one of"),
        ({"variant": "classic", "max_cycles": -5}, r"max_cycles must be a positive integer"),
        ({"variant": "classic", "max_cycles": 2.5}, r"max_cycles must be a positive integer"),
        ({"variant": "classic", "render_mode": "rgb"}, r"render_mode must be one of"),
    ],
)
def test_bad_construction_names_the_problem(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        canasta_env.env(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({"hand_size": 5}, r"hand_size"),
        ({"opening_table": "abc"}, r"opening_table"),
        ({"num_decks": 0}, r"num_decks"),
        ({"jokers_per_deck": -5}, r"jokers_per_deck"),
    ],
    ids=["tuple-field-int", "tuple-field-str", "zero-decks", "negative-jokers"],
)
def test_bad_field_value_names_the_field(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        env = canasta_env.env(variant="classic", num_players=2, **kwargs)
        env.reset(seed=0)


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"illegal_reward": NAN}, "illegal_reward must be a finite number, got nan"),
        ({"illegal_reward": -INF}, "illegal_reward must be a finite number, got -inf"),
        ({"illegal_reward": "-1"}, "illegal_reward must be a finite number, got '-1'"),
        ({"illegal_reward": True}, "illegal_reward must be a finite number, got True"),
        ({"illegal_reward": None}, "illegal_reward must be a finite number, got None"),
        ({"reward_scale": NAN}, "reward_scale must be a number in 1e-3..1e9, got nan"),
        ({"reward_scale": INF}, "reward_scale must be a number in 1e-3..1e9, got inf"),
        ({"reward_scale": -1}, "reward_scale must be a number in 1e-3..1e9, got -1"),
        ({"reward_scale": True}, "reward_scale must be a number in 1e-3..1e9, got True"),
        ({"max_cycles": True}, "max_cycles must be a positive integer or None, got True"),
        ({"max_cycles": 0}, "max_cycles must be a positive integer or None, got 0"),
        ({"num_players": None}, "num_players must be an integer, got None"),
        ({"reward": ["score"]}, "reward must be one of ('score', 'win'), got ['score']"),
        ({"episode": None}, "episode must be one of ('hand', 'game'), got None"),
        (
            {"render_mode": "rgb"},
            "render_mode must be one of (None, 'human', 'ansi', 'rgb_array'), got 'rgb'",
        ),
        (
            {"illegal_action": "ignore"},
            "illegal_action must be one of ('raise', 'terminate'), got 'ignore'",
        ),
        (
            {"variant": ["classic"]},
            "unknown variant ['classic']; choose one of "
            "['canastone', 'classic', 'italian', 'spanish'] or pass a Rules object",
        ),
        (
            {"max_cycle": 10},
            "unknown rules field(s) ['max_cycle'] (did you mean 'max_cycles'?); the env's own "
            "options are variant, num_players, render_mode, reward, reward_scale, episode, "
            "max_cycles, illegal_action, illegal_reward, backend",
        ),
        ({"backend": "rust"}, "backend must be one of (None, 'core', 'python'), got 'rust'"),
        (
            {"hand_size": [[2, 0], [3, 13], [4, 11], [6, 11]]},
            "rules field 'hand_size': cards must be an integer >= 1 (every player is dealt at "
            "least one card), got 0 in (2, 0)",
        ),
        (
            {"hand_size": [[2, 55], [3, 13], [4, 11], [6, 11]]},
            "rules fields 'hand_size', 'pot_face_down' and 'draw_count' do not fit the deck: "
            "the worst deal for 2 players takes 2 x 55 cards + 22 (4 red 3 replacements + 16 "
            "cards that cover the turned card + 1 turned card + 1 draw_count) = 132, and the "
            "deck has 108 (2 deck(s), 2 jokers each); with the other fields as they are it "
            "needs 'hand_size' >= 1 and <= 43 for 2 players",
        ),
        (
            {"jokers_per_deck": 1000},
            "rules field 'jokers_per_deck' must be an integer >= 0 and <= 255 (the observation "
            "counts the jokers of the deck in one byte), got 1000",
        ),
        (
            {"num_decks": 10**6},
            "rules field 'num_decks' must be an integer >= 1 and <= 8 (52-card decks; "
            "MAX_DECKS = 8), got 1000000",
        ),
        (
            {"opening_table": [[-(10**9), 15], [0, 300]]},
            "rules field 'opening_table': minimum must be an integer >= 0 and <= 255 (the "
            "observation stores it in one byte: OBSERVATION_BYTE_MAX = 255), got 300 in (0, 300)",
        ),
        (
            {"draw_count": 0},
            "rules field 'draw_count' must be an integer >= 1 and <= 255 (the observation "
            "stores it in one byte: OBSERVATION_BYTE_MAX = 255), got 0",
        ),
        (
            {"black3_meld_max_size": 8},
            "rules field 'black3_meld_max_size' must be an integer >= 0 and <= 7 (a black-3 "
            "meld is laid whole, and the action layout has black-3 melds of 3 to 7 cards), got 8",
        ),
        (
            {"target_score": 0},
            "rules field 'target_score' must be an integer >= 1 and <= 1000000 (points, at "
            "most MAX_POINTS = 1000000), got 0",
        ),
        (
            {"go_out_bonus": -100},
            "rules field 'go_out_bonus' must be an integer >= 0 and <= 1000000 (points; 0 for "
            "none, at most MAX_POINTS = 1000000), got -100",
        ),
    ],
    ids=lambda value: "-".join(map(str, value)) if isinstance(value, dict) else "",
)
@pytest.mark.parametrize("make", [raw_env, canasta_env.env], ids=["raw_env", "env"])
def test_bad_option_or_field_names_it_and_what_it_may_be(make, kwargs, message):
    with pytest.raises(ValueError) as info:
        make(**{"variant": "classic", "num_players": 2, **kwargs})
    assert str(info.value) == message


def test_numpy_integers_are_integer_options():
    env = raw_env(variant="classic", num_players=np.int64(2), max_cycles=np.int32(7))
    assert type(env.num_players) is int and env.num_players == 2
    assert type(env.options.max_cycles) is int and env.options.max_cycles == 7
    env.reset(seed=np.int64(3))
    assert type(env.game.seed) is int
    same = raw_env(variant="classic", num_players=2)
    same.reset(seed=3)
    assert state(env) == state(same)


def test_zero_reward_scale_is_rejected():
    with pytest.raises(ValueError, match="reward_scale"):
        canasta_env.env(variant="classic", num_players=2, reward_scale=0)


# ---------------------------------------------------------------------------- stacked decks
@pytest.mark.parametrize(
    ("deck", "pattern"),
    [
        ("AS KS ZZ", r"not a card code: 'ZZ'"),
        ("AS 1S", r"not a card code: '1S'"),
        ("AS 11H", r"not a card code: '11H'"),
        ("AS KX", r"not a card code: 'KX'"),
        ("JK JK JK JK JK", r"stacked deck has 1 more JK than the classic deck holds"),
        ("AS " * 9, r"stacked deck has 1 more A than the classic deck holds"),
        ("3H 3D 3H 3D 3H", r"more R3"),
        (["AS", 3], r"a stacked deck is a list of card codes"),
        ([99], r"a stacked deck is a list of card codes"),
    ],
)
def test_malformed_stacked_deck_names_the_problem_and_keeps_the_game(deck, pattern):
    env = started()
    rng = random.Random(4)
    legal_step(env, rng)
    before = state(env)
    with pytest.raises(ValueError, match=pattern):
        env.reset(seed=2, options={"deck": deck})
    assert state(env) == before, "a failed reset must keep the running game"
    legal_step(env, rng)
    env.reset(seed=2, options={"deck": "AS AH"})  # a good deck still works afterwards
    assert env.unwrapped.game.hands[0][10] >= 2


def test_more_jokers_than_a_spanish_deck_holds():
    env = canasta_env.env(variant="spanish", num_players=4)
    with pytest.raises(ValueError, match=r"9 more JK than the spanish deck holds"):
        env.reset(seed=0, options={"deck": "JK " * 17})
    env.reset(seed=0, options={"deck": "JK " * 8})
    assert env.unwrapped.game.hands[0][12] == 8


def test_non_sequence_deck_is_a_value_error():
    env = canasta_env.env(variant="classic", num_players=2)
    with pytest.raises(ValueError, match="stacked deck"):
        env.reset(seed=0, options={"deck": 5})


def test_unknown_reset_option_warns_and_is_ignored():
    env = canasta_env.env(variant="classic", num_players=2)
    with pytest.warns(UserWarning, match="ignoring unknown reset option"):
        env.reset(seed=0, options={"dek": "AS"})
    assert env.agents == ["player_0", "player_1"]


# ---------------------------------------------------------------------------- agents
@pytest.mark.parametrize("make", [raw_env, canasta_env.env], ids=["raw_env", "env"])
@pytest.mark.parametrize("agent", ["player_9", "player_2", 0, None, ["player_0"]])
def test_unknown_agent_names_it_and_lists_the_agents(make, agent):
    env = started(make)
    before = state(env)
    for query in (env.observe, env.observation_space, env.action_space):
        with pytest.raises(UnknownAgentError) as info:
            query(agent)
        assert str(info.value) == (
            f"unknown agent {agent!r}; the agents are ['player_0', 'player_1']"
        )
        assert isinstance(info.value, KeyError) and isinstance(info.value, ValueError)
    assert state(env) == before
    legal_step(env, random.Random(0))


# ---------------------------------------------------------------------------- reset
@pytest.mark.parametrize("make", [raw_env, canasta_env.env], ids=["raw_env", "env"])
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seed": 1.5}, "seed must be None, an integer or a string, got 1.5"),
        ({"seed": True}, "seed must be None, an integer or a string, got True"),
        ({"seed": [1]}, "seed must be None, an integer or a string, got [1]"),
        ({"seed": b"ab"}, "seed must be None, an integer or a string, got b'ab'"),
        (
            {"seed": 1, "options": "deck"},
            "options must be a dict with the keys ('deck', 'state') or None, got 'deck'",
        ),
        (
            {"seed": 1, "options": [("deck", "AS")]},
            "options must be a dict with the keys ('deck', 'state') or None, got [('deck', 'AS')]",
        ),
    ],
    ids=lambda value: "-".join(map(repr, value.values())) if isinstance(value, dict) else "",
)
def test_bad_seed_or_options_name_them_and_keep_the_game(make, kwargs, message):
    env = started(make)
    rng = random.Random(5)
    legal_step(env, rng)
    before = state(env)
    with pytest.raises(ValueError) as info:
        env.reset(**kwargs)
    assert str(info.value) == message
    assert state(env) == before
    legal_step(env, rng)


def test_string_seeds_stay_allowed_as_replays_use_them():
    env = started()
    env.reset(seed="table 7")
    assert env.unwrapped.game.seed == "table 7"
