"""Classic Canasta scenario tests: the turn, card values, melds, black 3s and the
opening (RULES.md G-2, G-4, G-5, C-4, C-5, C-6, C-7, C-8).

Every position comes from a stacked deck (tests/scenario.py); expected masks are
written out in full where they are readable, and numbers are worked out by hand.
"""

from __future__ import annotations

import pytest

from canasta_env.actions import ACTION_TEXTS
from canasta_env.cards import CARD_VALUES, kind_from_name
from tests.scenario import (
    assert_illegal,
    counts,
    hand_of,
    legal_strings,
    meld_strings,
    melds_of,
    new_game,
    play,
)

#: A hand for the player who only draws and discards (120 points, see test_rules_classic_deal).
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"


def discards(kinds: str) -> set[str]:
    return {f"discard {k}" for k in kinds.split()}


# ----------------------------------------------------------------------------- C-4


def test_C4_turn_is_draw_then_melds_then_one_discard():
    """C-4: draw (or take) first; then melds are optional; one discard ends the turn."""
    game = new_game(["A A A 4 5 6 7 8 9 T J Q K 7 8", FILLER], "K 5")
    assert game.phase == 0 and game.current == 0
    assert legal_strings(game) == {"draw"}  # one K in hand: the pile cannot be taken
    assert_illegal(game, "discard 4", "meld A A A", "pass")
    play(game, "draw")  # the 5
    assert game.phase == 1 and game.hand_totals[0] == 16
    assert legal_strings(game) == {"meld A A A"} | discards("4 5 6 7 8 9 T J Q K A")
    assert_illegal(game, "draw", "take")
    play(game, "meld A A A")  # 60 >= 50 opens
    assert legal_strings(game) == discards("4 5 6 7 8 9 T J Q K")
    play(game, "discard 4")
    assert (game.current, game.phase) == (1, 0)
    assert game.pot == [kind_from_name("K"), kind_from_name("4")]
    assert hand_of(game, 0) == "5 5 6 7 7 8 8 9 T J Q K"
    # a turn without melds: draw and discard
    play(game, "draw", "discard 9")
    assert (game.current, game.phase) == (0, 0)


# ----------------------------------------------------------------------------- G-2


def test_G2_card_values():
    """G-2: joker 50; 2 = 20; A = 20; K Q J 10 9 8 = 10; 7 6 5 4 = 5; black 3 = 5."""
    ranks = "4 5 6 7 8 9 T J Q K A".split()
    values = [CARD_VALUES[kind_from_name(name)] for name in ranks]
    assert values == [5, 5, 5, 5, 10, 10, 10, 10, 10, 10, 20]
    assert [CARD_VALUES[kind_from_name(k)] for k in ("2", "JK", "B3")] == [20, 50, 5]


def test_G2_values_count_toward_the_opening():
    """G-2, G-5: each meld of the opening turn adds its card values (need 120 at 3000)."""
    game = new_game(["4 4 4 K K K A A A 2 JK 8 9 T J", FILLER], "K Q", scores=[3000, 0])
    assert game.need == [120, 50]
    play(game, "draw")
    steps = [
        ("meld 4 4 4", 15),  # 3 x 5
        ("meld K K K", 45),  # + 3 x 10
        ("add 2 to 4", 65),  # + 20
        ("add JK to K", 115),  # + 50
        ("meld A A A", 175),  # + 3 x 20
    ]
    for action, staged in steps:
        assert not game.opened[0]
        play(game, action)
        assert game.staged == staged, action
    assert game.opened == [True, False]


# ----------------------------------------------------------------------------- G-5


