"""Why an action is illegal: short reasons for error messages and the play command."""

from __future__ import annotations

from canasta_env.actions import (
    MOVE_DISCARD,
    MOVE_DRAW,
    MOVE_PASS,
    MOVE_RUN,
    MOVE_TAKE,
    MOVES,
    NUM_ACTIONS,
    SLOT_BLACK3,
    TAKE_ONTO_MELD,
)
from canasta_env.cards import KIND_NAMES, NUM_NATURALS, SUITS
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import PHASE_DRAW, PHASE_HAND_OVER


def explain(game, action: int) -> str:
    """Why ``action`` is not legal for the player to act in ``game`` (a ``Game``)."""
    if not 0 <= action < NUM_ACTIONS:
        return "no such action"
    if game.phase == PHASE_HAND_OVER:
        return "the hand is over"
    rules = game.rules
    player = game.current
    hand = game.hands[player]
    move = MOVES[action]
    if move.kind in (MOVE_DRAW, MOVE_TAKE, MOVE_PASS):
        if game.phase != PHASE_DRAW:
            return "you have already drawn or taken the pot this turn"
        if move.kind == MOVE_DRAW:
            return f"the stock has fewer than {rules.draw_count} card(s)"
        if move.kind == MOVE_PASS:
            if len(game.stock) >= rules.draw_count:
                return "you may pass only when the stock is exhausted"
            return "you must take the pot (it matches your meld)"
        if not game.pot:
            return "the pot is empty"
        top = game.pot[-1]
        if top >= NUM_NATURALS:
            return f"the pot is blocked: its top card is {KIND_NAMES[top]}"
        if action == TAKE_ONTO_MELD and not rules.take_onto_meld:
            return "this variant never takes the pot onto a meld"
        return (
            f"you cannot take the pot this way: you hold {hand[top]} {KIND_NAMES[top]}, the pot is "
            f"{'frozen' if game.pot_wild else 'not frozen'}, and the meld or opening must be legal"
        )
    if game.phase == PHASE_DRAW:
        return "draw or take the pot first"
    if move.kind == MOVE_DISCARD:
        kind = move.slot
        if not hand[kind]:
            return f"you hold no {KIND_NAMES[kind]}"
        if not game.opened[game.team_of[player]] and game.melded_this_turn:
            return f"finish your opening first ({game.staged} of {game.need[game.team_of[player]]})"
        if rules.black3_meld_only_going_out and game.nat[game.team_of[player]][SLOT_BLACK3]:
            return "your black 3s are melded: this turn must end by going out (C-7)"
        return "you may not empty your hand: your team may not go out yet"
    if move.kind == MOVE_RUN:
        if not rules.sequences:
            return "runs (escalas, S-19) are an optional rule that is off in this game"
        if not game.opened[game.team_of[player]]:
            return "only a team that has opened lays a run (S-19)"
        suit, start, length = move.suit, move.start, move.naturals
        if any(
            not game.suits.hands[player][rank * NUM_SUITS + suit]
            for rank in range(start, start + length)
        ):
            return f"you do not hold all {length} cards of that run in {SUITS[suit]}"
        return "after that run you could not finish the turn (keep a card to discard)"
    return (  # a meld move
        "that meld is not allowed: check the cards in your hand, the meld limits of "
        f"{rules.name}, the opening minimum and that you keep a card to discard"
    )
