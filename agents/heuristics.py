"""What the heuristic bots share: reading observations and action ids, public estimates.

A heuristic bot sees only what a player sees: the observation vector and the
action mask. :func:`read_observation` reads the vector (through
:func:`canasta_env.observation.decode`) into a :class:`TableView` with named
fields; :data:`MOVES` says what each action id does (which cards it lays, onto
which meld slot), so a bot can score the legal ids of a mask without asking the
engine. :func:`team_score_estimate` and :func:`hand_margin` estimate hand scores
from public information only (G-8); :func:`unseen_counts` and
:func:`take_probability` count cards from public history to estimate how likely
the next player can take the pot after a discard.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from canasta_env.actions import (
    ADD_JOKER,
    ADD_NATURAL,
    ADD_TWO,
    COMPOSITIONS,
    DISCARD,
    DRAW,
    NEW_BLACK3,
    NEW_MELD,
    NEW_WILD,
    NUM_ACTIONS,
    NUM_COMPOSITIONS,
    PASS,
    RUNS,
    SLOT_BLACK3,
    SLOT_WILD,
    TAKE,
    TAKE_ONTO_MELD,
    TAKE_WITH_JOKER,
    TAKE_WITH_TWO,
    WILD_COMPOSITIONS,
)
from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    SUITS,
    TWO,
    deck_counts,
)
from canasta_env.engine.scoring import canasta_bonus
from canasta_env.observation import (
    MAX_PLAYERS,
    MAX_TEAMS,
    NUM_SLOTS,
    PLAYER_SIZE,
    TEAM_SIZE,
    decode,
)
from canasta_env.rules import (
    PRESETS,
    TEAM_CLEAN_AND_DIRTY,
    TEAM_CLEAN_ONLY,
    TEAM_DIRTY_ONLY,
    TEAM_NO_CANASTA,
    TEAM_NO_MELD,
    Rules,
    make_rules,
)

# ---------------------------------------------------------------------- actions

#: Kinds of action ids.
KIND_DRAW, KIND_TAKE, KIND_PASS, KIND_DISCARD, KIND_MELD, KIND_RUN = range(6)


@dataclass(frozen=True)
class Move:
    """What one action id does.

    ``slot`` is the meld slot (0-10 ranks, 11 black 3s, 12 wild-only) for a meld
    move and the discarded kind for a discard; ``naturals``, ``twos`` and
    ``jokers`` are the cards a meld move lays from the hand; ``new`` is true for
    a new meld.
    """

    kind: int
    slot: int = -1
    naturals: int = 0
    twos: int = 0
    jokers: int = 0
    new: bool = False

    @property
    def cards(self) -> int:
        return self.naturals + self.twos + self.jokers

    @property
    def wilds(self) -> int:
        return self.twos + self.jokers

    @property
    def points(self) -> int:
        """Card values laid (G-2): what a meld move adds toward an opening."""
        natural_kind = BLACK3 if self.slot == SLOT_BLACK3 else self.slot
        value = CARD_VALUES[natural_kind] * self.naturals if self.naturals else 0
        return value + CARD_VALUES[TWO] * self.twos + CARD_VALUES[JOKER] * self.jokers


def _build_moves() -> tuple[Move, ...]:
    moves: list[Move] = [Move(KIND_DRAW)]
    moves += [Move(KIND_TAKE) for _ in range(TAKE, PASS)]
    moves.append(Move(KIND_PASS))
    moves += [Move(KIND_DISCARD, slot=kind) for kind in range(NUM_HAND_KINDS)]
    moves += [Move(KIND_MELD, slot=s, naturals=1) for s in range(12)]
    wild_target = list(range(NUM_NATURALS)) + [SLOT_WILD]
    moves += [Move(KIND_MELD, slot=s, twos=1) for s in wild_target]
    moves += [Move(KIND_MELD, slot=s, jokers=1) for s in wild_target]
    for rank in range(NUM_NATURALS):
        moves += [Move(KIND_MELD, rank, n, t, j, True) for n, t, j in COMPOSITIONS]
    moves += [Move(KIND_MELD, SLOT_BLACK3, n, 0, 0, True) for n in range(3, 8)]
    moves += [Move(KIND_MELD, SLOT_WILD, 0, t, j, True) for t, j in WILD_COMPOSITIONS]
    moves += [Move(KIND_RUN, naturals=length, new=True) for _ in SUITS for _, length in RUNS]
    assert len(moves) == NUM_ACTIONS
    assert moves[ADD_NATURAL].slot == 0 and moves[ADD_TWO].twos == 1
    assert moves[ADD_JOKER].jokers == 1 and moves[NEW_MELD + NUM_COMPOSITIONS].slot == 1
    assert moves[NEW_BLACK3].slot == SLOT_BLACK3 and moves[NEW_WILD].slot == SLOT_WILD
    return tuple(moves)


#: ``MOVES[action]``: what each of the 500 action ids does (S-19 runs: ``KIND_RUN``).
MOVES = _build_moves()

#: Cards in a canasta (G-4); the same in every preset.
CANASTA_SIZE = 7

#: Take actions from the cheapest (no card from the hand) to the dearest (a joker).
TAKE_PREFERENCE = (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER)

# ---------------------------------------------------------------------- observation


@dataclass
class TeamView:
    """One team's public table, from the observation (counts unscaled)."""

    naturals: list[int]  # per slot, unfinished melds
    twos: list[int]
    jokers: list[int]
    closed_clean: list[int]  # finished canastas per slot (melds that close at 7, S-7)
    closed_dirty: list[int]
    red3: int
    opened: bool
    opening_minimum: int
    score: int
    canastas: int
    clean: int
    dirty: int

    def meld_size(self, slot: int) -> int:
        return self.naturals[slot] + self.twos[slot] + self.jokers[slot]

    def has_meld(self, slot: int) -> bool:
        return self.meld_size(slot) > 0


