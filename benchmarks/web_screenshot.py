"""The screenshot of the browser table in the README: docs/images/web_table.png.

Starts the web app (``canasta serve``'s app) on a free local port, opens the page in
headless Chromium (Playwright's Python driver, Debian's ``/usr/bin/chromium``), starts
a classic 4-player game against ``expert`` bots with a fixed seed, plays a few turns by
clicks (draw, then the first listed discard), clicks a hand card to show where it
can go, and saves the page. Needs the ``web`` and ``dev`` extras and a Chromium::

    python benchmarks/web_screenshot.py [--out docs/images/web_table.png] [--turns 6]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from canasta_web.app import create_app
from canasta_web.serve import background_server

CHROMIUM = "/usr/bin/chromium"
#: True once the bots have moved and the table waits for the person (or the hand ended).
WAITS_FOR_PERSON = (
    "['you', 'next hand', 'game over'].includes(window.canastaTable.state.view?.waiting_for)"
)


def play_turn(page) -> None:
    """One turn by clicks: take the pot when allowed, else draw; lay the first meld the
    page lists, a few times; then the first listed discard."""
    state = "window.canastaTable.state.view"
    page.wait_for_selector("#moves button.move")
    takes = page.locator("#moves button.move", has_text="take")
    (takes.first if takes.count() else page.locator("#moves button.move[data-action='0']")).click()
    for _ in range(4):
        page.wait_for_function(f"{state}.phase !== 'draw' || {state}.waiting_for !== 'you'")
        if page.evaluate(f"{state}.waiting_for") != "you":
            return
        version = page.evaluate(f"{state}.version")
        melds = page.locator("#moves button.move", has_text="meld")
        if not melds.count():
            break
        melds.first.click()
        page.wait_for_function(f"{state}.version > {version}")
    if page.evaluate(f"{state}.waiting_for") == "you":
        page.locator("#moves button.move", has_text="discard").first.click()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/images/web_table.png")
    parser.add_argument("--turns", type=int, default=10)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--players", type=int, default=4, help="you and expert bots")
    parser.add_argument("--chromium", default=CHROMIUM)
    args = parser.parse_args(argv)
    with background_server(create_app()) as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=args.chromium, headless=True)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(url)
        page.wait_for_selector("#seat-1")
        page.select_option("#players", str(args.players))
        page.fill("#seed", str(args.seed))
        page.fill("#speed", "0")
        page.click("#start")
        for _ in range(args.turns):
            play_turn(page)
            page.wait_for_function(WAITS_FOR_PERSON)
            if page.evaluate("window.canastaTable.state.view.waiting_for") != "you":
                break
        page.click("#moves button.move[data-action='0']")  # draw, then show a card's moves
        page.wait_for_selector("#hand .card.playable")
        page.locator("#hand .card.playable").last.click()
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=args.out, full_page=True)
        browser.close()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
