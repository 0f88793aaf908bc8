"""What the heuristic bots share: reading action ids, public estimates.

A heuristic bot sees only what a player sees: the observation vector, read
back by :func:`canasta_env.observation.decode_view` into an
:class:`~canasta_env.observation.ObservationView`, and the action mask;
:data:`~canasta_env.actions.MOVES`, the move table, says what each action id
does (which cards it lays, onto which meld slot), so a bot can score the legal
ids of a mask without asking the engine. The rules come from the table (the agent's ``reset``).
:func:`team_score_estimate` and :func:`hand_margin` estimate hand scores from
public information only (G-8); :func:`unseen_counts` and
:func:`take_probability` count cards from public history to estimate how likely
the next player can take the pot after a discard.
"""

from __future__ import annotations

import math

import numpy as np

from canasta_env.actions import (
    DRAW,
    MOVE_DISCARD,
    MOVE_DRAW,
    MOVE_KINDS,
    MOVE_MELD,
    MOVE_PASS,
    MOVE_RUN,
    MOVE_TAKE,
    MOVES,
    NUM_SLOTS,
    SLOT_WILD,
    TAKE,
    TAKE_ONTO_MELD,
    TAKE_WITH_JOKER,
    TAKE_WITH_TWO,
)
from canasta_env.cards import (
    BLACK3,
    CARD_VALUES,
    JOKER,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    TWO,
    deck_counts,
)
from canasta_env.engine.game import team_of_seat
from canasta_env.engine.melds import natural_kind
from canasta_env.engine.pot import naturals_to_take, pot_frozen
from canasta_env.engine.scoring import canasta_bonus
from canasta_env.observation import ObservationView, TeamView
from canasta_env.rules import (
    TEAM_CLEAN_AND_DIRTY,
    TEAM_CLEAN_ONLY,
    TEAM_DIRTY_ONLY,
    TEAM_NO_CANASTA,
    TEAM_NO_MELD,
    Rules,
)

# ---------------------------------------------------------------------- actions

#: Kinds of action ids, as the move table names them (:data:`MOVES`).
KIND_DRAW, KIND_TAKE, KIND_PASS = MOVE_DRAW, MOVE_TAKE, MOVE_PASS
KIND_DISCARD, KIND_MELD, KIND_RUN = MOVE_DISCARD, MOVE_MELD, MOVE_RUN
_DRAW_PHASE_KINDS = (MOVE_DRAW, MOVE_TAKE, MOVE_PASS)

#: Cards in a canasta (G-4); the same in every preset.
CANASTA_SIZE = 7

#: Take actions from the cheapest (no card from the hand) to the dearest (a joker).
TAKE_PREFERENCE = (TAKE_ONTO_MELD, TAKE, TAKE_WITH_TWO, TAKE_WITH_JOKER)

#: Average value of an unknown card in another player's hand, for score estimates.
UNKNOWN_CARD_VALUE = 9.0

#: S-7: the observation counts closed canastas only as clean or dirty per slot; a
#: dirty one is taken to hold this many 2s (the rest naturals, or 2s on the wild slot).
CLOSED_DIRTY_TWOS = 2


def team_score_estimate(team: TeamView, rules: Rules) -> float:
    """A team's hand score if the hand ended now, without the hand penalty."""
    melded = 0.0
    bonus = 0.0
    for slot in range(NUM_SLOTS):
        n, t, j = team.naturals[slot], team.twos[slot], team.jokers[slot]
        if n + t + j == 0:
            continue
        value = 0 if slot == SLOT_WILD else CARD_VALUES[natural_kind(slot)]
        melded += n * value + t * CARD_VALUES[TWO] + j * CARD_VALUES[JOKER]
        if n + t + j >= rules.canasta_size:
            bonus += canasta_bonus(rules, slot, n, t, j, False)
    for slot in range(NUM_SLOTS):
        value = CARD_VALUES[TWO] if slot == SLOT_WILD else CARD_VALUES[natural_kind(slot)]
        clean, dirty = team.closed_clean[slot], team.closed_dirty[slot]
        if clean:
            melded += clean * CANASTA_SIZE * value
            shape = (0, CANASTA_SIZE, 0) if slot == SLOT_WILD else (CANASTA_SIZE, 0, 0)
            bonus += clean * canasta_bonus(rules, slot, *shape, False)
        if dirty:
            others = CANASTA_SIZE - CLOSED_DIRTY_TWOS
            melded += dirty * (others * value + CLOSED_DIRTY_TWOS * CARD_VALUES[TWO])
            # the bonus of a dirty wild canasta: four 2s and three jokers (S-9)
            shape = (0, 4, 3) if slot == SLOT_WILD else (others, CLOSED_DIRTY_TWOS, 0)
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


def hand_margin(view: ObservationView, rules: Rules, going_out: bool) -> float:
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


def seats_of_team(view: ObservationView, team_offset: int) -> list[int]:
    """Player offsets (from the viewer) of the team ``team_offset`` teams after ours."""
    # seats and teams are both ordered from the viewer, so offsets follow the seat rule (G-3)
    return [p for p in range(view.num_players) if team_of_seat(view.num_players, p) == team_offset]


def split_legal(action_mask: np.ndarray) -> tuple[list[int], list[int], list[int]]:
    """The legal ids of a mask as (draw-phase ids, meld moves, discards)."""
    legal = np.flatnonzero(action_mask).tolist()
    kinds = [MOVE_KINDS[a] for a in legal]
    draw = [a for a, kind in zip(legal, kinds) if kind in _DRAW_PHASE_KINDS]
    discards = [a for a, kind in zip(legal, kinds) if kind == MOVE_DISCARD]
    melds = [a for a, kind in zip(legal, kinds) if kind == MOVE_MELD or kind == MOVE_RUN]
    return draw, melds, discards


def choose_take_or_draw(draw_ids: list[int]) -> int:
    """Take the pot if any take is legal (cheapest way first), else draw, else pass."""
    for action in TAKE_PREFERENCE:
        if action in draw_ids:
            return action
    if DRAW in draw_ids:
        return DRAW
    return draw_ids[0]


def biggest_meld_key(view: ObservationView, action: int) -> tuple:
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


def unseen_counts(view: ObservationView, rules: Rules) -> tuple[list[int], int]:
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
        for slot in range(NUM_SLOTS):
            clean, dirty = team.closed_clean[slot], team.closed_dirty[slot]
            if slot != SLOT_WILD:
                kind = natural_kind(slot)
                seen[kind] += team.naturals[slot]
                seen[kind] += CANASTA_SIZE * clean + (CANASTA_SIZE - CLOSED_DIRTY_TWOS) * dirty
                seen[TWO] += CLOSED_DIRTY_TWOS * dirty
            else:
                seen[TWO] += CANASTA_SIZE * (clean + dirty)
            seen[TWO] += team.twos[slot]
            seen[JOKER] += team.jokers[slot]
    unseen = [max(0, deck[k] - seen[k]) for k in range(NUM_HAND_KINDS)]
    return unseen, sum(unseen)


def take_probability(
    view: ObservationView,
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
    frozen = pot_frozen(rules, view.pot_wild, their_team.opened)
    if rules.take_onto_meld and not frozen and their_team.opened and their_team.has_meld(kind):
        return 1.0
    needed = naturals_to_take(rules, frozen)
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
