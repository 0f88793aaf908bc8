"""The arena: schedule, statistics, a scripted tournament, reproducibility, the command."""

from __future__ import annotations

import json
import math
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

import canasta_arena.arena as arena
import canasta_arena.schedule as schedule
import canasta_env.rules as rules_module
from agents.base import Agent, HandRecord, RandomAgent, play_hands
from agents.registry import register_agent
from canasta_arena.stats import Z_95, mean_interval, t_quantile_95, wilson_interval
from canasta_cli import arena as arena_command
from canasta_env.engine.outcome import Result
from canasta_env.observation import decode_view
from canasta_env.rules import make_rules
from tests.processes import run_group


def test_wilson_interval_matches_hand_computation():
    # 8 of 10, z = 1.959964: centre (0.8 + z^2/20) / (1 + z^2/10) = 0.716738,
    # half-width z sqrt(0.016 + z^2/400) / (1 + z^2/10) = 0.226577
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.490162, abs=1e-6)
    assert high == pytest.approx(0.943318, abs=1e-6)
    # 0 of 5: the upper bound is z^2 / (n + z^2)
    assert wilson_interval(0, 5) == pytest.approx((0.0, 3.841459 / 8.841459), abs=1e-6)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_mean_interval_matches_hand_computation():
    # 1..5: mean 3, sd sqrt(2.5), se sqrt(0.5), t(4) = 2.776445 -> half-width 1.963243
    mean, low, high = mean_interval([1, 2, 3, 4, 5])
    assert mean == 3
    assert (low, high) == pytest.approx((1.036757, 4.963243), abs=1e-6)
    assert mean_interval([7.0]) == (7.0, None, None)


def test_t_quantiles():
    assert t_quantile_95(1) == pytest.approx(12.706205)
    assert t_quantile_95(30) == pytest.approx(2.042272)
    assert t_quantile_95(31) == pytest.approx(2.039513, abs=1e-5)
    assert t_quantile_95(100) == pytest.approx(1.983972, abs=1e-5)
    assert t_quantile_95(10**6) == pytest.approx(Z_95, abs=1e-4)


def test_bradley_terry_elo():
    names = ["a", "b"]
    wins = {"a": {"b": 3.0}, "b": {"a": 1.0}}
    hands = {"a": {"b": 4}, "b": {"a": 4}}
    # with one virtual draw: a wins 3.5 of 5 -> odds 3.5 / 1.5, Elo gap 400 log10(7/3)
    elo = arena.bradley_terry_elo(wins, hands, names)
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(3.5 / 1.5))
    assert elo["a"] + elo["b"] == pytest.approx(3000)


def test_seat_arrangements_put_every_agent_in_every_seat():
    team = schedule.seat_arrangements(schedule.pair_pattern("a", "b", 4), swap=True)
    assert team == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    solo = schedule.seat_arrangements(schedule.pair_pattern("a", "b", 3), swap=True)
    assert len(solo) == 6 and len(set(solo)) == 6
    for seat in range(3):
        assert sorted(a[seat] for a in solo) == ["a", "a", "a", "b", "b", "b"]
    given = schedule.seat_arrangements(["x", "y", "z", "y"], swap=False)
    assert len(given) == 4 and {a[0] for a in given} == {"x", "y", "z"}


def test_hand_outcome_shares_ties_and_averages_teams():
    winners, diffs, best = Result.of([500, 500], [0, 1, 0, 1]).by_agent(["a", "b", "a", "b"])
    assert winners == ["a", "b"] and diffs == {"a": 0, "b": 0}
    winners, diffs, best = Result.of([100, 400, 300], [0, 1, 2]).by_agent(["a", "b", "a"])
    assert winners == ["b"] and best == {"a": 300, "b": 400}
    assert diffs == {"a": 200 - 400, "b": 400 - 200}


