"""Classic Canasta scenario tests: cards, deal, seating, red 3s, the starting pile,
hands and the game (RULES.md G-1, G-3, G-6, G-7, G-9, C-1, C-2, C-3, C-18).

Every position comes from a stacked deck (tests/scenario.py); expected numbers are
worked out by hand from RULES.md, with the arithmetic in comments.
"""

from __future__ import annotations

import pytest

from canasta_env.cards import BLACK3, JOKER, NUM_KINDS, RED3, TWO, is_natural, is_wild
from canasta_env.engine import Game, IllegalActionError
from canasta_env.rules import make_rules
from tests.scenario import (
    assert_illegal,
    cards,
    counts,
    hand_of,
    legal_strings,
    new_game,
    play,
    stacked_deck,
)

#: A hand for the player who only draws and discards: no meld possible, worth
#: 4 5 6 x2 = 30, 8 9 T x2 = 60, J Q K = 30: 120 points.
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"

#: 15 cards that go out concealed after drawing a Q: 7 x7, A A A, K K K, Q Q (+ Q).
GO_OUT_HAND = "7 7 7 7 7 7 7 A A A K K K Q Q"


def go_out_concealed(game) -> None:
    """The first player draws the stacked Q and melds all 16 cards (C-15)."""
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K", "meld Q Q Q")


# ----------------------------------------------------------------------------- G-1


def test_G1_card_kinds_and_identical_copies():
    """G-1: 2s and jokers are wild, 4..A natural, red and black 3s special; copies of
    one card from the two decks are one kind (counted, not told apart)."""
    assert cards("AS AH AD AC") == [10, 10, 10, 10]
    assert cards("3H 3D") == [RED3, RED3] and cards("3S 3C") == [BLACK3, BLACK3]
    assert cards("2C JK") == [TWO, JOKER]
    assert [is_wild(k) for k in (TWO, JOKER)] == [True, True]
    assert not any(is_wild(k) for k in range(11)) and all(is_natural(k) for k in range(11))
    assert not any(is_natural(k) for k in (TWO, JOKER, BLACK3, RED3))
    # both decks' ace of spades are dealt to player 0: one kind, count 2
    game = new_game(["AS AS 7H 7D 2C JK 3S 3C 4 5 6 8 9 T J", FILLER], "K")
    assert game.hands[0] == counts("A A 7 7 2 JK B3 B3 4 5 6 8 9 T J")
    assert game.hands[0][10] == 2 and game.hands[0][BLACK3] == 2


# ----------------------------------------------------------------------------- C-1, C-2


def test_C1_deck_has_108_cards():
    """C-1: two 52-card decks and 4 jokers; every card is somewhere after the deal."""
    game = Game(make_rules("classic"), 2, seed=3)
    deck = game.full_deck_counts()
    # 11 naturals x 8 + 8 twos + 4 jokers + 4 black 3s + 4 red 3s = 108
    assert deck == [8] * 11 + [8, 4, 4, 4]
    assert sum(deck) == 108
    placed = [0] * NUM_KINDS
    for hand in game.hands:
        placed = [a + b for a, b in zip(placed, hand)]
    for card in game.stock + game.pot:
        placed[card] += 1
    placed[RED3] += sum(game.red3)
    assert placed == deck


@pytest.mark.parametrize(("players", "size"), [(2, 15), (3, 13), (4, 11), (6, 11)])
def test_C2_deal_sizes(players, size):
    """C-2: 15 cards each with 2 players, 13 with 3, 11 with 4 or 6 (red 3s replaced)."""
    for seed in range(5):
        game = Game(make_rules("classic"), players, seed=seed)
        assert game.hand_totals == [size] * players
        assert [sum(h) for h in game.hands] == [size] * players
        assert all(h[RED3] == 0 for h in game.hands)
        # stock = 108 - dealt - red-3 replacements - the turned pile cards
        assert len(game.stock) == 108 - size * players - sum(game.red3) - len(game.pot)


# ----------------------------------------------------------------------------- G-3


@pytest.mark.parametrize(
    ("players", "teams"),
    [(2, [0, 1]), (3, [0, 1, 2]), (4, [0, 1, 0, 1]), (6, [0, 1, 0, 1, 0, 1])],
)
def test_G3_teams_by_player_count(players, teams):
    """G-3: 4 players are 0+2 against 1+3, 6 players 0+2+4 against 1+3+5; 2 or 3 play alone."""
    game = Game(make_rules("classic"), players, seed=0)
    assert game.team_of == teams
    assert game.num_teams == max(teams) + 1
    assert len(game.scores) == game.num_teams


