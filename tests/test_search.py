"""The search agent (agents/search.py): names, legality, budget, determinism, hidden
information (with a positive control), the choice rule."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from agents.base import RandomAgent, choose_action
from agents.registry import make_agent
from agents.search import (
    DEFAULT_ROLLOUTS,
    MAX_ROLLOUTS,
    TIE,
    SearchAgent,
    SearchConfig,
    _choose,
    _from_side,
    one_blas_thread,
    parse_name,
    recording_times,
)
from canasta_env.compliance import permute_hidden
from canasta_env.engine.game import Game
from canasta_env.rules import make_rules
from canasta_env.table import Table

#: Small searches that still search at almost every decision with a choice.
QUICK = "@8,depth=6,confident=1.0,margin_z=0,sure_margin_z=0"


@pytest.fixture(scope="module")
def policy():
    return make_agent("ppo:classic-2p")


def open_positions(policy, players: int, seed: int, count: int, priors=(0.0, 0.95)) -> list[Game]:
    """Up to ``count`` positions of a hand the policy plays greedily, each a decision
    where the policy hesitates (2+ legal ids, top prior in ``priors``: under 0.95)."""
    table = Table(make_rules("classic"), players, seed=seed, backend="python")
    low, high = priors
    found = []
    while not table.hand_over and len(found) < count:
        obs, mask = table.observation(table.current), table.mask()
        legal = np.flatnonzero(mask)
        logits = policy.weights.logits(obs)[legal]
        priors = np.exp(logits - logits.max())
        if len(legal) > 1 and low <= priors.max() / priors.sum() < high:
            found.append(table.game.copy())
        table.step(policy.act(obs, mask))
    return found


def decide(agent, game: Game) -> int:
    """The agent's action at ``game`` as every runner asks for it (a world from its rng)."""
    table = Table.from_game(game.copy())
    return choose_action(agent, game, table.observation(game.current), table.mask())


# ---------------------------------------------------------------------- names
def test_loadable_by_name():
    agent = make_agent("search:classic-2p", seed=3)
    assert isinstance(agent, SearchAgent)
    assert agent.name == "search:classic-2p"
    assert agent.config == SearchConfig()
    assert agent.config.rollouts == DEFAULT_ROLLOUTS
    four = make_agent("search:classic-4p@128,depth=24,margin_z=0.5,sample=true")
    assert four.config == SearchConfig(rollouts=128, depth=24, margin_z=0.5, sample=True)
    assert four.name == "search:classic-4p@128,depth=24,margin_z=0.5,sample=true"


def test_parse_name_settings():
    model, config = parse_name("runs/x/model.npz@32,depth=none,max_ms=150,candidates=3")
    assert model == "runs/x/model.npz"
    assert config == SearchConfig(rollouts=32, depth=None, max_ms=150.0, candidates=3)
    _, config = parse_name("classic-2p@64,belief=History,pool=8")
    assert config == SearchConfig(rollouts=64, belief="history", pool=8)
    assert parse_name("classic-2p") == ("classic-2p", SearchConfig())


