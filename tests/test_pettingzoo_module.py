"""The versioned PettingZoo module ``canasta_v0`` and the ``rgb_array`` render.

PettingZoo's own ``api_test`` and ``render_test`` run on ``canasta_v0``; the image
is checked for its shape, its determinism, the colours of known cards (from stacked
decks) and, in a player's view, for showing nothing that player may not see.
"""

from __future__ import annotations

import contextlib
import io
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test

import canasta_env
from canasta_env import canasta_v0
from canasta_env.cards import BLACK3, JOKER, RED3, SUITS, kind_of_code
from canasta_env.compliance import permute_hidden, sample_states, variant_rules
from canasta_env.engine import Game
from canasta_env.image import (
    HEIGHT,
    NO_SUIT,
    WIDTH,
    pot_states,
    table_image,
    table_image_with_boxes,
)
from canasta_env.rules import make_rules
from tests.scenario import new_game, play

FIVE, SEVEN = kind_of_code("5S"), kind_of_code("7S")
HEARTS, SPADES = SUITS.index("H"), SUITS.index("S")

#: Spanish with the S-19 runs keeps suits in hands: seat 0 holds 5♥ 5♠ K♦ JK 2♣ 3♠ ...
SUITED_DECK = "5H 5S KD JK 2C 3S 7H 7C 9D 9S AH AS QD 8C 8H"
#: Classic: seat 0 is dealt a red 3 (laid out at once, G-6), a black 3 and a joker.
CLASSIC_DECK = "3H 5S KD JK 2C 3S 7H 7C 9D 9S AH AS QD 8C 8H"


@contextlib.contextmanager
def quiet():
    """PettingZoo's tests print and warn (reset options, Dict spaces): keep the log clean."""
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        yield


# ----------------------------------------------------------------------------- module
def test_canasta_v0_is_the_same_env():
    assert canasta_v0.env is canasta_env.env
    assert canasta_v0.raw_env is canasta_env.raw_env
    assert canasta_env.canasta_v0 is canasta_v0
    env = canasta_v0.env(variant="classic", num_players=2)
    assert env.metadata["name"] == "canasta_v0"
    assert env.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert env.metadata["render_fps"] >= 1


@pytest.mark.parametrize("factory", [canasta_v0.env, canasta_v0.raw_env], ids=["env", "raw"])
def test_api_test(factory):
    with quiet():
        api_test(factory(variant="classic", num_players=4), num_cycles=200)


@pytest.mark.parametrize("players", [2, 4])
def test_render_test_every_mode(players):
    def make(render_mode=None):
        return canasta_v0.env(variant="classic", num_players=players, render_mode=render_mode)

    checks = {
        "ansi": lambda text: "pot" in text and "player 0" in text,
        "rgb_array": lambda image: image.shape == (HEIGHT, WIDTH, 3) and image.dtype == np.uint8,
    }
    with quiet():
        render_test(make, custom_tests=checks)


@pytest.mark.parametrize("mode", ["rgb", "RGB_ARRAY", "video", ""])
def test_bad_render_mode_names_it(mode):
    with pytest.raises(ValueError, match=f"render_mode must be one of .*got '{mode}'"):
        canasta_v0.env(render_mode=mode)


@pytest.mark.parametrize("viewer", [2, -1, True, "0", 0.0])
def test_bad_viewer_names_it(viewer):
    game = Game(make_rules("classic"), 2, seed=0)
    with pytest.raises(ValueError, match=r"viewer must be None or a seat 0\.\.1"):
        table_image(game, viewer=viewer)


# ----------------------------------------------------------------------------- the image
def test_image_shape_and_determinism():
    env = canasta_v0.env(variant="classic", num_players=4, render_mode="rgb_array")
    env.reset(seed=5)
    first = env.render()
    assert first.shape == (HEIGHT, WIDTH, 3) and first.dtype == np.uint8
    assert np.array_equal(first, env.render())
    again = canasta_v0.env(variant="classic", num_players=4, render_mode="rgb_array")
    again.reset(seed=5)
    assert np.array_equal(first, again.render()), "the same game must give the same pixels"
    env.step(int(np.flatnonzero(env.action_mask())[0]))  # a card moves: stock to hand
    assert not np.array_equal(first, env.render())


def _pixels(image: np.ndarray, box) -> np.ndarray:
    left, top, right, bottom = box
    return image[top : bottom + 1, left : right + 1].reshape(-1, 3).astype(int)


def _has(image, box, colour: str) -> bool:
    r, g, b = _pixels(image, box).T
    if colour == "red":
        hits = (r > 150) & (g < 80) & (b < 80)
    elif colour == "black":
        hits = (r < 50) & (g < 50) & (b < 50)
    else:  # purple: the joker's ink
        hits = (r > 90) & (r < 160) & (g < 70) & (b > 140)
    return int(hits.sum()) > 20


def _box(boxes, place: str, owner: int, kind: int, suit: int = NO_SUIT):
    found = [
        b.box for b in boxes if (b.place, b.owner, b.kind, b.suit) == (place, owner, kind, suit)
    ]
    assert len(found) == 1, (place, owner, kind, suit, boxes)
    return found[0]


