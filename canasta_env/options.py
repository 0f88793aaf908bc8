"""The options of a table that every face takes, checked once: :class:`TableOptions`.

The AEC env (:func:`canasta_env.env`), the Gymnasium env, its vector face and
:func:`canasta_env.vector_env` take the same keywords (``num_players``, ``reward``,
``reward_scale``, ``episode``, ...). Each face turns its keywords into one of these frozen
objects (the single-learner faces into a :class:`LearnerOptions`, which adds ``learner`` and
``seat``), which checks every value with the message every face gives, and then passes it
down as it is: the Gymnasium env hands its object to the AEC env it wraps
(:meth:`canasta_env.env.raw_env.from_options`), the vector faces read theirs.
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from canasta_env.rules import Rules, check_player_count
from canasta_env.table import BACKENDS, EPISODE_MODES, REWARD_MODES, resolve_backend

ILLEGAL_ACTION_MODES = ("raise", "terminate")
LEARNER_MODES = ("team", "seat")
#: ``reward_scale``'s range. A hand's score difference is at most some 10**10 points even with
#: every house-rule bonus at ``MAX_POINTS`` and at least 1/5 of a point when not 0, so divided by
#: a scale in this range it stays a finite, normal float (5e-324 gave rewards of ``inf``).
MIN_REWARD_SCALE = 1e-3
MAX_REWARD_SCALE = 1e9
REWARD_SCALE_RANGE = "1e-3..1e9"
#: The keywords a face takes as house rules: the rules fields.
RULES_FIELDS = frozenset(field.name for field in dataclasses.fields(Rules))

#: An option's check: what it may be, in words, and its test.
Check = tuple[str, Callable[[object], bool]]


def is_integer(value) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))


def is_finite_number(value) -> bool:
    return (
        isinstance(value, numbers.Real)
        and not isinstance(value, (bool, np.bool_))
        and math.isfinite(value)
    )


def one_of(choices: tuple) -> Callable[[object], bool]:
    return lambda value: isinstance(value, str) and value in choices


#: The table's options, every face's, in the order they are checked.
TABLE_CHECKS: dict[str, Check] = {
    "num_players": ("an integer", is_integer),
    "reward": (f"one of {REWARD_MODES}", one_of(REWARD_MODES)),
    "reward_scale": (
        f"a number in {REWARD_SCALE_RANGE}",
        lambda value: is_finite_number(value) and MIN_REWARD_SCALE <= value <= MAX_REWARD_SCALE,
    ),
    "episode": (f"one of {EPISODE_MODES}", one_of(EPISODE_MODES)),
    "max_cycles": (
        "a positive integer or None",
        lambda value: value is None or (is_integer(value) and value >= 1),
    ),
    "illegal_action": (f"one of {ILLEGAL_ACTION_MODES}", one_of(ILLEGAL_ACTION_MODES)),
    "illegal_reward": ("a finite number", is_finite_number),
    "backend": (
        f"one of {(None, *BACKENDS)}",
        lambda value: value is None or one_of(BACKENDS)(value),
    ),
}

#: The options a table with one learner adds (the Gymnasium env and its vector face).
LEARNER_CHECKS: dict[str, Check] = {
    "learner": (f"one of {LEARNER_MODES}", one_of(LEARNER_MODES)),
    "seat": ("None or an integer seat", lambda value: value is None or is_integer(value)),
}


def check_options(values: Mapping[str, object], checks: Mapping[str, Check]) -> None:
    """Raise ``ValueError`` naming the first option of ``checks`` (in its order) that is in
    ``values`` and bad: ``"reward must be one of ('score', 'win'), got 'points'"``."""
    for name, (allowed, is_ok) in checks.items():
        if name in values and not is_ok(values[name]):
            raise ValueError(f"{name} must be {allowed}, got {values[name]!r}")


def face_arguments(face: Callable) -> tuple[str, ...]:
    """The named arguments of a face's constructor in order, ``**rule_overrides`` aside: the
    names an unknown keyword is matched against, besides the rules fields."""
    parameters = inspect.signature(face).parameters.values()
    return tuple(p.name for p in parameters if p.kind is not inspect.Parameter.VAR_KEYWORD)


@dataclass(frozen=True)
class TableOptions:
    """What a face's tables are played with, checked: the rules, the player count, the
    rewards, the episode, what an illegal action does, and the engine.

    Building one checks every value (``ValueError`` naming the first bad one, then the player
    count against the rules) and stores it as a plain Python value, ``backend`` resolved to
    the engine (:func:`~canasta_env.table.resolve_backend`: None is the core where it is
    built). ``rules`` is a checked :class:`~canasta_env.rules.Rules` (``make_rules``).
    """

    rules: Rules
    num_players: int = 4
    reward: str = "score"
    reward_scale: float = 1000.0
    episode: str = "hand"
    max_cycles: int | None = None
    illegal_action: str = "raise"
    illegal_reward: float = -1.0
    backend: str | None = None

    def __post_init__(self) -> None:
        check_options({name: getattr(self, name) for name in TABLE_CHECKS}, TABLE_CHECKS)
        if not isinstance(self.rules, Rules):
            raise ValueError(
                f"rules must be a Rules object (canasta_env.make_rules), got {self.rules!r}"
            )
        check_player_count(self.rules, int(self.num_players))
        plain = {
            "num_players": int(self.num_players),
            "reward_scale": float(self.reward_scale),
            "max_cycles": None if self.max_cycles is None else int(self.max_cycles),
            "illegal_reward": float(self.illegal_reward),
            "backend": resolve_backend(self.backend),
        }
        for name, value in plain.items():
            object.__setattr__(self, name, value)


@dataclass(frozen=True)
class LearnerOptions(TableOptions):
    """A table with one learner, the other seats played by opponents: the table's options,
    and ``learner`` ("team": every seat of the learner's team; "seat": one) and ``seat``
    (the learner's seat, or None to draw it at each reset)."""

    learner: str = "team"
    seat: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        check_options({"learner": self.learner, "seat": self.seat}, LEARNER_CHECKS)
        if self.seat is not None:
            if not 0 <= self.seat < self.num_players:
                raise ValueError(
                    f"seat must be None or a seat 0..{self.num_players - 1}, got {self.seat!r}"
                )
            object.__setattr__(self, "seat", int(self.seat))


__all__ = [
    "ILLEGAL_ACTION_MODES",
    "LEARNER_CHECKS",
    "LEARNER_MODES",
    "LearnerOptions",
    "REWARD_SCALE_RANGE",
    "TABLE_CHECKS",
    "TableOptions",
    "check_options",
    "face_arguments",
]
