"""The observation: one fixed-shape float32 vector from the acting player's view.

The layout is the same for every preset and every player count: teams and
players are padded to the largest table (3 teams of one with 3 players, 6
players with 6) and ordered from the viewer: own team first, then the teams
that play next; own seat first, then the seats that play next. Counts are
scaled so that typical values lie in [0, 2]; the scale of each block is in the
table. Nothing hidden is encoded: other hands appear only as their sizes and
the cards known to be in them from pot takes (G-8); the stock only as its
size; face-down pot cards only as their number.

=======================  ====  =====  =============================================
block                    size  scale  contents
=======================  ====  =====  =============================================
hand                      14   1/4    own hand, count per holdable kind
held                      14   1/4    pot cards set aside until the opening is met
pot top                   16   1      one-hot kind of the top card (15) + empty
pot state                  6   mixed  size /20, face-down /10, frozen, crossed,
                                      blocked (top is a black 3 or wild), frozen
                                      for the viewer (C-9 unopened team)
pot known                 15   1/4    public pot cards per kind (discards seen)
teams (3 x 86)           258   mixed  per team, each a list over the 13 slots
                                      (ranks 4..A, black 3, wild): naturals /4,
                                      2s /4, jokers /4, open meld is a canasta,
                                      closed clean canastas /4, closed dirty /4
                                      (6 x 13 = 78); then present, red 3s /4,
                                      opened, opening minimum /100, score /5000,
                                      canastas /4, clean /4, dirty /4 (8)
players (6 x 17)         102   mixed  per seat: present, teammate, hand size /15,
                                      known cards per kind /4 (14)
turn                      11   mixed  phase draw, phase meld, staged points /100,
                                      points still needed /100, took the pot,
                                      clean opening required, may go out now,
                                      opened this turn (hidden canasta), stock
                                      /100, stock too small to draw, steps /500
table                     13   mixed  players one-hot (2, 3, 4, 6), hand number
                                      /10 (at most 255), draw count /2, melds close at 7, wild
                                      melds, black-3 melds, going out needs clean
                                      and dirty, 3 naturals to take a frozen pot,
                                      wild crosses pot, target /10000
sequences                 55   mixed  S-19 runs, all 0 unless ``sequences`` is on:
                                      own naturals per rank and suit /4 (11 x 4,
                                      rank-major, suits S H D C), suit one-hot of
                                      a natural pot top (4), runs laid per team
                                      from the viewer: escalas /4, escalas reales
                                      /4 (3 x 2), rule on (1)
history (6 x 28 + 14)    182   1/4    public history of the current hand, per seat
                                      from the viewer as in ``players``: cards
                                      discarded per holdable kind (14), plain
                                      draws made while the pot's top card was of
                                      that kind, i.e. pot tops declined (14); then
                                      the cards the other seats discarded since the
                                      viewer's own last discard (since the deal if
                                      none), per kind (14)
=======================  ====  =====  =============================================

Total: 14 + 14 + 16 + 6 + 15 + 258 + 102 + 11 + 13 + 55 + 182 = 686 (``OBS_SIZE``).

The layout is declared once, as :data:`LAYOUT`: blocks of named fields with
their sizes and scales. The builder takes its sizes, scales and the positions of
its big fields from it; :func:`decode_view` reads an observation back by it into
an :class:`ObservationView` with the same names (``view.pot_top``,
``view.teams[1].canastas``, ``view.history[0].discarded``), and :func:`decode`
splits it into its blocks.

The layout only grows at its end. The first 449 entries are the layout of
version 0.1 (before S-19 runs), so a policy trained on it reads
``observation[:449]``; the first 504 are the layout before the history block
(``OBS_SIZE_V1``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import itemgetter

import numpy as np

from canasta_env.actions import NUM_SLOTS
from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS, NUM_NATURALS
from canasta_env.engine.game import PHASE_DRAW, PHASE_MELD, Game, teams_of
from canasta_env.engine.melds import canasta_kind
from canasta_env.engine.sequences import NUM_SUITS, SUITED_SIZE

MAX_TEAMS = 3
MAX_PLAYERS = 6

# ---------------------------------------------------------------------- the layout

#: How a field reads back (:func:`decode_view`): a list of counts, one number, one
#: flag, a list of flags, or the value of the one entry set (-1 when none is).
COUNTS, NUMBER, FLAG, FLAGS, ONE_HOT = "counts", "number", "flag", "flags", "one_hot"
#: How many copies of a group a table fills: one per team, or one per seat.
PER_TEAM, PER_SEAT = "team", "seat"
#: The scale of a count of cards of one kind: four of a kind read 1.
QUARTER = 0.25
#: ``pot_top``'s value for an empty pot.
NO_CARD = -1


@dataclass(frozen=True)
class Field:
    """``size`` entries of the vector, each a value times ``scale``.

    ``big`` marks a field that may pass a byte or be negative (the builder writes
    it as a number); ``values`` are the values of a one-hot field's entries.
    """

    name: str
    size: int = 1
    scale: float = 1.0
    kind: str = NUMBER
    values: tuple[int, ...] = ()
    big: bool = False


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

    The builder (:class:`ObservationBuilder`) takes its sizes, scales and the
    positions of its big fields from here; :func:`decode_view` reads every field
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

    def scales(self) -> np.ndarray:
        """Each entry's scale (float32), in vector order."""
        scale = [span.field.scale for span in self.spans for _ in range(span.field.size)]
        return np.asarray(scale, dtype=np.float32)


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
        Field("score", scale=1 / 5000, big=True),
        Field("canastas", scale=QUARTER),
        Field("clean", scale=QUARTER),
        Field("dirty", scale=QUARTER),
    )
    # one seat: its hand size and the cards known to be in its hand (G-8)
    player = (
        _flag("present"),
        _flag("teammate"),
        Field("hand_size", scale=1 / 15, big=True),
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
                    Field("pot_size", scale=1 / 20, big=True),
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
                    Field("staged", scale=1 / 100, big=True),  # opening points laid this turn
                    Field("still_needed", scale=1 / 100),  # opening points still needed
                    _flag("took_pot"),
                    _flag("clean_only"),  # a clean opening is required
                    _flag("may_go_out"),
                    _flag("hidden_open"),  # S-8: opened this turn with a hidden canasta
                    Field("stock", scale=1 / 100, big=True),
                    _flag("stock_short"),  # too few cards to draw
                    Field("steps", scale=1 / 500, big=True),
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
                    Field("target", scale=1 / 10000, big=True),
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

SCALES = LAYOUT.scales()
_BIG_SPANS = [span for span in LAYOUT.spans if span.field.big]
# The builder writes the big fields in this order (see ``big`` in ObservationBuilder.build).
assert [span.field.name for span in _BIG_SPANS] == (
    ["pot_size"] + ["score"] * MAX_TEAMS + ["hand_size"] * MAX_PLAYERS
) + ["staged", "stock", "steps", "target"]
#: Indices written from a separate list (scores can be negative; stock, steps, sizes large).
BIG_INDICES = np.asarray([span.start for span in _BIG_SPANS], dtype=np.intp)
#: Team scores by team offset, and the target score.
SCORE_INDICES = np.asarray(
    [LAYOUT.span("teams.score", team).start for team in range(MAX_TEAMS)], dtype=np.intp
)
TARGET_INDEX = LAYOUT.span("target").start
#: Positions of the big fields inside the head bytes, a player block and the turn block.
_POT_SIZE_AT = LAYOUT.span("pot_size").start  # the head starts the vector
_SIZE_AT = LAYOUT.span("players.hand_size").start - OFFSETS["players"]
_TURN_BIG_AT = tuple(
    LAYOUT.span(name).start - OFFSETS["turn"] for name in ("staged", "stock", "steps")
)


def _one_hot_rows(field: Field) -> list[list[int]]:
    """The entries of a one-hot field for each of its values, in ``values`` order."""
    return [[1 if i == j else 0 for i in range(field.size)] for j in range(field.size)]


#: One-hot pot top by kind; index NUM_KINDS is the empty pot.
_ONE_HOT = _one_hot_rows(LAYOUT.span("pot_top").field)
_PLAYERS_FIELD = LAYOUT.span("num_players").field
_PLAYER_ONE_HOT = dict(zip(_PLAYERS_FIELD.values, _one_hot_rows(_PLAYERS_FIELD)))
_SUIT_ONE_HOT = _one_hot_rows(LAYOUT.span("pot_suit").field)
_EMPTY_TEAM = bytes(TEAM_SIZE)
_EMPTY_PLAYER = [0] * PLAYER_SIZE
#: Length of an escala real: every rank of one suit.
_ESCALA_REAL = NUM_NATURALS


class ObservationBuilder:
    """Builds observations for one game; caches what never changes in a game.

    Counts are packed as bytes and scaled in one numpy operation. The team
    blocks are cached until the team's table changes and the history blocks until a
    seat discards or declines (counts the state keeps: ``table_totals``,
    ``history_totals``), the player blocks until a player's known cards change, the
    table block per hand. The
    fields in ``BIG_INDICES`` go in as bytes when they fit; otherwise (and for
    non-zero scores) they are written as numbers before scaling. The constant
    target is folded into the builder's scales.
    """

    def __init__(self, game: Game):
        self.game = game
        rules = game.rules
        self.table_tail = [
            rules.draw_count,
            1 if rules.meld_closes_at else 0,
            1 if rules.wild_melds else 0,
            1 if rules.black3_melds else 0,
            1 if rules.go_out_needs_clean_and_dirty else 0,
            1 if rules.take_naturals_frozen >= 3 else 0,
            1 if rules.wild_crosses_pot else 0,
            1,  # target score: a big field, scaled by the builder's own scales (below)
        ]
        self.target = rules.target_score
        self.canasta_size = rules.canasta_size
        self.draw_count = rules.draw_count
        # pot state (wild and not crossing, wild and crossing) by ``pot_wild``
        self.wild_flags = {
            False: (0, 0),
            True: (0, 1) if rules.wild_crosses_pot else (1, 0),
        }
        self._team_cache: dict[int, tuple] = {}
        players = game.num_players
        teams = game.num_teams
        self.team_of = game.team_of
        # per viewer's team: the teams from it on, their scores' getter and the cached bytes
        self.team_order = [
            [(team + offset) % teams for offset in range(teams)] for team in range(teams)
        ]
        self.score_getters = [itemgetter(*order) for order in self.team_order]
        self.padding_teams = _EMPTY_TEAM * (MAX_TEAMS - teams)
        self.padding_scores = (0,) * (MAX_TEAMS - teams)
        self._teams_cache: dict[int, tuple] = {}  # by the viewer's team
        # per viewer: the seats from the viewer on, each with (present, teammate, size)
        self.seat_order = [
            [
                (seat, (1, 1 if game.team_of[seat] == game.team_of[viewer] else 0, 0))
                for seat in ((viewer + offset) % players for offset in range(players))
            ]
            for viewer in range(players)
        ]
        self.size_getters = [itemgetter(*[seat for seat, _ in order]) for order in self.seat_order]
        self.padding_players = _EMPTY_PLAYER * (MAX_PLAYERS - players)
        self.padding_big = (0,) * (MAX_PLAYERS - players)
        self.size_positions = [seat * PLAYER_SIZE + _SIZE_AT for seat in range(players)]
        # the target is constant: its byte is 1 and its scale the scaled target
        self.scales = SCALES.copy()
        self.scales[TARGET_INDEX] = np.float32(self.target) * SCALES[TARGET_INDEX]
        self.players_one_hot = _PLAYER_ONE_HOT[players]
        self._table_block = (None, b"")
        self._known_seen: list | None = None
        self._players_cache: list = []
        self.min_canastas = rules.go_out_min_canastas
        self.sequences = rules.sequences
        # per viewer: the seats from the viewer on, and the cached history bytes
        self.history_order = [[seat for seat, _ in order] for order in self.seat_order]
        self.padding_history = bytes(HISTORY_SEAT_SIZE * (MAX_PLAYERS - players))
        self._history_cache: dict[int, tuple] = {}  # by viewer
        self._history_rows: list = []  # per seat: (its history count, bytes), this hand
        self._history_hand = None

    def _cached_team_block(self, team: int) -> bytes:
        """The team block as bytes, rebuilt only when the team's table changed: within a
        hand a table only grows, so its card count and opened flag tell (see
        ``GameState.table_totals``)."""
        game = self.game
        key = (game.hand_index, game.table_totals[team], game.opened[team])
        cached = self._team_cache.get(team)
        if cached is not None and cached[0] == key:
            return cached[1]
        values = self._team_block(team)
        block = bytes(values)
        # the block ends with the team's (canastas, clean, dirty) counts
        self._team_cache[team] = (key, block, values[-3:])
        return block

    def _team_block(self, team: int) -> list[int]:
        game = self.game
        nat, two, jok, closed = game.nat[team], game.two[team], game.jok[team], game.closed[team]
        size_needed = self.canasta_size
        flags = [1 if n + t + j >= size_needed else 0 for n, t, j in zip(nat, two, jok)]
        count = clean = dirty = 0
        if 1 in flags:
            for slot in range(NUM_SLOTS):
                if flags[slot]:
                    count += 1
                    if canasta_kind(slot, nat[slot], two[slot], jok[slot])[0]:
                        clean += 1
                    else:
                        dirty += 1
        if closed:
            closed_clean = [0] * NUM_SLOTS
            closed_dirty = [0] * NUM_SLOTS
            for slot, n, t, j, _hidden in closed:
                count += 1
                if canasta_kind(slot, n, t, j)[0]:
                    closed_clean[slot] += 1
                    clean += 1
                else:
                    closed_dirty[slot] += 1
                    dirty += 1
            block = nat + two + jok + flags + closed_clean + closed_dirty
        else:
            block = nat + two + jok + flags + _NO_CLOSED_CANASTAS
        block += (1, game.red3[team], 1 if game.opened[team] else 0, game.need[team], 0)
        block += (count, clean, dirty)
        return block

    def _teams_bytes(self, my_team: int) -> bytes:
        """The three team blocks from ``my_team`` on, rebuilt when a team's table changed."""
        game = self.game
        cached = self._teams_cache.get(my_team)
        if (
            cached is not None
            and cached[1] == game.table_totals
            and cached[2] == game.opened
            and cached[0] == game.hand_index
        ):
            return cached[3]
        block = b"".join([self._cached_team_block(team) for team in self.team_order[my_team]])
        block += self.padding_teams
        self._teams_cache[my_team] = (game.hand_index, game.table_totals[:], game.opened[:], block)
        return block

    def _players_bytes(self, viewer: int) -> bytearray:
        """The player blocks from ``viewer`` on, cached until a player's known cards change;
        the caller writes the hand sizes (at ``size_positions``) into it."""
        known = self.game.known
        if self._known_seen != known:
            self._known_seen = [row[:] for row in known]
            self._players_cache = [None] * len(known)
        block = self._players_cache[viewer]
        if block is None:
            values: list = []
            for seat, head_of_seat in self.seat_order[viewer]:
                values += head_of_seat
                values += known[seat][:NUM_HAND_KINDS]
            values += self.padding_players
            block = self._players_cache[viewer] = bytearray(values)
        return block

    def _history_bytes(self, viewer: int) -> bytes:
        """The history block of ``viewer``, cached until a seat discards or declines a pot
        top (``GameState.history_totals``); each seat's (discarded, declined) bytes are
        cached until that seat's count moves."""
        game = self.game
        totals = game.history_totals
        hand = game.hand_index
        cached = self._history_cache.get(viewer)
        if cached is not None and cached[1] == totals and cached[0] == hand:
            return cached[2]
        rows = self._history_rows
        if self._history_hand != hand:
            self._history_hand = hand
            rows = self._history_rows = [None] * game.num_players
        parts = []
        for seat in self.history_order[viewer]:
            row = rows[seat]
            if row is None or row[0] != totals[seat]:
                counts = _count_bytes(game.discarded[seat] + game.declined[seat])
                row = rows[seat] = (totals[seat], counts)
            parts.append(row[1])
        parts.append(self.padding_history)
        parts.append(_count_bytes(game.since_discard[viewer]))
        block = b"".join(parts)
        self._history_cache[viewer] = (hand, totals[:], block)
        return block

    def _sequence_block(self, viewer: int) -> bytes:
        """S-19: the viewer's naturals by suit, the pot top's suit, the runs on the table."""
        game = self.game
        block = list(game.hand_suits[viewer])
        pot = game.pot
        if pot and pot[-1] < NUM_NATURALS:
            block += _SUIT_ONE_HOT[game.pot_suits[-1]]
        else:
            block += (0,) * NUM_SUITS
        my_team = game.team_of[viewer]
        for offset in range(MAX_TEAMS):
            if offset < game.num_teams:
                runs = game.escalas[(my_team + offset) % game.num_teams]
                royal = sum(1 for run in runs if run[2] == _ESCALA_REAL)
                block += (len(runs) - royal, royal)
            else:
                block += (0, 0)
        block.append(1)
        return bytes(block)

    def build(self, viewer: int, viewer_to_act: bool = True) -> np.ndarray:
        """The observation vector of seat ``viewer``."""
        game = self.game
        my_team = self.team_of[viewer]
        acting = viewer_to_act and game.current == viewer
        pot = game.pot
        top = pot[-1] if pot else NUM_KINDS
        opened = game.opened[my_team]
        head = [
            *game.hands[viewer][:NUM_HAND_KINDS],
            *(game.held[:NUM_HAND_KINDS] if acting else _NOTHING_HELD),
            *_ONE_HOT[top],
            len(pot),  # a big field: a byte, else written below
            game.pot_hidden,
            *self.wild_flags[game.pot_wild],
            1 if NUM_NATURALS <= top < NUM_KINDS else 0,
            1 if game.pot_frozen_until_opened(my_team) else 0,  # C-9, asked of the engine
            *game.pot_known,
        ]
        teams = self._teams_bytes(my_team)
        players = self._players_bytes(viewer)
        sizes = self.size_getters[viewer](game.hand_totals)
        stock = len(game.stock)
        steps = game.num_steps
        if acting:
            phase = game.phase
            staged = game.staged
            if phase == PHASE_MELD:
                # the canasta counts come from the team cache that _teams_bytes refreshed
                counts = self._team_cache[my_team][2]
                may_go_out = (
                    counts[0] >= self.min_canastas
                    and game.opening_done(my_team)
                    and game.search.go_out_allowed_counts(*counts)
                )
            else:
                may_go_out = False
            tail = [
                1 if phase == PHASE_DRAW else 0,
                1 if phase == PHASE_MELD else 0,
                staged,  # big fields (staged, stock, steps): bytes, else written below
                0 if opened else max(0, game.need[my_team] - staged),
                1 if game.took_pot else 0,
                1 if game.clean_only else 0,
                1 if may_go_out else 0,
                1 if game.hidden_open else 0,
                stock,
                1 if stock < self.draw_count else 0,
                steps,
            ]
        else:
            staged = 0
            tail = [
                0,
                0,
                0,
                0 if opened else max(0, game.need[my_team]),
                0,
                0,
                0,
                0,
                stock,
                1 if stock < self.draw_count else 0,
                steps,
            ]
        table = self._table_block
        if table[0] != game.hand_index:
            # the hand number saturates at 255 (a game of that many hands still plays)
            hand_number = min(game.hand_index, 255)
            block = bytes([*self.players_one_hot, hand_number, *self.table_tail])
            table = self._table_block = (game.hand_index, block)
        scores = self.score_getters[my_team](game.scores)
        sequences = self._sequence_block(viewer) if self.sequences else _EMPTY_SEQUENCES
        history = self._history_bytes(viewer)
        # The big fields go in as bytes where they fit (the common case); otherwise they
        # are zeroed there and all written as numbers.
        try:
            for at, size in zip(self.size_positions, sizes):
                players[at] = size
            data = b"".join(
                (bytes(head), teams, players, bytes(tail), table[1], sequences, history)
            )
            big = None
        except ValueError:
            head[_POT_SIZE_AT] = 0
            for at in self.size_positions:
                players[at] = 0
            for at in _TURN_BIG_AT:
                tail[at] = 0
            data = b"".join(
                (bytes(head), teams, players, bytes(tail), table[1], sequences, history)
            )
            big = (
                len(pot),
                *scores,
                *self.padding_scores,
                *sizes,
                *self.padding_big,
                staged,
                stock,
                steps,
                1,  # the target: see self.scales
            )
        if big is None and not any(scores):
            # one numpy call: uint8 * float32 is computed in float32, as below
            return np.frombuffer(data, _UINT8) * self.scales
        obs = np.frombuffer(data, _UINT8).astype(np.float32)
        if big is not None:
            obs[BIG_INDICES] = big
        else:
            obs[SCORE_INDICES[: len(scores)]] = scores
        obs *= self.scales
        return obs


_UINT8 = np.dtype(np.uint8)


def _count_bytes(counts: list[int]) -> bytes:
    """History counts as bytes. They pass 255 only in a freak hand (a turn begins with
    a plain draw, a stock card, or a take, whose top card goes to the table for good,
    so a seat's counts are bounded by the deck); they are clamped to 255 then."""
    try:
        return bytes(counts)
    except ValueError:
        return bytes([min(count, 255) for count in counts])


_NOTHING_HELD = [0] * NUM_HAND_KINDS
_EMPTY_SEQUENCES = bytes(SEQUENCE_SIZE)
_NO_CLOSED_CANASTAS = [0] * (NUM_SLOTS * 2)  # closed_clean, closed_dirty


def decode(observation: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named blocks, unscaled (arrays, for tests)."""
    raw = np.asarray(observation, dtype=np.float64) / SCALES
    return {name: raw[OFFSETS[name] : OFFSETS[name] + size] for name, size in BLOCKS}


# ---------------------------------------------------------------------- reading it back


@dataclass
class TeamView:
    """One team's public table (a ``teams`` copy of :data:`LAYOUT`), unscaled."""

    naturals: list[int]
    twos: list[int]
    jokers: list[int]
    is_canasta: list[bool]
    closed_clean: list[int]
    closed_dirty: list[int]
    present: bool
    red3: int
    opened: bool
    opening_minimum: int
    score: int
    canastas: int
    clean: int
    dirty: int

    def meld_size(self, slot: int) -> int:
        """Cards in the open meld of ``slot``."""
        return self.naturals[slot] + self.twos[slot] + self.jokers[slot]

    def has_meld(self, slot: int) -> bool:
        return self.meld_size(slot) > 0


@dataclass
class PlayerView:
    """One seat from the viewer's side (a ``players`` copy of :data:`LAYOUT`)."""

    present: bool
    teammate: bool
    hand_size: int
    known: list[int]  # cards known to be in the hand (pot takes, G-8), per holdable kind


@dataclass
class RunsView:
    """S-19: the runs one team laid."""

    escalas: int
    escalas_reales: int


@dataclass
class SeatHistoryView:
    """The public history of one seat in the current hand, per holdable kind."""

    discarded: list[int]
    declined: list[int]  # plain draws made while the pot's top card was of that kind


@dataclass
class ObservationView:
    """An observation read back into named fields (:func:`decode_view`), unscaled.

    Teams and seats are ordered from the viewer (own team and seat first, then in
    turn order) and cut to the table's teams and seats. The fields are those of
    :data:`LAYOUT`, in its order.
    """

    hand: list[int]  # count per holdable kind
    held: list[int]
    pot_top: int  # kind, or NO_CARD for an empty pot
    pot_size: int
    pot_face_down: int
    pot_frozen: bool
    pot_crossed: bool
    pot_blocked: bool
    pot_frozen_for_me: bool
    pot_known: list[int]
    teams: list[TeamView]
    players: list[PlayerView]
    draw_phase: bool
    meld_phase: bool
    staged: int
    still_needed: int
    took_pot: bool
    clean_only: bool
    may_go_out: bool
    hidden_open: bool
    stock: int
    stock_short: bool
    steps: int
    num_players: int
    hand_number: int
    draw_count: int
    melds_close_at_7: bool
    wild_melds: bool
    black3_melds: bool
    needs_clean_and_dirty: bool
    three_to_take_frozen: bool
    wild_crosses_pot: bool
    target: int
    suited_hand: list[int]
    pot_suit: int  # suit of a natural pot top (S-19 on), else -1
    runs: list[RunsView]
    sequences_on: bool
    history: list[SeatHistoryView]
    since_my_discard: list[int]

    @property
    def me(self) -> TeamView:
        """The viewer's team."""
        return self.teams[0]

    @property
    def hand_size(self) -> int:
        return sum(self.hand)

    @property
    def pot_wild(self) -> bool:
        """A wild card lies in the pot: it is frozen (C-9, I-8) or crossed (S-6)."""
        return self.pot_frozen or self.pot_crossed


#: The view of each group's copies.
_GROUP_VIEWS = {
    "teams": TeamView,
    "players": PlayerView,
    "runs": RunsView,
    "history": SeatHistoryView,
}


def _view_names(items) -> list[str]:
    return [item.name for item in items]


assert _view_names(fields(ObservationView)) == _view_names(
    item for block in LAYOUT.blocks for item in block.items
)
assert all(
    _view_names(fields(view)) == _view_names(LAYOUT.groups[name].fields)
    for name, view in _GROUP_VIEWS.items()
)


def _flags(entries: list[int]) -> list[bool]:
    return [bool(entry) for entry in entries]


def _one_hot(values: tuple[int, ...]) -> Callable[[list[int]], int]:
    def read(entries: list[int]) -> int:
        return values[entries.index(1)] if 1 in entries else -1

    return read


class _Reader:
    """Reads the fields of one view (the top level, or one copy of a group) out of the
    unscaled entries: one ``itemgetter`` call, then the flags and one-hot fields
    converted in place."""

    def __init__(self, items: list, start: int):
        picks: list[int | slice] = []
        self.converters: list[tuple[int, Callable]] = []
        self.groups: list[tuple[int, str, list[_Reader], type]] = []
        for position, item in enumerate(items):
            if isinstance(item, Group):
                readers = [
                    _Reader(list(item.fields), start + copy * item.stride)
                    for copy in range(item.repeat)
                ]
                self.groups.append((position, item.per, readers, _GROUP_VIEWS[item.name]))
                picks.append(start)  # a placeholder: the group's list replaces it
            elif item.kind in (NUMBER, FLAG):
                picks.append(start)
            else:
                picks.append(slice(start, start + item.size))
            if isinstance(item, Field) and item.kind in (FLAG, FLAGS, ONE_HOT):
                convert = {FLAG: bool, FLAGS: _flags}.get(item.kind) or _one_hot(item.values)
                self.converters.append((position, convert))
            start += item.size
        assert len(picks) > 1  # an itemgetter of one item returns no tuple
        self.getter = itemgetter(*picks)

    def read(self, entries: list[int], copies: dict[str, int]) -> list:
        """The view's arguments in field order; groups keep ``copies[per]`` copies."""
        values = list(self.getter(entries))
        for position, convert in self.converters:
            values[position] = convert(values[position])
        for position, per, readers, view in self.groups:
            values[position] = [
                view(*reader.read(entries, copies)) for reader in readers[: copies[per]]
            ]
        return values


_READER = _Reader([item for block in LAYOUT.blocks for item in block.items], 0)
_NUM_PLAYERS = LAYOUT.span("num_players")
_READ_NUM_PLAYERS = _one_hot(_PLAYERS_FIELD.values)


def decode_view(observation: np.ndarray, num_players: int | None = None) -> ObservationView:
    """Read an observation vector back into an :class:`ObservationView`.

    ``num_players`` defaults to the player count the observation shows.
    """
    entries = np.rint(np.asarray(observation, dtype=np.float64) / SCALES).astype(np.int64).tolist()
    if num_players is None:
        num_players = _READ_NUM_PLAYERS(entries[_NUM_PLAYERS.start : _NUM_PLAYERS.stop])
        if num_players not in _PLAYER_ONE_HOT:
            raise ValueError("not an observation: it shows no player count")
    copies = {PER_TEAM: teams_of(num_players), PER_SEAT: num_players}
    return ObservationView(*_READER.read(entries, copies))
