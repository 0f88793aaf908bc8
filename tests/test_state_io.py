"""Loading state files from anywhere: bytes that are not text, nesting and numbers too
large for Python, and endings that contradict the scores. Each raises ``ValueError``
naming the field, leaves its input as it was, and builds no game.

``tests/test_serialize.py`` holds the round trips and the first list of malformed
fields; this file holds the inputs a file from an untrusted source may bring.
"""

from __future__ import annotations

import copy
import json
import math
import random
from pathlib import Path

import pytest

from canasta_env.engine.game import Game
from canasta_env.replay import Replay
from canasta_env.rules import MAX_COUNT, MAX_SCORE, make_rules
from canasta_env.state_io import (
    load_state,
    state_from_dict,
    state_from_json,
    state_to_dict,
    state_to_json,
)
from canasta_env.state_io.checks import CHECKS, GAME_CHECKS
from canasta_env.state_io.encode import cards_text

ROOT = Path(__file__).resolve().parent.parent
HUGE = 10**5000
CLASSIC = make_rules("classic")  # target score 5000


def _deal(seed: int = 1) -> dict:
    """The deal of a classic 2-player game: hand 0, seat 0 to draw."""
    return state_to_dict(Game(CLASSIC, 2, seed=seed))


def _hand_over(reason: str, seed: int = 0) -> dict:
    """The end of the first hand of a classic 2-player game, by ``reason``, team 0
    scoring more than 100 and more than team 1."""
    while True:
        game = Game(CLASSIC, 2, seed=seed)
        rng = random.Random(seed)
        while not game.hand_over:
            game.apply(rng.choice(game.legal_actions()))
        totals = [sheet["total"] for sheet in game.hand_scores]
        if game.end_reason == reason and totals[0] > max(100, totals[1]):
            return state_to_dict(game)
        seed += 1


def _as_third_hand(data: dict, earlier: list[list[int]]) -> dict:
    """``data`` (hand 0 of 2 players) as hand 2, after two hands that scored ``earlier``.

    Hand 2 is led by seat 0 like hand 0; the opening minimums follow the totals of
    the earlier hands, and in the draw phase so does the turn's clean-only flag.
    """
    data = copy.deepcopy(data)
    before = [sum(column) for column in zip(*earlier, strict=True)]
    this_hand = data["hand_history"]
    data["hand_index"] = 2
    data["hand_history"] = [
        {"hand": i, "reason": "went out", "scores": scores} for i, scores in enumerate(earlier)
    ] + [{**entry, "hand": 2} for entry in this_hand]
    data["scores"] = [b + s for b, s in zip(before, data["scores"], strict=True)]
    data["need"] = [CLASSIC.opening_minimum(score) for score in before]
    if data["phase"] == "draw":
        data["turn"]["clean_only"] = data["need"][0] <= CLASSIC.clean_opening_max_minimum
    return data


