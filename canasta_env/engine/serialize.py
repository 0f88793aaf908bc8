"""Save and load a whole game state as readable JSON, with validation.

The format is described in ``docs/state_format.md``. In short, a state is a
JSON object with ``"format": "canasta-env/state"`` and ``"version": 1`` that
holds every field of a :class:`~canasta_env.engine.game.Game`: the rules, the
cards of every hand, the stock (in draw order, next card first), the pot
(bottom to top), the table, the turn, the scores and the state of the random
number generator, so that a loaded game continues exactly like the original,
later ``next_hand()`` shuffles included.

Cards are written as space-separated card codes (``"AS AS 7S 2S JK 3S"``,
see :mod:`canasta_env.cards`); the engine tracks kinds only, so suits are
written as a representative (``S`` for black, ``H`` for the red 3) and any
suit is accepted on loading.

Loading validates everything and raises ``ValueError`` naming the field and
the problem; a failed load builds nothing.
"""

from __future__ import annotations

import dataclasses
import json
import random
from pathlib import Path
from typing import Any, NoReturn

from canasta_env.actions import (
    ACTION_TEXTS,
    SLOT_BLACK3,
    SLOT_WILD,
    escala_action,
    slot_name,
    str_to_action,
)
from canasta_env.cards import (
    BLACK3,
    JOKER,
    KIND_NAMES,
    NUM_HAND_KINDS,
    NUM_KINDS,
    NUM_NATURALS,
    RED3,
    TWO,
    cards_to_counts,
    counts_to_cards,
    deck_counts,
    kind_code,
    kind_from_name,
    parse_cards,
    parse_suited,
    suited_code,
)
from canasta_env.engine.game import (
    END_BLACK3,
    END_STOCK,
    END_WENT_OUT,
    PHASE_DRAW,
    PHASE_HAND_OVER,
    PHASE_NAMES,
    Game,
    team_of_seat,
)
from canasta_env.engine.melds import MeldTables, canasta_summary, meld_tables
from canasta_env.engine.opening import TurnSearch
from canasta_env.engine.sequences import NUM_SUITS, SUITED_SIZE, run_of_action
from canasta_env.rules import PRESETS, Rules, check_player_count, rules_from_dict

STATE_FORMAT = "canasta-env/state"
STATE_VERSION = 1

END_REASONS = (END_WENT_OUT, END_STOCK, END_BLACK3)
NUM_SLOTS = 13
SLOT_NAMES = tuple(slot_name(slot) for slot in range(NUM_SLOTS))
TURN_FIELDS = (
    "staged",
    "held",
    "took_pot",
    "clean_only",
    "hidden_open",
    "melded_this_turn",
    "opened_at_turn_start",
    "had_clean_at_turn_start",
)
STATE_FIELDS = (
    "format",
    "version",
    "rules",
    "num_players",
    "seed",
    "hand_index",
    "first_player",
    "current",
    "phase",
    "num_steps",
    "scores",
    "hands",
    "stock",
    "pot",
    "pot_hidden",
    "pot_wild",
    "pot_start_frozen",
    "pot_known",
    "known",
    "red3",
    "opened",
    "need",
    "melds",
    "closed",
    "turn",
    "went_out",
    "concealed",
    "end_reason",
    "hand_scores",
    "hand_history",
    "game_over",
    "winner_team",
    "rng",
)
#: Present exactly when ``rules.sequences`` is on (S-19): the runs laid per team.
SEQUENCE_FIELD = "escalas"
#: The public history of the hand (discards and declined pot tops per seat). Always
#: written; optional on loading: states saved before it existed load with zeros.
PUBLIC_HISTORY_FIELD = "public_history"
PUBLIC_HISTORY_KEYS = ("discarded", "declined", "since_discard")
_MELD_KEYS = ("naturals", "twos", "jokers")
_CLOSED_KEYS = ("slot", "naturals", "twos", "jokers", "hidden")
_HISTORY_KEYS = ("hand", "reason", "scores")
_RNG_KEYS = ("version", "internal", "gauss_next")


# ---------------------------------------------------------------------- writing
def cards_text(counts: list[int]) -> str:
    """Card codes of a list of per-kind counts, in kind order (``"4S 4S AS 2S JK"``)."""
    return " ".join(kind_code(kind) for kind in counts_to_cards(counts))


def _codes(cards: list[int], suits: list[int] | None = None) -> str:
    if suits is None:
        return " ".join(kind_code(kind) for kind in cards)
    return " ".join(suited_code(kind, suit) for kind, suit in zip(cards, suits))


def _hand_codes(counts: list[int], suited: list[int] | None) -> str:
    """A hand (or held cards) as codes; with S-19 suits, the naturals in their real suits."""
    if suited is None:
        return cards_text(counts)
    codes = []
    for kind, count in enumerate(counts):
        if kind < NUM_NATURALS:
            for suit in range(NUM_SUITS):
                codes += [suited_code(kind, suit)] * suited[kind * NUM_SUITS + suit]
        else:
            codes += [kind_code(kind)] * count
    return " ".join(codes)


def run_text(suit: int, start: int, length: int) -> str:
    """``"5-J H"`` or ``"real S"``: the text of an ``escala`` action without its verb."""
    return ACTION_TEXTS[escala_action(suit, start, length)].removeprefix("escala ")


