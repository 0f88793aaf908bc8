"""Text rendering of the table: hands, pot, melds, red 3s, runs and scores.

Every card is written in the one notation of the action texts and the logs
(docs/engine.md, "Card notation"): naturals as their rank (``K``, ``T`` for ten),
``2``, ``JK`` for a joker, ``B3`` for a black 3 and ``R3`` for a red 3 (suits
matter only for 3s, docs/rules.md ambiguity 13, so the engine does not keep them);
wild cards and red cards are highlighted in colour mode. With the optional S-19
runs on, naturals in hands carry their suit letter as in a card code (``5H``) and
each team's runs are listed as the action that lays them (``escala 6-Q S``).
"""

from __future__ import annotations

from canasta_env.actions import NUM_SLOTS, slot_name
from canasta_env.cards import (
    KIND_NAMES,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    RED3,
    RED_SUITS,
    SUITS,
    WILD_KINDS,
)
from canasta_env.engine.game import PHASE_HAND_OVER
from canasta_env.engine.melds import canasta_kind
from canasta_env.engine.scoring import SHEET_ROWS
from canasta_env.engine.sequences import NUM_SUITS

#: The notation in one line, printed at the top of every table (docs/engine.md).
NOTATION_LEGEND = "ranks 4 5 6 7 8 9 T J Q K A (T = ten), 2 and JK wild, B3 black 3, R3 red 3"
_RED = "\033[31m"
_WILD = "\033[33m"
_BOLD = "\033[1m"
_RESET = "\033[0m"


def card_text(kind: int, color: bool = False) -> str:
    """A card kind in the notation of the action texts: ``KIND_NAMES`` (``T``, ``JK``, ``B3``)."""
    text = KIND_NAMES[kind]
    if color and kind == RED3:
        return _RED + text + _RESET
    if color and kind in WILD_KINDS:
        return _WILD + text + _RESET
    return text


def hand_text(counts, color: bool = False) -> str:
    parts = []
    for kind in range(NUM_HAND_KINDS):
        if counts[kind]:
            parts.append(
                f"{card_text(kind, color)}x{counts[kind]}"
                if counts[kind] > 1
                else card_text(kind, color)
            )
    return " ".join(parts) if parts else "-"


def suited_hand_text(counts, suited, color: bool = False) -> str:
    """S-19: a hand with its naturals by suit, as card codes (``5S 5H QCx2``), then the
    other kinds."""
    parts = []
    for kind in range(NUM_NATURALS):
        rank = card_text(kind)
        for suit, letter in enumerate(SUITS):
            count = suited[kind * NUM_SUITS + suit]
            if count:
                text = rank + letter
                red = color and letter in RED_SUITS
                text = _RED + text + _RESET if red else text
                parts.append(f"{text}x{count}" if count > 1 else text)
    others = [0] * NUM_NATURALS + list(counts[NUM_NATURALS:NUM_HAND_KINDS])
    rest = hand_text(others, color)
    return " ".join(parts + ([rest] if rest != "-" else [])) or "-"


def runs_text(runs) -> str:
    """S-19: the runs a team laid, as the action that lays them (``escala 5-J H``,
    ``escala real S``)."""
    parts = []
    for suit, first, length in runs:
        if length == NUM_NATURALS:
            parts.append(f"escala real {SUITS[suit]}")
        else:
            span = f"{card_text(first)}-{card_text(first + length - 1)}"
            parts.append(f"escala {span} {SUITS[suit]}")
    return "  ".join(parts)


