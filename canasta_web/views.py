"""A game as JSON for the browser: what one seat sees, or the open view of a replay.

:func:`seat_view` is the only door through which a game reaches a page. It lists
what every player at the table may know (G-8): the viewer's own hand, the pot top
and its size, the face-up pot cards, every table (melds, canastas, red 3s, runs),
opening minimums and the points staged this turn, the stock size, hand sizes,
the cards each player is known to hold from a pot take, scores, and at the end
of a hand the score sheet. It never lists another player's cards, the stock
order or the face-down pot cards (S-3, I-3): ``open_view=True`` adds every hand,
for replays only, and marks the payload ``"open": true``.

Cards are kinds (:mod:`canasta_env.cards`), each shown as ``{"kind", "label",
"colour"}``, the label in the one card notation of every view (docs/engine.md, "Card
notation"); the engine keeps suits only with the S-19 runs, so only then do
naturals carry a suit (and its colour). Legal moves are listed with their ids and
text forms (:func:`canasta_env.action_to_str`), their kind (meld, add, discard...)
and the hand cards each one uses, so the page can find the one move that the cards a
player selected make, and show where a clicked card may go.
"""

from __future__ import annotations

from canasta_env.actions import (
    ACTION_TEXTS,
    MOVE_KIND_NAMES,
    MOVE_MELD,
    MOVES,
    NUM_SLOTS,
    slot_name,
)
from canasta_env.cards import (
    BLACK3,
    JOKER,
    NUM_HAND_KINDS,
    NUM_KINDS,
    NUM_NATURALS,
    RED3,
    RED_SUITS,
    SUITS,
    TWO,
)
from canasta_env.engine.game import Game
from canasta_env.engine.melds import canasta_kind
from canasta_env.engine.scoring import SHEET_ROWS
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import PHASE_HAND_OVER, PHASE_NAMES
from canasta_env.render import card_text


def card(kind: int, suit: int = -1) -> dict:
    """One card for the page: its kind, a label and the colour to draw it in. The label is
    the notation of the action texts and of the text table (:func:`canasta_env.render.card_text`:
    ``T``, ``JK``, ``B3``, ``R3``; a suited natural as its card code, ``5H``)."""
    label = card_text(kind)
    if kind in (TWO, JOKER):
        colour = "wild"
    elif kind == RED3:
        colour = "red"
    elif kind == BLACK3:
        colour = "black"
    elif suit >= 0:
        colour = "red" if SUITS[suit] in RED_SUITS else "black"
        label += SUITS[suit]
    else:
        colour = "plain"  # a natural without a suit: the engine does not follow it
    return {"kind": kind, "label": label, "colour": colour}


def cards_of_counts(counts: list[int], suited: list[int] | None = None) -> list[dict]:
    """Counts by kind as single cards, in kind order (naturals by suit when given)."""
    cards = []
    for kind in range(min(len(counts), NUM_KINDS)):
        if suited is not None and kind < NUM_NATURALS:
            for suit in range(NUM_SUITS):
                cards += [card(kind, suit)] * suited[kind * NUM_SUITS + suit]
        else:
            cards += [card(kind)] * counts[kind]
    return cards


def action_cards(action: int) -> list[int]:
    """The kinds of hand cards an action uses (one entry per card; [] for draw, pass and
    takes, whose naturals depend on the pot: :func:`legal_moves` asks the game)."""
    return list(MOVES[action].uses)


def move_kind(action: int) -> str:
    """What an action does, in the words of the page's buttons: ``draw``, ``take``,
    ``pass``, ``discard``, ``meld`` (a new meld), ``add`` (to a team meld) or ``run``."""
    move = MOVES[action]
    if move.kind == MOVE_MELD and not move.new:
        return "add"
    return MOVE_KIND_NAMES[move.kind]


def legal_moves(game: Game) -> list[dict]:
    """The legal actions of the player to act: id, text form, what kind of move it is
    (:func:`move_kind`) and the hand cards used."""
    return [
        {
            "id": action,
            "text": ACTION_TEXTS[action],
            "move": move_kind(action),
            "cards": game.cards_used(action),
        }
        for action in game.legal_actions()
    ]