class _Scripted(Agent):
    """A placeholder: the scripted tournament replaces the game itself."""

    def __init__(self, name):
        self.name = name

    def act(self, observation, action_mask):  # pragma: no cover - never called
        raise AssertionError


def _scripted_play_hands(agents, num_hands, variant, deck_seeds, **kwargs):
    """alpha's team scores 300 except on every 4th deal (0); beta's team scores 100."""
    deal = deck_seeds[0]  # arena seed 0: the deck seed is the deal index
    alpha_team = [a.name for a in agents].index("alpha") % 2
    scores = [0, 0]
    scores[alpha_team] = 0 if deal % 4 == 3 else 300
    scores[1 - alpha_team] = 100
    return [HandRecord(deal, [a.name for a in agents], scores, [0.0] * 4, 10, "went out")]


def test_scripted_tournament_statistics(monkeypatch, tmp_path):
    register_agent("alpha", lambda seed=None: _Scripted("alpha"))
    register_agent("beta", lambda seed=None: _Scripted("beta"))
    monkeypatch.setattr(schedule, "play_hands", _scripted_play_hands)
    result = arena.run_arena(["alpha", "beta"], hands=8, seed=0, out_dir=tmp_path, plot=False)
    # 4 deals x 2 seatings; alpha wins deals 0, 1, 2 in both seatings: 6 of 8 hands
    assert len(result.hands) == 8
    rows = {row["agent"]: row for row in result.summary["ranking"]}
    alpha, beta = rows["alpha"], rows["beta"]
    assert alpha["rank"] == 1 and alpha["wins"] == 6 and alpha["hands"] == 8
    low, high = wilson_interval(6, 8)
    pair_line = f"alpha vs beta: 75.00% of 8 hands, 95% CI [{100 * low:.2f}, {100 * high:.2f}]"
    assert pair_line in result.report
    assert alpha["win_ci"] == pytest.approx((0.409275, 0.928521), abs=1e-6)
    # differences: +200 six times, -100 twice: mean 125, sd sqrt(135000 / 7),
    # t(7) = 2.364624 -> half-width 116.100734
    assert alpha["score_diff"] == 125 and beta["score_diff"] == -125
    assert alpha["score_diff_ci"] == pytest.approx((8.899266, 241.100734), abs=1e-5)
    assert result.summary["head_to_head"]["alpha"]["beta"]["win_rate"] == 0.75
    assert alpha["elo"] > beta["elo"] and alpha["mu"] > beta["mu"]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert [h["winner"] for h in saved["hands"]].count("alpha") == 6
    assert saved["hands"][0]["seats"] == ["alpha", "beta", "alpha", "beta"]
    csv_lines = (tmp_path / "hands.csv").read_text().splitlines()
    assert len(csv_lines) == 9 and csv_lines[0].startswith("pairing,deal,arrangement,deck_seed")


def test_same_arguments_give_identical_results_and_jobs_do_not_matter(tmp_path):
    kwargs = dict(variant="classic", num_players=4, hands=6, seed=3, plot=False)
    agents = ["random", "greedy"]
    arena.run_arena(agents, out_dir=tmp_path / "one", jobs=1, **kwargs)
    arena.run_arena(agents, out_dir=tmp_path / "again", jobs=1, **kwargs)
    arena.run_arena(agents, out_dir=tmp_path / "two", jobs=2, **kwargs)
    one = (tmp_path / "one" / "results.json").read_bytes()
    assert one == (tmp_path / "again" / "results.json").read_bytes()
    assert one == (tmp_path / "two" / "results.json").read_bytes()
    assert (tmp_path / "one" / "hands.csv").read_bytes() == (
        tmp_path / "two" / "hands.csv"
    ).read_bytes()