@pytest.mark.parametrize(
    ("score", "need", "melds"),
    [
        # 3000 -> 120: 7 x7 (35) + K K K (30) = 65 < 120, the canasta bonus does not count
        (3000, 120, set()),
        # 0 -> 50: 35 + 30 = 65 >= 50; any 7 meld can be grown to 7 cards this turn
        (0, 50, {"meld K K K"} | {"meld " + " ".join(["7"] * n) for n in range(3, 8)}),
    ],
)
def test_G5_canasta_bonus_does_not_count_toward_opening(score, need, melds):
    """G-5: the opening counts card values only; a canasta's bonus never helps."""
    game = new_game(["7 7 7 7 7 7 7 K K K 4 5 6 8 9", FILLER], "J Q", scores=[score, 0])
    assert game.need[0] == need
    play(game, "draw")
    assert legal_strings(game) == melds | discards("4 5 6 7 8 9 Q K")


def test_G5_opening_is_staged_over_several_melds():
    """G-5: the first melds of a turn must together reach the minimum; until then the
    player cannot discard, and every meld must leave the minimum reachable."""
    game = new_game(["7 7 7 7 7 7 7 K K K 4 5 6 8 9", FILLER], "J Q")
    play(game, "draw", "meld K K K")  # 30
    assert not game.opened[0] and game.staged == 30
    assert_illegal(game, "discard 4")
    play(game, "meld 7 7 7")  # 45
    assert legal_strings(game) == {"add 7"}
    play(game, "add 7")  # 50: opened
    assert game.opened == [True, False]
    assert legal_strings(game) == {"add 7"} | discards("4 5 6 7 8 9 Q")


# ----------------------------------------------------------------------------- C-5, G-4


def test_C5_new_meld_compositions():
    """C-5: at least 2 naturals, never more wild cards than naturals, at most 3 wilds."""
    game = new_game(["A A A 7 7 2 2 JK 4 5 6 9 T J Q", FILLER], "K 8")
    play(game, "draw", "meld A A A")  # 60: opened
    assert legal_strings(game) == {
        "meld 7 7 2",
        "meld 7 7 JK",
        "meld 7 7 2 2",
        "meld 7 7 2 JK",  # 2 naturals + 3 wilds would be more wilds than naturals
        "add 2 to A",
        "add JK to A",
    } | discards("4 5 6 7 8 9 T J Q 2 JK")
    play(game, "meld 7 7 2 JK")
    assert melds_of(game, 0) == {"7": "7 7 2 JK", "A": "A A A"}
    assert meld_strings(game) == {"add 2 to A"}
    assert_illegal(game, "add 2 to 7")  # 3 wilds on 2 naturals


def test_C5_at_most_three_wild_cards():
    """C-5: a meld never holds more than 3 wild cards, even with many naturals."""
    game = new_game(["A A A A A 2 2 2 JK 4 5 6 8 9 T", FILLER], "K Q")
    play(game, "draw")
    expected = set()
    for n in range(2, 6):  # the hand holds five aces, three 2s and one joker
        for twos in range(4):
            for jokers in range(2):
                wilds = twos + jokers
                if 3 <= n + wilds <= 7 and wilds <= min(n, 3):
                    expected.add("meld " + " ".join(["A"] * n + ["2"] * twos + ["JK"] * jokers))
    assert meld_strings(game) == expected
    assert "meld A A A 2 2 2 JK" not in expected  # 4 wilds
    play(game, "meld A A A A 2 2 2")  # 4 x 20 + 3 x 20 = 140: opened
    assert meld_strings(game) == {"add A"}
    assert_illegal(game, "add JK to A")
    play(game, "add A")  # 5 naturals, 3 wilds
    assert meld_strings(game) == set()
    assert_illegal(game, "add JK to A")


def test_C5_one_meld_per_rank_and_wilds_added_while_limits_hold():
    """C-5: a team has one meld of a rank (more cards are added to it); wild cards may
    be added while the limits hold."""
    game = new_game(["7 7 7 7 7 7 A A A 2 4 5 6 8 9", FILLER], "K J")
    play(game, "draw", "meld A A A", "meld 7 7 7")
    assert meld_strings(game) == {"add 7", "add 2 to 7", "add 2 to A"}
    assert_illegal(game, "meld 7 7 7")
    play(game, "add 7", "add 7", "add 2 to 7")
    assert melds_of(game, 0) == {"7": "7 7 7 7 7 2", "A": "A A A"}
    assert meld_strings(game) == {"add 7"}