@dataclass
class PlayerView:
    """One seat from the viewer's side: ``offset`` 0 is the viewer, 1 plays next."""

    teammate: bool
    hand_size: int
    known: list[int]  # cards known to be in the hand (pot takes, G-8), per holdable kind


@dataclass
class TableView:
    """The observation of the player to act, read into named fields."""

    hand: list[int]
    held: list[int]
    pot_top: int  # kind, or -1 for an empty pot
    pot_size: int
    pot_face_down: int
    pot_frozen: bool  # a wild card in it (C-9, I-8) or crossed (S-6)
    pot_blocked: bool
    pot_frozen_for_me: bool  # C-9: frozen against an unopened team
    pot_known: list[int]
    teams: list[TeamView]  # own team first, then in turn order
    players: list[PlayerView]  # own seat first, then in turn order
    draw_phase: bool
    staged: int
    still_needed: int
    took_pot: bool
    clean_only: bool
    may_go_out: bool
    stock: int
    num_players: int
    draw_count: int
    melds_close_at_7: bool
    wild_melds: bool
    black3_melds: bool
    needs_clean_and_dirty: bool
    three_to_take_frozen: bool
    wild_crosses_pot: bool
    hand_number: int
    target: int

    @property
    def me(self) -> TeamView:
        return self.teams[0]

    @property
    def hand_size(self) -> int:
        return sum(self.hand)


def _ints(values: np.ndarray) -> list[int]:
    return np.rint(values).astype(np.int64).tolist()


