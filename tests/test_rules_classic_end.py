"""Classic Canasta scenario tests: keeping a card, going out, stock exhaustion and
scoring (RULES.md C-13, C-14, C-15, C-16, C-17, G-4, G-9, resolved ambiguity 4).

Every position comes from a stacked deck (tests/scenario.py); the stock-exhaustion
tests stack the whole deck and burn the middle of the stock by draw-and-discard
turns. Every score is worked out by hand in the comments.
"""

from __future__ import annotations

import pytest

from tests.scenario import (
    assert_illegal,
    burn_stock,
    hand_of,
    legal_strings,
    new_game,
    play,
    score_sheet,
)

#: A hand for the player who only draws and discards: 4 5 6 x2 = 30, 8 9 T x2 = 60,
#: J Q K = 30: 120 points.
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"

#: 15 cards that go out concealed after drawing a Q: 7 x7, A A A, K K K, Q Q (+ Q).
GO_OUT_HAND = "7 7 7 7 7 7 7 A A A K K K Q Q"


def sheet(melded=0, canasta_bonus=0, red3=0, going_out=0, hand_penalty=0, canastas=0):
    """A classic score sheet (no count bonus); the total is the sum of the parts (G-9, C-17)."""
    return score_sheet(melded, canasta_bonus, red3, 0, going_out, hand_penalty, canastas)


def discards(kinds: str) -> set[str]:
    return {f"discard {k}" for k in kinds.split()}


# ----------------------------------------------------------------------------- C-13


def test_C13_player_keeps_a_card_while_the_team_may_not_go_out():
    """C-13: without a canasta the player may not meld or discard down to an empty hand;
    melding Q Q Q would leave a last card that cannot be discarded."""
    game = new_game(["7 7 7 7 7 7 A A A K K K Q Q Q", FILLER], "J 9 5 5")
    play(game, "draw", "meld 7 7 7 7 7 7", "meld A A A", "meld K K K")
    assert hand_of(game, 0) == "9 Q Q Q"
    assert legal_strings(game) == discards("9 Q")
    assert_illegal(game, "meld Q Q Q")
    play(game, "discard 9")
    play(game, "draw", "discard 5")
    play(game, "draw")  # a 5
    assert legal_strings(game) == discards("5 Q")


# ----------------------------------------------------------------------------- C-14


@pytest.mark.parametrize(
    ("dealt", "legal"),
    [
        # six 7s: no canasta, melding the last cards is refused
        ("7 7 7 7 7 7 A A A K K K K Q Q", {"discard Q"}),
        # seven 7s: a canasta, Q Q Q goes out
        ("7 7 7 7 7 7 7 A A A K K K Q Q", {"discard Q", "meld Q Q Q"}),
    ],
)
def test_C14_going_out_needs_a_canasta(dealt, legal):
    """C-14: a player may go out only when the team has a canasta."""
    game = new_game([dealt, FILLER], "T J 5 Q")
    play(game, "draw", "meld " + " ".join(["7"] * dealt.count("7")), "meld A A A")
    play(game, "meld K K K K" if dealt.count("K") == 4 else "meld K K K")
    assert hand_of(game, 0) == "J Q Q"
    assert legal_strings(game) == discards("J Q")
    play(game, "discard J")
    play(game, "draw", "discard 5")
    play(game, "draw")  # the third Q
    assert legal_strings(game) == legal


def test_C15_going_out_after_opening_earlier_scores_100():
    """C-15, C-14: the team opened in an earlier turn, so going out (by melding the last
    cards) is not concealed: 100."""
    game = new_game(["7 7 7 7 7 7 7 A A A K K K Q Q", FILLER], "T J 5 Q")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K", "discard J")
    play(game, "draw", "discard 5")
    play(game, "draw", "meld Q Q Q")
    assert game.hand_over and game.went_out == 0 and not game.concealed
    # 35 + 60 + 30 + 30 = 155 melded; 500 clean canasta; 100 for going out
    assert game.hand_scores[0] == sheet(155, 500, going_out=100, canastas=1)
    assert game.hand_scores[1] == sheet(hand_penalty=-120)
    assert game.scores == [755, -120]


# ----------------------------------------------------------------------------- C-15


def test_C15_concealed_going_out_without_discard():
    """C-15: all 16 cards melded in one turn, nothing on the table before: 200."""
    game = new_game([GO_OUT_HAND, FILLER], "J Q")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K")
    assert legal_strings(game) == {"meld Q Q Q", "discard Q"}
    play(game, "meld Q Q Q")
    assert game.went_out == 0 and game.concealed and game.end_reason == "went out"
    # 35 + 60 + 30 + 30 = 155 melded; 500 clean canasta; 200 concealed
    assert game.hand_scores[0] == sheet(155, 500, going_out=200, canastas=1)
    assert game.hand_scores[1] == sheet(hand_penalty=-120)


