"""``hidden_counts``: the cards by kind that the observation hides (each seat's hand, the
stock, the face-down pot cards), for a training critic only. Exact on stacked deals, the
same on both engines, on a table and on a batched table's rows."""

from __future__ import annotations

import random

import numpy as np
import pytest

from canasta_env import core
from canasta_env.actions import DRAW
from canasta_env.batched_table import BatchedTable
from canasta_env.engine.game import Game
from canasta_env.rules import make_rules
from canasta_env.table import Table
from tests.scenario import counts, stacked_deck

needs_core = pytest.mark.skipif(not core.AVAILABLE, reason=core.WHY_NOT)
BACKENDS = ["python", pytest.param("core", marks=needs_core)]

SEAT0 = "AS AH AD KS KH KD QS QH QD JS JH JD TS TH TD"  # A K Q J T, 3 each
SEAT1 = "4S 4H 4D 5S 5H 5D 6S 6H 6D 7S 7H 7D 8S 8H 8D"  # 4 5 6 7 8, 3 each


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_stacked_classic_deal(backend):
    # classic 2p: two decks (8 of each natural and of 2s, 4 jokers, 4 black and 4 red 3s:
    # 108 cards), 15 cards each; the pot starts with 9S; seat 0 draws JK first
    deck = stacked_deck("classic", 2, [SEAT0, SEAT1], then="9S JK")
    table = Table(make_rules("classic"), 2, seed=7, deck=deck, backend=backend)
    hidden = table.hidden_counts()
    assert hidden.dtype == np.int16 and hidden.shape == (4, 15)
    assert hidden[0].tolist() == counts(SEAT0)
    assert hidden[1].tolist() == counts(SEAT1)
    # the stock: 108 - 30 - the pot's 9 = 77 cards; each dealt rank 8 - 3 = 5 left, the
    # nines 8 - 1 = 7, every 2, joker and 3 still there
    #                          4  5  6  7  8  9  T  J  Q  K  A  2 JK B3 R3
    assert hidden[2].tolist() == [5, 5, 5, 5, 5, 7, 5, 5, 5, 5, 5, 8, 4, 4, 4]
    assert hidden[3].tolist() == [0] * 15  # classic turns no pot card face down
    table.step(DRAW)  # one card: the joker moves from the stock to seat 0
    after = table.hidden_counts()
    assert after[0].tolist() == counts(SEAT0 + " JK")
    assert after[2].tolist() == [5, 5, 5, 5, 5, 7, 5, 5, 5, 5, 5, 8, 3, 4, 4]
    assert hidden[0].tolist() == counts(SEAT0)  # a new array each call


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_face_down_pot_cards(backend):
    # spanish 2p: 6 pot cards face down under the one turned up
    down = "4C 4C 5C 9C 9C KC"
    deck = stacked_deck("spanish", 2, [SEAT0, SEAT1], then=f"{down} 6C")
    game = Table(make_rules("spanish"), 2, seed=7, deck=deck, backend=backend)
    hidden = game.hidden_counts()
    #                          4  5  6  7  8  9  T  J  Q  K  A  2 JK B3 R3
    assert hidden[3].tolist() == [2, 1, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0]
    # every card is somewhere: the hidden ones and the turned 6 make the whole deck
    full = Game(make_rules("spanish"), 2, seed=7).full_deck_counts()
    seen = hidden.sum(axis=0) + np.eye(15, dtype=np.int64)[2]
    assert seen.tolist() == full


@needs_core
@pytest.mark.parametrize("variant,players", [("classic", 4), ("italian", 2), ("spanish", 6)])
def test_both_engines_agree_through_a_hand(variant, players):
    rules = make_rules(variant)
    tables = [Table(rules, players, seed=11, backend=b) for b in ("python", "core")]
    chooser = random.Random(11)
    while not tables[0].hand_over:
        python, compiled = (t.hidden_counts() for t in tables)
        assert np.array_equal(python, compiled)
        legal = tables[0].legal_actions()
        action = legal[chooser.randrange(len(legal))]
        for table in tables:
            table.step(action)
    assert np.array_equal(tables[0].hidden_counts(), tables[1].hidden_counts())


@pytest.mark.parametrize("batched", [False, pytest.param(True, marks=needs_core)])
def test_a_batched_table_reads_each_row(batched):
    rules = make_rules("classic")
    backend = "core" if batched else "python"
    tables = BatchedTable(rules, 4, 3, backend=backend, batched=batched)
    tables.reset(seed=5)
    for k in range(3):  # deal k is seeded 5 + k
        alone = Table(rules, 4, seed=5 + k, backend="python")
        assert np.array_equal(tables.hidden_counts(k), alone.hidden_counts())
