"""Determinization (canasta_env.engine.determinize): a game consistent with one seat's view."""

from __future__ import annotations

import random
import re

import numpy as np
import pytest

from agents.base import Agent, RandomAgent, choose_action, play_hands
from canasta_env.actions import TAKE
from canasta_env.cards import NUM_KINDS, RED3
from canasta_env.compliance import conservation_errors, permute_hidden
from canasta_env.engine.determinize import determinize, hidden_pool
from canasta_env.engine.game import Game
from canasta_env.engine.state import PHASE_HAND_OVER, same_state, state_snapshot
from canasta_env.rules import PRESETS, make_rules
from canasta_env.state_io import state_from_dict, state_to_dict

#: Fields a seat sees (or that are public), which a determinization must keep.
PUBLIC_FIELDS = (
    "scores",
    "hand_index",
    "first_player",
    "current",
    "phase",
    "num_steps",
    "hand_totals",
    "known",
    "nat",
    "two",
    "jok",
    "closed",
    "red3",
    "opened",
    "need",
    "pot_known",
    "pot_hidden",
    "pot_wild",
    "held",
    "staged",
    "discarded",
    "declined",
    "since_discard",
    "hand_history",
)


def position_after_take(variant: str, players: int, seed: int) -> Game:
    """Random play until a player takes a pot of 3+ cards (so it holds known cards), then
    two more moves; the seat to act is then someone else or the taker's discard."""
    rng = random.Random(seed)
    game = Game(PRESETS[variant], players, seed=seed)
    while game.phase != PHASE_HAND_OVER:
        legal = game.legal_actions()
        takes = [a for a in legal if TAKE <= a <= TAKE + 3]
        if takes and len(game.pot) >= 3:
            game.apply(takes[0])
            while game.phase != PHASE_HAND_OVER and any(game.held):
                game.apply(rng.choice(game.legal_actions()))
            for _ in range(2):
                if game.phase != PHASE_HAND_OVER:
                    game.apply(rng.choice(game.legal_actions()))
            if any(map(any, game.known)) and game.phase != PHASE_HAND_OVER:
                return game
            continue
        game.apply(rng.choice(legal))
    raise AssertionError(f"no pot take in {variant} seed {seed}")


CASES = [("classic", 2, 1), ("classic", 4, 2), ("spanish", 2, 3), ("italian", 2, 4)]


@pytest.mark.parametrize("variant,players,seed", CASES)
def test_keeps_what_the_seat_sees(variant, players, seed):
    game = position_after_take(variant, players, seed)
    before = state_snapshot(game)
    seat = game.current
    world = determinize(game, seat, random.Random(7))
    assert same_state(game, game) and state_snapshot(game) == before  # the original is intact
    assert world.hands[seat] == game.hands[seat]
    for name in PUBLIC_FIELDS:
        assert getattr(world, name) == getattr(game, name), name
    face_down = game.pot_hidden
    assert world.pot[face_down:] == game.pot[face_down:]  # the face-up pot, in order
    assert len(world.stock) == len(game.stock)
    assert hidden_pool(world, seat) == hidden_pool(game, seat)  # the same hidden cards
    for other in range(players):
        assert world.hand_totals[other] == sum(world.hands[other])
        assert all(k <= h for k, h in zip(game.known[other], world.hands[other]))
        assert world.hands[other][RED3] == 0
    assert world.seed is None
    assert world.rng.getstate() != game.rng.getstate()  # later deals are not the true ones
    assert conservation_errors(world) == []


def test_known_cards_stay_with_their_holder():
    game = position_after_take("classic", 2, 1)
    seat = game.current
    other = 1 - seat
    if not any(game.known[other]):  # make the taker the other seat
        game = position_after_take("classic", 2, 5)
        seat, other = game.current, 1 - game.current
    assert any(game.known[other]), "precondition: the other seat holds known cards"
    for draw in range(10):
        world = determinize(game, seat, random.Random(draw))
        for kind in range(NUM_KINDS):
            assert world.hands[other][kind] >= game.known[other][kind]


def test_hidden_cards_actually_vary():
    """Positive control: the other hands, the stock and the face-down pot change."""
    game = position_after_take("spanish", 2, 3)
    seat = game.current
    other = 1 - seat
    hands = {tuple(determinize(game, seat, random.Random(k)).hands[other]) for k in range(10)}
    stocks = {tuple(determinize(game, seat, random.Random(k)).stock) for k in range(10)}
    assert len(hands) >= 8 and len(stocks) == 10
    assert tuple(game.hands[other]) not in hands or len(hands) > 1
    if game.pot_hidden:
        downs = {
            tuple(determinize(game, seat, random.Random(k)).pot[: game.pot_hidden])
            for k in range(10)
        }
        assert len(downs) > 1