def jsonable(value: Any) -> Any:
    """Tuples to lists, recursively (so that a dict equals its JSON round trip)."""
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


def rules_to_dict(rules: Rules) -> dict:
    """``rules.describe()`` with tuples as lists."""
    return jsonable(rules.describe())


def _seed_value(seed: Any) -> int | str | None:
    if (
        seed is None
        or isinstance(seed, str)
        or (isinstance(seed, int) and not isinstance(seed, bool))
    ):
        return seed
    raise ValueError(
        f"cannot save a game seeded with {seed!r}: the seed must be an int, str or None"
    )


def state_to_dict(game: Game) -> dict:
    """The whole state of ``game`` as a JSON-ready dict (see ``docs/state_format.md``)."""
    teams = game.num_teams
    melds = []
    for team in range(teams):
        table = {}
        for slot in range(NUM_SLOTS):
            n, twos, jokers = game.nat[team][slot], game.two[team][slot], game.jok[team][slot]
            if n or twos or jokers:
                table[SLOT_NAMES[slot]] = {"naturals": n, "twos": twos, "jokers": jokers}
        melds.append(table)
    closed = [
        [
            {
                "slot": SLOT_NAMES[slot],
                "naturals": n,
                "twos": twos,
                "jokers": jokers,
                "hidden": bool(hidden),
            }
            for slot, n, twos, jokers, hidden in game.closed[team]
        ]
        for team in range(teams)
    ]
    version, internal, gauss_next = game.rng.getstate()
    suited = game.hand_suits
    data = {
        "format": STATE_FORMAT,
        "version": STATE_VERSION,
        "rules": rules_to_dict(game.rules),
        "num_players": game.num_players,
        "seed": _seed_value(game.seed),
        "hand_index": game.hand_index,
        "first_player": game.first_player,
        "current": game.current,
        "phase": PHASE_NAMES[game.phase],
        "num_steps": game.num_steps,
        "scores": list(game.scores),
        "hands": [
            _hand_codes(hand, None if suited is None else suited[seat])
            for seat, hand in enumerate(game.hands)
        ],
        "stock": _codes(
            game.stock[::-1], None if game.stock_suits is None else game.stock_suits[::-1]
        ),
        "pot": _codes(game.pot, game.pot_suits),
        "pot_hidden": game.pot_hidden,
        "pot_wild": game.pot_wild,
        "pot_start_frozen": game.pot_start_frozen,
        "pot_known": cards_text(game.pot_known),
        "known": [cards_text(known) for known in game.known],
        "red3": list(game.red3),
        "opened": list(game.opened),
        "need": list(game.need),
        "melds": melds,
        "closed": closed,
        "turn": {
            "staged": game.staged,
            "held": _hand_codes(game.held, game.held_suits),
            "took_pot": game.took_pot,
            "clean_only": game.clean_only,
            "hidden_open": game.hidden_open,
            "melded_this_turn": game.melded_this_turn,
            "opened_at_turn_start": game.opened_at_turn_start,
            "had_clean_at_turn_start": game.had_clean_at_turn_start,
        },
        "went_out": game.went_out,
        "concealed": game.concealed,
        "end_reason": game.end_reason,
        "hand_scores": jsonable(game.hand_scores),
        "hand_history": jsonable(game.hand_history),
        "game_over": game.game_over,
        "winner_team": game.winner_team,
        "rng": {"version": version, "internal": list(internal), "gauss_next": gauss_next},
    }
    if game.rules.sequences:
        data[SEQUENCE_FIELD] = [[run_text(*run) for run in runs] for runs in game.escalas]
    data[PUBLIC_HISTORY_FIELD] = {
        key: [list(row) for row in getattr(game, key)] for key in PUBLIC_HISTORY_KEYS
    }
    return data


def _plain(value: Any) -> bool:
    if isinstance(value, (list, tuple)):
        return not any(isinstance(v, (dict, list, tuple)) for v in value)
    return not isinstance(value, dict)


def pretty_json(value: Any, indent: str = "  ", _level: int = 0) -> str:
    """JSON text, one entry a line, with flat lists and small flat mappings on one line."""
    pad = indent * (_level + 1)
    if (
        isinstance(value, dict)
        and value
        and not (len(value) <= 5 and all(_plain(v) for v in value.values()))
    ):
        items = [
            f"{pad}{json.dumps(str(k))}: {pretty_json(v, indent, _level + 1)}"
            for k, v in value.items()
        ]
    elif isinstance(value, (list, tuple)) and not _plain(value):
        items = [f"{pad}{pretty_json(v, indent, _level + 1)}" for v in value]
    else:
        return json.dumps(value)
    opening, closing = ("{", "}") if isinstance(value, dict) else ("[", "]")
    return opening + "\n" + ",\n".join(items) + "\n" + indent * _level + closing


def state_to_json(game: Game) -> str:
    """:func:`state_to_dict` as readable JSON text."""
    return pretty_json(state_to_dict(game))


def save_state(game: Game, path: str | Path) -> None:
    """Write the state of ``game`` to ``path`` as JSON."""
    Path(path).write_text(state_to_json(game) + "\n", encoding="utf-8")