def test_the_default_budget_is_128_and_512_for_the_classic_4_player_network():
    """docs/search.md: at 4 players 512 rollouts beat 128 on 2,000 duplicate hands; at 2
    players the curve is flat beyond 128. A budget named is always the one played."""
    assert DEFAULT_ROLLOUTS == 128 and SearchConfig().rollouts == 128
    assert parse_name("classic-4p") == ("classic-4p", SearchConfig(rollouts=512))
    assert make_agent("search:classic-4p").config.rollouts == 512
    assert make_agent("search:classic-4p@128").config.rollouts == 128
    assert make_agent("search:classic-2p").config.rollouts == 128
    assert make_agent("search:classic-3p").config.rollouts == 128
    assert parse_name("runs/x/classic-4p")[1].rollouts == 128  # a path, not the name


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("search:clasic-2p", "did you mean 'search:classic-2p'"),
        ("search:classic-2p@0", f"the budget must be 1..{MAX_ROLLOUTS} rollouts a decision, got 0"),
        (f"search:classic-2p@{MAX_ROLLOUTS + 1}", f"got {MAX_ROLLOUTS + 1}"),
        ("search:classic-2p@lots", "must be a whole number of rollouts.*got 'lots'"),
        ("search:classic-2p@-4", "got '-4'"),
        ("search:classic-2p@64,dept=3", "'dept=3' is not KEY=VALUE with KEY one of candidates"),
        ("search:classic-2p@64,depth", "'depth' is not KEY=VALUE"),
        ("search:classic-2p@64,depth=x", "depth must be int or none, got 'x'"),
        ("search:classic-2p@64,depth=0", "depth must be a positive integer or None, got 0"),
        ("search:classic-2p@64,confident=1.5", r"confident must be in \(0, 1\], got 1.5"),
        ("search:classic-2p@64,margin_z=nan", "margin_z must be float, got 'nan'"),
        ("search:classic-2p@64,sample=yes", "sample must be true or false, got 'yes'"),
        ("search:classic-2p@64,belief=oracle", "belief must be one of uniform, history"),
        ("search:classic-2p@64,pool=0", "pool must be an integer in 1..64, got 0"),
        ("search:sb3-classic-2p", "did you mean 'search:classic-2p'"),
    ],
)
def test_bad_names_say_what_is_wrong(name, problem):
    with pytest.raises(ValueError, match=problem):
        make_agent(name)


def test_a_zip_model_is_refused(tmp_path):
    from agents.network import SHIPPED

    with pytest.raises(ValueError, match="is not a .npz network"):
        make_agent(f"search:{SHIPPED['sb3-classic-2p']}")


# ---------------------------------------------------------------------- playing
@pytest.mark.parametrize("players", [2, 4])
def test_legal_actions_and_budget(players):
    """Every action the table takes (it refuses an illegal one), and no decision plays
    more rollouts than its budget; the agent does search."""
    rules = make_rules("classic")
    agent = make_agent(f"search:classic-{players}p{QUICK}", seed=1)
    policy = make_agent(f"ppo:classic-{players}p")
    table = Table(rules, players, seed=5, backend=None)
    agents = [agent if table.team_of[seat] == 0 else policy for seat in table.seats]
    searched = 0
    while not table.hand_over:
        seat = table.current
        obs, mask = table.observation(seat), table.mask()
        action = table.choose_action(agents[seat], obs, mask)
        assert mask[action] == 1
        if agents[seat] is agent:
            assert agent.stats.rollouts <= agent.config.rollouts
            searched += agent.stats.searched
        table.step(action)
    assert searched >= 5


def test_without_a_world_it_plays_the_policy(policy):
    """Asked through act alone (no see_world), or at a confident decision, it plays the
    ppo: agent's move."""
    agent = make_agent("search:classic-2p", seed=0)
    table = Table(make_rules("classic"), 2, seed=9, backend=None)
    for _ in range(60):
        if table.hand_over:
            break
        obs, mask = table.observation(table.current), table.mask()
        assert agent.act(obs, mask) == policy.act(obs, mask)
        assert not agent.stats.searched
        table.step(policy.act(obs, mask))


def test_deterministic_for_a_seed(policy):
    positions = open_positions(policy, 2, seed=21, count=6)
    assert len(positions) == 6

    def actions(seed):
        agent = make_agent(f"search:classic-2p{QUICK}", seed=seed)
        chosen, scores = [], []
        for game in positions:
            chosen.append(decide(agent, game))
            scores.append(agent.stats.scores.copy())
        return chosen, scores

    first, again = actions(4), actions(4)
    assert first[0] == again[0]
    assert all(np.array_equal(a, b) for a, b in zip(first[1], again[1]))
    other = actions(5)  # the seed matters: other worlds, other scores
    assert not all(np.array_equal(a, b) for a, b in zip(first[1], other[1]))


def test_time_cap_cuts_rollouts(policy):
    (game,) = open_positions(policy, 2, seed=21, count=1)
    agent = make_agent("search:classic-2p@256,confident=1.0,max_ms=0.001", seed=1)
    decide(agent, game)
    assert agent.stats.searched and agent.stats.cut_by_time
    assert agent.stats.plies <= 1
    uncapped = make_agent("search:classic-2p@16,confident=1.0", seed=1)
    decide(uncapped, game)
    assert uncapped.stats.searched and not uncapped.stats.cut_by_time
    assert uncapped.stats.plies > 10