# ----------------------------------------------------------------------------- C-6


def test_C6_wild_cards_never_meld_alone_and_red3s_never_meld():
    """C-6: no meld of wild cards only; red 3s are never melded (no action names them)."""
    game = new_game(["2 2 2 JK JK A A A 4 5 6 8 9 T J", FILLER], "K Q")
    play(game, "draw")
    assert all(s.startswith("meld A A") for s in meld_strings(game))
    assert_illegal(game, "meld 2 2 2", "meld 2 2 JK", "meld 2 JK JK")
    assert not any("R3" in text for text in ACTION_TEXTS)


# ----------------------------------------------------------------------------- C-7


def test_C7_black3_meld_when_going_out():
    """C-7, G-2: 3 black 3s may be melded as the player goes out; each counts 5."""
    game = new_game(["7 7 7 7 7 7 7 A A A K K K B3 B3", FILLER], "J B3")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K")
    assert legal_strings(game) == {"meld B3 B3 B3", "discard B3"}
    play(game, "meld B3 B3 B3")
    assert game.went_out == 0 and game.concealed
    # 35 + 60 + 30 + 3 x 5 = 140 melded, 500 clean canasta, 200 concealed
    assert game.hand_scores[0]["melded"] == 140
    assert game.hand_scores[0]["total"] == 140 + 500 + 200


def test_C7_black3s_first_then_the_turn_must_end_by_going_out():
    """C-7: the black 3s may be melded before the other melds of the going-out turn;
    from then on the turn can only end by going out: no discard while cards would
    remain, and only melds that keep going out possible."""
    game = new_game(["7 7 7 7 7 7 7 A A A K K K B3 B3", FILLER], "J B3")
    play(game, "draw")
    assert "meld B3 B3 B3" in legal_strings(game)
    play(game, "meld B3 B3 B3")
    sevens = {"meld " + " ".join(["7"] * n) for n in range(3, 8)}
    assert legal_strings(game) == sevens | {"meld A A A", "meld K K K"}
    assert_illegal(game, "discard 7", "discard A")
    play(game, "meld A A A", "meld 7 7 7 7 7 7")
    # six 7s on the table: the last 7 must join them (a canasta), so K K K alone is
    # no longer enough, and discarding the 7 would leave K K K in hand
    assert legal_strings(game) == {"add 7", "meld K K K"}
    play(game, "meld K K K")
    assert legal_strings(game) == {"add 7"}
    play(game, "add 7")
    assert game.went_out == 0 and game.concealed


def test_C7_four_black3s_then_discard():
    """C-7: a meld of 4 black 3s (or 3 and then the fourth), then the last card is
    discarded to go out."""
    game = new_game(["7 7 7 7 7 7 7 A A A A B3 B3 B3 B3", FILLER], "K J")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A A")
    assert legal_strings(game) == {"meld B3 B3 B3", "meld B3 B3 B3 B3"} | discards("J B3")
    twin = game.copy()
    play(twin, "meld B3 B3 B3")
    assert legal_strings(twin) == {"add B3"}  # discarding would leave a card
    play(twin, "add B3")
    assert legal_strings(twin) == {"discard J"}
    play(game, "meld B3 B3 B3 B3")
    assert legal_strings(game) == {"discard J"}
    play(game, "discard J")
    assert game.went_out == 0
    # 35 + 4 x 20 + 4 x 5 = 135 melded, 500 clean canasta, 200 concealed
    assert game.hand_scores[0]["total"] == 135 + 500 + 200


