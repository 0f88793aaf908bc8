"""The rules object: every number and switch of RULES.md, and the four presets.

A preset is a value of :class:`Rules`, never a subclass; the engine reads fields
and never asks which variant it plays. A house rule is a field override::

    make_rules("spanish", target_score=5000)

Rule ids in comments point at ``RULES.md``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from canasta_env.cards import NATURAL_RANKS

#: Conditions of a team at the end of a hand, used to index ``red3_sign``.
TEAM_NO_MELD, TEAM_NO_CANASTA, TEAM_CLEAN_ONLY, TEAM_DIRTY_ONLY, TEAM_CLEAN_AND_DIRTY = range(5)

ACE = NATURAL_RANKS.index("A")


@dataclass(frozen=True)
class Rules:
    """All numbers and switches of one Canasta variant (see RULES.md)."""

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

_FIELD_NAMES = {f.name for f in dataclasses.fields(Rules)}


def make_rules(variant: str | Rules = "classic", **overrides) -> Rules:
    """Return a preset, with field overrides (house rules) applied.

    Raises ``ValueError`` for an unknown variant or field, or a field of the wrong type.
    """
    if isinstance(variant, Rules):
        base = variant
    else:
        if variant not in PRESETS:
            raise ValueError(f"unknown variant {variant!r}; choose one of {sorted(PRESETS)}")
        base = PRESETS[variant]
    unknown = sorted(set(overrides) - _FIELD_NAMES)
    if unknown:
        raise ValueError(f"unknown rules field(s) {unknown} for variant {base.name!r}")
    for name, value in overrides.items():
        current = getattr(base, name)
        if isinstance(current, bool) != isinstance(value, bool) or (
            isinstance(current, (int, str)) and not isinstance(value, type(current))
        ):
            raise ValueError(
                f"rules field {name!r} expects {type(current).__name__}, got {value!r}"
            )
        if isinstance(current, tuple):
            if not isinstance(value, (list, tuple)):
                raise ValueError(f"rules field {name!r} expects a list, got {value!r}")
            overrides[name] = _as_tuple(value)
    rules = dataclasses.replace(base, **overrides) if overrides else base
    _check_supported(rules)
    return rules


_AT_LEAST = {
    "num_decks": 1,
    "jokers_per_deck": 0,
    "pot_face_down": 0,
    "draw_count": 1,
    "draw_after_pot_take": 0,
    "min_meld_size": 2,
    "min_naturals": 1,
    "max_wilds_per_meld": 0,
    "min_natural_excess": 0,
    "meld_closes_at": 0,
    "canasta_size": 3,
    "wild_meld_min_start": 1,
    "wild_meld_max_size": 1,
    "black3_meld_max_size": 0,
    "take_naturals": 1,
    "take_naturals_frozen": 1,
    "go_out_min_canastas": 0,
    "target_score": 1,
    "unopened_hand_penalty_factor": 0,
    "sequence_bonus": 0,
    "royal_sequence_bonus": 0,
}


def _check_pairs(name: str, value, width: int = 2) -> None:
    if not all(
        isinstance(item, tuple) and len(item) == width and all(isinstance(x, int) for x in item)
        for item in value
    ):
        raise ValueError(f"rules field {name!r} expects a list of {width}-integer lists")


def _check_supported(rules: Rules) -> None:
    """Reject values the engine cannot play, naming the field."""
    for name, lowest in _AT_LEAST.items():
        value = getattr(rules, name)
        if not isinstance(value, int) or isinstance(value, bool) or value < lowest:
            raise ValueError(f"rules field {name!r} must be an integer >= {lowest}, got {value!r}")
    _check_pairs("hand_size", rules.hand_size)
    _check_pairs("num_decks_by_players", rules.num_decks_by_players)
    _check_pairs("opening_table", rules.opening_table)
    _check_pairs("canasta_count_bonus", rules.canasta_count_bonus)
    _check_pairs("clean_canasta_count_bonus", rules.clean_canasta_count_bonus)
    _check_pairs("clean_opening_wild_melds", rules.clean_opening_wild_melds)
    _check_pairs("rank_canasta_bonus", rules.rank_canasta_bonus, 3)
    if not rules.opening_table:
        raise ValueError("rules field 'opening_table' must not be empty")
    lows = [low for low, _ in rules.opening_table]
    if lows != sorted(lows):
        raise ValueError("rules field 'opening_table' must be in ascending order of scores")
    if not rules.player_counts or any(n not in (2, 3, 4, 6) for n in rules.player_counts):
        raise ValueError("rules field 'player_counts' may hold only 2, 3, 4 and 6")
    missing = [n for n in rules.player_counts if n not in dict(rules.hand_size)]
    if missing:
        raise ValueError(f"rules field 'hand_size' has no hand size for {missing} players")
    if not rules.red3_scores or not all(isinstance(x, int) for x in rules.red3_scores):
        raise ValueError("rules field 'red3_scores' must be a non-empty list of integers")
    if len(rules.red3_sign) != 5:
        raise ValueError("rules field 'red3_sign' must have 5 entries (see TEAM_* constants)")
    if len(rules.special_wild_canasta) != 3:
        raise ValueError("rules field 'special_wild_canasta' must be (jokers, twos, bonus)")
    from canasta_env.cards import KIND_NAMES

    for name in ("pot_start_cover_kinds", "pot_start_freeze_kinds"):
        bad = [k for k in getattr(rules, name) if k not in KIND_NAMES]
        if bad:
            raise ValueError(f"rules field {name!r} has unknown card kinds {bad}")
    if rules.sequences and rules.black3_meld_only_going_out:
        # The turn search that guards C-7 ("black 3s only when going out") plans with
        # card kinds; runs need suits, so the two rules are not offered together.
        raise ValueError(
            "rules field 'sequences' (S-19) cannot be combined with "
            "'black3_meld_only_going_out' (C-7)"
        )


def _as_tuple(value):
    if isinstance(value, (list, tuple)):
        return tuple(_as_tuple(v) for v in value)
    return value


def parse_rule_overrides(items: list[str] | None) -> dict:
    """``["sequences=true", "target_score=5000"]`` (command-line ``--rule``) to overrides.

    Values are JSON (``true``, ``5000``, ``[[2, 15]]``); anything else is a string.
    Raises ``ValueError`` naming an item without ``=``. The fields themselves are
    checked by :func:`make_rules`.
    """
    import json

    overrides = {}
    for item in items or []:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"a rule override is KEY=VALUE (e.g. sequences=true), got {item!r}")
        try:
            value = json.loads(text)
        except json.JSONDecodeError:
            value = text
        overrides[key.strip()] = value
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
    """Rebuild a rules object saved by :meth:`Rules.describe` (state and replay files)."""
    if not isinstance(data, dict) or "name" not in data:
        raise ValueError("rules must be a mapping with a 'name'")
    unknown = sorted(set(data) - _FIELD_NAMES)
    if unknown:
        raise ValueError(f"unknown rules field(s) {unknown}")
    base = PRESETS.get(data["name"], CLASSIC)
    values = {k: _as_tuple(v) for k, v in data.items()}
    rules = dataclasses.replace(base, **values)
    _check_supported(rules)
    return rules


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
    "parse_rule_overrides",
    "add_rule_option",
    "field",
]
