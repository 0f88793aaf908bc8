"""The PettingZoo AEC environment ``canasta_v0``: wiring only.

Usage::

    import canasta_env
    env = canasta_env.env(variant="classic", num_players=4, render_mode="ansi")
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        done = termination or truncation
        action = None if done else policy(obs["observation"], obs["action_mask"])
        env.step(action)

Action Space
    ``Discrete(500)``, one layout for every preset (table in :mod:`canasta_env.actions`).

Observation Space
    ``Dict(observation=Box(686,) float32, action_mask=Box(500,) int8)`` from the
    observer's point of view (table in :mod:`canasta_env.observation.layout`). The
    mask is exact and never empty for the agent to act; other agents see an all-zero mask.

Rewards
    Given when a hand ends. ``reward="score"``: the team's hand score minus the
    mean hand score of the other teams, divided by ``reward_scale`` (1000).
    ``reward="win"``: +1 / 0 / -1 for the team with the highest / a tied / a
    lower score at the end of the episode (the hand, or the game's totals).

Episode End
    ``episode="hand"`` (default): one hand. ``episode="game"``: hands until a team
    reaches the preset's target score (G-7). ``max_cycles``: the episode is
    truncated after that many decisions. An illegal action: ``raw_env`` raises
    :class:`~canasta_env.engine.IllegalActionError` and changes nothing; ``env()``
    ends the episode with ``illegal_reward`` (-1) for the offender and 0 for the
    others (PettingZoo's TerminateIllegalWrapper semantics, reusing the mask the
    env already built).

Arguments
    ``variant`` ("classic", "canastone", "spanish", "italian" or a Rules object),
    ``num_players`` (2, 3, 4, 6; italian 2, 4), ``render_mode`` ("ansi", "human",
    "rgb_array"; see Rendering),
    ``reward``, ``reward_scale`` (1e-3..1e9, so that every reward is finite),
    ``episode``, ``max_cycles``,
    ``illegal_reward`` (finite), ``backend`` ("core": the compiled engine; "python":
    the Python engine; None, the default: the core where it is built, else the Python
    engine with a one-line warning saying why; both play the same game bit for bit,
    ``tests/test_core_parity.py``), and any rules field as a keyword (house rules):
    ``env(variant="spanish", target_score=5000)``. Each rules field is checked
    against its declared range (``canasta_env.rules.BOUNDS``); every bad argument
    raises ``ValueError`` naming it and what it may be (table in :data:`OPTIONS`).
    The options but ``render_mode`` are kept checked in one frozen object, ``env.options``
    (:class:`~canasta_env.options.TableOptions`); ``raw_env.from_options(options,
    render_mode)`` makes an env from one.
    ``reset(seed, options={"deck": "AS TH ..."})`` stacks the first cards of the
    deck in draw order; ``options={"state": {...}}`` loads a saved state. ``seed``
    is None, an integer or a string. ``step`` takes an int, a numpy integer or a
    0-d integer array (what ``Discrete(500).contains`` takes; a 1-element array is
    refused); anything else raises ``IllegalActionError`` (a ``ValueError``) and
    changes nothing. ``observe`` of an unknown agent raises ``UnknownAgentError``
    (a ``KeyError`` and a ``ValueError``) listing the agents.

Rendering
    The spectator's table, every hand face up (a debug view, not any player's):
    ``"ansi"`` returns it as text, ``"human"`` prints it (with colours) after every
    step, ``"rgb_array"`` returns a ``(768, 1024, 3)`` uint8 image
    (:func:`canasta_env.image.table_image`). For one player's view call
    ``render_table(env.game, viewer=seat)`` or ``table_image(env.game, viewer=seat)``.
    On the core ``env.game`` is a Python copy of the position, for reading; on the
    Python engine it is the game itself.

Version History
    v0: initial release. The observation grows only at its end, its prefix kept:
    449 entries, then 504 (S-19 runs block), then 686 (public history block).
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Mapping

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.env_logger import EnvLogger

from canasta_env.actions import NUM_ACTIONS, action_to_str
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.observation import HIGHS, LOWS
from canasta_env.options import (
    RULES_FIELDS,
    TABLE_CHECKS,
    Check,
    TableOptions,
    check_options,
    face_arguments,
    is_integer,
    one_of,
)
from canasta_env.rules import Rules, make_rules, unknown_fields_text
from canasta_env.table import MASK_DTYPE, Table

RENDER_MODES = ("human", "ansi", "rgb_array")
RESET_OPTIONS = ("deck", "state")
#: What ``step`` takes from a live agent: exactly what ``Discrete(NUM_ACTIONS).contains`` takes.
ACTION_TYPES = f"an int, a numpy integer or a 0-d integer array in 0..{NUM_ACTIONS - 1}"


def observation_space() -> spaces.Dict:
    """One player's observation space: the vector, each entry within the range its field of
    the layout declares (:data:`~canasta_env.observation.LOWS`, ``HIGHS``), and the mask."""
    return spaces.Dict(
        {
            "observation": spaces.Box(low=LOWS, high=HIGHS, dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=MASK_DTYPE),
        }
    )


class UnknownAgentError(KeyError, ValueError):
    """An agent name the env does not have: a ``KeyError``, as the dictionary lookup it
    replaces, and a ``ValueError``, as every other bad input."""

    def __str__(self) -> str:  # KeyError would quote the whole message
        return str(self.args[0])


#: The env's own arguments (the rest are rules fields): what each may be, and its test. All
#: but ``render_mode`` are the table's, checked by :class:`~canasta_env.options.TableOptions`.
OPTIONS: dict[str, Check] = {
    "render_mode": (
        f"one of {(None, *RENDER_MODES)}",
        lambda value: value is None or one_of(RENDER_MODES)(value),
    ),
    **TABLE_CHECKS,
}


class raw_env(AECEnv):
    """Canasta as a PettingZoo AEC environment; illegal actions raise.

    The hand is played on a :class:`~canasta_env.table.Table` (``self.table``, a new one
    at each reset) on ``self.backend``'s engine; ``self.game`` is its game, for reading.
    ``self.options`` holds the checked options (``rules``, ``num_players`` and ``backend``
    are its own, kept as attributes too).
    """

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "canasta_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        variant: str | Rules = "classic",
        num_players: int = 4,
        render_mode: str | None = None,
        reward: str = "score",
        reward_scale: float = 1000.0,
        episode: str = "hand",
        max_cycles: int | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        backend: str | None = None,
        **rule_overrides,
    ):
        check_options({"render_mode": render_mode}, OPTIONS)
        unknown = set(rule_overrides) - RULES_FIELDS
        if unknown:  # neither an argument nor a rules field: suggest the nearest of both
            own = face_arguments(raw_env)
            raise ValueError(
                f"unknown rules field(s) {unknown_fields_text(unknown, own)}; "
                f"the env's own options are {', '.join(own)}"
            )
        options = TableOptions(
            rules=make_rules(variant, **rule_overrides),
            num_players=num_players,
            reward=reward,
            reward_scale=reward_scale,
            episode=episode,
            max_cycles=max_cycles,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            backend=backend,
        )
        self._seat_options(options, render_mode)

    @classmethod
    def from_options(cls, options: TableOptions, render_mode: str | None = None) -> raw_env:
        """The env on options already checked: how a face over this one (the Gymnasium
        env) passes its own down, as they are."""
        if not isinstance(options, TableOptions):
            raise ValueError(f"options must be a TableOptions, got {options!r}")
        check_options({"render_mode": render_mode}, OPTIONS)
        env = cls.__new__(cls)
        env._seat_options(options, render_mode)
        return env

    def _seat_options(self, options: TableOptions, render_mode: str | None) -> None:
        super().__init__()
        #: the table's options, checked (:class:`~canasta_env.options.TableOptions`)
        self.options = options
        self.rules = options.rules
        self.num_players = options.num_players
        #: the engine the hands are played on: "core" or "python"
        self.backend = options.backend
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        obs_space = observation_space()
        self.observation_spaces = {name: obs_space for name in self.possible_agents}
        self.action_spaces = {name: spaces.Discrete(NUM_ACTIONS) for name in self.possible_agents}
        self.table: Table | None = None

    @property
    def game(self) -> Game | None:
        """The table's engine game (None before the first reset)."""
        return None if self.table is None else self.table.game

    def observation_space(self, agent):
        return self.observation_spaces[self.possible_agents[self._seat(agent)]]

    def action_space(self, agent):
        return self.action_spaces[self.possible_agents[self._seat(agent)]]

    def _seat(self, agent) -> int:
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise UnknownAgentError(
                f"unknown agent {agent!r}; the agents are {self.possible_agents}"
            ) from None

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | str | None = None, options: dict | None = None) -> None:
        self.install(self.table_for(seed, options))

    def table_for(self, seed: int | str | None = None, options: dict | None = None) -> Table:
        """The table ``reset(seed, options)`` deals, every argument checked (``ValueError``
        naming the bad one); the env is not changed. The single-agent faces call it before
        they change anything of their own, so a refused reset leaves them as they were."""
        if is_integer(seed):
            seed = int(seed)
        elif seed is not None and not isinstance(seed, str):
            raise ValueError(f"seed must be None, an integer or a string, got {seed!r}")
        if options is not None and not isinstance(options, Mapping):
            raise ValueError(
                f"options must be a dict with the keys {RESET_OPTIONS} or None, got {options!r}"
            )
        options = dict(options or {})
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:  # PettingZoo's api_test passes arbitrary options: warn, do not fail
            warnings.warn(
                f"ignoring unknown reset option(s) {sorted(map(str, unknown))}; "
                f"known: {RESET_OPTIONS}",
                stacklevel=2,
            )
        if "state" in options:
            from canasta_env.state_io import state_from_dict, state_from_json

            state = options["state"]
            game = state_from_json(state) if isinstance(state, str) else state_from_dict(state)
            if game.rules != self.rules or game.num_players != self.num_players:
                raise ValueError("the loaded state's rules or player count differ from the env's")
            table = Table.from_game(game, backend=self.backend)
        else:
            table = Table(
                self.rules,
                self.num_players,
                seed=seed,
                deck=options.get("deck"),
                backend=self.backend,
            )
        return table

    def install(self, table: Table) -> None:
        """Start the episode of ``table``, one that :meth:`table_for` made."""
        self.table = table
        self.agents = self.possible_agents[:]
        self.rewards = {name: 0.0 for name in self.agents}
        self._cumulative_rewards = {name: 0.0 for name in self.agents}
        self.terminations = {name: False for name in self.agents}
        self.truncations = {name: False for name in self.agents}
        self.infos = {name: {} for name in self.agents}
        self.num_moves = 0
        self._illegal_ended = False
        self._rewards_set = False
        self.agent_selection = self.possible_agents[table.current]
        if table.hand_over:  # a hand can end during the deal (rare)
            self._hand_ended()
            self._rewards_set = True
            self._accumulate_rewards()

    # ------------------------------------------------------------------ observe
    def observe(self, agent):
        seat = self._seat(agent)
        table = self.table
        if table is None:
            raise RuntimeError("reset() must be called before step() or observe()")
        live = not self.terminations.get(agent, True) and not self.truncations.get(agent, True)
        return table.view(seat, live)

    def action_mask(self) -> np.ndarray:
        """The current mask of the agent to act (a new array)."""
        if self.table is None:
            raise RuntimeError("reset() must be called before step() or observe()")
        return self.table.mask()

    # ------------------------------------------------------------------ step
    def step(self, action) -> None:
        table = self.table
        if table is None:
            raise RuntimeError("reset() must be called before step() or observe()")
        if not self.agents:
            raise RuntimeError("the episode is over and every agent has left; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action < NUM_ACTIONS:
            index = action  # the common case, checked without the general conversion
        else:
            index = action_index(action)  # raises on anything outside the action space
        try:
            table.step(index)  # an illegal action raises IllegalActionError; nothing changes
        except IllegalActionError:
            if self.options.illegal_action == "raise":
                raise
            legal = False
        else:
            legal = True
        # the action is accepted (or ends the episode): only now clear what the agent was owed
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_set:  # rewards are non-zero only on the step that ended a hand
            for name in self.rewards:
                self.rewards[name] = 0.0
            self._rewards_set = False
        if not legal:
            self._end_illegal(agent, action)
            return
        self.num_moves += 1
        if table.hand_over:
            self._hand_ended()
            self._rewards_set = True
            self._accumulate_rewards()
            if not self.terminations[agent]:  # episode="game": the next hand is dealt
                self.agent_selection = self.possible_agents[table.current]
        elif self.options.max_cycles is not None and self.num_moves >= self.options.max_cycles:
            self.truncations = {name: True for name in self.agents}
        else:
            self.agent_selection = self.possible_agents[table.current]
        if self.render_mode == "human":
            self.render()

    def _end_illegal(self, agent, action) -> None:
        EnvLogger.warn_on_illegal_move()
        self.infos[agent] = {"illegal_action": str(action)}
        self.terminations = {name: True for name in self.agents}
        self.rewards[agent] = self.options.illegal_reward
        self._illegal_ended = True
        self._rewards_set = True
        self._accumulate_rewards()

    def _hand_ended(self) -> None:
        table, options = self.table, self.options
        episode_over = table.episode_ends(options.episode)
        earned = table.seat_rewards(options.reward, options.reward_scale, options.episode)
        for name, seat in self.agent_name_mapping.items():
            if name in self.rewards:
                self.rewards[name] += earned[seat]
        for name in self.agents:
            self.infos[name] = table.outcome()
        if episode_over:
            self.terminations = {name: True for name in self.agents}
        else:
            table.next_hand()
            self.agent_selection = self.possible_agents[table.current]
            if table.hand_over:
                self._hand_ended()

    # ------------------------------------------------------------------ render
    def render(self):
        if self.render_mode is None:
            # PettingZoo's own envs warn and return None (its EnvLogger no longer has a helper)
            warnings.warn(
                "render() was called without a render_mode: pass render_mode "
                f"(one of {RENDER_MODES}) to the env",
                UserWarning,
                stacklevel=2,
            )
            return None
        if self.render_mode == "rgb_array":
            from canasta_env.image import table_image

            return table_image(self.game, viewer=None)
        from canasta_env.render import render_table

        text = render_table(self.game, viewer=None, color=self.render_mode == "human")
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass

    def action_string(self, action: int) -> str:
        return action_to_str(action)


def action_index(action) -> int:
    """The id of an action from outside the fast path: an int, a numpy integer or a 0-d
    integer array in range, as ``Discrete(NUM_ACTIONS).contains`` takes. Anything else
    (None, bools, floats, strings, arrays of other shapes) raises ``IllegalActionError``
    (a ``ValueError``) naming the action, as AssertOutOfBoundsWrapper would refuse it."""
    if action is None:
        raise IllegalActionError(f"a live agent must act: got action None; expected {ACTION_TYPES}")
    shape = getattr(action, "shape", ())
    index = None
    if not isinstance(action, (bool, np.bool_)) and shape == ():
        try:
            index = operator.index(action)
        except TypeError:
            pass
    if index is None:
        detail = f" (an array of shape {shape}: one action is one id)" if shape else ""
        raise IllegalActionError(
            f"action must be an integer id, got {action!r}{detail}; expected {ACTION_TYPES}"
        )
    if not 0 <= index < NUM_ACTIONS:
        raise IllegalActionError(f"action id {index} is outside 0..{NUM_ACTIONS - 1}")
    return index


class CanastaEnv(raw_env):
    """``raw_env`` that ends the episode on an illegal action instead of raising."""

    _has_reset = False  # set by the first reset (from_options skips __init__)

    def __init__(self, **kwargs):
        kwargs.setdefault("illegal_action", "terminate")
        super().__init__(**kwargs)

    def reset(self, seed=None, options=None):
        self._has_reset = True
        super().reset(seed=seed, options=options)

    def step(self, action):
        if not self._has_reset:
            raise RuntimeError("reset() must be called before step()")
        super().step(action)

    def observe(self, agent):
        if not self._has_reset:
            raise RuntimeError("reset() must be called before observe()")
        return super().observe(agent)


def env(**kwargs) -> CanastaEnv:
    """The environment users play: order checks and illegal-move termination built in.

    It behaves like ``raw_env`` wrapped in PettingZoo's TerminateIllegalWrapper
    (illegal_reward -1), AssertOutOfBoundsWrapper and OrderEnforcingWrapper, but
    checks the action against the mask it already built instead of stacking
    wrappers that rebuild observations.
    """
    return CanastaEnv(**kwargs)
