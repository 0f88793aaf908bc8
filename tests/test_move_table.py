"""The move table (:data:`canasta_env.actions.MOVES`): every id decodes, and agrees with
its text form; a few ids worked out by hand from the layout in the actions docstring;
the engine's ``cards_used`` answers the same as the table, and for takes by the pot."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from canasta_env.actions import (
    ACTION_TEXTS,
    ADD_JOKER,
    ADD_NATURAL,
    ADD_TWO,
    DISCARD,
    DRAW,
    ESCALA,
    MOVE_DISCARD,
    MOVE_DRAW,
    MOVE_KIND_NAMES,
    MOVE_KINDS,
    MOVE_MELD,
    MOVE_PASS,
    MOVE_RUN,
    MOVE_TAKE,
    MOVES,
    NEW_BLACK3,
    NEW_MELD,
    NEW_WILD,
    NUM_ACTIONS,
    PASS,
    SLOT_BLACK3,
    SLOT_WILD,
    TAKE,
    TAKE_ONTO_MELD,
    TAKE_WITH_JOKER,
    TAKE_WITH_TWO,
    Move,
    action_to_str,
    str_to_action,
)
from canasta_env.cards import BLACK3, CARD_VALUES, JOKER, KIND_NAMES, SUITS, TWO
from canasta_env.engine import Game
from canasta_env.rules import make_rules
from tests.scenario import new_game, play

#: The first word of each kind of move's text form.
FIRST_WORDS = {
    MOVE_DRAW: {"draw"},
    MOVE_TAKE: {"take"},
    MOVE_PASS: {"pass"},
    MOVE_DISCARD: {"discard"},
    MOVE_MELD: {"add", "meld"},
    MOVE_RUN: {"escala"},
}


def test_every_id_decodes_and_round_trips_through_its_text():
    assert len(MOVES) == len(MOVE_KINDS) == len(ACTION_TEXTS) == NUM_ACTIONS
    for action, move in enumerate(MOVES):
        text = action_to_str(action)
        assert text == ACTION_TEXTS[action] and str_to_action(text) == action
        assert MOVE_KINDS[action] == move.kind
        assert text.split()[0] in FIRST_WORDS[move.kind], (action, text)
        laid = () if move.kind == MOVE_DISCARD else move.uses  # a discard lays nothing
        assert move.points == sum(CARD_VALUES[kind] for kind in laid)


def test_the_cards_of_each_id_are_the_words_of_its_text():
    """A discard uses its kind; ``add K`` one natural K, ``add 2 to K`` a 2; ``meld ...``
    and ``escala`` the cards they name; draw, pass and takes nothing fixed."""
    for action, move in enumerate(MOVES):
        words = ACTION_TEXTS[action].split()
        assert len(move.uses) == (1 if move.kind == MOVE_DISCARD else move.cards)
        if move.kind in (MOVE_DRAW, MOVE_TAKE, MOVE_PASS):
            assert move == Move(move.kind)
        elif move.kind == MOVE_DISCARD:
            assert move.uses == (move.slot,) and KIND_NAMES[move.slot] == words[1]
        elif words[0] == "meld":
            assert Counter(KIND_NAMES[kind] for kind in move.uses) == Counter(words[1:])
            assert move.new
        elif words[0] == "add":
            target = words[-1]
            slot = {"wild": SLOT_WILD, "B3": SLOT_BLACK3}.get(target, None)
            assert move.slot == (KIND_NAMES.index(target) if slot is None else slot)
            assert move.cards == 1 and not move.new
            assert KIND_NAMES[move.uses[0]] == (words[1] if len(words) == 4 else target)
        else:
            assert move.kind == MOVE_RUN and move.new
            assert words[-1] == SUITS[move.suit]
            assert move.uses == tuple(range(move.start, move.start + move.naturals))


@pytest.mark.parametrize(
    ("action", "text", "move"),
    [
        (DRAW, "draw", Move(MOVE_DRAW)),
        (TAKE, "take", Move(MOVE_TAKE)),
        (TAKE_ONTO_MELD, "take onto meld", Move(MOVE_TAKE)),
        (PASS, "pass", Move(MOVE_PASS)),
        # 6 + kind: 4 is kind 0, B3 kind 13
        (6, "discard 4", Move(MOVE_DISCARD, slot=0, uses=(0,))),
        (19, "discard B3", Move(MOVE_DISCARD, slot=BLACK3, uses=(BLACK3,))),
        # 20 + slot: slot 11 is the black-3 meld, whose naturals are B3 (5 points)
        (31, "add B3", Move(MOVE_MELD, SLOT_BLACK3, 1, 0, 0, False, uses=(BLACK3,), points=5)),
        # 32 + 12 - 1: the last ``add 2`` goes to the wild-only meld (20 points)
        (43, "add 2 to wild", Move(MOVE_MELD, SLOT_WILD, 0, 1, 0, False, uses=(TWO,), points=20)),
        # 44 + 10: a joker onto the aces (50 points)
        (54, "add JK to A", Move(MOVE_MELD, 10, 0, 0, 1, False, uses=(JOKER,), points=50)),
        # 56 + 0 * 35 + 1: composition 1 is (2 naturals, 0 twos, 1 joker): 5 + 5 + 50
        (57, "meld 4 4 JK", Move(MOVE_MELD, 0, 2, 0, 1, True, uses=(0, 0, JOKER), points=60)),
        # 56 + 10 * 35 + 0: composition 0 is (2, 1, 0): 20 + 20 + 20
        (406, "meld A A 2", Move(MOVE_MELD, 10, 2, 1, 0, True, uses=(10, 10, TWO), points=60)),
        (441, "meld B3 B3 B3", Move(MOVE_MELD, SLOT_BLACK3, 3, 0, 0, True, uses=(BLACK3,) * 3,
                                    points=15)),
        # 446 + 30 - 1: the last wild composition, seven jokers
        (475, "meld JK JK JK JK JK JK JK", Move(MOVE_MELD, SLOT_WILD, 0, 0, 7, True,
                                                uses=(JOKER,) * 7, points=350)),
        # 476: spades, 4 to T (5 * 4 + 10 * 3 points)
        (476, "escala 4-T S", Move(MOVE_RUN, -1, 7, 0, 0, True, 0, 0, tuple(range(7)), 50)),
        # 476 + 3 * 6 + 5: clubs, the escala real 4..A (5 * 4 + 10 * 6 + 20)
        (499, "escala real C", Move(MOVE_RUN, -1, 11, 0, 0, True, 3, 0, tuple(range(11)), 100)),
    ],
)  # fmt: skip
def test_ids_worked_out_by_hand(action, text, move):
    assert ACTION_TEXTS[action] == text
    assert MOVES[action] == move


def test_the_ranges_begin_where_the_layout_says():
    kinds = [MOVE_KIND_NAMES[MOVES[a].kind] for a in (DRAW, TAKE, TAKE_WITH_TWO, PASS)]
    assert kinds == ["draw", "take", "take", "pass"]
    assert MOVES[TAKE_WITH_JOKER].kind == MOVE_TAKE
    assert [MOVES[a].kind for a in (DISCARD, ADD_NATURAL - 1)] == [MOVE_DISCARD] * 2
    assert (MOVES[ADD_NATURAL].naturals, MOVES[ADD_TWO].twos, MOVES[ADD_JOKER].jokers) == (1, 1, 1)
    assert MOVES[NEW_MELD].new and not MOVES[NEW_MELD - 1].new
    assert MOVES[NEW_BLACK3].slot == SLOT_BLACK3 and MOVES[NEW_WILD].slot == SLOT_WILD
    assert MOVES[ESCALA - 1].kind == MOVE_MELD and MOVES[ESCALA].kind == MOVE_RUN


@pytest.mark.parametrize(
    ("variant", "players", "overrides"),
    [("classic", 4, {}), ("spanish", 2, {"sequences": True}), ("italian", 4, {})],
)
def test_cards_used_is_the_table_except_for_takes(variant, players, overrides):
    """At every step of random hands: a legal id other than a take plays the hand cards
    its table entry names, and those cards are in the hand; a legal take plays cards of
    the hand too (naturals of the pot top's rank, a wild card)."""
    rules = make_rules(variant, **overrides)
    rng = random.Random(7)
    for seed in range(3):
        game = Game(rules, players, seed=seed)
        while legal := game.legal_actions():
            hand = game.hands[game.current]
            for action in legal:
                used = game.cards_used(action)
                if MOVES[action].kind != MOVE_TAKE:
                    assert used == list(MOVES[action].uses)
                else:
                    assert all(kind in (game.pot[-1], TWO, JOKER) for kind in used)
                for kind, count in Counter(used).items():
                    assert hand[kind] >= count, (action, used, hand)
            game.apply(rng.choice(legal))


def test_C10_C11_cards_used_by_takes():
    """C-10, C-11: with the pot unfrozen, player 0 (opened, with a meld of 9s, holding
    9 9 2 JK) may take a 9 with two naturals, a natural and a 2 or a joker, or onto its
    meld; the engine says which hand cards each take plays (the table cannot)."""
    game = new_game(["9 9 9 9 9 A A A 2 JK 4 5 6 8 T", "4 5 6 8 9 T J Q K 4 5 6 8 9 T"], "Q J 9")
    play(game, "draw", "meld A A A", "meld 9 9 9", "discard J")
    play(game, "draw", "discard 9")
    nine = KIND_NAMES.index("9")
    assert game.current == 0 and game.pot[-1] == nine and not game.pot_wild
    assert game.legal_actions() == [DRAW, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER, TAKE_ONTO_MELD]
    assert game.cards_used(TAKE) == [nine, nine]
    assert game.cards_used(TAKE_WITH_TWO) == [nine, TWO]
    assert game.cards_used(TAKE_WITH_JOKER) == [nine, JOKER]
    assert game.cards_used(TAKE_ONTO_MELD) == []
    assert game.cards_used(DRAW) == [] and game.cards_used(PASS) == []
