"""The observation: one fixed-shape float32 vector from the acting player's view.

The layout is the same for every preset and every player count: teams and
players are padded to the largest table (3 teams of one with 3 players, 6
players with 6) and ordered from the viewer: own team first, then the teams
that play next; own seat first, then the seats that play next. Counts are
scaled so that typical values lie in [0, 2]; the scale of each block is in the
table. Nothing hidden is encoded: other hands appear only as their sizes and
the cards known to be in them from pot takes (G-8); the stock only as its
size; face-down pot cards only as their number.

=======================  ====  =====  =============================================
block                    size  scale  contents
=======================  ====  =====  =============================================
hand                      14   1/4    own hand, count per holdable kind
held                      14   1/4    pot cards set aside until the opening is met
pot top                   16   1      one-hot kind of the top card (15) + empty
pot state                  6   mixed  size /20, face-down /10, frozen, crossed,
                                      blocked (top is a black 3 or wild), frozen
                                      for the viewer (C-9 unopened team)
pot known                 15   1/4    public pot cards per kind (discards seen)
teams (3 x 86)           258   mixed  per team, each a list over the 13 slots
                                      (ranks 4..A, black 3, wild): naturals /4,
                                      2s /4, jokers /4, open meld is a canasta,
                                      closed clean canastas /4, closed dirty /4
                                      (6 x 13 = 78); then present, red 3s /4,
                                      opened, opening minimum /100, score /5000,
                                      canastas /4, clean /4, dirty /4 (8)
players (6 x 17)         102   mixed  per seat: present, teammate, hand size /15,
                                      known cards per kind /4 (14)
turn                      11   mixed  phase draw, phase meld, staged points /100,
                                      points still needed /100, took the pot,
                                      clean opening required, may go out now,
                                      opened this turn (hidden canasta), stock
                                      /100, stock too small to draw, steps /500
table                     13   mixed  players one-hot (2, 3, 4, 6), hand number
                                      /10, draw count /2, melds close at 7, wild
                                      melds, black-3 melds, going out needs clean
                                      and dirty, 3 naturals to take a frozen pot,
                                      wild crosses pot, target /10000
sequences                 55   mixed  S-19 runs, all 0 unless ``sequences`` is on:
                                      own naturals per rank and suit /4 (11 x 4,
                                      rank-major, suits S H D C), suit one-hot of
                                      a natural pot top (4), runs laid per team
                                      from the viewer: escalas /4, escalas reales
                                      /4 (3 x 2), rule on (1)
history (6 x 28 + 14)    182   1/4    public history of the current hand, per seat
                                      from the viewer as in ``players``: cards
                                      discarded per holdable kind (14), plain
                                      draws made while the pot's top card was of
                                      that kind, i.e. pot tops declined (14); then
                                      the cards the other seats discarded since the
                                      viewer's own last discard (since the deal if
                                      none), per kind (14)
=======================  ====  =====  =============================================

Total: 14 + 14 + 16 + 6 + 15 + 258 + 102 + 11 + 13 + 55 + 182 = 686 (``OBS_SIZE``).

The layout only grows at its end. The first 449 entries are the layout of
version 0.1 (before S-19 runs), so a policy trained on it reads
``observation[:449]``; the first 504 are the layout before the history block
(``OBS_SIZE_V1``).
"""

from __future__ import annotations

from operator import itemgetter

import numpy as np

from canasta_env.cards import NUM_HAND_KINDS, NUM_KINDS, NUM_NATURALS
from canasta_env.engine.game import PHASE_DRAW, PHASE_MELD, Game
from canasta_env.engine.sequences import NUM_SUITS, SUITED_SIZE

MAX_TEAMS = 3
MAX_PLAYERS = 6
NUM_SLOTS = 13
TEAM_SIZE = NUM_SLOTS * 4 + NUM_SLOTS * 2 + 8  # 86
PLAYER_SIZE = 3 + NUM_HAND_KINDS  # 17
SEQUENCE_SIZE = SUITED_SIZE + NUM_SUITS + MAX_TEAMS * 2 + 1  # 55
HISTORY_SEAT_SIZE = NUM_HAND_KINDS * 2  # discarded, declined: 28
HISTORY_SIZE = MAX_PLAYERS * HISTORY_SEAT_SIZE + NUM_HAND_KINDS  # 182
#: Size of the layout before the S-19 block (what version 0.1 policies read).
OBS_SIZE_V0 = 449
#: Size of the layout before the history block (S-19 runs included).
OBS_SIZE_V1 = 504