def _team_view(game: Game, team: int) -> dict:
    rules = game.rules
    nat, two, jok, closed = game.team_melds(team)
    melds = []
    for slot in range(NUM_SLOTS):
        size = nat[slot] + two[slot] + jok[slot]
        if not size:
            continue
        clean = canasta_kind(slot, nat[slot], two[slot], jok[slot])[0]
        canasta = ("clean" if clean else "dirty") if size >= rules.canasta_size else None
        melds.append(
            {
                "slot": slot,
                "label": slot_name(slot),
                "naturals": nat[slot],
                "twos": two[slot],
                "jokers": jok[slot],
                "size": size,
                "canasta": canasta,
            }
        )
    canastas = [
        {
            "slot": slot,
            "label": slot_name(slot),
            "naturals": n,
            "twos": t,
            "jokers": j,
            "size": n + t + j,
            "canasta": "clean" if canasta_kind(slot, n, t, j)[0] else "dirty",
            "hidden": hidden,
        }
        for slot, n, t, j, hidden in closed
    ]
    runs = [
        {
            "suit": SUITS[suit],
            "cards": [card(rank, suit) for rank in range(start, start + length)],
            "royal": length == NUM_NATURALS,
        }
        for suit, start, length in game.escalas[team]
    ]
    return {
        "team": team,
        "seats": [s for s in range(game.num_players) if game.team_of[s] == team],
        "score": game.scores[team],
        "opened": game.opened[team],
        "opening_minimum": game.need[team],
        "red3": game.red3[team],
        "melds": melds,
        "canastas": canastas,
        "runs": runs,
    }


def _pot_view(game: Game) -> dict:
    pot = game.pot
    top = pot[-1] if pot else None
    wild_state = None
    if game.pot_wild:
        wild_state = "crossed" if game.rules.wild_crosses_pot else "frozen"
    return {
        "size": len(pot),
        "top": None if top is None else card(top),
        "state": wild_state,  # frozen (C-9) or crossed (S-6) by a wild card, else None
        "frozen_at_start": game.pot_start_frozen,
        # C-12, S-6, I-7: a wild card or a black 3 on top blocks the next player
        "blocked": top is not None and NUM_NATURALS <= top < NUM_KINDS and top != RED3,
        "face_down": game.pot_hidden,
        "face_up": cards_of_counts(game.pot_known[:NUM_HAND_KINDS]),
    }


def _score_sheet(game: Game) -> dict | None:
    if game.phase != PHASE_HAND_OVER or game.hand_scores is None:
        return None
    rows = [
        {"key": key, "label": label, "values": [sheet[key] for sheet in game.hand_scores]}
        for key, label in SHEET_ROWS
        if key != "sequences" or game.rules.sequences
    ]
    hand = game.result("hand")  # the one convention: canasta_env/engine/outcome.py
    return {
        "reason": game.end_reason,
        "went_out": game.went_out,
        "hand_winners": list(hand.winners),
        "hand_margins": hand.margins,
        "concealed": game.concealed if game.went_out is not None else False,
        "rows": rows,
        "game_scores": list(game.scores),
        "game_over": game.game_over,
        "winner_team": game.winner_team,
        "game_winners": list(game.result("game").winners),
        "target_score": game.rules.target_score,
    }


def seat_view(
    game: Game,
    viewer: int,
    names: list[str] | None = None,
    open_view: bool = False,
    legal: bool = True,
) -> dict:
    """What seat ``viewer`` sees of ``game`` (every hand too with ``open_view``).

    ``legal``: list the legal moves when it is the viewer's turn (a live table).
    """
    n = game.num_players
    acting = game.phase != PHASE_HAND_OVER and game.current == viewer
    players = []
    for seat in range(n):
        shown = open_view or seat == viewer
        suited = game.suits.hand(seat)  # None without S-19
        player = {
            "seat": seat,
            "name": names[seat] if names else f"player {seat}",
            "team": game.team_of[seat],
            "hand_size": game.hand_totals[seat],
            # cards all players saw it take with the pot (C-10)
            "known": cards_of_counts(game.known[seat][:NUM_HAND_KINDS]),
            "hand": cards_of_counts(game.hands[seat], suited) if shown else None,
        }
        players.append(player)
    # pot cards set aside for the opening (C-8) are the taker's; face-down ones are hidden
    held_shown = open_view or acting
    view = {
        "open": open_view,
        "variant": game.rules.name,
        "num_players": n,
        "viewer": viewer,
        "hand_index": game.hand_index,
        "hand_step": game.num_steps,
        "current": game.current,
        "phase": PHASE_NAMES[game.phase],
        "stock": len(game.stock),
        "draw_count": game.rules.draw_count,
        "target_score": game.rules.target_score,
        "pot": _pot_view(game),
        "teams": [_team_view(game, team) for team in range(game.num_teams)],
        "players": players,
        "staged": game.staged if game.phase != PHASE_HAND_OVER else 0,
        "held": cards_of_counts(game.held) if held_shown else None,
        "held_count": sum(game.held),
        "score_sheet": _score_sheet(game),
        "legal": legal_moves(game) if legal and acting else [],
    }
    return view


__all__ = ["action_cards", "card", "legal_moves", "move_kind", "seat_view"]