def test_C15_concealed_going_out_with_discard():
    """C-15: 15 cards melded and the last one discarded, in one turn: 200."""
    game = new_game(["7 7 7 7 7 7 7 A A A K K K K K", FILLER], "J 9")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K K K")
    assert legal_strings(game) == {"discard 9"}
    play(game, "discard 9")
    assert game.went_out == 0 and game.concealed
    assert game.pot[-1] == 5  # the 9 was discarded
    # 35 + 60 + 5 x 10 = 145 melded; 500; 200 concealed
    assert game.hand_scores[0] == sheet(145, 500, going_out=200, canastas=1)


def test_C15_concealed_going_out_ignores_the_opening_minimum():
    """C-15: at 1500 the minimum is 90 (C-8), but going out concealed with 80 points of
    melds is allowed; every meld of the turn must lead to going out."""
    game = new_game(["7 7 7 7 7 7 7 4 4 4 5 5 5 6 6", FILLER], "J 6", scores=[1500, 0])
    assert game.need[0] == 90
    play(game, "draw")
    sevens = {"meld " + " ".join(["7"] * n) for n in range(3, 8)}
    assert legal_strings(game) == sevens | {"meld 4 4 4", "meld 5 5 5", "meld 6 6 6"} | (
        discards("4 5 6 7")
    )
    play(game, "meld 7 7 7 7 7 7 7", "meld 4 4 4", "meld 5 5 5")  # 35 + 15 + 15 = 65
    assert legal_strings(game) == {"meld 6 6 6"}
    play(game, "meld 6 6 6")
    assert game.went_out == 0 and game.concealed
    # 35 + 3 x 15 = 80 melded; 500; 200 concealed
    assert game.hand_scores[0] == sheet(80, 500, going_out=200, canastas=1)
    assert game.scores == [1500 + 780, -120]


def test_C15_minimum_applies_when_not_going_out():
    """C-15, C-8: with a K instead of the last 6 the player cannot go out, and 80 < 90
    cannot open: no meld at all is legal."""
    game = new_game(["7 7 7 7 7 7 7 4 4 4 5 5 5 6 6", FILLER], "J K", scores=[1500, 0])
    play(game, "draw")
    assert legal_strings(game) == discards("4 5 6 7 K")


@pytest.mark.parametrize(
    ("partner_melds", "team0"),
    [
        # partner opened with A A A + Q Q Q: not concealed (ambiguity 4)
        # melded 60 + 30 + 35 + 40 = 165; 500; 100; partner's hand 5 6 8 T J = -40
        (True, 165 + 500 + 100 - 40),
        # nobody of team 0 had melded: concealed, 200
        # melded 35 + 40 = 75; 500; 200; partner's hand A A A Q Q Q 5 6 8 T J = -130
        (False, 75 + 500 + 200 - 130),
    ],
)
def test_C15_concealed_needs_partners_without_melds(partner_melds, team0):
    """C-15, resolved ambiguity 4, G-3: going out in one turn is concealed only if the
    partners have not melded either; partners share the score."""
    game = new_game(
        [
            "7 7 7 7 7 7 7 K K K 9",  # player 0
            "4 5 6 8 9 T J Q 4 5 6",  # player 1: 30 + 50 = 80
            "A A A Q Q 4 5 6 8 T J",  # player 2, partner of 0
            "4 5 6 8 9 T J Q 8 9 T",  # player 3: 15 + 50 + 30 = 95
        ],
        "J 9 5 Q 8 K",  # the pile starts with J; then the draws of players 0, 1, 2, 3, 0
    )
    play(game, "draw", "discard 9")
    play(game, "draw", "discard 5")
    play(game, "draw")
    if partner_melds:
        play(game, "meld A A A", "meld Q Q Q")  # 90 >= 50: team 0 opens
    play(game, "discard 4")
    play(game, "draw", "discard 8")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld K K K K", "discard 9")
    assert game.went_out == 0
    assert game.concealed is not partner_melds
    assert game.hand_scores[0]["going_out"] == (100 if partner_melds else 200)
    assert game.hand_scores[0]["total"] == team0
    # team 1 (players 1 and 3): -(80 + 95)
    assert game.hand_scores[1] == sheet(hand_penalty=-175)


# ----------------------------------------------------------------------------- C-16

#: Player 0 holds every wild card and three red 3s and only draws and discards, so
#: no wild card ever reaches the pile. Its hand after the red-3 replacements 4 5 6:
#: 8 x 20 + 4 x 50 + 3 x 5 = 375.
DUMMY = "2 2 2 2 2 2 2 2 JK JK JK JK R3 R3 R3"


