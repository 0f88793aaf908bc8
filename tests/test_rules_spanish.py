"""Spanish (Uruguayan-style) Canasta scenario tests (RULES.md S-1..S-19 and the
resolved ambiguities 3, 7, 8 and 9).

Every position comes from a stacked deck (tests/scenario.py): the deal gives each
seat a 15-card block, then the red-3 replacements, the 6 face-down pot cards and
the face-up one (S-3), then the draws of two cards (S-4). Masks are written out in
full where they are readable; scores are worked out by hand, with the arithmetic in
the comments.
"""

from __future__ import annotations

import pytest

from canasta_env.cards import KIND_NAMES, NUM_KINDS, NUM_NATURALS, RED3, deck_counts
from canasta_env.engine import Game, IllegalActionError
from canasta_env.rules import make_rules
from tests.scenario import (
    act,
    assert_illegal,
    cards,
    counts,
    hand_of,
    legal_strings,
    meld_strings,
    melds_of,
    new_game,
    play,
    score_sheet,
)

#: A hand for a player who only draws and discards: no three of a kind and no wild
#: card, so no meld; 4 5 6 x2 = 30, 8 9 T x2 = 60, J Q K = 30: 120 points.
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"

#: The 6 face-down pot cards of most tests (S-3); the face-up card follows them.
HIDDEN = "5 6 8 9 T J"

#: The stock after a 2-player deal without red 3s: 216 - 30 dealt - 7 pot cards.
STOCK_AFTER_DEAL = 216 - 30 - 7


def spanish(hands, then="", **kwargs):
    return new_game(hands, then, variant="spanish", **kwargs)


def kind_index(name: str) -> int:
    return KIND_NAMES.index(name)


def discards(kinds: str) -> set[str]:
    return {f"discard {k}" for k in kinds.split()}


def sheet(*parts, **named):
    """A score sheet; the total is the sum of the parts (G-9, S-10..S-14)."""
    return score_sheet(*parts, **named)


# ----------------------------------------------------------------------------- S-1


@pytest.mark.parametrize(
    ("players", "deck", "total"),
    [
        # 4 decks: 11 naturals x 16 + 16 twos + 8 jokers + 8 black 3s + 8 red 3s = 216
        (2, [16] * 11 + [16, 8, 8, 8], 216),
        (3, [16] * 11 + [16, 8, 8, 8], 216),
        (4, [16] * 11 + [16, 8, 8, 8], 216),
        # 8 decks: 11 x 32 + 32 + 16 + 16 + 16 = 432
        (6, [32] * 11 + [32, 16, 16, 16], 432),
    ],
)
def test_S1_deck_of_four_decks_or_eight_with_six_players(players, deck, total):
    """S-1: four 52-card decks with 2 jokers each (216 cards); eight with 6 players
    (432); every card is somewhere after the deal."""
    game = Game(make_rules("spanish"), players, seed=7)
    assert game.full_deck_counts() == deck
    assert sum(deck) == total
    placed = [0] * NUM_KINDS
    for hand in game.hands:
        placed = [a + b for a, b in zip(placed, hand)]
    for card in game.stock + game.pot:
        placed[card] += 1
    placed[RED3] += sum(game.red3)
    assert placed == deck


def test_S1_nine_jokers_only_with_six_players():
    """S-1: 4 decks hold 8 jokers, so a stack of 9 is refused; 8 decks hold 16."""
    with pytest.raises(ValueError):
        Game(make_rules("spanish"), 4, seed=0, deck="JK " * 9)
    game = Game(make_rules("spanish"), 6, seed=0, deck="JK " * 9)
    assert game.hands[0][kind_index("JK")] == 9


# ----------------------------------------------------------------------------- S-2


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_S2_fifteen_cards_each(players):
    """S-2: 15 cards to each player, red 3s laid out and replaced (G-6)."""
    for seed in range(3):
        game = Game(make_rules("spanish"), players, seed=seed)
        assert game.hand_totals == [15] * players
        assert all(hand[RED3] == 0 for hand in game.hands)
        assert game.pot_hidden == 6 and len(game.pot) == 7


def test_S2_dealt_red3s_laid_out_and_replaced_seat_by_seat():
    """S-2, G-6: the red 3s of the deal are laid out and replaced, player 0 first; the
    pot is started after the replacements (S-3)."""
    game = spanish(
        ["R3 R3 A A A K K K Q Q Q J J J T", "R3 4 5 6 8 9 T J Q K 4 5 6 8 9"],
        f"9 9 T {HIDDEN} K",  # p0: 9 9; p1: T; then the pot
    )
    assert game.red3 == [2, 1]
    assert hand_of(game, 0) == "9 9 T J J J Q Q Q K K K A A A"
    assert game.hands[1] == counts(FILLER)
    assert game.hand_totals == [15, 15]
    assert game.pot == cards(f"{HIDDEN} K")
    # 216 - 30 dealt - 3 replacements - 7 pot cards
    assert len(game.stock) == 216 - 30 - 3 - 7


# ----------------------------------------------------------------------------- S-3


@pytest.mark.parametrize(
    ("up", "crossed"),
    [("K", False), ("2", True), ("JK", True), ("B3", False), ("R3", False)],
)
def test_S3_starting_pot_six_down_one_up(up, crossed):
    """S-3: 6 cards face down and a seventh face up; a wild card turned up crosses the
    pot (S-6); a red 3 or black 3 stays on top and nothing is turned over it."""
    game = spanish([FILLER, FILLER], f"{HIDDEN} {up}")
    assert game.pot == cards(f"{HIDDEN} {up}")
    assert game.pot_hidden == 6
    assert game.pot_wild is crossed
    assert game.red3 == [0, 0]
    assert len(game.stock) == STOCK_AFTER_DEAL


@pytest.mark.parametrize("up", ["2", "JK", "B3", "R3"])
def test_S3_pot_start_not_natural_cannot_be_taken(up):
    """S-3, S-6: with a wild card, a black 3 or a red 3 face up the first player can only
    draw, even holding K K and A A A."""
    game = spanish(["K K A A A 4 5 6 7 8 9 T J Q 7", FILLER], f"{HIDDEN} {up}")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")


def test_S3_turned_red3_goes_to_whoever_takes_the_pot():
    """S-3, G-6, S-5: a red 3 turned up stays in the pot; player 1 takes the pot with K K
    and lays it out, without a replacement."""
    game = spanish(
        [FILLER, "K K A A A 4 5 6 7 8 9 T J Q 7"],
        f"{HIDDEN} R3 K 4",  # player 0 draws K 4
    )
    assert game.red3 == [0, 0] and game.pot[-1] == RED3
    play(game, "draw", "discard K")
    stock = len(game.stock)
    # K K + top K = 30, + A A A = 60: 90 >= 50 (S-5, S-8)
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert game.red3 == [0, 1]
    assert len(game.stock) == stock  # no replacement, and no draw with a pot take (S-4)
    assert melds_of(game, 1) == {"K": "K K K"}
    assert game.held == counts(HIDDEN)  # the red 3 is not held, it is laid out
    play(game, "meld A A A")
    assert hand_of(game, 1) == "4 5 5 6 6 7 7 8 8 9 9 T T J J Q"


# ----------------------------------------------------------------------------- S-4