def test_C7_no_black3_meld_without_going_out():
    """C-7: black 3s cannot be melded when the player cannot go out this turn:
    too many other cards (a), or no canasta (b, C-14)."""
    # (a) 9 Q J cannot be melded
    game = new_game(["7 7 7 7 7 7 7 A A A B3 B3 B3 9 Q", FILLER], "K J")
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A")
    assert legal_strings(game) == discards("9 J Q B3")
    assert_illegal(game, "meld B3 B3 B3")
    # (b) six 7s only: no canasta, so no going out
    game = new_game(["7 7 7 7 7 7 A A A K K K B3 B3 B3", FILLER], "J 9")
    play(game, "draw", "meld 7 7 7 7 7 7", "meld A A A", "meld K K K")
    assert legal_strings(game) == discards("9 B3")
    assert_illegal(game, "meld B3 B3 B3")


# ----------------------------------------------------------------------------- C-8


@pytest.mark.parametrize(
    ("score", "need"),
    [
        (-2000, 15),
        (-5, 15),
        (0, 50),
        (1495, 50),
        (1500, 90),
        (2995, 90),
        (3000, 120),
        (9000, 120),
    ],
)
def test_C8_opening_minimum_by_team_score(score, need):
    """C-8: below 0: 15; 0 to 1495: 50; 1500 to 2995: 90; 3000 or more: 120."""
    game = new_game([FILLER, FILLER], "K", scores=[score, 0])
    assert game.need == [need, 50]


@pytest.mark.parametrize(("score", "opens"), [(-10, True), (0, False)])
def test_C8_minimum_decides_the_opening_meld(score, opens):
    """C-8: 7 7 7 (15 points) opens a team below 0, not a team at 0 (minimum 50)."""
    game = new_game(["7 7 7 4 5 6 8 9 T J Q K A 4 5", FILLER], "K 9", scores=[score, 0])
    play(game, "draw")
    melds = {"meld 7 7 7"} if opens else set()
    assert legal_strings(game) == melds | discards("4 5 6 7 8 9 T J Q K A")


def take_position(hand: str):
    """Player 0 (unopened) faces the pile A A A 4 K (top K) with ``hand``."""
    game = new_game([hand, FILLER], "A A A 4 K")
    play(game, "draw", "discard A")  # the pile: A (start), A
    play(game, "draw", "discard A")  # A A A
    play(game, "draw", "discard 4")  # A A A 4
    play(game, "draw", "discard K")  # A A A 4 K
    assert game.current == 0
    return game


def test_C8_top_card_counts_when_taking_the_pile():
    """C-8, C-10, C-12: the pile is frozen for an unopened team (C-9): two natural Ks
    take it; the top K counts toward the 50, the other pile cards are held aside until
    the minimum is reached with the hand (K K K 30 + 7 7 7 7 20 = 50)."""
    game = take_position("K K 7 7 7 7 4 5 6 8 9 T J Q 5")
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert melds_of(game, 0) == {"K": "K K K"}
    assert game.staged == 30 and not game.opened[0]
    assert game.held == counts("A A A 4")
    assert hand_of(game, 0) == "4 5 5 6 7 7 7 7 8 9 T J Q"
    assert legal_strings(game) == {"meld 7 7 7", "meld 7 7 7 7"}
    assert_illegal(game, "discard 4")
    play(game, "meld 7 7 7 7")  # 50: opened, the held cards join the hand
    assert game.opened == [True, False]
    assert hand_of(game, 0) == "4 4 5 5 6 8 9 T J Q A A A"
    assert game.known[0] == counts("A A A 4")  # G-8: the pile cards are known to all


def test_C8_other_pile_cards_do_not_count():
    """C-8: K K K (30) + 7 7 7 (15) = 45 < 50; the A A A in the pile do not help."""
    game = take_position("K K 7 7 7 4 5 6 8 9 T J Q 5 6")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")


