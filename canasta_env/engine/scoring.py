"""End-of-hand scoring (G-9, C-15, C-17, S-10..S-14, S-19, I-12..I-15)."""

from __future__ import annotations

from canasta_env.actions import NUM_SLOTS, SLOT_BLACK3, SLOT_WILD
from canasta_env.cards import BLACK3, CARD_VALUES, NUM_HAND_KINDS, NUM_NATURALS
from canasta_env.engine.melds import canasta_kind, canasta_summary, meld_points, team_canastas
from canasta_env.rules import (
    TEAM_CLEAN_AND_DIRTY,
    TEAM_CLEAN_ONLY,
    TEAM_DIRTY_ONLY,
    TEAM_NO_CANASTA,
    TEAM_NO_MELD,
    Rules,
)

#: The rows of a hand's score sheet (the keys of :func:`hand_score`'s dict), in the
#: order they add up to ``total``, each with its label. The terminal, the
#: image, ``canasta play`` and the browser table all print these.
SHEET_ROWS = (
    ("melded", "melded cards"),
    ("canasta_bonus", "canasta bonuses"),
    ("sequences", "runs (escalas, S-19)"),
    ("red3", "red 3s"),
    ("count_bonus", "canasta-count bonus"),
    ("going_out", "going out"),
    ("hand_penalty", "cards left in hand"),
    ("total", "hand total"),
)


def canasta_bonus(rules: Rules, slot: int, n: int, twos: int, jokers: int, hidden: bool) -> int:
    """Bonus of one canasta (C-17, S-10, I-12)."""
    if slot == SLOT_BLACK3:
        return 0  # S-11: a black-3 canasta wins the game instead
    if slot == SLOT_WILD:
        special_jokers, special_twos, special_bonus = rules.special_wild_canasta
        if special_bonus and jokers == special_jokers and twos == special_twos:
            bonus = special_bonus  # I-12 "toro seduto"
        elif canasta_kind(slot, n, twos, jokers)[0]:  # S-10: one kind of wild card
            bonus = rules.wild_canasta_clean_bonus
        else:
            bonus = rules.wild_canasta_dirty_bonus
        return max(bonus, rules.hidden_canasta_bonus if hidden else 0)
    clean, _ = canasta_kind(slot, n, twos, jokers)
    if hidden and rules.hidden_canasta_bonus:
        return rules.hidden_canasta_bonus  # S-10
    for rank, clean_bonus, dirty_bonus in rules.rank_canasta_bonus:
        if rank == slot:
            return clean_bonus if clean else dirty_bonus  # I-12 aces
    return rules.clean_canasta_bonus if clean else rules.dirty_canasta_bonus


def score_team(game, team: int) -> dict:
    """The score sheet of one team for the hand that just ended."""
    rules = game.rules
    nat, two, jok, closed = game.team_melds(team)
    melded = sum(meld_points(slot, nat[slot], two[slot], jok[slot]) for slot in range(NUM_SLOTS))
    melded += sum(meld_points(*canasta[:4]) for canasta in closed)
    bonus = sum(canasta_bonus(rules, *c) for c in team_canastas(rules, nat, two, jok, closed))
    count, clean, dirty = canasta_summary(rules, nat, two, jok, closed)
    # S-19 runs: their cards count as melded cards; the bonus needs a canasta
    sequences = 0
    for _suit, start, length in game.escalas[team]:
        melded += sum(CARD_VALUES[start : start + length])
        if count:
            royal = length == NUM_NATURALS
            sequences += rules.royal_sequence_bonus if royal else rules.sequence_bonus
    opened = game.opened[team]
    if rules.melds_minus_without_canasta and count == 0:
        melded = -melded  # S-14
    # red 3s (C-17, K-3, S-13, I-15)
    if not opened:
        condition = TEAM_NO_MELD
    elif count == 0:
        condition = TEAM_NO_CANASTA
    elif clean and dirty:
        condition = TEAM_CLEAN_AND_DIRTY
    elif clean:
        condition = TEAM_CLEAN_ONLY
    else:
        condition = TEAM_DIRTY_ONLY
    red3 = rules.red3_total(game.red3[team]) * rules.red3_sign[condition]
    # team bonuses (S-12, I-13)
    count_bonus = 0
    for needed, value in rules.canasta_count_bonus:
        if count >= needed:
            count_bonus = value
    for needed, value in rules.clean_canasta_count_bonus:
        if clean >= needed:
            count_bonus += value
    # going out (C-15, S-15, I-13)
    going_out = 0
    went_out = game.went_out
    if went_out is not None and game.team_of[went_out] == team:
        going_out = rules.go_out_bonus
        if game.concealed and rules.concealed_go_out_bonus:
            going_out = rules.concealed_go_out_bonus
    # cards left in hand (G-9, S-14, I-14)
    penalty = 0
    for seat in range(game.num_players):
        if game.team_of[seat] != team:
            continue
        hand = game.hands[seat]
        for kind in range(NUM_HAND_KINDS):
            if hand[kind]:
                value = rules.black3_in_hand_penalty if kind == BLACK3 else CARD_VALUES[kind]
                penalty += value * hand[kind]
    if not opened:
        penalty *= rules.unopened_hand_penalty_factor
    total = melded + bonus + sequences + red3 + count_bonus + going_out - penalty
    return {
        "melded": melded,
        "canasta_bonus": bonus,
        "sequences": sequences,
        "red3": red3,
        "count_bonus": count_bonus,
        "going_out": going_out,
        "hand_penalty": -penalty,
        "total": total,
        "canastas": count,
    }
