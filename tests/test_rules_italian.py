"""Italian Canasta scenario tests (RULES.md I-1..I-16 and the resolved ambiguities
3, 10, 11 and 12).

Every position comes from a stacked deck (tests/scenario.py): the deal gives each
seat a 15-card block, then the red-3 replacements, then the pot start (I-3: the
turned cards, then as many face-down cards as the natural's number), then the
draws of two cards (or one after a pot take, I-4). Masks are written out in full
where they are readable; scores are worked out by hand, with the arithmetic in the
comments.
"""

from __future__ import annotations

import pytest

from canasta_env.cards import KIND_NAMES, NUM_KINDS, NUM_NATURALS, RED3, deck_counts
from canasta_env.engine import Game, IllegalActionError
from canasta_env.rules import make_rules
from tests.scenario import (
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
#: card; 4 5 6 x2 = 30, 8 9 T x2 = 60, J Q K = 30: 120 points.
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"

#: The pot start of most tests: a 4 turned up and 4 cards face down under it (I-3).
POT4 = "4 5 6 8 9"

#: The stock after a 2-player deal without red 3s and with POT4: 162 - 30 - 5.
STOCK_AFTER_DEAL = 162 - 30 - 5


def italian(hands, then="", **kwargs):
    return new_game(hands, then, variant="italian", **kwargs)


def discards(kinds: str) -> set[str]:
    return {f"discard {k}" for k in kinds.split()}


def kind_index(name: str) -> int:
    return KIND_NAMES.index(name)


def sheet(*parts, **named):
    """A score sheet; the total is the sum of the parts (G-9, I-12..I-15)."""
    return score_sheet(*parts, **named)


# ----------------------------------------------------------------------------- I-1, I-2


def test_I1_deck_of_162_cards():
    """I-1: three 52-card decks with 2 jokers each; every card is somewhere after the
    deal."""
    game = Game(make_rules("italian"), 2, seed=4)
    deck = game.full_deck_counts()
    # 11 naturals x 12 + 12 twos + 6 jokers + 6 black 3s + 6 red 3s = 132 + 30 = 162
    assert deck == [12] * 11 + [12, 6, 6, 6]
    assert sum(deck) == 162
    placed = [0] * NUM_KINDS
    for hand in game.hands:
        placed = [a + b for a, b in zip(placed, hand)]
    for card in game.stock + game.pot:
        placed[card] += 1
    placed[RED3] += sum(game.red3)
    assert placed == deck
    with pytest.raises(ValueError):  # 6 jokers in the deck, not 7
        Game(make_rules("italian"), 2, seed=0, deck="JK " * 7)


@pytest.mark.parametrize("players", [3, 6])
def test_I1_two_or_four_players_only(players):
    """I-1, I-2 (preset table): the Italian preset is played by 2 players or 2 teams of 2."""
    with pytest.raises(ValueError):
        Game(make_rules("italian"), players, seed=0)


@pytest.mark.parametrize("players", [2, 4])
def test_I2_fifteen_cards_each(players):
    """I-2: 15 cards to each player; red 3s laid out and replaced (G-6)."""
    for seed in range(3):
        game = Game(make_rules("italian"), players, seed=seed)
        assert game.hand_totals == [15] * players
        assert all(hand[RED3] == 0 for hand in game.hands)
    assert game.team_of == ([0, 1] if players == 2 else [0, 1, 0, 1])


def test_I2_dealt_red3s_laid_out_and_replaced():
    """I-2, G-6: dealt red 3s go to the team and are replaced seat by seat; the pot is
    started afterwards."""
    game = italian(
        ["R3 A A A K K K Q Q Q J J J T T", "R3 R3 4 5 6 8 9 T J Q K 4 5 6 8"],
        f"9 9 T {POT4}",  # p0: 9; p1: 9 T; then the pot
    )
    assert game.red3 == [1, 2]
    assert hand_of(game, 0) == "9 T T J J J Q Q Q K K K A A A"
    assert game.hands[1] == counts(FILLER)
    assert game.pot == cards("5 6 8 9 4")
    assert len(game.stock) == STOCK_AFTER_DEAL - 3


# ----------------------------------------------------------------------------- I-3

UNDER = "5 6 8 9 T J Q K A 5 6 8 9 T"  # up to 14 face-down cards


@pytest.mark.parametrize(
    ("turned", "under", "frozen"),
    [
        ("4", 4, False),
        ("9", 9, False),
        ("T", 10, False),
        ("J", 11, False),
        ("Q", 12, False),
        ("K", 13, False),
        ("A", 14, False),
        ("B3 K", 13, False),  # a black 3 goes into the pot, the next card is turned
        ("2 7", 7, True),  # a 2 freezes the pot
        ("JK B3 5", 5, True),
        ("R3 8", 8, True),  # a red 3 freezes it and stays in the pot
    ],
)
def test_I3_starting_pot(turned, under, frozen):
    """I-3: cards are turned until a natural shows; black 3s, 2s and jokers go into the
    pot (2s and jokers freeze it, and so does a red 3); then as many cards as the
    natural's number go face down under it: 4..10, J 11, Q 12, K 13, A 14."""
    hidden = " ".join(UNDER.split()[:under])
    game = italian([FILLER, FILLER], f"{turned} {hidden}")
    assert game.pot == cards(f"{hidden} {turned}")
    assert game.pot_hidden == under
    assert game.pot_wild is frozen
    assert game.red3 == [0, 0]
    assert len(game.stock) == 162 - 30 - len(turned.split()) - under


def test_I3_I8_turned_red3_freezes_the_pot_and_goes_to_the_taker():
    """I-3, I-8, G-6: with R3 8 turned the pot is frozen: 8 8 cannot take it, 8 8 8 can
    (with A A A the clean opening is 40 + 60 = 100); the red 3 is laid out unreplaced."""
    hidden = "5 6 7 9 T J Q K"  # 8 cards under the 8
    game = italian(["8 8 A A A 4 5 6 7 9 T J Q K 4", FILLER], f"R3 8 {hidden}")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")
    game = italian(["8 8 8 A A A 4 5 6 7 9 T J Q K", FILLER], f"R3 8 {hidden} B3")
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert game.red3 == [1, 0]
    assert melds_of(game, 0) == {"8": "8 8 8 8"}
    assert game.held == counts(hidden)
    play(game, "meld A A A")
    assert game.opened == [True, False]


# ----------------------------------------------------------------------------- I-4


def test_I4_draw_two_then_meld_then_discard():
    """I-4: without taking the pot the player draws two cards, may meld, discards one."""
    game = italian(["A A A 5 6 7 8 9 T J Q K 5 6 7", FILLER], f"{POT4} J K")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take", "discard 5", "pass")
    play(game, "draw")
    assert game.hand_totals[0] == 17 and len(game.stock) == STOCK_AFTER_DEAL - 2
    assert legal_strings(game) == {"meld A A A"} | discards("5 6 7 8 9 T J Q K A")
    play(game, "meld A A A", "discard 5")
    assert game.current == 1 and game.pot[-1] == kind_index("5")


def test_I4_take_the_pot_then_draw_one_card():
    """I-4, I-7: taking the pot (K K and the top K) is followed by drawing one stock card;
    the pot waits aside until the opening (30 + A A A 60) is complete."""
    hidden = "5 6 7 8 9 T J Q A 5 6 7 8"  # 13 cards under the K
    game = italian(["K K A A A 4 5 6 7 8 9 T J Q 4", FILLER], f"K {hidden} B3")
    stock = len(game.stock)
    assert stock == 162 - 30 - 14
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert len(game.stock) == stock - 1
    assert melds_of(game, 0) == {"K": "K K K"}
    assert game.held == counts(hidden)
    assert hand_of(game, 0) == "4 4 5 6 7 8 9 T J Q A A A B3"  # + the drawn black 3
    assert legal_strings(game) == {"meld A A A"}
    play(game, "meld A A A")
    assert game.held == [0] * NUM_KINDS
    assert game.hand_totals[0] == 11 + 13


# ----------------------------------------------------------------------------- I-5, I-6


def opened_player0(dealt: str, draws: str):
    """Player 0 opens with A A A in turn 1 (drawing B3 8, discarding the 8); player 1
    draws J K and discards the J; player 0 then draws ``draws``."""
    game = italian([dealt, FILLER], f"{POT4} B3 8 J K {draws}")
    play(game, "draw", "meld A A A", "discard 8")
    play(game, "draw", "discard J")
    play(game, "draw")
    return game


def test_I5_meld_compositions():
    """I-5, I-6: 3+ naturals; 2 naturals and 1 wild card; 3+ naturals and at most 2 wild
    cards; no meld of 3s; wild cards alone from 3 cards on."""
    game = opened_player0("A A A 9 9 9 9 2 2 JK B3 B3 B3 4 5", "T Q")
    assert hand_of(game, 0) == "4 5 9 9 9 9 T Q 2 2 JK B3 B3 B3 B3"
    assert meld_strings(game) == {
        "add 2 to A",
        "add JK to A",
        "meld 9 9 2",
        "meld 9 9 JK",
        "meld 9 9 9",
        "meld 9 9 9 2",
        "meld 9 9 9 JK",
        "meld 9 9 9 2 2",
        "meld 9 9 9 2 JK",
        "meld 9 9 9 9",
        "meld 9 9 9 9 2",
        "meld 9 9 9 9 JK",
        "meld 9 9 9 9 2 2",
        "meld 9 9 9 9 2 JK",
        "meld 2 2 JK",
    }
    # 2 naturals with 2 wild cards; 3 wild cards with 3 or 4 naturals; black 3s
    assert_illegal(
        game, "meld 9 9 2 2", "meld 9 9 9 2 2 JK", "meld 9 9 9 9 2 2 JK", "meld B3 B3 B3"
    )


def test_I5_no_meld_of_black3s_even_to_go_out():
    """I-5, I-11: black 3s are never melded, not even to go out (classic C-7 would allow
    B3 B3 B3 with the 5 discarded). At 3001 the dirty Ks (120) open."""
    game = italian(
        ["K K K K K 2 JK 8 8 8 8 8 8 8 B3", FILLER],
        f"{POT4} B3 9 J 4 B3 5",
        scores=[3001, 0],
    )
    play(game, "draw", "meld K K K K K 2 JK", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "meld 8 8 8 8 8 8 8")
    assert hand_of(game, 0) == "5 B3 B3 B3"
    assert legal_strings(game) == {"discard 5", "discard B3"}
    assert_illegal(game, "meld B3 B3 B3")


def test_I5_one_meld_per_rank():
    """I-5: with A A A on the table, more aces are added to it, never a second meld."""
    game = opened_player0("A A A A A 2 4 5 6 7 9 T J Q K", "8 B3")
    assert meld_strings(game) == {"add A", "add 2 to A"}
    assert_illegal(game, "meld A A 2")


def test_I6_wild_meld_needs_three_wild_cards():
    """I-6: 2 JK alone cannot be melded; after drawing a joker, 2 JK JK can."""
    game = opened_player0("A A A 2 JK 4 5 6 7 9 T J Q K 8", "JK B3")
    assert meld_strings(game) == {"add 2 to A", "add JK to A", "meld 2 JK JK"}
    play(game, "meld 2 JK JK")
    assert melds_of(game, 0) == {"A": "A A A", "wild": "2 JK JK"}
    assert meld_strings(game) == set()  # the wild meld grows only with wild cards


def test_I5_I11_canasta_grows_past_seven_and_a_wild_card_makes_it_dirty():
    """I-5, I-11, I-12, I-13, I-14: 8 x7 (clean, opens with 70) grows to 8 naturals, then a
    2 makes it dirty; K x6 becomes a clean canasta in the same turn and the player goes
    out (the required canastas may be completed in the going-out turn)."""
    game = italian(
        ["8 8 8 8 8 8 8 8 K K K K K K K", FILLER],
        f"{POT4} 2 9 J 4 K 5",  # p0 draws 2 9, p1 J 4, p0 K 5
    )
    play(game, "draw", "meld 8 8 8 8 8 8 8", "meld K K K K K K", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "add 8", "add 2 to 8")
    assert melds_of(game, 0) == {"8": "8 8 8 8 8 8 8 8 2", "K": "K K K K K K"}
    assert legal_strings(game) == {"add K", "discard K", "discard 5"}
    play(game, "add K", "add K", "discard 5")
    assert game.went_out == 0
    # 8 x8 80 + 2 20 + K x8 80 = 180; dirty 8s 300 + clean Ks 500; going out 500
    assert game.hand_scores[0] == sheet(180, 800, going_out=500, n=2)
    # player 1 never opened: FILLER + 4 = 125, doubled (I-14)
    assert game.hand_scores[1] == sheet(hand_penalty=-250)


# ----------------------------------------------------------------------------- I-7


@pytest.mark.parametrize(
    ("dealt", "opening"),
    [
        ("K K A A A 4 5 6 7 8 9 T J Q 4", "meld A A A"),  # 30 + 60, clean
        ("K K 2 2 2 4 5 6 7 8 9 T J Q 4", "meld 2 2 2"),  # three 2s count as clean
        ("K K 2 JK JK 4 5 6 7 8 9 T J Q 4", "meld 2 JK JK"),  # two jokers and a 2
        ("K K A A 2 4 5 6 7 8 9 T J Q 4", None),  # A A 2 is dirty
        ("K K 2 2 JK 4 5 6 7 8 9 T J Q 4", None),  # 2 2 JK is not a clean wild meld
        ("K A A A 4 5 6 7 8 9 T J Q 4 5", None),  # one K only
    ],
)
def test_I7_I10_unopened_take_needs_a_clean_opening_of_50(dealt, opening):
    """I-7, I-10: an unopened team may take the pot (two naturals of the top card) only if
    it opens in that turn with a clean opening of the 50 level."""
    hidden = "5 6 7 8 9 T J Q A 5 6 7 8"
    game = italian([dealt, FILLER], f"K {hidden} B3")
    if opening is None:
        assert legal_strings(game) == {"draw"}
        assert_illegal(game, "take")
        return
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert legal_strings(game) == {opening}
    play(game, opening)
    assert game.opened == [True, False]


def test_I7_card_drawn_after_the_take_does_not_count():
    """I-7, I-4 (engine reading): the legality of the take is decided before the card
    drawn after it: K K and A A cannot take although an A comes next."""
    game = italian(["K K A A 4 5 6 7 8 9 T J Q 4 5", FILLER], "K 5 6 7 8 9 T J Q A 5 6 7 8 A")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")


@pytest.mark.parametrize("top", ["B3", "2", "JK", "9"])
def test_I7_black3_or_wild_on_top_blocks_the_pot(top):
    """I-7: the pot cannot be taken while its top card is a black 3, a 2 or a joker; the
    same player holding 9 9 takes a 9."""
    game = italian(
        ["A A A 9 9 4 5 6 7 T J Q K 4 5", f"{top} 4 5 6 8 9 T J Q K 4 5 6 8 9"],
        f"{POT4} 7 8 K 6",  # p0 draws 7 8, p1 draws K 6
    )
    play(game, "draw", "meld A A A", "discard 8")
    play(game, "draw", f"discard {top}")
    legal = {"draw", "take"} if top == "9" else {"draw"}
    assert legal_strings(game) == legal
    if top != "9":
        assert_illegal(game, "take")


@pytest.mark.parametrize(("nines", "legal"), [(4, {"draw"}), (5, {"draw", "take"})])
def test_I7_take_needs_two_naturals_even_with_a_meld_of_the_rank(nines, legal):
    """I-7: an opened team with a meld of 9s and one 9 in hand cannot take a 9 (no take
    onto a meld, no take with a wild card); with two 9s the take joins the meld."""
    rest = "4 5 6 7 T J Q" if nines == 4 else "5 6 7 T J Q"
    game = italian(
        [f"A A A {' '.join(['9'] * nines)} 2 {rest}", FILLER],
        f"{POT4} B3 8 9 K",  # p0 draws B3 8, p1 draws 9 K
    )
    play(game, "draw", "meld A A A", "meld 9 9 9", "discard 8")
    play(game, "draw", "discard 9")
    assert legal_strings(game) == legal
    if nines == 4:
        assert_illegal(game, "take", "take onto meld", "take +2")
        return
    play(game, "take")
    assert melds_of(game, 0) == {"9": "9 9 9 9 9 9", "A": "A A A"}


def test_I7_I10_dirty_opening_above_50_cannot_take_the_pot():
    """I-7, I-10, I-9: at 3001 the minimum is 90 and the opening may be dirty, but a dirty
    opening does not let the player take the pot in the same turn: K K K 30 + Q Q Q 30
    is clean but short; with A A 2 it is dirty. After drawing, A A 2 + Q Q Q (90) opens."""
    then = "K 5 6 7 8 9 T J Q A 5 6 7 8 J B3"  # K turned, 13 under it; draws J B3
    game = italian(["K K A A 2 Q Q Q 4 5 6 7 8 9 T", FILLER], then, scores=[3001, 0])
    assert game.need == [90, 50]
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")
    play(game, "draw")
    # Q Q 2 (40) or K K 2 (40) leave at most 30 more: short of 90
    assert meld_strings(game) == {"meld A A 2", "meld Q Q Q"}
    play(game, "meld A A 2", "meld Q Q Q")
    assert game.opened == [True, False]


def test_I7_I10_clean_opening_above_50_may_take_the_pot():
    """I-7, I-10 (with seed 004: only a dirty opening forbids the take): at 3001, K K K 30
    + A A A 60 = 90 is a clean opening and the pot may be taken."""
    then = "K 5 6 7 8 9 T J Q A 5 6 7 8 J B3"
    game = italian(["K K A A A Q 4 5 6 7 8 9 T 4 5", FILLER], then, scores=[3001, 0])
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert legal_strings(game) == {"meld A A A"}
    play(game, "meld A A A")
    assert game.opened == [True, False]


# ----------------------------------------------------------------------------- I-8


@pytest.mark.parametrize(
    ("discard", "nines", "legal"),
    [
        ("2", "9 9", {"draw"}),  # frozen: three naturals needed
        ("2", "9 9 9", {"draw", "take"}),
        ("4", "9 9", {"draw", "take"}),
    ],
)
def test_I8_discarded_wild_card_freezes_the_pot(discard, nines, legal):
    """I-8, I-7: a discarded 2 blocks the next player and freezes the pot: until it is
    taken, three naturals of the top card's rank are needed."""
    extra = " K" if nines == "9 9" else ""
    game = italian(
        [f"A A A 2 4 {nines} 5 6 7 8 T J Q{extra}", FILLER],
        f"{POT4} Q J 9 K",  # p0 draws Q J, p1 draws 9 K
    )
    play(game, "draw", "meld A A A", f"discard {discard}")
    assert game.pot_wild is (discard == "2")
    assert legal_strings(game) == {"draw"}
    play(game, "draw", "discard 9")
    assert legal_strings(game) == legal
    if legal == {"draw"}:
        assert_illegal(game, "take")
        return
    hand = game.hand_totals[0]
    play(game, "take")
    size = 4 if discard == "2" else 3
    assert melds_of(game, 0) == {"9": " ".join(["9"] * size), "A": "A A A"}
    assert game.pot == [] and not game.pot_wild
    # - the naturals + the pot below the top (POT4 and the discard, 6 cards) + one drawn
    assert game.hand_totals[0] == hand - (size - 1) + 6 + 1


# ----------------------------------------------------------------------------- I-9, I-10


@pytest.mark.parametrize(
    ("score", "minimum"),
    [
        (-500, 50),
        (0, 50),
        (3000, 50),
        (3001, 90),
        (5000, 90),
        (5001, 120),
        (7000, 120),
        (7001, 160),
        (7500, 160),  # the seed's example
        (10000, 160),
        (10001, 200),
        (12000, 200),
        (12001, 200),  # ambiguity 10: the last two brackets both give 200
        (14999, 200),
    ],
)
def test_I9_ambiguity10_opening_table(score, minimum):
    """I-9, resolved ambiguity 10: 50 up to 3000, 90, 120, 160, then 200 above 10000."""
    game = italian([FILLER, FILLER], POT4, scores=[score, 0])
    assert game.need == [minimum, 50]


@pytest.mark.parametrize(
    ("score", "melds"),
    [
        (3000, {"meld A A A", "meld 8 8 8", "meld 7 7 7"}),  # 50: A A A alone opens
        (3001, {"meld A A A", "meld 8 8 8", "meld 7 7 7"}),  # 90: 60 + 30 (+ 15)
        (5001, set()),  # A A A 60 + 8 8 8 30 + 7 7 7 15 = 105 < 120
    ],
)
def test_I9_minimum_decides_which_melds_are_legal(score, melds):
    """I-9, G-5: the melds of the opening turn must reach the minimum together."""
    game = italian(["A A A 8 8 8 7 7 7 5 6 9 T J K", FILLER], f"{POT4} Q K", scores=[score, 0])
    play(game, "draw")
    assert meld_strings(game) == melds
    if not melds:
        assert_illegal(game, "meld A A A")


def test_I10_opening_at_50_is_clean_for_the_whole_turn():
    """I-10: at the 50 level the opening turn lays no wild card (9 9 2, A A A 2 refused,
    also after the minimum is reached); the next turn may."""
    game = italian(["A A A 9 9 2 JK 4 5 6 7 T J Q K", FILLER], f"{POT4} 8 B3 J 4 8 B3")
    play(game, "draw")
    assert meld_strings(game) == {"meld A A A"}
    assert_illegal(game, "meld 9 9 2", "meld A A A 2")
    play(game, "meld A A A")
    assert meld_strings(game) == set()
    assert_illegal(game, "add 2 to A", "meld 9 9 JK")
    play(game, "discard 8")
    play(game, "draw", "discard J")
    play(game, "draw")
    assert meld_strings(game) == {
        "add 2 to A",
        "add JK to A",
        "meld 9 9 2",
        "meld 9 9 JK",
    }


def test_I10_three_twos_or_two_jokers_and_a_two_count_as_clean():
    """I-10: in a 50-level opening the only wild melds are 2 2 2 and 2 JK JK."""
    game = italian(["2 2 2 JK JK 4 5 6 7 8 9 T J Q K", FILLER], f"{POT4} A B3")
    play(game, "draw")
    assert meld_strings(game) == {"meld 2 2 2", "meld 2 JK JK"}
    assert_illegal(game, "meld 2 2 JK", "meld 2 2 2 JK", "meld 2 2 2 JK JK")
    play(game, "meld 2 2 2")  # 60 >= 50
    assert game.opened == [True, False]
    assert meld_strings(game) == set()  # no wild card added in the clean opening turn


@pytest.mark.parametrize(
    ("dealt", "melds"),
    [
        # seven 4s are a canasta but count 35 only: no opening
        ("4 4 4 4 4 4 4 5 6 7 9 T J Q K", set()),
        # 35 + 8 8 8 30 = 65 >= 50
        (
            "4 4 4 4 4 4 4 8 8 8 5 6 7 9 T",
            {
                "meld 4 4 4",
                "meld 4 4 4 4",
                "meld 4 4 4 4 4",
                "meld 4 4 4 4 4 4",
                "meld 4 4 4 4 4 4 4",
                "meld 8 8 8",
            },
        ),
    ],
)
def test_I10_canasta_in_the_opening_counts_only_its_card_values(dealt, melds):
    """I-10: a canasta laid in the opening counts its card values, not its bonus."""
    game = italian([dealt, FILLER], f"{POT4} A B3")
    play(game, "draw")
    assert meld_strings(game) == melds


def test_I10_one_opening_serves_the_team():
    """I-10, G-3: player 0 opens; partner player 2 then takes the pot with 9 9 without an
    opening of its own and lays a dirty meld in the same turn."""
    game = italian(
        [
            "A A A 5 6 7 T J Q K 5 6 7 T J",  # player 0
            FILLER,  # player 1
            "9 9 K K 2 4 5 6 7 8 T J Q 4 5",  # player 2
            FILLER,
        ],
        f"{POT4} 8 Q 9 K B3",  # p0 draws 8 Q, p1 9 K, p2 draws B3 after the take
    )
    play(game, "draw", "meld A A A", "discard 8")
    play(game, "draw", "discard 9")
    assert game.current == 2
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    # p2: K K 2 4 5 6 7 8 T J Q 4 5 + the pot 5 6 8 9 4 8 + B3
    assert hand_of(game, 2) == "4 4 4 5 5 5 6 6 7 8 8 8 9 T J Q K K 2 B3"
    assert meld_strings(game) == {
        "add 9",
        "add 2 to 9",
        "add 2 to A",
        "meld 4 4 4",
        "meld 4 4 2",
        "meld 4 4 4 2",
        "meld 5 5 5",
        "meld 5 5 2",
        "meld 5 5 5 2",
        "meld 6 6 2",
        "meld 8 8 8",
        "meld 8 8 2",
        "meld 8 8 8 2",
        "meld K K 2",
    }
    play(game, "meld K K 2")
    assert melds_of(game, 0) == {"9": "9 9 9", "K": "K K 2", "A": "A A A"}


# ----------------------------------------------------------------------------- I-11


def test_I11_clean_canastas_only_cannot_go_out():
    """I-11: with two clean canastas and no dirty one, the player holding Q Q Q 2 may not
    meld Q Q Q (its 2 could neither be discarded to go out nor melded: no final discard)
    nor Q Q 2; adding the 2 to a canasta (making it dirty) is allowed."""
    game = italian(
        ["8 8 8 8 8 8 8 K K K K K K 2 Q", FILLER],
        f"{POT4} Q 9 J 4 K Q",  # p0 draws Q 9, p1 J 4, p0 K Q
    )
    play(game, "draw", "meld 8 8 8 8 8 8 8", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "meld K K K K K K K")  # a second clean canasta
    assert hand_of(game, 0) == "Q Q Q 2"
    assert legal_strings(game) == {"add 2 to 8", "add 2 to K", "discard Q", "discard 2"}
    assert_illegal(game, "meld Q Q Q", "meld Q Q 2", "meld Q Q Q 2")


def test_I11_first_clean_canasta_may_be_completed_in_the_going_out_turn():
    """I-11: unlike S-15, the required canasta may be completed in the going-out turn,
    even the team's first clean one. At 3001 the dirty Ks (120) open in turn 1."""
    game = italian(["K K K K K 2 JK 8 8 8 8 8 8 8 Q", FILLER], FRAME_THEN, scores=[3001, 0])
    play(game, "draw", "meld K K K K K 2 JK", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "meld 8 8 8 8 8 8 8")
    assert legal_strings(game) == {"meld Q Q Q", "discard Q", "discard 5"}
    play(game, "meld Q Q Q", "discard 5")
    assert game.went_out == 0
    # Ks 120 + 8s 70 + Q Q Q 30 = 220; 300 + 500; going out 500
    assert game.hand_scores[0] == sheet(220, 800, going_out=500, n=2)


def test_I11_going_out_needs_a_final_discard_and_a_dirty_canasta():
    """I-11: a clean (8s) and a dirty (Ks) canasta let the player go out by melding all
    cards but one and discarding it; melding the last card is refused."""
    game = italian(["8 8 8 8 8 8 8 K K K K K 2 JK Q", FILLER], f"{POT4} Q 9 J 4 Q Q")
    play(game, "draw", "meld 8 8 8 8 8 8 8", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "meld K K K K K 2 JK")
    assert hand_of(game, 0) == "Q Q Q Q"
    assert meld_strings(game) == {"meld Q Q Q"}
    assert_illegal(game, "meld Q Q Q Q")
    play(game, "meld Q Q Q", "discard Q")
    assert game.went_out == 0 and game.end_reason == "went out"


# ----------------------------------------------------------------------------- I-12

#: Turn 1: a clean canasta (opening); turn 2: a dirty canasta, Q Q Q and the 5 out.
#: Player 1 draws J 4 and discards the J: FILLER + 4 = 125, doubled (never opened).
FRAME_THEN = f"{POT4} Q 9 J 4 Q 5"


def play_frame(game, clean: str, dirty: str) -> None:
    play(game, "draw", f"meld {clean}", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", f"meld {dirty}", "meld Q Q Q", "discard 5")
    assert game.went_out == 0


@pytest.mark.parametrize(
    ("clean", "dirty", "melded", "bonus"),
    [
        # 8 x7 70; K x5 50 + 2 + JK 70 = 120; Q Q Q 30
        ("8 8 8 8 8 8 8", "K K K K K 2 JK", 70 + 120 + 30, 500 + 300),
        # A x7 140 (clean aces 1000)
        ("A A A A A A A", "K K K K K 2 JK", 140 + 120 + 30, 1000 + 300),
        # A x5 100 + 70 = 170 (dirty aces 500)
        ("8 8 8 8 8 8 8", "A A A A A 2 JK", 70 + 170 + 30, 500 + 500),
    ],
)
def test_I12_natural_canasta_values(clean, dirty, melded, bonus):
    """I-12, I-13, I-14: clean 500, dirty 300; clean aces 1000, dirty aces 500; going out
    500; an unopened team's hand counts double."""
    dealt = f"{clean} {' '.join(dirty.split()[:5])} 2 JK Q"
    game = italian([dealt, FILLER], FRAME_THEN)
    play_frame(game, clean, dirty)
    assert game.hand_scores[0] == sheet(melded, bonus, going_out=500, n=2)
    assert game.hand_scores[1] == sheet(hand_penalty=-250)


@pytest.mark.parametrize(
    ("twos", "jokers", "bonus"),
    [
        (1, 6, 5000),  # toro seduto
        (2, 5, 2000),  # ambiguity 11: any other mix is 2000
        (4, 3, 2000),
        (7, 0, 3000),  # seven 2s
    ],
)
def test_I12_ambiguity11_wild_canastas(twos, jokers, bonus):
    """I-12, resolved ambiguity 11, I-4, I-7: seven 2s 3000; 2s with jokers 2000; six jokers
    and one 2 ("toro seduto") 5000. Player 0 opens by taking the starting pot (an A with
    14 cards under it), lays 7 x7, then the wild canasta, a dirty canasta of Ks, Q x4,
    J x3, and goes out."""
    wild = " ".join(["2"] * twos + ["JK"] * jokers)
    game = italian(
        [f"A A {wild} K K K K K K", FILLER],
        # turned A, 14 cards under it; p0 draws 2 after the take; p1 J 4; p0 J 9
        "A 7 7 7 7 7 7 7 Q Q Q Q J J J 2 J 4 J 9",
    )
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take", "meld 7 7 7 7 7 7 7", "discard J")
    play(game, "draw", "discard J")
    play(game, "draw", f"meld {wild}", "meld K K K K K K 2", "meld Q Q Q Q", "meld J J J")
    assert game.closed == [[], []]  # Italian melds do not close
    play(game, "discard 9")
    assert game.went_out == 0
    # A A A 60, 7 x7 35, K x6 + 2 80, Q x4 40, J x3 30 = 245, + the wild cards
    melded = 245 + 20 * twos + 50 * jokers
    # 7s clean 500, Ks dirty 300, the wild canasta; going out 500
    assert game.hand_scores[0] == sheet(melded, 800 + bonus, going_out=500, n=3)
    assert game.hand_scores[1] == sheet(hand_penalty=-250)


# ----------------------------------------------------------------------------- I-13, I-14


def four_player_clean_canastas(p2_canastas: int):
    """Player 0 takes the starting pot (A, 14 under) and lays 7s, 8s and 9s; partner
    player 2 lays Ts and 6s (or Ts only); player 0 then goes out with a dirty canasta."""
    p2_melds = ["meld T T T T T T T", "meld 6 6 6 6 6 6 6"][:p2_canastas]
    game = italian(
        [
            "A A 7 7 7 7 7 7 7 K K K K K 2",
            FILLER,
            "T T T T T T T 6 6 6 6 6 6 6 5",
            FILLER,
        ],
        # turned A and 14 under it; p0 draws Q after the take; p1 J 4; p2 4 B3; p3 J 4;
        # p0 K 5
        "A 8 8 8 8 8 8 8 9 9 9 9 9 9 9 Q J 4 4 B3 J 4 K 5",
    )
    play(game, "take", "meld 7 7 7 7 7 7 7", "meld 8 8 8 8 8 8 8", "meld 9 9 9 9 9 9 9")
    play(game, "discard Q")
    play(game, "draw", "discard J")
    play(game, "draw", *p2_melds, "discard B3")
    play(game, "draw", "discard J")
    play(game, "draw", "meld K K K K K K 2", "discard 5")
    assert game.went_out == 0
    return game


@pytest.mark.parametrize(
    ("p2", "team0"),
    [
        # A A A 60, 7s 35, 8s 70, 9s 70, Ts 70, 6s 35, K x6 + 2 80 = 420;
        # 5 clean x 500 + 300 = 2800; five clean canastas 1000; going out 500;
        # player 2 keeps 4 5: -10
        (2, 420 + 2800 + 1000 + 500 - 10),
        # no 6s: 385; 4 x 500 + 300 = 2300; no bonus; 500; player 2 keeps 6 x7 35 + 10
        (1, 385 + 2300 + 0 + 500 - 45),
    ],
)
def test_I13_five_clean_canastas_bonus_and_going_out(p2, team0):
    """I-13, G-3: five or more clean canastas of a team score 1000 more; going out 500."""
    game = four_player_clean_canastas(p2)
    sheet0 = game.hand_scores[0]
    assert sheet0["count_bonus"] == (1000 if p2 == 2 else 0)
    assert sheet0["going_out"] == 500
    assert sheet0["total"] == team0
    # players 1 and 3: FILLER + 4 = 125 each, never opened: doubled (I-14)
    assert game.hand_scores[1] == sheet(hand_penalty=-500)


@pytest.mark.parametrize(
    ("dealt", "turn", "p1_sheet"),
    [
        # never opened: FILLER + 4 = 125, doubled
        (FILLER, [], sheet(hand_penalty=-250)),
        # opened with A A A (60), no canasta: 4 4 4 5 5 6 6 35 + 8 9 T J Q K 60 = 95
        ("A A A 4 5 6 8 9 T J Q K 4 5 6", ["meld A A A"], sheet(60, hand_penalty=-95)),
    ],
)
def test_I14_hand_counts_double_only_for_an_unopened_team(dealt, turn, p1_sheet):
    """I-14: cards left in hand count minus, double for a team that had not opened when
    the hand ended; melded cards count plus (even without a canasta)."""
    game = italian(["8 8 8 8 8 8 8 K K K K K 2 JK Q", dealt], FRAME_THEN)
    play(game, "draw", "meld 8 8 8 8 8 8 8", "discard 9")
    play(game, "draw", *turn, "discard J")
    play(game, "draw", "meld K K K K K 2 JK", "meld Q Q Q", "discard 5")
    assert game.hand_scores[1] == p1_sheet


# ----------------------------------------------------------------------------- I-15

P1_CASES = {
    # dealt hand, turn-1 melds, scores, melded, canasta bonus, hand left (single)
    "no meld": (FILLER, [], 0, 0, 0, 125),
    "no canasta": ("A A A 4 5 6 8 9 T J Q K 4 5 6", ["meld A A A"], 0, 60, 0, 95),
    # 9 x7 70 clean; left 4 4 5 6 8 T J Q K = 70
    "clean only": ("9 9 9 9 9 9 9 4 5 6 8 T J Q K", ["meld 9 9 9 9 9 9 9"], 0, 70, 500, 70),
    # at 3001 the minimum is 90 and may be dirty: Q x5 50 + 2 + JK = 120;
    # left 4 4 5 6 8 9 T J K = 70
    "dirty only": (
        "Q Q Q Q Q 2 JK 4 5 6 8 9 T J K",
        ["meld Q Q Q Q Q 2 JK"],
        3001,
        120,
        300,
        70,
    ),
}


@pytest.mark.parametrize(
    ("case", "mine", "theirs", "red3_mine", "red3_theirs"),
    [
        ("no meld", 4, 2, 800, -400),  # 2 x 100, double minus
        ("no meld", 6, 0, 1200, 0),
        ("no canasta", 5, 1, 1000, -200),  # 100, double minus
        ("clean only", 2, 4, 200, 0),  # 800, not counted
        ("clean only", 3, 3, 300, 0),
        ("dirty only", 1, 5, 100, -1000),  # 1000, minus
    ],
)
def test_I15_red3_table_and_sign_by_canastas(case, mine, theirs, red3_mine, red3_theirs):
    """I-15: red 3s score 100 each up to 3, 800 for 4, 1000 for 5, 1200 for 6; plus with
    a clean and a dirty canasta, zero with clean canastas only, minus with dirty ones
    only, double minus without a canasta."""
    dealt1, turn, score1, melded1, bonus1, left1 = P1_CASES[case]
    frame = "8 8 8 8 8 8 8 K K K K K 2 JK Q".split()
    filler = dealt1.split()
    hand0 = " ".join(["R3"] * mine + frame[: 15 - mine])
    hand1 = " ".join(["R3"] * theirs + filler[: 15 - theirs])
    replacements = " ".join(frame[15 - mine :] + filler[15 - theirs :])
    game = italian([hand0, hand1], f"{replacements} {FRAME_THEN}", scores=[0, score1])
    assert game.red3 == [mine, theirs]
    play(game, "draw", "meld 8 8 8 8 8 8 8", "discard 9")
    play(game, "draw", *turn, "discard J")
    play(game, "draw", "meld K K K K K 2 JK", "meld Q Q Q", "discard 5")
    # player 0: 8 x7 70 + Ks 120 + Q Q Q 30 = 220; 500 + 300; going out 500
    assert game.hand_scores[0] == sheet(220, 800, red3_mine, going_out=500, n=2)
    penalty = left1 * (2 if not turn else 1)  # I-14
    canastas = 1 if bonus1 else 0
    assert game.hand_scores[1] == sheet(
        melded1, bonus1, red3_theirs, hand_penalty=-penalty, n=canastas
    )


def test_I9_next_hand_minimum_from_the_new_totals():
    """I-9, G-7: after a hand scored 1520 and -250, the next hand asks 50 of both teams
    (below 0 the Italian minimum is 50 too); player 1 plays first."""
    game = italian(["8 8 8 8 8 8 8 K K K K K 2 JK Q", FILLER], FRAME_THEN)
    play_frame(game, "8 8 8 8 8 8 8", "K K K K K 2 JK")
    # 8s 70 + Ks 120 + Q Q Q 30 = 220; 500 + 300; going out 500
    assert game.scores == [1520, -250]
    game.next_hand()
    assert game.need == [50, 50]
    assert game.current == 1


# ----------------------------------------------------------------------------- I-16


@pytest.mark.parametrize(("before", "over"), [(12909, False), (12910, True)])
def test_I16_target_15000(before, over):
    """I-16, G-7, I-9: the game ends when a team reaches 15000. Above 10000 the minimum
    is 200, and may be dirty: A x7 140 + K K K K K 2 JK 120 = 260 opens."""
    game = italian(["A A A A A A A K K K K K 2 JK Q", FILLER], FRAME_THEN, scores=[before, 0])
    assert game.need == [200, 50]
    assert make_rules("italian").target_score == 15000
    play(game, "draw", "meld A A A A A A A", "meld K K K K K 2 JK", "discard 9")
    play(game, "draw", "discard J")
    play(game, "draw", "meld Q Q Q", "discard 5")
    # A 140 + K 120 + Q 30 = 290; clean aces 1000 + dirty 300; going out 500: 2090
    assert game.scores == [before + 2090, -250]
    assert game.game_over is over
    assert game.winner_team == (0 if over else None)
    if over:
        with pytest.raises(IllegalActionError):
            game.next_hand()


# ----------------------------------------------------------------------------- ambiguities


def test_I4_ambiguity3_red3_drawn_in_play_is_replaced():
    """Resolved ambiguity 3, G-6: a red 3 drawn (also as the card after a pot take) is
    laid out and replaced."""
    game = italian([FILLER, FILLER], f"{POT4} K R3 A")
    play(game, "draw")
    assert game.red3 == [1, 0] and game.hands[0] == counts(FILLER + " K A")
    hidden = "5 6 7 8 9 T J Q A 5 6 7 8"
    game = italian(["K K A A A 4 5 6 7 8 9 T J Q 4", FILLER], f"K {hidden} R3 B3")
    play(game, "take")
    assert game.red3 == [1, 0]
    assert hand_of(game, 0) == "4 4 5 6 7 8 9 T J Q A A A B3"


def exhaustion_deck(hands, then, last):
    """A fully stacked 2-player Italian deck in which no two special cards (wild cards,
    black 3s) are adjacent in the middle of the stock, so every two-card draw there
    holds a natural; the red 3s must all be in ``hands``."""
    head = cards(" ".join(hands) + " " + then)
    tail = cards(last)
    left = deck_counts(3, 2)
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
    cards remain in the stock (no wild card is discarded: the pot never freezes)."""
    while len(game.stock) > leave:
        player = game.current
        before = game.hands[player][:]
        play(game, "draw")
        drawn = [k for k in range(NUM_NATURALS) if game.hands[player][k] > before[k]]
        play(game, f"discard {KIND_NAMES[drawn[0]]}")


def test_I11_ambiguity12_stock_exhaustion_and_take_without_draw():
    """I-11, resolved ambiguity 12, I-4: with one stock card left the player cannot draw
    two: it takes the pot and draws the last card; the next player takes the pot with
    the stock empty and draws nothing; then nobody can play and the hand ends, with no
    going-out bonus."""
    hands = [
        "R3 R3 R3 A A A Q Q K K B3 4 5 6 8",  # player 0: red 3s replaced by 4 5 6
        "R3 R3 R3 J J J J J Q Q K K B3 4 5",  # player 1: red 3s replaced by 8 9 T
    ]
    deck = exhaustion_deck(hands, f"4 5 6 8 9 T {POT4} 7 8 9 T", "Q K 9")
    game = Game(make_rules("italian"), 2, seed=0, deck=deck)
    assert game.red3 == [3, 3]
    assert len(game.stock) == 162 - 30 - 6 - 5
    play(game, "draw", "meld A A A", "discard 7")
    play(game, "draw", "meld J J J J J", "discard T")
    burn_two(game, 3)
    x = game.current
    y = 1 - x
    play(game, "draw")  # Q K; the 9 is left
    assert len(game.stock) == 1
    play(game, "discard Q")
    assert game.current == y
    assert legal_strings(game) == {"take", "pass"}
    assert_illegal(game, "draw")
    pot = len(game.pot)
    hand = game.hand_totals[y]
    play(game, "take")
    assert game.stock == []  # the last card was drawn (I-4)
    assert game.hand_totals[y] == hand - 2 + (pot - 1) + 1
    play(game, "discard K")
    assert game.current == x
    assert legal_strings(game) == {"take", "pass"}
    hand = game.hand_totals[x]
    play(game, "take")  # the stock is empty: no card is drawn (ambiguity 12)
    assert game.hand_totals[x] == hand - 2 and game.phase == 1
    assert game.nat[x][kind_index("K")] == 3
    play(game, "discard B3")
    assert game.hand_over and game.end_reason == "stock exhausted"
    assert game.went_out is None
    assert [s["going_out"] for s in game.hand_scores] == [0, 0]