def test_S4_turn_draws_two_cards_then_melds_then_one_discard():
    """S-4, S-5: draw two stock cards (or take the pot); meld optionally, also to open
    without taking the pot; one discard ends the turn."""
    game = spanish(["A A A 4 5 6 7 8 9 T J Q K 7 8", FILLER], f"{HIDDEN} Q K 5")
    assert legal_strings(game) == {"draw"}  # one Q in hand: no take
    assert_illegal(game, "take", "discard 4", "meld A A A", "pass")
    play(game, "draw")  # K and 5
    assert game.hand_totals[0] == 17 and len(game.stock) == STOCK_AFTER_DEAL - 2
    # pairs 5 5, 7 7, 8 8, K K but no wild card: only A A A (60 >= 50) can be melded
    assert legal_strings(game) == {"meld A A A"} | discards("4 5 6 7 8 9 T J Q K A")
    assert_illegal(game, "draw", "take", "meld 7 7 2")
    play(game, "meld A A A")
    assert game.opened == [True, False]
    assert legal_strings(game) == discards("4 5 6 7 8 9 T J Q K")
    play(game, "discard 4")
    assert (game.current, game.phase) == (1, 0)
    assert game.pot == cards(f"{HIDDEN} Q 4")
    assert hand_of(game, 0) == "5 5 6 7 7 8 8 9 T J Q K K"


def test_S4_ambiguity3_red3_drawn_in_play_is_replaced():
    """Resolved ambiguity 3, G-6, S-4: a red 3 among the two drawn cards is laid out and
    replaced, so the player still gets two cards."""
    game = spanish([FILLER, FILLER], f"{HIDDEN} 7 K R3 A")
    play(game, "draw")
    assert game.red3 == [1, 0]
    assert game.hands[0] == counts(FILLER + " K A")
    assert len(game.stock) == STOCK_AFTER_DEAL - 3


# ----------------------------------------------------------------------------- S-5

OPENER = "K K A A A 4 5 6 7 8 9 T J Q 7"


def test_S5_unopened_take_forms_the_meld_and_pot_waits_for_the_opening():
    """S-5: K K and the top K form a meld; the team has not opened, so the opening must
    be completed now from hand cards (30 + A A A 60 = 90 >= 50); the pot joins the hand
    once the minimum is reached."""
    game = spanish([OPENER, FILLER], f"{HIDDEN} K")
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert melds_of(game, 0) == {"K": "K K K"}
    assert game.held == counts(HIDDEN)
    assert hand_of(game, 0) == "4 5 6 7 7 8 9 T J Q A A A"
    assert legal_strings(game) == {"meld A A A"}  # 30 < 50: nothing else ends the turn
    assert_illegal(game, "discard 4")
    play(game, "meld A A A")
    assert game.opened == [True, False] and game.held == [0] * NUM_KINDS
    assert hand_of(game, 0) == "4 5 5 6 6 7 7 8 8 9 9 T T J J Q"
    assert len(game.stock) == STOCK_AFTER_DEAL  # a pot take draws nothing (S-4)


def test_S5_pot_cards_do_not_count_toward_the_opening():
    """S-5: the opening minimum is counted on the top card plus hand cards: K K K (30)
    cannot open even though the pot holds six aces (120)."""
    game = spanish(["K K 4 5 6 7 8 9 T J Q 4 5 6 7", FILLER], "A A A A A A K")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")


def test_S5_S8_take_then_a_hidden_canasta_opens():
    """S-5, S-8: at 7500 (minimum 180) K K K (30) and the hand's cards are far short, but
    a hidden canasta of seven 4s laid in the same turn opens, so the take is legal."""
    game = spanish(["K K 4 4 4 4 4 4 4 5 6 7 8 9 T", FILLER], f"{HIDDEN} K", scores=[7500, 0])
    assert game.need[0] == 180
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert legal_strings(game) == {"meld 4 4 4 4 4 4 4"}
    play(game, "meld 4 4 4 4 4 4 4")
    assert game.opened == [True, False] and game.held == [0] * NUM_KINDS


def test_S5_G6_face_down_red3_goes_to_the_taker():
    """S-5, G-6: a red 3 among the face-down pot cards is laid out by the team that takes
    the pot, without a replacement; the other pot cards wait for the opening."""
    game = spanish([OPENER, FILLER], "5 R3 8 9 T J K")
    play(game, "take")
    assert game.red3 == [1, 0]
    assert game.held == counts("5 8 9 T J")
    assert len(game.stock) == STOCK_AFTER_DEAL


@pytest.mark.parametrize(
    ("kings", "legal"),
    [
        # one K with a 2 and a joker: no take with a wild card, none onto the meld
        ("K", {"draw"}),
        ("K K", {"draw", "take"}),
    ],
)
def test_S5_take_needs_two_naturals_and_joins_the_unfinished_meld(kings, legal):
    """S-5, S-7: an opened team takes the pot only with two naturals of the top card;
    the top card and those two join the team's unfinished meld of Ks."""
    extra = " 9" if kings == "K" else ""
    game = spanish(
        [f"A A A K K K {kings} 2 JK 4 5 6 7 8{extra}", FILLER],
        f"{HIDDEN} Q Q J K T Q",  # up Q; p0 draws Q J, p1 draws K T
    )
    play(game, "draw", "meld A A A", "meld K K K", "discard Q")
    play(game, "draw", "discard K")
    assert game.pot[-1] == kind_index("K")
    assert legal_strings(game) == legal
    if kings == "K":
        assert_illegal(game, "take", "take +2", "take +JK", "take onto meld")
        return
    play(game, "take")
    assert melds_of(game, 0) == {"K": "K K K K K K", "A": "A A A"}
    # + the pot: 5 6 8 9 T J, Q (up), Q (player 0's discard)
    assert hand_of(game, 0) == "4 5 5 6 6 7 8 8 9 T J J Q Q 2 JK"


def test_S5_take_after_a_finished_canasta_starts_a_new_meld():
    """S-5, S-7: with the canasta of Ks finished, K K and the top K start a new meld."""
    game = spanish(
        ["A A A K K K K K K K K K 4 5 6", FILLER],
        f"{HIDDEN} Q 7 8 K T",  # up Q; p0 draws 7 8, p1 draws K T
    )
    play(game, "draw", "meld A A A", "meld K K K K K K K", "discard 7")
    assert game.closed[0] == [(kind_index("K"), 7, 0, 0, True)]
    play(game, "draw", "discard K")
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert melds_of(game, 0) == {"K": "K K K", "A": "A A A"}
    assert game.closed[0] == [(kind_index("K"), 7, 0, 0, True)]


# ----------------------------------------------------------------------------- S-6


def test_S6_black3_blocks_the_next_player_only():
    """S-6: a black 3 on top blocks the pot for the next player (who holds K K and
    could open); it does not cross the pot, and once covered the pot can be taken,
    the black 3 going to the hand."""
    game = spanish(
        ["B3 K K A A A 4 5 6 7 8 9 T J Q", "K K A A A 4 5 6 7 8 9 T J Q 7"],
        f"{HIDDEN} 5 4 6 T K",  # up 5; p0 draws 4 6, p1 draws T K
    )
    play(game, "draw", "discard B3")
    assert not game.pot_wild
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")
    play(game, "draw", "discard K")  # player 1 gives up a K
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take", "meld A A A")
    # dealt 4 5 6 .. Q + drawn 4 6 + the pot 5 6 8 9 T J, 5 (up), B3
    assert hand_of(game, 0) == "4 4 5 5 5 6 6 6 7 8 8 9 9 T T J J Q B3"


