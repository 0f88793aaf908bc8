"""The action layout: one fixed ``Discrete(NUM_ACTIONS)`` space for every preset.

Presets and player counts only change the mask, so one network can play every
variant. Cards are named by kind (see :mod:`canasta_env.cards`); a meld *slot*
is a natural rank (0-10), ``B3`` (11) or ``wild`` (12, wild-only melds).

=========  =====  ===========================================================
ids        count  action (text form)
=========  =====  ===========================================================
0          1      ``draw``: draw the preset's number of stock cards
1          1      ``take``: take the pot with the naturals it needs (2, or 3
                  while frozen/crossed); they and the top card form a meld or
                  join the team's unfinished meld of that rank
2          1      ``take +2``: take with one natural and a 2 (C-11)
3          1      ``take +JK``: take with one natural and a joker (C-11)
4          1      ``take onto meld``: the top card joins a team meld (C-11)
5          1      ``pass``: stock exhausted; decline the pot and end the hand
6-19       14     ``discard K`` for each holdable kind K (``4``..``A``, ``2``,
                  ``JK``, ``B3``); discarding the last card goes out
20-31      12     ``add K``: one natural to the team's meld of rank K, or
                  ``add B3`` to its black-3 meld
32-43      12     ``add 2 to K`` (11 ranks) and ``add 2 to wild``
44-55      12     ``add JK to K`` and ``add JK to wild``
56-440     385    ``meld ...`` a new meld of a natural rank: 11 ranks x 35
                  compositions (n naturals, t twos, j jokers) with
                  2 <= n <= 7, t + j <= n, 3 <= n + t + j <= 7
441-445    5      ``meld B3 B3 B3`` .. 7 black 3s
446-475    30     ``meld 2 .. JK``: a wild-only meld of t twos and j jokers,
                  3 <= t + j <= 7
476-499    24     ``escala 4-T S`` .. ``escala 8-A C``, ``escala real S``: the
                  optional S-19 runs, per suit (S H D C) 5 runs of 7 naturals
                  (4-T, 5-J, 6-Q, 7-K, 8-A) and the escala real 4-A
=========  =====  ===========================================================

Total: 500 = 6 + 14 + 36 + 385 + 5 + 30 + 24.

A meld of more than seven cards is laid as a 7-card (or smaller) meld and then
grown with ``add`` actions; only the Spanish hidden canasta (S-10) needs all
seven cards in one action, and it never has more. Going out is not a separate
action: it is the meld or discard that empties the hand, masked in only when
the team may go out (C-13..C-15, S-15, I-11).

The move table :data:`MOVES` says what each id does, built once from the ranges
above: ``MOVES[id]`` is a :class:`Move` (its kind, the meld slot or discarded
kind, the cards it lays, whether it starts a meld, an S-19 run's suit and first
rank). The engine's dispatch, its reasons for refusing an id, the bots and the web
table all read it; nothing else decodes an id. A take's naturals depend on the pot
top, so the table leaves them out: the engine answers for a position
(``Game.cards_used``).
"""

from __future__ import annotations

from dataclasses import dataclass

from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    KIND_NAMES,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    SUITS,
    TWO,
)

DRAW = 0
TAKE = 1
TAKE_WITH_TWO = 2
TAKE_WITH_JOKER = 3
TAKE_ONTO_MELD = 4
PASS = 5
DISCARD = 6  # + kind, 14 ids
ADD_NATURAL = DISCARD + NUM_HAND_KINDS  # 20: + slot 0..11 (11 = black 3)
ADD_TWO = ADD_NATURAL + 12  # 32: + slot 0..10, 11 = wild meld
ADD_JOKER = ADD_TWO + 12  # 44
NEW_MELD = ADD_JOKER + 12  # 56: + rank * NUM_COMPOSITIONS + composition

NUM_SLOTS = 13
SLOT_BLACK3 = 11
SLOT_WILD = 12
MAX_NEW_MELD = 7


def _compositions() -> tuple[tuple[int, int, int], ...]:
    comps = []
    for n in range(2, MAX_NEW_MELD + 1):
        for wilds in range(0, MAX_NEW_MELD - n + 1):
            if wilds > n or n + wilds < 3:
                continue
            for jokers in range(wilds + 1):
                comps.append((n, wilds - jokers, jokers))
    return tuple(comps)


#: (naturals, twos, jokers) of each new natural meld, in action order.
COMPOSITIONS = _compositions()
NUM_COMPOSITIONS = len(COMPOSITIONS)  # 35
NEW_BLACK3 = NEW_MELD + NUM_NATURALS * NUM_COMPOSITIONS  # 441: + (n - 3)
NEW_WILD = NEW_BLACK3 + 5  # 446


def _wild_compositions() -> tuple[tuple[int, int], ...]:
    return tuple(
        (size - jokers, jokers) for size in range(3, MAX_NEW_MELD + 1) for jokers in range(size + 1)
    )


