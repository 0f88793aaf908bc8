"""Canasta as an OpenSpiel game: ``pyspiel.load_game("python_canasta")``.

Needs the optional extra (``pip install canasta-env[openspiel]``, open_spiel 2.0.2);
importing this module registers the game with pyspiel.

Parameters: ``variant`` (a preset name, default ``"classic"``) and ``players`` (2, 3,
4 or 6 where the preset allows, default 2). One episode is one hand.

* Chance: the deal is explicit. The first ``deck size`` moves are chance nodes, one
  per card of the deck order (draw order, as a stacked deck: the first block goes to
  the first player, and so on, then the pot and the stock); the outcomes of a node
  are the card kinds still left (:mod:`canasta_env.cards` ids 0..14) with probability
  left / cards left, so every deal is reachable with its true probability.
* Actions: our ids 0..499 (:mod:`canasta_env.actions`), legal ones from the exact
  mask; strings from :func:`~canasta_env.actions.action_to_str`.
* Observation tensor: our 686-float observation (:mod:`canasta_env.observation`) of
  the player, as the env gives it; observation string: the table as that player
  sees it (:func:`~canasta_env.render.render_table`).
* Information state string: perfect recall. Per player, one line at the deal (own
  hand, red 3s, face-up pot, hand sizes, stock size) and one line per move after it
  (the move's id, which every player sees, then the same facts again), so a player's
  private draws are in it. No information state tensor is provided: our observation
  is not a full history (it keeps counts, not the order of events), and a fixed-size
  tensor of the whole history would be far larger.
* Returns: when the hand ends, each player's team score minus the mean of the other
  teams' scores, / 1000 (the env's ``reward="score"``); they sum to zero.
* ``resample_from_infostate(player, sampler)``: a state in which every card the
  player cannot see is dealt again (:func:`~canasta_env.engine.determinize.determinize`),
  seeded from ``sampler``. Its information state string for that player equals the
  original's; its ``history()`` is empty (it is a position to search from, not a
  replayable deal), and the other players' lines hold only public facts.
"""

from __future__ import annotations

import random

import numpy as np

try:
    import pyspiel
except ImportError as error:  # the optional extra
    from canasta_env.extras import install_command

    raise ImportError(
        f"canasta_env.openspiel needs OpenSpiel: {install_command('openspiel')}"
    ) from error

from canasta_env.actions import NUM_ACTIONS, action_to_str
from canasta_env.cards import BLACK3, CARD_VALUES, KIND_NAMES, NUM_KINDS, RED3, deck_counts
from canasta_env.engine.game import Game
from canasta_env.observation import OBS_SIZE
from canasta_env.options import is_integer
from canasta_env.render import render_table
from canasta_env.rules import Rules, check_player_count, make_rules
from canasta_env.table import Table

GAME_NAME = "python_canasta"
#: Returns are score differences divided by this, like the env's ``reward_scale``.
RETURN_SCALE = 1000.0
_DEFAULTS = {"variant": "classic", "players": 2}

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Canasta (canasta-env)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=6,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=dict(_DEFAULTS),
)


def deck_size(rules: Rules, num_players: int) -> int:
    return sum(deck_counts(rules.decks_for(num_players), rules.jokers_per_deck))


def max_decisions(rules: Rules, num_players: int) -> int:
    """The engine's bound on the decisions of one hand (``4 x deck size + 1``)."""
    return 4 * deck_size(rules, num_players) + 1