def test_times_are_recorded(policy):
    (game,) = open_positions(policy, 2, seed=21, count=1)
    agent = make_agent(f"search:classic-2p{QUICK}", seed=1)
    with recording_times() as (wall, cpu):
        decide(agent, game)
        decide(agent, game)
    decide(agent, game)
    assert len(wall) == len(cpu) == 2
    assert all(0 < t < 60 for t in wall + cpu)


# ---------------------------------------------------------------------- hidden information
@pytest.mark.parametrize("belief", ["uniform", "history"])
def test_no_hidden_information_with_positive_control(policy, belief):
    """Two games that differ only in cards the seat cannot see give the search agent the
    same worlds, so the same rollout scores and the same action. The control: the same
    agent handed the true game (as an agent that peeked would search) scores them
    differently, so the check can fail."""
    positions = [g for seed in (31, 32) for g in open_positions(policy, 2, seed, count=4)]
    assert len(positions) >= 6
    differs = 0
    peeked_differs = 0
    for k, game in enumerate(positions):
        seat = game.current
        other = permute_hidden(game, seat, random.Random(k))
        opponent = 1 - seat
        assert other.hands[seat] == game.hands[seat]
        differs += other.hands[opponent] != game.hands[opponent] or other.stock != game.stock

        name = f"search:classic-2p{QUICK},belief={belief}"
        honest = [make_agent(name, seed=k) for _ in range(2)]
        assert decide(honest[0], game) == decide(honest[1], other)
        assert np.array_equal(honest[0].stats.scores, honest[1].stats.scores)

        peeking = [make_agent(name, seed=k) for _ in range(2)]
        for agent, truth in zip(peeking, (game, other)):
            table = Table.from_game(truth.copy())
            agent.see_world(truth)  # the true game, not a determinization
            agent.act(table.observation(seat), table.mask())
        peeked_differs += not np.array_equal(peeking[0].stats.scores, peeking[1].stats.scores)
    assert differs == len(positions)
    # uniform: the handed world is always one of the rollout worlds; history: it is one
    # of a pool of 4 x 2 that the belief samples 2 from, so a peek shows less often
    assert peeked_differs >= len(positions) // (2 if belief == "uniform" else 4)


def test_the_world_is_not_the_true_game(policy):
    """What a runner hands the agent deals the hidden cards again."""
    (game,) = open_positions(policy, 2, seed=33, count=1)
    seen = []

    class Spy(SearchAgent):
        def see_world(self, world):
            seen.append(world)
            super().see_world(world)

    agent = Spy("classic-2p", SearchConfig(rollouts=4, depth=2, confident=1.0), seed=2)
    for _ in range(5):
        decide(agent, game)
    opponent = 1 - game.current
    assert all(world is not game for world in seen)
    assert all(world.hands[game.current] == game.hands[game.current] for world in seen)
    assert any(world.hands[opponent] != game.hands[opponent] for world in seen)


# ---------------------------------------------------------------------- the choice
def test_choice_keeps_the_policy_move_unless_clearly_better():
    policy_first = np.array([[0.0, 1.0, 0.0, 1.0], [0.2, 1.1, 0.2, 1.1]])  # +0.2 every world
    assert _choose(policy_first, margin_z=1.0) == 1  # a sure gain: no spread at all
    noisy = np.array([[0.0, 0.0, 0.0, 0.0], [1.0, -0.8, 1.0, -0.8]])  # +0.1 mean, spread 1.04
    assert _choose(noisy, margin_z=1.0) == 0
    assert _choose(noisy, margin_z=0.0) == 1
    worse = np.array([[0.5, 0.5], [0.0, 0.0], [0.4, 0.6]])
    assert _choose(worse, margin_z=0.0) == 0
    # rollouts that end alike but for the float32 arithmetic of the values: a tie, not a
    # sure gain (the search deviated on such a +1.2e-7 with no spread before TIE)
    alike = np.array([[1.6010001, 1.6010001], [1.6010002, 1.6010002]], np.float32)
    assert 0 < (alike[1] - alike[0]).mean() <= TIE and _choose(alike, margin_z=1.0) == 0
    assert _choose(alike + np.array([[0.0], [2 * TIE]], np.float32), margin_z=1.0) == 1


