"""G-8 Information: an observation shows only what its player may see.

Each test builds pairs of games: random play to a state, ``game.copy()``, and
in the copy a new deal of everything the viewer cannot see, consistent with
what the viewer knows (:func:`canasta_env.compliance.permute_hidden`): the
stock order and contents, the other players' hands (teammates included)
except the cards known to be there from pot takes (``game.known``), and the
face-down pot cards (``game.pot_hidden_cards``); hand sizes, stock size and
card conservation are kept. The viewer's observation (and, when it acts, its
action mask) must then be identical. A positive control changes the viewer's
own hand and checks that the observation does change, so the test can fail.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from canasta_env.actions import DRAW, TAKE
from canasta_env.cards import NUM_HAND_KINDS, NUM_NATURALS, RED3, kind_of_code
from canasta_env.compliance import (
    CHECK_VARIANTS,
    conservation_errors,
    hidden_info_differences,
    observation_of,
    permute_hidden,
    sample_states,
    variant_rules,
)
from canasta_env.engine.game import PHASE_DRAW, PHASE_HAND_OVER, Game
from canasta_env.observation import HISTORY_SEAT_SIZE, OFFSETS, ObservationBuilder
from canasta_env.rules import PRESETS

#: Every preset and player count, and the S-19 runs (``spanish+sequences``), whose
#: suits are hidden too: other hands' and the stock's suits never show.
CONFIGS = [(name, n) for name in CHECK_VARIANTS for n in variant_rules(name).player_counts]
ACE = kind_of_code("AS")


def states(variant: str, players: int, hands: int = 2, per_hand: int = 25, seed: int = 0):
    rng = random.Random(seed)
    for hand in range(hands):
        yield from sample_states(variant_rules(variant), players, seed * 100 + hand, per_hand, rng)


@pytest.mark.parametrize(("variant", "players"), CONFIGS)
def test_observation_ignores_hidden_cards(variant, players):
    """G-8: stock order, other hands' unknown cards and face-down pot cards are not observed."""
    rng = random.Random(players)
    checked = 0
    for game in states(variant, players):
        for viewer in range(players):
            problems = hidden_info_differences(game, viewer, rng, tries=2)
            assert not problems, problems
            for to_act in (True, False):  # the env builds both forms
                base = ObservationBuilder(game).build(viewer, to_act)
                other = ObservationBuilder(permute_hidden(game, viewer, rng)).build(viewer, to_act)
                assert np.array_equal(base, other)
        checked += 1
    assert checked >= 40


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("spanish", 4), ("italian", 2)])
def test_builder_cache_does_not_leak_across_permutations(variant, players):
    """The env reuses one builder per game; its team cache must not hide a difference either."""
    rng = random.Random(1)
    for game in states(variant, players, hands=1, per_hand=20, seed=3):
        builder = ObservationBuilder(game)
        for viewer in range(players):
            first = builder.build(viewer)
            copy = permute_hidden(game, viewer, rng)
            assert np.array_equal(ObservationBuilder(copy).build(viewer), first)
            assert np.array_equal(builder.build(viewer), first)


@pytest.mark.parametrize(("variant", "players"), CONFIGS)
def test_permutation_is_real_and_consistent(variant, players):
    """The permutation keeps card conservation and what the viewer knows, and moves cards."""
    rng = random.Random(7)
    moved_stock = moved_hands = moved_pot = 0
    for game in states(variant, players, hands=1, per_hand=15, seed=1):
        for viewer in range(players):
            copy = permute_hidden(game, viewer, rng)
            assert conservation_errors(copy) == []
            assert copy.hands[viewer] == game.hands[viewer]
            assert len(copy.stock) == len(game.stock)
            assert copy.pot[copy.pot_hidden :] == game.pot[game.pot_hidden :]
            assert copy.pot_hidden == game.pot_hidden
            for seat in range(players):
                assert sum(copy.hands[seat]) == sum(game.hands[seat])
                assert copy.hand_totals[seat] == game.hand_totals[seat]
                for kind in range(NUM_HAND_KINDS):
                    assert copy.hands[seat][kind] >= min(
                        game.known[seat][kind], game.hands[seat][kind]
                    )
                assert copy.hands[seat][RED3] == 0
            moved_stock += copy.stock != game.stock
            moved_hands += any(copy.hands[s] != game.hands[s] for s in range(players))
            moved_pot += copy.pot_hidden_cards != game.pot_hidden_cards
            assert game.copy().stock == game.stock  # the original is untouched
    assert moved_stock and moved_hands
    rules = variant_rules(variant)
    if rules.pot_face_down or rules.pot_start_count_under_natural:
        assert moved_pot, "no state with face-down pot cards was permuted"