# ---------------------------------------------------------------------- checks
def _fail(field: str, problem: str) -> NoReturn:
    raise ValueError(f"invalid state: field {field!r}: {problem}")


def _check_keys(data: Any, expected: tuple[str, ...], field: str, what: str = "state") -> None:
    where = f"invalid {what}: " if field == what else f"invalid {what}: field {field!r}: "
    if not isinstance(data, dict):
        raise ValueError(f"{where}expected a mapping, got {type(data).__name__}")
    missing = [key for key in expected if key not in data]
    extra = sorted(str(key) for key in data if key not in expected)
    if missing:
        raise ValueError(f"{where}missing field(s) {missing}")
    if extra:
        raise ValueError(f"{where}unknown field(s) {extra}")


def _int(value: Any, field: str, low: int | None = 0, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(field, f"expected an integer, got {value!r}")
    if low is not None and value < low:
        if low == 0:
            _fail(field, f"must not be negative, got {value}")
        _fail(field, f"must be at least {low}, got {value}")
    if high is not None and value > high:
        _fail(field, f"must be at most {high}, got {value}")
    return value


def _bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        _fail(field, f"expected true or false, got {value!r}")
    return value


def _str(value: Any, field: str) -> str:
    if not isinstance(value, str):
        _fail(field, f"expected a string, got {value!r}")
    return value


def _list(value: Any, field: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        _fail(field, f"expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        _fail(field, f"expected {length} entries, got {len(value)}")
    return value


def _cards(value: Any, field: str) -> list[int]:
    """Card codes (one string, space separated) to kinds, in order."""
    text = _str(value, field)
    try:
        return parse_cards(text)
    except ValueError as error:
        _fail(field, str(error))


def _suited(value: Any, field: str) -> list[tuple[int, int]]:
    """Card codes to ``(kind, suit)`` pairs, in order (S-19 states)."""
    text = _str(value, field)
    try:
        return parse_suited(text)
    except ValueError as error:
        _fail(field, str(error))


def _suited_counts(value: Any, field: str) -> list[int]:
    """The naturals of a card list counted per ``kind * 4 + suit`` (S-19 states)."""
    counts = [0] * SUITED_SIZE
    for kind, suit in _suited(value, field):
        if kind < NUM_NATURALS:
            counts[kind * NUM_SUITS + suit] += 1
    return counts


def _parse_runs(value: Any, teams: int) -> list[list[tuple[int, int, int]]]:
    runs = []
    for team, texts in enumerate(_list(value, SEQUENCE_FIELD, teams)):
        row = []
        for i, text in enumerate(_list(texts, f"{SEQUENCE_FIELD}[{team}]")):
            field = f"{SEQUENCE_FIELD}[{team}][{i}]"
            try:
                action = str_to_action("escala " + _str(text, field))
            except ValueError:
                _fail(field, f"not a run: {text!r} (e.g. '5-J H' or 'real S')")
            row.append(run_of_action(action))
        runs.append(row)
    return runs


def _parse_public_history(value: Any, n: int, deck: list[int]) -> dict[str, list[list[int]]]:
    """The ``public_history`` field: per key, ``n`` rows of one count per holdable kind."""
    _check_keys(value, PUBLIC_HISTORY_KEYS, PUBLIC_HISTORY_FIELD)
    parsed = {}
    for key in PUBLIC_HISTORY_KEYS:
        field = f"{PUBLIC_HISTORY_FIELD}.{key}"
        parsed[key] = [
            _int_list(row, f"{field}[{seat}]", NUM_HAND_KINDS)
            for seat, row in enumerate(_list(value[key], field, n))
        ]
    discarded = parsed["discarded"]
    for kind in range(NUM_HAND_KINDS):
        total = sum(row[kind] for row in discarded)
        for seat, row in enumerate(parsed["since_discard"]):
            others = total - discarded[seat][kind]
            if row[kind] > others:
                _fail(
                    f"{PUBLIC_HISTORY_FIELD}.since_discard[{seat}]",
                    f"{row[kind]} {KIND_NAMES[kind]!r} since the seat's last discard, but the "
                    f"other seats discarded {others}",
                )
    # a discard ends a turn begun by a plain draw (a stock card) or a take (the pot's top
    # card goes to the table for good), so neither count can pass these bounds
    draws = sum(sum(row) for row in parsed["declined"])
    if draws > sum(deck):
        _fail(
            f"{PUBLIC_HISTORY_FIELD}.declined",
            f"{draws} draws declining the pot, but the deck holds {sum(deck)} cards",
        )
    discards = sum(sum(row) for row in discarded)
    if discards > 2 * sum(deck):
        _fail(
            f"{PUBLIC_HISTORY_FIELD}.discarded",
            f"{discards} discards, more than the {2 * sum(deck)} turns a hand of "
            f"{sum(deck)} cards can have",
        )
    return parsed


def _counts(value: Any, field: str, holdable: bool = False) -> list[int]:
    counts = cards_to_counts(_cards(value, field))
    if holdable and counts[RED3]:
        _fail(field, f"holds {counts[RED3]} red 3(s); red 3s are laid out at once, never held")
    return counts


def _int_list(value: Any, field: str, length: int, low: int | None = 0) -> list[int]:
    items = _list(value, field, length)
    return [_int(item, f"{field}[{i}]", low) for i, item in enumerate(items)]


def _bool_list(value: Any, field: str, length: int) -> list[bool]:
    items = _list(value, field, length)
    return [_bool(item, f"{field}[{i}]") for i, item in enumerate(items)]


def _schema(values: list[Any]) -> Any:
    """The shape shared by the values of one rules field in every preset.

    ``bool``, ``int`` or ``str`` for a scalar; for a tuple ``(element schema,
    length or None)``, the length fixed where every preset has the same one.
    """
    sample = values[0]
    if isinstance(sample, (bool, int, str)):
        return type(sample)
    items = [item for value in values for item in value]
    lengths = {len(value) for value in values}
    element = _schema(items) if items else int
    return (element, lengths.pop() if len(lengths) == 1 else None)


_RULES_SCHEMA = {
    f.name: _schema([getattr(rules, f.name) for rules in PRESETS.values()])
    for f in dataclasses.fields(Rules)
}
_SCHEMA_NAMES = {bool: "true or false", int: "an integer", str: "a string"}


def _schema_text(schema: Any) -> str:
    if not isinstance(schema, tuple):
        return _SCHEMA_NAMES[schema]
    element, length = schema
    size = f"{length} " if length is not None else ""
    return f"a list of {size}({_schema_text(element)})"


def _matches(value: Any, schema: Any) -> bool:
    if schema is bool:
        return isinstance(value, bool)
    if schema is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if schema is str:
        return isinstance(value, str)
    element, length = schema
    if not isinstance(value, (list, tuple)) or (length is not None and len(value) != length):
        return False
    return all(_matches(item, element) for item in value)


_NOT_GIVEN: Any = object()


def parse_rules(data: Any, num_players: Any = _NOT_GIVEN, what: str = "state") -> Rules:
    """Check and rebuild the ``rules`` object of a state or replay file.

    Fields left out are taken from the preset named by ``name`` (``classic``
    for an unknown name); unknown fields and values of the wrong shape raise.
    With ``num_players``, also check that the rules can deal to that many players.
    """
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        raise ValueError(f"invalid {what}: field 'rules' must be a mapping with a string 'name'")
    unknown = sorted(str(key) for key in data if key not in _RULES_SCHEMA)
    if unknown:
        raise ValueError(f"invalid {what}: field 'rules': unknown rules field(s) {unknown}")
    for key, value in data.items():
        if not _matches(value, _RULES_SCHEMA[key]):
            raise ValueError(
                f"invalid {what}: field 'rules.{key}': expected "
                f"{_schema_text(_RULES_SCHEMA[key])}, got {value!r}"
            )
    try:
        rules = rules_from_dict(data)
        for name in rules.pot_start_cover_kinds + rules.pot_start_freeze_kinds:
            kind_from_name(name)
        if not rules.opening_table or not rules.red3_scores:
            raise ValueError("'opening_table' and 'red3_scores' must not be empty")
    except ValueError as error:
        raise ValueError(f"invalid {what}: field 'rules': {error}") from None
    if num_players is _NOT_GIVEN:
        return rules
    if isinstance(num_players, bool) or not isinstance(num_players, int):
        raise ValueError(
            f"invalid {what}: field 'num_players': expected an integer, got {num_players!r}"
        )
    try:
        check_player_count(rules, num_players)
    except ValueError as error:
        raise ValueError(f"invalid {what}: field 'num_players': {error}") from None
    if num_players not in dict(rules.hand_size):
        raise ValueError(
            f"invalid {what}: field 'rules.hand_size' gives no hand size for {num_players} players"
        )
    if num_players < 2 or rules.decks_for(num_players) < 1 or rules.jokers_per_deck < 0:
        raise ValueError(
            f"invalid {what}: field 'rules': no game of {num_players} players with "
            f"{rules.decks_for(num_players)} deck(s) and {rules.jokers_per_deck} joker(s) a deck"
        )
    return rules


def _parse_rng(data: Any) -> random.Random:
    _check_keys(data, _RNG_KEYS, "rng")
    version = _int(data["version"], "rng.version")
    internal = _list(data["internal"], "rng.internal")
    for i, word in enumerate(internal):
        _int(word, f"rng.internal[{i}]", 0, 2**32 - 1)
    gauss = data["gauss_next"]
    if gauss is not None and (isinstance(gauss, bool) or not isinstance(gauss, (int, float))):
        _fail("rng.gauss_next", f"expected a number or null, got {gauss!r}")
    rng = random.Random()
    try:
        rng.setstate((version, tuple(internal), None if gauss is None else float(gauss)))
    except (TypeError, ValueError, OverflowError) as error:
        _fail("rng", f"not a state of Python's random.Random ({error})")
    return rng


def _parse_meld(value: Any, field: str) -> tuple[int, int, int]:
    _check_keys(value, _MELD_KEYS, field)
    return tuple(_int(value[key], f"{field}.{key}") for key in _MELD_KEYS)  # type: ignore[return-value]


def _slot_of(name: Any, field: str) -> int:
    if name not in SLOT_NAMES:
        _fail(field, f"unknown meld slot {name!r}; expected one of {' '.join(SLOT_NAMES)}")
    return SLOT_NAMES.index(name)


def _composition_problem(
    rules: Rules, tables: MeldTables, slot: int, n: int, twos: int, jokers: int, closed: bool
) -> str | None:
    """Why a meld (or, with ``closed``, a finished canasta) cannot exist under ``rules``."""
    size = n + twos + jokers
    closes = rules.meld_closes_at
    if slot == SLOT_BLACK3:
        if not rules.black3_melds:
            return f"{rules.name} has no black-3 melds"
        if twos or jokers:
            return "a black-3 meld holds no wild cards"
        if not 3 <= n <= rules.black3_meld_max_size:
            return f"a black-3 meld holds 3 to {rules.black3_meld_max_size} cards, not {n}"
        limit = closes
    elif slot == SLOT_WILD:
        if not rules.wild_melds:
            return f"{rules.name} has no wild-card melds"
        if n:
            return "a wild-card meld holds no naturals"
        if not rules.wild_meld_min_start <= size <= rules.wild_meld_max_size:
            return (
                f"a wild-card meld holds {rules.wild_meld_min_start} to "
                f"{rules.wild_meld_max_size} cards, not {size}"
            )
        limit = rules.wild_meld_max_size
    else:
        if not tables.natural_meld_ok(n, twos, jokers):
            return f"{n} naturals, {twos} twos and {jokers} jokers is not a legal {rules.name} meld"
        limit = closes
    if closed:
        if not closes:
            return f"{rules.name} melds never close as finished canastas"
        if size != limit:
            return f"a finished canasta of this slot holds {limit} cards, not {size}"
    elif closes and size >= limit:
        return f"a meld of {size} cards would have closed as a finished canasta"
    return None


# ---------------------------------------------------------------------- reading
def state_from_dict(data: Any, *, require_playable: bool = False) -> Game:
    """Check a state dict and build the :class:`Game` it describes.

    Raises ``ValueError`` naming the field and the problem; nothing is built then.
    With ``require_playable``, also reject a hand that is not over where the
    player to act has no legal action (the engine never deals such a state on
    purpose, but every state it reaches round-trips without this check).
    """
    if not isinstance(data, dict):
        raise ValueError(f"invalid state: expected a mapping, got {type(data).__name__}")
    if data.get("format") != STATE_FORMAT:
        _fail("format", f"expected {STATE_FORMAT!r}, got {data.get('format')!r}")
    if data.get("version") != STATE_VERSION or isinstance(data.get("version"), bool):
        _fail("version", f"unsupported version {data.get('version')!r}; expected {STATE_VERSION}")
    sequences = isinstance(data.get("rules"), dict) and data["rules"].get("sequences") is True
    optional = (PUBLIC_HISTORY_FIELD,) if PUBLIC_HISTORY_FIELD in data else ()
    _check_keys(data, STATE_FIELDS + ((SEQUENCE_FIELD,) if sequences else ()) + optional, "state")

    # --- rules and players ----------------------------------------------------
    num_players = data["num_players"]
    rules = parse_rules(data["rules"], num_players)
    n = num_players
    teams = 2 if n in (4, 6) else n
    team_of = [team_of_seat(n, seat) for seat in range(n)]
    tables = meld_tables(rules)
    seed = data["seed"]
    if (
        seed is not None
        and not isinstance(seed, str)
        and (isinstance(seed, bool) or not isinstance(seed, int))
    ):
        _fail("seed", f"expected an integer, a string or null, got {seed!r}")
    rng = _parse_rng(data["rng"])

    # --- hand and turn position -------------------------------------------------
    hand_index = _int(data["hand_index"], "hand_index")
    first_player = _int(data["first_player"], "first_player", 0, n - 1)
    if first_player != hand_index % n:
        _fail(
            "first_player", f"hand {hand_index} is led by seat {hand_index % n}, not {first_player}"
        )
    current = _int(data["current"], "current", 0, n - 1)
    phase_name = data["phase"]
    if phase_name not in PHASE_NAMES:
        _fail("phase", f"expected one of {list(PHASE_NAMES)}, got {phase_name!r}")
    phase = PHASE_NAMES.index(phase_name)
    num_steps = _int(data["num_steps"], "num_steps")
    scores = _int_list(data["scores"], "scores", teams, low=None)

    # --- cards ------------------------------------------------------------------
    hands = [
        _counts(text, f"hands[{seat}]", holdable=True)
        for seat, text in enumerate(_list(data["hands"], "hands", n))
    ]
    stock = _cards(data["stock"], "stock")
    pot = _cards(data["pot"], "pot")
    pot_hidden = _int(data["pot_hidden"], "pot_hidden")
    if pot_hidden > len(pot):
        _fail("pot_hidden", f"{pot_hidden} face-down cards, but the pot holds {len(pot)} cards")
    pot_wild = _bool(data["pot_wild"], "pot_wild")
    pot_start_frozen = _bool(data["pot_start_frozen"], "pot_start_frozen")
    pot_known = _counts(data["pot_known"], "pot_known")
    if pot_known != cards_to_counts(pot[pot_hidden:]):
        _fail(
            "pot_known",
            f"{cards_text(pot_known)!r} is not the face-up part of the pot "
            f"({cards_text(cards_to_counts(pot[pot_hidden:]))!r})",
        )
    known = [
        _counts(text, f"known[{seat}]", holdable=True)
        for seat, text in enumerate(_list(data["known"], "known", n))
    ]
    if sequences:  # S-19: the suits of the same cards
        hand_suits = [
            _suited_counts(text, f"hands[{seat}]") for seat, text in enumerate(data["hands"])
        ]
        # only naturals keep a suit (the engine's convention: -1 for the other kinds)
        stock_suits = [s if k < NUM_NATURALS else -1 for k, s in _suited(data["stock"], "stock")]
        pot_suits = [s if k < NUM_NATURALS else -1 for k, s in _suited(data["pot"], "pot")]
        escalas = _parse_runs(data[SEQUENCE_FIELD], teams)
    else:
        hand_suits = stock_suits = pot_suits = held_suits = None
        escalas = [[] for _ in range(teams)]

    # --- table ------------------------------------------------------------------
    red3 = _int_list(data["red3"], "red3", teams)
    opened = _bool_list(data["opened"], "opened", teams)
    need = _int_list(data["need"], "need", teams)
    nat = [[0] * NUM_SLOTS for _ in range(teams)]
    two = [[0] * NUM_SLOTS for _ in range(teams)]
    jok = [[0] * NUM_SLOTS for _ in range(teams)]
    for team, table in enumerate(_list(data["melds"], "melds", teams)):
        if not isinstance(table, dict):
            _fail(f"melds[{team}]", "expected a mapping of meld slot to composition")
        for name, value in table.items():
            slot = _slot_of(name, f"melds[{team}]")
            field = f"melds[{team}].{name}"
            meld = _parse_meld(value, field)
            if sum(meld):
                problem = _composition_problem(rules, tables, slot, *meld, closed=False)
                if problem:
                    _fail(field, problem)
            nat[team][slot], two[team][slot], jok[team][slot] = meld
    closed: list[list[tuple]] = []
    for team, canastas in enumerate(_list(data["closed"], "closed", teams)):
        row = []
        for i, value in enumerate(_list(canastas, f"closed[{team}]")):
            field = f"closed[{team}][{i}]"
            _check_keys(value, _CLOSED_KEYS, field)
            slot = _slot_of(value["slot"], f"{field}.slot")
            meld = tuple(_int(value[key], f"{field}.{key}") for key in _MELD_KEYS)
            hidden = _bool(value["hidden"], f"{field}.hidden")
            problem = _composition_problem(rules, tables, slot, *meld, closed=True)
            if problem:
                _fail(field, problem)
            if hidden and sum(meld) != rules.canasta_size:
                _fail(field, f"a hidden canasta is laid in one go as {rules.canasta_size} cards")
            row.append((slot, *meld, hidden))
        closed.append(row)

    # --- turn -------------------------------------------------------------------
    turn = data["turn"]
    _check_keys(turn, TURN_FIELDS, "turn")
    staged = _int(turn["staged"], "turn.staged")
    held = _counts(turn["held"], "turn.held", holdable=True)
    if sequences:
        held_suits = _suited_counts(turn["held"], "turn.held")
    took_pot = _bool(turn["took_pot"], "turn.took_pot")
    clean_only = _bool(turn["clean_only"], "turn.clean_only")
    hidden_open = _bool(turn["hidden_open"], "turn.hidden_open")
    melded_this_turn = _bool(turn["melded_this_turn"], "turn.melded_this_turn")
    opened_at_turn_start = _bool(turn["opened_at_turn_start"], "turn.opened_at_turn_start")
    had_clean = _bool(turn["had_clean_at_turn_start"], "turn.had_clean_at_turn_start")

    # --- hand end and game ------------------------------------------------------
    went_out = data["went_out"]
    if went_out is not None:
        went_out = _int(went_out, "went_out", 0, n - 1)
    concealed = _bool(data["concealed"], "concealed")
    end_reason = data["end_reason"]
    if end_reason is not None and end_reason not in END_REASONS:
        _fail("end_reason", f"expected null or one of {list(END_REASONS)}, got {end_reason!r}")
    hand_scores = data["hand_scores"]
    if hand_scores is not None:
        for team, sheet in enumerate(_list(hand_scores, "hand_scores", teams)):
            field = f"hand_scores[{team}]"
            if not isinstance(sheet, dict) or "total" not in sheet:
                _fail(field, "expected a score sheet mapping with a 'total'")
            for key, value in sheet.items():
                _int(value, f"{field}.{key}", low=None)
        hand_scores = [dict(sheet) for sheet in hand_scores]
    history = []
    for i, entry in enumerate(_list(data["hand_history"], "hand_history")):
        field = f"hand_history[{i}]"
        _check_keys(entry, _HISTORY_KEYS, field)
        if _int(entry["hand"], f"{field}.hand") != i:
            _fail(f"{field}.hand", f"expected hand {i}, got {entry['hand']}")
        if entry["reason"] not in END_REASONS:
            _fail(
                f"{field}.reason", f"expected one of {list(END_REASONS)}, got {entry['reason']!r}"
            )
        totals = _int_list(entry["scores"], f"{field}.scores", teams, low=None)
        history.append({"hand": i, "reason": entry["reason"], "scores": totals})
    game_over = _bool(data["game_over"], "game_over")
    winner_team = data["winner_team"]
    if winner_team is not None:
        winner_team = _int(winner_team, "winner_team", 0, teams - 1)

    # --- consistency --------------------------------------------------------------
    expected = deck_counts(rules.decks_for(n), rules.jokers_per_deck)
    counted = cards_to_counts(stock + pot)
    counted[RED3] += sum(red3)
    for counts in hands + [held]:
        for kind in range(NUM_KINDS):
            counted[kind] += counts[kind]
    for team in range(teams):
        melds = [(s, nat[team][s], two[team][s], jok[team][s]) for s in range(NUM_SLOTS)]
        for slot, naturals, twos, jokers in melds + [c[:4] for c in closed[team]]:
            if slot < NUM_NATURALS or slot == SLOT_BLACK3:
                counted[BLACK3 if slot == SLOT_BLACK3 else slot] += naturals
            counted[TWO] += twos
            counted[JOKER] += jokers
    for team in range(teams):
        for _suit, start, length in escalas[team]:
            for rank in range(start, start + length):
                counted[rank] += 1
    for kind in range(NUM_KINDS):
        if counted[kind] != expected[kind]:
            raise ValueError(
                f"invalid state: card conservation violated for {KIND_NAMES[kind]!r}: "
                f"{counted[kind]} in stock + pot + hands + held + melds + closed canastas + "
                f"red 3s, but the {rules.name} deck for {n} players holds {expected[kind]}"
            )

    if PUBLIC_HISTORY_FIELD in data:
        public_history = _parse_public_history(data[PUBLIC_HISTORY_FIELD], n, expected)
    else:  # saved before the field existed: no history to reconstruct, zeros
        public_history = {
            key: [[0] * NUM_HAND_KINDS for _ in range(n)] for key in PUBLIC_HISTORY_KEYS
        }

    if sequences:
        # S-19: suits are followed in hands, stock, pot, held cards and runs (melds keep
        # no suits), so no natural of one suit may show up more often than the decks hold
        seen = [0] * SUITED_SIZE
        for counts in hand_suits + [held_suits]:
            for index, count in enumerate(counts):
                seen[index] += count
        for kind, suit in zip(stock + pot, stock_suits + pot_suits):
            if kind < NUM_NATURALS:
                seen[kind * NUM_SUITS + suit] += 1
        for team in range(teams):
            if escalas[team] and not opened[team]:
                _fail(f"{SEQUENCE_FIELD}[{team}]", f"team {team} has runs but has not opened")
            for suit, start, length in escalas[team]:
                for rank in range(start, start + length):
                    seen[rank * NUM_SUITS + suit] += 1
        decks = rules.decks_for(n)
        for index, count in enumerate(seen):
            if count > decks:
                kind, suit = divmod(index, NUM_SUITS)
                raise ValueError(
                    f"invalid state: {count} {suited_code(kind, suit)} in stock + pot + hands + "
                    f"held + runs, but the {rules.name} deck for {n} players holds {decks}"
                )

    hand_over = phase == PHASE_HAND_OVER
    if hand_over:
        if end_reason is None:
            _fail("end_reason", "the phase is 'hand over' but no end_reason is given")
        if hand_scores is None:
            _fail("hand_scores", "the phase is 'hand over' but no hand_scores are given")
    else:
        for field, value in (
            ("end_reason", end_reason),
            ("hand_scores", hand_scores),
            ("went_out", went_out),
        ):
            if value is not None:
                _fail(field, f"must be null while the hand is in the {phase_name} phase")
        if concealed:
            _fail("concealed", f"must be false while the hand is in the {phase_name} phase")
        if game_over:
            _fail("game_over", f"the game cannot be over in the {phase_name} phase")
    if (went_out is not None) != (end_reason == END_WENT_OUT):
        _fail("went_out", f"a player went out exactly when end_reason is {END_WENT_OUT!r}")
    if concealed and went_out is None:
        _fail("concealed", "only a player who went out can go out concealed")
    if went_out is not None:
        if sum(hands[went_out]):
            _fail("went_out", f"seat {went_out} went out but holds {cards_text(hands[went_out])}")
        if not opened[team_of[went_out]]:
            _fail("went_out", f"seat {went_out} went out but the team has not opened")
    if len(history) != hand_index + hand_over:
        _fail(
            "hand_history",
            f"expected {hand_index + hand_over} finished hand(s) at hand {hand_index} in the "
            f"{phase_name} phase, got {len(history)}",
        )
    totals = [sum(entry["scores"][team] for entry in history) for team in range(teams)]
    if totals != scores:
        _fail("scores", f"{scores} are not the sums of hand_history ({totals})")
    if hand_over:
        last = history[-1]
        if last["reason"] != end_reason or last["scores"] != [s["total"] for s in hand_scores]:
            _fail("hand_history", "the last entry disagrees with end_reason and hand_scores")
        ends_game = end_reason == END_BLACK3 or max(scores) >= rules.target_score
        if game_over != ends_game:
            _fail("game_over", f"must be {str(ends_game).lower()} for these scores and end_reason")
    if winner_team is not None and not game_over:
        _fail("winner_team", "a winner is named but the game is not over")
    before = [sum(entry["scores"][team] for entry in history[:hand_index]) for team in range(teams)]
    want = [rules.opening_minimum(score) for score in before]
    if need != want:
        _fail("need", f"the opening minimums for scores {before} are {want}, not {need}")

    team_now = team_of[current]
    if phase == PHASE_DRAW:
        fresh = {
            "staged": staged == 0,
            "held": not any(held),
            "took_pot": not took_pot,
            "hidden_open": not hidden_open,
            "melded_this_turn": not melded_this_turn,
            "opened_at_turn_start": opened_at_turn_start == opened[team_now],
            "clean_only": clean_only
            == (not opened[team_now] and need[team_now] <= rules.clean_opening_max_minimum),
            # kept only where S-15 reads it (Game._begin_turn)
            "had_clean_at_turn_start": had_clean
            == (
                rules.no_go_out_on_first_clean_turn
                and canasta_summary(
                    rules, nat[team_now], two[team_now], jok[team_now], closed[team_now]
                )[1]
                > 0
            ),
        }
        for name, ok in fresh.items():
            if not ok:
                _fail(f"turn.{name}", "disagrees with the start of a turn (draw phase)")
    if any(held) and not (took_pot and not opened[team_now]):
        _fail("turn.held", "cards are held back only after an unopened team took the pot")
    if opened_at_turn_start and not opened[team_now]:
        _fail("turn.opened_at_turn_start", f"team {team_now} has not opened")
    for team in range(teams):
        staging = team == team_now and phase != PHASE_DRAW
        has_melds = any(nat[team]) or any(two[team]) or any(jok[team]) or closed[team]
        if has_melds and not opened[team] and not staging and not hand_over:
            _fail(f"melds[{team}]", f"team {team} has melds but has not opened")
    for seat in range(n):
        limit = [hands[seat][k] + (held[k] if seat == current else 0) for k in range(NUM_KINDS)]
        if any(known[seat][k] > limit[k] for k in range(NUM_KINDS)):
            _fail(
                f"known[{seat}]",
                f"{cards_text(known[seat])!r} are not all in the hand {cards_text(hands[seat])!r}",
            )

    # --- build --------------------------------------------------------------------
    game = object.__new__(Game)
    game.rules = rules
    game.num_players = n
    game.num_teams = teams
    game.team_of = team_of
    game.tables = tables
    game.search = TurnSearch(game)
    game.seed = seed
    game.rng = rng
    game.scores = scores
    game.hand_index = hand_index
    game.game_over = game_over
    game.winner_team = winner_team
    game.hand_history = history
    game.stock = stock[::-1]  # the engine pops from the end
    game.stock_suits = None if stock_suits is None else stock_suits[::-1]
    game.pot_suits = pot_suits
    game.hand_suits = hand_suits
    game.held_suits = held_suits
    game.escalas = escalas
    game.first_player = first_player
    game.hands = hands
    game.hand_totals = [sum(hand) for hand in hands]
    game.known = known
    game.red3 = red3
    game.opened = opened
    game.need = need
    game.nat = nat
    game.two = two
    game.jok = jok
    game.closed = closed
    game.went_out = went_out
    game.concealed = concealed
    game.end_reason = end_reason
    game.hand_scores = hand_scores
    game.phase = phase
    game.num_steps = num_steps
    game.pot = pot
    game.pot_known = pot_known
    game.pot_hidden = pot_hidden
    game.pot_wild = pot_wild
    game.pot_start_frozen = pot_start_frozen
    game.current = current
    game.staged = staged
    game.held = held
    game.took_pot = took_pot
    game.hidden_open = hidden_open
    game.melded_this_turn = melded_this_turn
    game.opened_at_turn_start = opened_at_turn_start
    game.clean_only = clean_only
    game.had_clean_at_turn_start = had_clean
    game._legal = None
    game._legal_moves = {}
    game.discarded = public_history["discarded"]
    game.declined = public_history["declined"]
    game.since_discard = public_history["since_discard"]
    if require_playable and not hand_over and not game.legal_actions():
        _fail(
            "phase",
            f"the hand is not over, but seat {current} has no legal action in the {phase_name} "
            "phase",
        )
    return game


def state_from_json(text: str | bytes, *, require_playable: bool = False) -> Game:
    """Parse JSON text and :func:`state_from_dict` it."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"invalid state: not valid JSON ({error})") from None
    return state_from_dict(data, require_playable=require_playable)


def load_state(path: str | Path, *, require_playable: bool = False) -> Game:
    """Read a state saved by :func:`save_state`."""
    return state_from_json(
        Path(path).read_text(encoding="utf-8"), require_playable=require_playable
    )


__all__ = [
    "STATE_FORMAT",
    "STATE_VERSION",
    "state_to_dict",
    "state_from_dict",
    "state_to_json",
    "state_from_json",
    "save_state",
    "load_state",
    "parse_rules",
    "rules_to_dict",
    "cards_text",
    "jsonable",
    "pretty_json",
]