def test_value_from_the_agents_side():
    team_of = [0, 1, 0, 1]
    assert _from_side(0.4, team_of, current=2, seat=0, num_teams=2) == 0.4
    assert _from_side(0.4, team_of, current=1, seat=0, num_teams=2) == -0.4
    assert _from_side(0.4, [0, 1, 2], current=1, seat=0, num_teams=3) == -0.2


def test_one_blas_thread_restores():
    from agents.search import _blas_threads

    calls = _blas_threads()
    if calls is None:
        pytest.skip("numpy does not use its bundled OpenBLAS here")
    get, _put = calls
    before = get()
    with one_blas_thread():
        assert get() == 1
    assert get() == before


# ---------------------------------------------------------------------- measuring
def test_measuring_run_writes_timings(tmp_path, capsys):
    from research.search_timing import main

    out = tmp_path / "run"
    main(["--agents", "search:classic-2p@8,depth=4", "random", "--hands", "2", "--out", str(out)])
    timing = json.loads((out / "timings.json").read_text())
    results = json.loads((out / "results.json").read_text())
    assert timing["partial"] is False
    assert len(results["hands"]) == 2
    assert timing["wall"]["decisions"] == timing["cpu"]["decisions"] > 0
    assert timing["wall"]["p99"] <= timing["wall"]["max"]
    assert "search decisions" in capsys.readouterr().out


class _InterruptingAgent(RandomAgent):
    """A random player whose 40th move is a Ctrl-C."""

    def act(self, observation, action_mask):
        self.moves = getattr(self, "moves", 0) + 1
        if self.moves == 40:
            raise KeyboardInterrupt
        return super().act(observation, action_mask)


def test_interrupted_measuring_run_keeps_its_times(tmp_path, monkeypatch, capsys):
    from agents import registry
    from research.search_timing import main

    monkeypatch.setitem(registry._FACTORIES, "interrupting", _InterruptingAgent)
    out = tmp_path / "run"
    code = main(["--agents", "search:classic-2p@8,depth=4", "interrupting", "--hands", "8",
                 "--out", str(out)])  # fmt: skip
    assert code == 130
    timing = json.loads((out / "timings.json").read_text())
    results = json.loads((out / "results.json").read_text())
    assert timing["partial"] is True and results["partial"] is True
    assert timing["cpu"]["decisions"] > 0
    assert "partial: interrupted" in capsys.readouterr().out


# ---------------------------------------------------------------------- the belief
def test_history_belief_searches_other_worlds_deterministically(policy):
    """belief=history keeps other worlds than the uniform search (same seed), the same
    ones again for the same seed, and a legal move."""
    positions = open_positions(policy, 2, seed=21, count=4)

    def scores(belief, seed):
        agent = make_agent(f"search:classic-2p{QUICK},belief={belief}", seed=seed)
        moves = [decide(agent, game) for game in positions]
        return moves, agent.stats.scores.copy()

    first, again = scores("history", 4), scores("history", 4)
    assert first[0] == again[0] and np.array_equal(first[1], again[1])
    assert not np.array_equal(first[1], scores("uniform", 4)[1])
    for game, move in zip(positions, first[0]):
        assert move in game.legal_actions()


def test_a_sure_network_needs_a_wider_margin(policy):
    """Where the network's prior is 0.95-0.995 the search runs, and a candidate must beat
    the network's move by sure_margin_z standard errors: never with a huge margin, the
    best mean whenever it differs with a margin below every difference."""
    positions = [
        g for seed in (21, 22, 23) for g in open_positions(policy, 2, seed, 3, (0.95, 0.995))
    ]
    assert len(positions) >= 5
    deviated = 0
    for game in positions:
        strict = make_agent("search:classic-2p@16,depth=4,sure_margin_z=1000", seed=1)
        assert decide(strict, game) == strict.stats.policy_move
        assert strict.stats.searched
        loose = make_agent("search:classic-2p@16,depth=4,sure_margin_z=-1000", seed=1)
        move = decide(loose, game)
        best = int(np.argmax(loose.stats.scores.mean(axis=1)))
        assert move == loose.stats.candidates[best]
        deviated += move != loose.stats.policy_move
        # above the confident prior nothing is searched
        skip = make_agent("search:classic-2p@16,depth=4,confident=0.95", seed=1)
        decide(skip, game)
        assert not skip.stats.searched
    assert deviated >= 1