def _winning(data: dict, final: list[int]) -> dict:
    """The hand-over ``data`` as hand 2 of a game that ends on ``final`` totals."""
    totals = data["scores"]
    rest = [f - t for f, t in zip(final, totals, strict=True)]
    earlier = [[r // 2 for r in rest], [r - r // 2 for r in rest]]
    data = _as_third_hand(data, earlier)
    assert data["scores"] == final
    data["game_over"] = max(final) >= CLASSIC.target_score
    leaders = [team for team, total in enumerate(final) if total == max(final)]
    data["winner_team"] = leaders[0] if data["game_over"] and len(leaders) == 1 else None
    return data


def _raises(data: dict, message: str) -> None:
    """Loading raises ``message`` (a regular expression) and leaves ``data`` as it was."""
    before = copy.deepcopy(data)
    with pytest.raises(ValueError, match=message):
        state_from_dict(data)
    assert data == before


WENT_OUT = _hand_over("went out")
STOCK_OUT = _hand_over("stock exhausted")


# ------------------------------------------------------------------ the JSON text
@pytest.mark.parametrize(
    "text,message",
    [
        (b"\xff\xfe{", r"the bytes are not UTF-8, UTF-16 or UTF-32 text \(truncated data\)"),
        (b'{"format": "\xff"}', r"not UTF-8, UTF-16 or UTF-32 text \(invalid start byte\)"),
        ("[" * 200_000, r"^invalid state: not valid JSON \(nested too deeply\)$"),
        ('{"a": ' * 200_000, r"^invalid state: not valid JSON \(nested too deeply\)$"),
        ('{"hand_index": ' + "9" * 5000 + "}", r"not valid JSON \(an integer of 5000 digits\)"),
        ('{"hand_index": NaN}', r"not valid JSON \(NaN is not a JSON number\)"),
        ('{"hand_index": -Infinity}', r"not valid JSON \(-Infinity is not a JSON number\)"),
        (
            '{"version": 1, "version": 1}',
            r"not valid JSON \(duplicate key 'version' in one object\)",
        ),
        ('{"turn": {"staged": 0, "staged": 0}}', r"duplicate key 'staged' in one object"),
        ("{nope", r"^invalid state: not valid JSON \(Expecting property name"),
    ],
)
def test_text_that_is_not_a_json_state(text, message):
    with pytest.raises(ValueError, match=message):
        state_from_json(text)


def test_a_duplicated_key_is_refused_even_when_both_agree():
    text = state_to_json(Game(CLASSIC, 2, seed=1))
    doubled = text.replace('"num_steps": 0,', '"num_steps": 0,\n  "num_steps": 0,')
    assert doubled != text
    state_from_json(text)
    with pytest.raises(ValueError, match=r"duplicate key 'num_steps'"):
        state_from_json(doubled)


def test_a_file_that_is_not_text_raises_value_error(tmp_path):
    path = tmp_path / "state.json"
    path.write_bytes(b"\x80" + state_to_json(Game(CLASSIC, 2, seed=1)).encode())
    with pytest.raises(ValueError, match=r"not UTF-8, UTF-16 or UTF-32 text"):
        load_state(path)


def test_utf16_text_loads():
    game = Game(CLASSIC, 2, seed=1)
    loaded = state_from_json(state_to_json(game).encode("utf-16"))
    assert state_to_dict(loaded) == state_to_dict(game)


def _replay_dict() -> dict:
    game = Game(CLASSIC, 2, seed=3)
    rng = random.Random(3)
    actions = []
    for _ in range(5):
        actions.append(rng.choice(game.legal_actions()))
        game.apply(actions[-1])
    return Replay.from_game(game, actions).to_dict()


REPLAY_FIELDS = [
    (["version"], HUGE, r"'version': unsupported version an integer of 5001 digits; expected 1$"),
    (["seed"], HUGE, r"'seed': a seed has at most 4300 digits, got an integer of 5001 digits$"),
    (
        ["actions", 0, 0],
        HUGE,
        r"step 0 \(hand 0, move 0\): action an integer of 5001 digits is "
        r"outside 0..499$",
    ),
    (["deck"], ["Z" * 10**5], r"'deck': not a card code: 'ZZZZZZZZZZZZZZZZZ\.\.\.Z+' \(expected"),
    (["variant"], "x" * 10**5, r"'variant': 'xxxxxxxxxxxxxxxxx\.\.\.x+' disagrees with rules.name"),
    ([HUGE], 1, r"^invalid replay: unknown field\(s\) \[an integer of 5001 digits\]$"),
]


@pytest.mark.parametrize(
    "path,value,message", REPLAY_FIELDS, ids=[m[:30] for *_, m in REPLAY_FIELDS]
)
def test_a_replay_field_out_of_its_range(path, value, message):
    data = _replay_dict()
    Replay.from_dict(copy.deepcopy(data))
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ValueError, match=message):
        Replay.from_dict(data)


def test_a_replay_file_is_read_the_same_way():
    with pytest.raises(ValueError, match=r"^invalid replay: not valid JSON \(nested too deeply\)"):
        Replay.from_json("[" * 200_000)
    with pytest.raises(ValueError, match=r"^invalid replay: not valid JSON \(the bytes are not"):
        Replay.from_json(b"\xff\xfe{")


# ------------------------------------------------------------------ one field
def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


FIELDS = [
    # huge integers: the message says how long, never prints them
    (
        ["hand_index"],
        HUGE,
        rf"'hand_index': must be at most {MAX_COUNT}, got an integer of 5001 digits$",
    ),
    (["hand_index"], -HUGE, r"'hand_index': must not be negative, got an integer of 5001 digits"),
    (["current"], HUGE, r"'current': must be at most 1, got an integer of 5001 digits"),
    (["num_players"], HUGE, r"'num_players': must be at most 9007199254740991, got an integer"),
    (["version"], HUGE, r"'version': unsupported version an integer of 5001 digits: written by"),
    (["scores", 0], -HUGE, rf"'scores\[0\]': must be at least {-MAX_SCORE}, got an integer"),
    (["winner_team"], HUGE, r"'winner_team': must be at most 1, got an integer of 5001 digits"),
    (["rng", "version"], HUGE, rf"'rng.version': must be at most {MAX_COUNT}"),
    (
        ["rng", "gauss_next"],
        HUGE,
        r"'rng.gauss_next': expected null .*, got an integer of 5001 digits",
    ),
    (
        ["rules", "target_score"],
        HUGE,
        r"'rules.target_score': numbers must lie within "
        r"±9007199254740991, got an integer of 5001 digits",
    ),
    (["rules", "num_decks"], -HUGE, r"'rules.num_decks': numbers must lie within"),
    (
        ["rules", "hand_size"],
        [[2, HUGE]],
        r"'rules.hand_size': numbers must lie within "
        r"±9007199254740991, got \[\[2, an integer of 5001 digits\]\]",
    ),
    (["seed"], HUGE, r"'seed': a seed has at most 4300 digits, got an integer of 5001 digits"),
    (["public_history", "declined", 0, 0], HUGE, r"'public_history.declined\[0\]\[0\]': must be"),
    (
        ["melds", 0, "A"],
        {"naturals": HUGE, "twos": 0, "jokers": 0},
        rf"'melds\[0\].A.naturals': must be at most {MAX_COUNT}",
    ),
    # not finite, or a bool where a number goes
    (["hand_index"], math.nan, r"'hand_index': expected an integer, got nan"),
    (["num_steps"], math.inf, r"'num_steps': expected an integer, got inf"),
    (["hand_index"], 0.0, r"'hand_index': expected an integer, got 0.0"),
    (
        ["rng", "gauss_next"],
        math.nan,
        r"'rng.gauss_next': expected null .*, got nan",
    ),
    (["rng", "gauss_next"], -math.inf, r"'rng.gauss_next': expected null"),
    (["rng", "gauss_next"], True, r"'rng.gauss_next': expected null .*, got True"),
    (["hand_index"], True, r"'hand_index': expected an integer, got True"),
    (["scores"], [False, 0], r"'scores\[0\]': expected an integer, got False"),
    (["red3", 1], True, r"'red3\[1\]': expected an integer, got True"),
    (["turn", "staged"], False, r"'turn.staged': expected an integer, got False"),
    (["rules", "num_decks"], True, r"'rules.num_decks': expected an integer, got True"),
    (["seed"], True, r"'seed': expected an integer, a string or null, got True"),
    (["num_players"], 2.0, r"'num_players': expected an integer, got 2.0"),
    # negative counts
    (["pot_hidden"], -1, r"'pot_hidden': must not be negative, got -1"),
    (["num_steps"], -1, r"'num_steps': must not be negative, got -1"),
    (["need", 1], -50, r"'need\[1\]': must not be negative, got -50"),
    (
        ["melds", 0, "A"],
        {"naturals": -3, "twos": 0, "jokers": 0},
        r"'melds\[0\].A.naturals': must not be negative, got -3",
    ),
    (
        ["hand_history"],
        [{"hand": -1, "reason": "went out", "scores": [0, 0]}],
        r"'hand_history\[0\].hand': must not be negative, got -1",
    ),
    # format and version
    (
        ["format"],
        "canasta-env/replay",
        r"'format': expected 'canasta-env/state', got 'canasta-env/replay'",
    ),
    (["format"], None, r"'format': expected 'canasta-env/state', got None"),
    (
        ["version"],
        2,
        r"'version': unsupported version 2: written by a newer canasta-env \(this "
        r"one reads version 1 and older\)",
    ),
    (["version"], 0, r"'version': unsupported version 0; expected 1"),
    (["version"], "1", r"'version': unsupported version '1'; expected 1"),
    (["version"], True, r"'version': unsupported version True; expected 1"),
    (["version"], 1.0, r"'version': unsupported version 1.0; expected 1"),
    # unknown keys: listed short, whatever their type or number
    (["colour"], "blue", r"^invalid state: unknown field\(s\) \['colour'\]$"),
    ([HUGE], 1, r"^invalid state: unknown field\(s\) \[an integer of 5001 digits\]$"),
    (["rules", 7], 1, r"'rules': unknown rules field\(s\) \[7\]"),
    (["turn", "x" * 10**6], 1, r"'turn': unknown field\(s\) \['xxxxxxxxxxxxxxxxx\.\.\.x+'\]$"),
    # values that would be printed: printed short
    (
        ["seed"],
        _nested(200_000),
        r"'seed': expected an integer, a string or null, got \[\[\[\[\.\.\.\]\]\]\]$",
    ),
    (
        ["phase"],
        "lunch" * 10**5,
        r"'phase': expected one of \['draw', 'meld', 'hand over'\], got 'lunchlunch",
    ),
    (
        ["end_reason"],
        list(range(10**5)),
        r"'end_reason': expected null or one of \['went out', "
        r"'stock exhausted', 'black-3 canasta'\], got \[0, 1, 2, 3, 4, 5, \.\.\.\]$",
    ),
    (
        ["hands", 0],
        "Z" * 10**5,
        r"'hands\[0\]': not a card code: 'ZZZZZZZZZZZZZZZZZ\.\.\.Z+' "
        r"\(expected e.g. 'AS', 'TH', '2C', 'JK'\)$",
    ),
    (
        ["hand_scores"],
        [{1: 0, "total": 0}, {"total": 0}],
        r"'hand_scores\[0\]': a score sheet's keys are strings, got 1",
    ),
]


@pytest.mark.parametrize("path,value,message", FIELDS, ids=[m[:40] for *_, m in FIELDS])
def test_a_field_out_of_its_range(path, value, message):
    data = _deal()
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    others = copy.deepcopy({key: data[key] for key in data if key != path[0]})
    with pytest.raises(ValueError, match=message):
        state_from_dict(data)
    # left as it was (compared by identity where a value is too deep to copy)
    assert {key: data[key] for key in data if key != path[0]} == others
    assert target[path[-1]] is value


def test_missing_keys_are_named():
    data = _deal()
    del data["turn"]["took_pot"]
    _raises(data, r"'turn': missing field\(s\) \['took_pot'\]")
    data = _deal()
    del data["rng"]
    _raises(data, r"^invalid state: missing field\(s\) \['rng'\]$")


# ------------------------------------------------------------------ the end of a game
def test_a_winner_must_agree_with_the_totals():
    """Team 0 wins 5095 to 285; the file names team 1: it used to load and pay team 1."""
    data = _winning(copy.deepcopy(WENT_OUT), [5095, 285])
    assert state_from_dict(data).winner_team == 0
    data["winner_team"] = 1
    _raises(
        data, r"^invalid state: field 'winner_team': must be 0 for the totals \[5095, 285\], got 1$"
    )
    data["winner_team"] = None
    _raises(data, r"'winner_team': must be 0 for the totals \[5095, 285\], got None")


def test_a_tie_at_the_top_has_no_winner():
    final = [5100, 5100]
    data = _winning(copy.deepcopy(STOCK_OUT), final)
    assert state_from_dict(data).winner_team is None
    data["winner_team"] = 0
    _raises(
        data,
        r"'winner_team': must be null for the totals \[5100, 5100\] \(a tie at the top: no "
        r"winner\), got 0",
    )


def test_no_hand_is_dealt_after_a_team_reached_the_target():
    """History totals 5200 to 200, hand 2 in its draw phase: it used to load and play on."""
    playing = _as_third_hand(_deal(), [[2400, 100], [2400, 100]])
    assert state_from_dict(playing).legal_actions()
    data = _as_third_hand(_deal(), [[2600, 100], [2600, 100]])
    _raises(
        data,
        r"^invalid state: field 'hand_history': after hand 1 the totals were \[5200, 200\], "
        r"reaching the target score 5000, which ends the game, but hand 2 was dealt$",
    )


def test_no_hand_is_dealt_after_a_black3_win():
    data = _as_third_hand(_deal(), [[100, 100], [100, 100]])
    data["hand_history"][0]["reason"] = "black-3 canasta"
    _raises(data, r"'hand_history': hand 0 ended with a black-3 canasta, which ends the game")


def test_game_over_must_agree_with_the_scores_and_target():
    reached = _winning(copy.deepcopy(WENT_OUT), [5095, 285])
    reached.update(game_over=False, winner_team=None)
    _raises(
        reached, r"'game_over': must be true for scores \[5095, 285\] against the target score 5000"
    )
    not_reached = copy.deepcopy(WENT_OUT)
    not_reached.update(game_over=True, winner_team=0)
    _raises(not_reached, r"'game_over': must be false for scores \[\d+, -?\d+\] against the target")
    dealing = _deal()
    dealing["game_over"] = True
    _raises(dealing, r"'game_over': the game cannot be over in the draw phase")


def test_scores_are_always_the_sums_of_the_history():
    """The format has no start score: a game always starts at 0 to 0 (G-7), so totals
    without the hands that made them are refused."""
    data = _deal()
    data["scores"] = [1000, 0]
    _raises(data, r"'scores': \[1000, 0\] are not the sums of hand_history \(\[0, 0\]\)")


def test_a_stock_ending_leaves_too_few_cards_to_draw():
    data = copy.deepcopy(STOCK_OUT)
    hand = data["hands"][1].split()
    data["stock"] = hand.pop()
    data["hands"][1] = " ".join(hand)
    data["known"][1] = ""
    _raises(
        data,
        r"'end_reason': 'stock exhausted', but the stock holds 1 card\(s\) and a draw takes 1$",
    )


def test_a_black3_win_needs_the_rule_and_the_canasta():
    data = copy.deepcopy(STOCK_OUT)
    data["end_reason"] = data["hand_history"][-1]["reason"] = "black-3 canasta"
    _raises(data, r"'end_reason': 'black-3 canasta', but in classic a black-3 canasta wins nothing")
    data["rules"]["black3_canasta_wins_game"] = True
    _raises(
        data,
        r"'end_reason': 'black-3 canasta', but team \d \(of seat \d, who moved last\) "
        r"has no black-3 canasta",
    )


def test_score_sheets_are_those_of_the_table():
    """A hand's scores are recomputed from the table, so a file cannot move points."""
    data = copy.deepcopy(WENT_OUT)
    for sheet in (data["hand_scores"][0], data["hand_history"][-1]["scores"]):
        if isinstance(sheet, dict):
            sheet["going_out"] += 100
            sheet["total"] += 100
        else:
            sheet[0] += 100
    data["scores"][0] += 100
    _raises(
        data,
        r"'hand_scores\[0\].going_out': \d+ disagrees with the table and hands of "
        r"team 0, which give \d+$",
    )
    data = copy.deepcopy(WENT_OUT)
    data["hand_scores"][1]["tip"] = 5
    _raises(data, r"'hand_scores\[1\]': unknown score sheet entry 'tip'")


def test_the_player_who_went_out_moved_last():
    data = copy.deepcopy(WENT_OUT)
    seat = data["went_out"]
    data["current"] = 1 - seat
    _raises(data, rf"'went_out': seat {seat} went out, but seat {1 - seat} moved last$")


def test_going_out_concealed_follows_the_turn_start():
    """C-15: concealed exactly when the team had not opened at the start of the turn."""
    data = copy.deepcopy(WENT_OUT)
    data["concealed"] = not data["concealed"]
    _raises(data, r"'concealed': must be (true|false): a player goes out concealed exactly when")


def test_no_cards_are_held_once_the_hand_is_over():
    data = copy.deepcopy(STOCK_OUT)
    seat = data["current"]
    hand = data["hands"][seat].split()
    data["turn"]["held"] = hand.pop()
    data["hands"][seat] = " ".join(hand)
    data["known"][seat] = ""
    _raises(data, r"'turn.held': held cards go back to the hand when the hand ends$")


def test_opening_points_are_staged_only_in_the_opening_turn():
    game = Game(CLASSIC, 2, seed=3)
    rng = random.Random(3)
    while not (game.phase == 1 and game.opened_at_turn_start):
        if game.hand_over:
            game = Game(CLASSIC, 2, seed=rng.randint(0, 10**6))
        game.apply(rng.choice(game.legal_actions()))
    data = state_to_dict(game)
    data["turn"]["staged"] = 50
    _raises(data, r"'turn.staged': team \d opened before this turn: nothing is staged")


# ------------------------------------------------------------------ nothing changes
def test_a_loaded_game_shares_nothing_with_its_input():
    data = _winning(copy.deepcopy(WENT_OUT), [5095, 285])
    game = state_from_dict(data)
    saved = state_to_dict(game)
    data["rng"]["internal"][0] ^= 1
    data["scores"][0] = 0
    data["hand_history"][0]["scores"][0] = 0
    data["hand_scores"][0]["total"] = 0
    data["public_history"]["discarded"][0][0] = 9
    data["red3"][0] = 9
    assert state_to_dict(game) == saved


def test_every_check_has_a_name_listed_in_the_format_doc():
    names = [name for name, _ in CHECKS + GAME_CHECKS]
    assert len(set(names)) == len(names) and all(names)
    doc = " ".join((ROOT / "docs" / "state_format.md").read_text(encoding="utf-8").split())
    assert [name for name in names if name not in doc] == []


def test_cards_text_is_kind_order():
    assert cards_text([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 0, 0]) == "4S 2S 2S JK"


def test_json_written_is_standard_json():
    data = state_to_dict(Game(CLASSIC, 2, seed=1))
    json.loads(json.dumps(data), parse_constant=pytest.fail)
