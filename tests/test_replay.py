"""Replays: recording, saving, rebuilding bit for bit, and validation."""

from __future__ import annotations

import copy
import json
import random

import pytest

from canasta_env.actions import NUM_ACTIONS, str_to_action
from canasta_env.engine.game import Game
from canasta_env.replay import Replay, record, replay_game, replay_positions
from canasta_env.rules import PRESETS, make_rules
from canasta_env.state_io import state_to_dict

CASES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]


def play(game: Game, rng: random.Random, steps: int) -> list[int]:
    """Random legal actions over hands (flat list), dealing new hands as needed."""
    actions = []
    for _ in range(steps):
        if game.hand_over:
            if game.game_over:
                break
            game.next_hand()
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    return actions


def play_hands(game: Game, rng: random.Random, hands: int) -> list[int]:
    actions = []
    while game.hand_index < hands and not game.game_over:
        actions += play(game, rng, 50)
    return actions


@pytest.mark.parametrize("variant,num_players", CASES)
def test_replay_rebuilds_random_game_bit_for_bit(variant, num_players, tmp_path):
    rules = make_rules(variant, target_score=1500)
    game = Game(rules, num_players, seed=21)
    rng = random.Random(num_players)
    actions = play_hands(game, rng, 1) + play(game, rng, 15)
    replay = Replay.from_game(game, actions)
    assert replay.num_actions == len(actions) and replay.flat_actions() == actions
    assert len(replay.actions) == game.hand_index + 1
    path = tmp_path / "game.replay.json"
    replay.save(path)
    loaded = Replay.load(path)
    assert loaded == replay
    rebuilt = replay_game(loaded)
    assert state_to_dict(rebuilt) == state_to_dict(game)
    # both continue identically, later deals included
    more = play(game, random.Random(9), 200)
    assert play(rebuilt, random.Random(9), 200) == more
    assert state_to_dict(rebuilt) == state_to_dict(game)


def test_replay_dict_format():
    game = Game(make_rules("classic"), 2, seed=3)
    actions = play(game, random.Random(3), 5)
    data = Replay.from_game(game, actions).to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["format"] == "canasta-env/replay" and data["version"] == 1
    assert data["variant"] == "classic" and data["rules"]["name"] == "classic"
    assert data["num_players"] == 2 and data["seed"] == 3 and data["deck"] is None
    assert data["actions"] == [actions]
    assert data["action_texts"][0][0] == "draw"


def test_stacked_deck_replay():
    deck = ["AS", "AH", "AD", "7C", "2S", "JK", "3S", "3H"]
    game = Game(make_rules("italian"), 2, seed=8, deck=deck)
    actions = play(game, random.Random(8), 40)
    replay = Replay.from_game(game, actions, deck=deck)
    assert replay.to_dict()["deck"] == deck  # suits kept (the S-19 runs need them)
    again = Replay.from_json(replay.to_json())
    assert state_to_dict(replay_game(again)) == state_to_dict(game)


def test_S19_replay_with_runs_keeps_the_suits_of_a_stacked_deck():
    """S-19: a replay of a game with runs on rebuilds it bit for bit, suits and runs too."""
    deck = "AS AH AD 5H 6H 7H 8H 9H TH JH 4C 4D 5C 6C 8C".split()
    rules = make_rules("spanish", sequences=True)
    game = Game(rules, 2, seed=3, deck=deck)
    actions = [str_to_action(t) for t in ("draw", "meld A A A", "escala 5-J H")]
    for action in actions:
        game.apply(action)
    actions += play(game, random.Random(3), 30)
    replay = Replay.from_game(game, actions, deck=deck)
    again = replay_game(Replay.from_json(replay.to_json()))
    assert state_to_dict(again) == state_to_dict(game)
    assert again.escalas[0] == [(1, 1, 7)] and again.suits.hands == game.suits.hands