BLOCKS = (
    ("hand", NUM_HAND_KINDS),
    ("held", NUM_HAND_KINDS),
    ("pot_top", NUM_KINDS + 1),
    ("pot_state", 6),
    ("pot_known", NUM_KINDS),
    ("teams", MAX_TEAMS * TEAM_SIZE),
    ("players", MAX_PLAYERS * PLAYER_SIZE),
    ("turn", 11),
    ("table", 13),
    ("sequences", SEQUENCE_SIZE),
    ("history", HISTORY_SIZE),
)
OBS_SIZE = sum(size for _, size in BLOCKS)
assert OBS_SIZE == 686
assert OBS_SIZE - HISTORY_SIZE == OBS_SIZE_V1

#: Offset of each block in the vector.
OFFSETS: dict[str, int] = {}
_offset = 0
for _name, _size in BLOCKS:
    OFFSETS[_name] = _offset
    _offset += _size


def _scales() -> np.ndarray:
    q = 0.25
    scale: list[float] = [q] * NUM_HAND_KINDS * 2 + [1.0] * (NUM_KINDS + 1)
    scale += [1 / 20, 1 / 10, 1, 1, 1, 1] + [q] * NUM_KINDS
    team = [q] * (NUM_SLOTS * 3) + [1.0] * NUM_SLOTS + [q] * (NUM_SLOTS * 2)
    team += [1, q, 1, 1 / 100, 1 / 5000, q, q, q]
    scale += team * MAX_TEAMS
    scale += ([1, 1, 1 / 15] + [q] * NUM_HAND_KINDS) * MAX_PLAYERS
    scale += [1, 1, 1 / 100, 1 / 100, 1, 1, 1, 1, 1 / 100, 1, 1 / 500]
    scale += [1, 1, 1, 1, 1 / 10, 1 / 2, 1, 1, 1, 1, 1, 1, 1 / 10000]
    scale += [q] * SUITED_SIZE + [1] * NUM_SUITS + [q] * (MAX_TEAMS * 2) + [1]
    scale += [q] * HISTORY_SIZE
    assert len(scale) == OBS_SIZE
    return np.asarray(scale, dtype=np.float32)


SCALES = _scales()
_PLAYER_ONE_HOT = {2: [1, 0, 0, 0], 3: [0, 1, 0, 0], 4: [0, 0, 1, 0], 6: [0, 0, 0, 1]}
_EMPTY_TEAM = bytes(TEAM_SIZE)
_EMPTY_PLAYER = [0] * PLAYER_SIZE
#: One-hot pot top by kind; index NUM_KINDS is the empty pot.
_ONE_HOT = [[1 if i == k else 0 for i in range(NUM_KINDS + 1)] for k in range(NUM_KINDS + 1)]


def _big_indices() -> np.ndarray:
    """Fields that may exceed a byte or be negative, in index order."""
    indices = [OFFSETS["pot_state"]]
    indices += [OFFSETS["teams"] + t * TEAM_SIZE + NUM_SLOTS * 6 + 4 for t in range(MAX_TEAMS)]
    indices += [OFFSETS["players"] + p * PLAYER_SIZE + 2 for p in range(MAX_PLAYERS)]
    indices += [OFFSETS["turn"] + 2, OFFSETS["turn"] + 8, OFFSETS["turn"] + 10]
    indices += [OFFSETS["table"] + 12]
    return np.asarray(indices, dtype=np.intp)


#: Indices written from a separate list (scores can be negative; stock, steps, sizes large).
BIG_INDICES = _big_indices()
#: Team scores by team offset, and the target score.
SCORE_INDICES = BIG_INDICES[1 : 1 + MAX_TEAMS]
TARGET_INDEX = int(BIG_INDICES[-1])
#: Positions of the big fields inside the head bytes, a player block and the turn block.
_POT_SIZE_AT = OFFSETS["pot_state"]
_SIZE_AT = 2
_TURN_BIG_AT = (2, 8, 10)