@pytest.mark.parametrize(
    ("discard", "nines", "legal"),
    [
        ("2", "9 9", {"draw"}),  # crossed: three naturals needed
        ("2", "9 9 9", {"draw", "take"}),
        ("4", "9 9", {"draw", "take"}),  # not crossed: two naturals
    ],
)
def test_S6_wild_discard_crosses_pot(discard, nines, legal):
    """S-6: a wild card discarded onto the pot crosses it: the next player cannot take a
    wild card on top, and until someone takes it, taking needs three naturals of the top
    card's rank; the take uncrosses it."""
    filler = "K " if nines == "9 9" else ""
    game = spanish(
        [f"A A A 2 4 {nines} 5 6 7 8 T J Q {filler}".strip(), FILLER],
        f"{HIDDEN} Q Q J 9 K",  # up Q; p0 draws Q J, p1 draws 9 K
    )
    play(game, "draw", "meld A A A", f"discard {discard}")
    assert game.pot_wild is (discard == "2")
    assert legal_strings(game) == {"draw"}  # a wild card on top, or p1 cannot open
    play(game, "draw", "discard 9")
    assert game.pot_wild is (discard == "2")
    assert legal_strings(game) == legal
    if legal == {"draw"}:
        assert_illegal(game, "take")
        return
    play(game, "take")
    size = 4 if discard == "2" else 3
    assert melds_of(game, 0) == {"9": " ".join(["9"] * size), "A": "A A A"}
    assert game.pot == [] and not game.pot_wild
    play(game, "discard Q")
    assert not game.pot_wild


# ----------------------------------------------------------------------------- S-7


def test_S7_meld_compositions():
    """S-7: 3 to 7 cards, at least 2 naturals, never more wild cards than naturals (no
    other limit on wild cards): 9 9 9 2 2 2 and 9 9 2 JK are melds."""
    game = spanish(["A A A 9 9 9 2 2 2 JK 4 5 6 7 8", FILLER], f"{HIDDEN} Q T J")
    play(game, "draw", "meld A A A")
    assert meld_strings(game) == {
        "add 2 to A",
        "add JK to A",
        "meld 9 9 2",
        "meld 9 9 JK",
        "meld 9 9 2 2",
        "meld 9 9 2 JK",
        "meld 9 9 9",
        "meld 9 9 9 2",
        "meld 9 9 9 JK",
        "meld 9 9 9 2 2",
        "meld 9 9 9 2 JK",
        "meld 9 9 9 2 2 2",
        "meld 9 9 9 2 2 JK",
    }
    # more wild cards than naturals cannot even be written in the action layout
    for text in ("meld 9 9 2 2 JK", "meld 9 9 2 2 2"):
        with pytest.raises(ValueError):
            act(text)
    assert_illegal(game, "meld 9 9 JK JK", "meld 9 9 9 9")  # cards not held
    play(game, "meld 9 9 9 2 2 2")
    assert melds_of(game, 0) == {"9": "9 9 9 2 2 2", "A": "A A A"}


def test_S7_meld_closes_at_seven_and_further_cards_start_a_new_meld():
    """S-7: a meld that reaches 7 cards is a finished canasta and takes no more cards;
    more 7s start a new meld, and a team has one unfinished meld of a rank at most."""
    game = spanish(["7 7 7 7 7 7 7 7 7 7 7 7 A A A", FILLER], f"{HIDDEN} Q 2 4")
    play(game, "draw", "meld A A A", "meld 7 7 7 7 7 7")
    # the unfinished 7s take more cards; no second meld of 7s
    assert meld_strings(game) == {"add 7", "add 2 to 7", "add 2 to A"}
    assert_illegal(game, "meld 7 7 7")
    play(game, "add 7")
    assert game.closed[0] == [(kind_index("7"), 7, 0, 0, False)]
    assert melds_of(game, 0) == {"A": "A A A"}
    assert hand_of(game, 0) == "4 7 7 7 7 7 2"
    # a new meld of 7s; 7 7 7 7 7 2 would leave one card whose discard empties the
    # hand (no canasta pair to go out, S-15, S-16)
    assert meld_strings(game) == {
        "meld 7 7 2",
        "meld 7 7 7",
        "meld 7 7 7 2",
        "meld 7 7 7 7",
        "meld 7 7 7 7 2",
        "meld 7 7 7 7 7",
        "add 2 to A",
    }
    assert_illegal(game, "add 7", "add 2 to 7")
    play(game, "meld 7 7 7")
    assert melds_of(game, 0) == {"7": "7 7 7", "A": "A A A"}
    assert meld_strings(game) == {"add 7", "add 2 to 7", "add 2 to A"}
    assert_illegal(game, "meld 7 7 2")


def test_S7_wild_card_closing_a_meld_makes_a_dirty_canasta():
    """S-7, G-4: a 2 that brings a meld to 7 cards closes it as a dirty canasta."""
    game = spanish(["8 8 8 8 8 8 2 A A A 4 5 6 7 9", FILLER], f"{HIDDEN} Q T J")
    play(game, "draw", "meld A A A", "meld 8 8 8 8 8 8", "add 2 to 8")
    assert game.closed[0] == [(kind_index("8"), 6, 1, 0, False)]
    assert melds_of(game, 0) == {"A": "A A A"}


# ----------------------------------------------------------------------------- S-8


@pytest.mark.parametrize(
    ("score", "minimum"),
    [
        (-5, 15),
        (0, 50),
        (1495, 50),
        (1500, 90),
        (2995, 90),
        (3000, 120),
        (4995, 120),
        (5000, 150),
        (7495, 150),
        (7500, 180),
        (20000, 180),
    ],
)
def test_S8_opening_table(score, minimum):
    """S-8: the opening minimum by the team's total at the start of the hand."""
    game = spanish([FILLER, FILLER], f"{HIDDEN} 7", scores=[score, 0])
    assert game.need == [minimum, 50]


@pytest.mark.parametrize(
    ("score", "melds"),
    [
        (1500, {"meld A A A", "meld 8 8 8", "meld 7 7 7"}),  # 60 + 30 (+ 15) >= 90
        (3000, set()),  # 60 + 30 + 15 = 105 < 120
    ],
)
def test_S8_minimum_decides_which_melds_are_legal(score, melds):
    """S-8, G-5: each meld of the opening turn is legal only if the turn can still reach
    the minimum; A A A, 8 8 8 and 7 7 7 make 105."""
    game = spanish(["A A A 8 8 8 7 7 7 4 5 6 9 T J", FILLER], f"{HIDDEN} 5 Q K", scores=[score, 0])
    play(game, "draw")
    assert meld_strings(game) == melds
    assert legal_strings(game) - melds == discards("4 5 6 7 8 9 T J Q K A")


def test_S8_below_zero_needs_15():
    """S-8: below 0 the minimum is 15: 4 4 4 opens; at 0 it does not (50)."""
    hand = "4 4 4 5 6 7 8 9 T J Q K A 5 6"
    game = spanish([hand, FILLER], f"{HIDDEN} Q 9 T", scores=[-5, 0])
    play(game, "draw", "meld 4 4 4")
    assert game.opened == [True, False]
    game = spanish([hand, FILLER], f"{HIDDEN} Q 9 T")
    play(game, "draw")
    assert meld_strings(game) == set()
    assert_illegal(game, "meld 4 4 4")


def test_S8_hidden_canasta_opens_whatever_the_count():
    """S-8, S-10: at 7500 the minimum is 180, the whole hand is worth 75 in melds, yet a
    hidden canasta (7 cards in one action, clean or dirty) opens the team."""
    game = spanish(["4 4 4 4 4 4 4 2 2 5 6 8 9 T J", FILLER], f"{HIDDEN} 7 Q K", scores=[7500, 0])
    assert game.need[0] == 180
    play(game, "draw")
    assert meld_strings(game) == {
        "meld 4 4 4 4 4 4 4",
        "meld 4 4 4 4 4 4 2",
        "meld 4 4 4 4 4 2 2",
    }
    assert_illegal(game, "meld 4 4 4", "meld 4 4 4 4 4 4")
    play(game, "meld 4 4 4 4 4 2 2")
    assert game.opened == [True, False]
    assert game.closed[0] == [(kind_index("4"), 5, 2, 0, True)]
    assert legal_strings(game) == discards("4 5 6 8 9 T J Q K")