def read_observation(observation: np.ndarray) -> TableView:
    """Read an observation vector (see :mod:`canasta_env.observation`) into a TableView."""
    blocks = decode(observation)
    table = _ints(blocks["table"])
    one_hot = table[:4]
    num_players = (2, 3, 4, 6)[one_hot.index(1)] if 1 in one_hot else 4
    num_teams = 2 if num_players in (4, 6) else num_players
    teams_raw = _ints(blocks["teams"])
    teams = []
    for t in range(min(num_teams, MAX_TEAMS)):
        raw = teams_raw[t * TEAM_SIZE : (t + 1) * TEAM_SIZE]
        s = NUM_SLOTS
        summary = raw[6 * s :]  # present, red 3s, opened, minimum, score, canastas ...
        teams.append(
            TeamView(
                naturals=raw[0:s],
                twos=raw[s : 2 * s],
                jokers=raw[2 * s : 3 * s],
                closed_clean=raw[4 * s : 5 * s],
                closed_dirty=raw[5 * s : 6 * s],
                red3=summary[1],
                opened=bool(summary[2]),
                opening_minimum=summary[3],
                score=summary[4],
                canastas=summary[5],
                clean=summary[6],
                dirty=summary[7],
            )
        )
    players_raw = _ints(blocks["players"])
    players = []
    for p in range(min(num_players, MAX_PLAYERS)):
        raw = players_raw[p * PLAYER_SIZE : (p + 1) * PLAYER_SIZE]
        players.append(PlayerView(teammate=bool(raw[1]), hand_size=raw[2], known=raw[3:]))
    pot_top_raw = blocks["pot_top"]
    top = int(np.argmax(pot_top_raw))
    pot_state = _ints(blocks["pot_state"])
    turn = _ints(blocks["turn"])
    return TableView(
        hand=_ints(blocks["hand"]),
        held=_ints(blocks["held"]),
        pot_top=-1 if top == len(pot_top_raw) - 1 else top,
        pot_size=pot_state[0],
        pot_face_down=pot_state[1],
        pot_frozen=bool(pot_state[2] or pot_state[3]),
        pot_blocked=bool(pot_state[4]),
        pot_frozen_for_me=bool(pot_state[5]),
        pot_known=_ints(blocks["pot_known"]),
        teams=teams,
        players=players,
        draw_phase=bool(turn[0]),
        staged=turn[2],
        still_needed=turn[3],
        took_pot=bool(turn[4]),
        clean_only=bool(turn[5]),
        may_go_out=bool(turn[6]),
        stock=turn[8],
        num_players=num_players,
        hand_number=table[4],
        draw_count=table[5],
        melds_close_at_7=bool(table[6]),
        wild_melds=bool(table[7]),
        black3_melds=bool(table[8]),
        needs_clean_and_dirty=bool(table[9]),
        three_to_take_frozen=bool(table[10]),
        wild_crosses_pot=bool(table[11]),
        target=table[12],
    )


# ---------------------------------------------------------------------- rules and scores


def rules_of(variant) -> Rules | None:
    """The rules of a preset name or a Rules object (None for anything else)."""
    if isinstance(variant, Rules):
        return variant
    if isinstance(variant, str) and variant in PRESETS:
        return make_rules(variant)
    return None


def guess_rules(view: TableView) -> Rules:
    """The preset whose table flags the observation shows (for agents never reset)."""
    if view.melds_close_at_7:
        return make_rules("spanish")
    if view.wild_melds:
        return make_rules("italian")
    return make_rules("canastone" if view.target >= 10000 else "classic")


#: Average value of an unknown card in another player's hand, for score estimates.
UNKNOWN_CARD_VALUE = 9.0


