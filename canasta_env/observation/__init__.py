"""The observation: one fixed-shape float32 vector from the acting player's view.

Four modules, each with its own reason to change, dependent one way (layout <- arrays,
layout and arrays <- builder, reader):

* :mod:`canasta_env.observation.layout`: the declaration (:data:`LAYOUT`: blocks of named
  fields, their sizes and scales), the sizes and offsets that follow from it
  (:data:`OBS_SIZE`, :data:`OFFSETS`, ...) and, in its docstring, the table of blocks; plain
  Python, which the compiled core's build reads;
* :mod:`canasta_env.observation.arrays`: the same as numpy arrays (:data:`SCALES`, ...);
* :mod:`canasta_env.observation.builder`: :class:`ObservationBuilder`, which writes a
  player's vector from a game;
* :mod:`canasta_env.observation.reader`: :func:`decode_view` and :func:`decode`, which read a
  vector back into named parts.

``docs/observation.md`` gives every field's entries, scale, index order and meaning. The
names are imported from here (``from canasta_env.observation import OBS_SIZE``).
"""

from canasta_env.observation.arrays import BIG_INDICES, HIGHS, LOWS, SCALES, SCORE_INDICES
from canasta_env.observation.builder import ObservationBuilder
from canasta_env.observation.layout import (
    BLOCKS,
    COUNTS,
    FLAG,
    FLAGS,
    HISTORY_SEAT_SIZE,
    HISTORY_SIZE,
    LAYOUT,
    MAX_PLAYERS,
    MAX_TEAMS,
    NO_CARD,
    NUMBER,
    OBS_SIZE,
    OBS_SIZE_V0,
    OBS_SIZE_V1,
    OFFSETS,
    ONE_HOT,
    PER_SEAT,
    PER_TEAM,
    PLAYER_SIZE,
    QUARTER,
    SEQUENCE_SIZE,
    TARGET_INDEX,
    TEAM_SIZE,
    Block,
    Field,
    Group,
    Layout,
    Span,
)
from canasta_env.observation.reader import (
    ObservationView,
    PlayerView,
    RunsView,
    SeatHistoryView,
    TeamView,
    decode,
    decode_view,
)

__all__ = [
    "BIG_INDICES",
    "HIGHS",
    "LOWS",
    "BLOCKS",
    "COUNTS",
    "FLAG",
    "FLAGS",
    "HISTORY_SEAT_SIZE",
    "HISTORY_SIZE",
    "LAYOUT",
    "MAX_PLAYERS",
    "MAX_TEAMS",
    "NO_CARD",
    "NUMBER",
    "OBS_SIZE",
    "OBS_SIZE_V0",
    "OBS_SIZE_V1",
    "OFFSETS",
    "ONE_HOT",
    "PER_SEAT",
    "PER_TEAM",
    "PLAYER_SIZE",
    "QUARTER",
    "SCALES",
    "SCORE_INDICES",
    "SEQUENCE_SIZE",
    "TARGET_INDEX",
    "TEAM_SIZE",
    "Block",
    "Field",
    "Group",
    "Layout",
    "ObservationBuilder",
    "ObservationView",
    "PlayerView",
    "RunsView",
    "SeatHistoryView",
    "Span",
    "TeamView",
    "decode",
    "decode_view",
]
