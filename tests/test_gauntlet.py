"""The gauntlet (research/gauntlet.py): who the opponents are, which the agent trained with,
the worst stranger, and a run that resumes; the stranger bots play every table legally."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.registry import make_agent
from canasta_env.rules import make_rules
from canasta_env.table import Table
from research import gauntlet


def test_the_opponents_of_the_4_player_agent():
    rows = gauntlet.opponents(4, "ppo:classic-4p")
    names = [name for _, name in rows]
    assert [n for g, n in rows if g == "stranger"] == list(gauntlet.STRANGERS)
    assert "ppo:research/exploiters/classic_4p_h5_20M.npz" in names
    assert not any("classic_2p" in n for n in names)  # another table's networks
    # the shipped file is the agent itself, and ef14 in research/hardening is the same bytes
    assert "ppo:agents/models/classic_4p.npz" not in names
    assert "ppo:research/hardening/classic_4p_ef14.npz" not in names
    assert "ppo:research/hardening/classic_4p_s889.npz" in names  # the agent shipped before
    assert "ppo:research/hardening/classic_4p_h4.npz" in names
    assert len(names) == len(set(names))


def test_what_the_agent_trained_with_is_read_from_its_run_config(tmp_path):
    config = tmp_path / "config.json"
    exploiter = "research/exploiters/classic_4p_h4_20M.npz"
    config.write_text(json.dumps({"opponents": {"expert": 0.5, "styled": 0.2,
                                                f"ppo:{exploiter}": 0.3}}))  # fmt: skip
    league = gauntlet.trained_with(config)
    assert gauntlet._was_trained_with("expert", league)
    assert gauntlet._was_trained_with(f"ppo:{exploiter}", league)
    assert not gauntlet._was_trained_with("ppo:research/exploiters/classic_4p_20M.npz", league)
    assert not gauntlet._was_trained_with("style:builder", league)  # held out of styled
    assert not gauntlet._was_trained_with(gauntlet.STRANGERS[0], league)


def _row(group, opponent, rate, trained=False):
    return {"group": group, "opponent": opponent, "hands": 2000, "win_rate": rate,
            "win_ci": [rate - 0.02, rate + 0.02], "score_diff": 100.0,
            "score_diff_ci": [80.0, 120.0], "seconds": 1.0, "trained_with": trained}  # fmt: skip


def test_the_headline_is_the_worst_stranger_it_never_trained_with():
    document = {"agent": "a", "players": 4, "hands": 2000, "seed": 1, "rows": [
        _row("stranger", "s1", 0.70), _row("stranger", "s2", 0.62),
        _row("wide", "w", 0.66), _row("house", "expert", 0.55),
        _row("stranger", "s3", 0.50, trained=True),
    ]}  # fmt: skip
    assert gauntlet.worst(document)["opponent"] == "s2"
    page = gauntlet.render(document)
    assert "Worst stranger: `s2` 62.0% [60.0, 64.0]" in page
    assert "| stranger | `s3` (trained with) | 50.0% [48.0, 52.0] | +100 [+80, +120] |" in page


def stub_pairings(monkeypatch, rate: float) -> list[str]:
    """``gauntlet.play_pairing`` replaced by a stub that plays nothing and wins ``rate`` of
    its hands; the opponents it is asked for, in order, as they come."""
    played = []

    def fake(agent, opponent, players, hands, seed, jobs, table=None):
        played.append(opponent)
        return {k: v for k, v in _row("x", opponent, rate).items() if k not in ("group",
                "opponent", "trained_with")}  # fmt: skip

    monkeypatch.setattr(gauntlet, "play_pairing", fake)
    return played


def test_a_run_resumes_and_refuses_another_agents_file(tmp_path, monkeypatch):
    played = stub_pairings(monkeypatch, 0.6)
    out = tmp_path / "g.json"
    quiet = dict(hands=10, seed=1, only=["wide"], log=lambda line: None)
    document = gauntlet.run("ppo:classic-4p", 4, out, **quiet)
    assert played == list(gauntlet.WIDE)
    # the file says which model it measured, and its headline, as the leaderboard reads it
    assert document["agent_sha256"] == gauntlet.file_digest(gauntlet._model_path("ppo:classic-4p"))
    assert document["worst"] == gauntlet.worst(document) == document["rows"][0]
    gauntlet.run("ppo:classic-4p", 4, out, **quiet)  # finished: nothing played again
    assert played == list(gauntlet.WIDE)
    with pytest.raises(ValueError, match="another agent, model file, table, size or seed"):
        gauntlet.run("ppo:classic-2p", 4, out, **quiet)
    kept = json.loads(out.read_text())
    kept["agent_sha256"] = "0" * 64  # the same name, another file since: not resumed
    out.write_text(json.dumps(kept))
    with pytest.raises(ValueError, match="another agent, model file"):
        gauntlet.run("ppo:classic-4p", 4, out, **quiet)
    config = tmp_path / "config.json"  # a Path: the file names it as text
    config.write_text(json.dumps({"opponents": {"expert": 1.0}}))
    other = tmp_path / "h.json"
    gauntlet.run("ppo:classic-4p", 4, other, config=config, **quiet)
    assert json.loads(other.read_text())["config"] == str(config)
    # resumed without --config, the file's league still marks the new rows
    played.clear()
    gauntlet.run("ppo:classic-4p", 4, other, **{**quiet, "only": ["house"]})
    rows = {row["opponent"]: row for row in json.loads(other.read_text())["rows"]}
    assert played and rows["expert"]["trained_with"]
    with pytest.raises(ValueError, match="started with --config"):
        gauntlet.run("ppo:classic-4p", 4, other, config=tmp_path / "else.json", **quiet)
    # a file from before the key takes the league of the run that resumes it
    kept = json.loads(out.read_text())
    kept.pop("config")
    kept["agent_sha256"] = document["agent_sha256"]
    out.write_text(json.dumps(kept))
    gauntlet.run("ppo:classic-4p", 4, out, config=config, **{**quiet, "only": ["house"]})
    assert json.loads(out.read_text())["config"] == str(config)


@pytest.mark.parametrize("name", [*gauntlet.STRANGERS, *gauntlet.WIDE])
@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("classic", 4),
                                                   ("spanish", 3), ("italian", 4)])  # fmt: skip
def test_every_stranger_plays_legal_moves_deterministically(name, variant, players):
    """The table's own loop (Table.play) refuses an illegal move, naming the agent; a random
    partner keeps the hand varied."""

    def hand(seed: int) -> list[int]:
        rules = make_rules(variant)
        table = Table(rules, players, seed=seed, backend="python")
        agents = [
            make_agent(name if table.team_of[seat] == 0 else "random", seed=seed + seat)
            for seat in table.seats
        ]
        for seat, agent in enumerate(agents):
            agent.reset(seat, players, rules)
        moves: list[int] = []
        table.play(agents, until=lambda t: len(moves) >= 400,
                   on_decision=lambda seat, obs, mask, action: moves.append(action))  # fmt: skip
        return moves

    moves = hand(3)
    assert len(moves) > 10 and moves == hand(3)


@pytest.mark.parametrize("name", [*gauntlet.STRANGERS, *gauntlet.WIDE])
def test_no_stranger_can_enter_a_league(name):
    """The gauntlet's bots stay out of training: the league takes only its own names and
    model files (a control: ``styled`` is taken)."""
    from training.config import SettingError, league_weights

    league_weights("opponents", {"styled": 1.0}, "the league's weights")
    with pytest.raises(SettingError):
        league_weights("opponents", {"self": 0.5, name: 0.5}, "the league's weights")


def test_pace_splits_the_hands_by_who_went_out():
    from research import pace

    rows = pace.pace("greedy", "random", 4, 3, 11)
    assert len(rows) == 6  # each deal with each side first
    for row in rows:
        assert row["won"] == (row["agent"] > row["opponent"])
        assert row["out"] in ("agent", "opponent", None)
    text = pace.report(
        [{"won": True, "out": "agent", "steps": 90, "agent": 900, "opponent": 100},
         {"won": False, "out": "opponent", "steps": 70, "agent": 50, "opponent": 700}]
    )  # fmt: skip
    assert text.splitlines() == [
        "2 hands, the agent won 50.0%",
        "  out: agent     50.0% of hands, the agent won 100.0%, 90 decisions, hand scores "
        "+900 (agent) +100 (opponent)",
        "  out: opponent  50.0% of hands, the agent won   0.0%, 70 decisions, hand scores "
        "+50 (agent) +700 (opponent)",
    ]


def test_tempo_counts_each_side_from_its_own_team():
    from research import pace

    rows = pace.tempo("greedy", "random", 4, 3, 11)
    assert rows[10]["hands"] == 6  # every hand is still on at decision 10
    assert all(rows[d]["hands"] <= rows[10]["hands"] for d in rows)
    # the same deals with the sides named the other way round: the sides swap, bit for bit
    swapped = pace.tempo("random", "greedy", 4, 3, 11)
    for decision, at in rows.items():
        assert at["agent"] == pytest.approx(swapped[decision]["opponent"])
        assert at["opponent"] == pytest.approx(swapped[decision]["agent"])
    # a control: greedy melds what it can, random seldom does
    assert rows[30]["agent"]["table"] > rows[30]["opponent"]["table"]
    assert "decision (hands on)" in pace.tempo_report(rows)


def test_compare_is_hand_by_hand_on_the_same_deals():
    """An ablation's measure: each agent's rate is its own pairing's on those deals, the
    difference is theirs, and an agent compared with itself differs by exactly nothing."""
    row = gauntlet.compare("expert", "greedy", "random", 2, 8, 3)
    for name, key in (("expert", "first_win_rate"), ("greedy", "second_win_rate")):
        assert row[key] == gauntlet.play_pairing(name, "random", 2, 8, 3, 1)["win_rate"]
    assert row["hands"] == 8 and row["diff"] == pytest.approx(
        row["first_win_rate"] - row["second_win_rate"]
    )
    low, high = row["diff_ci"]
    assert low <= row["diff"] <= high
    same = gauntlet.compare("greedy", "greedy", "random", 2, 8, 3)
    assert same["diff"] == 0 and same["diff_ci"] == [0, 0]
    with pytest.raises(ValueError, match="--hands 1"):
        gauntlet.compare("greedy", "expert", "random", 2, 1, 3)


def test_another_table_by_its_key(monkeypatch):
    """--table plays one of the leaderboard's tables: its preset, player count and house
    rules reach the arena; an unknown key or a wrong player count is refused first."""
    from canasta_arena import arena

    rows = gauntlet.opponents(3, "ppo:spanish-3p", "spanish-3p")
    assert [n for g, n in rows if g == "stranger"] == list(gauntlet.STRANGERS)
    assert not [n for g, n in rows if g in ("exploiter", "snapshot")]  # no spanish networks
    row = gauntlet.play_pairing("greedy", "random", 3, 6, 5, 1, "spanish-3p")
    assert row["hands"] == 6  # one deal, its six seatings at 3 players

    seen = {}
    real = arena.run_arena

    def spy(seats, variant, players, **kw):
        seen.update(variant=variant, players=players, rules=kw.get("rules"))
        return real(seats, variant, players, **kw)

    monkeypatch.setattr(arena, "run_arena", spy)
    gauntlet.play_pairing("greedy", "random", 4, 2, 5, 1, "spanish-runs-4p")
    assert seen == {"variant": "spanish", "players": 4, "rules": {"sequences": True}}
    with pytest.raises(ValueError, match="no table 'poker-4p'"):
        gauntlet.compare("greedy", "expert", "random", 4, 8, 3, table="poker-4p")
    with pytest.raises(ValueError, match="played by 3 players, not 4"):
        gauntlet.compare("greedy", "expert", "random", 4, 8, 3, table="spanish-3p")
    assert gauntlet.main(["compare", "--first", "a", "--second", "b", "--hands", "8"]) == 2


def test_the_model_cards_entry_is_the_headline_and_the_command_that_plays_it():
    document = {"agent": "ppo:spanish-3p", "table": "spanish-3p", "players": 3, "hands": 2004,
                "seed": 9100, "rows": [_row("stranger", "s1", 0.70), _row("wide", "w", 0.64),
                                       _row("house", "expert", 0.60)]}  # fmt: skip
    document["worst"] = gauntlet.worst(document)
    entry = gauntlet.card_entry(document, "docs/g.json")
    assert (entry["opponent"], entry["table"], entry["win_rate"], entry["ci95"]) == (
        "w", "spanish-3p", 0.64, [0.62, 0.66]
    )  # fmt: skip
    assert entry["command"] == (
        "python -m research.gauntlet run --agent ppo:spanish-3p --table spanish-3p "
        "--only house,stranger,wide --hands 2004 --seed 9100 --jobs 1 --out docs/g.json"
    )
    assert gauntlet.card_entry(dict(document, worst=None), "docs/g.json") is None


def test_swap_classes_split_every_decision_by_the_two_moves():
    from canasta_env.actions import DISCARD, DRAW, NEW_MELD, NUM_ACTIONS, TAKE
    from research import swap

    draw_phase = np.zeros(NUM_ACTIONS, dtype=np.int8)
    draw_phase[[DRAW, TAKE]] = 1
    meld_phase = np.zeros(NUM_ACTIONS, dtype=np.int8)
    meld_phase[[DISCARD, DISCARD + 3, NEW_MELD]] = 1
    assert swap.decision_class(draw_phase, DRAW, TAKE) == "draw"
    assert swap.decision_class(meld_phase, DISCARD, DISCARD + 3) == "card"
    assert swap.decision_class(meld_phase, NEW_MELD, DISCARD) == "hold"
    assert swap.decision_class(meld_phase, DISCARD, NEW_MELD) == "lay"
    assert swap.decision_class(meld_phase, NEW_MELD, NEW_MELD) == "meld"
    with pytest.raises(ValueError, match=r"\['bogus'\]"):
        swap.Swap(None, None, ["draw", "bogus"])


def test_swap_of_every_class_plays_the_other_bot_bit_for_bit():
    """Every class swapped is the other bot itself; the rows compare each class with the
    agent on the same hands; a bot swapped with itself changes nothing (and a real other
    does: the control)."""
    from research import pace, swap

    def build(name, seat, is_agent):
        bot = make_agent(name, seed=seat)
        return swap.Swap(bot, make_agent("expert", seed=seat), swap.CLASSES) if is_agent else bot

    assert pace.pace("greedy", "random", 4, 3, 11, build) == pace.pace("expert", "random", 4, 3, 11)
    rows = swap.swap("greedy", "expert", "random", 4, 3, 11)
    assert [r["class"] for r in rows] == list(swap.CLASSES)
    alone = [swap._points(r) for r in pace.pace("greedy", "random", 4, 3, 11)]
    for row in rows:
        assert row["hands"] == 6 and row["agent"] == pytest.approx(sum(alone) / 6)
        low, high = row["diff_ci"]
        assert low <= row["diff"] <= high
    assert rows[0]["decisions"] > 0 and sum(r["changed"] for r in rows) > 0
    same = swap.swap("greedy", "greedy", "random", 4, 3, 11, ["card", "meld"])
    assert all(r["decisions"] > 0 and r["changed"] == 0 and r["diff"] == 0 for r in same)
    assert "class | decisions" in swap.report(rows)