@pytest.mark.parametrize(
    ("dealt", "legal"),
    [
        # after the take: 7 x7 (35) + A A A (60) + 4 4 4 (15) = 110, + B3 B3 B3 (15) = 125 >= 120
        ("7 7 7 7 7 7 B3 B3 B3 A A A 4 4 4", {"draw", "take"}),
        # two black 3s cannot be melded: 110 < 120
        ("7 7 7 7 7 7 B3 B3 A A A 4 4 4 5", {"draw"}),
    ],
)
def test_C7_black3s_count_toward_the_opening_when_going_out(dealt, legal):
    """C-7, C-8, G-2, G-5: black 3s melded while going out count 5 each toward the
    opening minimum, also when the team opens by taking the pile (need 120 at 3000)."""
    game = new_game([dealt, FILLER], "7", scores=[3000, 0])
    assert game.pot == [kind_from_name("7")] and game.need[0] == 120
    assert legal_strings(game) == legal
    if legal == {"draw"}:
        return
    play(game, "take")  # 7 7 7: 15
    assert legal_strings(game) == {"add 7", "meld A A A", "meld 4 4 4", "meld B3 B3 B3"}
    play(game, "add 7", "add 7", "add 7", "add 7", "meld A A A", "meld 4 4 4")  # 110
    assert legal_strings(game) == {"meld B3 B3 B3"}
    play(game, "meld B3 B3 B3")
    assert game.went_out == 0 and game.concealed
    # 35 + 60 + 15 + 15 = 125 melded; 500 clean canasta; 200 (no card on the table before)
    assert game.hand_scores[0]["total"] == 125 + 500 + 200


def test_C8_held_pile_cards_may_be_melded_once_the_minimum_is_reached():
    """C-8, C-12, C-14: the 2 under the top 7 is held aside until the unopened team
    reaches 50; then it joins the hand and may complete a canasta to go out."""
    other = "4 5 6 8 9 T J Q K A 6"  # 15 + 60 + 20 + 5 = 100 points
    game = new_game(["7 7 7 7 7 4 4 4 5 5 5", other, other, other], "2 7")
    assert game.pot_wild  # C-3: the turned 2 is covered and freezes the pile
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")  # 7 7 7: 15
    assert game.held == counts("2")
    play(game, "add 7", "add 7", "add 7")  # 30; six 7s
    assert legal_strings(game) == {"meld 4 4 4", "meld 5 5 5"}
    play(game, "meld 4 4 4")  # 45
    assert legal_strings(game) == {"meld 5 5 5"}
    play(game, "meld 5 5 5")  # 60: opened, the 2 joins the hand
    assert hand_of(game, 0) == "2" and game.opened == [True, False]
    assert legal_strings(game) == {"add 2 to 7"}  # discarding the 2 needs a canasta
    play(game, "add 2 to 7")
    assert game.went_out == 0 and game.concealed
    # team 0: 6 x 5 + 20 + 15 + 15 = 80 melded; 300 dirty canasta; 200; partner -100
    assert game.hand_scores[0]["total"] == 80 + 300 + 200 - 100
    assert game.hand_scores[1]["total"] == -200


def test_C7_no_black3_meld_when_held_pile_cards_cannot_be_melded():
    """C-7, C-8: after taking the pile 6 5 7 the unopened player holds 6 and 5 aside;
    they join the hand at the minimum and cannot be melded, so the player cannot go
    out this turn and may not meld the black 3s."""
    game = new_game(["7 7 7 7 7 7 B3 B3 B3 K K K Q Q Q", FILLER], "6 5 7")
    play(game, "draw", "discard 5")
    play(game, "draw", "discard 7")
    assert game.pot == [kind_from_name(k) for k in "6 5 7".split()]
    play(game, "take")  # 7 7 7: 15
    assert game.held == counts("6 5")
    assert legal_strings(game) == {"add 7", "meld K K K", "meld Q Q Q"}
    assert_illegal(game, "meld B3 B3 B3")
    play(game, "add 7", "add 7", "add 7", "add 7", "meld K K K")  # 35 + 30 = 65: opened
    assert hand_of(game, 0) == "5 6 Q Q Q B3 B3 B3"
    assert legal_strings(game) == {"meld Q Q Q"} | discards("5 6 Q B3")
