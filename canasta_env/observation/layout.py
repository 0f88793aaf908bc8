"""The observation's layout: one fixed-shape float32 vector from the acting player's view.

The layout is the same for every preset and every player count: teams and
players are padded to the largest table (3 teams of one with 3 players, 6
players with 6) and ordered from the viewer: own team first, then the teams
that play next; own seat first, then the seats that play next. Each entry is a whole
number times its field's scale, so that typical values lie in [0, 2]. Nothing hidden is
encoded (G-8): other hands appear only as their sizes and the cards known to be in them
from pot takes; the stock only as its size; face-down pot cards only as their number.

The blocks, in vector order (``docs/observation.md`` gives every field's entries, scale,
index order and meaning):

.. The table is generated from LAYOUT by python -m canasta_env.docs; do not edit.

======================  =====  =====  ==============================================================
block                   start   size  fields (entries)
======================  =====  =====  ==============================================================
hand                        0     14  hand (14)
held                       14     14  held (14)
pot_top                    28     16  pot_top (16)
pot_state                  44      6  pot_size, pot_face_down, pot_frozen, pot_crossed, pot_blocked,
                                      pot_frozen_for_me
pot_known                  50     15  pot_known (15)
teams                      65    258  teams per team (3 x 86): naturals (13), twos (13),
                                      jokers (13), is_canasta (13), closed_clean (13),
                                      closed_dirty (13), present, red3, opened, opening_minimum,
                                      score, canastas, clean, dirty
players                   323    102  players per seat (6 x 17): present, teammate, hand_size,
                                      known (14)
turn                      425     11  draw_phase, meld_phase, staged, still_needed, took_pot,
                                      clean_only, may_go_out, hidden_open, stock, stock_short, steps
table                     436     13  num_players (4), hand_number, draw_count, melds_close_at_7,
                                      wild_melds, black3_melds, needs_clean_and_dirty,
                                      three_to_take_frozen, wild_crosses_pot, target
sequences                 449     55  suited_hand (44), pot_suit (4), runs per team (3 x 2):
                                      escalas, escalas_reales; sequences_on
history                   504    182  history per seat (6 x 28): discarded (14), declined (14);
                                      since_my_discard (14)
======================  =====  =====  ==============================================================

Total: 14 + 14 + 16 + 6 + 15 + 258 + 102 + 11 + 13 + 55 + 182 = 686 (``OBS_SIZE``).

The layout is declared once, as :data:`LAYOUT`: blocks of named fields with
their sizes and scales. The builder (:mod:`canasta_env.observation.builder`) writes
every field by its name at the place the layout gives it; the reader
(:mod:`canasta_env.observation.reader`) reads an observation back by it into an
``ObservationView`` with the same names (``view.pot_top``,
``view.teams[1].canastas``, ``view.history[0].discarded``), or splits it into its blocks.
This module holds the declaration and the sizes, offsets and scales that follow from it,
in plain Python: the compiled core's build reads it (``csrc/gen_core_decls.py``) where
numpy is not installed. The same as numpy arrays (``SCALES``, ...) are in
:mod:`canasta_env.observation.arrays`.

The layout only grows at its end. The first 449 entries are the layout of
version 0.1 (before S-19 runs), so a policy trained on it reads
``observation[:449]``; the first 504 are the layout before the history block
(``OBS_SIZE_V1``).
"""

from __future__ import annotations

from dataclasses import dataclass

from canasta_env.actions import NUM_SLOTS
from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS
from canasta_env.engine.sequences import NUM_SUITS, SUITED_SIZE
from canasta_env.rules import (
    MAX_COUNT,
    MAX_DECK_CARDS,
    MAX_POINTS,
    MAX_SCORE,
    OBSERVATION_BYTE_MAX,
)

MAX_TEAMS = 3
MAX_PLAYERS = 6

#: How a field reads back (:func:`~canasta_env.observation.reader.decode_view`): a list
#: of counts, one number, one flag, a list of flags, or the value of the one entry set (-1
#: when none is).
COUNTS, NUMBER, FLAG, FLAGS, ONE_HOT = "counts", "number", "flag", "flags", "one_hot"
#: How many copies of a group a table fills: one per team, or one per seat.
PER_TEAM, PER_SEAT = "team", "seat"
#: The scale of a count of cards of one kind: four of a kind read 1.
QUARTER = 0.25
#: ``pot_top``'s value for an empty pot.
NO_CARD = -1
#: The ranges of the big fields' values: cards (a pile, a hand, the stock); counters (steps,
#: staged points) and scores, each at most its bound in a loaded state (``rules.MAX_COUNT``,
#: ``rules.MAX_SCORE``) plus what play adds to it, which is less than as much again.
CARDS_RANGE = (0, MAX_DECK_CARDS)
COUNTER_RANGE = (0, 2 * MAX_COUNT)
SCORE_RANGE = (-2 * MAX_SCORE, 2 * MAX_SCORE)


