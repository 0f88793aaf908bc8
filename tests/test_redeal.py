"""The engine's one redeal (:func:`canasta_env.engine.determinize.determinize`).

Search agents' worlds and the G-8 compliance check (``permute_hidden``) both call it.
Without suits its random stream is frozen (a search agent's games must not change):
a digest of worlds dealt before the S-19 suits were redealt is pinned here. With the
S-19 runs (spanish ``sequences=True``), where the redeal used to refuse, it deals the
same kinds as without suits and every suit count is conserved.
"""

from __future__ import annotations

import hashlib
import random

import pytest

from canasta_env.cards import NUM_NATURALS
from canasta_env.compliance import conservation_errors, permute_hidden, sample_states
from canasta_env.engine.determinize import determinize
from canasta_env.engine.game import Game
from canasta_env.engine.invariants import conservation_gaps, state_card_counts
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import PHASE_HAND_OVER
from canasta_env.engine.suits import NO_SUITS
from canasta_env.rules import PRESETS, make_rules

#: sha256 of the worlds of :func:`_suitless_worlds`, computed with the redeal as it was
#: before it dealt suits (commit a2c99b6): the suit-less random stream must stay so.
SUITLESS_DIGEST = "1fd869a6c4a153c81063a73af84ffafd39eb860ca5da6b39d0f5f438a0f606c2"


def _positions(rules, players: int, seed: int, count: int):
    """Positions of one random game, every 7th step, where the seat to act may redeal."""
    rng = random.Random(seed)
    game = Game(rules, players, seed=seed)
    found = []
    step = 0
    while game.phase != PHASE_HAND_OVER and len(found) < count:
        game.apply(rng.choice(game.legal_actions()))
        step += 1
        if step % 7 == 0 and game.phase != PHASE_HAND_OVER:
            found.append(game.copy())
    return found


def _suitless_worlds() -> str:
    digest = hashlib.sha256()
    for variant, players in (("classic", 2), ("classic", 4), ("spanish", 3), ("italian", 2)):
        for index, game in enumerate(_positions(PRESETS[variant], players, players, 12)):
            world = determinize(game, game.current, random.Random(index))
            digest.update(repr((world.hands, world.stock, world.pot)).encode())
            digest.update(repr(world.rng.getrandbits(64)).encode())
    return digest.hexdigest()


def test_the_suitless_random_stream_is_unchanged():
    assert _suitless_worlds() == SUITLESS_DIGEST


def _suit_totals(game: Game, seats) -> list[int]:
    """Suited naturals (``kind * 4 + suit``) in the given hands, the stock and the pot."""
    totals = [0] * (NUM_NATURALS * NUM_SUITS)
    for seat in seats:
        for index, count in enumerate(game.suits.hands[seat]):
            totals[index] += count
    for kind, suit in zip(game.stock + game.pot, game.suits.stock + game.suits.pot):
        if kind < NUM_NATURALS:
            totals[kind * NUM_SUITS + suit] += 1
    return totals


def _strip_suits(game: Game) -> Game:
    bare = game.copy()
    bare.suits = NO_SUITS
    return bare


@pytest.mark.parametrize("players", [2, 4])
def test_runs_positions_are_redealt_with_their_suits(players):
    """Positive control: the S-19 runs used to be refused; now suits are dealt too."""
    rules = make_rules("spanish", sequences=True)
    games = _positions(rules, players, 5, 10)
    assert len(games) >= 5
    suits_moved = 0
    for index, game in enumerate(games):
        seat = game.current
        others = [other for other in range(players) if other != seat]
        world = determinize(game, seat, random.Random(index))
        # the same kinds as the redeal without suits, from the same generator
        plain = determinize(_strip_suits(game), seat, random.Random(index))
        assert (world.hands, world.stock, world.pot) == (plain.hands, plain.stock, plain.pot)
        assert world.suits.hands[seat] == game.suits.hands[seat]
        assert world.suits.pot[game.pot_hidden :] == game.suits.pot[game.pot_hidden :]
        assert world.suits.held == game.suits.held
        for other in others:
            for kind in range(NUM_NATURALS):
                row = world.suits.hands[other][kind * NUM_SUITS : (kind + 1) * NUM_SUITS]
                assert sum(row) == world.hands[other][kind]
        assert _suit_totals(world, others) == _suit_totals(game, others)  # suits conserved
        deck = game.full_deck_counts()
        assert conservation_gaps(state_card_counts(world), deck) == []
        assert conservation_errors(world) == []
        suits_moved += any(world.suits.hands[o] != game.suits.hands[o] for o in others)
        while world.phase != PHASE_HAND_OVER:  # and the world plays on
            world.apply(random.Random(index).choice(world.legal_actions()))
        assert conservation_errors(world) == []
    assert suits_moved > len(games) // 2


def test_runs_redeal_depends_only_on_what_the_seat_sees():
    rules = make_rules("spanish", sequences=True)
    for index, game in enumerate(_positions(rules, 2, 9, 6)):
        seat = game.current
        twin = permute_hidden(game, seat, random.Random(100 + index))
        a = determinize(game, seat, random.Random(index))
        b = determinize(twin, seat, random.Random(index))
        assert (a.hands, a.suits.hands, a.stock, a.suits.stock, a.pot, a.suits.pot) == (
            b.hands,
            b.suits.hands,
            b.stock,
            b.suits.stock,
            b.pot,
            b.suits.pot,
        )


def test_keep_held_redeals_around_set_aside_cards():
    """Another player's set-aside pot cards (C-8) are refused, or kept with keep_held."""
    rules = make_rules("spanish", sequences=True)
    rng = random.Random(0)
    checked = 0
    for game in sample_states(rules, 2, 1, 200, rng):
        if not any(game.held):
            continue
        viewer = 1 - game.current
        with pytest.raises(ValueError, match="C-8"):
            determinize(game, viewer, random.Random(0))
        world = determinize(game, viewer, random.Random(0), keep_held=True)
        assert world.held == game.held and world.suits.held == game.suits.held
        assert conservation_errors(world) == []
        checked += 1
    if not checked:
        pytest.skip("no sampled state with set-aside pot cards")