def exhaustion_game(p1_hand: str, last: str, p1_red3_replacement: str = "5"):
    """A fully stacked deal: player 1 opens with A A A and 9 9 9 (90) on its first turn,
    then both players draw and discard the card drawn until the ``last`` cards remain."""
    replacement = p1_red3_replacement if "R3" in p1_hand else ""
    game = new_game([DUMMY, p1_hand], f"4 5 6 {replacement} K 8 7", last=last)
    play(game, "draw", "discard 8")
    play(game, "draw", "meld A A A", "meld 9 9 9", "discard 7")
    burn_stock(game, len(last.split()))
    return game


#: Player 1 after opening: 9 9 K J T 8 7 6 (5) or Q Q K J T 8 7 6 (5)
NINES = "A A A 9 9 9 9 9 K J T 8 7 6 R3"
QUEENS = "A A A 9 9 9 Q Q K J T 8 7 6 R3"
#: player 0: 3 red 3s with no meld: -300; its hand: -375
DUMMY_SHEET = sheet(red3=-300, hand_penalty=-375)
#: player 1: 60 + 30 melded; 1 red 3: +100; Q Q K J T 8 = 60, 7 6 5 = 15: -75 (no going out)
QUEENS_SHEET = sheet(90, red3=100, hand_penalty=-75)


def test_C16_red3_as_last_card_ends_the_hand():
    """C-16, G-6: the last stock card is a red 3: it is laid out, nothing replaces it,
    and the hand ends at once; no going-out bonus."""
    game = exhaustion_game(QUEENS.replace("R3", "5"), last="R3")
    assert len(game.stock) == 1 and game.current == 1
    play(game, "draw")
    assert game.hand_over and game.end_reason == "stock exhausted" and game.went_out is None
    assert game.red3 == [3, 1]
    assert game.hand_scores == [DUMMY_SHEET, QUEENS_SHEET]
    assert game.scores == [-675, 115]


def test_C16_last_card_not_red3_play_goes_on_then_pass():
    """C-16: after the last (ordinary) card the player finishes the turn; with the stock
    empty the next player may take the pile (two Qs, no meld of Qs: not forced) or pass,
    which ends the hand with no going-out bonus."""
    game = exhaustion_game(QUEENS, last="Q")
    assert len(game.stock) == 1 and game.current == 0
    play(game, "draw")
    assert game.stock == [] and game.phase == 1
    play(game, "discard Q")
    assert game.current == 1
    assert legal_strings(game) == {"take", "pass"}
    assert_illegal(game, "draw")
    play(game, "pass")
    assert game.hand_over and game.end_reason == "stock exhausted" and game.went_out is None
    assert game.hand_scores == [DUMMY_SHEET, QUEENS_SHEET]


def test_C16_must_take_a_pile_matching_a_team_meld():
    """C-16: stock empty, the top 9 matches the team's 9s and the pile is not frozen:
    the player must take it (no pass)."""
    game = exhaustion_game(NINES, last="9")
    play(game, "draw", "discard 9")
    assert not game.pot_wild
    assert legal_strings(game) == {"take", "take onto meld"}
    assert_illegal(game, "pass", "draw")
    play(game, "take onto meld")
    assert game.nat[1][5] == 4  # 9 9 9 + the top 9
    play(game, "discard K")
    # player 0 cannot take the K (C-9: frozen for an unopened team; one K at most): the
    # hand ends at once
    assert game.hand_over and game.end_reason == "stock exhausted" and game.went_out is None
    assert game.hand_scores[0] == DUMMY_SHEET
    assert game.hand_scores[1]["going_out"] == 0 and game.hand_scores[1]["red3"] == 100


def test_C16_frozen_matching_pile_may_be_passed():
    """C-16, C-9: a pile frozen by a 2 need not be taken even if its top card matches a
    team meld; the player may take it with two naturals or pass."""
    game = exhaustion_game(NINES, last="4 5 9")
    assert len(game.stock) == 3 and game.current == 0
    play(game, "draw", "discard 2")  # player 0 keeps the 4
    play(game, "draw", "discard 5")
    play(game, "draw", "discard 9")
    assert game.pot_wild and game.stock == []
    assert legal_strings(game) == {"take", "pass"}
    play(game, "pass")
    assert game.hand_over
    # player 0: 7 x 20 + 4 x 50 + 4 4 5 6 (20) = 360; red 3s -300
    assert game.hand_scores[0] == sheet(red3=-300, hand_penalty=-360)
    # player 1: 90 melded, +100, 9 9 K J T 8 (60) + 7 6 5 (15) = -75
    assert game.hand_scores[1] == sheet(90, red3=100, hand_penalty=-75)