@pytest.mark.parametrize(("variant", "players"), [("classic", 2), ("spanish", 4), ("italian", 4)])
def test_positive_control_own_hand_is_observed(variant, players):
    """Changing the viewer's own hand changes its observation: the check above can fail."""
    rng = random.Random(5)
    changed = 0
    for game in states(variant, players, hands=1, per_hand=10, seed=2):
        viewer = game.current
        base, _ = observation_of(game, viewer)
        copy = game.copy()
        hand = copy.hands[viewer]
        kinds = [k for k in range(NUM_HAND_KINDS) if hand[k] > copy.known[viewer][k]]
        if not kinds or not copy.stock:
            continue
        give = rng.choice(kinds)
        take = next(k for k in copy.stock if k != give and k != RED3)
        copy.stock.remove(take)
        copy.stock.append(give)
        hand[give] -= 1
        hand[take] += 1
        copy.state_changed()
        assert conservation_errors(copy) == []
        obs, _ = observation_of(copy, viewer)
        assert not np.array_equal(obs, base)
        assert hidden_info_differences(game, viewer, rng) == []
        changed += 1
    assert changed >= 5


@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("italian", 2), ("spanish", 3)])
def test_positive_control_discard_history_is_observed(variant, players):
    """The history block is public: the permutation keeps it, and one more discard in a
    seat's history changes exactly that seat's entry of every viewer's observation."""
    rng = random.Random(3)
    changed = 0
    for game in states(variant, players, hands=1, per_hand=10, seed=4):
        history = (game.discarded, game.declined, game.since_discard)
        for viewer in range(players):
            copy = permute_hidden(game, viewer, rng)
            assert (copy.discarded, copy.declined, copy.since_discard) == history
            base, _ = observation_of(game, viewer)
            other = game.copy()
            seat = (viewer + 1) % players  # slot 1 from the viewer
            other.discarded[seat][ACE] += 1
            obs, _ = observation_of(other, viewer)
            assert np.flatnonzero(obs != base).tolist() == [
                OFFSETS["history"] + HISTORY_SEAT_SIZE + ACE
            ]
            changed += 1
    assert changed >= 10


def test_positive_control_other_hand_leak_would_be_caught():
    """A builder that leaked the next player's hand would fail the comparison."""

    class LeakyBuilder(ObservationBuilder):
        def build(self, viewer, viewer_to_act=True):
            obs = super().build(viewer, viewer_to_act)
            nxt = (viewer + 1) % self.game.num_players
            obs[:NUM_HAND_KINDS] += np.asarray(self.game.hands[nxt][:NUM_HAND_KINDS]) * 100
            return obs

    rng = random.Random(0)
    caught = 0
    for game in states("classic", 4, hands=1, per_hand=10):
        copy = permute_hidden(game, 0, rng)
        caught += not np.array_equal(LeakyBuilder(game).build(0), LeakyBuilder(copy).build(0))
    assert caught >= 8


def test_face_up_pot_cards_become_known_after_a_take():
    """G-8: every pile take is public: the face-up cards under the top join ``known``."""
    rng = random.Random(0)
    found = 0
    for seed in range(40):
        game = Game(PRESETS["classic"], 2, seed=seed)
        taken = set()
        while game.phase != PHASE_HAND_OVER:
            legal = game.legal_actions()
            takes = [a for a in legal if TAKE <= a <= TAKE + 3]
            seat = game.current
            if takes and seat not in taken and len(game.pot) >= 3:
                assert game.known[seat] == [0] * len(game.known[seat])
                public = list(game.pot_known)
                public[game.pot[-1]] -= 1  # the top card goes to a meld
                game.apply(takes[0])
                assert game.known[seat][:NUM_HAND_KINDS] == public[:NUM_HAND_KINDS]
                taken.add(seat)
                found += 1
                break
            game.apply(rng.choice(legal))
        if found >= 3:
            break
    assert found >= 3


