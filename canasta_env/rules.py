"""The rules object: every number and switch of the rules (docs/rules.md), and the four presets.

A preset is a value of :class:`Rules`, never a subclass; the engine reads fields
and never asks which variant it plays. A house rule is a field override::

    make_rules("spanish", target_score=5000)

Every way of building a rules object (``Rules(...)``, ``dataclasses.replace``,
:func:`make_rules`, :func:`rules_from_dict`) checks it: each field's type from its
annotation, each integer against its declared range in :data:`BOUNDS`, and the
fields against each other in :data:`CROSS_CHECKS`. A bad value raises
``ValueError`` naming the field and what it may be.

Rule ids in comments are the headings of ``docs/rules.md``.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import typing
from dataclasses import dataclass, field

from canasta_env.actions import MAX_NEW_MELD
from canasta_env.cards import KIND_NAMES, NATURAL_RANKS, NUM_NATURALS, deck_counts

#: Conditions of a team at the end of a hand, used to index ``red3_sign``.
TEAM_NO_MELD, TEAM_NO_CANASTA, TEAM_CLEAN_ONLY, TEAM_DIRTY_ONLY, TEAM_CLEAN_AND_DIRTY = range(5)

ACE = NATURAL_RANKS.index("A")

# ------------------------------------------------------------------- limits
#: Table sizes the engine seats (teams of one, or two partnerships at 4 and 6).
PLAYER_COUNTS = (2, 3, 4, 6)
#: The observation packs small counts into one byte each (``observation/builder.py``): the
#: cards of one kind in a hand, a meld or the pot, a team's canastas, the opening
#: minimum, the face-down pot and the draw count. No rules value may push one past this.
OBSERVATION_BYTE_MAX = 255
#: The most cards of one kind a single deck holds (four of a rank, four 2s).
MOST_OF_ONE_KIND_PER_DECK = max(deck_counts(1, 0))
#: The engine's meld tables are sized for at most this many decks (``engine/melds.py``
#: ``natural_ok``: 32 naturals of a rank); Spanish with 6 players plays 8.
ENGINE_MAX_DECKS = 8
#: Decks in play: what the engine's tables hold, and what the observation can count.
MAX_DECKS = min(ENGINE_MAX_DECKS, OBSERVATION_BYTE_MAX // MOST_OF_ONE_KIND_PER_DECK)
#: The most cards a deck the rules accept holds: MAX_DECKS decks of 52 and at most a byte's
#: worth of jokers (``_kinds_fit_observation``). No hand, pile or table holds more.
MAX_DECK_CARDS = MAX_DECKS * sum(deck_counts(1, 0)) + OBSERVATION_BYTE_MAX
#: The largest counter (a hand's steps, the hand index, staged points, an opening minimum)
#: and the largest score, in either sign, that a loaded state may hold: far past any game,
#: and so far below the core's 32- and 64-bit integers that a hand's play (which adds less
#: than as much again) cannot overflow them. Both engines refuse a state past them.
MAX_COUNT = 1 << 30
MAX_SCORE = 1 << 60
#: Cards an ace puts face down under it when it starts the pot (``pot_start_count_under_natural``).
MOST_COUNTED_UNDER_NATURAL = ACE + 4
#: The largest number of points one rules entry (a bonus, a penalty, a red 3 score, the
#: target) may be worth: over 60 times the largest preset value, and far below where a
#: game's scores would overflow the rewards' floats or the observation's numbers.
MAX_POINTS = 1_000_000
#: The largest factor on points (red 3 signs, the unopened hand penalty); presets use 2.
MAX_FACTOR = 10


# ------------------------------------------------------------------- checks
@dataclass(frozen=True)
class Bound:
    """The inclusive range (or the allowed values) of an integer rules field.

    ``column`` names one column of a table field (a list of rows, or one fixed row
    such as ``special_wild_canasta``); a list field's bound holds for each entry.
    """

    field: str
    low: int | None
    high: int | None
    why: str
    column: str | None = None
    allowed: tuple[int, ...] | None = None

    def text(self) -> str:
        if self.allowed is not None:
            return "one of " + ", ".join(str(v) for v in self.allowed)
        if self.low is not None and self.high is not None:
            return f"an integer >= {self.low} and <= {self.high}"
        if self.low is not None:
            return f"an integer >= {self.low}"
        if self.high is not None:
            return f"an integer <= {self.high}"
        return "an integer"

    def holds(self, value: int) -> bool:
        if self.allowed is not None:
            return value in self.allowed
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)


#: The columns of each table field (and of the fixed rows), as the field comments name them.
COLUMNS: dict[str, tuple[str, ...]] = {
    "hand_size": ("players", "cards"),
    "num_decks_by_players": ("players", "decks"),
    "opening_table": ("lowest team score", "minimum"),
    "clean_opening_wild_melds": ("twos", "jokers"),
    "rank_canasta_bonus": ("rank", "clean bonus", "dirty bonus"),
    "special_wild_canasta": ("jokers", "twos", "bonus"),
    "canasta_count_bonus": ("canastas", "bonus"),
    "clean_canasta_count_bonus": ("clean canastas", "bonus"),
}

_SEATS = "a table of 2, 3, 4 or 6 players"
_BYTE = f"the observation stores it in one byte: OBSERVATION_BYTE_MAX = {OBSERVATION_BYTE_MAX}"
_LAID_WHOLE = f"a new meld is laid with at most {MAX_NEW_MELD} cards (the action layout)"
_POINTS = f"points; 0 for none, at most MAX_POINTS = {MAX_POINTS}"


def _points(name: str, column: str | None = None, low: int | None = 0) -> Bound:
    why = _POINTS if low == 0 else f"points, at most MAX_POINTS = {MAX_POINTS} either way"
    return Bound(name, low, MAX_POINTS, why, column=column)


#: Every integer of the rules, with its range and the reason for it.
BOUNDS: tuple[Bound, ...] = (
    Bound("player_counts", None, None, _SEATS, allowed=PLAYER_COUNTS),
    Bound("num_decks", 1, MAX_DECKS, f"52-card decks; MAX_DECKS = {MAX_DECKS}"),
    Bound(
        "jokers_per_deck",
        0,
        OBSERVATION_BYTE_MAX,
        "the observation counts the jokers of the deck in one byte",
    ),
    Bound("num_decks_by_players", None, None, _SEATS, column="players", allowed=PLAYER_COUNTS),
    Bound("num_decks_by_players", 1, MAX_DECKS, f"MAX_DECKS = {MAX_DECKS}", column="decks"),
    Bound("hand_size", None, None, _SEATS, column="players", allowed=PLAYER_COUNTS),
    Bound("hand_size", 1, None, "every player is dealt at least one card", column="cards"),
    Bound("pot_face_down", 0, OBSERVATION_BYTE_MAX, _BYTE),
    Bound("draw_count", 1, OBSERVATION_BYTE_MAX, _BYTE),
    Bound("draw_after_pot_take", 0, OBSERVATION_BYTE_MAX, "at most as many as draw_count may be"),
    Bound("min_meld_size", 2, MAX_NEW_MELD, _LAID_WHOLE),
    Bound("min_naturals", 1, MAX_NEW_MELD, _LAID_WHOLE),
    Bound("max_wilds_per_meld", 0, None, "a count of cards"),
    Bound(
        "min_natural_excess",
        0,
        None,
        "naturals minus wilds; below 0 a meld would hold more wilds than naturals",
    ),
    Bound("meld_closes_at", 0, None, "a meld size; 0 for melds that keep growing"),
    Bound("canasta_size", 3, None, "a canasta is a meld of at least 3 cards"),
    Bound("wild_meld_min_start", 1, MAX_NEW_MELD, _LAID_WHOLE),
    Bound("wild_meld_max_size", 1, None, "a meld size"),
    Bound(
        "black3_meld_max_size",
        0,
        MAX_NEW_MELD,
        f"a black-3 meld is laid whole, and the action layout has black-3 melds of "
        f"3 to {MAX_NEW_MELD} cards",
    ),
    Bound(
        "opening_table",
        None,
        None,
        "any score; the first row also covers lower ones",
        column="lowest team score",
    ),
    Bound("opening_table", 0, OBSERVATION_BYTE_MAX, _BYTE, column="minimum"),
    Bound("clean_opening_max_minimum", 0, None, "an opening minimum; 0 for none"),
    Bound("clean_opening_wild_melds", 0, MAX_NEW_MELD, _LAID_WHOLE, column="twos"),
    Bound("clean_opening_wild_melds", 0, MAX_NEW_MELD, _LAID_WHOLE, column="jokers"),
    Bound("take_naturals", 1, None, "the pot is taken with naturals from the hand"),
    Bound("take_naturals_frozen", 1, None, "the pot is taken with naturals from the hand"),
    Bound("go_out_min_canastas", 0, None, "a count of canastas"),
    _points("go_out_bonus"),
    _points("concealed_go_out_bonus"),
    _points("clean_canasta_bonus"),
    _points("dirty_canasta_bonus"),
    _points("hidden_canasta_bonus"),
    Bound(
        "rank_canasta_bonus", 0, NUM_NATURALS - 1, "a natural rank, 4 = 0 .. A = 10", column="rank"
    ),
    _points("rank_canasta_bonus", "clean bonus"),
    _points("rank_canasta_bonus", "dirty bonus"),
    _points("wild_canasta_clean_bonus"),
    _points("wild_canasta_dirty_bonus"),
    Bound("special_wild_canasta", 0, None, "a count of cards", column="jokers"),
    Bound("special_wild_canasta", 0, None, "a count of cards", column="twos"),
    _points("special_wild_canasta", "bonus"),
    _points("red3_scores", low=-MAX_POINTS),
    _points("red3_extra_each", low=-MAX_POINTS),
    Bound("red3_sign", -MAX_FACTOR, MAX_FACTOR, f"a factor, MAX_FACTOR = {MAX_FACTOR}"),
    _points("black3_in_hand_penalty"),
    Bound("unopened_hand_penalty_factor", 0, MAX_FACTOR, f"a factor, MAX_FACTOR = {MAX_FACTOR}"),
    Bound("canasta_count_bonus", 0, None, "a count of canastas", column="canastas"),
    _points("canasta_count_bonus", "bonus"),
    Bound("clean_canasta_count_bonus", 0, None, "a count of canastas", column="clean canastas"),
    _points("clean_canasta_count_bonus", "bonus"),
    _points("sequence_bonus"),
    _points("royal_sequence_bonus"),
    Bound("target_score", 1, MAX_POINTS, f"points, at most MAX_POINTS = {MAX_POINTS}"),
)


def check_rules(rules: Rules) -> None:
    """Raise ``ValueError`` naming the first field that is of the wrong type, out of its
    range, or at odds with another field; the checks run in this order."""
    _check_types(rules)
    _check_bounds(rules)
    for check in CROSS_CHECKS:
        check(rules)


@functools.cache
def _field_types() -> dict[str, typing.Any]:
    """Field name -> type, from the annotations of :class:`Rules` (read on first use)."""
    return typing.get_type_hints(Rules)


def _fits_type(value, hint) -> bool:
    args = typing.get_args(hint)
    if not args:  # bool, int, str
        if hint is int:
            return isinstance(value, int) and not isinstance(value, bool)
        return isinstance(value, hint)
    if not isinstance(value, tuple):
        return False
    if args[-1] is Ellipsis:
        return all(_fits_type(item, args[0]) for item in value)
    return len(value) == len(args) and all(map(_fits_type, value, args))


_SCALAR_TEXT = {int: "integers", str: "strings", bool: "booleans"}


def _type_text(name: str, hint) -> str:
    args = typing.get_args(hint)
    if not args:
        return hint.__name__
    columns = COLUMNS.get(name)
    if args[-1] is not Ellipsis:  # one fixed row
        names = f" [{', '.join(columns)}]" if columns else ""
        return f"a list of {len(args)} integers{names}"
    row = typing.get_args(args[0])
    if row:
        names = ", ".join(columns) if columns else ", ".join(["integer"] * len(row))
        return f"a list of [{names}] lists of {len(row)} integers"
    return f"a list of {_SCALAR_TEXT[args[0]]}"


def _check_types(rules: Rules) -> None:
    for name, hint in _field_types().items():
        value = getattr(rules, name)
        if not _fits_type(value, hint):
            raise ValueError(
                f"rules field {name!r} expects {_type_text(name, hint)}, got {value!r}"
            )


def _check_bounds(rules: Rules) -> None:
    for bound in BOUNDS:
        value = getattr(rules, bound.field)
        if bound.column is None:
            if isinstance(value, tuple):  # a list field: the bound holds for each entry
                entries = [(item, f" in {value!r}") for item in value]
            else:
                entries = [(value, "")]
            where = ""
        else:
            index = COLUMNS[bound.field].index(bound.column)
            is_table = typing.get_args(_field_types()[bound.field])[-1] is Ellipsis
            entries = [(row[index], f" in {row!r}") for row in (value if is_table else (value,))]
            where = f": {bound.column}"
        for item, context in entries:
            if not bound.holds(item):
                raise ValueError(
                    f"rules field {bound.field!r}{where} must be {bound.text()} "
                    f"({bound.why}), got {item!r}{context}"
                )


# ------------------------------------------------------------ cross checks
#: The list fields that must hold one entry at least.
NOT_EMPTY = ("player_counts", "opening_table", "red3_scores")


def _not_empty(rules: Rules) -> None:
    for name in NOT_EMPTY:
        if not getattr(rules, name):
            raise ValueError(f"rules field {name!r} must not be empty")


def _one_row_per_player_count(rules: Rules) -> None:
    for name in ("hand_size", "num_decks_by_players"):
        players = [row[0] for row in getattr(rules, name)]
        twice = sorted({n for n in players if players.count(n) > 1})
        if twice:
            raise ValueError(f"rules field {name!r} has more than one row for {twice} players")
    missing = [n for n in rules.player_counts if n not in dict(rules.hand_size)]
    if missing:
        raise ValueError(f"rules field 'hand_size' has no hand size for {missing} players")


def _opening_table_ascending(rules: Rules) -> None:
    lows = [low for low, _ in rules.opening_table]
    if lows != sorted(lows):
        raise ValueError("rules field 'opening_table' must be in ascending order of scores")


def _pot_start_kinds_known(rules: Rules) -> None:
    for name in ("pot_start_cover_kinds", "pot_start_freeze_kinds"):
        bad = [k for k in getattr(rules, name) if k not in KIND_NAMES]
        if bad:
            raise ValueError(
                f"rules field {name!r} has unknown card kinds {bad}; "
                f"kinds are {' '.join(KIND_NAMES)}"
            )


def _deal_reserve(rules: Rules, counts: list[int]) -> tuple[int, str]:
    """The most cards a deal can take from the stock beside the hands, and the parts:
    a replacement for every red 3, the face-down pot, every card that may cover the
    turned one and the one that stops it, the cards counted under a natural, one draw."""
    parts = {
        "red 3 replacements": counts[KIND_NAMES.index("R3")],
        "pot_face_down": rules.pot_face_down,
        "cards that cover the turned card": sum(
            counts[KIND_NAMES.index(kind)] for kind in set(rules.pot_start_cover_kinds)
        ),
        "turned card": 1,
        "counted under a natural": (
            MOST_COUNTED_UNDER_NATURAL if rules.pot_start_count_under_natural else 0
        ),
        "draw_count": rules.draw_count,
    }
    text = " + ".join(f"{count} {name}" for name, count in parts.items() if count)
    return sum(parts.values()), text


def _deal_fits_deck(rules: Rules) -> None:
    """Even the worst deal leaves a draw in the stock: a deal that empties it would end
    the hand before its first turn, and a game of such hands would never end."""
    short = []  # (spare cards, players, text) of every player count whose deal does not fit
    hand_sizes = []
    for players, cards in rules.hand_size:
        decks = rules.decks_for(players)
        counts = deck_counts(decks, rules.jokers_per_deck)
        deck = sum(counts)
        reserve, parts = _deal_reserve(rules, counts)
        spare = deck - players * cards - reserve
        if spare < 0:
            short.append((spare, players, cards, reserve, parts, deck, decks))
            most = (deck - reserve) // players
            if most >= 1:
                hand_sizes.append(f"<= {most} for {players} players")
    if not short:
        return
    worst = min(spare for spare, *_ in short)
    fixes = [f"'hand_size' >= 1 and {' and '.join(hand_sizes)}"] if hand_sizes else []
    if rules.draw_count + worst >= 1:
        fixes.append(f"'draw_count' >= 1 and <= {rules.draw_count + worst}")
    if rules.pot_face_down + worst >= 0:
        fixes.append(f"'pot_face_down' >= 0 and <= {rules.pot_face_down + worst}")
    _, players, cards, reserve, parts, deck, decks = short[0]
    raise ValueError(
        "rules fields 'hand_size', 'pot_face_down' and 'draw_count' do not fit the deck: "
        f"the worst deal for {players} players takes {players} x {cards} cards + "
        f"{reserve} ({parts}) = {players * cards + reserve}, and the deck has {deck} "
        f"({decks} deck(s), {rules.jokers_per_deck} jokers each); with the other fields "
        f"as they are it needs " + (" or ".join(fixes) or "more decks ('num_decks')")
    )


def _kinds_fit_observation(rules: Rules) -> None:
    """The observation counts the cards of one kind in a byte; jokers are the one kind
    whose count per deck is a field. (With MAX_DECKS decks a team's canastas fit too:
    every canasta has at least 3 cards.)"""
    for players in sorted({n for n, _ in rules.hand_size} | set(rules.player_counts)):
        decks = rules.decks_for(players)
        most = max(deck_counts(decks, rules.jokers_per_deck))
        if most > OBSERVATION_BYTE_MAX:
            raise ValueError(
                f"rules field 'jokers_per_deck': {rules.jokers_per_deck} jokers in each of "
                f"{decks} decks make {most} cards of one kind, more than the observation "
                f"counts in a byte ({OBSERVATION_BYTE_MAX}); it must be >= 0 and "
                f"<= {OBSERVATION_BYTE_MAX // decks} with {decks} decks ({players} players)"
            )


def _face_down_pot_fits_observation(rules: Rules) -> None:
    counted = MOST_COUNTED_UNDER_NATURAL if rules.pot_start_count_under_natural else 0
    most = OBSERVATION_BYTE_MAX - counted
    if rules.pot_face_down > most:
        raise ValueError(
            f"rules field 'pot_face_down' must be >= 0 and <= {most} with "
            f"pot_start_count_under_natural={rules.pot_start_count_under_natural} (up to "
            f"{counted} more cards go face down; the observation counts them in a byte), "
            f"got {rules.pot_face_down}"
        )


def _sequences_without_black3_going_out(rules: Rules) -> None:
    if rules.sequences and rules.black3_meld_only_going_out:
        # The turn search that guards C-7 ("black 3s only when going out") plans with
        # card kinds; runs need suits, so the two rules are not offered together.
        raise ValueError(
            "rules field 'sequences' (S-19) cannot be combined with "
            "'black3_meld_only_going_out' (C-7)"
        )


#: The checks between fields, after each field passed its type and range.
CROSS_CHECKS = (
    _not_empty,
    _one_row_per_player_count,
    _opening_table_ascending,
    _pot_start_kinds_known,
    _kinds_fit_observation,
    _face_down_pot_fits_observation,
    _deal_fits_deck,
    _sequences_without_black3_going_out,
)


def _as_tuple(value):
    if isinstance(value, (list, tuple)):
        return tuple(_as_tuple(v) for v in value)
    return value


@dataclass(frozen=True)
class Rules:
    """All numbers and switches of one Canasta variant (see docs/rules.md)."""

    name: str
    # --- players, deck, deal -------------------------------------------------
    player_counts: tuple[int, ...] = (2, 3, 4, 6)  # G-3
    num_decks: int = 2  # C-1
    jokers_per_deck: int = 2
    #: Deck count by player count where it differs from ``num_decks`` (S-1).
    num_decks_by_players: tuple[tuple[int, int], ...] = ()
    #: Cards dealt to each player, by player count (C-2).
    hand_size: tuple[tuple[int, int], ...] = ((2, 15), (3, 13), (4, 11), (6, 11))
    # --- the pot at the start of the hand --------------------------------------
    #: Cards put face down as the pot before one is turned up (S-3).
    pot_face_down: int = 0
    #: Kinds that, turned up, are covered by another turned card (C-3, I-3).
    pot_start_cover_kinds: tuple[str, ...] = ("2", "JK", "R3")
    #: Kinds that, turned up at the start, freeze (or cross) the pot (C-3, I-3, S-3).
    pot_start_freeze_kinds: tuple[str, ...] = ("2", "JK", "R3")
    #: Put as many cards face down under the first natural as its number says (I-3).
    pot_start_count_under_natural: bool = False
    # --- the turn --------------------------------------------------------------
    draw_count: int = 1  # C-4, S-4, I-4
    #: Cards drawn from the stock after taking the pot (I-4).
    draw_after_pot_take: int = 0
    # --- melds -----------------------------------------------------------------
    min_meld_size: int = 3  # C-5
    min_naturals: int = 2  # C-5
    max_wilds_per_meld: int = 3  # C-5
    #: A meld keeps naturals - wilds >= this (C-5: 0, I-5: 1).
    min_natural_excess: int = 0
    #: Size at which a meld is a finished canasta that takes no more cards (S-7); 0 = grows.
    meld_closes_at: int = 0
    canasta_size: int = 7  # G-4
    #: Melds of wild cards only (S-9, I-6) and the cards they must start with.
    wild_melds: bool = False
    wild_meld_min_start: int = 3
    wild_meld_max_size: int = 7
    #: Black-3 melds (C-7, S-11, I-5), their sizes, and their special powers.
    black3_melds: bool = True
    black3_meld_only_going_out: bool = True
    black3_meld_max_size: int = 4
    black3_canasta_wins_game: bool = False
    # --- opening ---------------------------------------------------------------
    #: (lowest team score, minimum) brackets, ascending (C-8, S-8, I-9).
    opening_table: tuple[tuple[int, int], ...] = ((-(10**9), 15), (0, 50), (1500, 90), (3000, 120))
    #: A hidden canasta laid while opening opens whatever the count (S-8).
    hidden_canasta_opens: bool = False
    #: Openings whose minimum is at most this must be clean (I-10); 0 = none.
    clean_opening_max_minimum: int = 0
    #: Wild-only melds (twos, jokers) that count as clean in a clean opening (I-10).
    clean_opening_wild_melds: tuple[tuple[int, int], ...] = ()
    #: A concealed going out needs no opening minimum (C-15).
    concealed_go_out_ignores_minimum: bool = True
    #: An unopened team that takes the pot must open cleanly in that turn (I-7, I-10).
    unopened_take_needs_clean_opening: bool = False
    # --- taking the pot ----------------------------------------------------------
    take_naturals: int = 2  # C-10, S-5, I-7
    #: Naturals needed while the pot is frozen (classic, I-8) or crossed (S-6).
    take_naturals_frozen: int = 2
    #: Unfrozen pot: one natural and one wild may take it (C-11).
    take_with_wild: bool = True
    #: Unfrozen pot: the top card alone may join a team meld (C-11).
    take_onto_meld: bool = True
    #: The pot is frozen against a team that has not opened (C-9).
    frozen_for_unopened: bool = True
    #: A discarded wild card "crosses" the pot rather than freezing it (S-6); same effect.
    wild_crosses_pot: bool = False
    #: With the stock exhausted the player must take a pot that joins a team meld (C-16).
    must_take_matching_pot: bool = True
    # --- going out ---------------------------------------------------------------
    go_out_min_canastas: int = 1  # C-14
    go_out_needs_clean_and_dirty: bool = False  # S-15, I-11
    go_out_needs_discard: bool = False  # C-15 vs S-15, I-11
    #: No going out in the turn the team completed its first clean canasta (S-15).
    no_go_out_on_first_clean_turn: bool = False
    go_out_bonus: int = 100  # C-15
    concealed_go_out_bonus: int = 200  # C-15; 0 = no concealed bonus
    # --- scoring -----------------------------------------------------------------
    clean_canasta_bonus: int = 500  # C-17
    dirty_canasta_bonus: int = 300
    hidden_canasta_bonus: int = 0  # S-10
    #: Canastas of one natural rank with their own (clean, dirty) bonus (I-12 aces).
    rank_canasta_bonus: tuple[tuple[int, int, int], ...] = ()
    wild_canasta_clean_bonus: int = 0  # S-10, I-12
    wild_canasta_dirty_bonus: int = 0
    #: (jokers, twos, bonus) of a special wild canasta (I-12 "toro seduto").
    special_wild_canasta: tuple[int, int, int] = (0, 0, 0)
    #: Red 3 totals by count; beyond the table each one adds ``red3_extra_each``.
    red3_scores: tuple[int, ...] = (0, 100, 200, 300, 800)  # C-17
    red3_extra_each: int = 200
    #: Sign of the red 3 total by team condition (TEAM_* constants above).
    red3_sign: tuple[int, int, int, int, int] = (-1, 1, 1, 1, 1)  # C-17
    #: A team that has no canasta counts its melded cards minus (S-14).
    melds_minus_without_canasta: bool = False
    black3_in_hand_penalty: int = 5
    #: Factor on the hand penalty of a team that has not opened (I-14).
    unopened_hand_penalty_factor: int = 1
    #: (canastas, bonus) pairs: the highest reached applies (S-12).
    canasta_count_bonus: tuple[tuple[int, int], ...] = ()
    #: (clean canastas, bonus) pairs (I-13).
    clean_canasta_count_bonus: tuple[tuple[int, int], ...] = ()
    #: Optional Spanish runs (S-19): 7 naturals of one suit in a row (escala), or
    #: 4 to A of one suit (escala real), laid whole by an opened team.
    sequences: bool = False
    sequence_bonus: int = 1500  # S-19 escala
    royal_sequence_bonus: int = 4000  # S-19 escala real
    target_score: int = 5000  # C-18

    def __post_init__(self) -> None:
        # lists (from JSON, or typed by hand) become tuples, so a rules value is hashable
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, list):
                object.__setattr__(self, f.name, _as_tuple(value))
        check_rules(self)

    # ---------------------------------------------------------------- helpers
    def decks_for(self, num_players: int) -> int:
        return dict(self.num_decks_by_players).get(num_players, self.num_decks)

    def hand_size_for(self, num_players: int) -> int:
        return dict(self.hand_size)[num_players]

    def opening_minimum(self, team_score: int) -> int:
        """C-8, S-8, I-9: the opening minimum for a team total at the start of a hand."""
        minimum = self.opening_table[0][1]
        for lowest, value in self.opening_table:
            if team_score >= lowest:
                minimum = value
        return minimum

    def red3_total(self, count: int) -> int:
        table = self.red3_scores
        if count < len(table):
            return table[count]
        return table[-1] + (count - len(table) + 1) * self.red3_extra_each

    @property
    def preset(self) -> str:
        """The preset these rules are house rules of: their name where it names one, else
        classic (the base :func:`rules_from_dict` takes)."""
        return self.name if self.name in PRESETS else CLASSIC.name

    def house_rules(self) -> dict:
        """The fields that differ from :attr:`preset`'s (``name`` too, for rules renamed), in
        field order: ``make_rules(rules.preset, **rules.house_rules()) == rules``."""
        base = PRESETS[self.preset]
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }

    def describe(self) -> dict:
        return dataclasses.asdict(self)


CLASSIC = Rules(name="classic")

CANASTONE = dataclasses.replace(
    CLASSIC,
    name="canastone",
    num_decks=3,  # K-1
    hand_size=((2, 15), (3, 15), (4, 15), (6, 15)),  # K-2
    red3_scores=(0, 100, 200, 300, 800, 1000, 1200),  # K-3
    target_score=15000,  # K-4
)

SPANISH = Rules(
    name="spanish",
    num_decks=4,  # S-1
    num_decks_by_players=((6, 8),),
    jokers_per_deck=2,
    hand_size=((2, 15), (3, 15), (4, 15), (6, 15)),  # S-2
    pot_face_down=6,  # S-3
    pot_start_cover_kinds=(),
    pot_start_freeze_kinds=("2", "JK"),
    draw_count=2,  # S-4
    max_wilds_per_meld=99,  # S-7: only "never more wilds than naturals"
    meld_closes_at=7,  # S-7
    wild_melds=True,  # S-9
    wild_meld_min_start=5,
    black3_melds=True,  # S-11
    black3_meld_only_going_out=False,
    black3_meld_max_size=7,
    black3_canasta_wins_game=True,
    opening_table=(
        (-(10**9), 15),
        (0, 50),
        (1500, 90),
        (3000, 120),
        (5000, 150),
        (7500, 180),
    ),  # S-8
    hidden_canasta_opens=True,
    take_naturals=2,  # S-5
    take_naturals_frozen=3,  # S-6
    take_with_wild=False,
    take_onto_meld=False,
    frozen_for_unopened=False,
    wild_crosses_pot=True,
    must_take_matching_pot=False,  # S-17: "does not or cannot"
    go_out_needs_clean_and_dirty=True,  # S-15
    go_out_needs_discard=True,
    no_go_out_on_first_clean_turn=True,
    go_out_bonus=200,
    concealed_go_out_bonus=0,
    concealed_go_out_ignores_minimum=False,
    hidden_canasta_bonus=1000,  # S-10
    wild_canasta_clean_bonus=3000,
    wild_canasta_dirty_bonus=2000,
    red3_scores=(0, 100, 200, 300, 800),  # S-13 and resolved ambiguity 9
    red3_extra_each=200,
    red3_sign=(-1, -1, 1, 1, 1),  # S-13
    melds_minus_without_canasta=True,  # S-14
    black3_in_hand_penalty=100,
    canasta_count_bonus=((5, 500), (7, 2000)),  # S-12, ambiguity 8
    target_score=7000,  # S-18
)

ITALIAN = Rules(
    name="italian",
    player_counts=(2, 4),
    num_decks=3,  # I-1
    hand_size=((2, 15), (4, 15)),  # I-2
    pot_start_cover_kinds=("B3", "2", "JK", "R3"),  # I-3
    pot_start_freeze_kinds=("2", "JK", "R3"),
    pot_start_count_under_natural=True,
    draw_count=2,  # I-4
    draw_after_pot_take=1,
    max_wilds_per_meld=2,  # I-5
    min_natural_excess=1,
    wild_melds=True,  # I-6
    wild_meld_min_start=3,
    black3_melds=False,  # I-5
    opening_table=((-(10**9), 50), (3001, 90), (5001, 120), (7001, 160), (10001, 200)),  # I-9
    clean_opening_max_minimum=50,  # I-10
    clean_opening_wild_melds=((3, 0), (1, 2)),  # (twos, jokers)
    unopened_take_needs_clean_opening=True,  # I-7
    take_naturals=2,
    take_naturals_frozen=3,  # I-8
    take_with_wild=False,
    take_onto_meld=False,
    frozen_for_unopened=False,
    must_take_matching_pot=False,
    go_out_needs_clean_and_dirty=True,  # I-11
    go_out_needs_discard=True,
    go_out_bonus=500,  # I-13
    concealed_go_out_bonus=0,
    concealed_go_out_ignores_minimum=False,
    rank_canasta_bonus=((ACE, 1000, 500),),  # I-12
    wild_canasta_clean_bonus=3000,
    wild_canasta_dirty_bonus=2000,
    special_wild_canasta=(6, 1, 5000),
    red3_scores=(0, 100, 200, 300, 800, 1000, 1200),  # I-15
    red3_extra_each=200,
    red3_sign=(-2, -2, 0, -1, 1),  # I-15
    unopened_hand_penalty_factor=2,  # I-14
    clean_canasta_count_bonus=((5, 1000),),  # I-13
    target_score=15000,  # I-16
)

PRESETS: dict[str, Rules] = {r.name: r for r in (CLASSIC, CANASTONE, SPANISH, ITALIAN)}

_FIELD_NAMES = set(_field_types())


def unknown_fields_text(names, others: tuple[str, ...] = ()) -> str:
    """``['targetscore'] (did you mean 'target_score'?)``: unknown names with the nearest
    rules fields (or ``others``, such as env options) as suggestions."""
    unknown = sorted(str(name) for name in names)
    candidates = sorted(_FIELD_NAMES | set(others))
    near = [m for name in unknown for m in difflib.get_close_matches(name, candidates, n=1)]
    hint = f" (did you mean {', '.join(repr(m) for m in near)}?)" if near else ""
    return f"{unknown}{hint}"


def make_rules(variant: str | Rules = "classic", **overrides) -> Rules:
    """Return a preset, with field overrides (house rules) applied.

    Raises ``ValueError`` for an unknown variant or field, or a field value the
    checks of :func:`check_rules` refuse (wrong type, out of range, inconsistent).
    """
    if isinstance(variant, Rules):
        base = variant
    elif isinstance(variant, str) and variant in PRESETS:
        base = PRESETS[variant]
    else:
        raise ValueError(
            f"unknown variant {variant!r}; choose one of {sorted(PRESETS)} or pass a Rules object"
        )
    unknown = set(overrides) - _FIELD_NAMES
    if unknown:
        raise ValueError(
            f"unknown rules field(s) {unknown_fields_text(unknown)} for variant {base.name!r}"
        )
    return dataclasses.replace(base, **overrides) if overrides else base


def parse_rule_overrides(items: list[str] | None) -> dict:
    """``["sequences=true", "target_score=5000"]`` (command-line ``--rule``) to overrides.

    Values are JSON (``true``, ``5000``, ``[[2, 15]]``); anything else is a string.
    Raises ``ValueError`` naming an item without ``=``, or one whose value nests deeper
    than ``canasta_env.jsonfile.MAX_DEPTH`` or holds an integer too long to read. The
    fields themselves are checked by :func:`make_rules`.
    """
    import json

    from canasta_env.jsonfile import check_depth

    overrides = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"a rule override is KEY=VALUE (e.g. sequences=true), got {item!r}")
        name = key.strip()
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        except RecursionError:
            raise ValueError(
                f"rule override {name[:60]!r}: the value is nested too deeply"
            ) from None
        except ValueError as error:  # an integer of more digits than Python reads
            problem = str(error).split(":")[0]
            raise ValueError(f"rule override {name[:60]!r}: {problem}") from None
        overrides[name] = check_depth(value, f"rule override {name[:60]!r}")
    return overrides


def add_rule_option(parser) -> None:
    """Add ``--rule KEY=VALUE`` (repeatable) to an argparse parser; see
    :func:`parse_rule_overrides` for its values."""
    parser.add_argument(
        "--rule",
        action="append",
        metavar="KEY=VALUE",
        help="a house rule: a rules field override, e.g. --rule sequences=true (repeatable)",
    )


def check_player_count(rules: Rules, num_players: int) -> None:
    if num_players not in rules.player_counts:
        raise ValueError(
            f"variant {rules.name!r} is played by {list(rules.player_counts)} players, "
            f"not {num_players!r}"
        )


def rules_from_dict(data: dict) -> Rules:
    """Rebuild a rules object saved by :meth:`Rules.describe` (state and replay files).

    Fields left out come from the preset named by ``name`` (``classic`` for another
    name); the result is checked like any rules object.
    """
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ValueError("rules must be a mapping with a string 'name'")
    unknown = set(data) - _FIELD_NAMES
    if unknown:
        raise ValueError(f"unknown rules field(s) {unknown_fields_text(unknown)}")
    base = PRESETS.get(data["name"], CLASSIC)
    return dataclasses.replace(base, **data)


__all__ = [
    "Rules",
    "PRESETS",
    "CLASSIC",
    "CANASTONE",
    "SPANISH",
    "ITALIAN",
    "make_rules",
    "check_player_count",
    "rules_from_dict",
    "check_rules",
    "BOUNDS",
    "MAX_DECKS",
    "MAX_DECK_CARDS",
    "MAX_COUNT",
    "MAX_SCORE",
    "OBSERVATION_BYTE_MAX",
    "parse_rule_overrides",
    "add_rule_option",
    "field",
]
