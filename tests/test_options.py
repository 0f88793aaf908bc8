"""One options object for every face (issue 46 item 3): the faces' shared keywords become one
checked, frozen :class:`~canasta_env.options.TableOptions` (``LearnerOptions`` for the
single-learner faces), which a face stores and passes down as it is."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

import canasta_env
from canasta_env.env import raw_env
from canasta_env.gym_env import CanastaGymEnv
from canasta_env.gym_vector import CanastaVectorEnv
from canasta_env.options import LearnerOptions, TableOptions
from canasta_env.rules import make_rules
from canasta_env.state_io import state_to_dict


def _vector_face(**kwargs):
    return CanastaVectorEnv(2, **kwargs)


def _vector_env(**kwargs):
    return canasta_env.vector_env(num_envs=2, **kwargs)


#: Each face by the keywords it takes of the table's options.
FACES = {
    "env": (canasta_env.env, None),
    "raw_env": (raw_env, None),
    "gym": (CanastaGymEnv, None),
    "vector_face": (_vector_face, None),
    "vector_env": (_vector_env, ("num_players", "reward", "reward_scale", "episode", "backend")),
}

BAD = [
    ({"num_players": "2"}, "num_players must be an integer, got '2'"),
    ({"reward": "points"}, "reward must be one of ('score', 'win'), got 'points'"),
    ({"reward_scale": 0}, "reward_scale must be a number in 1e-3..1e9, got 0"),
    ({"episode": "match"}, "episode must be one of ('hand', 'game'), got 'match'"),
    ({"max_cycles": 0}, "max_cycles must be a positive integer or None, got 0"),
    ({"illegal_action": "no"}, "illegal_action must be one of ('raise', 'terminate'), got 'no'"),
    ({"illegal_reward": float("nan")}, "illegal_reward must be a finite number, got nan"),
    ({"backend": "rust"}, "backend must be one of (None, 'core', 'python'), got 'rust'"),
    ({"num_players": 5}, "variant 'classic' is played by [2, 3, 4, 6] players, not 5"),
]  # fmt: skip


CASES = [
    pytest.param(face, kwargs, message, id=f"{face}-{next(iter(kwargs))}")
    for face, (_, takes) in FACES.items()
    for kwargs, message in BAD
    if takes is None or set(kwargs) <= set(takes)
]


@pytest.mark.parametrize(("face", "kwargs", "message"), CASES)
def test_a_bad_table_option_gives_the_same_message_from_every_face(face, kwargs, message):
    make, _ = FACES[face]
    with pytest.raises(ValueError) as error:
        make(**{"num_players": 2, "backend": "python", **kwargs})
    assert str(error.value) == message


def test_the_gymnasium_env_hands_its_options_object_to_its_aec_env():
    env = CanastaGymEnv(num_players=2, seat=1, reward="win", max_cycles=50, target_score=3000)
    assert isinstance(env.options, LearnerOptions)
    assert env.aec.options is env.options  # the very object: nothing listed again
    assert env.aec.rules is env.options.rules and env.aec.rules.target_score == 3000
    assert (env.options.seat, env.options.illegal_action) == (1, "terminate")


def test_the_vector_face_holds_the_single_envs_options():
    kwargs = dict(num_players=4, learner="seat", seat=2, reward_scale=500)
    single = CanastaGymEnv(variant="spanish", backend="python", **kwargs)
    vector = CanastaVectorEnv(3, variant="spanish", backend="python", **kwargs)
    assert vector.options == single.options
    assert vector.tables.rules is vector.options.rules
    venv = canasta_env.vector_env("spanish", 4, num_envs=2, house_rules={"sequences": True})
    assert venv.options.rules == make_rules("spanish", sequences=True)
    assert venv.tables.rules is venv.options.rules


@pytest.mark.parametrize(
    ("make", "typo", "suggested"),
    [
        (raw_env, "max_cycle", "max_cycles"),
        (CanastaGymEnv, "oponents", "opponents"),
        (CanastaVectorEnv, "num_env", "num_envs"),
        (CanastaVectorEnv, "batchd", "batched"),
    ],
)
def test_an_unknown_keyword_suggests_the_faces_own_arguments(make, typo, suggested):
    """The names an unknown keyword is matched against are the face's own signature: the
    vector face suggests ``num_envs`` and ``batched``, which the single env lacks."""
    with pytest.raises(ValueError, match=f"did you mean '{suggested}'") as error:
        make(**{typo: 1})
    assert suggested in str(error.value).split("; ", 1)[1]  # and lists it among its own


def test_the_options_object_checks_and_keeps_plain_values():
    rules = make_rules("classic")
    options = LearnerOptions(
        rules, num_players=np.int64(2), reward_scale=np.float32(10), seat=np.int8(1)
    )
    assert type(options.num_players) is int and type(options.seat) is int
    assert type(options.reward_scale) is float and options.backend in ("core", "python")
    with pytest.raises(ValueError, match=r"seat must be None or a seat 0\.\.1, got 2"):
        LearnerOptions(rules, num_players=2, seat=2)
    with pytest.raises(ValueError, match="rules must be a Rules object"):
        TableOptions("classic", num_players=2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.reward = "win"
    assert pickle.loads(pickle.dumps(options)) == options


def test_an_env_made_from_options_plays_as_one_made_from_keywords():
    options = TableOptions(make_rules("classic"), num_players=2, backend="python")
    from_options = raw_env.from_options(options)
    from_keywords = raw_env(num_players=2, backend="python")
    assert from_options.options == from_keywords.options
    for env in (from_options, from_keywords):
        env.reset(seed=5)
        for _ in range(40):
            env.step(int(np.flatnonzero(env.action_mask())[-1]))
    assert state_to_dict(from_options.game) == state_to_dict(from_keywords.game)
    with pytest.raises(ValueError, match="options must be a TableOptions"):
        raw_env.from_options({"num_players": 2})
    with pytest.raises(ValueError, match="render_mode must be one of"):
        raw_env.from_options(options, render_mode="rgb")
