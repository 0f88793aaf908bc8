"""Saving and loading game states: round trips, continuation, and validation."""

from __future__ import annotations

import copy
import json
import random

import pytest

from canasta_env.actions import TAKE
from canasta_env.cards import cards_to_counts, deck_counts, kind_of_code, parse_cards
from canasta_env.engine.game import Game, IllegalActionError
from canasta_env.rules import PRESETS, make_rules
from canasta_env.state_io import (
    cards_text,
    load_state,
    save_state,
    state_from_dict,
    state_from_json,
    state_to_dict,
    state_to_json,
)

CASES = [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts]


def engine_view(game: Game) -> dict:
    """Every attribute of the game, with the helper objects replaced by comparable values."""
    view = {
        k: v
        for k, v in vars(game).items()
        if k
        not in (
            "tables",
            "search",
            "rng",
            "_legal",
            "_legal_moves",
        )
    }
    view["rng"] = game.rng.getstate()
    return view


def play(game: Game, rng: random.Random, steps: int, deal: bool = True) -> list[int]:
    """Play up to ``steps`` random legal actions (dealing new hands when ``deal``)."""
    actions = []
    for _ in range(steps):
        if game.hand_over:
            if game.game_over or not deal:
                break
            game.next_hand()
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append(action)
    return actions


def assert_same(loaded: Game, game: Game) -> None:
    assert set(vars(loaded)) == set(vars(game))
    assert engine_view(loaded) == engine_view(game)
    assert loaded.legal_actions() == game.legal_actions()


@pytest.mark.parametrize("variant,num_players", CASES)
def test_round_trip_during_random_play(variant, num_players):
    rules = make_rules(variant, target_score=2000)
    for seed in range(2):
        game = Game(rules, num_players, seed=seed)
        rng = random.Random(seed)
        for _ in range(40):
            data = state_to_dict(game)
            assert json.loads(json.dumps(data)) == data  # JSON-ready as it is
            loaded = state_from_dict(data)
            assert_same(loaded, game)
            assert state_to_dict(loaded) == data
            if game.game_over:
                break
            play(game, rng, rng.randint(1, 12))


@pytest.mark.parametrize("variant,num_players", CASES)
def test_continuing_a_loaded_game_is_identical(variant, num_players):
    """Same actions after loading give the same states, across later deals too."""
    game = Game(make_rules(variant), num_players, seed=11)
    play(game, random.Random(3), 25)
    loaded = state_from_json(state_to_json(game))
    rng_a, rng_b = random.Random(5), random.Random(5)
    for _ in range(500):
        a = play(game, rng_a, 10)
        b = play(loaded, rng_b, 10)
        assert a == b
        assert_same(loaded, game)
        if game.game_over or game.hand_index >= 2:
            break
    # at least one later shuffle was compared, unless a black-3 canasta won the first hand
    assert game.hand_index >= 1 or game.end_reason == "black-3 canasta"


def test_hand_over_and_game_over_states():
    rules = make_rules("classic", target_score=300)
    game = Game(rules, 2, seed=4)
    rng = random.Random(4)
    while not game.game_over:
        play(game, rng, 10_000, deal=False)
        loaded = state_from_dict(state_to_dict(game))
        assert loaded.hand_over and loaded.end_reason == game.end_reason
        assert_same(loaded, game)
        if not game.game_over:
            game.next_hand()
            loaded.next_hand()
            assert_same(loaded, game)
    with pytest.raises(IllegalActionError):
        loaded.next_hand()


def test_stacked_deck_and_file_io(tmp_path):
    deck = "AS AS AS 7S 2S JK 3S 3H " * 2
    game = Game(make_rules("spanish"), 4, seed="text seed", deck=deck)
    play(game, random.Random(0), 30)
    path = tmp_path / "state.json"
    save_state(game, path)
    loaded = load_state(path)
    assert_same(loaded, game)
    data = json.loads(path.read_text())
    assert data["format"] == "canasta-env/state" and data["seed"] == "text seed"


def test_readable_fields():
    game = Game(make_rules("classic"), 4, seed=1, deck="AS AS 7S 2S JK 3S 4S 4S 4S 4S 4S")
    data = state_to_dict(game)
    assert data["hands"][0] == "4S 4S 4S 4S 4S 7S AS AS 2S JK 3S"  # kind order
    assert data["phase"] == "draw" and data["current"] == 0
    stock = data["stock"].split()
    assert len(stock) == len(game.stock)
    assert [kind_of_code(code) for code in stock] == game.stock[::-1]  # next card first
    assert [kind_of_code(code) for code in data["pot"].split()] == game.pot  # bottom first
    assert data["melds"] == [{}, {}] and data["closed"] == [[], []]
    assert data["rules"]["name"] == "classic" and data["rules"]["player_counts"] == [2, 3, 4, 6]


def test_unseeded_game_round_trips():
    game = Game(make_rules("italian"), 2)
    play(game, random.Random(1), 20)
    assert_same(state_from_dict(state_to_dict(game)), game)