class _FirstLegal(Agent):
    """Plays the first legal action; a module-level class, so workers can unpickle it."""

    def __init__(self, seed=None):
        self.name = "first-legal"

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def test_workers_get_the_agents_registered_in_this_process(tmp_path):
    """Workers are spawned: a ``register_agent`` name reaches them; a lambda cannot."""
    register_agent("first-legal", _FirstLegal)
    kwargs = dict(variant="classic", num_players=2, hands=2, seed=5, plot=False)
    one = arena.run_arena(["first-legal", "random"], jobs=1, **kwargs)
    two = arena.run_arena(["first-legal", "random"], jobs=2, **kwargs)
    assert [h.team_scores for h in one.hands] == [h.team_scores for h in two.hands]
    register_agent("anonymous", lambda seed=None: _FirstLegal())
    with pytest.raises(ValueError, match="picklable"):
        arena.run_arena(["anonymous", "random"], jobs=2, **kwargs)


REPO = Path(__file__).resolve().parents[1]


def _run_arena_command(args: list[str], env: dict, timeout: float = 180) -> None:
    """``canasta arena ARGS`` in a new process group, killed whole (workers too) on timeout."""
    run_group([sys.executable, "-m", "canasta_cli", "arena", *args], REPO, env, timeout)


def test_trained_agent_plays_with_jobs_and_jobs_do_not_change_a_number(tmp_path):
    """``ppo:default`` with ``--jobs 2`` finishes and matches ``--jobs 1`` hand by hand.

    Workers forked from a parent that had loaded the model (torch's OpenMP pool
    running) once blocked forever in their first torch call. The ``--jobs 2``
    run keeps OpenMP's default thread count, as the bug needed; the ``--jobs 1``
    run uses one thread only to load its three models fast.
    """
    pytest.importorskip("sb3_contrib")
    args = ["--variant", "classic", "--players", "2", "--agents", "ppo:default", "random"]
    args += ["--hands", "4", "--seed", "2", "--no-plot", "--no-progress"]
    env = {k: v for k, v in os.environ.items() if k != "OMP_NUM_THREADS"}
    _run_arena_command(args + ["--jobs", "2", "--out", str(tmp_path / "two")], env)
    env["OMP_NUM_THREADS"] = "1"
    _run_arena_command(args + ["--jobs", "1", "--out", str(tmp_path / "one")], env)
    one = json.loads((tmp_path / "one" / "results.json").read_text())
    two = json.loads((tmp_path / "two" / "results.json").read_text())
    assert len(two["hands"]) == 4 and {"ppo:default", "random"} == set(two["hands"][0]["seats"])
    assert one["hands"] == two["hands"] and one["ranking"] == two["ranking"]
    assert (tmp_path / "one" / "hands.csv").read_bytes() == (
        tmp_path / "two" / "hands.csv"
    ).read_bytes()


def test_duplicate_deals_replay_the_same_decks_with_seats_swapped():
    result = arena.run_arena(["random", "expert"], hands=4, seed=1, num_players=2)
    by_deal = {}
    for hand in result.hands:
        by_deal.setdefault(hand.deal, []).append(hand)
    for hands in by_deal.values():
        assert len({h.seed for h in hands}) == 1
        assert [h.seats for h in hands] == [["random", "expert"], ["expert", "random"]]
    independent = arena.run_arena(["random", "expert"], hands=4, seed=1, duplicate=False)
    assert len({h.seed for h in independent.hands}) == 4


def test_the_arena_and_play_hands_keep_one_hand_record():
    """One record of a hand: the arena's hands are play_hands' records with the seats the
    arena names (a label included) and their place in its schedule; winners and score
    differences are read from the one result."""
    result = arena.run_arena(["x=random", "expert"], hands=2, seed=4, num_players=2, plot=False)
    for hand in result.hands:
        assert type(hand) is HandRecord and set(hand.seats) == {"x=random", "expert"}
        assert hand.key == (hand.pairing, hand.deal, hand.arrangement)
        assert len(hand.seat_rewards) == 2 and hand.went_out in (None, 0, 1)
        winners, diffs, _best = hand.result.by_agent(hand.seats)
        assert hand.winners == winners and hand.score_diff == diffs
    assert sorted(h.key for h in result.hands) == [(0, 0, 0), (0, 0, 1)]
    records = play_hands([RandomAgent(1), RandomAgent(2)], 3, seed=10)
    assert [(r.deal, r.seed) for r in records] == [(0, 10), (1, 11), (2, 12)]
    for record in records:  # the same convention outside the arena
        assert record.winners == record.result.by_agent(record.seats)[0]


