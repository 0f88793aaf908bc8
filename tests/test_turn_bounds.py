"""The opening's upper bound (engine/turn_bounds.py) against every meld sequence.

``opening_in_reach`` lets the turn search refuse a move (or a pot take) at once where the
hand cannot meld its opening minimum; it must never refuse one that can. Here small hands
on house rules at the ends of ``rules.BOUNDS`` (closing melds, wild melds, black 3s, clean
openings, 2-card minimums...) are searched exhaustively, every meld move in every order
(``meld_moves`` and ``transitions.lay``, the engine's own), for the most opening points
they can meld (keeping 0, 1 or 2 cards in the hand) and for whether a hidden canasta
(S-8) can be laid: the bound must reach the first and ``hidden_canasta_possible`` must
see the second. (The core's twin, csrc/turn_bounds.hpp, is held to the same masks by the
parity tests and ``test_house_fuzz.py``'s positions at the ends of BOUNDS.)
"""

from __future__ import annotations

import random

import pytest

from canasta_env.actions import NUM_SLOTS
from canasta_env.cards import NUM_HAND_KINDS
from canasta_env.engine.melds import (
    canasta_kind,
    canastas_let_go_out,
    meld_moves,
    meld_points,
    meld_tables,
    team_canastas,
)
from canasta_env.engine.opening import NO_HELD
from canasta_env.engine.transitions import lay
from canasta_env.engine.turn_bounds import (
    going_out_in_reach,
    hidden_canasta_possible,
    opening_in_reach,
)
from canasta_env.rules import make_rules
from tests.house_rules import draw_bound_ends, draw_house_rules


def most_points(tables, hand, nat, two, jok, clean_only) -> tuple[list[int], bool]:
    """(the most opening points of a sequence that leaves at least 0, 1, 2 cards in the
    hand, a hidden canasta laid) over every meld sequence; -1 where none leaves so many."""
    rules = tables.rules
    seen: dict = {}

    def search(hand, nat, two, jok, closed) -> tuple[list[int], bool]:
        key = (tuple(hand), tuple(nat), tuple(two), tuple(jok), len(closed))
        if key in seen:
            return seen[key]
        best = [0 if sum(hand) >= keep else -1 for keep in range(3)]
        hidden = False
        for move in meld_moves(tables, hand, nat, two, jok, clean_only):
            h, n, t, j = hand[:], nat[:], two[:], jok[:]
            after, laid_hidden = lay(rules, h, n, t, j, closed, move)
            deeper, deeper_hidden = search(h, n, t, j, after)
            points = meld_points(move[1], move[2], move[3], move[4])
            best = [max(b, d + points) if d >= 0 else b for b, d in zip(best, deeper)]
            hidden = hidden or deeper_hidden or laid_hidden
        seen[key] = best, hidden
        return seen[key]

    return search(list(hand), list(nat), list(two), list(jok), [])


def _positions(count: int, seed: int):
    """(rules, hand, nat, two, jok, clean_only): random small hands, some after a few
    random meld moves (a meld on the table), on rules drawn at the ends of BOUNDS."""
    rng = random.Random(seed)
    for index in range(count):
        draw = draw_bound_ends if index % 2 else draw_house_rules
        preset, overrides, _ = draw(rng)
        rules = make_rules(preset, **overrides)
        tables = meld_tables(rules)
        hand = [0] * NUM_HAND_KINDS
        for _ in range(rng.randint(4, 11)):
            kind = rng.choice((rng.randrange(11), rng.randrange(11), 11, 12, 13))
            hand[kind] += 1
        nat, two, jok = [0] * NUM_SLOTS, [0] * NUM_SLOTS, [0] * NUM_SLOTS
        clean_only = rng.random() < 0.2
        closed: list = []  # (the positions start without finished canastas)
        for _ in range(rng.choice((0, 0, 1, 2))):
            moves = meld_moves(tables, hand, nat, two, jok, clean_only)
            if moves:
                closed, _ = lay(rules, hand, nat, two, jok, closed, rng.choice(moves))
        yield rules, tables, hand, nat, two, jok, clean_only


