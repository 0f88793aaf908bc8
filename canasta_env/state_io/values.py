"""Values read from a file, one at a time: JSON text, numbers, flags, card codes.

Each helper takes a value from the file and the name of its field, and returns
a plain Python value or raises ``ValueError`` ("invalid state: field 'x': ...").
A value from the file is only ever printed through :func:`show`, so that a huge
number, a long text or a deep nesting cannot break or flood the message. Shared
by the state reader and the replay reader (``what`` names the kind of file).
"""

from __future__ import annotations

import json
import math
import reprlib
from collections.abc import Callable
from typing import Any, NoReturn

from canasta_env.cards import NUM_NATURALS, cards_to_counts, parse_cards, parse_suited
from canasta_env.engine.sequences import NUM_SUITS, SUITED_SIZE
from canasta_env.rules import MAX_COUNT, MAX_SCORE
from canasta_env.state_io.layout import MAX_DIGITS

_LONGEST_CODE = len("JOKER")  # the longest spelling canasta_env.cards reads
_MOST_DIGITS_SHOWN = 30  # longer integers are shown by their length


# ---------------------------------------------------------------------- messages
def fail(field: str, problem: str, what: str = "state") -> NoReturn:
    raise ValueError(f"invalid {what}: field {field!r}: {problem}")


def digits(value: int) -> int:
    """How many decimal digits ``value`` has, without turning it into text."""
    value = abs(value)
    # 2**(bits - 1) <= value < 2**bits: the estimate from below is short by one at most
    estimate = int(max(value.bit_length() - 1, 0) * math.log10(2)) + 1
    return estimate + (value >= 10**estimate)


class _ShortRepr(reprlib.Repr):
    """``repr`` cut short: a few entries of a list, a few levels, no giant integers."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxlist = self.maxtuple = 6
        self.maxdict = 4
        self.maxstring = self.maxother = 40

    def repr_int(self, x: int, level: int) -> str:
        if abs(x) < 10**_MOST_DIGITS_SHOWN:
            return repr(x)
        return f"an integer of {digits(x)} digits"


_SHORT_REPR = _ShortRepr()


def show(value: Any) -> str:
    """A short, always printable text of a value read from a file."""
    return _SHORT_REPR.repr(value)


def names(keys: list[Any], most: int = 10) -> str:
    """``['a', 'b']`` for field names read from a file, at most ``most`` of them."""
    shown = ", ".join(show(key) for key in keys[:most])
    more = f", and {len(keys) - most} more" if len(keys) > most else ""
    return f"[{shown}{more}]"


# ---------------------------------------------------------------------- JSON
def _json_int(text: str) -> int:
    # Python refuses longer digit strings with advice about sys.set_int_max_str_digits()
    # that does not help the reader of a file
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def _json_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def _json_object(pairs: list[tuple[str, Any]]) -> dict:
    data = {}
    for key, value in pairs:
        if key in data:
            raise ValueError(f"duplicate key {show(key)} in one object")
        data[key] = value
    return data


def read_json(text: str | bytes, what: str = "state") -> Any:
    """JSON text (``str``, or ``bytes`` in UTF-8, -16 or -32) to Python values.

    Stricter than ``json.loads``: a key given twice in one object, ``NaN`` and
    ``Infinity`` are refused. Every problem, undecodable bytes and nesting too
    deep for Python included, raises ``ValueError`` ("invalid <what>: ...").
    """
    try:
        return json.loads(
            text,
            object_pairs_hook=_json_object,
            parse_int=_json_int,
            parse_constant=_json_constant,
        )
    except UnicodeDecodeError as error:
        problem = f"the bytes are not UTF-8, UTF-16 or UTF-32 text ({error.reason})"
    except RecursionError:
        problem = "nested too deeply"
    except ValueError as error:  # json.JSONDecodeError and the hooks above
        problem = str(error)
    raise ValueError(f"invalid {what}: not valid JSON ({problem})")


# ---------------------------------------------------------------------- one value
def check_keys(data: Any, expected: tuple[str, ...], field: str, what: str = "state") -> None:
    """``data`` is a mapping with exactly the ``expected`` keys."""
    where = f"invalid {what}: " if field == what else f"invalid {what}: field {field!r}: "
    if not isinstance(data, dict):
        raise ValueError(f"{where}expected a mapping, got {type(data).__name__}")
    missing = [key for key in expected if key not in data]
    extra = sorted((key for key in data if key not in expected), key=show)
    if missing:
        raise ValueError(f"{where}missing field(s) {missing}")
    if extra:
        raise ValueError(f"{where}unknown field(s) {names(extra)}")


def parse_int(value: Any, field: str, low: int = 0, high: int = MAX_COUNT) -> int:
    """An integer in ``low..high``; a count (the default) at most the core's ``MAX_COUNT``."""
    if isinstance(value, bool) or not isinstance(value, int):
        fail(field, f"expected an integer, got {show(value)}")
    if value < low:
        if low == 0:
            fail(field, f"must not be negative, got {show(value)}")
        fail(field, f"must be at least {low}, got {show(value)}")
    if value > high:
        fail(field, f"must be at most {high}, got {show(value)}")
    return value