#: (twos, jokers) of each new wild-only meld, in action order.
WILD_COMPOSITIONS = _wild_compositions()
ESCALA = NEW_WILD + len(WILD_COMPOSITIONS)  # 476: + suit * 6 + start (5 = escala real)
SEQUENCE_LENGTH = 7  # S-19: an escala is 7 naturals of one suit in a row
#: Rank spans (first, length) of the runs of one suit, in action order.
RUNS = tuple((start, SEQUENCE_LENGTH) for start in range(NUM_NATURALS - SEQUENCE_LENGTH + 1)) + (
    (0, NUM_NATURALS),
)
NUM_ACTIONS = ESCALA + len(SUITS) * len(RUNS)  # 500

assert NUM_COMPOSITIONS == 35 and NUM_ACTIONS == 500 and len(RUNS) == 6


# ---------------------------------------------------------------------- the move table

#: Kinds of move, in id order: what an action id does.
MOVE_DRAW, MOVE_TAKE, MOVE_PASS, MOVE_DISCARD, MOVE_MELD, MOVE_RUN = range(6)
MOVE_KIND_NAMES = ("draw", "take", "pass", "discard", "meld", "run")


@dataclass(frozen=True, slots=True)
class Move:
    """What one action id does, in any position.

    ``slot``: the meld slot of a meld move (0-10 ranks, ``SLOT_BLACK3``, ``SLOT_WILD``)
    or the kind of a discard, else -1. ``naturals``, ``twos`` and ``jokers``: the cards
    a meld move lays from the hand (a run: its length in naturals). ``new``: it starts
    a meld (or lays a run). ``suit`` and ``start``: an S-19 run's suit (index in
    ``SUITS``) and first rank, else -1. ``uses``: the kinds of the hand cards it plays,
    one entry per card (none for draw, pass and takes: see the module docstring).
    ``points``: the card values it lays (G-2), what it adds toward an opening.
    """

    kind: int
    slot: int = -1
    naturals: int = 0
    twos: int = 0
    jokers: int = 0
    new: bool = False
    suit: int = -1
    start: int = -1
    uses: tuple[int, ...] = ()
    points: int = 0

    @property
    def cards(self) -> int:
        return self.naturals + self.twos + self.jokers

    @property
    def wilds(self) -> int:
        return self.twos + self.jokers


def natural_kind(slot: int) -> int:
    """The natural card kind that a meld slot holds (black 3s have their own slot)."""
    return BLACK3 if slot == SLOT_BLACK3 else slot


def _meld_move(slot: int, naturals: int, twos: int, jokers: int, new: bool) -> Move:
    uses = (natural_kind(slot),) * naturals + (TWO,) * twos + (JOKER,) * jokers
    points = sum(CARD_VALUES[kind] for kind in uses)
    return Move(MOVE_MELD, slot, naturals, twos, jokers, new, uses=uses, points=points)


def _run_move(suit: int, start: int, length: int) -> Move:
    uses = tuple(range(start, start + length))
    points = sum(CARD_VALUES[rank] for rank in uses)
    return Move(MOVE_RUN, -1, length, 0, 0, True, suit, start, uses, points)


def _build_moves() -> tuple[Move, ...]:
    moves = [Move(MOVE_DRAW)]
    moves += [Move(MOVE_TAKE) for _ in range(TAKE, PASS)]
    moves.append(Move(MOVE_PASS))
    moves += [Move(MOVE_DISCARD, slot=kind, uses=(kind,)) for kind in range(NUM_HAND_KINDS)]
    moves += [_meld_move(slot, 1, 0, 0, False) for slot in range(SLOT_BLACK3 + 1)]
    wild_targets = list(range(NUM_NATURALS)) + [SLOT_WILD]
    moves += [_meld_move(slot, 0, 1, 0, False) for slot in wild_targets]
    moves += [_meld_move(slot, 0, 0, 1, False) for slot in wild_targets]
    for rank in range(NUM_NATURALS):
        moves += [_meld_move(rank, n, t, j, True) for n, t, j in COMPOSITIONS]
    moves += [_meld_move(SLOT_BLACK3, n, 0, 0, True) for n in range(3, MAX_NEW_MELD + 1)]
    moves += [_meld_move(SLOT_WILD, 0, t, j, True) for t, j in WILD_COMPOSITIONS]
    for suit in range(len(SUITS)):
        moves += [_run_move(suit, start, length) for start, length in RUNS]
    return tuple(moves)


#: ``MOVES[id]``: what each action id does.
MOVES = _build_moves()
#: ``MOVE_KINDS[id]``: the kind of move alone (the engine's dispatch reads it).
MOVE_KINDS = tuple(move.kind for move in MOVES)

assert len(MOVES) == NUM_ACTIONS
assert MOVE_KINDS[DISCARD - 1] == MOVE_PASS and MOVE_KINDS[ADD_NATURAL - 1] == MOVE_DISCARD
assert MOVES[ADD_NATURAL].slot == 0 and MOVES[ADD_TWO].twos == 1 and MOVES[ADD_JOKER].jokers == 1
assert MOVES[NEW_MELD + NUM_COMPOSITIONS].slot == 1 and MOVES[NEW_BLACK3].slot == SLOT_BLACK3
assert MOVES[NEW_WILD].slot == SLOT_WILD and MOVES[ESCALA].kind == MOVE_RUN
assert MOVES[ESCALA - 1].kind == MOVE_MELD and MOVES[-1].naturals == NUM_NATURALS


