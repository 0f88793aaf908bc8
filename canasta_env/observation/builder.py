"""Building the observation: :class:`ObservationBuilder` writes one player's float32
vector from a game, every field by its name at the place
:data:`~canasta_env.observation.layout.LAYOUT` gives it (the fields and their meanings:
:mod:`canasta_env.observation.layout`, ``docs/observation.md``).
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from canasta_env.actions import NUM_SLOTS
from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS, NUM_NATURALS
from canasta_env.engine.game import PHASE_DRAW, PHASE_MELD, Game
from canasta_env.engine.melds import canasta_kind
from canasta_env.observation.arrays import SCALES, SCORE_INDICES
from canasta_env.observation.layout import (
    HISTORY_SEAT_SIZE,
    LAYOUT,
    MAX_PLAYERS,
    MAX_TEAMS,
    OBS_SIZE,
    OFFSETS,
    TARGET_INDEX,
    TEAM_SIZE,
    Field,
)


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
