"""The table as an RGB image: what ``render_mode="rgb_array"`` returns.

:func:`table_image` draws one fixed-size picture (:data:`WIDTH` x :data:`HEIGHT`) of a
game with Pillow and its built-in font: the stock, the pot (top card, size, face-down
cards, frozen / crossed / blocked), then one panel per team with its score, opening
state, red 3s, melds and canastas (clean or dirty) and its players' hands, the player to
act marked. ``viewer=None`` is the spectator's (debug) view: every hand face up, as
:func:`canasta_env.render.render_table` shows it. ``viewer=seat`` is that player's view:
its own hand face up, the other hands as card backs with their sizes. Neither view shows
the order of the stock or the face-down pot cards.

Card colours: red 3s red, black 3s black, jokers purple, wild 2s amber. The engine keeps
no suit for the other cards (RULES.md ambiguity 13), so naturals are drawn by rank in
dark ink; with the optional S-19 runs on, hands keep their suits and naturals carry a
red heart or diamond, or a black spade or club. The same game gives the same pixels.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from canasta_env.actions import NUM_SLOTS, SLOT_BLACK3, SLOT_WILD
from canasta_env.cards import (
    BLACK3,
    JOKER,
    KIND_NAMES,
    NUM_HAND_KINDS,
    NUM_NATURALS,
    RED3,
    RED_SUITS,
    SUITS,
    TWO,
)
from canasta_env.engine.melds import canasta_kind
from canasta_env.engine.sequences import NUM_SUITS
from canasta_env.engine.state import PHASE_HAND_OVER, PHASE_NAMES

WIDTH, HEIGHT = 1024, 768
NO_SUIT = -1

# ----------------------------------------------------------------------------- palette
FELT = (24, 96, 62)
PANEL = (18, 74, 48)
PANEL_TO_ACT = (30, 110, 72)
TEXT = (236, 240, 232)
TEXT_DIM = (170, 200, 180)
HIGHLIGHT = (255, 214, 64)
CARD_FACE = (250, 250, 244)
CARD_EDGE = (70, 70, 70)
CARD_BACK = (44, 72, 150)
CARD_BACK_LINE = (90, 120, 200)
RED_INK = (200, 28, 40)
BLACK_INK = (20, 20, 24)
JOKER_INK = (124, 44, 170)
WILD_INK = (186, 120, 0)
PLAIN_INK = (44, 52, 70)
CLEAN_FRAME = (214, 36, 48)
DIRTY_FRAME = (16, 16, 16)
CHIP_FROZEN = (90, 170, 230)
CHIP_BLOCKED = (200, 60, 60)

# ----------------------------------------------------------------------------- geometry
MARGIN = 10
HEADER_H = 34
LEFT_W = 196
CARD_W, CARD_H = 46, 66
BIG_W, BIG_H = 64, 90
TILE_W, TILE_H = 44, 62
LABEL_W = 104
GAP = 5


class CardBox(NamedTuple):
    """Where a card (or a group of equal cards) was drawn: for tests and overlays."""

    place: str  #: "hand", "back", "pot", "meld", "canasta", "red3" or "run"
    owner: int  #: the seat (hand, back), the team (meld, canasta, red3, run), -1 (pot)
    kind: int
    suit: int  #: index in cards.SUITS, or NO_SUIT
    box: tuple[int, int, int, int]  #: left, top, right, bottom (inclusive)


@cache
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    return ImageFont.load_default(size=size)


def _rank_text(kind: int) -> str:
    if kind == JOKER:
        return "JK"
    if kind in (BLACK3, RED3):
        return "3"
    name = KIND_NAMES[kind]
    return "10" if name == "T" else name


def _ink(kind: int, suit: int) -> tuple[int, int, int]:
    if kind == RED3:
        return RED_INK
    if kind == BLACK3:
        return BLACK_INK
    if kind == JOKER:
        return JOKER_INK
    if kind == TWO:
        return WILD_INK
    if suit == NO_SUIT:
        return PLAIN_INK
    return RED_INK if SUITS[suit] in RED_SUITS else BLACK_INK


def _pip_suit(kind: int, suit: int) -> int:
    """The suit whose symbol a card shows: 3s show theirs (the text render names them B3, R3)."""
    if kind == RED3:
        return SUITS.index("H")
    if kind == BLACK3:
        return SUITS.index("S")
    if kind < NUM_NATURALS:
        return suit
    return NO_SUIT


def _pip(draw: ImageDraw.ImageDraw, cx: int, cy: int, r: int, suit: int, ink) -> None:
    """A suit symbol of radius ``r`` centred on (cx, cy), drawn from shapes (no glyphs)."""
    name = SUITS[suit]
    if name == "D":
        draw.polygon(
            [(cx, cy - r), (cx + r * 3 // 4, cy), (cx, cy + r), (cx - r * 3 // 4, cy)], ink
        )
        return
    lobe = max(2, r // 2)
    if name == "C":
        draw.ellipse((cx - lobe, cy - r, cx + lobe, cy - r + 2 * lobe), ink)
        draw.ellipse((cx - r, cy - lobe // 2, cx - r + 2 * lobe, cy + lobe * 3 // 2), ink)
        draw.ellipse((cx + r - 2 * lobe, cy - lobe // 2, cx + r, cy + lobe * 3 // 2), ink)
        draw.polygon([(cx, cy), (cx - lobe, cy + r), (cx + lobe, cy + r)], ink)
        return
    if name == "H":
        top = cy - r // 2
        draw.ellipse((cx - r, top - lobe, cx, top + lobe), ink)
        draw.ellipse((cx, top - lobe, cx + r, top + lobe), ink)
        draw.polygon([(cx - r, top + 1), (cx + r, top + 1), (cx, cy + r)], ink)
        return
    # spade: an upside-down heart on a stem
    bottom = cy + r // 3
    draw.ellipse((cx - r, bottom - lobe, cx, bottom + lobe), ink)
    draw.ellipse((cx, bottom - lobe, cx + r, bottom + lobe), ink)
    draw.polygon([(cx - r, bottom - 1), (cx + r, bottom - 1), (cx, cy - r)], ink)
    draw.polygon([(cx, bottom), (cx - lobe, cy + r), (cx + lobe, cy + r)], ink)


def _badge(draw: ImageDraw.ImageDraw, right: int, bottom: int, text: str) -> None:
    font = _font(11)
    width = int(draw.textlength(text, font=font)) + 6
    draw.rounded_rectangle((right - width, bottom - 14, right, bottom), 4, fill=BLACK_INK)
    draw.text((right - width + 3, bottom - 13), text, fill=CARD_FACE, font=font)


def _card(draw, left: int, top: int, kind: int, suit: int, count: int = 1, big=False) -> tuple:
    """A face-up card; ``count`` > 1 adds an ``x3`` badge. Returns its box."""
    w, h = (BIG_W, BIG_H) if big else (CARD_W, CARD_H)
    box = (left, top, left + w - 1, top + h - 1)
    draw.rounded_rectangle(box, 5, fill=CARD_FACE, outline=CARD_EDGE)
    ink = _ink(kind, suit)
    rank = _rank_text(kind)
    draw.text((left + 4, top + 2), rank, fill=ink, font=_font(14))
    centre = (left + w // 2, top + h // 2 + (4 if big else 6))
    pip = _pip_suit(kind, suit)
    if pip != NO_SUIT:
        _pip(draw, centre[0], centre[1], 12 if big else 10, pip, ink)
    elif kind == JOKER:
        _star(draw, centre[0], centre[1], 14 if big else 11, ink)
    else:
        draw.text(centre, rank, fill=ink, font=_font(30 if big else 22), anchor="mm")
    if count > 1:
        _badge(draw, box[2] - 2, box[3] - 2, f"x{count}")
    return box


def _star(draw, cx: int, cy: int, r: int, ink) -> None:
    inner = r * 2 // 5
    # a five-pointed star from fixed integer offsets (deterministic, no trigonometry per call)
    points = [(0, -r), (inner * 59 // 100, -inner * 81 // 100)]
    points += [(r * 95 // 100, -r * 31 // 100), (inner * 95 // 100, inner * 31 // 100)]
    points += [(r * 59 // 100, r * 81 // 100), (0, inner)]
    points += [(-r * 59 // 100, r * 81 // 100), (-inner * 95 // 100, inner * 31 // 100)]
    points += [(-r * 95 // 100, -r * 31 // 100), (-inner * 59 // 100, -inner * 81 // 100)]
    draw.polygon([(cx + x, cy + y) for x, y in points], ink)


def _back(draw, left: int, top: int, w: int = CARD_W, h: int = CARD_H) -> tuple:
    box = (left, top, left + w - 1, top + h - 1)
    draw.rounded_rectangle(box, 5, fill=CARD_BACK, outline=CARD_FACE)
    draw.rounded_rectangle((left + 4, top + 4, box[2] - 4, box[3] - 4), 3, outline=CARD_BACK_LINE)
    return box


def _chip(draw, left: int, top: int, text: str, colour) -> int:
    font = _font(12)
    width = int(draw.textlength(text, font=font)) + 10
    draw.rounded_rectangle((left, top, left + width, top + 17), 8, fill=colour)
    draw.text((left + 5, top + 2), text, fill=BLACK_INK, font=font)
    return left + width + 4


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _step(count: int, width: int, room: int) -> int:
    """Spacing of ``count`` items ``width`` wide in ``room`` pixels: overlapped when tight."""
    if count <= 1:
        return width + GAP
    return max(8, min(width + GAP, (room - width) // (count - 1)))


# ----------------------------------------------------------------------------- the hand
def _hand_groups(game, seat: int) -> list[tuple[int, int, int]]:
    """(kind, suit, count) groups of a hand, naturals by suit when S-19 keeps suits."""
    hand = game.hands[seat]
    suited = game.suits.hand(seat)  # None without S-19
    groups = []
    for kind in range(NUM_HAND_KINDS):
        if not hand[kind]:
            continue
        if suited is not None and kind < NUM_NATURALS:
            for suit in range(NUM_SUITS):
                n = suited[kind * NUM_SUITS + suit]
                if n:
                    groups.append((kind, suit, n))
        else:
            groups.append((kind, NO_SUIT, hand[kind]))
    return groups


def _draw_hand(draw, game, seat: int, open_hand: bool, left: int, top: int, room: int, boxes):
    to_act = seat == game.current and game.phase != PHASE_HAND_OVER
    label_colour = HIGHLIGHT if to_act else TEXT
    marker = "> " if to_act else ""
    draw.text((left, top + 8), f"{marker}player {seat}", fill=label_colour, font=_font(15))
    draw.text((left, top + 28), _cards(game.hand_totals[seat]), fill=TEXT_DIM, font=_font(12))
    x = left + LABEL_W
    room -= LABEL_W
    if open_hand:
        groups = _hand_groups(game, seat)
        step = _step(len(groups), CARD_W, room)
        for kind, suit, n in groups:
            boxes.append(CardBox("hand", seat, kind, suit, _card(draw, x, top, kind, suit, n)))
            x += step
        return
    shown = min(game.hand_totals[seat], 30)
    step = _step(shown, CARD_W, min(room, 400))
    for _ in range(shown):
        boxes.append(CardBox("back", seat, -1, NO_SUIT, _back(draw, x, top)))
        x += step


# ----------------------------------------------------------------------------- melds
def _slot_kind(slot: int) -> int:
    if slot == SLOT_WILD:
        return JOKER
    if slot == SLOT_BLACK3:
        return BLACK3
    return slot


def _tile(draw, left, top, slot, n, twos, jokers, size, finished, hidden=False) -> tuple:
    """A meld: its rank, card count, wild cards as dots, and a bar toward a canasta.

    A canasta gets a red frame (clean) or a black one (dirty), as the squared-up pile
    shows a red or a black card on top at a real table."""
    box = (left, top, left + TILE_W - 1, top + TILE_H - 1)
    total = n + twos + jokers
    if finished:  # offset shadows: a squared-up pile
        for shift in (4, 2):
            draw.rounded_rectangle(
                (left + shift, top - shift, box[2] + shift, box[3] - shift), 4,
                fill=CARD_FACE, outline=CARD_EDGE,
            )  # fmt: skip
    clean = canasta_kind(slot, n, twos, jokers)[0]
    frame = (CLEAN_FRAME if clean else DIRTY_FRAME) if finished else CARD_EDGE
    draw.rounded_rectangle(box, 4, fill=CARD_FACE, outline=frame, width=3 if finished else 1)
    kind = _slot_kind(slot)
    ink = _ink(kind, NO_SUIT)
    if slot == SLOT_WILD:
        draw.text((left + 4, top + 2), "wild", fill=ink, font=_font(11))
        _star(draw, left + TILE_W // 2, top + 28, 10, ink)
    else:
        label = _rank_text(kind)
        draw.text((left + 4, top + 2), label, fill=ink, font=_font(13))
        draw.text((left + TILE_W // 2, top + 29), label, fill=ink, font=_font(20), anchor="mm")
    dots = [WILD_INK] * twos + [JOKER_INK] * jokers
    for i, colour in enumerate(dots[:6]):
        x = left + 4 + i * 6
        draw.ellipse((x, top + 44, x + 4, top + 48), colour)
    if finished:  # the frame tells clean from dirty; the count goes where the bar was
        count = f"{total} hidden" if hidden else str(total)
        draw.text(
            (left + TILE_W // 2, top + 54), count, fill=BLACK_INK, font=_font(10), anchor="mm"
        )
        tag = "clean" if clean else "dirty"
    else:
        filled = min(total, size) * (TILE_W - 8) // size
        draw.rectangle((left + 4, top + 54, left + TILE_W - 5, top + 56), fill=(215, 215, 205))
        draw.rectangle((left + 4, top + 54, left + 4 + filled, top + 56), fill=frame)
        tag = f"{total}/{size}"
    draw.text((left + TILE_W // 2, box[3] + 9), tag, fill=TEXT, font=_font(11), anchor="mm")
    return box


def _draw_melds(draw, game, team: int, left: int, top: int, room: int, boxes) -> None:
    nat, two, jok, closed = game.team_melds(team)
    size = game.rules.canasta_size
    items = []
    for slot in range(NUM_SLOTS):
        n, t, j = nat[slot], two[slot], jok[slot]
        if n + t + j:
            items.append((slot, n, t, j, n + t + j >= size, False))
    for slot, n, t, j, hidden in closed:
        items.append((slot, n, t, j, True, hidden))
    runs = game.escalas[team]
    if not items and not runs:
        draw.text((left, top + 18), "no melds", fill=TEXT_DIM, font=_font(13))
        return
    step = _step(len(items) + len(runs), TILE_W + 6, room)
    x = left
    for slot, n, t, j, finished, hidden in items:
        box = _tile(draw, x, top + 4, slot, n, t, j, size, finished, hidden)
        place = "canasta" if finished else "meld"
        boxes.append(CardBox(place, team, _slot_kind(slot), NO_SUIT, box))
        x += step
    for suit, first, length in runs:  # S-19
        box = (x, top + 4, x + TILE_W - 1, top + 3 + TILE_H)
        draw.rounded_rectangle(box, 4, fill=CARD_FACE, outline=CLEAN_FRAME, width=2)
        ink = _ink(first, suit)
        span = f"{_rank_text(first)}-{_rank_text(first + length - 1)}"
        draw.text((x + 4, top + 6), span, fill=ink, font=_font(11))
        _pip(draw, x + TILE_W // 2, top + 34, 8, suit, ink)
        tag = "real" if length == NUM_NATURALS else "run"
        draw.text((x + TILE_W // 2, box[3] + 8), tag, fill=TEXT, font=_font(10), anchor="mm")
        boxes.append(CardBox("run", team, first, suit, box))
        x += step


# ----------------------------------------------------------------------------- panels
def _team_header(draw, game, team: int, left: int, top: int, right: int, boxes) -> None:
    seats = [s for s in range(game.num_players) if game.team_of[s] == team]
    who = "player" if len(seats) == 1 else "players"
    title = f"Team {team}  ({who} {', '.join(map(str, seats))})"
    draw.text((left, top), title, fill=TEXT, font=_font(16))
    x = left + int(draw.textlength(title, font=_font(16))) + 16
    score = f"score {game.scores[team]}"
    if game.phase == PHASE_HAND_OVER and game.hand_scores:
        score += f"  (hand {game.hand_scores[team]['total']:+d})"
    draw.text((x, top + 2), score, fill=HIGHLIGHT, font=_font(14))
    x += int(draw.textlength(score, font=_font(14))) + 14
    opened = "opened" if game.opened[team] else f"needs {game.need[team]} to open"
    draw.text((x, top + 2), opened, fill=TEXT_DIM, font=_font(13))
    count = game.red3[team]
    if count:  # red 3s: a small card at the header's right end, with their number
        mini_w, mini_h = 24, 32
        x = right - 12 - mini_w
        box = (x, top - 4, x + mini_w - 1, top - 5 + mini_h)
        label = "red 3s" + (f"  x{count}" if count > 1 else "")
        draw.text((x - 8, top + 3), label, fill=TEXT_DIM, font=_font(13), anchor="ra")
        draw.rounded_rectangle(box, 3, fill=CARD_FACE, outline=CARD_EDGE)
        draw.text((x + 3, top - 4), "3", fill=RED_INK, font=_font(11))
        _pip(draw, x + mini_w // 2, top + 16, 6, SUITS.index("H"), RED_INK)
        boxes.append(CardBox("red3", team, RED3, SUITS.index("H"), box))


def _draw_team(draw, game, team: int, viewer, box, boxes) -> None:
    left, top, right, bottom = box
    seats = [s for s in range(game.num_players) if game.team_of[s] == team]
    to_act = game.phase != PHASE_HAND_OVER and game.team_of[game.current] == team
    draw.rounded_rectangle(box, 10, fill=PANEL_TO_ACT if to_act else PANEL)
    inner_left, room = left + 10, right - left - 20
    _team_header(draw, game, team, inner_left, top + 8, right, boxes)
    _draw_melds(draw, game, team, inner_left, top + 32, room, boxes)
    y = top + 32 + TILE_H + 26
    for seat in seats:
        open_hand = viewer is None or viewer == seat
        _draw_hand(draw, game, seat, open_hand, inner_left, y, room, boxes)
        y += CARD_H + 6


_CHIP_COLOURS = {"frozen": CHIP_FROZEN, "crossed": CHIP_FROZEN, "blocked": CHIP_BLOCKED}


def pot_states(game) -> list[str]:
    """The pot's state for everyone, as the engine reads it: "frozen" or "crossed" by a
    wild card (C-9, I-8; S-6), "blocked" by a black 3, wild or red 3 on top (C-12)."""
    states = []
    if game.pot_wild:
        states.append("crossed" if game.rules.wild_crosses_pot else "frozen")
    pot = game.pot
    if pot and len(pot) > game.pot_hidden and pot[-1] >= NUM_NATURALS:
        states.append("blocked")
    return states


def _draw_pot(draw, game, left: int, top: int, boxes) -> int:
    draw.text((left, top), "stock", fill=TEXT, font=_font(15))
    draw.text((left + 86, top), "pot", fill=TEXT, font=_font(15))
    y = top + 22
    if game.stock:
        _back(draw, left + 4, y + 4, BIG_W, BIG_H)
        _back(draw, left, y, BIG_W, BIG_H)
    draw.text((left, y + BIG_H + 10), _cards(len(game.stock)), fill=TEXT_DIM, font=_font(13))
    pot, px = game.pot, left + 86
    if pot and len(pot) > game.pot_hidden:
        if len(pot) > 1:  # the card beneath peeks out: a back when it is face down
            if game.pot_hidden == len(pot) - 1:
                _back(draw, px + 4, y + 4, BIG_W, BIG_H)
            else:
                under = (px + 4, y + 4, px + BIG_W + 3, y + BIG_H + 3)
                draw.rounded_rectangle(under, 5, fill=CARD_FACE, outline=CARD_EDGE)
        suit = game.suits.pot_top() if pot[-1] < NUM_NATURALS else NO_SUIT
        box = _card(draw, px, y, pot[-1], suit, big=True)
        boxes.append(CardBox("pot", -1, pot[-1], suit, box))
    elif pot:
        _back(draw, px, y, BIG_W, BIG_H)
    else:
        draw.rounded_rectangle((px, y, px + BIG_W - 1, y + BIG_H - 1), 5, outline=TEXT_DIM)
    draw.text((px, y + BIG_H + 10), _cards(len(pot)), fill=TEXT_DIM, font=_font(13))
    y += BIG_H + 28
    if game.pot_hidden:
        draw.text((px, y), f"{game.pot_hidden} face down", fill=TEXT_DIM, font=_font(12))
        y += 18
    x = left
    for state in pot_states(game):
        x = _chip(draw, x, y, state, _CHIP_COLOURS[state])
    # C-9: frozen against a team that has not opened
    closed_to = [str(t) for t in range(game.num_teams) if game.pot_frozen_until_opened(t)]
    if closed_to:
        y += 22
        teams = "team" if len(closed_to) == 1 else "teams"
        note = f"frozen for {teams} {', '.join(closed_to)} until they open"
        y = _wrap(draw, left, y, note, TEXT_DIM, _font(12), LEFT_W - 10)
    return y + 24


def _wrap(draw, left: int, top: int, text: str, colour, font, width: int) -> int:
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and draw.textlength(trial, font=font) > width:
            draw.text((left, top), line, fill=colour, font=font)
            top += 16
            line = word
        else:
            line = trial
    if line:
        draw.text((left, top), line, fill=colour, font=font)
        top += 16
    return top


_SHEET_ROWS = (
    ("melded", "melded"),
    ("canasta_bonus", "canastas"),
    ("sequences", "runs"),
    ("red3", "red 3s"),
    ("count_bonus", "count bonus"),
    ("going_out", "going out"),
    ("hand_penalty", "in hand"),
    ("total", "hand total"),
)


def _draw_sheet(draw, game, left: int, top: int) -> None:
    """The end-of-hand score sheet, one column per team."""
    font = _font(12)
    draw.text((left, top), f"hand over: {game.end_reason}", fill=HIGHLIGHT, font=font)
    top += 20
    column = (LEFT_W - 78) // max(1, game.num_teams)
    for t in range(game.num_teams):
        draw.text((left + 76 + t * column, top), f"team {t}", fill=TEXT, font=font)
    for key, label in _SHEET_ROWS:
        if key == "sequences" and not game.rules.sequences:
            continue
        top += 16
        draw.text((left, top), label, fill=TEXT_DIM, font=font)
        for t, sheet in enumerate(game.hand_scores or []):
            value = str(sheet[key])
            right = left + 76 + (t + 1) * column - 8
            draw.text((right, top), value, fill=TEXT, font=font, anchor="ra")


def _header(draw, game, viewer) -> None:
    rules = game.rules
    title = f"{rules.name} canasta   {game.num_players} players   hand {game.hand_index + 1}"
    draw.text((MARGIN, 8), title, fill=TEXT, font=_font(18))
    if game.phase == PHASE_HAND_OVER:
        status = f"hand over ({game.end_reason})"
    else:
        status = f"player {game.current} to act: {PHASE_NAMES[game.phase]}"
    draw.text((WIDTH // 2, 10), status, fill=HIGHLIGHT, font=_font(16))
    view = "spectator view: every hand open" if viewer is None else f"view of player {viewer}"
    draw.text((WIDTH - MARGIN, 11), view, fill=TEXT_DIM, font=_font(13), anchor="ra")


def _legend(draw, game, left: int, bottom: int) -> None:
    font = _font(11)
    lines = ["2 and joker are wild", "3s: red laid out, black blocks"]
    lines.append("naturals: suits drawn" if game.suits.tracked else "naturals: no suit kept")
    for i, line in enumerate(lines):
        draw.text((left, bottom - 16 * (len(lines) - i)), line, fill=TEXT_DIM, font=font)


# ----------------------------------------------------------------------------- entry points
def table_image_with_boxes(game, viewer: int | None = None) -> tuple[np.ndarray, list[CardBox]]:
    """:func:`table_image`, and where each card was drawn."""
    if viewer is not None and not (
        isinstance(viewer, int) and not isinstance(viewer, bool) and 0 <= viewer < game.num_players
    ):
        raise ValueError(f"viewer must be None or a seat 0..{game.num_players - 1}, got {viewer!r}")
    image = Image.new("RGB", (WIDTH, HEIGHT), FELT)
    draw = ImageDraw.Draw(image)
    boxes: list[CardBox] = []
    _header(draw, game, viewer)
    y = _draw_pot(draw, game, MARGIN + 4, HEADER_H + 10, boxes)
    if game.phase == PHASE_HAND_OVER and game.hand_scores:
        _draw_sheet(draw, game, MARGIN + 4, y + 6)
    _legend(draw, game, MARGIN + 4, HEIGHT - MARGIN)
    teams = game.num_teams
    left, top = LEFT_W + MARGIN, HEADER_H
    height = (HEIGHT - top - MARGIN) // teams
    for team in range(teams):
        panel = (left, top + team * height, WIDTH - MARGIN, top + (team + 1) * height - 8)
        _draw_team(draw, game, team, viewer, panel, boxes)
    return np.asarray(image, dtype=np.uint8), boxes


def table_image(game, viewer: int | None = None) -> np.ndarray:
    """The table as a ``(HEIGHT, WIDTH, 3)`` uint8 RGB array.

    ``viewer=None``: the spectator's (debug) view with every hand face up, as the
    text render; ``viewer=seat``: only that seat's hand face up, the others as backs.
    """
    return table_image_with_boxes(game, viewer)[0]