@dataclass(frozen=True)
class Field:
    """``size`` entries of the vector, each a value times ``scale``.

    ``big`` marks a field that may pass a byte or be negative (the builder writes
    it as a number), and ``bounds`` then gives its values' range; ``values`` are the
    values of a one-hot field's entries.
    """

    name: str
    size: int = 1
    scale: float = 1.0
    kind: str = NUMBER
    values: tuple[int, ...] = ()
    big: bool = False
    bounds: tuple[int, int] | None = None

    @property
    def value_range(self) -> tuple[int, int]:
        """The least and the largest value of an entry, unscaled: 0 or 1 for a flag or a
        one-hot entry, a byte for the other small fields, ``bounds`` for a big one."""
        if self.kind in (FLAG, FLAGS, ONE_HOT):
            return 0, 1
        if self.big:
            assert self.bounds is not None, f"big field {self.name} declares no bounds"
            return self.bounds
        return 0, OBSERVATION_BYTE_MAX


@dataclass(frozen=True)
class Group:
    """``repeat`` copies of ``fields``, one per team or seat from the viewer (``per``),
    the copies past the table's teams or seats zero."""

    name: str
    fields: tuple[Field, ...]
    repeat: int
    per: str

    @property
    def stride(self) -> int:
        return sum(f.size for f in self.fields)

    @property
    def size(self) -> int:
        return self.repeat * self.stride


@dataclass(frozen=True)
class Block:
    """A named run of fields and groups (the rows of the module table)."""

    name: str
    items: tuple[Field | Group, ...]

    @property
    def size(self) -> int:
        return sum(item.size for item in self.items)


@dataclass(frozen=True)
class Span:
    """Where one field (of one group copy) lies: entries ``start`` to ``stop``."""

    field: Field
    start: int
    block: str
    group: str | None = None
    copy: int | None = None

    @property
    def stop(self) -> int:
        return self.start + self.field.size

    @property
    def name(self) -> str:
        """``pot_size``, or ``teams[1].score`` inside a group."""
        if self.group is None:
            return self.field.name
        return f"{self.group}[{self.copy}].{self.field.name}"


class Layout:
    """The blocks of the observation in vector order, and where each field lies.

    The builder (:class:`~canasta_env.observation.builder.ObservationBuilder`) takes its
    sizes, scales and the positions of its big fields from here;
    :func:`~canasta_env.observation.reader.decode_view` reads every field
    back by these positions.
    """

    def __init__(self, blocks: tuple[Block, ...]):
        self.blocks = blocks
        self.spans: list[Span] = []
        self.offsets: dict[str, int] = {}
        self.groups: dict[str, Group] = {}
        start = 0
        for block in blocks:
            self.offsets[block.name] = start
            for item in block.items:
                if isinstance(item, Field):
                    self.spans.append(Span(item, start, block.name))
                    start += item.size
                    continue
                self.groups[item.name] = item
                for copy in range(item.repeat):
                    for field in item.fields:
                        self.spans.append(Span(field, start, block.name, item.name, copy))
                        start += field.size
        self.size = start
        self._spans = {span.name: span for span in self.spans}
        assert len(self._spans) == len(self.spans), "field names repeat"

    def span(self, name: str, copy: int = 0) -> Span:
        """The span of field ``name``: ``"pot_size"``, or ``"teams.score"`` of team ``copy``."""
        group, _, field = name.rpartition(".")
        return self._spans[f"{group}[{copy}].{field}" if group else name]


def _counts(name: str, size: int = NUM_HAND_KINDS, scale: float = QUARTER) -> Field:
    return Field(name, size, scale, COUNTS)


def _flag(name: str) -> Field:
    return Field(name, kind=FLAG)


