"""Questions asked of the engine by name (issue 22): is the pot frozen for a team (C-9,
S-6, I-8), and is every card somewhere exactly once (C-1, K-1, S-1, I-1, G-6).

Positions come from stacked decks (tests/scenario.py) and from saved states loaded
back; the same answers must come from the engine's methods, from the pure functions a
bot calls on what it sees, and after a save and load.
"""

from __future__ import annotations

import copy

import pytest

from canasta_env.cards import KIND_NAMES, RED3
from canasta_env.compliance import conservation_errors
from canasta_env.engine import Game
from canasta_env.engine.invariants import conservation_gaps, state_card_counts
from canasta_env.engine.pot import frozen_until_opened, naturals_to_take, pot_frozen
from canasta_env.rules import PRESETS, make_rules
from canasta_env.state_io import state_from_dict, state_to_dict
from tests.scenario import cards, legal_strings, new_game, play

#: A hand that only draws and discards (no three of a kind, no wild card).
FILLER = "4 5 6 8 9 T J Q K 4 5 6 8 9 T"
#: Spanish: the 6 face-down pot cards (S-3); the face-up card follows them.
HIDDEN = "5 6 8 9 T J"


def frozen_table(game: Game) -> list[tuple[bool, bool]]:
    """Per team: (pot_frozen_for, pot_frozen_until_opened)."""
    return [
        (game.pot_frozen_for(team), game.pot_frozen_until_opened(team))
        for team in range(game.num_teams)
    ]


def reloaded(game: Game) -> Game:
    return state_from_dict(state_to_dict(game))


# ----------------------------------------------------------------------------- frozen pot


def test_C9_pot_frozen_against_the_unopened_team_only():
    """C-9: player 0 opens (K K K, Q Q Q: 60 >= 50) and discards a 9; no wild card lies
    in the pot, so it is open to team 0 but frozen against team 1, which has not opened:
    player 1's 9 and joker cannot take it (C-11 needs an unfrozen pot)."""
    game = new_game(["K K K Q Q Q 9 9 JK 4 5 6 8 T J", "9 JK A A A 4 5 6 8 T J Q K 4 5"], "T 7 8")
    assert frozen_table(game) == [(True, True), (True, True)]  # nobody has opened
    play(game, "draw", "meld K K K", "meld Q Q Q", "discard 9")
    assert not game.pot_wild and game.current == 1
    assert frozen_table(game) == [(False, False), (True, True)]
    assert legal_strings(game) == {"draw"}
    assert frozen_table(reloaded(game)) == frozen_table(game)


@pytest.mark.parametrize(
    ("discard", "expected"),
    [
        ("2", [(True, False), (True, True)]),  # a wild card: frozen for everybody
        ("4", [(False, False), (True, True)]),  # frozen only against unopened team 1
    ],
)
def test_C9_wild_discard_freezes_the_pot_for_everybody(discard, expected):
    """C-9: player 0 opens with A A A and 7 7 7 and discards ``discard``; a 2 freezes
    the pot for both teams, a 4 leaves it open to the opened team 0."""
    game = new_game(["A A A 7 7 7 7 2 JK 4 5 6 8 9 T", FILLER], "K Q 7")
    play(game, "draw", "meld A A A", "meld 7 7 7", f"discard {discard}")
    assert game.pot_wild is (discard == "2")
    assert frozen_table(game) == expected
    play(game, "draw", "discard 7")
    assert frozen_table(game) == expected  # until someone takes the pot
    assert frozen_table(reloaded(game)) == expected


@pytest.mark.parametrize(("up", "crossed"), [("K", False), ("2", True), ("JK", True)])
def test_S3_S6_wild_card_turned_up_crosses_the_pot_for_both_teams(up, crossed):
    """S-3, S-6: a 2 or a joker turned up at the start crosses the pot for both teams;
    the Spanish pot is never frozen against a team for not having opened."""
    game = new_game([FILLER, FILLER], f"{HIDDEN} {up}", variant="spanish")
    assert game.pot_wild is crossed and game.pot_start_frozen is crossed
    assert frozen_table(game) == [(crossed, False), (crossed, False)]
    assert frozen_table(reloaded(game)) == frozen_table(game)


@pytest.mark.parametrize(
    ("preset", "pot_wild", "opened", "frozen", "naturals"),
    [
        ("classic", False, True, False, 2),
        ("classic", False, False, True, 2),  # C-9: frozen against an unopened team
        ("classic", True, True, True, 2),  # C-10: two naturals even when frozen
        ("spanish", False, False, False, 2),
        ("spanish", True, True, True, 3),  # S-6: a crossed pot needs three
        ("italian", False, False, False, 2),
        ("italian", True, False, True, 3),  # I-8
    ],
)
def test_C9_S6_I8_pot_frozen_from_public_facts(preset, pot_wild, opened, frozen, naturals):
    """The pure functions a bot calls on its observation (C-9, C-10, S-6, I-7, I-8)."""
    rules = make_rules(preset)
    assert pot_frozen(rules, pot_wild, opened) is frozen
    assert frozen_until_opened(rules, opened) is (preset == "classic" and not opened)
    assert naturals_to_take(rules, frozen) == naturals


# ----------------------------------------------------------------------------- conservation


@pytest.mark.parametrize(
    ("preset", "players"),
    [(name, n) for name, rules in PRESETS.items() for n in rules.player_counts],
)
def test_C1_K1_S1_I1_every_card_of_the_deal_is_counted_once(preset, players):
    """C-1, K-1, S-1, I-1, G-6: after the deal the stock, pot, hands and red 3s hold
    the deck, kind by kind."""
    game = Game(make_rules(preset), players, seed=3)
    assert state_card_counts(game) == game.full_deck_counts()
    assert conservation_gaps(state_card_counts(game), game.full_deck_counts()) == []


def test_G6_a_card_lost_or_made_is_named_by_every_check():
    """The engine's invariant, compliance and the state loader name the same kind."""
    game = Game(make_rules("classic"), 2, seed=1)
    deck = game.full_deck_counts()
    lost = game.stock.pop()  # a card gone from the stock
    game.state_changed()
    counts = state_card_counts(game)
    assert conservation_gaps(counts, deck) == [(lost, deck[lost] - 1, deck[lost])]
    assert conservation_errors(game) == [
        f"{KIND_NAMES[lost]}: {deck[lost] - 1} on the table, deck has {deck[lost]}"
    ]
    game.red3[0] += 1  # and a red 3 laid out from nowhere
    gaps = conservation_gaps(state_card_counts(game), deck)
    assert (RED3, deck[RED3] + 1, deck[RED3]) in gaps
    data = state_to_dict(Game(make_rules("classic"), 2, seed=1))
    broken = copy.deepcopy(data)
    gone, broken["stock"] = broken["stock"].split(" ", 1)  # a stock card is gone
    name = KIND_NAMES[cards(gone)[0]]
    with pytest.raises(ValueError, match=f"card conservation violated for '{name}': "):
        state_from_dict(broken)
    assert conservation_errors(state_from_dict(data)) == []