def test_record_flat_and_per_hand_lists():
    rules = make_rules("canastone")
    game = Game(rules, 3, seed=5)
    actions = play_hands(game, random.Random(5), 1) + play(game, random.Random(6), 3)
    flat = record(rules, 3, 5, actions)
    nested = record(rules, 3, 5, flat.actions)
    assert flat == nested and len(flat.actions) == 2
    assert state_to_dict(replay_game(flat)) == state_to_dict(game)
    # a prefix of the actions
    partial = replay_game(flat, steps=len(flat.actions[0]))
    assert partial.hand_over and partial.hand_index == 0


def test_replay_positions_are_every_deal_and_action_in_order():
    """The one replayer: a position for each deal and each action, in order, with the seat
    that was to act, the file's text, and the game at a prefix what replay_game rebuilds."""
    rules = make_rules("classic")
    game = Game(rules, 2, seed=11)
    actions = play_hands(game, random.Random(11), 1) + play(game, random.Random(12), 4)
    replay = record(rules, 2, 11, actions)
    first_hand = len(replay.actions[0])
    assert len(replay.actions) == 2
    seen, to_act = [], None
    for position, table in replay_positions(replay):
        seen.append(position)
        if position.action is not None:
            assert position.seat == to_act
        to_act = table.current
    assert [(p.hand, p.played, p.text) for p in seen if p.action is None] == [
        (0, 0, "deal of hand 1"),
        (1, first_hand, "deal of hand 2"),
    ]
    moves = [p for p in seen if p.action is not None]
    assert [p.action for p in moves] == replay.flat_actions()
    assert [p.text for p in moves] == [t for h in replay.to_dict()["action_texts"] for t in h]
    assert [p.played for p in moves] == list(range(1, replay.num_actions + 1))
    for steps in (0, 5, first_hand, first_hand + 1):
        prefix = replay_game(replay, steps=steps)
        again = Game(rules, 2, seed=11)
        for action in actions[:steps]:
            if again.hand_over:
                again.next_hand()
            again.apply(action)
        assert state_to_dict(prefix) == state_to_dict(again), steps


def test_from_game_after_next_hand_without_actions():
    rules = make_rules("classic")
    game = Game(rules, 4, seed=13)
    actions = play_hands(game, random.Random(13), 1)
    while not game.hand_over:
        actions += play(game, random.Random(len(actions)), 1)
    game.next_hand()
    replay = Replay.from_game(game, actions)
    assert replay.actions[-1] == [] and len(replay.actions) == game.hand_index + 1
    assert state_to_dict(replay_game(replay)) == state_to_dict(game)


def test_from_game_rejects_wrong_actions_and_unseeded_games():
    game = Game(make_rules("classic"), 2, seed=1)
    actions = play(game, random.Random(1), 10)
    with pytest.raises(ValueError, match="do not reproduce the game"):
        Replay.from_game(game, actions[:-1])
    with pytest.raises(ValueError, match="seed"):
        Replay.from_game(Game(make_rules("classic"), 2), [])


# ------------------------------------------------------------------ validation
def _base() -> dict:
    game = Game(make_rules("classic", target_score=50_000), 2, seed=4)
    rng = random.Random(4)
    actions = play_hands(game, rng, 1) + play(game, rng, 6)
    data = Replay.from_game(game, actions).to_dict()
    assert len(data["actions"]) == 2
    return data


BASE = _base()


def _set(key, value):
    def mutate(data):
        data[key] = value

    return mutate


def _delete(key):
    def mutate(data):
        del data[key]

    return mutate


def _action(hand, move, value, text=None):
    def mutate(data):
        data["actions"][hand][move] = value
        if text is not None:
            data["action_texts"][hand][move] = text

    return mutate


def _text(hand, move, text):
    def mutate(data):
        data["action_texts"][hand][move] = text

    return mutate


