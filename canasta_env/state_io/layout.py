"""The names of the state file format: its tag and version, its fields, its limits.

Reading (:mod:`~canasta_env.state_io.parse`) and writing
(:mod:`~canasta_env.state_io.encode`) both spell the format with these names, so
a field is renamed in one place. ``docs/state_format.md`` describes every field.
"""

from __future__ import annotations

from canasta_env.actions import NUM_SLOTS, slot_name

STATE_FORMAT = "canasta-env/state"
#: Bumped when a field is added or changes meaning; older versions keep loading.
STATE_VERSION = 1

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
#: The top-level fields of a state file (the engine's own list is engine.state.STATE_FIELDS).
FILE_FIELDS = (
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
MELD_KEYS = ("naturals", "twos", "jokers")
CLOSED_KEYS = ("slot", "naturals", "twos", "jokers", "hidden")
HISTORY_KEYS = ("hand", "reason", "scores")
RNG_KEYS = ("version", "internal", "gauss_next")

#: The largest integer a state holds (the seed aside): the largest that every JSON
#: reader keeps exact, far above any score or count a game reaches. Bounding numbers
#: here keeps every error message short and every count cheap to work with.
MAX_INT = 2**53 - 1
#: The most digits Python turns an integer into text or back by default (``sys.int_info``):
#: a longer one could be neither read from a file nor written to one.
MAX_DIGITS = 4300
#: The largest state file :func:`~canasta_env.state_io.decode.load_state` reads (a state is
#: some 13 KB, plus about 100 bytes per finished hand of ``hand_history``).
MAX_STATE_BYTES = 64 * 2**20
