"""The position tool (research/search_positions.py): true worlds keep every hand, a truth
file round-trips and is checked, and a setting's gain is read from it."""

from __future__ import annotations

import json
import random

import pytest

from agents.search import SHIPPED, SearchAgent, SearchConfig
from research import search_positions as tool


@pytest.fixture(scope="module")
def truth_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("positions") / "truth.json"
    args = ["truth", "--players", "2", "--hands", "2", "--per-hand", "2", "--worlds", "6"]
    args += ["--score-coef", "0"]
    assert tool.main([*args, "--out", str(out)]) == 0
    return out


def test_true_worlds_keep_every_hand_and_shuffle_the_stock():
    agent = SearchAgent(SHIPPED["classic-2p"], SearchConfig())
    game = tool.replay(agent, 2, deal=7000, step=6)
    rng = random.Random(1)
    worlds = [tool.true_world(game, rng) for _ in range(5)]
    assert all(world.hands == game.hands for world in worlds)
    assert all(sorted(world.stock) == sorted(game.stock) for world in worlds)
    assert any(world.stock != game.stock for world in worlds)
    assert all(world.pot[game.pot_hidden :] == game.pot[game.pot_hidden :] for world in worlds)


def test_truth_file_and_gain(truth_file):
    data = tool.load_truth(truth_file)
    assert data["players"] == 2 and data["worlds"] == 6 and data["score_coef"] == 0
    assert 1 <= len(data["positions"]) <= 4
    for position in data["positions"]:
        assert 2 <= len(position["candidates"]) == len(position["q"]) <= tool.CANDIDATES
        # hands won, tied or lost only, played to the end: a mean of -1, 0 and +1 in sixths
        assert all(-1 <= q <= 1 and abs(q * 6 - round(q * 6)) < 1e-3 for q in position["q"])
    # the network's own move gains nothing by definition; a setting that never deviates
    never = tool.gain("8,confident=0.01", data, seeds=1)
    assert never["deviated"] == 0 and never["gain"] == 0.0
    searched = tool.gain("8,depth=4,confident=1.0,margin_z=0", data, seeds=1)
    assert searched["decisions"] == len(data["positions"])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ({"players": 5, "positions": []}, "'players' must be 2, 3, 4 or 6"),
        ({"players": 2, "positions": []}, "'positions' must be a list of 1.."),
        ({"players": 2, "positions": [{"deal": 1}]}, r"position 0 is not \{deal, step"),
    ],
)
def test_a_bad_truth_file_is_refused(tmp_path, content, problem):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(content))
    with pytest.raises(ValueError, match=problem):
        tool.load_truth(path)


def test_a_truth_file_that_is_not_json_or_too_big_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "bad.json"
    path.write_text('{"players": 2, "positions": [')
    with pytest.raises(ValueError, match="truth file .*not valid JSON"):
        tool.load_truth(path)
    path.write_text(json.dumps({"players": 2, "positions": [], "pad": "x" * 200}))
    monkeypatch.setattr(tool, "MAX_TRUTH_BYTES", 100)
    with pytest.raises(ValueError, match="larger than 100 bytes"):
        tool.load_truth(path)