def _merge_hands(data):
    # hand 0's actions cut short: the next hand starts before hand 0 is over
    data["actions"][0] = data["actions"][0][:-1]
    data["action_texts"][0] = data["action_texts"][0][:-1]


def _second_step_illegal(data):
    # a discard at step 1 of a hand whose first move was a draw is legal only for held
    # kinds; play "take +2" at step 1 instead: never legal in the meld phase
    data["actions"][0][1] = 2
    data["action_texts"][0][1] = "take +2"


CORRUPTIONS = [
    (_set("format", "canasta-env/state"), r"'format'.*canasta-env/replay"),
    (_set("version", 7), r"'version'.*unsupported version 7"),
    (_delete("seed"), r"missing field\(s\) \['seed'\]"),
    (_set("comment", "hi"), r"unknown field\(s\) \['comment'\]"),
    (_set("seed", None), r"'seed'.*integer or a string"),
    (_set("seed", 1.5), r"'seed'.*integer or a string"),
    (_set("num_players", 5), r"'num_players'.*not 5"),
    (_set("variant", "spanish"), r"'variant'.*'spanish' disagrees"),
    (_set("deck", "AS KS"), r"'deck'.*list of card codes"),
    (_set("deck", ["AS", "XX"]), r"'deck'.*'XX'"),
    (_set("actions", "draw"), r"'actions'.*per-hand lists"),
    (_set("actions", []), r"'actions'.*at least one"),
    (_set("action_texts", [["draw"]]), r"'action_texts'.*same lengths"),
    (_action(0, 3, NUM_ACTIONS, "draw"), rf"step 3 \(hand 0, move 3\).*{NUM_ACTIONS} is outside"),
    (_action(0, 2, "draw"), r"step 2 \(hand 0, move 2\).*not an integer id"),
    (_action(0, 1, True), r"step 1 \(hand 0, move 1\).*not an integer id"),
    (_text(0, 0, "pass"), r"step 0 \(hand 0, move 0\): action_texts says 'pass'.*'draw'"),
    (_text(0, 0, "dance"), r"step 0 \(hand 0, move 0\): action_texts says 'dance'"),
    (_second_step_illegal, r"step 1 \(hand 0, move 1\): action 2 \('take \+2'\) cannot be played"),
    (_merge_hands, r"hand 1 starts at step \d+, but hand 0 is not over"),
]


@pytest.mark.parametrize("corrupt,message", CORRUPTIONS, ids=[m for _, m in CORRUPTIONS])
def test_malformed_replays_raise(corrupt, message):
    assert BASE["action_texts"][0][0] == "draw"
    replay_game(Replay.from_dict(copy.deepcopy(BASE)))  # the base itself is fine
    data = copy.deepcopy(BASE)
    corrupt(data)
    with pytest.raises(ValueError, match=message):
        replay_game(Replay.from_dict(data))


def test_a_bad_replay_stops_its_positions_at_the_step_with_the_one_error():
    """The positions before a bad step are yielded; the error is replay_game's, word for
    word (the browser answers it too)."""
    data = copy.deepcopy(BASE)
    _second_step_illegal(data)
    replay = Replay.from_dict(data)
    seen = []
    with pytest.raises(ValueError) as stopped:
        for position, _table in replay_positions(replay):
            seen.append(position)
    with pytest.raises(ValueError) as rebuilt:
        replay_game(replay)
    assert str(stopped.value) == str(rebuilt.value)
    assert str(rebuilt.value).startswith(
        "invalid replay: step 1 (hand 0, move 1): action 2 ('take +2') cannot be played: "
    )
    assert [p.played for p in seen] == [0, 1]


def test_illegal_flat_action_in_record():
    rules = make_rules("classic")
    with pytest.raises(ValueError, match=r"step 1 \(hand 0, move 1\): action 0 \('draw'\)"):
        record(rules, 2, 0, [0, 0])
    with pytest.raises(ValueError, match="not valid JSON"):
        Replay.from_json("[")