def test_C16_hand_ends_when_no_take_is_legal():
    """C-16: stock empty and the next player cannot take the pile: the hand ends at the
    end of the previous turn."""
    game = exhaustion_game(QUEENS, last="4")
    play(game, "draw", "discard 4")
    assert game.hand_over and game.end_reason == "stock exhausted"
    assert legal_strings(game) == set()
    assert game.hand_scores == [DUMMY_SHEET, QUEENS_SHEET]


# ----------------------------------------------------------------------------- C-17, G-4, G-9


def test_C17_dirty_canasta_and_red3_signs():
    """C-17: a dirty canasta scores 300; red 3s are +100 each for a team that melded and
    -100 each for a team that made no meld."""
    game = new_game(
        ["7 7 7 7 7 JK 2 A A A K K K Q R3", "R3 R3 R3 4 5 6 8 9 T J 4 5 6 8 9"],
        "Q T K J 4 Q",  # replacements: p0 Q; p1 T K J; the pile starts with 4; p0 draws Q
    )
    assert game.red3 == [1, 3]
    play(game, "draw", "meld 7 7 7 7 7 2 JK", "meld A A A", "meld K K K", "meld Q Q Q")
    assert game.went_out == 0
    # 7s: 5 x 5 + 20 + 50 = 95; A A A 60; K K K 30; Q Q Q 30: 215
    assert game.hand_scores[0] == sheet(215, 300, red3=100, going_out=200, canastas=1)
    # 4 4 5 5 6 6 = 30, 8 8 9 9 T T J J K = 90: -120; 3 red 3s without a meld: -300
    assert game.hand_scores[1] == sheet(red3=-300, hand_penalty=-120)
    assert game.scores == [815, -420]


@pytest.mark.parametrize("holder", [0, 1])
def test_C17_four_red3s_score_800(holder):
    """C-17: all four red 3s of one team score 800, minus 800 if it made no meld."""
    red3s = "R3 R3 R3 R3 7 7 7 7 7 7 7 A A A K"  # replaced by K K Q Q: a going-out hand
    other = "R3 R3 R3 R3 4 5 6 8 9 T J Q K 4 5"  # replaced by 6 8 9 T: FILLER
    hands = [red3s, FILLER] if holder == 0 else [GO_OUT_HAND, other]
    replacements = "K K Q Q" if holder == 0 else "6 8 9 T"
    game = new_game(hands, f"{replacements} J Q")
    assert game.red3 == ([4, 0] if holder == 0 else [0, 4])
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K", "meld Q Q Q")
    # going out: 35 + 60 + 30 + 30 = 155; 500; 200 concealed
    if holder == 0:
        assert game.hand_scores[0] == sheet(155, 500, red3=800, going_out=200, canastas=1)
        assert game.hand_scores[1] == sheet(hand_penalty=-120)
    else:
        assert game.hand_scores[0] == sheet(155, 500, going_out=200, canastas=1)
        assert game.hand_scores[1] == sheet(red3=-800, hand_penalty=-120)


def test_C17_clean_and_dirty_canastas_and_melds_past_seven():
    """C-17, C-5, G-4: a clean canasta (500) and a dirty one grown to 8 cards (300)."""
    game = new_game(["7 7 7 7 7 7 7 K K K K K K 2 JK", FILLER], "J 9")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld K K K K K 2 JK", "add K", "discard 9")
    assert game.went_out == 0
    # 7s 35; Ks 6 x 10 + 20 + 50 = 130: 165 melded; 500 + 300; 200 concealed
    assert game.hand_scores[0] == sheet(165, 800, going_out=200, canastas=2)


def test_G4_wild_card_added_to_clean_canasta_makes_it_dirty():
    """G-4, C-17: seven natural 7s are clean until a 2 joins them; then 300, not 500."""
    game = new_game(["7 7 7 7 7 7 7 2 A A A K K K K", FILLER], "J 9")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "add 2 to 7", "meld A A A", "meld K K K K")
    play(game, "discard 9")
    # 35 + 20 + 60 + 40 = 155 melded; 300 dirty canasta; 200 concealed
    assert game.hand_scores[0] == sheet(155, 300, going_out=200, canastas=1)


def test_G9_cards_left_in_hand_count_minus_their_values():
    """G-9, G-2: every card left in a hand counts minus its value (black 3: 5)."""
    hand = "4 5 6 8 9 T J JK 2 A B3 4 5 6 8"
    game = new_game([GO_OUT_HAND, hand], "J Q")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K", "meld Q Q Q")
    # 4 5 6 4 5 6: 30; 8 9 T J 8: 50; JK 50; 2 20; A 20; B3 5: 175
    assert game.hand_scores[1] == sheet(hand_penalty=-175)
    assert game.scores == [855, -175]
