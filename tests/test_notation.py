"""One card notation in every textual view (issue 22 item 6; docs/engine.md, "Card notation").

The same position is drawn as a text table (``render_table``), as a ``canasta play`` screen
and as the browser's view (``seat_view``'s card labels and the labels the page writes
itself); every card in each must be written as the action texts write it: ``4``..``9 T J
Q K A``, ``2``, ``JK``, ``B3``, ``R3`` (``x3`` for several alike; a suited natural of the
S-19 runs as its card code, ``5H``). A positive control shows that the checks catch the
old notations (``10``, ``🃏``, ``Joker``, ``3♠``, ``5♥``).
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest

from canasta_cli import terminal_play as play
from canasta_env.actions import ACTION_TEXTS, str_to_action
from canasta_env.cards import KIND_NAMES
from canasta_env.render import render_table
from canasta_env.rules import make_rules
from canasta_env.table import Table
from canasta_web.views import seat_view

ROOT = Path(__file__).resolve().parents[1]

#: Classic, 2 players: seat 0 holds a red 3 (laid out at once), four tens, two jokers,
#: two black 3s and a 2, so every special card is on the table or in the hand.
DECK = "3H TS TH TD TC JK JK 3S 3C 2C 5S 6S 7S 8S 9S 4S 4H 4D 5H 5D 6H 6D 7H 7D 8H 8D 9H 9D"
MOVES = ("draw", "meld T T T JK")
#: Spanish with the S-19 runs: naturals in hands carry suits.
SUITED_DECK = "5H 5S KD JK 2C 3S 7H 7C 9D 9S AH AS QD 8C 8H"

#: A card in the notation: a kind name, a suit letter only on a natural, a count.
CARD = re.compile(r"^(?:(?:[4-9TJQKA])[SHDC]?|2|JK|B3|R3)(?:x\d+)?$")
#: The notations the views used before: ten as 10, card pictures, suit symbols, words.
#: (A 10 among other digits, counting cards or numbering a menu line is a number.)
OLD = re.compile(r"🃏|♠|♥|♦|♣|Joker|(?<!\d)10(?!\d| cards?\b|\))")
ANSI = re.compile(r"\033\[[0-9;]*m")


def offences(text: str) -> list[str]:
    """The old notations in a text."""
    return OLD.findall(text)


def bad_cards(tokens) -> list[str]:
    """The tokens that are not a card in the notation."""
    return [t for t in tokens if not CARD.match(t)]


def table_cards(text: str) -> list[str]:
    """The card tokens of a text table: the hand lines (``player 0: ...``, not a count of
    hidden cards), the pot top and the naturals and wilds of each meld."""
    tokens = []
    for line in ANSI.sub("", text).splitlines():
        hand = re.match(r"^(?:->|  ) player \d+: (.*)$", line)
        if hand and not re.fullmatch(r"\d+ cards?", hand.group(1)) and hand.group(1) != "-":
            tokens += hand.group(1).split()
        pot = re.match(r"^pot: (\S+) \(", line)
        if pot and pot.group(1) != "empty":
            tokens.append(pot.group(1))
        for slot, wilds in re.findall(r"(\S+):\d+((?: \+\d+x\S+)*)", line):
            if slot != "wild":
                tokens.append(slot)
            tokens += [w.split("x", 1)[1] for w in wilds.split()]
    return tokens


def position(deck: str = DECK, variant: str = "classic", moves=MOVES, **rules) -> Table:
    table = Table(make_rules(variant, **rules), 2, seed=1, deck=deck)
    for move in moves:
        table.step(str_to_action(move))
    return table


def play_screen(monkeypatch) -> str:
    """``canasta play`` as seat 0 on the stacked deal: the moves of ``MOVES``, then quit."""
    monkeypatch.setattr(
        play, "Table", lambda rules, n, seed=None: Table(rules, n, seed=seed, deck=DECK)
    )
    lines = iter([*MOVES, "q"])
    output = io.StringIO()
    code = play.play_hand(
        "classic", 2, 0, "random", "random", 1, False, lambda prompt: next(lines), output
    )
    assert code == 0
    return output.getvalue()


def web_labels(view: dict) -> list[str]:
    """Every card label of a browser view (hands, pot, held, melds' slots, runs)."""
    labels = []

    def walk(node):
        if isinstance(node, dict):
            if "label" in node and "kind" in node:
                labels.append(node["label"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk({k: v for k, v in view.items() if k != "score_sheet"})
    for team in view["teams"]:
        labels += [m["label"] for m in team["melds"] + team["canastas"] if m["label"] != "wild"]
    return labels


def test_the_action_texts_are_the_notation():
    """The notation is the one the golden playthroughs pin: the action texts."""
    assert KIND_NAMES == tuple("456789TJQKA") + ("2", "JK", "B3", "R3")
    assert "discard T" in ACTION_TEXTS and "meld B3 B3 B3" in ACTION_TEXTS
    assert "add JK to T" in ACTION_TEXTS and "escala 6-Q S" in ACTION_TEXTS
    assert not [t for t in ACTION_TEXTS if offences(t)]


def test_positive_control_the_checks_catch_the_old_notations():
    old = "pot: 10 (1 card)\n-> player 0: 5♥ 10x2 K 2 🃏 3♠\nteam 0: 10:3 +1x🃏"
    assert offences(old) == ["10", "♥", "10", "🃏", "♠", "10", "🃏"]
    assert bad_cards(table_cards(old)) == ["10", "5♥", "10x2", "🃏", "3♠", "10", "🃏"]
    assert bad_cards(["Joker", "3♥", "T", "5H", "JKx2", "B3"]) == ["Joker", "3♥"]
    assert offences("score 110, stock 100, 10 cards") == []  # numbers are not cards


@pytest.mark.parametrize("color", [False, True])
def test_text_table(color):
    game = position().game
    text = render_table(game, viewer=None, color=color)
    tokens = table_cards(text)
    assert not offences(text) and not bad_cards(tokens), text
    for card in ("T", "JK", "B3x2", "2", "7"):  # hand, meld, pot top
        assert card in tokens, (card, text)
    assert "T:3 +1xJK" in ANSI.sub("", text)


def test_canasta_play_screen(monkeypatch):
    text = play_screen(monkeypatch)
    screens = [s for s in text.split("\n\n") if "player 0:" in s]
    assert len(screens) == 3  # before the draw, after it, after the meld
    assert "T:3 +1xJK" in screens[-1]
    assert not offences(text), text
    for screen in screens:
        assert not bad_cards(table_cards(screen)), screen
    assert "Tx4" in table_cards(screens[0]) and "JKx2" in table_cards(screens[0])
    menu = [
        m
        for line in text.splitlines()
        for m in re.findall(r"\d+\) ((?:draw|take|pass|discard|meld|add)\b.*?)(?=\s{2,}|$)", line)
    ]
    assert "meld T T T JK" in menu and "discard B3" in menu
    for move in menu:
        words = move.split()
        cards = [
            w
            for w in words
            if w not in ("draw", "take", "onto", "pass", "discard", "meld", "add", "to", "wild")
        ]
        assert not bad_cards(cards), move


def test_browser_view_and_page():
    table = position()
    labels = web_labels(seat_view(table.game, 0))
    assert not bad_cards(labels), labels
    assert {"T", "JK", "B3", "2", "7"} <= set(labels), labels
    page = (ROOT / "canasta_web" / "static" / "app.js").read_text(encoding="utf-8")
    written = re.findall(r'\{ label: "([^"]*)", colour:', page)  # the cards it draws itself
    assert {"JK", "R3"} <= set(written) and not bad_cards(written), written  # meld wilds, red 3s
    assert not offences(page)


def test_suited_hands_use_card_codes():
    """S-19: a suited natural is its card code (``5H``) in the text table and the page."""
    table = position(SUITED_DECK, "spanish", moves=(), sequences=True)
    text = render_table(table.game, viewer=None)
    tokens = table_cards(text)
    assert not offences(text) and not bad_cards(tokens), text
    assert {"5H", "5S", "KD", "JK"} <= set(tokens), tokens
    labels = web_labels(seat_view(table.game, 0))
    assert not bad_cards(labels) and {"5H", "5S", "KD"} <= set(labels), labels
