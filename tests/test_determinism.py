"""Determinism: the same seed and actions give the same game bit for bit.

All randomness of a game goes through its seeded generator, so two games with
one seed, driven by the same actions, agree on every state attribute (the
generator's state included) at every step and across hands; a replay of the
recorded actions rebuilds the game; different seeds deal different games; and
``Game.copy()`` evolves exactly like the original without sharing state with it.
"""

from __future__ import annotations

import random

import pytest

from canasta_env.engine.game import Game
from canasta_env.rules import PRESETS
from canasta_env.rules import make_rules as _make_rules
from tests.reference_rules import STYLES, choose_action, plain, snapshot

NEXT_HAND = -1  # marker in recorded action lists
HANDS = 3

CASES = [
    pytest.param(name, n, id=f"{name}-{n}p")
    for name, rules in PRESETS.items()
    for n in rules.player_counts
]
# S-19 runs: the suits of the shuffle and of every card moved are deterministic too
CASES += [pytest.param("spanish+sequences", n, id=f"spanish+sequences-{n}p") for n in (2, 6)]


def make_rules(variant: str):  # the presets, and "spanish+sequences" (S-19 runs on)
    base, _, option = variant.partition("+")
    return _make_rules(base, **({option: True} if option else {}))


def play(
    game: Game, rng: random.Random, hands: int, style: str, on_step=None, limit: int = 10**9
) -> list[int]:
    """Random play over ``hands`` hands (at most ``limit`` actions); returns the actions
    with NEXT_HAND markers."""
    actions: list[int] = []
    for hand in range(hands):
        while game.phase != 2:
            if len(actions) >= limit:
                return actions
            legal = game.legal_actions()
            if not legal:  # a stranded player: test_properties reports it
                return actions
            action = choose_action(rng, legal, style)
            actions.append(action)
            game.apply(action)
            if on_step:
                on_step(game, len(actions))
        if game.game_over or hand == hands - 1:
            break
        actions.append(NEXT_HAND)
        game.next_hand()
    return actions


def replay(game: Game, actions: list[int], on_step=None) -> None:
    for index, action in enumerate(actions, 1):
        if action == NEXT_HAND:
            game.next_hand()
        else:
            game.apply(action)
        if on_step:
            on_step(game, index)


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_same_seed_same_actions_same_state_at_every_step(variant: str, players: int) -> None:
    rules = make_rules(variant)
    seed = 11 * players + len(variant)
    style = STYLES[players % len(STYLES)]
    first = Game(rules, players, seed=seed)
    trace = []
    actions = play(
        first,
        random.Random(seed),
        HANDS,
        style,
        lambda g, i: trace.append((snapshot(g), tuple(g.legal_actions()))),
    )
    second = Game(rules, players, seed=seed)
    # the same policy seed makes the same choices only if the masks agree step by step
    again = []
    actions_again = play(
        second,
        random.Random(seed),
        HANDS,
        style,
        lambda g, i: again.append((snapshot(g), tuple(g.legal_actions()))),
    )
    assert actions_again == actions
    assert len(again) == len(trace)
    for step, (expected, got) in enumerate(zip(trace, again)):
        assert got == expected, f"{variant} {players}p seed {seed}: states differ at step {step}"
    # a replay of the recorded actions rebuilds the game step by step
    third = Game(rules, players, seed=seed)
    steps = []
    replay(third, actions, lambda g, i: steps.append(i))
    assert snapshot(third) == snapshot(first)
    assert third.hand_history == first.hand_history and third.scores == first.scores


@pytest.mark.parametrize("variant", list(PRESETS))
def test_different_seeds_deal_different_games(variant: str) -> None:
    rules = make_rules(variant)
    players = rules.player_counts[0]
    deals = set()
    stocks = set()
    for seed in range(40):
        game = Game(rules, players, seed=seed)
        deals.add(plain((game.hands, game.pot)))
        stocks.add(plain(game.stock))
    assert len(deals) == 40 and len(stocks) == 40
    # and random play from two seeds goes different ways
    runs = []
    for seed in (1, 2):
        game = Game(rules, players, seed=seed)
        runs.append(play(game, random.Random(seed), 1, "uniform"))
    assert runs[0] != runs[1]


@pytest.mark.parametrize(("variant", "players"), CASES)
def test_copy_evolves_like_the_original(variant: str, players: int) -> None:
    rules = make_rules(variant)
    seed = 300 + players
    game = Game(rules, players, seed=seed)
    rng = random.Random(seed)
    style = STYLES[(players + 1) % len(STYLES)]
    copies_checked = 0
    for _hand in range(2):
        step = 0
        while game.phase != 2 and game.legal_actions():
            if step % 17 == 0:
                copy = game.copy()
                assert snapshot(copy) == snapshot(game)
                # both evolve through the same actions (into the next deal, which draws
                # on the copied random generator, when the hand ends soon)
                follow = random.Random(step)
                original_twin = game.copy()
                moves = play(copy, follow, 2, style, limit=60)
                replay(original_twin, moves)
                assert snapshot(original_twin) == snapshot(copy)
                copies_checked += 1
            before = snapshot(game)
            copy = game.copy()
            action = choose_action(rng, game.legal_actions(), style)
            copy.apply(action)  # playing the copy leaves the original untouched
            assert snapshot(game) == before
            game.apply(action)
            assert snapshot(game) == snapshot(copy)
            step += 1
        if game.phase != 2 or game.game_over:
            break
        before = snapshot(game)
        copy = game.copy()
        copy.next_hand()
        assert snapshot(game) == before
        game.next_hand()
        assert snapshot(game) == snapshot(copy)
    assert copies_checked >= 2