def score_bound(rules: Rules, num_players: int) -> int:
    """A (loose) bound on the absolute hand score of one team under ``rules``."""
    counts = deck_counts(rules.decks_for(num_players), rules.jokers_per_deck)
    card_points = sum(
        max(CARD_VALUES[kind], abs(rules.black3_in_hand_penalty) if kind == BLACK3 else 0) * n
        for kind, n in enumerate(counts)
    ) * max(1, abs(rules.unopened_hand_penalty_factor))
    bonuses = [
        rules.clean_canasta_bonus,
        rules.dirty_canasta_bonus,
        rules.hidden_canasta_bonus,
        rules.wild_canasta_clean_bonus,
        rules.wild_canasta_dirty_bonus,
        *(value for _, clean, dirty in rules.rank_canasta_bonus for value in (clean, dirty)),
        rules.special_wild_canasta[2],
    ]
    canastas = sum(counts) // 3
    red3s = counts[RED3]
    red3 = max(abs(rules.red3_total(n)) for n in range(red3s + 1)) * max(map(abs, rules.red3_sign))
    counted = sum(abs(b) for _, b in rules.canasta_count_bonus)
    counted += sum(abs(b) for _, b in rules.clean_canasta_count_bonus)
    going_out = max(abs(rules.go_out_bonus), abs(rules.concealed_go_out_bonus))
    runs = canastas * abs(rules.royal_sequence_bonus) if rules.sequences else 0
    return card_points + canastas * max(map(abs, bonuses)) + red3 + counted + going_out + runs


class CanastaGame(pyspiel.Game):
    """One hand of Canasta under a preset, for ``players`` players."""

    def __init__(self, params: dict | None = None):
        params = {**_DEFAULTS, **(params or {})}
        rules = make_rules(str(params["variant"]))
        players = int(params["players"])
        check_player_count(rules, players)
        cards = deck_size(rules, players)
        bound = 2 * score_bound(rules, players) / RETURN_SCALE
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=NUM_KINDS,
            num_players=players,
            min_utility=-bound,
            max_utility=bound,
            utility_sum=0.0,
            max_game_length=cards + max_decisions(rules, players),
        )
        super().__init__(_GAME_TYPE, info, params)
        self.rules = rules
        self.players = players
        self.deck_size = cards

    def new_initial_state(self) -> CanastaState:
        return CanastaState(self)

    def state_from_engine(self, engine: Game) -> CanastaState:
        """A state at an engine position (no chance history: a position to search from)."""
        if engine.rules != self.rules or engine.num_players != self.players:
            raise ValueError("the engine game's rules or player count differ from this game's")
        state = CanastaState(self)
        state._dealt = list(range(self.deck_size))  # marks the deal as done
        state._start(Table.from_game(engine))
        return state

    def make_py_observer(self, iig_obs_type=None, params=None):
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        if iig_obs_type is not None and (
            iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
            or not iig_obs_type.public_info
        ):  # the observers give a player its own view: public and its private information
            raise ValueError(
                "only a player's own observation is supported (public_info=True, "
                f"private_info=SINGLE_PLAYER), got public_info={iig_obs_type.public_info}, "
                f"private_info={iig_obs_type.private_info}"
            )
        recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return _InfoStateObserver() if recall else _Observer()