def test_G3_partners_share_melds_four_players():
    """G-3: partners share melds (one meld per rank per team, C-5) and their opening;
    the opponents' melds are theirs alone; play goes round 0, 1, 2, 3."""
    game = new_game(
        [
            "A A A 7 7 7 4 5 6 8 9",  # player 0
            "K K K Q Q Q J J 4 5 6",  # player 1 (team 1)
            "7 7 2 4 5 6 8 9 T J Q",  # player 2 (partner of 0)
            "4 5 6 8 9 T J Q K 8 9",  # player 3 (team 1)
        ],
        "T T T K T",  # the pile starts with T; then the draws of players 0..3
    )
    assert game.team_of == [0, 1, 0, 1]
    play(game, "draw", "meld A A A", "meld 7 7 7", "discard T")  # A A A = 60 >= 50
    assert game.opened == [True, False]
    assert game.current == 1
    play(game, "draw", "discard T")
    assert game.current == 2
    play(game, "draw")
    # player 2 adds to the team's 7s and As; no new 7 meld, and no opening needed
    assert {s for s in legal_strings(game) if s.startswith(("meld", "add"))} == {
        "add 7",
        "add 2 to 7",
        "add 2 to A",
    }
    assert_illegal(game, "meld 7 7 2")
    play(game, "add 7", "add 2 to 7")
    assert game.nat[0][3] == 4 and game.two[0][3] == 1  # team 0's 7s: 7 7 7 7 2
    assert game.nat[1] == [0] * 13
    play(game, "discard T")
    assert game.current == 3


def test_G3_six_players_partners_share_melds():
    """G-3: with 6 players, 0, 2 and 4 are one team: player 4 adds to player 0's melds."""
    game = new_game(
        [
            "A A A 7 7 7 4 5 6 8 9",
            "K K Q Q J J T T 9 9 8",
            "4 5 6 8 9 T J Q K A 6",
            "4 5 6 8 9 T J Q K 4 5",
            "7 2 4 5 6 8 9 T J Q K",
            "4 5 6 8 T J Q K 6 8 T",
        ],
        "K J 9 5 4 B3",  # the pile starts with K; the draws of players 0..4
    )
    assert game.team_of == [0, 1, 0, 1, 0, 1]
    play(game, "draw", "meld A A A", "meld 7 7 7", "discard J")
    for card in ("9", "5", "4"):  # players 1, 2, 3 discard the card they draw
        play(game, "draw", f"discard {card}")
    assert game.current == 4
    play(game, "draw")
    assert {s for s in legal_strings(game) if s.startswith(("meld", "add"))} == {
        "add 7",
        "add 2 to 7",
        "add 2 to A",
    }


# ----------------------------------------------------------------------------- G-6


def test_G6_dealt_red3s_laid_out_and_replaced_seat_by_seat():
    """G-6: red 3s in the deal go to the team at once and are replaced from the stock,
    player 0 first; a replacement that is a red 3 is replaced in turn."""
    game = new_game(
        ["R3 R3 7 7 7 4 5 6 8 9 T J Q K A", "R3 4 5 6 8 9 T J Q K 4 5 6 8 9"],
        "A R3 K Q J",  # p0: A, then R3 (laid out) -> K; p1: Q; the pile starts with J
    )
    assert game.red3 == [3, 1]
    assert game.hands[0] == counts("7 7 7 4 5 6 8 9 T J Q K A A K")
    assert game.hands[1] == counts("4 5 6 8 9 T J Q K 4 5 6 8 9 Q")
    assert game.hand_totals == [15, 15]
    assert game.pot == cards("J")
    # 108 - 30 dealt - 4 replacement draws (A, R3, K, Q) - 1 pile card = 73
    assert len(game.stock) == 73


def test_G6_drawn_red3_is_replaced():
    """G-6: a red 3 drawn from the stock is laid out and the player draws again."""
    game = new_game([FILLER, FILLER], "K R3 A")
    play(game, "draw")
    assert game.red3 == [1, 0]
    assert game.hands[0] == counts(FILLER + " A")
    assert game.hand_totals[0] == 16
    assert len(game.stock) == 108 - 30 - 1 - 2


def test_G6_red3_from_pile_not_replaced():
    """G-6: a red 3 in a taken pile is laid out without a replacement (C-3: a turned red
    3 is covered and freezes the pile, so the take needs two naturals, C-10)."""
    game = new_game(["K K A A A 4 5 6 8 9 T J Q 7 7", FILLER], "R3 K")
    assert game.pot == cards("R3 K") and game.pot_wild
    stock = len(game.stock)
    # K K + top K = 30, + A A A = 60: 90 >= 50
    assert legal_strings(game) == {"draw", "take"}
    play(game, "take")
    assert game.red3 == [1, 0]
    assert len(game.stock) == stock
    assert game.hands[0] == counts("A A A 4 5 6 8 9 T J Q 7 7")
    assert game.held == [0] * NUM_KINDS  # nothing else was in the pile
    play(game, "meld A A A")  # 30 + 60 = 90 opens
    assert game.opened == [True, False]


# ----------------------------------------------------------------------------- C-3