def _spanish_take_state(hidden: list[int]) -> Game:
    """Spanish, 2 players, player 0 to draw with A A in hand; pot = ``hidden`` face down + A.

    Taking the pot with the two aces melds 3 aces (60 >= 50: the team opens) and
    leaves the hand empty, so the turn can be completed only with cards from the pot.
    """
    game = Game(PRESETS["spanish"], 2, seed=0)
    # gather every card that is not on the table back into the stock, then deal as wanted
    for kind in range(len(game.hands[0])):
        game.stock += [kind] * (game.hands[0][kind] + game.hands[1][kind])
    game.stock += game.pot
    game.stock += [RED3] * game.red3[0] + [RED3] * game.red3[1]
    game.red3 = [0, 0]
    game.hands = [[0] * len(game.hands[0]) for _ in range(2)]
    hidden = list(hidden)
    for kind in hidden + [ACE, ACE, ACE]:
        game.stock.remove(kind)
    game.hands[0][ACE] = 2
    for _ in range(15):
        kind = next(k for k in game.stock if k != RED3)
        game.stock.remove(kind)
        game.hands[1][kind] += 1
    game.hand_totals = [2, 15]
    game.known = [[0] * len(game.known[0]) for _ in range(2)]
    game.pot = hidden + [ACE]
    game.pot_hidden = len(hidden)
    game.pot_known = [0] * len(game.pot_known)
    game.pot_known[ACE] = 1
    game.pot_wild = False
    game.current = 0
    game.phase = PHASE_DRAW
    game.state_changed()
    assert conservation_errors(game) == []
    return game


def test_take_never_counts_on_face_down_pot_cards():
    """G-8: face-down pot cards count as if they were red 3s when deciding a take.

    Taking with A A would empty the hand; only the six face-down cards could give a
    discard, and the player cannot see them, so the take is not offered, whatever
    those cards are (here plain naturals that would have helped).
    """
    game = _spanish_take_state([kind_of_code(c) for c in "4S 5S 6S 7S 8S 9S".split()])
    assert TAKE not in game.legal_actions()
    assert game.legal_actions() == [DRAW]


def test_take_legality_does_not_depend_on_face_down_cards():
    """G-8: two pots that differ only in face-down cards give the same mask."""
    red = _spanish_take_state([RED3] * 6)
    plain = _spanish_take_state([kind_of_code(c) for c in "4S 5S 6S 7S 8S 9S".split()])
    assert (
        ObservationBuilder(red).build(0).tobytes() == ObservationBuilder(plain).build(0).tobytes()
    )
    assert red.legal_actions() == plain.legal_actions()


def _swap_suit_with_stock(game: Game, seat: int) -> bool:
    """Swap the suit of one natural of ``seat`` with a stock card of the same rank."""
    suited = game.suits.hands[seat]
    for index, (kind, suit) in enumerate(zip(game.stock, game.suits.stock)):
        if kind >= NUM_NATURALS:
            continue
        mine = [s for s in range(4) if s != suit and suited[kind * 4 + s]]
        if mine:
            suited[kind * 4 + mine[0]] -= 1
            suited[kind * 4 + suit] += 1
            game.suits.stock[index] = mine[0]
            game.state_changed()
            return True
    return False


def test_S19_own_suits_are_observed_and_other_suits_are_not():
    """S-19, G-8: with runs on, the viewer's observation changes when a suit in its own
    hand changes (positive control) and not when one in another hand or the stock does."""
    changed = 0
    for game in states("spanish+sequences", 2, hands=1, per_hand=12, seed=4):
        viewer = game.current
        base, _ = observation_of(game, viewer)
        own = game.copy()
        other = game.copy()
        if not (_swap_suit_with_stock(own, viewer) and _swap_suit_with_stock(other, 1 - viewer)):
            continue
        assert conservation_errors(own) == [] and conservation_errors(other) == []
        assert not np.array_equal(observation_of(own, viewer)[0], base)
        obs, legal = observation_of(other, viewer)
        assert np.array_equal(obs, base)
        assert legal == observation_of(game, viewer)[1]
        changed += 1
    assert changed >= 5