# ---------------------------------------------------------------------- odd networks
def _model_file(path, obs_size: int, num_actions: int, scale: float, seed: int = 0) -> str:
    """A one-hidden-layer model file of the given layout, weights ``scale`` times uniform
    draws in [-1, 1] (finite, as the model reader requires)."""
    rng = np.random.default_rng(seed)
    hidden = 16

    def draw(*shape):
        return (rng.uniform(-1, 1, size=shape) * scale).astype(np.float32)

    meta = {"format": "canasta-mlp-1", "obs_size": obs_size, "num_actions": num_actions,
            "hidden": [hidden]}  # fmt: skip
    np.savez(
        path,
        trunk_w0=draw(obs_size, hidden), trunk_b0=draw(hidden),
        pi_w=draw(hidden, num_actions), pi_b=draw(num_actions),
        v_w=draw(hidden, 1), v_b=draw(1),
        meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8),
    )  # fmt: skip
    return str(path)


@pytest.mark.parametrize(
    "layout, scale",
    [((100, 120), 0.1), ((400, 500), 3e38)],
    ids=["a network of a shorter layout", "finite weights that overflow"],
)
@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning", "ignore:invalid value:RuntimeWarning")
def test_an_odd_network_plays_only_legal_moves_to_the_end_of_a_hand(tmp_path, layout, scale):
    """Issue 44 (12): a network scoring only the first 120 ids failed mid-hand (IndexError
    in the rollouts' mask), and one of weights 3e38 (logits of NaN and inf) played an
    illegal action. Every move is legal now, and the rollouts ran."""
    path = _model_file(tmp_path / "odd.npz", *layout, scale)
    agent = SearchAgent(path, SearchConfig(rollouts=8, depth=6, confident=1.0, margin_z=0.0,
                                           sure_margin_z=0.0), seed=3)  # fmt: skip
    table = Table(make_rules("classic"), 2, seed=5, backend=None)
    searched = 0
    while not table.hand_over:
        obs, mask = table.observation(table.current), table.mask()
        action = table.choose_action(agent, obs, mask)
        assert mask[action] == 1
        searched += agent.stats.searched
        table.step(action)
    assert searched >= 5


# ---------------------------------------------------------------------- a model of the others
def test_another_network_plays_the_other_team_in_the_rollouts(policy, tmp_path):
    """``SearchAgent(opponent=...)`` (research/opponent_search.py): the other team's seats of
    every rollout are played by that network, the agent's team by its own. The same network
    as the opponent gives exactly the default's scores; another network (a positive control)
    other scores, while the candidates stay the agent's."""
    positions = open_positions(policy, 2, seed=21, count=4)
    config = SearchConfig(rollouts=8, depth=6, confident=1.0, margin_z=0, sure_margin_z=0)
    own = SearchAgent("classic-2p", config)
    same = SearchAgent("classic-2p", config, opponent="classic-2p")
    other = SearchAgent("classic-2p", config, opponent="classic-4p")
    changed = 0
    for game in positions:
        worlds = [game.copy() for _ in range(3)]
        moves = game.legal_actions()[:2]
        base = own.score_moves(worlds, moves, game.current)
        assert np.array_equal(same.score_moves(worlds, moves, game.current), base)
        changed += not np.array_equal(other.score_moves(worlds, moves, game.current), base)
    assert changed >= 1
    wide = _model_file(tmp_path / "wide.npz", obs_size=100, num_actions=120, scale=0.1)
    with pytest.raises(ValueError, match="action ids"):
        SearchAgent("classic-2p", config, opponent=wide)