class CanastaState(pyspiel.State):
    """A hand: the deal as chance nodes, then our engine."""

    def __init__(self, game: CanastaGame):
        super().__init__(game)
        self._rules = game.rules
        self._players = game.players
        self._left = deck_counts(game.rules.decks_for(game.players), game.rules.jokers_per_deck)
        self._dealt: list[int] = []
        self._table: Table | None = None  # deep copies copy the table's game only
        self._recall: list[list[str]] = [[] for _ in range(game.players)]

    # ------------------------------------------------------------------ engine access
    @property
    def engine(self) -> Game | None:
        """The engine game once the deal is complete (None during the deal)."""
        return None if self._table is None else self._table.game

    def _start(self, table: Table) -> None:
        self._table = table
        for player in range(self._players):
            self._recall[player].append("deal " + self._facts(player))

    def _facts(self, player: int) -> str:
        """What ``player`` sees change with a move, beyond the move itself."""
        game = self.engine
        hand = "".join(f"{n:x}" for n in game.hands[player])
        pot = "".join(f"{n:x}" for n in game.pot_known)
        return (
            f"hand {hand} red3 {game.red3} sizes {game.hand_totals} stock {len(game.stock)} "
            f"pot {pot}/{game.pot_hidden}"
        )

    # ------------------------------------------------------------------ OpenSpiel API
    def current_player(self) -> int:
        table = self._table
        if table is None:
            return pyspiel.PlayerId.CHANCE
        if table.hand_over:
            return pyspiel.PlayerId.TERMINAL
        return table.current

    def is_terminal(self) -> bool:
        return self._table is not None and self._table.hand_over

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._table.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sum(self._left)
        return [(kind, n / left) for kind, n in enumerate(self._left) if n]

    def _apply_action(self, action: int) -> None:
        if self._table is None:
            kinds = len(self._left)
            if not (is_integer(action) and 0 <= action < kinds):
                raise ValueError(f"a deal outcome is a kind of card 0..{kinds - 1}, got {action!r}")
            if not self._left[action]:
                raise ValueError(f"no {KIND_NAMES[action]} is left to deal")
            self._left[action] -= 1
            self._dealt.append(action)
            if not any(self._left):
                self._start(Table(self._rules, self._players, seed=0, deck=self._dealt))
            return
        self._table.step(action)
        for player in range(self._players):
            self._recall[player].append(f"{action} " + self._facts(player))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not (is_integer(action) and 0 <= action < len(KIND_NAMES)):
                raise ValueError(
                    f"a deal outcome is a kind of card 0..{len(KIND_NAMES) - 1}, got {action!r}"
                )
            return f"deal {KIND_NAMES[action]}"
        return action_to_str(action)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self._players
        return self._table.seat_rewards("score", RETURN_SCALE)

    def resample_from_infostate(self, player: int, probability_sampler) -> CanastaState:
        """A state consistent with what ``player`` knows (see the module docstring)."""
        if self._table is None:
            raise ValueError("resample_from_infostate needs the deal to be complete")
        seed = int(probability_sampler() * 2**53)
        return self.resample_with(player, random.Random(seed))

    def resample_with(self, player: int, rng: random.Random) -> CanastaState:
        """:meth:`resample_from_infostate` with a generator of our own (deterministic)."""
        game = self.get_game()
        world = self._table.world_for(player, rng)
        state = CanastaState(game)
        state._dealt = list(range(game.deck_size))
        state._table = Table.from_game(world)
        public = [line.split(" hand ", 1)[0] for line in self._recall[player]]
        state._recall = [
            list(self._recall[player]) if seat == player else ["public"] + public
            for seat in range(self._players)
        ]
        return state

    def __str__(self) -> str:
        if self._table is None:
            return f"dealing: {len(self._dealt)} of {self.get_game().deck_size} cards"
        return render_table(self.engine)


class _Observer:
    """The player's observation: our observation vector, and the table as it sees it."""

    def __init__(self):
        self.tensor = np.zeros(OBS_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: CanastaState, player: int) -> None:
        if state._table is None:
            self.tensor.fill(0.0)
            return
        self.tensor[:] = state._table.observation(player)

    def string_from(self, state: CanastaState, player: int) -> str:
        if state._table is None:
            return f"dealing, player {player}"
        return render_table(state.engine, viewer=player)


class _InfoStateObserver:
    """Perfect recall, as a string only (see the module docstring)."""

    def __init__(self):
        self.tensor = np.zeros(0, np.float32)
        self.dict = {}

    def set_from(self, state: CanastaState, player: int) -> None:
        pass

    def string_from(self, state: CanastaState, player: int) -> str:
        if state._table is None:
            return f"dealing, player {player}"
        return f"player {player}\n" + "\n".join(state._recall[player])


pyspiel.register_game(_GAME_TYPE, CanastaGame)

__all__ = ["GAME_NAME", "CanastaGame", "CanastaState", "RETURN_SCALE", "score_bound"]
