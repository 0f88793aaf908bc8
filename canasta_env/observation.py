"""The observation: one fixed-shape float32 vector from the acting player's view.

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
their sizes and scales. The builder writes every field by its name at the
place the layout gives it; :func:`decode_view` reads an observation back by it into
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
#: Every entry of a ``big`` field: the builder writes these as numbers when they do not
#: fit a byte (scores can be negative; the pot, the stock, the steps and hand sizes large).
BIG_INDICES = np.asarray([span.start for span in LAYOUT.spans if span.field.big], dtype=np.intp)
# build writes these as numbers (its ``big``, the scores), the target through the scales
_BIG_FIELDS = {"pot_size", "score", "hand_size", "staged", "stock", "steps", "target"}
assert {span.field.name for span in LAYOUT.spans if span.field.big} == _BIG_FIELDS
#: Team scores by team offset, and the target score.
SCORE_INDICES = np.asarray(
    [LAYOUT.span("teams.score", team).start for team in range(MAX_TEAMS)], dtype=np.intp
)
TARGET_INDEX = LAYOUT.span("target").start


def _at(name: str, copy: int = 0, base: int = 0) -> int | slice:
    """Where field ``name`` (``"teams.score"``: of team ``copy``) lies, counted from entry
    ``base``: its index for a one-entry field, else its slice. The builder writes each field
    there, by name."""
    span = LAYOUT.span(name, copy)
    start = span.start - base
    return start if span.field.size == 1 else slice(start, start + span.field.size)


def _copy_at(group: str, copy: int, base: int) -> slice:
    """Where copy ``copy`` of ``group`` lies, counted from entry ``base``."""
    first = LAYOUT.span(f"{group}.{LAYOUT.groups[group].fields[0].name}", copy).start - base
    return slice(first, first + LAYOUT.groups[group].stride)


def _copy_fields(group: str, copy: int, base: int) -> dict[str, int | slice]:
    """Where each field of copy ``copy`` of ``group`` lies, by name, counted from ``base``."""
    return {
        field.name: _at(f"{group}.{field.name}", copy, base)
        for field in LAYOUT.groups[group].fields
    }


# The fields the builder writes on every call, each at its place in the vector.
_HAND, _HELD = _at("hand"), _at("held")
_POT_TOP, _POT_SIZE, _POT_FACE_DOWN = _at("pot_top"), _at("pot_size"), _at("pot_face_down")
_POT_FROZEN, _POT_CROSSED, _POT_BLOCKED = _at("pot_frozen"), _at("pot_crossed"), _at("pot_blocked")
_POT_FROZEN_FOR_ME, _POT_KNOWN = _at("pot_frozen_for_me"), _at("pot_known")
_DRAW_PHASE, _MELD_PHASE = _at("draw_phase"), _at("meld_phase")
_STAGED, _STILL_NEEDED = _at("staged"), _at("still_needed")
_TOOK_POT, _CLEAN_ONLY = _at("took_pot"), _at("clean_only")
_MAY_GO_OUT, _HIDDEN_OPEN = _at("may_go_out"), _at("hidden_open")
_STOCK, _STOCK_SHORT, _STEPS = _at("stock"), _at("stock_short"), _at("steps")
_HAND_NUMBER = _at("hand_number")
_SUITED_HAND, _POT_SUIT = _at("suited_hand"), _at("pot_suit")
# The cached fields, written into each viewer's template (see ObservationBuilder): where
# each copy of a group lies in the vector, and a team's fields inside its own copy.
_TEAM_COPIES = [_copy_at("teams", team, 0) for team in range(MAX_TEAMS)]
_TEAM_FIELDS = _copy_fields("teams", 0, OFFSETS["teams"])
_PLAYER_FIELDS = [_copy_fields("players", seat, 0) for seat in range(MAX_PLAYERS)]
_RUNS_FIELDS = [_copy_fields("runs", team, 0) for team in range(MAX_TEAMS)]
_HISTORY_COPIES = [_copy_at("history", seat, 0) for seat in range(MAX_PLAYERS)]
_HISTORY_FIELDS = _copy_fields("history", 0, OFFSETS["history"])
_SINCE_MY_DISCARD = _at("since_my_discard")


def _every(name: str, copies: int) -> slice:
    """The one-entry field ``name`` of the first ``copies`` copies of its group, as one
    stepped slice (the copies of a group are evenly spaced)."""
    places = [_at(name, copy) for copy in range(copies)]
    every = slice(places[0], places[-1] + 1, places[1] - places[0])
    assert list(range(OBS_SIZE)[every]) == places, name
    return every


def _one_hot_rows(field: Field) -> list[bytes]:
    """The entries of a one-hot field for each of its values, in ``values`` order."""
    return [bytes(1 if i == j else 0 for i in range(field.size)) for j in range(field.size)]


#: One-hot pot top by kind; index NUM_KINDS is the empty pot.
_POT_TOP_ROWS = _one_hot_rows(LAYOUT.span("pot_top").field)
_PLAYERS_FIELD = LAYOUT.span("num_players").field
_PLAYER_ONE_HOT = dict(zip(_PLAYERS_FIELD.values, _one_hot_rows(_PLAYERS_FIELD)))
_SUIT_ROWS = _one_hot_rows(LAYOUT.span("pot_suit").field)
#: Length of an escala real: every rank of one suit.
_ESCALA_REAL = NUM_NATURALS
_UINT8 = np.dtype(np.uint8)


def _constant_fields(game: Game) -> bytearray:
    """The vector's bytes with the fields fixed for the game written (the ``table`` block but
    the hand number, ``sequences_on``), every other entry 0."""
    rules = game.rules
    obs = bytearray(OBS_SIZE)
    obs[_at("num_players")] = _PLAYER_ONE_HOT[game.num_players]
    obs[_at("draw_count")] = rules.draw_count
    obs[_at("melds_close_at_7")] = 1 if rules.meld_closes_at else 0
    obs[_at("wild_melds")] = 1 if rules.wild_melds else 0
    obs[_at("black3_melds")] = 1 if rules.black3_melds else 0
    obs[_at("needs_clean_and_dirty")] = 1 if rules.go_out_needs_clean_and_dirty else 0
    obs[_at("three_to_take_frozen")] = 1 if rules.take_naturals_frozen >= 3 else 0
    obs[_at("wild_crosses_pot")] = 1 if rules.wild_crosses_pot else 0
    obs[_at("target")] = 1  # a big field: the builder's scales hold the target
    obs[_at("sequences_on")] = 1 if rules.sequences else 0
    return obs


def _count_bytes(counts: list[int]) -> bytes:
    """History counts as bytes. They pass 255 only in a freak hand (a turn begins with
    a plain draw, a stock card, or a take, whose top card goes to the table for good,
    so a seat's counts are bounded by the deck); they are clamped to 255 then."""
    try:
        return bytes(counts)
    except ValueError:
        return bytes([min(count, 255) for count in counts])


class _ViewerCache:
    """One viewer's template: the vector's bytes with the fields fixed for the game, the
    hand number and the viewer's cached fields (teams and runs, players but their hand
    sizes, history) written, every field ``build`` writes per call 0; and the counts
    each cached part was written at."""

    __slots__ = ("template", "tables", "opened", "known", "history")

    def __init__(self, template: bytearray):
        self.template = template
        # each set by ObservationBuilder._new_hand before the first build
        self.tables: list[int] = []  # game.table_totals, game.opened
        self.opened: list[bool] = []
        self.known = -1  # the builder's count of changes to game.known
        self.history: list[int] = []  # game.history_totals


class ObservationBuilder:
    """Builds observations for one game; caches what never changes in a game.

    Every field is written by its name from :data:`LAYOUT` into the bytes of the vector,
    which one numpy operation scales. Each viewer has a template of those bytes (a
    :class:`_ViewerCache`): the fields fixed for the game, the hand number, and the fields
    that move seldom, refreshed from the counts the state keeps: a team's copy of ``teams``
    (and of ``runs``) when its table changed (``table_totals``, ``opened``), a seat's copy of
    ``history`` when it discarded or declined (``history_totals``), ``known`` when a
    player's known cards changed. ``build`` copies the template and writes the rest, only
    where it is not 0. The big fields (``BIG_INDICES``) go in as bytes when they fit;
    otherwise (and for non-zero scores) they are written as numbers before scaling. The
    constant target is folded into the builder's scales.
    """

    def __init__(self, game: Game):
        self.game = game
        rules = game.rules
        players = game.num_players
        teams = game.num_teams
        self.team_of = game.team_of
        self.canasta_size = rules.canasta_size
        self.draw_count = rules.draw_count
        self.min_canastas = rules.go_out_min_canastas
        self.sequences = rules.sequences
        # C-9, S-6: a wild card in the pot froze it, or crossed it where wild cards cross
        self.pot_wild_at = _POT_CROSSED if rules.wild_crosses_pot else _POT_FROZEN
        # per viewer's team: the teams from it on
        self.team_order = [
            [(team + offset) % teams for offset in range(teams)] for team in range(teams)
        ]
        # per viewer: the seats from the viewer on, and their hand sizes' getter
        self.seat_order = [
            [(viewer + offset) % players for offset in range(players)] for viewer in range(players)
        ]
        self.size_getters = [itemgetter(*order) for order in self.seat_order]
        self.sizes_at = _every("players.hand_size", players)
        # the big fields written as numbers when one does not fit a byte, in build's order
        self.big_at = np.asarray(
            [_POT_SIZE, _STAGED, _STOCK, _STEPS, *range(OBS_SIZE)[self.sizes_at]], np.intp
        )
        self.score_getters = [itemgetter(*order) for order in self.team_order]
        self.score_at = SCORE_INDICES[:teams]
        # the target is constant: its byte is 1 and its scale the scaled target
        self.scales = SCALES.copy()
        self.scales[TARGET_INDEX] = np.float32(rules.target_score) * SCALES[TARGET_INDEX]
        constant = _constant_fields(game)
        self._views = []
        for viewer in range(players):
            template = constant[:]
            my_team = self.team_of[viewer]
            for copy, seat in enumerate(self.seat_order[viewer]):
                at = _PLAYER_FIELDS[copy]
                template[at["present"]] = 1
                template[at["teammate"]] = 1 if self.team_of[seat] == my_team else 0
            self._views.append(_ViewerCache(template))
        self._hand = None  # the hand the templates show
        self._team_cache: dict[int, tuple] = {}  # by team: (key, bytes, canasta counts)
        self._known_seen: list | None = None
        self._known_changes = 0
        self._history_rows: list = []  # per seat: (its history count, bytes), this hand

    def _new_hand(self) -> None:
        """A new hand: the templates show its number, all they cache is stale."""
        game = self.game
        self._hand = game.hand_index
        # the hand number saturates at 255 (a game of that many hands still plays)
        hand_number = min(game.hand_index, 255)
        for view in self._views:
            view.template[_HAND_NUMBER] = hand_number
            # counts no table or seat has: every copy is written afresh
            view.tables = view.opened = [-1] * game.num_teams
            view.history = [-1] * game.num_players
        self._history_rows = [None] * game.num_players

    def _cached_team_block(self, team: int) -> bytes:
        """The team's copy of ``teams``, rebuilt only when the team's table changed: within a
        hand a table only grows, so its card count and opened flag tell (see
        ``GameState.table_totals``)."""
        game = self.game
        key = (game.hand_index, game.table_totals[team], game.opened[team])
        cached = self._team_cache.get(team)
        if cached is not None and cached[0] == key:
            return cached[1]
        block, counts = self._team_block(team)
        self._team_cache[team] = (key, block, counts)
        return block

    def _team_block(self, team: int) -> tuple[bytes, tuple[int, int, int]]:
        """One team's copy of ``teams`` written by name (its score, a big field, is 0 here:
        ``build`` writes it), and its (canastas, clean, dirty) counts."""
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
        at = _TEAM_FIELDS
        block = bytearray(TEAM_SIZE)
        block[at["naturals"]] = nat
        block[at["twos"]] = two
        block[at["jokers"]] = jok
        block[at["is_canasta"]] = flags
        if closed:  # S-7
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
            block[at["closed_clean"]] = closed_clean
            block[at["closed_dirty"]] = closed_dirty
        block[at["present"]] = 1
        block[at["red3"]] = game.red3[team]
        block[at["opened"]] = 1 if game.opened[team] else 0
        block[at["opening_minimum"]] = game.need[team]
        block[at["canastas"]] = count
        block[at["clean"]] = clean
        block[at["dirty"]] = dirty
        return bytes(block), (count, clean, dirty)

    def _write_teams(self, view: _ViewerCache, my_team: int) -> None:
        """Write the copies of ``teams`` (and, S-19, of ``runs``) from ``my_team`` on whose
        team's table changed since the template last showed it."""
        game = self.game
        totals, opened = game.table_totals, game.opened
        seen_totals, seen_opened = view.tables, view.opened
        template = view.template
        for copy, team in enumerate(self.team_order[my_team]):
            if seen_totals[team] == totals[team] and seen_opened[team] == opened[team]:
                continue
            template[_TEAM_COPIES[copy]] = self._cached_team_block(team)
            if self.sequences:  # S-19: a run laid adds its cards to table_totals
                runs = game.escalas[team]
                royal = sum(1 for run in runs if run[2] == _ESCALA_REAL)
                at = _RUNS_FIELDS[copy]
                template[at["escalas"]] = len(runs) - royal
                template[at["escalas_reales"]] = royal
        view.tables = totals[:]
        view.opened = opened[:]

    def _write_known(self, view: _ViewerCache, viewer: int) -> None:
        """Write each seat's ``known`` cards, from ``viewer`` on."""
        known = self.game.known
        template = view.template
        for copy, seat in enumerate(self.seat_order[viewer]):
            template[_PLAYER_FIELDS[copy]["known"]] = known[seat][:NUM_HAND_KINDS]
        view.known = self._known_changes

    def _write_history(self, view: _ViewerCache, viewer: int) -> None:
        """Write the copies of ``history`` from ``viewer`` on whose seat discarded or declined
        a pot top since the template last showed it (``GameState.history_totals``), each
        seat's copy cached until its count moves; and ``since_my_discard``."""
        game = self.game
        totals = game.history_totals
        seen = view.history
        rows = self._history_rows
        template = view.template
        for copy, seat in enumerate(self.seat_order[viewer]):
            total = totals[seat]
            if seen[seat] == total:
                continue
            row = rows[seat]
            if row is None or row[0] != total:
                seat_history = bytearray(HISTORY_SEAT_SIZE)
                seat_history[_HISTORY_FIELDS["discarded"]] = _count_bytes(game.discarded[seat])
                seat_history[_HISTORY_FIELDS["declined"]] = _count_bytes(game.declined[seat])
                row = rows[seat] = (total, bytes(seat_history))
            template[_HISTORY_COPIES[copy]] = row[1]
        since = game.since_discard[viewer]
        try:
            template[_SINCE_MY_DISCARD] = since
        except ValueError:
            template[_SINCE_MY_DISCARD] = _count_bytes(since)
        view.history = totals[:]

    def build(self, viewer: int, viewer_to_act: bool = True) -> np.ndarray:
        """The observation vector of seat ``viewer``."""
        game = self.game
        my_team = self.team_of[viewer]
        if self._hand != game.hand_index:
            self._new_hand()
        view = self._views[viewer]
        if view.tables != game.table_totals or view.opened != game.opened:
            self._write_teams(view, my_team)
        known = game.known
        if self._known_seen != known:
            self._known_seen = [row[:] for row in known]
            self._known_changes += 1
        if view.known != self._known_changes:
            self._write_known(view, viewer)
        if view.history != game.history_totals:
            self._write_history(view, viewer)
        obs = view.template[:]
        pot = game.pot
        top = pot[-1] if pot else NUM_KINDS
        obs[_HAND] = game.hands[viewer][:NUM_HAND_KINDS]
        obs[_POT_TOP] = _POT_TOP_ROWS[top]
        if game.pot_hidden:
            obs[_POT_FACE_DOWN] = game.pot_hidden
        if game.pot_wild:
            obs[self.pot_wild_at] = 1
        if NUM_NATURALS <= top < NUM_KINDS:
            obs[_POT_BLOCKED] = 1
        if game.pot_frozen_until_opened(my_team):  # C-9, asked of the engine
            obs[_POT_FROZEN_FOR_ME] = 1
        obs[_POT_KNOWN] = game.pot_known
        if self.sequences:  # S-19: the viewer's naturals by suit, a natural pot top's suit
            obs[_SUITED_HAND] = game.suits.hands[viewer]
            if top < NUM_NATURALS:
                obs[_POT_SUIT] = _SUIT_ROWS[game.suits.pot[-1]]
        opened = game.opened[my_team]
        if viewer_to_act and game.current == viewer:
            obs[_HELD] = game.held[:NUM_HAND_KINDS]
            phase = game.phase
            staged = game.staged
            if phase == PHASE_DRAW:
                obs[_DRAW_PHASE] = 1
            elif phase == PHASE_MELD:
                obs[_MELD_PHASE] = 1
                # the canasta counts come from the team cache that _write_teams refreshed
                counts = self._team_cache[my_team][2]
                if (
                    counts[0] >= self.min_canastas
                    and game.opening_done(my_team)
                    and game.search.go_out_allowed_counts(*counts)
                ):
                    obs[_MAY_GO_OUT] = 1
            if not opened and game.need[my_team] > staged:
                obs[_STILL_NEEDED] = game.need[my_team] - staged
            if game.took_pot:
                obs[_TOOK_POT] = 1
            if game.clean_only:
                obs[_CLEAN_ONLY] = 1
            if game.hidden_open:
                obs[_HIDDEN_OPEN] = 1
        else:
            staged = 0
            if not opened and game.need[my_team] > 0:
                obs[_STILL_NEEDED] = game.need[my_team]
        stock = len(game.stock)
        if stock < self.draw_count:
            obs[_STOCK_SHORT] = 1
        sizes = self.size_getters[viewer](game.hand_totals)
        try:  # the big fields as bytes where they fit (the common case)
            obs[_POT_SIZE] = len(pot)
            if staged:
                obs[_STAGED] = staged
            obs[_STOCK] = stock
            obs[_STEPS] = game.num_steps
            obs[self.sizes_at] = bytes(sizes)
            big = None
        except ValueError:  # else all of them as numbers, over their bytes
            big = (len(pot), staged, stock, game.num_steps, *sizes)
        entries = np.frombuffer(obs, _UINT8)
        if big is None and not any(game.scores):
            # one numpy call: uint8 * float32 is computed in float32, as below
            return entries * self.scales
        values = entries.astype(np.float32)
        if big is not None:
            values[self.big_at] = big
        values[self.score_at] = self.score_getters[my_team](game.scores)
        values *= self.scales
        return values


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
