"""Classic Canasta scenario tests: taking and freezing the discard pile
(RULES.md C-9, C-10, C-11, C-12, G-8).

Every position comes from a stacked deck (tests/scenario.py); the masks of the draw
phase are compared in full.
"""

from __future__ import annotations

import pytest

from canasta_env.cards import NUM_KINDS, kind_from_name
from tests.scenario import (
    assert_illegal,
    counts,
    hand_of,
    legal_strings,
    melds_of,
    new_game,
    play,
)

#: A hand for the player who only draws and discards (120 points).
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"


# ----------------------------------------------------------------------------- C-9, C-10


def sevens_position(dealt: str, first_discard: str):
    """Player 0 opens with A A A and 7 7 7, discards ``first_discard``; player 1
    discards a 7: player 0 faces a 7 on top with the team's meld of 7s."""
    game = new_game([dealt, FILLER], "K Q 7")
    play(game, "draw", "meld A A A", "meld 7 7 7", f"discard {first_discard}")
    play(game, "draw", "discard 7")  # player 1 draws the stacked 7
    assert game.current == 0 and game.phase == 0
    return game


@pytest.mark.parametrize(
    ("first_discard", "frozen", "legal"),
    [
        ("2", True, {"draw"}),
        ("4", False, {"draw", "take +2", "take +JK", "take onto meld"}),
    ],
)
def test_C9_wild_discard_freezes_pile(first_discard, frozen, legal):
    """C-9, C-10, C-11: a discarded 2 freezes the pile for everybody: with one natural 7,
    wild cards and a meld of 7s, player 0 may take the 7 only while it is not frozen."""
    game = sevens_position("A A A 7 7 7 7 2 JK 4 5 6 8 9 T", first_discard)
    assert game.pot_wild is frozen
    assert legal_strings(game) == legal
    if frozen:
        assert_illegal(game, "take", "take +JK", "take onto meld")


def test_C10_frozen_pile_taken_with_two_naturals_joins_meld():
    """C-10, C-9: two natural 7s take the frozen pile; the top 7 and the two join the
    team's 7s; the rest goes to the hand and the pile is no longer frozen."""
    game = sevens_position("A A A 7 7 7 7 7 2 JK 4 5 6 8 9", "2")
    assert game.pot_wild
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert melds_of(game, 0) == {"7": "7 7 7 7 7 7", "A": "A A A"}
    assert hand_of(game, 0) == "4 5 6 8 9 Q K 2 JK"  # + the pile's K and 2
    assert game.pot == [] and not game.pot_wild
    play(game, "discard 4")
    assert not game.pot_wild


def test_C9_pile_frozen_against_unopened_team():
    """C-9, C-11: the same unfrozen pile (9 on top, no wild in it) cannot be taken with a
    9 and a joker by the unopened player 1, but can by the opened player 0."""
    game = new_game(
        ["K K K Q Q Q 9 9 JK 4 5 6 8 T J", "9 JK A A A 4 5 6 8 T J Q K 4 5"],
        "T 7 8",
    )
    play(game, "draw", "meld K K K", "meld Q Q Q", "discard 9")  # 60: opened
    assert not game.pot_wild
    # 9 9 JK would be 70 >= 50, but the pile is frozen for player 1: two natural 9s
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take +JK")
    play(game, "draw", "discard 9")
    assert legal_strings(game) == {"draw", "take +JK"}
    play(game, "take +JK")
    assert melds_of(game, 0) == {"9": "9 9 JK", "Q": "Q Q Q", "K": "K K K"}
    assert hand_of(game, 0) == "4 5 6 7 8 9 T T J"  # + the pile's T and 9


# ----------------------------------------------------------------------------- C-11, C-12


def nines_position(p1_discard: str):
    """Player 0 (melds A A A and 9 9 9, holds 9 9 2 JK) faces ``p1_discard`` on
    the pile Q J."""
    game = new_game(["9 9 9 9 9 A A A 2 JK 4 5 6 8 T", FILLER], f"Q J {p1_discard}")
    play(game, "draw", "meld A A A", "meld 9 9 9", "discard J")
    play(game, "draw", f"discard {p1_discard}")
    assert game.current == 0
    return game