# ------------------------------------------------------------------ validation
def _base_state() -> dict:
    """A classic 4-player state in the meld phase with melds on the table."""
    game = Game(make_rules("classic"), 4, seed=2)
    rng = random.Random(2)
    while True:
        play(game, rng, 1, deal=False)
        if game.hand_over:
            game = Game(make_rules("classic"), 4, seed=rng.randint(0, 10**6))
            continue
        if any(any(row) for row in game.nat) and game.pot and game.phase == 1:
            return state_to_dict(game)


BASE = _base_state()


def _team_with_melds(data):
    return next(t for t, melds in enumerate(data["melds"]) if melds)


def _set(path, value):
    def mutate(data):
        target = data
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(key):
    def mutate(data):
        del data[key]

    return mutate


def _add_card_to_hand(data):
    data["hands"][1] += " AS"


def _drop_stock_card(data):
    data["stock"] = " ".join(data["stock"].split()[1:])


def _red3_in_hand(data):
    # move a red 3 from the count into the hand: conserves cards, but red 3s are never held
    data["hands"][0] += " 3H"


def _bad_meld(data):
    team = _team_with_melds(data)
    data["melds"][team]["7"] = {"naturals": 2, "twos": 2, "jokers": 2}


def _bad_slot(data):
    data["melds"][0]["Z"] = {"naturals": 3, "twos": 0, "jokers": 0}


def _meld_extra_key(data):
    team = _team_with_melds(data)
    slot = next(iter(data["melds"][team]))
    data["melds"][team][slot]["sevens"] = 1


def _closed_in_classic(data):
    data["closed"][0].append({"slot": "K", "naturals": 7, "twos": 0, "jokers": 0, "hidden": False})


def _hand_over_without_reason(data):
    data["phase"] = "hand over"


def _went_out_mid_hand(data):
    data["went_out"] = 0


def _history_entry(data):
    data["hand_history"].append({"hand": 0, "reason": "went out", "scores": [10, 20]})


def _scores(data):
    data["scores"] = [100, 0]


def _rng_garbage(data):
    data["rng"]["internal"] = [1, 2, 3]


def _known_not_held(data):
    data["known"][2] = "JK JK JK JK JK"


def _pot_known(data):
    data["pot_known"] = data["pot_known"] + " JK"


def _unknown_rules_field(data):
    data["rules"]["jokers"] = 4


def _need(data):
    data["need"] = [15, 15]


CORRUPTIONS = [
    (_set(["format"], "canasta-env/other"), r"'format'.*canasta-env/state"),
    (_set(["version"], 2), r"'version'.*unsupported version 2"),
    (_delete("stock"), r"missing field\(s\) \['stock'\]"),
    (_set(["colour"], "blue"), r"unknown field\(s\) \['colour'\]"),
    (_set(["num_players"], "4"), r"'num_players'.*expected an integer"),
    (_set(["num_steps"], True), r"'num_steps'.*expected an integer"),
    (_set(["opened"], [1, 0]), r"'opened\[0\]'.*true or false"),
    (_set(["hands"], ["AS"] * 3), r"'hands'.*expected 4 entries"),
    (_set(["num_players"], 5), r"'num_players'.*played by \[2, 3, 4, 6\] players, not 5"),
    (_set(["current"], 4), r"'current'.*at most 3"),
    (_set(["current"], -1), r"'current'.*negative"),
    (_set(["phase"], "lunch"), r"'phase'.*'lunch'"),
    (_set(["red3"], [-1, 0]), r"'red3\[0\]'.*negative"),
    (_set(["pot_hidden"], 999), r"'pot_hidden'.*999 face-down"),
    (_set(["hands", 2], "AS ZZ"), r"'hands\[2\]'.*'ZZ'"),
    (_set(["stock"], 12), r"'stock'.*expected a string"),
    (_add_card_to_hand, r"card conservation violated for 'A': 9 in stock"),
    (_drop_stock_card, r"card conservation violated"),
    (_red3_in_hand, r"'hands\[0\]'.*red 3"),
    (_bad_meld, r"'melds\[\d\]\.7'.*not a legal classic meld"),
    (_bad_slot, r"'melds\[0\]'.*unknown meld slot 'Z'"),
    (_meld_extra_key, r"'melds\[\d\]\.\w+'.*unknown field\(s\) \['sevens'\]"),
    (_closed_in_classic, r"'closed\[0\]\[0\]'.*never close"),
    (_hand_over_without_reason, r"'end_reason'.*'hand over' but no end_reason"),
    (_went_out_mid_hand, r"'went_out'.*must be null while the hand is in the meld phase"),
    (_history_entry, r"'hand_history'.*expected 0 finished hand"),
    (_scores, r"'scores'.*not the sums of hand_history"),
    (_rng_garbage, r"'rng'.*random.Random"),
    (_known_not_held, r"'known\[2\]'.*not all in the hand"),
    (_pot_known, r"'pot_known'.*face-up part of the pot"),
    (_unknown_rules_field, r"'rules'.*unknown rules field\(s\) \['jokers'\]"),
    (_set(["rules", "num_decks"], "two"), r"'rules.num_decks'.*expected an integer"),
    (_set(["turn", "coffee"], 1), r"'turn'.*unknown field\(s\) \['coffee'\]"),
    (_set(["turn", "staged"], -5), r"'turn.staged'.*negative"),
    (_need, r"'need'.*opening minimums"),
    (_set(["end_reason"], "bored"), r"'end_reason'.*'bored'"),
    (_set(["winner_team"], 0), r"'winner_team'.*game is not over"),
    (
        _set(["public_history", "declined", 0, 3], -1),
        r"'public_history.declined\[0\]\[3\]'.*negative",
    ),
    (_set(["public_history", "discarded", 2], [0] * 13), r"'public_history.discarded\[2\]'.*14"),
    (
        _set(["public_history", "since_discard"], [[0] * 14] * 3),
        r"'public_history.since.*4 entries",
    ),
    (_set(["public_history", "since_discard", 1, 0], 99), r"'public_history.since_discard\[1\]'"),
    (_set(["public_history", "declined", 0, 0], 500), r"'public_history.declined'.*deck holds"),
    (_set(["public_history", "discarded", 0, 0], 500), r"'public_history.discarded'.*turns"),
    (_set(["public_history", "seen"], []), r"'public_history'.*unknown field\(s\) \['seen'\]"),
    (_set(["public_history"], [0]), r"'public_history'.*expected a mapping"),
]