def slot_name(slot: int) -> str:
    if slot == SLOT_WILD:
        return "wild"
    if slot == SLOT_BLACK3:
        return "B3"
    return KIND_NAMES[slot]


def _meld_text(name: str, n: int, twos: int, jokers: int) -> str:
    return "meld " + " ".join([name] * n + ["2"] * twos + ["JK"] * jokers)


def _build_texts() -> tuple[str, ...]:
    texts = ["draw", "take", "take +2", "take +JK", "take onto meld", "pass"]
    texts += [f"discard {KIND_NAMES[k]}" for k in range(NUM_HAND_KINDS)]
    texts += [f"add {slot_name(s)}" for s in range(12)]
    targets = [slot_name(s) for s in range(NUM_NATURALS)] + ["wild"]
    texts += [f"add 2 to {t}" for t in targets]
    texts += [f"add JK to {t}" for t in targets]
    for rank in range(NUM_NATURALS):
        texts += [_meld_text(KIND_NAMES[rank], *c) for c in COMPOSITIONS]
    texts += [_meld_text("B3", n, 0, 0) for n in range(3, 8)]
    texts += [_meld_text("", 0, t, j).replace("meld  ", "meld ") for t, j in WILD_COMPOSITIONS]
    for suit in SUITS:
        for start, length in RUNS:
            if length == NUM_NATURALS:
                texts.append(f"escala real {suit}")
            else:
                span = f"{KIND_NAMES[start]}-{KIND_NAMES[start + length - 1]}"
                texts.append(f"escala {span} {suit}")
    return tuple(texts)


ACTION_TEXTS = _build_texts()
assert len(ACTION_TEXTS) == NUM_ACTIONS and len(set(ACTION_TEXTS)) == NUM_ACTIONS
_TEXT_TO_ACTION = {text: i for i, text in enumerate(ACTION_TEXTS)}


def action_to_str(action: int) -> str:
    """Readable text of an action id, e.g. ``"meld A A A 2"`` or ``"discard 7"``."""
    if not isinstance(action, (int,)) and not hasattr(action, "__index__"):
        raise ValueError(f"action must be an integer id, got {action!r}")
    index = int(action)
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action id {index} is outside 0..{NUM_ACTIONS - 1}")
    return ACTION_TEXTS[index]


def str_to_action(text: str) -> int:
    """Inverse of :func:`action_to_str`; whitespace and case are forgiven."""
    words = text.strip().replace("10", "T").split()
    canonical = []
    for word in words:
        low = word.lower()
        if low in (
            "draw",
            "take",
            "pass",
            "discard",
            "add",
            "meld",
            "onto",
            "to",
            "wild",
            "escala",
            "real",
        ):
            canonical.append(low)
        elif low == "+jk":
            canonical.append("+JK")
        else:
            canonical.append(word.upper())
    key = " ".join(canonical)
    if key not in _TEXT_TO_ACTION:
        raise ValueError(_why_not_an_action(text, canonical))
    return _TEXT_TO_ACTION[key]


_VERBS = ("draw", "take", "pass", "discard", "add", "meld")
_WORDS = ("onto", "to", "wild", "meld")


def _why_not_an_action(text: str, canonical: list[str]) -> str:
    """The message for text :func:`str_to_action` cannot read: a word that names no card
    where the move is known (``discard 42``), else the move itself, with examples."""
    examples = "(e.g. 'draw', 'discard 7', 'meld A A A 2', 'add 2 to Q')"
    if canonical and canonical[0] in _VERBS:
        cards = [w for w in canonical[1:] if w not in _WORDS and not w.startswith("+")]
        unknown = [w for w in cards if w not in KIND_NAMES]
        if unknown:
            return (
                f"not a card: {unknown[0]!r} in {text!r}; cards are 4-9, T (ten), J, Q, K, A, "
                f"2, JK, B3 and R3 {examples}"
            )
        return f"no move is written {text!r} {examples}"
    return f"not an action: {text!r} {examples}"


def new_meld_action(rank: int, naturals: int, twos: int, jokers: int) -> int:
    """Action id of a new natural meld of ``rank`` with the given composition."""
    return NEW_MELD + rank * NUM_COMPOSITIONS + COMPOSITIONS.index((naturals, twos, jokers))


def escala_action(suit: int, start: int, length: int = SEQUENCE_LENGTH) -> int:
    """Action id of the S-19 run of ``suit`` (index in ``SUITS``) from rank ``start``."""
    return ESCALA + suit * len(RUNS) + RUNS.index((start, length))


def new_wild_action(twos: int, jokers: int) -> int:
    return NEW_WILD + WILD_COMPOSITIONS.index((twos, jokers))


def new_black3_action(count: int) -> int:
    return NEW_BLACK3 + count - 3
