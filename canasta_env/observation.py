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
=======================  ====  =====  =============================================

Total: 14 + 14 + 16 + 6 + 15 + 258 + 102 + 11 + 13 + 55 = 504 (``OBS_SIZE``).

The first 449 entries are the layout of version 0.1 (before S-19 runs), so a
policy trained on it reads ``observation[:449]``.
"""

from __future__ import annotations

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
#: Size of the layout before the S-19 block (what version 0.1 policies read).
OBS_SIZE_V0 = 449

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
)
OBS_SIZE = sum(size for _, size in BLOCKS)
assert OBS_SIZE == 504

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


class ObservationBuilder:
    """Builds observations for one game; caches what never changes in a game.

    Small counts are packed as bytes and scaled in one numpy operation; the few
    fields in ``BIG_INDICES`` are written separately.
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
            0,  # target score: a big field
        ]
        self.target = rules.target_score
        self.canasta_size = rules.canasta_size
        self._team_cache: dict[int, tuple] = {}
        # per viewer: the seats from the viewer on, each with (present, teammate, size)
        players = game.num_players
        self.seat_order = [
            [
                (seat, (1, 1 if game.team_of[seat] == game.team_of[viewer] else 0, 0))
                for seat in ((viewer + offset) % players for offset in range(players))
            ]
            for viewer in range(players)
        ]
        self.padding_players = _EMPTY_PLAYER * (MAX_PLAYERS - players)
        self.padding_big = [0] * (MAX_PLAYERS - players)
        self.seats_from = [[seat for seat, _ in order] for order in self.seat_order]
        # per viewer: (the known-cards lists it was built from, the players block as bytes);
        # known cards change only on pot takes and melds, so it is rebuilt seldom
        self._players_cache: dict[int, tuple[list[list[int]], bytes]] = {}

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

    def _may_go_out(self, team: int) -> bool:
        """The acting team meets the going-out conditions now (uses the cached counts)."""
        game = self.game
        if not game.opening_done(team):
            return False
        self._cached_team_block(team)
        return game.search.go_out_allowed_counts(*self._team_cache[team][2])

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
        num_players = game.num_players
        num_teams = game.num_teams
        team_of = game.team_of
        my_team = team_of[viewer]
        acting = viewer_to_act and game.current == viewer
        pot = game.pot
        rules = game.rules
        wild = game.pot_wild
        top = pot[-1] if pot else NUM_KINDS
        head = game.hands[viewer][:NUM_HAND_KINDS]
        head += game.held[:NUM_HAND_KINDS] if acting else _ZEROS_14
        head += _ONE_HOT[top]
        head += (
            0,  # pot size: a big field
            game.pot_hidden,
            1 if wild and not rules.wild_crosses_pot else 0,
            1 if wild and rules.wild_crosses_pot else 0,
            1 if NUM_NATURALS <= top < NUM_KINDS else 0,
            1 if rules.frozen_for_unopened and not game.opened[my_team] else 0,
        )
        head += game.pot_known
        parts = [bytes(head)]
        scores = game.scores
        big = [len(pot)]
        for offset in range(MAX_TEAMS):
            if offset < num_teams:
                team = (my_team + offset) % num_teams
                parts.append(self._cached_team_block(team))
                big.append(scores[team])
            else:
                parts.append(_EMPTY_TEAM)
                big.append(0)
        totals = game.hand_totals
        known = game.known
        cached = self._players_cache.get(viewer)
        if cached is not None and cached[0] == known:
            parts.append(cached[1])
        else:
            block: list = []
            for seat, head_of_seat in self.seat_order[viewer]:
                block += head_of_seat
                block += known[seat][:NUM_HAND_KINDS]
            block += self.padding_players
            players_block = bytes(block)
            self._players_cache[viewer] = ([row[:] for row in known], players_block)
            parts.append(players_block)
        big += [totals[seat] for seat in self.seats_from[viewer]]
        big += self.padding_big
        phase = game.phase
        opened = game.opened[my_team]
        staged = game.staged if acting else 0
        stock = len(game.stock)
        tail = [
            1 if acting and phase == PHASE_DRAW else 0,
            1 if acting and phase == PHASE_MELD else 0,
            0,  # staged: a big field
            0 if opened else max(0, game.need[my_team] - staged),
            1 if acting and game.took_pot else 0,
            1 if acting and game.clean_only else 0,
            1 if acting and phase == PHASE_MELD and self._may_go_out(my_team) else 0,
            1 if acting and game.hidden_open else 0,
            0,  # stock: a big field
            1 if stock < rules.draw_count else 0,
            0,  # steps: a big field
        ]
        tail += _PLAYER_ONE_HOT[num_players]
        tail.append(game.hand_index)
        tail += self.table_tail
        parts.append(bytes(tail))
        parts.append(self._sequence_block(viewer) if rules.sequences else _EMPTY_SEQUENCES)
        big += (staged, stock, game.num_steps, self.target)
        obs = np.frombuffer(b"".join(parts), dtype=np.uint8).astype(np.float32)
        obs[BIG_INDICES] = big
        obs *= SCALES
        return obs


_ZEROS_14 = [0] * NUM_HAND_KINDS
_EMPTY_SEQUENCES = bytes(SEQUENCE_SIZE)
_SUIT_ONE_HOT = [[1 if i == suit else 0 for i in range(NUM_SUITS)] for suit in range(NUM_SUITS)]
_ZEROS_26 = [0] * (NUM_SLOTS * 2)


def decode(observation: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation vector into its named blocks, unscaled (for bots and tests)."""
    raw = np.asarray(observation, dtype=np.float64) / SCALES
    return {name: raw[OFFSETS[name] : OFFSETS[name] + size] for name, size in BLOCKS}