@pytest.mark.parametrize(
    ("turned", "pot", "frozen"),
    [
        ("K", "K", False),
        ("2 K", "2 K", True),
        ("JK 2 R3 9", "JK 2 R3 9", True),
        ("R3 K", "R3 K", True),
        ("B3", "B3", False),
    ],
)
def test_C3_starting_pile(turned, pot, frozen):
    """C-3: a turned wild card or red 3 is covered by the next card and the pile starts
    frozen (C-9); a natural or a black 3 stays on top; the red 3 stays in the pile."""
    game = new_game([FILLER, GO_OUT_HAND], turned)
    assert game.pot == cards(pot)
    assert game.pot_wild is frozen
    assert game.red3 == [0, 0]
    assert len(game.stock) == 108 - 30 - len(cards(turned))


def test_C3_black3_start_blocks_first_player():
    """C-3, C-12: a black 3 turned up is not covered; the first player cannot take it."""
    game = new_game(["B3 B3 A A A K K K 4 5 6 8 9 T J", FILLER], "B3")
    assert legal_strings(game) == {"draw"}
    assert_illegal(game, "take")


# ----------------------------------------------------------------------------- G-7, G-9


def test_G7_hand_ends_when_a_player_goes_out_and_first_player_rotates():
    """G-7: going out ends the hand; the next hand starts with the next seat, which
    gets the first block of the deal; G-9: scores accumulate over hands."""
    game = new_game([GO_OUT_HAND, FILLER], "J Q")
    go_out_concealed(game)
    assert game.hand_over and game.end_reason == "went out" and game.went_out == 0
    # p0: 35 + 60 + 30 + 30 = 155 melded + 500 clean canasta + 200 concealed = 855
    # p1: no meld, hand FILLER = -120
    assert game.scores == [855, -120]
    assert_illegal(game, "draw")
    # hand 2: player 1 is first and receives the first 15 cards
    game.next_hand(stacked_deck("classic", 2, [GO_OUT_HAND, FILLER], "J Q"))
    assert game.first_player == 1 and game.current == 1
    assert game.hands[1] == counts(GO_OUT_HAND)
    assert game.hands[0] == counts(FILLER)
    assert game.need == [50, 15]  # 855 -> 50; -120 (below 0) -> 15 (C-8)
    go_out_concealed(game)
    assert game.went_out == 1
    # hand 2 mirrors hand 1: 855 + (-120) = 735 each (G-9)
    assert game.scores == [735, 735]
    assert [h["scores"] for h in game.hand_history] == [[855, -120], [-120, 855]]


def test_G7_first_player_rotates_with_three_players():
    """G-7: with 3 players the first player goes 0, 1, 2, 0."""
    hand = "7 7 7 7 7 7 7 A A A K K K"  # 13 cards; + K: meld all 14 (C-15)
    other = "4 5 6 8 9 T J Q 4 5 6 8 9"
    game = new_game([hand, other, other], "J K")
    firsts = []
    for _ in range(4):
        firsts.append(game.current)
        play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K K")
        assert game.went_out == game.current
        if game.game_over:
            break
        game.next_hand(stacked_deck("classic", 3, [hand, other, other], "J K"))
    assert firsts == [0, 1, 2, 0]


def test_G7_next_hand_only_after_the_hand():
    """G-7: a new hand is dealt only when the current one is over."""
    game = new_game([GO_OUT_HAND, FILLER], "J Q")
    with pytest.raises(IllegalActionError):
        game.next_hand()


# ----------------------------------------------------------------------------- C-18


@pytest.mark.parametrize(
    ("before", "after", "over", "winner"),
    [
        # 4000 + 855 = 4855, 4900 - 120 = 4780: nobody has 5000, the game goes on
        ((4000, 4900), (4855, 4780), False, None),
        # 4145 + 855 = 5000 exactly: reached
        ((4145, 0), (5000, -120), True, 0),
        # 4900 + 855 = 5755 > 5100 - 120 = 4980: the highest total wins
        ((4900, 5100), (5755, 4980), True, 0),
        # 4200 + 855 = 5055 < 5200 - 120 = 5080: both over, team 1 is higher
        ((4200, 5200), (5055, 5080), True, 1),
        # 4145 + 855 = 5000 = 5120 - 120: a tie at the top, no single winner
        ((4145, 5120), (5000, 5000), True, None),
    ],
)
def test_C18_target_5000_ends_the_game(before, after, over, winner):
    """C-18, G-7: the game ends at the end of a hand in which a team reaches 5000;
    the highest total wins."""
    assert make_rules("classic").target_score == 5000
    game = new_game([GO_OUT_HAND, FILLER], "J Q", scores=list(before))
    go_out_concealed(game)
    assert game.scores == list(after)
    assert game.game_over is over
    assert game.winner_team == winner
    if over:
        with pytest.raises(IllegalActionError):
            game.next_hand()
    else:
        game.next_hand()
        assert game.current == 1


def test_C18_target_is_a_field():
    """C-18: the target is a rules field; a house rule may lower it."""
    game = new_game([GO_OUT_HAND, FILLER], "J Q", target_score=800)
    go_out_concealed(game)
    assert game.scores == [855, -120] and game.game_over and game.winner_team == 0
    assert hand_of(game, 0) == ""