def test_given_pairing_needs_one_agent_per_seat():
    with pytest.raises(ValueError, match="one agent per seat"):
        arena.run_arena(["random", "greedy"], pairing="given", num_players=4, hands=1)
    result = arena.run_arena(
        ["expert", "random", "greedy", "random"], pairing="given", num_players=4, hands=4
    )
    assert len(result.hands) == 4
    assert {row["agent"] for row in result.summary["ranking"]} == {"expert", "random", "greedy"}


def test_command_writes_the_outputs(tmp_path, capsys):
    out = tmp_path / "arena"
    argv = ["--players", "2", "--agents", "random", "greedy", "--hands", "2", "--seed", "4"]
    assert arena_command.main(argv + ["--out", str(out), "--no-progress"]) == 0
    printed = capsys.readouterr().out
    assert "head to head" in printed and "95% CI" in printed
    for name in ("hands.csv", "results.json", "ratings.png"):
        assert (out / name).stat().st_size > 0
    assert arena_command.main(["--agents", "random", "nobody", "--out", str(out)]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_speed_option_reports_decisions_per_second(capsys):
    assert arena_command.main(["--speed", "--hands", "1", "--agents", "greedy", "expert"]) == 0
    printed = capsys.readouterr().out
    assert "greedy" in printed and "expert" in printed and "/s" in printed


class _RuleWatcher(Agent):
    """Plays the first legal action; notes the rules ``reset`` gives it and the S-19
    flag of every observation."""

    seen: list[bool] = []
    given: list = []

    def __init__(self, name):
        self.name = name

    def reset(self, seat, num_players, rules):
        _RuleWatcher.given.append(rules)

    def act(self, observation, action_mask):
        _RuleWatcher.seen.append(decode_view(observation).sequences_on)
        return int(np.flatnonzero(action_mask)[0])


def test_house_rules_reach_every_hand_the_agents_and_the_config(tmp_path, capsys):
    """``rules`` / ``--rule``: the S-19 runs option is played, given to the agents with the
    table's rules, and recorded; a bad one is named."""
    register_agent("watcher", lambda seed=None: _RuleWatcher("watcher"))
    _RuleWatcher.seen.clear()
    _RuleWatcher.given.clear()
    result = arena.run_arena(
        ["watcher", "greedy"], variant="spanish", num_players=2, hands=2, rules={"sequences": True}
    )
    assert result.config["rules"] == {"sequences": True}
    assert _RuleWatcher.seen and set(_RuleWatcher.seen) == {True}
    assert _RuleWatcher.given and all(
        rules == make_rules("spanish", sequences=True) for rules in _RuleWatcher.given
    )
    _RuleWatcher.seen.clear()
    _RuleWatcher.given.clear()
    plain = arena.run_arena(["watcher", "greedy"], variant="spanish", num_players=2, hands=2)
    assert plain.config["rules"] == {} and set(_RuleWatcher.seen) == {False}
    assert all(rules == make_rules("spanish") for rules in _RuleWatcher.given)
    argv = ["--variant", "spanish", "--players", "2", "--agents", "random", "greedy"]
    argv += ["--hands", "1", "--out", str(tmp_path), "--no-plot", "--no-progress"]
    assert arena_command.main(argv + ["--rule", "sequences=true"]) == 0
    assert json.loads((tmp_path / "results.json").read_text())["config"]["rules"] == {
        "sequences": True
    }
    assert arena_command.main(argv + ["--rule", "sequences"]) == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_the_rules_are_made_once_a_run_and_every_hand_plays_that_object(monkeypatch, tmp_path):
    """Issue 46 item 3: the command makes the checked rules once and hands the object down;
    no worker rebuilds them from a dict for every hand (the check ran 1 + hands times)."""
    checked, given = [], []
    check_rules, play_hands = rules_module.check_rules, schedule.play_hands

    def counted_check(rules):
        checked.append(rules)
        check_rules(rules)

    def watched_play_hands(agents, num_hands, rules, **kwargs):
        given.append(rules)
        return play_hands(agents, num_hands, rules, **kwargs)

    monkeypatch.setattr(rules_module, "check_rules", counted_check)
    monkeypatch.setattr(schedule, "play_hands", watched_play_hands)
    argv = ["--variant", "spanish", "--players", "2", "--agents", "random", "greedy"]
    argv += ["--rule", "sequences=true", "--hands", "6", "--out", str(tmp_path)]
    assert arena_command.main(argv + ["--no-plot", "--no-progress", "--jobs", "1"]) == 0
    assert len(checked) == 1 and len(given) == 6
    assert all(rules is checked[0] for rules in given)  # the very object, every hand
    assert checked[0] == make_rules("spanish", sequences=True)


def test_a_rules_object_is_named_in_the_config_by_its_preset_and_house_rules():
    house = {"sequences": True, "target_score": 3000}
    rules = make_rules("spanish", **house)
    assert pickle.loads(pickle.dumps(rules)) == rules  # what the worker processes receive
    assert (rules.preset, rules.house_rules()) == ("spanish", house)
    kwargs = dict(num_players=2, hands=2, seed=1, plot=False)
    by_object = arena.run_arena(["random", "greedy"], rules, **kwargs)
    by_name = arena.run_arena(["random", "greedy"], "spanish", rules=house, **kwargs)
    assert by_object.config == by_name.config and by_object.config["variant"] == "spanish"
    assert [h.team_scores for h in by_object.hands] == [h.team_scores for h in by_name.hands]
    renamed = make_rules("classic", name="mine", draw_count=2)
    assert renamed.preset == "classic"
    assert renamed.house_rules() == {"name": "mine", "draw_count": 2}
    assert make_rules(renamed.preset, **renamed.house_rules()) == renamed


def test_a_label_names_a_long_agent_in_the_tables(tmp_path):
    from agents.registry import display_name, make_agent, split_label

    assert split_label("fast=greedy") == ("fast", "greedy")
    assert split_label("search:classic-2p@64,belief=history")[0] is None  # its own setting
    assert make_agent("fast=greedy").name == "fast"
    long = "tests.test_arena:_LongNamedBot"
    result = arena.run_arena(
        [f"long={long}", "random"], num_players=2, hands=2, jobs=1, out_dir=tmp_path,
        progress=False, plot=False,
    )  # fmt: skip
    report = result.report
    assert "long " in report and long not in report  # the label, not the import path
    assert display_name(f"long={long}") == "long"
    saved = json.loads((tmp_path / "results.json").read_text())
    assert f"long={long}" in json.dumps(saved)  # the whole name kept: the run repeats


@pytest.mark.parametrize("name", ["style:builder", "styled"])
def test_a_labelled_styled_bot_plays_as_its_family(name):
    """A label renamed the agent, and its core twin was asked for by the label ("no house
    bot 'x' in the core"): a labelled styled bot plays the hands its own name plays."""
    labelled = arena.run_arena([f"x={name}", "expert"], num_players=4, hands=8, jobs=1, plot=False)
    plain = arena.run_arena([name, "expert"], num_players=4, hands=8, jobs=1, plot=False)
    assert [h.score_diff["x=" + name] for h in labelled.hands] == [
        h.score_diff[name] for h in plain.hands
    ]


class _LongNamedBot(Agent):
    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])