class ObservationBuilder:
    """Builds observations for one game; caches what never changes in a game.

    Counts are packed as bytes and scaled in one numpy operation. The team
    blocks are cached until the engine bumps a ``table_version``, the player
    blocks until a player's known cards change, the history block per viewer
    until the engine bumps its ``history_version``, the table block per hand. The
    fields in ``BIG_INDICES`` go in as bytes when they fit; otherwise (and for
    non-zero scores) they are written as numbers before scaling. The constant
    target is folded into the builder's scales.
    """

    def __init__(self, game: Game):
        self.game = game
        rules = game.rules
        self.table_tail = [
            rules.draw_count,
            1 if rules.meld_closes_at else 0,
            1 if rules.wild_melds else 0,
            1 if rules.black3_melds else 0,
            1 if rules.go_out_needs_clean_and_dirty else 0,
            1 if rules.take_naturals_frozen >= 3 else 0,
            1 if rules.wild_crosses_pot else 0,
            1,  # target score: a big field, scaled by the builder's own scales (below)
        ]
        self.target = rules.target_score
        self.canasta_size = rules.canasta_size
        self.draw_count = rules.draw_count
        self.frozen_for_unopened = bool(rules.frozen_for_unopened)
        # pot state (wild and not crossing, wild and crossing) by ``pot_wild``
        self.wild_flags = {
            False: (0, 0),
            True: (0, 1) if rules.wild_crosses_pot else (1, 0),
        }
        self._team_cache: dict[int, tuple] = {}
        players = game.num_players
        teams = game.num_teams
        self.team_of = game.team_of
        # per viewer's team: the teams from it on, their scores' getter and the cached bytes
        self.team_order = [
            [(team + offset) % teams for offset in range(teams)] for team in range(teams)
        ]
        self.score_getters = [itemgetter(*order) for order in self.team_order]
        self.padding_teams = _EMPTY_TEAM * (MAX_TEAMS - teams)
        self.padding_scores = (0,) * (MAX_TEAMS - teams)
        self._teams_cache: list = [None] * teams
        # per viewer: the seats from the viewer on, each with (present, teammate, size)
        self.seat_order = [
            [
                (seat, (1, 1 if game.team_of[seat] == game.team_of[viewer] else 0, 0))
                for seat in ((viewer + offset) % players for offset in range(players))
            ]
            for viewer in range(players)
        ]
        self.size_getters = [itemgetter(*[seat for seat, _ in order]) for order in self.seat_order]
        self.padding_players = _EMPTY_PLAYER * (MAX_PLAYERS - players)
        self.padding_big = (0,) * (MAX_PLAYERS - players)
        self.size_positions = [seat * PLAYER_SIZE + _SIZE_AT for seat in range(players)]
        # the target is constant: its byte is 1 and its scale the scaled target
        self.scales = SCALES.copy()
        self.scales[TARGET_INDEX] = np.float32(self.target) * SCALES[TARGET_INDEX]
        self.players_one_hot = _PLAYER_ONE_HOT[players]
        self._table_block = (None, b"")
        self._known_seen: list | None = None
        self._players_cache: list = []
        self.min_canastas = rules.go_out_min_canastas
        self.sequences = rules.sequences
        # per viewer: the seats from the viewer on, and the cached history bytes
        self.history_order = [[seat for seat, _ in order] for order in self.seat_order]
        self.padding_history = bytes(HISTORY_SEAT_SIZE * (MAX_PLAYERS - players))
        self._history_cache: list = [None] * players
        self._history_hand = None
        self._history_rows: list = []

    def _cached_team_block(self, team: int) -> bytes:
        """The team block as bytes, rebuilt only when the engine says the team's table changed."""
        game = self.game
        key = (game.hand_index, game.table_version[team])
        cached = self._team_cache.get(team)
        if cached is not None and cached[0] == key:
            return cached[1]
        values = self._team_block(team)
        block = bytes(values)
        # the block ends with the team's (canastas, clean, dirty) counts
        self._team_cache[team] = (key, block, values[-3:])
        return block

    def _team_block(self, team: int) -> list[int]:
        game = self.game
        nat, two, jok, closed = game.nat[team], game.two[team], game.jok[team], game.closed[team]
        size_needed = self.canasta_size
        flags = [1 if n + t + j >= size_needed else 0 for n, t, j in zip(nat, two, jok)]
        count = clean = dirty = 0
        if 1 in flags:
            for slot in range(NUM_SLOTS):
                if flags[slot]:
                    count += 1
                    t, j = two[slot], jok[slot]
                    if (t == 0 or j == 0) if slot == 12 else t + j == 0:
                        clean += 1
                    else:
                        dirty += 1
        if closed:
            closed_clean = [0] * NUM_SLOTS
            closed_dirty = [0] * NUM_SLOTS
            for slot, _n, t, j, _hidden in closed:
                count += 1
                if (t == 0 or j == 0) if slot == 12 else t + j == 0:
                    closed_clean[slot] += 1
                    clean += 1
                else:
                    closed_dirty[slot] += 1
                    dirty += 1
            block = nat + two + jok + flags + closed_clean + closed_dirty
        else:
            block = nat + two + jok + flags + _ZEROS_26
        block += (1, game.red3[team], 1 if game.opened[team] else 0, game.need[team], 0)
        block += (count, clean, dirty)
        return block

    def _teams_bytes(self, my_team: int) -> bytes:
        """The three team blocks from ``my_team`` on, rebuilt when a team's table changed."""
        game = self.game
        cached = self._teams_cache[my_team]
        if cached is not None and cached[1] == game.table_version and cached[0] == game.hand_index:
            return cached[2]
        block = b"".join([self._cached_team_block(team) for team in self.team_order[my_team]])
        block += self.padding_teams
        self._teams_cache[my_team] = (game.hand_index, game.table_version[:], block)
        return block

    def _players_bytes(self, viewer: int) -> bytearray:
        """The player blocks from ``viewer`` on, cached until a player's known cards change;
        the caller writes the hand sizes (at ``size_positions``) into it."""
        known = self.game.known
        if self._known_seen != known:
            self._known_seen = [row[:] for row in known]
            self._players_cache = [None] * len(known)
        block = self._players_cache[viewer]
        if block is None:
            values: list = []
            for seat, head_of_seat in self.seat_order[viewer]:
                values += head_of_seat
                values += known[seat][:NUM_HAND_KINDS]
            values += self.padding_players
            block = self._players_cache[viewer] = bytearray(values)
        return block

    def _history_bytes(self, viewer: int) -> bytes:
        """The history block of ``viewer``, cached until the engine bumps a ``history_version``;
        each seat's (discarded, declined) bytes are cached until that seat's version moves."""
        game = self.game
        versions = game.history_version
        hand = game.hand_index
        cached = self._history_cache[viewer]
        if cached is not None and cached[1] == versions and cached[0] == hand:
            return cached[2]
        rows = self._history_rows
        if self._history_hand != hand:
            self._history_hand = hand
            rows = self._history_rows = [None] * game.num_players
        parts = []
        for seat in self.history_order[viewer]:
            row = rows[seat]
            if row is None or row[0] != versions[seat]:
                counts = _count_bytes(game.discarded[seat] + game.declined[seat])
                row = rows[seat] = (versions[seat], counts)
            parts.append(row[1])
        parts.append(self.padding_history)
        parts.append(_count_bytes(game.since_discard[viewer]))
        block = b"".join(parts)
        self._history_cache[viewer] = (hand, versions[:], block)
        return block

    def _sequence_block(self, viewer: int) -> bytes:
        """S-19: the viewer's naturals by suit, the pot top's suit, the runs on the table."""
        game = self.game
        block = list(game.hand_suits[viewer])
        pot = game.pot
        if pot and pot[-1] < NUM_NATURALS:
            block += _SUIT_ONE_HOT[game.pot_suits[-1]]
        else:
            block += (0,) * NUM_SUITS
        my_team = game.team_of[viewer]
        for offset in range(MAX_TEAMS):
            if offset < game.num_teams:
                runs = game.escalas[(my_team + offset) % game.num_teams]
                royal = sum(1 for run in runs if run[2] == NUM_NATURALS)
                block += (len(runs) - royal, royal)
            else:
                block += (0, 0)
        block.append(1)
        return bytes(block)

    def build(self, viewer: int, viewer_to_act: bool = True) -> np.ndarray:
        """The observation vector of seat ``viewer``."""
        game = self.game
        my_team = self.team_of[viewer]
        acting = viewer_to_act and game.current == viewer
        pot = game.pot
        top = pot[-1] if pot else NUM_KINDS
        opened = game.opened[my_team]
        head = [
            *game.hands[viewer][:NUM_HAND_KINDS],
            *(game.held[:NUM_HAND_KINDS] if acting else _ZEROS_14),
            *_ONE_HOT[top],
            len(pot),  # a big field: a byte, else written below
            game.pot_hidden,
            *self.wild_flags[game.pot_wild],
            1 if NUM_NATURALS <= top < NUM_KINDS else 0,
            1 if self.frozen_for_unopened and not opened else 0,
            *game.pot_known,
        ]
        teams = self._teams_bytes(my_team)
        players = self._players_bytes(viewer)
        sizes = self.size_getters[viewer](game.hand_totals)
        stock = len(game.stock)
        steps = game.num_steps
        if acting:
            phase = game.phase
            staged = game.staged
            if phase == PHASE_MELD:
                # the canasta counts come from the team cache that _teams_bytes refreshed
                counts = self._team_cache[my_team][2]
                may_go_out = (
                    counts[0] >= self.min_canastas
                    and game.opening_done(my_team)
                    and game.search.go_out_allowed_counts(*counts)
                )
            else:
                may_go_out = False
            tail = [
                1 if phase == PHASE_DRAW else 0,
                1 if phase == PHASE_MELD else 0,
                staged,  # big fields (staged, stock, steps): bytes, else written below
                0 if opened else max(0, game.need[my_team] - staged),
                1 if game.took_pot else 0,
                1 if game.clean_only else 0,
                1 if may_go_out else 0,
                1 if game.hidden_open else 0,
                stock,
                1 if stock < self.draw_count else 0,
                steps,
            ]
        else:
            staged = 0
            tail = [
                0,
                0,
                0,
                0 if opened else max(0, game.need[my_team]),
                0,
                0,
                0,
                0,
                stock,
                1 if stock < self.draw_count else 0,
                steps,
            ]
        table = self._table_block
        if table[0] != game.hand_index:
            block = bytes([*self.players_one_hot, game.hand_index, *self.table_tail])
            table = self._table_block = (game.hand_index, block)
        scores = self.score_getters[my_team](game.scores)
        sequences = self._sequence_block(viewer) if self.sequences else _EMPTY_SEQUENCES
        history = self._history_bytes(viewer)
        # The big fields go in as bytes where they fit (the common case); otherwise they
        # are zeroed there and all written as numbers.
        try:
            for at, size in zip(self.size_positions, sizes):
                players[at] = size
            data = b"".join(
                (bytes(head), teams, players, bytes(tail), table[1], sequences, history)
            )
            big = None
        except ValueError:
            head[_POT_SIZE_AT] = 0
            for at in self.size_positions:
                players[at] = 0
            for at in _TURN_BIG_AT:
                tail[at] = 0
            data = b"".join(
                (bytes(head), teams, players, bytes(tail), table[1], sequences, history)
            )
            big = (
                len(pot),
                *scores,
                *self.padding_scores,
                *sizes,
                *self.padding_big,
                staged,
                stock,
                steps,
                1,  # the target: see self.scales
            )
        if big is None and not any(scores):
            # one numpy call: uint8 * float32 is computed in float32, as below
            return np.frombuffer(data, _UINT8) * self.scales
        obs = np.frombuffer(data, _UINT8).astype(np.float32)
        if big is not None:
            obs[BIG_INDICES] = big
        else:
            obs[SCORE_INDICES[: len(scores)]] = scores
        obs *= self.scales
        return obs


_UINT8 = np.dtype(np.uint8)


def _count_bytes(counts: list[int]) -> bytes:
    """History counts as bytes. They pass 255 only in a freak hand (a turn begins with
    a plain draw, a stock card, or a take, whose top card goes to the table for good,
    so a seat's counts are bounded by the deck); they are clamped to 255 then."""
    try:
        return bytes(counts)
    except ValueError:
        return bytes([min(count, 255) for count in counts])


_ZEROS_14 = [0] * NUM_HAND_KINDS
_EMPTY_SEQUENCES = bytes(SEQUENCE_SIZE)
_SUIT_ONE_HOT = [[1 if i == suit else 0 for i in range(NUM_SUITS)] for suit in range(NUM_SUITS)]
_ZEROS_26 = [0] * (NUM_SLOTS * 2)


def decode(observation: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named blocks, unscaled (for bots and tests)."""
    raw = np.asarray(observation, dtype=np.float64) / SCALES
    return {name: raw[OFFSETS[name] : OFFSETS[name] + size] for name, size in BLOCKS}