@pytest.mark.parametrize("variant,players,seed", CASES)
def test_depends_only_on_what_the_seat_sees(variant, players, seed):
    """Two games that differ only in hidden cards give the same determinization."""
    game = position_after_take(variant, players, seed)
    seat = game.current
    twin = permute_hidden(game, seat, random.Random(11))
    hidden_differ = twin.stock != game.stock or any(
        twin.hands[s] != game.hands[s] for s in range(players) if s != seat
    )
    assert hidden_differ, "precondition: the twin's hidden cards differ"
    a = determinize(game, seat, random.Random(3))
    b = determinize(twin, seat, random.Random(3))
    assert same_state(a, b)


@pytest.mark.parametrize("variant,players,seed", CASES)
def test_valid_and_playable_to_the_end(variant, players, seed):
    game = position_after_take(variant, players, seed)
    world = determinize(game, game.current, random.Random(2))
    reloaded = state_from_dict(state_to_dict(world))  # every state_io check runs
    assert same_state(reloaded, world)
    rng = random.Random(0)
    while world.phase != PHASE_HAND_OVER:
        world.apply(rng.choice(world.legal_actions()))
    assert world.end_reason is not None and conservation_errors(world) == []


def test_bad_input_raises_and_changes_nothing():
    game = position_after_take("classic", 2, 1)
    before = state_snapshot(game)
    for seat in (-1, 2, "0", True):
        with pytest.raises(ValueError, match="seat must be an int"):
            determinize(game, seat, random.Random(0))
    assert state_snapshot(game) == before
    runs = Game(make_rules("spanish", sequences=True), 2, seed=0)
    world = determinize(runs, 0, random.Random(0))  # S-19: the suits are dealt too
    assert world.suits.hands[0] == runs.suits.hands[0] and conservation_errors(world) == []
    assert world.suits.hands[1] != runs.suits.hands[1]  # positive control (tests/test_redeal.py)


class _Recorder(Agent):
    """Plays randomly and keeps every world it is handed."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.worlds: list[tuple[Game, list[int]]] = []

    def see_world(self, world: Game) -> None:
        self.pending = world

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        world = self.pending
        self.worlds.append(world)
        legal = np.flatnonzero(action_mask)
        assert world.legal_actions() == legal.tolist()
        return int(legal[self.rng.randrange(len(legal))])


def test_runners_hand_a_determinization_never_the_true_game():
    recorder = _Recorder(seed=1)
    seen = []
    original = choose_action.__globals__["determinize"]

    def spy(game, seat, rng):
        world = original(game, seat, rng)
        seen.append((game, [h[:] for h in game.hands], seat, world))
        return world

    choose_action.__globals__["determinize"] = spy
    try:
        play_hands([recorder, RandomAgent(seed=2)], 1, "classic", seed=4)
    finally:
        choose_action.__globals__["determinize"] = original
    assert len(seen) == len(recorder.worlds) > 20
    differ = 0
    for (true_game, true_hands, seat, world), handed in zip(seen, recorder.worlds):
        assert handed is world and handed is not true_game and seat == 0
        assert world.hands[0] == true_hands[0]
        differ += world.hands[1] != true_hands[1]
    assert differ > len(seen) // 2  # positive control: the opponent's hand is not the truth


def test_choose_action_is_deterministic_given_the_seed():
    def actions(seed):
        recorder = _Recorder(seed=seed)
        game = Game(PRESETS["classic"], 2, seed=9)
        chosen = []
        for _ in range(30):
            mask = np.zeros(500, np.int8)
            mask[game.legal_actions()] = 1
            action = choose_action(recorder, game, np.zeros(686, np.float32), mask)
            chosen.append((action, tuple(recorder.worlds[-1].stock)))
            game.apply(action)
        return chosen

    assert actions(3) == actions(3)
    assert actions(3) != actions(4)


def test_openspiel_modules_name_the_extra_when_pyspiel_is_missing(monkeypatch):
    import importlib
    import sys

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel now fails
    for name in ("canasta_env.openspiel", "agents.openspiel_bot"):
        monkeypatch.delitem(sys.modules, name, raising=False)
        from canasta_env.extras import install_command

        said = re.escape(install_command("openspiel"))  # as this copy was installed
        with pytest.raises(ImportError, match=said):
            importlib.import_module(name)


def test_gym_env_hands_a_search_opponent_a_world_not_the_true_game():
    from canasta_env.gym_env import CanastaGymEnv

    class Watched(_Recorder):
        def act(self, observation, action_mask):
            truth.append((env.aec.game, [h[:] for h in env.aec.game.hands]))
            return super().act(observation, action_mask)

    truth: list = []
    recorder = Watched(seed=5)
    env = CanastaGymEnv(variant="classic", num_players=2, opponents=recorder, seat=0)
    env.reset(seed=11)
    for _ in range(40):
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if terminated or truncated:
            break
    assert len(recorder.worlds) == len(truth) > 10
    differ = 0
    for world, (game, hands) in zip(recorder.worlds, truth):
        assert world is not game
        assert world.hands[1] == hands[1]  # the opponent's own hand is kept
        differ += world.hands[0] != hands[0]
    assert differ > len(truth) // 2  # positive control: the learner's hand is redealt