def melds_text(game, team: int) -> str:
    nat, two, jok, closed = game.team_melds(team)
    parts = []
    for slot in range(NUM_SLOTS):
        n, t, j = nat[slot], two[slot], jok[slot]
        if n + t + j:
            tag = ""
            if n + t + j >= game.rules.canasta_size:
                tag = "[clean canasta]" if canasta_kind(slot, n, t, j)[0] else "[canasta]"
            wilds = (f" +{t}x2" if t else "") + (f" +{j}xJK" if j else "")
            parts.append(f"{slot_name(slot)}:{n}{wilds}{tag}")
    for slot, n, t, j, hidden in closed:
        kind = "clean" if canasta_kind(slot, n, t, j)[0] else "dirty"
        parts.append(f"{slot_name(slot)}:{n + t + j}[{'hidden ' if hidden else ''}{kind} canasta]")
    return "  ".join(parts) if parts else "(no melds)"


def count_text(count: int, noun: str) -> str:
    """``1 card``, ``2 cards``: a count with its noun in the right number."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def seats_text(seats: list[int]) -> str:
    """``player 0`` for a one-seat team, ``players 0, 2`` for partners."""
    noun = "player" if len(seats) == 1 else "players"
    return f"{noun} {', '.join(map(str, seats))}"


def render_table(game, viewer: int | None = None, color: bool = False) -> str:
    """The table as text. ``viewer`` hides the other hands (None shows every hand)."""
    bold = _BOLD if color else ""
    reset = _RESET if color else ""
    lines = [
        f"{bold}{game.rules.name} canasta, {game.num_players} players, hand {game.hand_index + 1}"
        f"{reset}   stock {len(game.stock)}"
    ]
    suits_note = (
        "suits matter for 3s and runs" if game.rules.sequences else "suits matter only for 3s"
    )
    lines.append(f"cards: {NOTATION_LEGEND} ({suits_note})")
    size = game.rules.canasta_size
    lines.append(
        "melds: K:4 +1x2 +1xJK is four kings with one 2 and one joker; [canasta] at "
        f"{size} cards or more, [clean canasta] with no wild card"
    )
    pot = game.pot
    state = []
    if game.pot_wild:
        state.append("crossed" if game.rules.wild_crosses_pot else "frozen")
    if pot and pot[-1] >= NUM_NATURALS and pot[-1] != RED3:
        state.append("blocked")
    top = card_text(pot[-1], color) if pot else "empty"
    lines.append(f"pot: {top} ({count_text(len(pot), 'card')}{''.join(', ' + s for s in state)})")
    for team in range(game.num_teams):
        seats = [s for s in range(game.num_players) if game.team_of[s] == team]
        opened = "opened" if game.opened[team] else f"needs {game.need[team]}"
        runs = runs_text(game.escalas[team])
        lines.append(
            f"team {team} ({seats_text(seats)}) score {game.scores[team]}, "
            f"{opened}, red 3s {game.red3[team]}: {melds_text(game, team)}"
            + (f"  runs: {runs}" if runs else "")
        )
    for seat in range(game.num_players):
        marker = "->" if seat == game.current and game.phase != PHASE_HAND_OVER else "  "
        if (viewer is None or viewer == seat) and game.suits.tracked:
            cards = suited_hand_text(game.hands[seat], game.suits.hand(seat), color)
        elif viewer is None or viewer == seat:
            cards = hand_text(game.hands[seat], color)
        else:
            cards = count_text(game.hand_totals[seat], "card")
        lines.append(f"{marker} player {seat}: {cards}")
    if game.phase == PHASE_HAND_OVER:
        lines.append(f"hand over ({game.end_reason})")
        lines.append(score_sheet(game))
    return "\n".join(lines)


def score_sheet(game) -> str:
    """The end-of-hand score sheet, one column per team, and the game totals."""
    sheets = game.hand_scores or []
    header = "".rjust(22) + "".join(f"team {t}".rjust(10) for t in range(len(sheets)))
    lines = [header]
    for key, label in SHEET_ROWS:
        if key == "sequences" and not game.rules.sequences:
            continue
        lines.append(label.rjust(22) + "".join(f"{sheet[key]:>10}" for sheet in sheets))
    lines.append("game score".rjust(22) + "".join(f"{score:>10}" for score in game.scores))
    return "\n".join(lines)