def team_score_estimate(team: TeamView, rules: Rules) -> float:
    """A team's hand score if the hand ended now, without the hand penalty."""
    melded = 0.0
    bonus = 0.0
    for slot in range(13):
        n, t, j = team.naturals[slot], team.twos[slot], team.jokers[slot]
        if n + t + j == 0:
            continue
        value = 0 if slot == SLOT_WILD else CARD_VALUES[BLACK3 if slot == SLOT_BLACK3 else slot]
        melded += n * value + t * CARD_VALUES[TWO] + j * CARD_VALUES[JOKER]
        if n + t + j >= rules.canasta_size:
            bonus += canasta_bonus(rules, slot, n, t, j, False)
    for slot in range(13):
        if slot == SLOT_WILD:
            value = CARD_VALUES[TWO]
        else:
            value = CARD_VALUES[BLACK3 if slot == SLOT_BLACK3 else slot]
        clean, dirty = team.closed_clean[slot], team.closed_dirty[slot]
        if clean:
            melded += clean * 7 * value
            shape = (0, 7, 0) if slot == SLOT_WILD else (7, 0, 0)
            bonus += clean * canasta_bonus(rules, slot, *shape, False)
        if dirty:
            melded += dirty * (5 * value + 2 * CARD_VALUES[TWO])
            shape = (0, 4, 3) if slot == SLOT_WILD else (5, 2, 0)
            bonus += dirty * canasta_bonus(rules, slot, *shape, False)
    if not team.opened:
        condition = TEAM_NO_MELD
    elif team.canastas == 0:
        condition = TEAM_NO_CANASTA
    elif team.clean and team.dirty:
        condition = TEAM_CLEAN_AND_DIRTY
    elif team.clean:
        condition = TEAM_CLEAN_ONLY
    else:
        condition = TEAM_DIRTY_ONLY
    if rules.melds_minus_without_canasta and team.canastas == 0:
        melded = -melded
    red3 = rules.red3_total(team.red3) * rules.red3_sign[condition]
    return melded + bonus + red3


def hand_margin(view: TableView, rules: Rules, going_out: bool) -> float:
    """Our estimated hand score minus the best opponent's (going out now or not)."""
    own_hand = sum(
        view.hand[k] * (rules.black3_in_hand_penalty if k == BLACK3 else CARD_VALUES[k])
        for k in range(NUM_HAND_KINDS)
    )
    ours = team_score_estimate(view.me, rules)
    partners = sum(p.hand_size for p in view.players[1:] if p.teammate)
    ours -= partners * UNKNOWN_CARD_VALUE
    if going_out:
        ours += rules.go_out_bonus
    else:
        ours -= own_hand
    best = -math.inf
    for offset, team in enumerate(view.teams[1:], start=1):
        theirs = team_score_estimate(team, rules)
        seats = seats_of_team(view, offset)
        theirs -= sum(view.players[s].hand_size for s in seats) * UNKNOWN_CARD_VALUE
        best = max(best, theirs)
    return ours - best


def seats_of_team(view: TableView, team_offset: int) -> list[int]:
    """Player offsets (from the viewer) of the team ``team_offset`` teams after ours."""
    n = view.num_players
    if n in (4, 6):
        return [p for p in range(n) if p % 2 == team_offset % 2] if team_offset else []
    return [team_offset]


