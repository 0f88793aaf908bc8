"""Canastone scenario tests: classic rules with three decks, 15-card hands, the
red-3 table up to six and a 15000 target (RULES.md K-1, K-2, K-3, K-4), plus the
resolved ambiguities that concern the classic family (2: six classic players,
3: a red 3 drawn during play is replaced).

Every position comes from a stacked deck (tests/scenario.py); expected numbers are
worked out by hand from RULES.md, with the arithmetic in comments.
"""

from __future__ import annotations

import dataclasses

import pytest

from canasta_env.cards import NUM_KINDS, RED3
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
    score_sheet,
)

#: A hand for the player who only draws and discards: no meld possible, worth
#: 4 5 6 x2 = 30, 8 9 T x2 = 60, J Q K = 30: 120 points.
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"

#: 15 cards that go out concealed after drawing a Q (C-15): 7 x7, A A A, K K K, Q Q (+ Q).
GO_OUT_HAND = "7 7 7 7 7 7 7 A A A K K K Q Q"

#: Going out with GO_OUT_HAND: 7s 7 x 5 = 35, A A A 60, K K K 30, Q Q Q 30: 155 melded,
#: a clean canasta 500, concealed going out 200: 855.
GO_OUT_POINTS = 155 + 500 + 200


def sheet(melded=0, canasta_bonus=0, red3=0, going_out=0, hand_penalty=0, canastas=0):
    """A classic-family score sheet (no count bonus); parts add up to the total (G-9, C-17)."""
    return score_sheet(melded, canasta_bonus, red3, 0, going_out, hand_penalty, canastas)


def go_out_concealed(game) -> None:
    """The player to act draws the stacked Q and melds all 16 cards (C-15)."""
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld A A A", "meld K K K", "meld Q Q Q")


def placed_cards(game) -> list[int]:
    """Every card of the deck where it lies after the deal: hands, stock, pot, red 3s."""
    placed = [0] * NUM_KINDS
    for hand in game.hands:
        placed = [a + b for a, b in zip(placed, hand)]
    for card in game.stock + game.pot:
        placed[card] += 1
    placed[RED3] += sum(game.red3)
    return placed


# ----------------------------------------------------------------------------- K-1


def test_K1_deck_has_162_cards():
    """K-1: three 52-card decks and 6 jokers; every card is somewhere after the deal."""
    game = Game(make_rules("canastone"), 2, seed=11)
    deck = game.full_deck_counts()
    # 11 naturals x 12 + 12 twos + 6 jokers + 6 black 3s + 6 red 3s = 132 + 30 = 162
    assert deck == [12] * 11 + [12, 6, 6, 6]
    assert sum(deck) == 162
    assert placed_cards(game) == deck


def test_K1_stacked_deck_may_hold_three_copies_of_a_card_per_deck():
    """K-1: 12 aces fit in a canastone deck (3 x 4) but not in a classic one (2 x 4);
    6 jokers fit, a seventh does not."""
    aces = "AS " * 12
    game = Game(make_rules("canastone"), 2, seed=0, deck=aces + "JK " * 6)
    assert game.hands[0] == counts("A " * 12 + "JK JK JK")
    with pytest.raises(ValueError):
        Game(make_rules("classic"), 2, seed=0, deck=aces)
    with pytest.raises(ValueError):
        Game(make_rules("canastone"), 2, seed=0, deck="JK " * 7)


# ----------------------------------------------------------------------------- K-2


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_K2_fifteen_cards_whatever_the_number_of_players(players):
    """K-2: 15 cards to each player with 2, 3, 4 or 6 players (red 3s replaced, G-6)."""
    for seed in range(3):
        game = Game(make_rules("canastone"), players, seed=seed)
        assert game.hand_totals == [15] * players
        assert [sum(h) for h in game.hands] == [15] * players
        assert all(h[RED3] == 0 for h in game.hands)
        # stock = 162 - 15 x players - red-3 replacements - the turned pile cards
        assert len(game.stock) == 162 - 15 * players - sum(game.red3) - len(game.pot)