@pytest.mark.parametrize("corrupt,message", CORRUPTIONS, ids=[m for _, m in CORRUPTIONS])
def test_malformed_states_raise(corrupt, message):
    data = copy.deepcopy(BASE)
    state_from_dict(copy.deepcopy(data))  # the base itself is fine
    corrupt(data)
    with pytest.raises(ValueError, match=message):
        state_from_dict(data)


def test_malformed_input_types():
    with pytest.raises(ValueError, match="expected a mapping"):
        state_from_dict([1, 2])
    with pytest.raises(ValueError, match="not valid JSON"):
        state_from_json("{nope")


def test_italian_has_no_black3_melds():
    game = Game(make_rules("italian"), 2, seed=0)
    data = state_to_dict(game)
    data["melds"][0]["B3"] = {"naturals": 3, "twos": 0, "jokers": 0}
    with pytest.raises(ValueError, match=r"'melds\[0\]\.B3'.*no black-3 melds"):
        state_from_dict(data)


def test_a_stuck_state_is_refused_unless_a_study_asks_for_it():
    """A hand that is not over where the player to act has no legal action."""
    data = state_to_dict(Game(make_rules("classic"), 2, seed=6))
    stock = data["stock"].split()
    stock.remove("3S")  # the deck holds four black 3s; move one to the top of the pot
    pot = data["pot"].split()
    data["pot"] = " ".join(stock + pot + ["3S"])
    data["pot_hidden"] = len(stock)
    data["pot_known"] = " ".join(pot + ["3S"])
    data["stock"] = ""  # no draw, and a black 3 blocks the pot
    stuck = state_from_dict(data, require_playable=False)  # a study tool's opt-out
    assert stuck.legal_actions() == []
    with pytest.raises(ValueError, match=r"'phase'.*seat 0 has no legal action"):
        state_from_dict(data)  # refused by default: an agent would face an all-zero mask
    with pytest.raises(ValueError, match=r"'phase'.*seat 0 has no legal action"):
        state_from_json(state_to_json(stuck))


def _italian_take_state() -> dict:
    """Italian, hand 1, opening minimum 90 (not a clean opening at the start of the turn).

    Seat 1 may take the pot (Q on top) with its two queens; the take makes the
    opening clean-only (I-7, I-10), and the hand then holds no clean opening.
    """
    rules = make_rules("italian")
    data = state_to_dict(Game(rules, 2, seed=0))
    hands = [
        "4S 4S 5S 5S 6S 6S 7S 7S 8S 8S TS TS JS JS 3S",
        "QS QS 9S 9S AS AS 2S 2S 4S 5S 6S 7S 8S KS 3S",
    ]
    pot = "KS 4S QS"
    deck = deck_counts(rules.decks_for(2), rules.jokers_per_deck)
    used = cards_to_counts(parse_cards(" ".join(hands) + " " + pot + " KS"))
    rest = [total - n for total, n in zip(deck, used, strict=True)]
    data.update(
        hand_index=1,
        first_player=1,
        current=1,
        scores=[3100, 3100],
        need=[90, 90],
        hand_history=[{"hand": 0, "reason": "went out", "scores": [3100, 3100]}],
        hands=hands,
        pot=pot,
        pot_hidden=0,
        pot_known=pot,
        pot_wild=False,
        pot_start_frozen=False,
        stock="KS " + cards_text(rest),
        red3=[0, 0],
        known=["", ""],
    )
    data["turn"]["clean_only"] = False
    return data


def test_engine_never_strands_after_an_italian_take():
    """I-7, I-10: only a dirty opening could follow Q Q + the top Q (need 90), so the take
    is not offered; every move that is offered leaves the player a legal move."""
    game = state_from_dict(_italian_take_state())
    assert TAKE not in game.legal_actions()
    for action in game.legal_actions():
        child = game.copy()
        child.apply(action)
        assert child.hand_over or child.legal_actions()