def test_C11_unfrozen_pile_take_options():
    """C-11: an unfrozen pile is taken with two naturals, a natural and a 2, a natural
    and a joker, or onto the team's meld of the top card's rank."""
    game = nines_position("9")
    assert legal_strings(game) == {"draw", "take", "take +2", "take +JK", "take onto meld"}


@pytest.mark.parametrize(
    ("take", "nines", "hand"),
    [
        ("take", "9 9 9 9 9 9", "4 5 6 8 T J Q 2 JK"),
        ("take +2", "9 9 9 9 9 2", "4 5 6 8 9 T J Q JK"),
        ("take +JK", "9 9 9 9 9 JK", "4 5 6 8 9 T J Q 2"),
        ("take onto meld", "9 9 9 9", "4 5 6 8 9 9 T J Q 2 JK"),
    ],
)
def test_C12_take_melds_top_card_and_hand_gets_the_rest(take, nines, hand):
    """C-12, C-11: the top 9 is melded at once with the cards named by the action; the
    rest of the pile (Q J) goes to the hand."""
    game = nines_position("9")
    play(game, take)
    assert melds_of(game, 0) == {"9": nines, "A": "A A A"}
    assert hand_of(game, 0) == hand
    assert game.pot == [] and game.phase == 1


@pytest.mark.parametrize("top", ["B3", "2", "JK"])
def test_C12_black3_or_wild_on_top_blocks_the_pile(top):
    """C-12: the pile can never be taken while its top card is a black 3 or a wild card,
    even by a player who holds two naturals matching the card below and a meld of them."""
    game = nines_position(top)
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take", "take +2", "take +JK", "take onto meld")


def test_C11_take_respects_the_meld_limits():
    """C-11, C-5: a natural and a 2 cannot take the pile onto 9 9 9 2 2 2 (4 wild cards);
    the top 9 alone still joins the meld."""
    game = new_game(["9 9 9 9 2 2 2 2 A A A 4 5 6 8", FILLER], "Q J 9")
    play(game, "draw", "meld A A A", "meld 9 9 9 2 2 2", "discard J")
    play(game, "draw", "discard 9")
    assert hand_of(game, 0) == "4 5 6 8 9 2"
    assert legal_strings(game) == {"draw", "take onto meld"}
    assert_illegal(game, "take +2")
    play(game, "take onto meld")
    assert melds_of(game, 0) == {"9": "9 9 9 9 2 2 2", "A": "A A A"}


# ----------------------------------------------------------------------------- G-8


def test_G8_pile_take_makes_cards_known():
    """G-8: cards that go from the pile into a hand are known to all; a discard of one
    of them makes it unknown again; other hands stay unknown."""
    game = nines_position("9")
    assert game.known == [[0] * NUM_KINDS, [0] * NUM_KINDS]
    play(game, "take")
    assert game.known[0] == counts("Q J")
    assert game.known[1] == [0] * NUM_KINDS
    play(game, "discard Q")
    assert game.known[0] == counts("J")
    assert game.hand_totals == [8, 15]  # hand sizes are public


def test_C12_pile_cards_taken_may_complete_a_canasta_to_go_out():
    """C-12, C-11, C-14: with 9 9 left, player 0 takes the pile Q 9; the Q goes to the
    hand and completes the team's canasta of Qs, so the player goes out."""
    game = new_game(["K K Q Q Q Q Q Q Q 9 9 A A A A", FILLER], "K 5")
    assert legal_strings(game) == {"draw", "take"}  # K K K 30 + Qs 60 >= 50
    play(game, "take", "meld Q Q Q Q Q Q", "meld A A A A", "discard Q")
    assert hand_of(game, 0) == "9 9"
    play(game, "draw", "discard 9")
    assert game.pot == [kind_from_name("Q"), kind_from_name("9")]
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert hand_of(game, 0) == "Q"
    assert legal_strings(game) == {"add Q"}  # discarding the Q needs a canasta (C-14)
    play(game, "add Q")
    assert game.went_out == 0 and not game.concealed
    # K K K 30 + 7 x Q 70 + 4 x A 80 + 9 9 9 30 = 210 melded; 500; 100 for going out
    assert game.hand_scores[0]["total"] == 210 + 500 + 100
    # player 1: FILLER (120) - 9 + 5 = 115
    assert game.hand_scores[1]["total"] == -115