def test_S8_next_hand_minimum_comes_from_the_new_totals():
    """S-8, G-7, G-9: after a hand scored 1290 and -125, the next hand (dealt by the next
    seat, player 1 first) asks 50 of team 0 and 15 of team 1 (below 0)."""
    game = spanish([FRAME, FILLER], FRAME_THEN)
    play_frame(game)
    assert game.scores == [1290, -125]
    game.next_hand()
    assert game.need == [50, 15]
    assert game.current == 1 and game.hand_totals == [15, 15]


# ----------------------------------------------------------------------------- S-9


def test_S9_ambiguity7_wild_meld_starts_with_five_and_closes_at_seven():
    """S-9, resolved ambiguity 7: a meld of wild cards only starts with at least 5 wild
    cards ("de 5 en 5") and is a canasta at 7."""
    game = spanish(
        ["A A A 2 2 2 JK JK 4 5 6 7 8 9 T", FILLER],
        f"{HIDDEN} Q J Q K 5 2 JK",  # p0 draws J Q, p1 K 5, p0 2 JK
    )
    play(game, "draw", "meld A A A")
    assert meld_strings(game) == {"add 2 to A", "add JK to A", "meld 2 2 2 JK JK"}
    play(game, "meld 2 2 2 JK JK", "discard 4")
    assert melds_of(game, 0) == {"A": "A A A", "wild": "2 2 2 JK JK"}
    play(game, "draw", "discard K")
    play(game, "draw")
    assert meld_strings(game) == {
        "add 2 to A",
        "add JK to A",
        "add 2 to wild",
        "add JK to wild",
    }
    play(game, "add 2 to wild", "add JK to wild")
    assert game.closed[0] == [(12, 0, 4, 3, False)]
    assert melds_of(game, 0) == {"A": "A A A"}


def test_S9_four_wild_cards_cannot_start_a_wild_meld():
    """S-9, ambiguity 7: with 2 2 2 JK only (4 wild cards) no wild meld can be laid."""
    game = spanish(["A A A 2 2 2 JK 4 5 6 7 8 9 T J", FILLER], f"{HIDDEN} Q K Q")
    play(game, "draw", "meld A A A")
    assert meld_strings(game) == {"add 2 to A", "add JK to A"}
    assert_illegal(game, "meld 2 2 2 JK", "meld 2 2 2")


# ----------------------------------------------------------------------------- S-10

#: Player 0 lays a canasta of aces and a dirty one of kings in turn 1 (discarding the
#: 9), and goes out in turn 2 with Q Q Q, discarding the 5. Player 1 draws J 4 and
#: discards the J: FILLER + 4 = 125 in hand.
FRAME = "A A A A A A A K K K K K 2 JK Q"
FRAME_THEN = f"{HIDDEN} 4 Q 9 J 4 Q 5"
ACES = {
    "hidden": ["meld A A A A A A A"],
    "built": ["meld A A A", "add A", "add A", "add A", "add A"],
}
KINGS = {
    "hidden": ["meld K K K K K 2 JK"],
    "built": ["meld K K K K K", "add 2 to K", "add JK to K"],
}