@pytest.mark.parametrize("seed", range(4))
def test_the_bound_reaches_every_sequence(seed: int) -> None:
    """Never below the most points a sequence melds; hidden canastas always seen."""
    refused = checked = 0
    for rules, tables, hand, nat, two, jok, clean_only in _positions(150, 44_000 + seed):
        best, hidden = most_points(tables, hand, nat, two, jok, clean_only)
        for keep, points in enumerate(best):
            if points > 0:
                assert opening_in_reach(tables, hand, nat, two, jok, clean_only, points, keep), (
                    f"{rules.name} {hand} {nat} {two} {jok} clean_only={clean_only}: {points} "
                    f"points are melded keeping {keep} cards, the bound says they cannot be"
                )
        if hidden and rules.hidden_canasta_opens:
            assert hidden_canasta_possible(tables, hand, nat, two, jok, clean_only)
        refused += not opening_in_reach(tables, hand, nat, two, jok, clean_only, best[2] + 5, 2)
        checked += 1
    assert refused > checked // 3  # the bound is tight often enough to matter


def can_go_out(rules, tables, hand, nat, two, jok, had_clean) -> bool:
    """Does some meld sequence leave at most one card (the discard) with canastas that
    let the team go out (C-14, S-15, I-11)? Every sequence, searched."""
    seen: dict = {}

    def search(hand, nat, two, jok, closed) -> bool:
        key = (tuple(hand), tuple(nat), tuple(two), tuple(jok), tuple(closed))
        if key not in seen:
            seen[key] = False
            canastas = team_canastas(rules, nat, two, jok, closed)
            clean = sum(canasta_kind(c[0], c[1], c[2], c[3])[0] for c in canastas)
            found = (
                sum(hand) <= 1
                and canastas_let_go_out(rules, len(canastas), clean, len(canastas) - clean)
                and not (rules.no_go_out_on_first_clean_turn and clean and not had_clean)
            )
            for move in [] if found else meld_moves(tables, hand, nat, two, jok, False):
                h, n, t, j = hand[:], nat[:], two[:], jok[:]
                after, _ = lay(rules, h, n, t, j, closed, move)
                if search(h, n, t, j, after):
                    found = True
                    break
            seen[key] = found
        return seen[key]

    return search(list(hand), list(nat), list(two), list(jok), [])


def _going_out_positions(count: int, seed: int):
    """(rules, tables, hand, nat, two, jok): hands built to go out often (one or two ranks
    of about a canasta, a few wild cards and black 3s, a discard) on rules drawn at the
    ends of BOUNDS and from the house-rule mixes."""
    rng = random.Random(seed)
    for index in range(count):
        draw = draw_bound_ends if index % 2 else draw_house_rules
        preset, overrides, _ = draw(rng)
        rules = make_rules(preset, **overrides)
        size = min(rules.canasta_size, 9)
        hand = [0] * NUM_HAND_KINDS
        for rank in rng.sample(range(11), rng.randint(1, 2)):
            hand[rank] += rng.randint(2, size + 1)
        for kind in (11, 12, 13):  # 2s, jokers, black 3s
            hand[kind] += rng.choice((0, 0, 1, 2, 3))
        hand[rng.randrange(14)] += 1  # the discard
        empty = [0] * NUM_SLOTS
        yield rules, meld_tables(rules), hand, empty, empty[:], empty[:]


@pytest.mark.parametrize("seed", range(2))
def test_going_out_is_never_refused_where_a_sequence_goes_out(seed: int) -> None:
    """``going_out_in_reach`` (cards no meld takes, canastas, S-15's clean canastas) says
    True wherever some meld sequence goes out, and refuses many where none does."""
    outcomes = {True: 0, False: 0}
    refused = 0
    rng = random.Random(45_000 + seed)
    for rules, tables, hand, nat, two, jok in _going_out_positions(200, 46_000 + seed):
        had_clean = rng.random() < 0.3
        possible = can_go_out(rules, tables, hand, nat, two, jok, had_clean)
        bound = going_out_in_reach(rules, hand, NO_HELD, nat, two, jok, 0, 0, had_clean)
        assert bound or not possible, f"{rules} {hand}: a sequence goes out"
        outcomes[possible] += 1
        refused += not bound
    assert outcomes[True] > 10 and refused > 50  # both kinds met, the bound refuses some