def test_suit_colours_in_a_suited_hand():
    """S-19 keeps suits: 5♥ is drawn in red, 5♠ in black (and not red), JK in purple."""
    game = Game(make_rules("spanish", sequences=True), 2, seed=0, deck=SUITED_DECK)
    image, boxes = table_image_with_boxes(game)
    red_five = _box(boxes, "hand", 0, FIVE, HEARTS)
    black_five = _box(boxes, "hand", 0, FIVE, SPADES)
    assert _has(image, red_five, "red") and not _has(image, red_five, "black")
    assert _has(image, black_five, "black") and not _has(image, black_five, "red")
    joker = _box(boxes, "hand", 0, JOKER)
    assert _has(image, joker, "purple") and not _has(image, joker, "red")


def test_threes_and_jokers_in_classic():
    """Classic keeps no suit but the 3s': the laid-out red 3 is red, the black 3 black."""
    game = Game(make_rules("classic"), 2, seed=0, deck=CLASSIC_DECK)
    assert game.red3 == [1, 0]
    image, boxes = table_image_with_boxes(game)
    red3 = _box(boxes, "red3", 0, RED3, HEARTS)
    assert _has(image, red3, "red")
    black3 = _box(boxes, "hand", 0, BLACK3)
    assert _has(image, black3, "black") and not _has(image, black3, "red")
    assert _has(image, _box(boxes, "hand", 0, JOKER), "purple")
    assert not [b for b in boxes if b.place == "red3" and b.owner == 1]


def test_melds_canastas_and_pot_are_drawn():
    """A meld and a canasta get boxes; a clean canasta has a red frame, a dirty one a black
    frame, a meld neither."""
    game = new_game(
        ["7 7 7 7 7 7 7 5 5 5 K Q J 9 8", "4 4 6 6 8 8 9 9 T T J J Q Q K"],
        then="A 4",
        variant="classic",
    )
    play(game, "draw", "meld 7 7 7 7 7 7 7", "meld 5 5 5", "discard K")
    image, boxes = table_image_with_boxes(game)
    canasta = _box(boxes, "canasta", 0, SEVEN)
    meld = _box(boxes, "meld", 0, FIVE)
    assert _has(image, canasta, "red")
    assert not _has(image, meld, "red")
    game.nat[0][SEVEN] -= 1  # the same canasta with a 2 in it: dirty, a black frame
    game.two[0][SEVEN] += 1
    image, boxes = table_image_with_boxes(game)
    dirty = _box(boxes, "canasta", 0, SEVEN)
    assert _has(image, dirty, "black") and not _has(image, dirty, "red")
    assert [b.kind for b in boxes if b.place == "pot"] == [kind_of_code("KS")]


def test_pot_states_follow_the_rules():
    """C-9 / S-6: a discarded wild card freezes (classic) or crosses (spanish) the pot, and
    a wild on top blocks it (C-12)."""
    hands = ["2 7 7 5 5 5 K Q J 9 8 6 6 4 4", "4 4 6 6 8 8 9 9 T T J J Q Q K"]
    game = new_game(hands, then="A 4", variant="classic")
    assert pot_states(game) == []
    play(game, "draw", "discard 2")
    assert pot_states(game) == ["frozen", "blocked"]
    # spanish: 6 face-down pot cards and a turned ace (S-3), then two cards drawn (S-4)
    game = new_game(hands, then="5 5 5 5 5 5 A 4 4", variant="spanish")
    assert game.pot_hidden == 6 and pot_states(game) == []
    play(game, "draw", "discard 2")
    assert pot_states(game) == ["crossed", "blocked"]


# ----------------------------------------------------------------------------- hidden cards
@pytest.mark.parametrize(("variant", "players"), [("classic", 4), ("spanish+sequences", 2)])
def test_player_view_shows_no_hidden_card(variant, players):
    """G-8: a player's image ignores the other hands, the stock and the face-down pot
    cards; the spectator's image (positive control) changes with the other hands."""
    rng = random.Random(1)
    states = list(sample_states(variant_rules(variant), players, 3, 12, random.Random(3)))
    assert len(states) >= 10
    spectator_changed = 0
    for game in states:
        for viewer in range(players):
            other = permute_hidden(game, viewer, rng)
            mine = table_image(game, viewer)
            assert np.array_equal(mine, table_image(other, viewer)), (variant, viewer)
            if other.hands != game.hands or other.suits.hands != game.suits.hands:
                assert not np.array_equal(table_image(game), table_image(other))
                spectator_changed += 1
    assert spectator_changed >= len(states)


def test_player_view_shows_its_own_hand():
    """Positive control for the player's view: its own hand shows (a card changes it)."""
    game = Game(make_rules("classic"), 2, seed=0, deck=CLASSIC_DECK)
    other = game.copy()
    other.hands[0][FIVE] -= 1
    other.hands[0][SEVEN] += 1
    assert not np.array_equal(table_image(game, 0), table_image(other, 0))
    assert np.array_equal(table_image(game, 1), table_image(other, 1))
    boxes = table_image_with_boxes(game, 1)[1]
    faces = [b for b in boxes if b.place == "hand"]
    assert faces and {b.owner for b in faces} == {1}, "only the viewer's hand is face up"
    backs = [b for b in boxes if b.place == "back"]
    assert len(backs) == game.hand_totals[0] and {b.owner for b in backs} == {0}