def test_K2_three_players_receive_blocks_of_fifteen():
    """K-2, G-3: with 3 players the deal gives 15-card blocks in seat order; the 46th
    card starts the pile (C-3) and each player plays alone."""
    hands = [GO_OUT_HAND, FILLER, "A A K K Q Q J J T T 9 9 8 8 7"]
    game = new_game(hands, "J Q", variant="canastone")
    assert [hand_of(game, p) for p in range(3)] == [
        "7 7 7 7 7 7 7 Q Q K K K A A A",
        "4 4 5 5 6 6 8 8 9 9 T T J Q K",
        "7 8 8 9 9 T T J J Q Q K K A A",
    ]
    assert game.pot == cards("J")
    assert len(game.stock) == 162 - 45 - 1
    assert game.team_of == [0, 1, 2]
    go_out_concealed(game)
    # player 1: FILLER -120; player 2: 7 + 8 8 = 25, 9 9 .. K K = 100, A A = 40: -165
    assert [s["total"] for s in game.hand_scores] == [GO_OUT_POINTS, -120, -165]


# ----------------------------------------------------------------------------- K-3


@pytest.mark.parametrize(
    ("mine", "theirs", "red3_mine", "red3_theirs"),
    [
        (3, 0, 300, 0),  # 3 x 100
        (4, 2, 800, -200),  # 4: 800; the other side made no meld: -(2 x 100)
        (5, 1, 1000, -100),  # 5: 1000
        (6, 0, 1200, 0),  # 6: 1200 (all six red 3s of the three decks)
    ],
)
def test_K3_red3_table_up_to_six(mine, theirs, red3_mine, red3_theirs):
    """K-3, C-17: red 3s score 100 each up to 3, then 800, 1000, 1200 for 4, 5, 6;
    a team that made no meld counts them minus."""
    # the dealt red 3s are replaced by the last cards of the going-out hands, seat 0 first
    go_out = GO_OUT_HAND.split()
    filler = FILLER.split()
    hand0 = " ".join(["R3"] * mine + go_out[: 15 - mine])
    hand1 = " ".join(["R3"] * theirs + filler[: 15 - theirs])
    replacements = " ".join(go_out[15 - mine :] + filler[15 - theirs :])
    game = new_game([hand0, hand1], f"{replacements} J Q", variant="canastone")
    assert game.red3 == [mine, theirs]
    assert game.hands[0] == counts(GO_OUT_HAND) and game.hands[1] == counts(FILLER)
    go_out_concealed(game)
    assert game.hand_scores[0] == sheet(155, 500, red3=red3_mine, going_out=200, canastas=1)
    assert game.hand_scores[1] == sheet(red3=red3_theirs, hand_penalty=-120)
    assert game.scores == [GO_OUT_POINTS + red3_mine, -120 + red3_theirs]


def test_K3_red3_table_is_the_only_scoring_change():
    """K-3: the canastone red-3 totals are 0, 100, 200, 300, 800, 1000, 1200 for 0..6,
    while classic (C-17) stops at 800 for four."""
    canastone = make_rules("canastone")
    assert [canastone.red3_total(n) for n in range(7)] == [0, 100, 200, 300, 800, 1000, 1200]
    assert [make_rules("classic").red3_total(n) for n in range(5)] == [0, 100, 200, 300, 800]


def test_K_canastone_is_classic_with_four_changes():
    """K-1, K-2, K-3, K-4: "classic rules with these changes": every other field equals
    classic's."""
    classic = dataclasses.asdict(make_rules("classic"))
    canastone = dataclasses.asdict(make_rules("canastone"))
    changed = {name for name in classic if classic[name] != canastone[name]}
    assert changed == {"name", "num_decks", "hand_size", "red3_scores", "target_score"}
    assert canastone["num_decks"] == 3 and canastone["jokers_per_deck"] == 2  # K-1
    assert dict(canastone["hand_size"]) == {2: 15, 3: 15, 4: 15, 6: 15}  # K-2
    assert canastone["target_score"] == 15000  # K-4


# ----------------------------------------------------------------------------- K-4


