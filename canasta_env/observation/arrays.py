"""The layout's numbers as numpy arrays, for the builder and the reader.

:mod:`canasta_env.observation.layout` declares the layout in plain Python (the compiled
core's build reads it without numpy); these follow from it.
"""

from __future__ import annotations

import numpy as np

from canasta_env.observation.layout import LAYOUT, MAX_TEAMS

#: Each entry's scale (float32), in vector order.
SCALES = np.asarray(
    [span.field.scale for span in LAYOUT.spans for _ in range(span.field.size)], dtype=np.float32
)
#: Each entry's least and largest value (float32), in vector order: the observation
#: space's ``low`` and ``high``. Each is the bound times the scale in float32, as the
#: builder computes an entry, so that no entry rounds past its bound.
LOWS, HIGHS = (
    np.asarray(
        [span.field.value_range[end] for span in LAYOUT.spans for _ in range(span.field.size)],
        dtype=np.float32,
    )
    * SCALES
    for end in (0, 1)
)
#: Every entry of a ``big`` field: the builder writes these as numbers when they do not
#: fit a byte (scores can be negative; the pot, the stock, the steps and hand sizes large).
BIG_INDICES = np.asarray([span.start for span in LAYOUT.spans if span.field.big], dtype=np.intp)
#: Team scores by team offset.
SCORE_INDICES = np.asarray(
    [LAYOUT.span("teams.score", team).start for team in range(MAX_TEAMS)], dtype=np.intp
)