def split_legal(action_mask: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """The legal ids of a mask as (draw-phase ids, meld moves, discards)."""
    legal = np.flatnonzero(action_mask).tolist()
    draw = [a for a in legal if a < DISCARD]
    discards = [a for a in legal if DISCARD <= a < ADD_NATURAL]
    melds = [a for a in legal if a >= ADD_NATURAL]
    return draw, melds, discards


def choose_take_or_draw(draw_ids: list[int]) -> int:
    """Take the pot if any take is legal (cheapest way first), else draw, else pass."""
    for action in TAKE_PREFERENCE:
        if action in draw_ids:
            return action
    if DRAW in draw_ids:
        return DRAW
    return draw_ids[0]


def biggest_meld_key(view: TableView, action: int) -> tuple:
    """Order meld moves: a move that completes a canasta first, then the most cards
    laid, then onto the biggest meld, then the most points.

    Putting wild cards on the biggest meld makes the first canasta (needed to go
    out, C-14) as early as possible.
    """
    move = MOVES[action]
    if move.kind == KIND_RUN:
        return (True, move.cards, 99, 0, -action)  # an S-19 run: its bonus beats any meld
    before = view.me.meld_size(move.slot)
    size_after = before + move.cards
    completes = before < CANASTA_SIZE <= size_after
    return (completes, move.cards, size_after, move.points, -action)


# ---------------------------------------------------------------------- card counting


def hypergeom_at_least(successes: int, population: int, draws: int, at_least: int) -> float:
    """P(X >= at_least) for X ~ Hypergeometric(population, successes, draws)."""
    if at_least <= 0:
        return 1.0
    if successes < at_least or draws < at_least or population <= 0:
        return 0.0
    draws = min(draws, population)
    total = math.comb(population, draws)
    below = 0
    for x in range(at_least):
        if draws - x <= population - successes:
            below += math.comb(successes, x) * math.comb(population - successes, draws - x)
    return max(0.0, 1.0 - below / total)


def unseen_counts(view: TableView, rules: Rules) -> tuple[list[int], int]:
    """Copies of each holdable kind nobody has shown (and their total): card counting.

    The deck minus the own hand and held cards, the visible pot, every meld on
    the table and every card known to be in another hand (pot takes, G-8).
    """
    deck = deck_counts(rules.decks_for(view.num_players), rules.jokers_per_deck)
    seen = [view.hand[k] + view.held[k] + view.pot_known[k] for k in range(NUM_HAND_KINDS)]
    for player in view.players[1:]:
        for kind in range(NUM_HAND_KINDS):
            seen[kind] += player.known[kind]
    for team in view.teams:
        for slot in range(13):
            natural_kind = BLACK3 if slot == SLOT_BLACK3 else slot
            if slot != SLOT_WILD:
                seen[natural_kind] += team.naturals[slot]
                seen[natural_kind] += 7 * team.closed_clean[slot] + 5 * team.closed_dirty[slot]
                seen[TWO] += 2 * team.closed_dirty[slot]
            else:
                seen[TWO] += 7 * (team.closed_clean[slot] + team.closed_dirty[slot])
            seen[TWO] += team.twos[slot]
            seen[JOKER] += team.jokers[slot]
    unseen = [max(0, deck[k] - seen[k]) for k in range(NUM_HAND_KINDS)]
    return unseen, sum(unseen)


def take_probability(
    view: TableView,
    kind: int,
    rules: Rules,
    unseen: list[int],
    pool: int,
    wild_take_factor: float = 0.5,
    discount: float = 1.0,
) -> float:
    """Probability that the next player can take the pot if we discard ``kind``.

    1 when the card joins their team's meld (C-11) or they are known to hold
    enough of its kind (G-8); 0 for a black 3 or a wild card (C-12, S-6, I-7) and
    for a teammate; otherwise a hypergeometric draw of the ``unseen`` copies into
    the unknown part of their hand (``wild_take_factor``: how often a natural plus
    a wild card is used), lower while their team must still open, times
    ``discount`` (what the caller knows beyond the table, e.g. kinds they let go).
    """
    if kind >= NUM_NATURALS:
        return 0.0
    if view.num_players < 2 or len(view.teams) < 2:
        return 0.0
    nxt = view.players[1]
    if nxt.teammate:
        return 0.0
    their_team = view.teams[1]
    frozen = view.pot_frozen or (rules.frozen_for_unopened and not their_team.opened)
    if rules.take_onto_meld and not frozen and their_team.opened and their_team.has_meld(kind):
        return 1.0
    needed = rules.take_naturals_frozen if frozen else rules.take_naturals
    known = nxt.known[kind]
    unknown_cards = max(0, nxt.hand_size - sum(nxt.known))
    missing = needed - known
    if missing <= 0:
        probability = 1.0
    else:
        probability = hypergeom_at_least(unseen[kind], pool, unknown_cards, missing)
        if not frozen and rules.take_with_wild and missing >= 2:
            one = hypergeom_at_least(unseen[kind], pool, unknown_cards, missing - 1)
            wilds = unseen[TWO] + unseen[JOKER] + nxt.known[TWO] + nxt.known[JOKER]
            has_wild = hypergeom_at_least(wilds, pool, unknown_cards, 1)
            probability = max(probability, wild_take_factor * one * has_wild)
    if not their_team.opened:
        probability *= 0.6  # they must open with it too (C-10, S-5, I-7)
    return probability * discount
