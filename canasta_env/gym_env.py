"""The Gymnasium single-agent env ``canasta_env/Canasta-v0``: one learner, opponents in between.

Usage::

    import gymnasium as gym
    import canasta_env  # registers "canasta_env/Canasta-v0"

    env = gym.make("canasta_env/Canasta-v0", variant="classic", num_players=2, opponents="expert")
    obs, info = env.reset(seed=7)
    done = False
    while not done:
        action = policy(obs["observation"], obs["action_mask"])
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

Gymnasium 1.x has no plugin discovery: the id is known once :mod:`canasta_env` is
imported (``gym.register_envs(canasta_env)`` says so to linters). Without the import,
name the module in the id and gymnasium imports it:
``gym.make("canasta_env:canasta_env/Canasta-v0", ...)``.

The env wraps the AEC env (:func:`canasta_env.raw_env`, itself wiring over a
:class:`~canasta_env.table.Table`): the learner's decisions come from ``step``; every
other seat is played by an opponent between them, which sees only its own seat's
observation and mask (``raw_env.observe(seat)``); a search opponent also gets a world
determinized for its seat from the table (``Table.choose_action``), never the true game.

Action Space
    ``Discrete(500)``, as the AEC env (table in :mod:`canasta_env.actions`).

Observation Space
    ``Dict(observation=Box(686,) float32, action_mask=Box(500,) int8)``: the AEC
    observation of the learner's seat to act, mask included. ``action_masks()``
    returns the mask as bools (sb3-contrib's MaskablePPO calls it); once the
    episode is over the mask is all zero.

Rewards
    The AEC env's reward of the learner's seat (``reward="score"`` or ``"win"``,
    ``reward_scale``). Rewards that arrive while opponents move (a hand they end)
    are added to the learner's next step, or to the last one: over an episode the
    learner receives exactly the AEC env's cumulative reward of its seat.

Episode End
    ``episode="hand"`` (default) or ``"game"``, as the AEC env; ``max_cycles``
    truncates after that many decisions of all seats. An illegal action:
    ``illegal_action="terminate"`` (default) ends the episode with
    ``illegal_reward`` (-1), as ``canasta_env.env()`` does (environment checkers
    step random actions, most of them illegal); ``"raise"`` raises
    :class:`~canasta_env.engine.IllegalActionError` and changes nothing. An id
    outside 0..499, or an opponent's illegal action, always raises; an opponent's
    error stops the episode (its move is not played): ``step`` then raises until
    ``reset``. At the end, ``info`` carries ``hand_scores``, ``scores`` and
    ``end_reason``. The returned dict is the caller's: the env judges the next action
    by its own copy of the mask.

Vector Envs and Autoreset
    ``gym.make_vec(ENV_ID, num_envs=N, ...)`` gives this id's own vector face
    (:mod:`canasta_env.gym_vector`: N tables in one object, ``SAME_STEP`` autoreset, no
    empty masks). Gymnasium's generic vector envs over this env
    (``vectorization_mode="sync"`` or ``"async"``, ``SyncVectorEnv``, ``AsyncVectorEnv``)
    autoreset in ``AutoresetMode.NEXT_STEP``: the step that ends a
    sub-env's episode returns its last observation, whose ``action_mask`` is all zero
    (no action is legal once the episode is over), and the vector env's next step
    ignores that sub-env's action and resets it. A masked sampler fed the batch as it
    comes (a categorical over ``where(mask, logits, -inf)``) then samples from a row
    with no legal action: NaN probabilities, an error or a garbage id. Wrap each sub-env
    in :class:`SafeMask` (``gym.make_vec(..., vectorization_mode="sync",
    wrappers=[SafeMask])``), or pass the
    batch's masks through :func:`valid_mask`: a mask with no legal action gets
    :data:`AUTORESET_ACTION` (``draw``, id 0) and nothing else. That id is harmless
    because the autoreset step never plays it, and id 0 is inside the action space
    for every variant. The transition across the reset is not a real one: drop it
    from the training batch, as for any NEXT_STEP vector env. A single env is not
    changed by this: ``step`` after the episode's end still raises until ``reset``.

Arguments
    ``variant``, ``num_players``, ``reward``, ``reward_scale``, ``episode``,
    ``max_cycles``, ``illegal_reward``, ``backend`` and rules fields as keywords (house
    rules) mean what they mean for :func:`canasta_env.env`, and are checked as it checks
    them: with ``learner`` and ``seat`` they make one frozen
    :class:`~canasta_env.options.LearnerOptions`, ``env.options``, which the AEC env
    (``env.aec``) is made with too.
    ``opponents``: None (default: a uniformly random legal action, drawn from the
    env's seeded generator), or one opponent for every other seat, or a sequence
    with one per other seat in seat order. An opponent is an agent name, an agent
    object (``act(observation, action_mask) -> int``, optional
    ``reset(seat, num_players, rules)`` called each episode and ``seed(seed)``
    called with a seed drawn from the reset seed) or a callable
    ``(observation, action_mask) -> action``. One agent object given for every seat
    plays them all; give one per seat to agents that remember their own hand.
    Names are resolved by the function an installed package declares in the
    ``canasta_env.agent_names`` entry-point group (this project's ``agents``
    declares ``agents.registry:make_agent``: "random", "greedy", "expert",
    "ppo:classic-2p", ...), one agent per seat. ``learner``: "team" (default: the
    learner plays every seat of its team, both partners at 4 players) or "seat".
    ``seat``: the learner's seat, or None (default) to draw it at each reset.
    ``render_mode``: "ansi", "rgb_array" (:func:`canasta_env.image.table_image`)
    or "human", always from the view of the learner's seat to act: no other hand
    is shown. Every bad argument raises ``ValueError`` naming it.

Seeding
    ``reset(seed=s)`` deals the cards that ``canasta_env.env().reset(seed=s)``
    deals (``info["deal_seed"]``) and draws the learner's seat and the opponents'
    seeds from ``s``. A deal whose hand ends before the learner's first decision
    (the rare hand over during the deal) is redealt with a seed drawn from the env's
    generator. ``options`` go to the AEC env's ``reset`` (``{"deck": ...}``). A seed
    that is not None or an integer (numpy integers are), or options the AEC env
    refuses, raise ``ValueError`` before anything changes: the episode goes on as if
    the call had not been made.

Version History
    v0: initial release.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path

import gymnasium as gym
import numpy as np

from canasta_env.actions import DRAW
from canasta_env.engine.game import IllegalActionError
from canasta_env.engine.state import team_of_seat
from canasta_env.env import action_index, raw_env
from canasta_env.options import (
    LEARNER_CHECKS,
    RULES_FIELDS,
    Check,
    LearnerOptions,
    check_options,
    face_arguments,
    is_integer,
    one_of,
)
from canasta_env.render import render_table
from canasta_env.rules import Rules, make_rules, unknown_fields_text
from canasta_env.table import MASK_DTYPE, SEED_BOUND

ENV_ID = "canasta_env/Canasta-v0"
#: The entry-point group of agent-name resolvers: ``NAME = "module:function"``, where
#: ``function(name, seed=None)`` returns an agent (``act``, optional ``reset`` / ``seed``).
AGENT_NAMES_GROUP = "canasta_env.agent_names"
GYM_RENDER_MODES = ("ansi", "rgb_array", "human")
#: Redeals tried at reset when the hand ends before the learner acts (it ends in the deal).
MAX_REDEALS = 100

#: The options this face adds to the AEC env's :data:`~canasta_env.env.OPTIONS` (its own
#: render modes: always the learner's view).
GYM_OPTIONS: dict[str, Check] = {
    **LEARNER_CHECKS,
    "render_mode": (
        f"one of {(None, *GYM_RENDER_MODES)}",
        lambda value: value is None or one_of(GYM_RENDER_MODES)(value),
    ),
}

Opponent = Callable[[np.ndarray, np.ndarray], object]

#: The one id :func:`valid_mask` sets in a mask with no legal action: ``draw``. Such a mask
#: only comes at an episode's end, and the vector env's autoreset step ignores the action.
AUTORESET_ACTION = DRAW


def valid_mask(mask: np.ndarray) -> np.ndarray:
    """The mask, or where it has no legal action a copy with only :data:`AUTORESET_ACTION`.

    ``mask``: one mask (500,) or a batch (..., 500), any dtype; a batch is fixed row by
    row. A mask with a legal action comes back as it is (the same array).
    """
    mask = np.asarray(mask)
    empty = ~mask.any(axis=-1)
    if not empty.any():
        return mask
    fixed = mask.copy()
    fixed[..., AUTORESET_ACTION] = np.where(empty, 1, fixed[..., AUTORESET_ACTION])
    return fixed


class SafeMask(gym.ObservationWrapper):
    """The env with :func:`valid_mask` applied to each observation's ``action_mask``: the
    all-zero mask at an episode's end becomes ``draw`` alone (see the module doc,
    Vector Envs and Autoreset). Wrap each sub-env of a vector env with it."""

    def observation(self, observation: dict) -> dict:
        return {**observation, "action_mask": valid_mask(observation["action_mask"])}


@functools.cache  # read once a process: scanning the installed packages takes milliseconds
def agent_name_resolver() -> Callable[..., object]:
    """The function that turns an agent name into an agent, from an installed plugin.

    It is the first (by entry-point name) of the ``canasta_env.agent_names`` group;
    canasta_env itself knows no agents. Raises ``ValueError`` when none is installed.
    """
    points = sorted(entry_points(group=AGENT_NAMES_GROUP), key=lambda point: point.name)
    if not points:
        raise ValueError(
            f"opponent names need an agent-name resolver, and no installed package declares "
            f"one in the {AGENT_NAMES_GROUP!r} entry-point group (this project declares "
            f"agents.registry:make_agent: reinstall it with pip install -e .); pass an agent "
            f"object (act(observation, action_mask)) or a callable "
            f"(observation, action_mask) -> action instead"
        )
    try:
        return points[0].load()
    except ImportError as error:
        raise ImportError(_shadowed_text(points[0].value, error)) from error


def _shadowed_text(target: str, error: ImportError) -> str:
    """Why ``target`` (``module:function``) did not import, naming the folder that hides
    its top-level package where canasta-env installs one of that name (``agents``) beside
    ``canasta_env`` and the module imported under that name is another (a user's own
    ``agents/`` in the script's folder or the current directory)."""
    top = target.split(":", 1)[0].split(".", 1)[0]
    installed = Path(__file__).resolve().parent.parent / top
    found = getattr(sys.modules.get(top), "__file__", None)
    text = f"the agent-name resolver {target} did not import: {error}"
    if found is None or not installed.is_dir() or installed in Path(found).resolve().parents:
        return text
    return (
        f"{text}. The {top!r} package imported is {found}, not canasta-env's ({installed}): "
        f"a folder named {top} in the script's folder or the current directory hides it; "
        f"run from another folder, or rename that folder"
    )


def opponent_list(opponents, others: int, env) -> list:
    """``opponents`` as one entry per other seat (``others`` of them): one opponent for
    every seat, or a sequence of ``others``; ``ValueError`` naming what is wrong. ``env``
    gives the message its table (``num_players``, ``options.learner``)."""
    if _is_opponent(opponents):
        given = [opponents] * others
    elif isinstance(opponents, Sequence):
        given = list(opponents)
        if len(given) != others:
            raise ValueError(
                f"opponents must be one opponent for every other seat or a sequence of "
                f"{others} (one per other seat at {env.num_players} players, "
                f"learner={env.options.learner!r}), got {len(given)}"
            )
    else:
        given = [opponents]
    for opponent in given:
        if not _is_opponent(opponent):
            raise ValueError(
                f"opponents: each opponent must be an agent name, an agent object with "
                f"act(observation, action_mask) or a callable (observation, action_mask) "
                f"-> action, got {opponent!r}"
            )
    return given


def check_keywords(face: Callable, rule_overrides: dict) -> None:
    """Refuse (``ValueError``) keywords of a single-learner face that are neither its
    arguments nor rules fields, suggesting the nearest of both."""
    unknown = set(rule_overrides) - RULES_FIELDS
    if unknown:
        own = face_arguments(face)
        raise ValueError(
            f"unknown argument(s) {unknown_fields_text(unknown, own)}; the env's own "
            f"arguments are {', '.join(own)}, the rest are rules fields"
        )


def _is_opponent(value) -> bool:
    return isinstance(value, str) or callable(getattr(value, "act", None)) or callable(value)


class CanastaGymEnv(gym.Env):
    """One learner against opponents, as a single-agent Gymnasium env (see the module doc)."""

    metadata = {"render_modes": list(GYM_RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        variant: str | Rules = "classic",
        num_players: int = 2,
        opponents=None,
        learner: str = "team",
        seat: int | None = None,
        reward: str = "score",
        reward_scale: float = 1000.0,
        episode: str = "hand",
        max_cycles: int | None = None,
        illegal_action: str = "terminate",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        backend: str | None = None,
        **rule_overrides,
    ):
        super().__init__()
        check_options({"render_mode": render_mode}, GYM_OPTIONS)
        check_keywords(CanastaGymEnv, rule_overrides)
        #: the checked options, the AEC env's own object: this face checks every action
        #: against the mask before the AEC env plays it (and ends the episode itself where
        #: ``illegal_action`` is "terminate"), so the AEC env never meets an illegal one
        self.options = LearnerOptions(
            rules=make_rules(variant, **rule_overrides),
            num_players=num_players,
            reward=reward,
            reward_scale=reward_scale,
            episode=episode,
            max_cycles=max_cycles,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            backend=backend,
            learner=learner,
            seat=seat,
        )
        self.aec = raw_env.from_options(self.options)
        self.num_players = self.options.num_players
        self.render_mode = render_mode
        self._opponent_specs = self._check_opponents(opponents)
        self.observation_space = self.aec.observation_space(self.aec.possible_agents[0])
        self.action_space = self.aec.action_space(self.aec.possible_agents[0])
        self._zero_mask = np.zeros(self.action_space.n, dtype=MASK_DTYPE)
        self._over = True
        self._mask = self._zero_mask  # the learner's legal actions now (never the caller's)
        self.opponents: dict[int, Opponent] = {}

    # -------------------------------------------------------------- opponents
    def _check_opponents(self, opponents) -> list | None:
        """One opponent per other seat (built agents for names), or None for random."""
        if opponents is None:
            return None
        given = opponent_list(opponents, self.num_players - len(self._seats_of(0)), self)
        return [
            (o, self._agent_by_name(o, None)) if isinstance(o, str) else (None, o) for o in given
        ]

    @staticmethod
    def _agent_by_name(name: str, seed: int | None):
        try:
            return agent_name_resolver()(name, seed=seed)
        except ValueError as error:
            raise ValueError(f"opponents: {error}") from error

    def _deal_opponents(self, rng: np.random.Generator) -> dict[int, Opponent]:
        """The opponents of this episode by seat, seeded and reset for it."""
        seats = [s for s in range(self.num_players) if s not in self.learner_seats]
        if self._opponent_specs is None:
            return {s: self._random_move for s in seats}
        rules = self.aec.rules
        opponents = {}
        for index, (s, (name, opponent)) in enumerate(zip(seats, self._opponent_specs)):
            seed = int(rng.integers(SEED_BOUND))
            if callable(getattr(opponent, "act", None)):
                if callable(getattr(opponent, "seed", None)):
                    opponent.seed(seed)
                elif name is not None:  # an agent without seed(): built again, seeded
                    opponent = self._agent_by_name(name, seed)
                    self._opponent_specs[index] = (name, opponent)
                if callable(getattr(opponent, "reset", None)):
                    opponent.reset(s, self.num_players, rules)
                if callable(getattr(opponent, "see_world", None)):  # a search agent
                    opponents[s] = functools.partial(self._search_move, opponent)
                else:
                    opponents[s] = opponent.act
            else:
                opponents[s] = opponent
        return opponents

    def _search_move(self, agent, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.aec.table.choose_action(agent, observation, action_mask)

    def _random_move(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.np_random.integers(len(legal))])

    # -------------------------------------------------------------- seats
    def _seats_of(self, seat: int) -> frozenset[int]:
        if self.options.learner == "seat":
            return frozenset((seat,))
        team = team_of_seat(self.num_players, seat)
        return frozenset(
            s for s in range(self.num_players) if team_of_seat(self.num_players, s) == team
        )

    def _choose_table(self, rng: np.random.Generator) -> None:
        """Hook run first at each reset: a subclass may switch ``self.aec`` here."""

    def _aec_over(self) -> bool:
        return self.aec.terminations[self._seat_name] or self.aec.truncations[self._seat_name]

    def _play_opponents(self) -> float:
        """Play the other seats until a learner seat must act or the episode ends; the
        learner's rewards meanwhile."""
        try:
            return self._opponents_moves()
        except BaseException:
            # the learner's move (or the deal) is played and an opponent's is not: the
            # episode cannot go on, and step() says so until reset()
            self._over, self._mask = True, self._zero_mask
            raise

    def _opponents_moves(self) -> float:
        aec = self.aec
        reward = 0.0
        # Not Table.play: the moves go through the AEC env, which books each seat's
        # rewards and the episode's end (the learner's reward is read from it).
        while not self._aec_over():
            name = aec.agent_selection
            seat = aec.agent_name_mapping[name]
            if seat in self.learner_seats:
                break
            obs = aec.observe(name)
            action = self.opponents[seat](obs["observation"], obs["action_mask"])
            index = action_index(action)
            if not obs["action_mask"][index]:
                raise IllegalActionError(
                    f"the opponent at seat {seat} chose the illegal action {index}; "
                    f"an opponent must pick an action of its mask"
                )
            aec.step(index)
            reward += aec.rewards[self._seat_name]
        return reward

    # -------------------------------------------------------------- gym API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        # every argument checked before anything changes: a refused reset leaves the env
        # as it was (the first deal's table is made here when a seed or options fix it)
        if seed is not None and not is_integer(seed):
            raise ValueError(f"seed must be None or an integer, got {seed!r}")
        seed = None if seed is None else int(seed)
        table, checked_by = None, self.aec
        if seed is not None or options:
            table = checked_by.table_for(0 if seed is None else seed, options)
        super().reset(seed=seed)
        self._over = True  # until the episode has begun: an opponent's error leaves it so
        rng = self.np_random
        for attempt in range(MAX_REDEALS):
            self._choose_table(rng)
            self.seat = (
                self.options.seat
                if self.options.seat is not None
                else int(rng.integers(self.num_players))
            )
            self.learner_seats = self._seats_of(self.seat)
            self.learner_team = team_of_seat(self.num_players, self.seat)
            self._seat_name = self.aec.possible_agents[self.seat]
            self.opponents = self._deal_opponents(rng)
            first = attempt == 0
            self.deal_seed = seed if first and seed is not None else int(rng.integers(SEED_BOUND))
            if first and seed is not None and self.aec is checked_by:
                self.aec.install(table)  # (unless _choose_table switched to another env)
            else:
                self.aec.reset(seed=self.deal_seed, options=options if first else None)
            self.decisions = 0
            self._reward_owed = self.aec.rewards[self._seat_name]  # a hand over in the deal
            self._reward_owed += self._play_opponents()
            if not self._aec_over():
                break
        else:
            raise RuntimeError(f"no deal in {MAX_REDEALS} in which the learner acts")
        self._over = False
        self._observe()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        """Play the learner's ``action``, then the opponents until the learner acts again.

        Rewards earned during the opponents' moves arrive with this step; an illegal action
        ends the episode with ``illegal_reward`` (``illegal_action="raise"`` raises instead).
        """
        if self._over:
            raise RuntimeError(
                "step() after the episode ended (or an opponent's error stopped it): call reset()"
            )
        aec = self.aec
        index = action_index(action)  # raises on anything that is not an id in 0..499
        acting = aec.agent_selection
        if not self._mask[index] and self.options.illegal_action == "terminate":
            self._over, self._mask = True, self._zero_mask
            self._last = {
                "observation": self._last["observation"].copy(),  # a new array per call
                "action_mask": self._zero_mask.copy(),
            }
            info = self._info()
            info["illegal_action"] = index
            reward = self._reward_owed + self.options.illegal_reward
            self._reward_owed = 0.0
            return self._observation(), reward, True, False, info
        aec.step(index)  # raises IllegalActionError with the reason; nothing changes
        self.decisions += 1
        reward = self._reward_owed + aec.rewards[self._seat_name]
        self._reward_owed = 0.0
        reward += self._play_opponents()
        terminated = any(aec.terminations.values())
        truncated = not terminated and any(aec.truncations.values())
        self._over = terminated or truncated
        self._observe(acting)
        if self.render_mode == "human":
            self.render()
        return self._observation(), float(reward), terminated, truncated, self._info()

    def _observe(self, last_acting: str | None = None) -> None:
        """The learner's view now: its seat to act, or at the end the seat that acted last."""
        aec = self.aec
        if self._over:
            self._viewer = last_acting or self._seat_name
        else:
            self._viewer = aec.agent_selection
        # observe() makes new arrays: the dict goes to the caller, the env judges the next
        # action by its own copy of the mask, which nothing the caller does can change
        self._last = aec.observe(self._viewer)
        self._mask = self._zero_mask if self._over else self._last["action_mask"].copy()

    def _observation(self):
        return self._last

    def _info(self) -> dict:
        info = {
            "seat": self.aec.agent_name_mapping[self._viewer],
            "learner_seats": sorted(self.learner_seats),
            "deal_seed": self.deal_seed,
        }
        if self._over:
            info.update(self.aec.infos[self._viewer])
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (bool, 500); all False once the episode is over."""
        return self._mask.astype(bool)

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode to the env")
            return None
        table = self.aec.table
        if table is None:
            raise RuntimeError("reset() must be called before render()")
        viewer = self.aec.agent_name_mapping[self._viewer]
        if self.render_mode == "rgb_array":
            from canasta_env.image import table_image  # Pillow, only for images

            return table_image(table.game, viewer=viewer)
        text = render_table(table.game, viewer=viewer, color=self.render_mode == "human")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None