@pytest.mark.parametrize(
    ("before", "after", "over", "winner"),
    [
        # 14000 + 855 = 14855 < 15000 (classic would have ended at 5000): goes on
        ((14000, 5000), (14855, 4880), False, None),
        # 14145 + 855 = 15000 exactly: reached
        ((14145, 0), (15000, -120), True, 0),
        # 14200 + 855 = 15055 < 15300 - 120 = 15180: the highest total wins
        ((14200, 15300), (15055, 15180), True, 1),
    ],
)
def test_K4_target_15000(before, after, over, winner):
    """K-4, G-7: the game ends at the end of a hand in which a team reaches 15000."""
    game = new_game([GO_OUT_HAND, FILLER], "J Q", variant="canastone", scores=list(before))
    # C-8 (classic table): 3000 or more: 120; a concealed going out ignores it (C-15)
    assert game.need[0] == 120
    go_out_concealed(game)
    assert game.scores == list(after)
    assert game.game_over is over
    assert game.winner_team == winner
    if over:
        with pytest.raises(IllegalActionError):
            game.next_hand()
    else:
        game.next_hand()
        assert game.current == 1 and game.hand_totals == [15, 15]


# ----------------------------------------------------------------------------- ambiguities


def test_ambiguity2_classic_six_players_use_108_cards_and_11_card_hands():
    """Resolved ambiguity 2, C-1, C-2: a classic 6-player game deals 11 cards each from
    the 108-card deck; a stacked deal gives 11-card blocks in seat order."""
    rules = make_rules("classic")
    assert rules.decks_for(6) == 2 and rules.hand_size_for(6) == 11
    game = Game(rules, 6, seed=5)
    assert sum(game.full_deck_counts()) == 108
    assert game.hand_totals == [11] * 6
    assert len(game.stock) == 108 - 66 - sum(game.red3) - len(game.pot)
    # six 11-card blocks: A A K K Q Q J J T T 9, 4 4 5 5 6 6 7 7 8 8 9, each three times
    blocks = ["A A K K Q Q J J T T 9", "4 4 5 5 6 6 7 7 8 8 9"] * 3
    game = new_game(blocks, "9")
    assert [hand_of(game, p) for p in range(6)] == [
        "9 T T J J Q Q K K A A",
        "4 4 5 5 6 6 7 7 8 8 9",
    ] * 3
    assert game.pot == cards("9") and len(game.stock) == 108 - 66 - 1
    assert game.team_of == [0, 1, 0, 1, 0, 1]


@pytest.mark.parametrize("variant", ["classic", "canastone"])
def test_ambiguity3_red3_drawn_in_play_is_replaced(variant):
    """Resolved ambiguity 3, G-6: a red 3 drawn from the stock is laid out and replaced
    by the next stock card (seed 003's "no replacement" is not followed)."""
    game = new_game([FILLER, FILLER], "K R3 A", variant=variant)
    stock = len(game.stock)
    play(game, "draw")
    assert game.red3 == [1, 0]
    assert game.hands[0] == counts(FILLER + " A")
    assert game.hand_totals[0] == 16 and game.phase == 1
    assert len(game.stock) == stock - 2  # the red 3 and its replacement
    assert_illegal(game, "draw")


@pytest.mark.parametrize(
    ("start", "legal"),
    [
        # the pile Q 4 9 is not frozen: a 9 and a wild card, or the team's meld of 9s
        ("Q", {"draw", "take +2", "take +JK", "take onto meld"}),
        # a turned 2 is covered by the Q and freezes the pile: two natural 9s needed
        ("2 Q", {"draw"}),
    ],
)
def test_K_canastone_pile_is_classic(start, legal):
    """K-1 (classic rules otherwise), C-3, C-9, C-11: the pile of canastone is the classic
    one: a turned 2 is covered and freezes it, and an opened team may take an unfrozen
    pile onto its meld or with a natural and a wild card."""
    game = new_game(["9 9 9 9 A A A 2 JK 4 5 6 8 T J", FILLER], f"{start} 7 9", variant="canastone")
    assert game.pot == cards(start) and game.pot_wild is (start == "2 Q")
    play(game, "draw", "meld A A A", "meld 9 9 9", "discard 4")  # 90 >= 50
    play(game, "draw", "discard 9")
    assert legal_strings(game) == legal
    if legal == {"draw"}:
        assert_illegal(game, "take onto meld", "take +2", "take +JK")
