"""Reading an observation back: :func:`decode_view` into named, unscaled fields (an
:class:`ObservationView`), :func:`decode` into its blocks.

Both read by :data:`~canasta_env.observation.layout.LAYOUT`, the declaration the builder
writes by; the views' fields are checked against it when this module loads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from operator import itemgetter

import numpy as np

from canasta_env.engine.game import teams_of
from canasta_env.observation.arrays import SCALES
from canasta_env.observation.layout import (
    BLOCKS,
    FLAG,
    FLAGS,
    LAYOUT,
    NUMBER,
    OFFSETS,
    ONE_HOT,
    PER_SEAT,
    PER_TEAM,
    Field,
    Group,
)


def decode(observation: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named blocks, unscaled (arrays, for tests)."""
    raw = np.asarray(observation, dtype=np.float64) / SCALES
    return {name: raw[OFFSETS[name] : OFFSETS[name] + size] for name, size in BLOCKS}


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
_READ_NUM_PLAYERS = _one_hot(_NUM_PLAYERS.field.values)


def decode_view(observation: np.ndarray, num_players: int | None = None) -> ObservationView:
    """Read an observation vector back into an :class:`ObservationView`.

    ``num_players`` defaults to the player count the observation shows.
    """
    entries = np.rint(np.asarray(observation, dtype=np.float64) / SCALES).astype(np.int64).tolist()
    if num_players is None:
        num_players = _READ_NUM_PLAYERS(entries[_NUM_PLAYERS.start : _NUM_PLAYERS.stop])
        if num_players not in _NUM_PLAYERS.field.values:
            raise ValueError("not an observation: it shows no player count")
    copies = {PER_TEAM: teams_of(num_players), PER_SEAT: num_players}
    return ObservationView(*_READER.read(entries, copies))