def play_frame(game, aces="built", kings="built") -> None:
    play(game, "draw", *ACES[aces], *KINGS[kings], "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "meld Q Q Q", "discard 5")


#: Player 0 after FRAME: aces 7 x 20 = 140, kings 5 x 10 + 20 + 50 = 120, Q Q Q 30.
FRAME_MELDED = 140 + 120 + 30
P1_FILLER_SHEET = sheet(hand_penalty=-125)


@pytest.mark.parametrize(
    ("aces", "kings", "bonus"),
    [
        ("hidden", "hidden", 1000 + 1000),
        ("built", "hidden", 500 + 1000),
        ("hidden", "built", 1000 + 300),
        ("built", "built", 500 + 300),
    ],
)
def test_S10_clean_dirty_and_hidden_canasta_values(aces, kings, bonus):
    """S-10, S-15: clean 500, dirty 300, hidden (all 7 cards in one action, clean or
    dirty) 1000; a hidden canasta counts by its content for going out; closing 200."""
    game = spanish([FRAME, FILLER], FRAME_THEN)
    play_frame(game, aces, kings)
    assert game.went_out == 0 and game.end_reason == "went out"
    assert game.closed[0] == [
        (kind_index("A"), 7, 0, 0, aces == "hidden"),
        (kind_index("K"), 5, 1, 1, kings == "hidden"),
    ]
    assert game.hand_scores[0] == sheet(FRAME_MELDED, bonus, going_out=200, n=2)
    assert game.hand_scores[1] == P1_FILLER_SHEET


@pytest.mark.parametrize(
    ("dealt", "turn1", "closed", "melded", "bonus"),
    [
        (
            "2 2 2 2 2 2 2 K K K K K K JK Q",
            ["meld 2 2 2 2 2", "add 2 to wild", "add 2 to wild", "meld K K K K K K JK"],
            # the 7 Ks with a joker were laid at once: a hidden (dirty) canasta
            [(12, 0, 7, 0, False), (9, 6, 0, 1, True)],
            # 7 x 20 = 140; K 60 + 50 = 110; Q Q Q 30
            140 + 110 + 30,
            3000 + 1000,
        ),
        (
            "JK JK JK JK JK JK JK K K K K K K 2 Q",
            ["meld JK JK JK JK JK", "add JK to wild", "add JK to wild", "meld K K K K K 2"]
            + ["add K"],
            [(12, 0, 0, 7, False), (9, 6, 1, 0, False)],
            # 7 x 50 = 350; K 60 + 20 = 80; Q Q Q 30
            350 + 80 + 30,
            3000 + 300,
        ),
        (
            "2 2 2 2 2 JK JK K K K K K K K Q",
            ["meld 2 2 2 2 2", "add JK to wild", "add JK to wild", "meld K K K K K K"] + ["add K"],
            [(12, 0, 5, 2, False), (9, 7, 0, 0, False)],
            # 5 x 20 + 2 x 50 = 200; K 70; Q Q Q 30
            200 + 70 + 30,
            2000 + 500,
        ),
    ],
)
def test_S10_wild_canastas(dealt, turn1, closed, melded, bonus):
    """S-10, S-15: a wild canasta of one kind (seven 2s or seven jokers) is clean, 3000;
    2s mixed with jokers is dirty, 2000; each counts by its kind for going out."""
    game = spanish([dealt, FILLER], FRAME_THEN)
    play(game, "draw", *turn1, "discard 9")
    assert game.closed[0] == closed
    play(game, "draw", "discard J")
    play(game, "draw", "meld Q Q Q", "discard 5")
    assert game.went_out == 0
    assert game.hand_scores[0] == sheet(melded, bonus, going_out=200, n=2)
    assert game.hand_scores[1] == P1_FILLER_SHEET


# ----------------------------------------------------------------------------- S-11


def test_S11_black3_meld_any_time_without_wild_cards():
    """S-11: black 3s are melded only together, with no wild card, and not only when
    going out; the turn then goes on normally."""
    game = spanish(["A A A B3 B3 B3 B3 2 JK 4 5 6 7 8 9", FILLER], f"{HIDDEN} Q T J")
    play(game, "draw", "meld A A A")
    assert meld_strings(game) == {
        "meld B3 B3 B3",
        "meld B3 B3 B3 B3",
        "add 2 to A",
        "add JK to A",
    }
    play(game, "meld B3 B3 B3")
    assert melds_of(game, 0) == {"A": "A A A", "B3": "B3 B3 B3"}
    assert legal_strings(game) == {"add B3", "add 2 to A", "add JK to A"} | discards(
        "4 5 6 7 8 9 T J 2 JK B3"
    )


def test_S11_black3_canasta_wins_the_game():
    """S-11: the team that completes a canasta of 7 black 3s wins the whole game at once,
    even with a lower total than the other team."""
    game = spanish(
        ["A A A B3 B3 B3 B3 B3 4 5 6 7 8 9 T", FILLER],
        f"{HIDDEN} Q J Q K 4 B3 B3",  # p0 draws J Q, p1 K 4, p0 B3 B3
        scores=[0, 6000],
    )
    play(game, "draw", "meld A A A", "meld B3 B3 B3 B3 B3", "discard J")
    play(game, "draw", "discard K")
    play(game, "draw", "add B3")
    assert game.phase == 1 and not game.game_over  # 6 black 3s
    play(game, "add B3")
    assert game.hand_over and game.end_reason == "black-3 canasta"
    assert game.game_over and game.winner_team == 0
    assert game.scores[1] > game.scores[0]
    assert legal_strings(game) == set()
    with pytest.raises(IllegalActionError):
        game.next_hand()


# ----------------------------------------------------------------------------- S-12


def six_player_game(p2_canastas: int, p4_canastas: int):
    """Team 0 (players 0, 2, 4) lays hidden canastas in round 1; in round 2 player 0
    takes the pot with 8 8 and completes a canasta of 8s from it, then goes out."""
    q_and_t = ["meld Q Q Q Q Q Q Q", "meld T T T T T T T"]
    nines_and_fives = ["meld 9 9 9 9 9 9 9", "meld 5 5 5 5 5 5 5"]
    game = spanish(
        [
            "A A A A A A A K K K K K 2 JK 8",  # player 0
            FILLER,
            "Q Q Q Q Q Q Q T T T T T T T J",  # player 2
            FILLER,
            "9 9 9 9 9 9 9 5 5 5 5 5 5 5 J",  # player 4
            FILLER,
        ],
        # pot: 8 8 8 8 6 6 down, 6 up; draws: p0 8 J, p1 J 4, p2 4 5, p3 J 4, p4 4 6,
        # p5 8 K
        "8 8 8 8 6 6 6 8 J J 4 4 5 J 4 4 6 8 K",
    )
    play(game, "draw", "meld A A A A A A A", "meld K K K K K 2 JK", "discard J")
    play(game, "draw", "discard J")
    play(game, "draw", *q_and_t[:p2_canastas], "discard J")
    play(game, "draw", "discard J")
    play(game, "draw", *nines_and_fives[:p4_canastas], "discard J")
    play(game, "draw", "discard 8")
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take", "add 8", "add 8", "add 8", "add 8", "meld 6 6 6", "meld J J J J")
    play(game, "discard J")
    assert game.went_out == 0
    return game


@pytest.mark.parametrize(
    ("p2", "p4", "team0"),
    [
        # 7 canastas: A, K, Q, T, 9, 5 hidden (6 x 1000) + 8s built (500) = 6500;
        # melded A 140 + K 120 + Q 70 + T 70 + 9 70 + 5 35 + 8 70 + 6 6 6 15 + J x4 40
        # = 630; 2000 for 7 canastas (not 2500, ambiguity 8); closing 200;
        # hands: p2 4 5 (10), p4 4 6 (10)
        (2, 2, 630 + 6500 + 2000 + 200 - 20),
        # 6 canastas (no 5s): 595 melded; 5500; 500; 200; p4 keeps 5 x7 35 + 10
        (2, 1, 595 + 5500 + 500 + 200 - 55),
        # 5 canastas (no T, no 5): 525; 4500; 500; 200; p2 keeps T x7 70 + 10
        (1, 1, 525 + 4500 + 500 + 200 - 125),
        # 4 canastas: 455; 3500; no bonus; 200; p4 keeps 9 x7 70 + 5 x7 35 + 10
        (1, 0, 455 + 3500 + 0 + 200 - 195),
    ],
)
def test_S12_ambiguity8_five_or_seven_canastas_bonus(p2, p4, team0):
    """S-12, resolved ambiguity 8, G-3: 5 or 6 canastas of a team score 500, 7 or more
    2000 instead (not 2500); 4 canastas score nothing. Six players, teams of three."""
    game = six_player_game(p2, p4)
    canastas = 2 + p2 + p4 + 1
    bonus = {7: 2000, 6: 500, 5: 500, 4: 0}[canastas]
    assert game.hand_scores[0]["canastas"] == canastas
    assert game.hand_scores[0]["count_bonus"] == bonus
    assert game.hand_scores[0]["total"] == team0
    # team 1: players 1 and 3 hold FILLER + 4 (125), player 5 FILLER + K (130)
    assert game.hand_scores[1] == sheet(hand_penalty=-380)


# ----------------------------------------------------------------------------- S-13, S-14


@pytest.mark.parametrize(
    ("mine", "theirs", "red3_mine", "red3_theirs"),
    [
        (1, 0, 100, 0),
        (3, 2, 300, -200),  # player 1 made no meld: minus
        (4, 1, 800, -100),  # 4 x 200
        (4, 4, 800, -800),
        (5, 3, 1000, -300),  # ambiguity 9: 200 each beyond four
        (6, 2, 1200, -200),
        (8, 0, 1600, 0),  # all eight red 3s of the four decks
    ],
)
def test_S13_ambiguity9_red3_values_and_sign(mine, theirs, red3_mine, red3_theirs):
    """S-13, resolved ambiguity 9: red 3s are 100 each, 200 each for a team with 4 or
    more (also beyond four); plus for a team with a canasta, minus otherwise."""
    frame = FRAME.split()
    filler = FILLER.split()
    hand0 = " ".join(["R3"] * mine + frame[: 15 - mine])
    hand1 = " ".join(["R3"] * theirs + filler[: 15 - theirs])
    replacements = " ".join(frame[15 - mine :] + filler[15 - theirs :])
    game = spanish([hand0, hand1], f"{replacements} {FRAME_THEN}")
    assert game.red3 == [mine, theirs]
    play_frame(game)
    # 290 melded, 500 + 300 built canastas, 200 closing
    assert game.hand_scores[0] == sheet(FRAME_MELDED, 800, red3_mine, going_out=200, n=2)
    assert game.hand_scores[1] == sheet(red3=red3_theirs, hand_penalty=-125)


def test_S14_opened_team_without_canasta_counts_melds_minus_and_black3s_100():
    """S-14, S-13: player 1 opened (A A A, K K K) but has no canasta when player 0 goes
    out: its melds count minus, its red 3 counts minus, each black 3 in hand -100."""
    game = spanish(
        [FRAME, "A A A K K K B3 B3 R3 4 5 6 8 9 T"],
        f"J {FRAME_THEN}",  # player 1's red 3 is replaced by a J
    )
    assert game.red3 == [0, 1]
    play(game, "draw", *ACES["built"], *KINGS["built"], "discard 9")
    play(game, "draw", "meld A A A", "meld K K K", "discard J")
    assert hand_of(game, 1) == "4 4 5 6 8 9 T J B3 B3"
    play(game, "draw", "meld Q Q Q", "discard 5")
    assert game.hand_scores[0] == sheet(FRAME_MELDED, 800, going_out=200, n=2)
    # melded A A A 60 + K K K 30 = -90; red 3: -100;
    # hand: B3 B3 2 x 100 + 4 4 5 6 20 + 8 9 T J 40 = 260
    assert game.hand_scores[1] == sheet(-90, red3=-100, hand_penalty=-260)
    assert game.scores == [FRAME_MELDED + 800 + 200, -450]


# ----------------------------------------------------------------------------- S-15, S-16


@pytest.mark.parametrize(
    ("dealt", "kings", "legal"),
    [
        # a clean and a dirty canasta: Q Q Q and the discard of the 5 go out
        (FRAME, "meld K K K K K 2 JK", {"meld Q Q Q", "discard Q", "discard 5"}),
        # two clean canastas: Q Q Q would leave the 5, whose discard would empty the hand
        ("A A A A A A A K K K K K K K Q", "meld K K K K K K K", {"discard Q", "discard 5"}),
    ],
)
def test_S15_going_out_needs_a_clean_and_a_dirty_canasta(dealt, kings, legal):
    """S-15, S-16: the team needs one clean and one dirty canasta to go out."""
    game = spanish([dealt, FILLER], FRAME_THEN)
    play(game, "draw", "meld A A A A A A A", kings, "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw")
    assert hand_of(game, 0) == "5 Q Q Q"
    assert legal_strings(game) == legal
    if "meld Q Q Q" not in legal:
        assert_illegal(game, "meld Q Q Q")
        return
    play(game, "meld Q Q Q")
    assert legal_strings(game) == {"discard 5"}
    play(game, "discard 5")
    assert game.went_out == 0 and game.hand_scores[0]["going_out"] == 200


def test_S15_going_out_needs_a_final_discard():
    """S-15: the player melds all cards but one and discards it: with Q Q Q 2, melding
    all four cards is refused; Q Q 2 (or Q Q Q) and a discard go out."""
    game = spanish([FRAME, FILLER], f"{HIDDEN} 4 Q 9 J 4 Q 2")
    play(game, "draw", "meld A A A A A A A", "meld K K K K K 2 JK", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw")
    assert hand_of(game, 0) == "Q Q Q 2"
    assert meld_strings(game) == {"meld Q Q Q", "meld Q Q 2"}
    assert_illegal(game, "meld Q Q Q 2")
    play(game, "meld Q Q 2", "discard Q")
    assert game.went_out == 0
    # A 140 + K 120 + Q Q 2 40 = 300; two hidden canastas 2000; closing 200
    assert game.hand_scores[0] == sheet(300, 2000, going_out=200, n=2)


def test_S15_no_going_out_in_the_turn_of_the_first_clean_canasta():
    """S-15: with a dirty canasta on the table, the turn that completes the team's first
    clean canasta cannot end by going out; the next turn can."""
    game = spanish(
        ["K K K K K 2 JK A A A A A A Q Q", FILLER],
        f"{HIDDEN} 4 Q 9 J 4 A 5 J 4 Q 6",
    )
    play(game, "draw", "meld K K K K K 2 JK", "meld A A A A A A", "discard 9")
    assert hand_of(game, 0) == "Q Q Q"
    play(game, "draw", "discard J")
    play(game, "draw")
    assert hand_of(game, 0) == "5 Q Q Q A"
    assert meld_strings(game) == {"add A", "meld Q Q Q"}
    play(game, "add A")  # the first clean canasta
    assert legal_strings(game) == {"discard Q", "discard 5"}
    assert_illegal(game, "meld Q Q Q")
    play(game, "discard 5")
    play(game, "draw", "discard J")
    play(game, "draw")
    assert hand_of(game, 0) == "6 Q Q Q Q"
    assert meld_strings(game) == {"meld Q Q Q", "meld Q Q Q Q"}
    play(game, "meld Q Q Q Q", "discard 6")
    assert game.went_out == 0
    # K 120 + A 140 + Q x4 40 = 300; hidden dirty 1000 + clean 500; closing 200
    assert game.hand_scores[0] == sheet(300, 1500, going_out=200, n=2)
    # player 1: FILLER + 4 + 4 = 130
    assert game.hand_scores[1] == sheet(hand_penalty=-130)


def test_S16_no_empty_hand_without_the_right_to_go_out():
    """S-16: opened without a canasta, the player holding Q Q Q 5 may not meld Q Q Q,
    since discarding the 5 would end the turn with an empty hand."""
    game = spanish(["A A A K K K J J J T T T T T Q", FILLER], f"{HIDDEN} 4 Q 9 J 4 Q 5")
    play(game, "draw", "meld A A A", "meld K K K", "meld J J J", "meld T T T T T")
    assert hand_of(game, 0) == "9 Q Q"
    play(game, "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw")
    assert hand_of(game, 0) == "5 Q Q Q"
    assert legal_strings(game) == {"discard Q", "discard 5"}
    assert_illegal(game, "meld Q Q Q")


# ----------------------------------------------------------------------------- S-17


def exhaustion_deck(hands, then, last):
    """A fully stacked 2-player Spanish deck in which no two special cards (wild cards,
    black 3s) are adjacent in the middle of the stock, so every two-card draw there
    holds a natural; the red 3s must all be in ``hands``."""
    head = cards(" ".join(hands) + " " + then)
    tail = cards(last)
    left = deck_counts(4, 2)
    for kind in head + tail:
        left[kind] -= 1
    assert left[RED3] == 0 and min(left) >= 0
    naturals = [k for k in range(NUM_NATURALS) for _ in range(left[k])]
    specials = [k for k in range(NUM_NATURALS, RED3) for _ in range(left[k])]
    middle = []
    for index, natural in enumerate(naturals):
        middle.append(natural)
        if index < len(specials):
            middle.append(specials[index])
    assert len(middle) == len(naturals) + len(specials)
    return head + middle + tail


def burn_two(game, leave: int) -> None:
    """Each player draws two cards and discards a natural one of them until ``leave``
    cards remain in the stock (the pot is never crossed)."""
    while len(game.stock) > leave:
        player = game.current
        before = game.hands[player][:]
        play(game, "draw")
        drawn = [k for k in range(NUM_NATURALS) if game.hands[player][k] > before[k]]
        play(game, f"discard {KIND_NAMES[drawn[0]]}")


#: Player 0 opens with A A A, player 1 with K K K K K; both hold Q Q and a black 3.
#: Each holds 4 red 3s, replaced by 4 5 6 7 and 8 9 T J.
S17_HANDS = [
    "R3 R3 R3 R3 A A A Q Q B3 4 5 6 8 9",
    "R3 R3 R3 R3 K K K K K Q Q B3 4 5 6",
]


def exhausted_game():
    deck = exhaustion_deck(S17_HANDS, f"4 5 6 7 8 9 T J {HIDDEN} 7 4 5 6 7", "Q 4 7")
    game = Game(make_rules("spanish"), 2, seed=0, deck=deck)
    assert game.red3 == [4, 4]
    # 216 - 30 dealt - 8 replacements - 7 pot cards = 171
    assert len(game.stock) == 171
    play(game, "draw", "meld A A A", "discard 4")
    play(game, "draw", "meld K K K K K", "discard 6")
    burn_two(game, 3)
    assert game.current == 0 and len(game.stock) == 3  # 167 - 82 x 2
    play(game, "draw")  # Q 4; the 7 is left
    assert len(game.stock) == 1
    return game


def test_S17_stock_short_and_pot_blocked_ends_the_hand():
    """S-17: one card left (a draw needs two) and the next player cannot take the pot
    (a black 3 on top): the hand ends at once, with no closing bonus."""
    game = exhausted_game()
    play(game, "discard B3")
    assert game.hand_over and game.end_reason == "stock exhausted"
    assert game.went_out is None and game.stock == cards("7")
    assert legal_strings(game) == set()
    assert [s["going_out"] for s in game.hand_scores] == [0, 0]
    # no canasta on either side: 4 red 3s count minus, 4 x 200 = 800 (S-13)
    assert [s["red3"] for s in game.hand_scores] == [-800, -800]


def test_S17_stock_short_player_may_take_the_pot_or_end_the_hand():
    """S-17: with one card left player 1 cannot draw; holding Q Q under a Q it may take
    the pot, or decline ("pass"), which ends the hand with no closing bonus."""
    game = exhausted_game()
    play(game, "discard Q")
    assert game.current == 1
    assert legal_strings(game) == {"take", "pass"}
    assert_illegal(game, "draw")
    before = game.copy()
    play(game, "pass")
    assert game.hand_over and game.end_reason == "stock exhausted" and game.went_out is None
    assert [s["going_out"] for s in game.hand_scores] == [0, 0]
    # the other choice: take the pot; the turn goes on
    play(before, "take")
    assert before.phase == 1 and not before.hand_over
    assert before.nat[1][kind_index("Q")] == 3


# ----------------------------------------------------------------------------- S-18, S-19


@pytest.mark.parametrize(
    ("overrides", "before", "over"),
    [
        # FRAME scores 290 + 800 + 200 = 1290 for team 0, -125 for team 1
        ({}, 5709, False),  # 6999 < 7000
        ({}, 5710, True),  # 7000
        ({"target_score": 5000}, 3710, True),  # quick game: 5000
        ({"target_score": 5000}, 3709, False),
        ({"target_score": 15000}, 5710, False),  # long game: 7000 is not enough
        ({"target_score": 15000}, 13710, True),
    ],
)
def test_S18_target_7000_with_quick_and_long_options(overrides, before, over):
    """S-18, G-7: the game ends when a team reaches 7000 by default, 5000 or 15000 as
    options (rules fields); S-8: at 3710+ the minimum is 120 or more, and the aces and
    kings of the frame (190) still open."""
    game = spanish([FRAME, FILLER], FRAME_THEN, scores=[before, 0], **overrides)
    assert make_rules("spanish").target_score == 7000
    play_frame(game)
    assert game.scores == [before + 1290, -125]
    assert game.game_over is over
    assert game.winner_team == (0 if over else None)


# ----------------------------------------------------------------------------- S-19
# Runs need suits, so these games are dealt from card codes (``5H`` is the 5 of hearts).

#: A draw-and-discard hand in codes: clubs 8-K and diamonds 4-6, 8-T hold no run of 7.
FILLER_CODES = "4C 5C 6C 8C 9C TC JC QC KC 4D 5D 6D 8D 9D TD"
HIDDEN_CODES = "5S 6S 8S 9S TS JS"
RUNS_OF_SPADES = {
    "escala 4-T S",
    "escala 5-J S",
    "escala 6-Q S",
    "escala 7-K S",
    "escala 8-A S",
    "escala real S",
}


def runs_game(hands: list[str], then: str, **overrides) -> Game:
    """A Spanish game with S-19 runs on, dealt from card codes (hands, then the rest)."""
    rules = make_rules("spanish", sequences=True, **overrides)
    return Game(rules, len(hands), seed=0, deck=" ".join([*hands, then]))


def suited_hand(game: Game, seat: int) -> str:
    """The naturals of a hand as codes, rank by rank in suit order S H D C."""
    suited = game.suits.hands[seat]
    return " ".join(
        f"{KIND_NAMES[rank]}{'SHDC'[suit]}"
        for rank in range(NUM_NATURALS)
        for suit in range(4)
        for _ in range(suited[rank * 4 + suit])
    )


def run_strings(game: Game) -> set[str]:
    return {s for s in legal_strings(game) if s.startswith("escala")}


def test_S19_sequences_are_off_by_default():
    """S-19: runs are an option: off in the preset, where no run action is ever legal and
    a hand holding seven hearts in a row sees none."""
    assert make_rules("spanish").sequences is False
    game = spanish(["5H 6H 7H 8H 9H TH JH A A A 4 4 5 6 8", FILLER], f"{HIDDEN} 4 9 J")
    play(game, "draw", "meld A A A")
    assert run_strings(game) == set()
    assert_illegal(game, "escala 5-J H")
    with pytest.raises(IllegalActionError, match="optional rule that is off"):
        game.apply(act("escala 5-J H"))


def test_S19_run_is_laid_by_an_opened_team_and_scores_1500_with_a_canasta():
    """S-19: a run of 7 hearts is laid whole once the team has opened (S-8 hidden canasta);
    it counts its cards (55) as melded and its 1500 bonus with a canasta; the hand goes
    out by the run and a last discard (S-15: clean + dirty canasta, not in the first
    clean canasta's turn). While the run grows in hand, discards give up the card of
    another suit (the engine's suit rule keeps runs)."""
    game = runs_game(
        ["AS AH AD AC AS AH AD KS KH KD KC KS 2S JK 5H", FILLER_CODES],
        f"{HIDDEN_CODES} 9C 6H 4C 4D QD 7H 5C 5D QD 8H 6C 6D KD 9H 8C 8D KD TH 9C 9D JD JH QC",
    )
    play(game, "draw", "meld A A A A A A A", "meld K K K K K 2 JK", "discard 4")
    assert suited_hand(game, 0) == "5H 6H"
    rounds = (
        ("Q", "5", "5H 6H 7H"),  # player 0 drew 7H 5C: the 5 of clubs goes
        ("Q", "6", "5H 6H 7H 8H"),
        ("K", "8", "5H 6H 7H 8H 9H"),
        ("K", "9", "5H 6H 7H 8H 9H TH"),
    )
    for theirs, mine, kept in rounds:
        play(game, "draw", f"discard {theirs}")  # player 1 keeps 4D, 5D, 6D, 8D, 9D
        play(game, "draw", f"discard {mine}")
        assert suited_hand(game, 0) == kept
    play(game, "draw", "discard J")
    play(game, "draw")
    assert suited_hand(game, 0) == "5H 6H 7H 8H 9H TH JH QC"
    assert legal_strings(game) == {"escala 5-J H"} | discards("5 6 7 8 9 T J Q")
    play(game, "escala 5-J H")
    assert game.escalas == [[(1, 1, 7)], []]  # hearts, from the 5, 7 cards
    assert legal_strings(game) == {"discard Q"}
    play(game, "discard Q")
    assert game.went_out == 0
    # A 140 + K 120 (50 + 2 20 + JK 50) + run 5 5 5 10 10 10 10 = 55: 315; two hidden
    # canastas 2000; run 1500; going out 200
    assert game.hand_scores[0] == sheet(315, 2000, going_out=200, n=2, sequences=1500)
    # player 1: FILLER 120 + 4D 5D 6D 8D 9D 35
    assert game.hand_scores[1] == sheet(hand_penalty=-155)


def test_S19_run_without_a_canasta_has_no_bonus_and_counts_minus():
    """S-19, S-14: the run's bonus needs a canasta; without one the team's melded cards,
    the run's included, count minus. Player 1 goes out by two hidden canastas and Q Q Q."""
    game = runs_game(
        [
            "AS AH AD 5H 6H 7H 8H 9H TH JH 4C 4D 5C 6C 8C",
            "QS QH QD QC QS QH QD JS JH JD JC JS 2S JK 8S",
        ],
        f"{HIDDEN_CODES} 9D 9C TC 8H 9S QD KD 8D 4S",
    )
    play(game, "draw")
    assert run_strings(game) == set()
    play(game, "meld A A A")  # 60: opens (S-8)
    assert run_strings(game) == {"escala 5-J H"}
    play(game, "escala 5-J H", "discard 4")
    assert suited_hand(game, 0) == "4C 5C 6C 8C 9C TC"  # the 4 of diamonds went
    play(game, "draw", "meld Q Q Q Q Q Q Q", "meld J J J J J 2 JK", "discard 9")
    play(game, "draw", "discard K")
    play(game, "draw", "meld 8 8 8", "discard 4")
    assert game.went_out == 1
    # team 0: A A A 60 + run 55 = 115, minus without a canasta (S-14); no run bonus;
    # hand 4C 5C 6C 8C 9C TC QD = 55
    assert game.hand_scores[0] == sheet(-115, hand_penalty=-55)
    # team 1: Q 70 + J J J J J 2 JK 120 + 8 8 8 30 = 220; two hidden canastas 2000; out 200
    assert game.hand_scores[1] == sheet(220, 2000, going_out=200, n=2)


def test_S19_escala_real_4000_counts_with_the_partners_canasta():
    """S-19: 4 to A of spades is an escala real (4000); the hand also holds each 7-run of
    spades, all legal. Melding A A A takes the hearts, diamonds and clubs aces (the suit
    rule keeps the run). The partner's canastas make the team's bonus count (4 players)."""
    filler_draws = "KD JD"
    game = runs_game(
        [
            "4S 5S 6S 7S 8S 9S TS JS QS KS AS AH AD AC 5C",
            FILLER_CODES,
            "QS QH QD QC QS QH QD JS JH JD JC JS 2S JK 8S",
            FILLER_CODES,
        ],
        f"{HIDDEN_CODES} 9D 4D 5D {filler_draws} 8H 9S {filler_draws} 6D 9D {filler_draws} 8D 4S",
    )
    play(game, "draw", "meld A A A")
    assert suited_hand(game, 0) == "4S 4D 5S 5D 5C 6S 7S 8S 9S TS JS QS KS AS"
    assert run_strings(game) == RUNS_OF_SPADES
    play(game, "escala real S", "discard 4")
    assert game.escalas[0] == [(0, 0, 11)]
    play(game, "draw", "discard K")
    play(game, "draw", "meld Q Q Q Q Q Q Q", "meld J J J J J 2 JK", "discard 9")
    play(game, "draw", "discard K")
    play(game, "draw", "discard 9")
    play(game, "draw", "discard K")
    play(game, "draw", "meld 8 8 8", "discard 4")
    assert game.went_out == 2
    # team 0: A A A 60 + 4..A 100 + Q 70 + J 120 + 8 8 8 30 = 380; canastas 2000;
    # escala real 4000; going out 200; player 0 keeps 5C 5D 6D = 15
    assert game.hand_scores[0] == sheet(
        380, 2000, going_out=200, hand_penalty=-15, n=2, sequences=4000
    )
    # team 1 never opened: fillers 120 + 120 and the kept jacks 10 + 10 + 10
    assert game.hand_scores[1] == sheet(hand_penalty=-270)


def test_S19_run_that_would_strand_the_player_is_not_legal():
    """S-19 with S-15, S-16: laying the run would leave one card, whose discard would go
    out without the clean and dirty canastas: the run is masked out, with a reason. The
    6 6 6 meld takes the spades, diamonds and clubs sixes (the suit rule keeps the run)."""
    game = runs_game(
        ["AS AH AD 5H 6H 7H 8H 9H TH JH 4C 4D 4S 6C 6D", FILLER_CODES],
        f"{HIDDEN_CODES} 9D 6S QD",
    )
    play(game, "draw", "meld A A A", "meld 4 4 4")
    assert run_strings(game) == {"escala 5-J H"}  # here it would leave 6C 6D 6S QD
    play(game, "meld 6 6 6")
    assert suited_hand(game, 0) == "5H 6H 7H 8H 9H TH JH QD"
    assert legal_strings(game) == {"add 6"} | discards("5 6 7 8 9 T J Q")
    with pytest.raises(IllegalActionError, match="could not finish the turn"):
        game.apply(act("escala 5-J H"))
    assert_illegal(game, "escala 5-J H")


def test_S19_cannot_be_combined_with_C7_black3s_only_when_going_out():
    """S-19 is offered where black 3s are not bound to going out (C-7): the turn search
    that guards C-7 plans with card kinds, runs need suits."""
    with pytest.raises(ValueError, match="sequences.*black3_meld_only_going_out"):
        make_rules("classic", sequences=True)
    assert make_rules("classic", sequences=True, black3_meld_only_going_out=False).sequences
    with pytest.raises(ValueError, match="sequence_bonus"):
        make_rules("spanish", sequences=True, sequence_bonus=-1)


def test_S19_stacked_deck_keeps_suits_and_refuses_extra_copies():
    """S-19: a deck given as codes keeps their suits; kinds given as numbers take the
    first suits left (S H D C); a card more often than the decks hold is refused."""
    game = runs_game(["5H 5H 5H 5H 6H 7H 8H 9H TH JH 4C 4D 5C 6C 8C", FILLER_CODES], "")
    assert suited_hand(game, 0) == "4D 4C 5H 5H 5H 5H 5C 6H 6C 7H 8H 8C 9H TH JH"
    with pytest.raises(ValueError, match="more 5H than the 4 deck"):
        runs_game(["5H 5H 5H 5H 5H 7H 8H 9H TH JH 4C 4D 5C 6C 8C", FILLER_CODES], "")
    rules = make_rules("spanish", sequences=True)
    kinds = Game(rules, 2, seed=0, deck=[1] * 6 + [0] * 9 + [2] * 15)
    assert suited_hand(kinds, 0) == "4S 4S 4S 4S 4H 4H 4H 4H 4D 5S 5S 5S 5S 5H 5H"


def test_S19_state_json_keeps_runs_and_suits_and_rejects_bad_ones():
    """S-19: a saved state holds the real suits of hands, stock and pot and the runs laid;
    it loads to the same game; a malformed run or a duplicated suited card is refused."""
    import json

    from canasta_env.state_io import state_from_json, state_to_dict, state_to_json

    game = runs_game(
        ["AS AH AD 5H 6H 7H 8H 9H TH JH 4C 4D 5C 6C 8C", FILLER_CODES],
        f"{HIDDEN_CODES} 9D 9C TC",
    )
    play(game, "draw", "meld A A A", "escala 5-J H")
    data = state_to_dict(game)
    assert data["escalas"] == [["5-J H"], []]
    assert data["hands"][0] == "4D 4C 5C 6C 8C 9C TC"
    loaded = state_from_json(state_to_json(game))
    assert state_to_dict(loaded) == data
    assert loaded.suits.hands == game.suits.hands and loaded.escalas == game.escalas
    assert loaded.suits.stock == game.suits.stock and loaded.suits.pot == game.suits.pot
    assert loaded.legal_actions() == game.legal_actions()
    play(loaded, "discard 4")
    play(game, "discard 4")
    assert state_to_dict(loaded) == state_to_dict(game)

    bad = json.loads(json.dumps(data))
    bad["escalas"][0] = ["5-K H"]
    with pytest.raises(ValueError, match=r"escalas\[0\]\[0\].*not a run"):
        state_from_json(json.dumps(bad))
    bad = json.loads(json.dumps(data))
    del bad["escalas"]
    with pytest.raises(ValueError, match="missing field.*escalas"):
        state_from_json(json.dumps(bad))
    bad = json.loads(json.dumps(data))
    bad["escalas"] = [[], ["5-J H"]]  # team 1 has not opened
    with pytest.raises(ValueError, match="team 1 has runs but has not opened"):
        state_from_json(json.dumps(bad))
    bad = json.loads(json.dumps(data))
    # four more 9 of clubs: the stock's 9s become clubs (kinds unchanged, suits impossible)
    stock = bad["stock"].split()
    nines = [i for i, code in enumerate(stock) if code[0] == "9"][:4]
    for i in nines:
        stock[i] = "9C"
    bad["stock"] = " ".join(stock)
    with pytest.raises(ValueError, match="9C in stock"):
        state_from_json(json.dumps(bad))


@pytest.mark.parametrize("players", [2, 6])
def test_S19_option_adds_suits_to_the_same_deal(players):
    """S-19: the same seed deals the same kinds with runs on or off (hands, pot, stock)."""
    for seed in range(3):
        plain = Game(make_rules("spanish"), players, seed=seed)
        runs = Game(make_rules("spanish", sequences=True), players, seed=seed)
        assert runs.hands == plain.hands and runs.pot == plain.pot
        assert runs.stock == plain.stock and runs.suits.tracked
