"""The screenshot of the browser table in docs/browser.md: docs/images/web_table.png.

Starts the web app (``canasta serve``'s app) on a free local port, opens the page in
headless Chromium (Playwright's Python driver, Debian's ``/usr/bin/chromium``), starts
a classic 4-player game against ``expert`` bots with a fixed seed, plays a few turns by
clicks (take or draw; select the cards of a legal meld and click Meld; select a card and
click Discard), selects the cards of a meld to show the selection's buttons, and saves
the page. Needs the ``web`` and ``dev`` extras and a Chromium::

    python benchmarks/web_screenshot.py [--out docs/images/web_table.png] [--turns 4]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from canasta_web.app import create_app
from canasta_web.serve import background_server

CHROMIUM = "/usr/bin/chromium"
STATE = "window.canastaTable.state.view"
#: True once the bots have moved and the table waits for the person (or the hand ended).
WAITS_FOR_PERSON = (
    "['you', 'next hand', 'game over'].includes(window.canastaTable.state.view?.waiting_for)"
)


def select(page, kinds: list[int]) -> None:
    """Click hand cards of these kinds, one card per entry."""
    hand = [c["kind"] for c in page.evaluate(f"{STATE}.players[{STATE}.viewer].hand")]
    used: set[int] = set()
    for kind in kinds:
        index = next(i for i, k in enumerate(hand) if k == kind and i not in used)
        used.add(index)
        page.click(f"#hand .card[data-index='{index}']")


def first_move(page, kind: str) -> dict | None:
    return page.evaluate(f"{STATE}.legal.find((m) => m.move === {kind!r}) ?? null")


def send_selected(page, kind: str, button: str) -> bool:
    """Select the cards of the first legal move of ``kind`` and click ``button``."""
    move = first_move(page, kind)
    if move is None:
        return False
    version = page.evaluate(f"{STATE}.version")
    select(page, move["cards"])
    page.click(button)
    page.wait_for_function(f"{STATE}.version > {version}")
    return True


def play_turn(page) -> None:
    """One turn by clicks: take the pot when allowed, else draw; meld the cards of the
    first legal meld, a few times; then discard the first legal discard."""
    page.wait_for_selector("#turn-moves button.move")
    takes = page.locator("#turn-moves button.move", has_text="take")
    (takes.first if takes.count() else page.locator("#turn-moves [data-action='0']")).click()
    for _ in range(4):
        page.wait_for_function(f"{STATE}.phase !== 'draw' || {STATE}.waiting_for !== 'you'")
        if page.evaluate(f"{STATE}.waiting_for") != "you":
            return
        if not send_selected(page, "meld", "#meld-selected"):
            break
    if page.evaluate(f"{STATE}.waiting_for") == "you":
        send_selected(page, "discard", "#discard-selected")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images/web_table.png")
    parser.add_argument("--turns", type=int, default=4)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--players", type=int, default=4, help="you and expert bots")
    parser.add_argument("--chromium", default=CHROMIUM)
    args = parser.parse_args(argv)
    with background_server(create_app()) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.wait_for_function(f"{STATE}?.mode === 'live'")  # the page opens on a game
        page.select_option("#players", str(args.players))
        page.fill("#seed", str(args.seed))
        page.fill("#speed", "0")
        first = page.evaluate(f"{STATE}.table")
        page.click("#start")
        page.wait_for_function(f"{STATE}.table !== {first!r}")
        for _ in range(args.turns):
            play_turn(page)
            page.wait_for_function(WAITS_FOR_PERSON)
            if page.evaluate(f"{STATE}.waiting_for") != "you":
                raise SystemExit(f"the hand ended within {args.turns} turns: ask fewer --turns")
        page.click("#turn-moves [data-action='0']")  # draw, then select a meld's cards
        page.wait_for_function(f"{STATE}.phase === 'meld'")
        move = first_move(page, "meld") or first_move(page, "add") or first_move(page, "discard")
        select(page, move["cards"])
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=args.out, full_page=True)
        browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