def _declare_layout() -> Layout:
    """The observation, block by block (the module table)."""
    # one team's public table; a per-slot list runs over the 13 meld slots (ranks
    # 4..A, black 3s, wild cards)
    team = (
        _counts("naturals", NUM_SLOTS),  # the open meld of each slot
        _counts("twos", NUM_SLOTS),
        _counts("jokers", NUM_SLOTS),
        Field("is_canasta", NUM_SLOTS, kind=FLAGS),  # the open meld is a canasta
        _counts("closed_clean", NUM_SLOTS),  # S-7: canastas closed at 7, per slot
        _counts("closed_dirty", NUM_SLOTS),
        _flag("present"),
        Field("red3", scale=QUARTER),
        _flag("opened"),
        Field("opening_minimum", scale=1 / 100),  # the engine's ``need``
        Field("score", scale=1 / 5000, big=True, bounds=SCORE_RANGE),
        Field("canastas", scale=QUARTER),
        Field("clean", scale=QUARTER),
        Field("dirty", scale=QUARTER),
    )
    # one seat: its hand size and the cards known to be in its hand (G-8)
    player = (
        _flag("present"),
        _flag("teammate"),
        Field("hand_size", scale=1 / 15, big=True, bounds=CARDS_RANGE),
        _counts("known"),
    )
    pot_top = Field("pot_top", NUM_KINDS + 1, kind=ONE_HOT, values=(*range(NUM_KINDS), NO_CARD))
    return Layout(
        (
            Block("hand", (_counts("hand"),)),
            Block("held", (_counts("held"),)),  # pot cards set aside until the opening is met
            Block("pot_top", (pot_top,)),
            Block(
                "pot_state",
                (
                    Field("pot_size", scale=1 / 20, big=True, bounds=CARDS_RANGE),
                    Field("pot_face_down", scale=1 / 10),
                    _flag("pot_frozen"),  # C-9, I-8: a wild card froze it
                    _flag("pot_crossed"),  # S-6: a wild card crossed it
                    _flag("pot_blocked"),  # C-12: the top is a black 3 or a wild card
                    _flag("pot_frozen_for_me"),  # C-9: frozen against the viewer's unopened team
                ),
            ),
            Block("pot_known", (_counts("pot_known", NUM_KINDS),)),  # public pot cards
            Block("teams", (Group("teams", team, MAX_TEAMS, PER_TEAM),)),
            Block("players", (Group("players", player, MAX_PLAYERS, PER_SEAT),)),
            Block(
                "turn",
                (
                    _flag("draw_phase"),
                    _flag("meld_phase"),
                    Field(
                        "staged", scale=1 / 100, big=True, bounds=COUNTER_RANGE
                    ),  # opening points laid this turn
                    Field("still_needed", scale=1 / 100),  # opening points still needed
                    _flag("took_pot"),
                    _flag("clean_only"),  # a clean opening is required
                    _flag("may_go_out"),
                    _flag("hidden_open"),  # S-8: opened this turn with a hidden canasta
                    Field("stock", scale=1 / 100, big=True, bounds=CARDS_RANGE),
                    _flag("stock_short"),  # too few cards to draw
                    Field("steps", scale=1 / 500, big=True, bounds=COUNTER_RANGE),
                ),
            ),
            Block(
                "table",
                (
                    Field("num_players", 4, kind=ONE_HOT, values=(2, 3, 4, 6)),
                    Field("hand_number", scale=1 / 10),
                    Field("draw_count", scale=1 / 2),
                    _flag("melds_close_at_7"),
                    _flag("wild_melds"),
                    _flag("black3_melds"),
                    _flag("needs_clean_and_dirty"),
                    _flag("three_to_take_frozen"),
                    _flag("wild_crosses_pot"),
                    Field("target", scale=1 / 10000, big=True, bounds=(0, MAX_POINTS)),
                ),
            ),
            Block(
                "sequences",  # S-19 runs: all 0 unless ``sequences`` is on
                (
                    _counts("suited_hand", SUITED_SIZE),  # naturals per rank * 4 + suit (S H D C)
                    Field("pot_suit", NUM_SUITS, kind=ONE_HOT, values=tuple(range(NUM_SUITS))),
                    Group(
                        "runs",
                        (Field("escalas", scale=QUARTER), Field("escalas_reales", scale=QUARTER)),
                        MAX_TEAMS,
                        PER_TEAM,
                    ),
                    _flag("sequences_on"),
                ),
            ),
            Block(
                "history",
                (
                    Group(
                        "history",
                        (_counts("discarded"), _counts("declined")),  # declined: pot tops let go
                        MAX_PLAYERS,
                        PER_SEAT,
                    ),
                    _counts("since_my_discard"),  # the others' discards since the viewer's last
                ),
            ),
        )
    )


#: The observation's layout: the one declaration the builder and the reader follow.
LAYOUT = _declare_layout()
BLOCKS = tuple((block.name, block.size) for block in LAYOUT.blocks)
OBS_SIZE = LAYOUT.size
#: Offset of each block in the vector.
OFFSETS: dict[str, int] = LAYOUT.offsets
TEAM_SIZE = LAYOUT.groups["teams"].stride  # 86
PLAYER_SIZE = LAYOUT.groups["players"].stride  # 17
SEQUENCE_SIZE = dict(BLOCKS)["sequences"]  # 55
HISTORY_SEAT_SIZE = LAYOUT.groups["history"].stride  # discarded, declined: 28
HISTORY_SIZE = dict(BLOCKS)["history"]  # 182
#: Size of the layout before the S-19 block (what version 0.1 policies read).
OBS_SIZE_V0 = OFFSETS["sequences"]
#: Size of the layout before the history block (S-19 runs included).
OBS_SIZE_V1 = OFFSETS["history"]
assert OBS_SIZE == 686 and OBS_SIZE_V0 == 449 and OBS_SIZE_V1 == 504
assert (TEAM_SIZE, PLAYER_SIZE, SEQUENCE_SIZE, HISTORY_SIZE) == (86, 17, 55, 182)

# build writes these as numbers (its ``big``, the scores), the target through the scales
_BIG_FIELDS = {"pot_size", "score", "hand_size", "staged", "stock", "steps", "target"}
assert {span.field.name for span in LAYOUT.spans if span.field.big} == _BIG_FIELDS
#: The target score's entry.
TARGET_INDEX = LAYOUT.span("target").start
