"""Saved states: a whole game as readable, versioned JSON, checked on loading.

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
the problem; a failed load builds nothing. The modules:

* ``layout``: the format's tag, version, field names and limits;
* ``encode``: a game to a dict and to JSON text (:func:`state_to_dict`);
* ``parse``: JSON text to plain values, each field checked on its own;
* ``checks``: the named checks the fields must pass together (``CHECKS``);
* ``decode``: parse, check, then build the game in one function (``_assemble``).
"""

from canasta_env.state_io.decode import load_state, state_from_dict, state_from_json
from canasta_env.state_io.encode import (
    cards_text,
    jsonable,
    pretty_json,
    rules_to_dict,
    save_state,
    state_to_dict,
    state_to_json,
)
from canasta_env.state_io.layout import (
    PUBLIC_HISTORY_FIELD,
    SEQUENCE_FIELD,
    STATE_FORMAT,
    STATE_VERSION,
)
from canasta_env.state_io.rules_field import parse_rules
from canasta_env.state_io.values import read_json

__all__ = [
    "STATE_FORMAT",
    "STATE_VERSION",
    "SEQUENCE_FIELD",
    "PUBLIC_HISTORY_FIELD",
    "state_to_dict",
    "state_from_dict",
    "state_to_json",
    "state_from_json",
    "save_state",
    "load_state",
    "parse_rules",
    "read_json",
    "rules_to_dict",
    "cards_text",
    "jsonable",
    "pretty_json",
]