def parse_score(value: Any, field: str) -> int:
    """A score: any sign, at most ``MAX_SCORE`` either way (both engines' bound)."""
    return parse_int(value, field, -MAX_SCORE, MAX_SCORE)


def parse_bool(value: Any, field: str) -> bool:
    if not isinstance(value, bool):
        fail(field, f"expected true or false, got {show(value)}")
    return value


def parse_str(value: Any, field: str) -> str:
    if not isinstance(value, str):
        fail(field, f"expected a string, got {show(value)}")
    return value


def parse_list(value: Any, field: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        fail(field, f"expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        fail(field, f"expected {length} entries, got {len(value)}")
    return value


def parse_int_list(value: Any, field: str, length: int, low: int = 0) -> list[int]:
    items = parse_list(value, field, length)
    return [parse_int(item, f"{field}[{i}]", low) for i, item in enumerate(items)]


def parse_bool_list(value: Any, field: str, length: int) -> list[bool]:
    items = parse_list(value, field, length)
    return [parse_bool(item, f"{field}[{i}]") for i, item in enumerate(items)]


def check_code_lengths(codes: list[str], field: str, what: str = "state") -> None:
    """Refuse a long word before the card parser quotes it whole in its message."""
    for code in codes:
        if len(code) > _LONGEST_CODE:
            problem = f"not a card code: {show(code)} (expected e.g. 'AS', 'TH', '2C', 'JK')"
            fail(field, problem, what)


def _parse_codes(value: Any, field: str, parser: Callable[[str], list]) -> list:
    """Card codes (one string, space separated) read by ``parser``, errors naming ``field``."""
    text = parse_str(value, field)
    check_code_lengths(text.split(), field)
    try:
        return parser(text)
    except ValueError as error:
        fail(field, str(error))


def parse_kinds(value: Any, field: str) -> list[int]:
    """Card codes (one string, space separated) to kinds, in order."""
    return _parse_codes(value, field, parse_cards)


def parse_counts(value: Any, field: str) -> list[int]:
    """Card codes to one count per kind."""
    return cards_to_counts(parse_kinds(value, field))


def parse_suited_pairs(value: Any, field: str) -> list[tuple[int, int]]:
    """Card codes to ``(kind, suit)`` pairs, in order (S-19 states)."""
    return _parse_codes(value, field, parse_suited)


def parse_suited_counts(value: Any, field: str) -> list[int]:
    """The naturals of a card list counted per ``kind * 4 + suit`` (S-19 states)."""
    counts = [0] * SUITED_SIZE
    for kind, suit in parse_suited_pairs(value, field):
        if kind < NUM_NATURALS:
            counts[kind * NUM_SUITS + suit] += 1
    return counts


def parse_suit_list(value: Any, field: str) -> list[int]:
    """The suit of each card in order (S-19); -1 for the kinds that keep none."""
    return [suit if kind < NUM_NATURALS else -1 for kind, suit in parse_suited_pairs(value, field)]


def parse_choice(
    value: Any, field: str, allowed: tuple[str, ...], null: bool = False
) -> str | None:
    if null and value is None:
        return None
    if not isinstance(value, str) or value not in allowed:
        choices = f"null or one of {list(allowed)}" if null else f"one of {list(allowed)}"
        fail(field, f"expected {choices}, got {show(value)}")
    return value
