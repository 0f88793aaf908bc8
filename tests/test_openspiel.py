"""The OpenSpiel adapter (canasta_env.openspiel) and the IS-MCTS arena agent."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts  # noqa: E402

from agents import openspiel_bot, registry  # noqa: E402
from agents.base import play_hands  # noqa: E402
from canasta_env import openspiel as adapter  # noqa: E402
from canasta_env.actions import action_to_str  # noqa: E402
from canasta_env.cards import deck_counts  # noqa: E402
from canasta_env.engine.game import Game  # noqa: E402
from canasta_env.observation import ObservationBuilder  # noqa: E402
from canasta_env.rules import PRESETS  # noqa: E402


def load(variant="classic", players=2):
    return pyspiel.load_game(adapter.GAME_NAME, {"variant": variant, "players": players})


def dealt(game, seed):
    """A state after the whole deal, chance outcomes drawn from their probabilities."""
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    return state


def play_random(state, seed):
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    return state


@pytest.mark.parametrize("variant,players", [("classic", 2), ("classic", 4), ("italian", 2)])
def test_random_sim_test_passes(variant, players):
    pyspiel.random_sim_test(load(variant, players), num_sims=2, serialize=False, verbose=False)


def test_game_facts():
    game = load()
    cards = 108  # classic, 2 players: 2 decks of 52 and 4 jokers
    assert game.num_distinct_actions() == 500
    assert game.max_chance_outcomes() == 15
    assert game.max_game_length() == cards + 4 * cards + 1
    assert game.num_players() == 2 and game.observation_tensor_size() == 686
    assert game.get_type().provides_information_state_string
    assert not game.get_type().provides_information_state_tensor
    assert game.min_utility() == -game.max_utility() < 0


def test_bad_parameters_raise():
    with pytest.raises(Exception, match="nope"):
        load("nope")
    with pytest.raises(Exception, match="5"):
        load("classic", 5)


def test_the_deal_is_the_deck_order_with_true_probabilities():
    game = load()
    state = game.new_initial_state()
    counts = deck_counts(2, 2)
    first = dict(state.chance_outcomes())
    assert first == {kind: n / 108 for kind, n in enumerate(counts) if n}
    assert sum(first.values()) == pytest.approx(1.0)
    state.apply_action(0)  # a 4
    second = dict(state.chance_outcomes())
    assert second[0] == pytest.approx((counts[0] - 1) / 107)
    assert sum(second.values()) == pytest.approx(1.0)
    # the dealt order is the engine's stacked deck: same hands as Game(deck=...)
    state = dealt(game, 3)
    deck = state._dealt
    engine = Game(PRESETS["classic"], 2, seed=0, deck=deck)
    assert state.engine.hands == engine.hands and state.engine.stock == engine.stock


def test_legal_actions_observation_and_strings_are_ours():
    game = load()
    state = dealt(game, 1)
    play = random.Random(0)
    for _ in range(12):
        engine = state.engine
        player = state.current_player()
        assert state.legal_actions() == engine.legal_actions()
        expected = ObservationBuilder(engine).build(player)
        assert np.array_equal(np.array(state.observation_tensor(player), np.float32), expected)
        action = play.choice(state.legal_actions())
        assert state.action_to_string(player, action) == action_to_str(action)
        state.apply_action(action)
    other = 1 - state.current_player()
    text = state.observation_string(other)
    assert f"player {state.current_player()}: " in text  # the other hand as a count only


def test_returns_sum_to_zero_and_match_the_scores():
    for players in (2, 3, 4):
        state = play_random(dealt(load("classic", players), players), players)
        returns = state.returns()
        assert sum(returns) == pytest.approx(0.0, abs=1e-9)
        totals = [sheet["total"] for sheet in state.engine.hand_scores]
        team = state.engine.team_of[0]
        others = [t for t in range(len(totals)) if t != team]
        mean = sum(totals[t] for t in others) / len(others)
        assert returns[0] == pytest.approx((totals[team] - mean) / 1000)
        game = state.get_game()
        assert all(game.min_utility() <= r <= game.max_utility() for r in returns)


def test_determinism():
    def run(seed):
        state = play_random(dealt(load(), seed), seed)
        return state.history(), state.returns()

    assert run(5) == run(5)
    assert run(5) != run(6)


def test_clone_is_independent():
    state = dealt(load(), 2)
    clone = state.clone()
    clone.apply_action(clone.legal_actions()[0])
    assert state.engine.num_steps == 0 and clone.engine.num_steps == 1
    assert clone.history()[:-1] == state.history()


def test_resample_from_infostate():
    state = dealt(load(), 4)
    play = random.Random(1)
    for _ in range(9):
        state.apply_action(play.choice(state.legal_actions()))
    player = state.current_player()
    other = 1 - player
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    samples = [state.resample_from_infostate(player, sampler) for _ in range(6)]
    for sample in samples:
        assert sample.information_state_string(player) == state.information_state_string(player)
        assert sample.observation_tensor(player) == state.observation_tensor(player)
        assert sample.legal_actions() == state.legal_actions()
        assert sample.history() == []  # no true deal in it
        assert state.information_state_string(other) not in sample.information_state_string(other)
    assert len({tuple(s.engine.hands[other]) for s in samples}) > 1  # positive control
    resampled = samples[0]
    play_random(resampled, 3)
    assert sum(resampled.returns()) == pytest.approx(0.0, abs=1e-9)
    twice = [state.resample_with(player, random.Random(8)).engine.stock for _ in range(2)]
    assert twice[0] == twice[1]


def test_information_state_has_perfect_recall_of_own_draws():
    state = dealt(load(), 6)
    player = state.current_player()
    other = 1 - player
    before = state.information_state_string(player)
    state.apply_action(0)  # draw: the player sees which card, the other only that it drew

    def hand(seat):
        return "".join(f"{n:x}" for n in state.engine.hands[seat])

    after_own = state.information_state_string(player)
    assert after_own.startswith(before + "\n")  # nothing forgotten, one line added
    assert after_own.splitlines()[-1].startswith(f"0 hand {hand(player)} ")
    assert (
        state.information_state_string(other).splitlines()[-1].startswith(f"0 hand {hand(other)} ")
    )


def test_uniform_random_bots_play_complete_games():
    game = load("classic", 4)
    bots = [pyspiel.make_uniform_random_bot(seat, seed) for seat, seed in enumerate(range(4))]
    returns = pyspiel.evaluate_bots(dealt(game, 0), bots, 7)
    assert len(returns) == 4 and sum(returns) == pytest.approx(0.0, abs=1e-9)


def test_ismcts_bot_plays_a_complete_game():
    game = load()
    state = dealt(game, 8)
    bots = [
        ismcts.ISMCTSBot(
            game, openspiel_bot.ScoreEvaluator(), 1.0, 8, random_state=np.random.RandomState(s)
        )
        for s in range(2)
    ]
    while not state.is_terminal():
        state.apply_action(bots[state.current_player()].step(state))
    assert sum(state.returns()) == pytest.approx(0.0, abs=1e-9)


def test_loader_names():
    assert openspiel_bot.load_agent("ismcts").simulations == openspiel_bot.DEFAULT_SIMULATIONS
    assert openspiel_bot.load_agent("ismcts-25").simulations == 25
    assert openspiel_bot.load_agent("random").simulations is None
    for bad in ("ismcts-0", "ismcts-x", "mcts", ""):
        with pytest.raises(ValueError, match="openspiel:ismcts-N"):
            openspiel_bot.load_agent(bad)


def _make(name, seed, monkeypatch):
    """make_agent through the entry-point group, with our loader declared in it."""

    class Point:
        name = "openspiel"
        value = "agents.openspiel_bot:load_agent"

        def load(self):
            return openspiel_bot.load_agent

    real = registry.entry_points
    monkeypatch.setattr(registry, "entry_points", lambda group: [*real(group=group), Point()])
    return registry.make_agent(name, seed=seed)


def test_agent_plays_through_the_runner_deterministically(monkeypatch):
    def run(seed):
        agent = _make("openspiel:ismcts-10", seed, monkeypatch)
        other = registry.make_agent("greedy", seed=1)
        record = play_hands([agent, other], 1, "classic", seed=2)[0]
        return record.team_scores, record.steps

    assert run(4) == run(4)
    assert run(4) != run(5) or run(4) != run(6)


def test_agent_refuses_to_act_without_a_world_and_house_rules(monkeypatch):
    agent = _make("openspiel:ismcts-10", 0, monkeypatch)
    with pytest.raises(RuntimeError, match="reset"):
        agent.act(np.zeros(686, np.float32), np.ones(500, np.int8))
    agent.reset(0, 2, PRESETS["classic"])
    with pytest.raises(RuntimeError, match="choose_action"):
        agent.act(np.zeros(686, np.float32), np.ones(500, np.int8))
    from canasta_env.rules import make_rules

    with pytest.raises(ValueError, match="house rules"):
        agent.reset(0, 2, make_rules("classic", target_score=3000))
