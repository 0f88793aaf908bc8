"""The page in a real browser: headless Chromium driven by Playwright's Python driver.

It uses Debian's Chromium (``/usr/bin/chromium``; CI installs it, see ``.ci/run``),
never a browser that Playwright downloads. Without Playwright or that browser the
tests are skipped, and the skip says which is missing.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the browser table needs the 'web' extra (fastapi)")
pytest.importorskip("uvicorn", reason="the browser table needs the 'web' extra (uvicorn)")
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="no playwright (the 'dev' extra) to drive a browser"
)

CHROMIUM = "/usr/bin/chromium"
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"no browser: {CHROMIUM} is missing (apt-get install chromium)", allow_module_level=True
    )

from canasta_arena.arena import run_arena  # noqa: E402
from canasta_web.app import create_app  # noqa: E402
from canasta_web.serve import background_server  # noqa: E402
from tests.replays import random_replay  # noqa: E402

#: Milliseconds the page may take for one request and redraw.
STEP_TIMEOUT = 15_000
#: True once the page shows a live table (it starts one when it opens).
READY = "window.canastaTable.state.view?.mode === 'live'"
#: True once the bots have moved and the page waits for the person (or the hand ended).
WAITS_FOR_PERSON = (
    "['you', 'next hand', 'game over'].includes(window.canastaTable.state.view?.waiting_for)"
)


@pytest.fixture(scope="module")
def app():
    return create_app()


@pytest.fixture(scope="module")
def url(app):
    with background_server(app) as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_function(READY)
    yield page
    context.close()
    assert errors == [], errors


def view(page) -> dict:
    return page.evaluate("window.canastaTable.state.view")


def start(page, seed: int, seats=("you", "expert"), speed: int = 0) -> None:
    page.select_option("#players", str(len(seats)))
    for seat, name in enumerate(seats):
        page.fill(f"#seat-{seat}", name)
    page.fill("#seed", str(seed))
    page.fill("#speed", str(speed))
    before = view(page)["table"]
    page.click("#start")
    page.wait_for_function(f"window.canastaTable.state.view.table !== {before!r}")


def test_a_whole_hand_by_clicks_against_a_bot(page):
    """Draw by its button; meld what a clicked card allows, else discard a clicked card."""
    start(page, seed=6)
    rng = random.Random(6)
    turns = 0
    while True:
        page.wait_for_function(WAITS_FOR_PERSON)
        current = view(page)
        if current["waiting_for"] != "you":
            break
        turns += 1
        assert turns < 200, "the hand did not end"
        legal = {move["id"] for move in current["legal"]}
        if current["phase"] == "draw":
            take = [m for m in current["legal"] if m["text"].startswith("take")]
            action = take[0]["id"] if take else 0
            page.click(f"#turn-moves button.move[data-action='{action}']")
        else:
            # click a hand card, then one of the moves the page shows for it
            cards = page.locator("#hand .card.playable")
            cards.nth(rng.randrange(cards.count())).click()
            # its moves: the selection's buttons (the moves that lay exactly it) and the
            # others that use it (#card-moves); each move has one control
            shown = page.locator("#selection button.move[data-action], #card-moves button.move")
            assert shown.count() > 0
            ids = [int(shown.nth(i).get_attribute("data-action")) for i in range(shown.count())]
            assert set(ids) <= legal and len(ids) == len(set(ids))  # one control a move
            texts = [shown.nth(i).inner_text() for i in range(shown.count())]
            melds = [i for i, text in enumerate(texts) if not text.startswith("discard")]
            shown.nth(melds[0] if melds else 0).click()
        page.wait_for_function(f"window.canastaTable.state.view.version > {current['version']}")
    final = view(page)
    assert final["phase"] == "hand over"
    assert page.locator("#score-table").is_visible()
    assert "hand over" in page.inner_text("#sheet")
    assert page.locator("#score-table tr.total").count() == 2  # hand total and game score
    if final["waiting_for"] == "next hand":
        page.click("#next-hand")
        page.wait_for_function("window.canastaTable.state.view.hand_index === 1")
        assert page.locator("#sheet").is_hidden()


def test_bots_move_one_by_one_at_the_set_speed(page):
    delay = 0.3
    start(page, seed=3, seats=("expert", "you"), speed=int(delay * 1000))
    page.wait_for_function("window.canastaTable.state.view.events.length === 1")
    shown_first = time.monotonic()
    assert view(page)["waiting_for"] == "bot"  # the bot's turn goes on, one move at a time
    page.wait_for_function(WAITS_FOR_PERSON)
    moves = len(view(page)["events"])
    assert moves >= 2 and page.locator("#log li").count() == moves
    assert all(event["seat"] == 0 for event in view(page)["events"])
    # each further move waited for the delay the user set
    assert time.monotonic() - shown_first >= 0.9 * delay * (moves - 1)


def test_the_page_says_which_bot_is_thinking(page):
    """While the server works out a bot's move the page says whose move it is (a search
    over the network may take a second); a mutation observer keeps every such line."""
    page.evaluate(
        """() => {
        window.seenThinking = [];
        new MutationObserver(() => {
          const line = document.getElementById("thinking");
          if (line) window.seenThinking.push(line.textContent);
        }).observe(document.body, { childList: true, subtree: true });
      }"""
    )
    start(page, seed=3, seats=("search:classic-2p@8", "you"))
    page.wait_for_function(WAITS_FOR_PERSON)
    seen = set(page.evaluate("window.seenThinking"))
    assert seen == {"search:classic-2p@8 (player 0) is thinking..."}, seen
    assert page.locator("#thinking").count() == 0  # gone once the person is to move


def test_an_illegal_move_is_refused_and_changes_nothing(page):
    start(page, seed=6)
    before = view(page)
    assert before["phase"] == "draw"
    # no discard before drawing: clicking a hand card shows no move for it
    page.locator("#hand .card").first.click()
    assert page.inner_text("#card-moves") == "no legal move uses this card now"
    # an id the server did not list, sent through the page's own call: refused by the server
    discard = 6 + before["players"][0]["hand"][0]["kind"]
    page.evaluate(f"window.canastaTable.act({discard})")
    page.wait_for_selector("#error:not(.hidden)")
    assert "illegal action" in page.inner_text("#error")
    assert view(page) == before
    again = page.evaluate(f"fetch('/api/tables/{before['table']}').then(r => r.json())")
    assert again == before
    # a legal move afterwards works and clears the message
    page.click("#turn-moves button.move[data-action='0']")
    page.wait_for_function("window.canastaTable.state.view.phase === 'meld'")
    assert page.locator("#error").is_hidden()


def test_a_stale_click_is_refused_and_the_page_catches_up(page):
    """Another tab moved the table on: the click made on the old view is refused (409)."""
    start(page, seed=6)
    before = view(page)
    # the other tab draws
    page.evaluate(
        f"""fetch('/api/tables/{before["table"]}/act', {{method: 'POST',
            headers: {{'Content-Type': 'application/json'}},
            body: JSON.stringify({{version: {before["version"]}, action: 0}})}})"""
    )
    page.wait_for_function(
        f"fetch('/api/tables/{before['table']}').then(r => r.json()).then(v => v.version === 1)"
    )
    page.click("#turn-moves button.move[data-action='0']")  # a draw on the page's old view
    page.wait_for_selector("#error:not(.hidden)")
    assert "stale request" in page.inner_text("#error")
    page.wait_for_function("window.canastaTable.state.view.version === 1")
    assert view(page)["phase"] == "meld"  # one draw, not two


def _replay_file(tmp_path: Path) -> tuple[Path, int]:
    replay = random_replay(8, 30, one_hand=True)
    path = tmp_path / "game.replay.json"
    replay.save(path)
    return path, replay.num_actions


def test_load_a_replay_and_step_through_it(page, tmp_path):
    path, moves = _replay_file(tmp_path)
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(path))
    page.click("#load-replay")
    page.wait_for_selector("#replay-controls:not(.hidden)")
    assert page.inner_text("#position-label") == f"position 0 of {moves}"
    for step in range(1, 4):
        page.click("#forward")
        page.wait_for_function(f"window.canastaTable.state.view.position === {step}")
    assert page.locator("#log li").count() == 3
    page.click("#back")
    page.wait_for_function("window.canastaTable.state.view.position === 2")
    assert page.locator("#log li").count() == 2
    # the other hand is face down until the open-cards view, which is clearly marked
    assert page.locator("#open-banner").is_hidden()
    assert page.locator("#others .card.back").count() > 0
    page.check("#open-cards")
    page.wait_for_function("window.canastaTable.state.view.open === true")
    assert page.locator("#open-banner").is_visible()
    assert "OPEN CARDS" in page.inner_text("#open-banner")
    assert page.locator("#others .card.back").count() == 0
    page.click("#last")
    page.wait_for_function(f"window.canastaTable.state.view.position === {moves}")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(f"window.canastaTable.state.view.position === {moves - 1}")


def test_load_an_arena_hand(page, tmp_path):
    run_arena(["random", "greedy"], "classic", 2, hands=2, seed=1, out_dir=tmp_path, plot=False)
    saved = json.loads((tmp_path / "results.json").read_text())["hands"][1]
    page.click("#tab-replay")
    page.set_input_files("#arena-file", str(tmp_path / "results.json"))
    page.fill("#arena-hand", "1")
    page.click("#load-replay")
    page.wait_for_selector("#replay-controls:not(.hidden)")
    assert page.inner_text("#status").startswith("arena hand 1:")
    assert page.inner_text("#position-label") == f"position 0 of {saved['steps']}"
    page.click("#last")
    page.wait_for_function(f"window.canastaTable.state.view.position === {saved['steps']}")
    totals = [
        int(cell)
        for cell in page.locator("#score-table tr.total").first.all_inner_texts()[0].split()[2:]
    ]
    assert totals == saved["team_scores"]


def test_the_open_view_never_shows_in_a_live_game(page):
    start(page, seed=2)
    assert page.locator("#open-banner").is_hidden()
    assert page.locator("#replay-controls").is_hidden()
    assert view(page)["open"] is False
    assert page.locator("#others .card.back").count() > 0


def test_no_request_leaves_this_machine(browser, url):
    """Nothing is fetched from the internet: every request goes to the local server."""
    context = browser.new_context()
    page = context.new_page()
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(url)
    page.wait_for_function(READY)
    page.click("#start")
    page.wait_for_function("window.canastaTable.state.view?.hand_step === 0")
    context.close()
    assert requested and all(address.startswith(url) for address in requested), requested


# ---------------------------------------------------------------------- ready table, selection
def test_the_page_opens_on_a_ready_table(page):
    """No click needed: classic, 2 players, the person at seat 0 against an expert bot."""
    opened = view(page)
    assert opened["variant"] == "classic" and opened["num_players"] == 2
    assert [p["name"].split()[0] for p in opened["players"]] == ["you", "expert"]
    assert page.locator("#table").is_visible()
    assert page.locator("#hand .card").count() == opened["players"][0]["hand_size"]
    page.wait_for_function(WAITS_FOR_PERSON)
    assert page.locator("#turn-moves button.move").count() > 0


def _draw(page) -> dict:
    current = view(page)
    page.click("#turn-moves button.move[data-action='0']")
    page.wait_for_function(f"window.canastaTable.state.view.version > {current['version']}")
    return view(page)


def _select(page, kinds: list[int]) -> None:
    """Click hand cards of these kinds, one card per entry."""
    hand = [c["kind"] for c in view(page)["players"][0]["hand"]]
    used = set()
    for kind in kinds:
        index = next(i for i, k in enumerate(hand) if k == kind and i not in used)
        used.add(index)
        page.click(f"#hand .card[data-index='{index}']")


def _sent(page, before: dict, move: dict) -> None:
    """The page sent ``move``: the next event of the hand is it."""
    page.wait_for_function(f"window.canastaTable.state.view.version > {before['version']}")
    assert view(page)["events"][len(before["events"])]["text"] == move["text"]


def test_select_cards_and_meld_them(page):
    """Selecting exactly a legal meld's cards makes the Meld button send that one id, and
    Discard stays off for a selection of more than one card."""
    for seed in range(8, 40):
        start(page, seed=seed)
        page.wait_for_function(WAITS_FOR_PERSON)
        if view(page)["waiting_for"] != "you":
            continue
        drawn = _draw(page)
        melds = [m for m in drawn["legal"] if m["move"] == "meld"]
        if melds:
            break
    else:
        pytest.fail("no deal in seeds 8..39 gives a meld after the first draw")
    meld = melds[0]
    assert page.locator("#meld-selected").is_disabled()  # nothing selected yet
    _select(page, meld["cards"])
    assert page.locator("#hand .card.selected").count() == len(meld["cards"])
    assert page.locator("#discard-selected").is_disabled()
    assert [sorted(m["cards"]) for m in melds].count(sorted(meld["cards"])) == 1
    assert page.get_attribute("#meld-selected", "data-action") == str(meld["id"])
    page.click("#meld-selected")
    _sent(page, drawn, meld)
    assert page.locator("#hand .card.selected").count() == 0  # the selection is spent


def test_select_one_card_and_discard_it(page):
    start(page, seed=6)
    page.wait_for_function(WAITS_FOR_PERSON)
    drawn = _draw(page)
    discard = next(m for m in drawn["legal"] if m["move"] == "discard")
    _select(page, discard["cards"])
    assert page.get_attribute("#discard-selected", "data-action") == str(discard["id"])
    page.click("#discard-selected")
    _sent(page, drawn, discard)


def test_a_selection_that_makes_no_move_sends_nothing(page):
    start(page, seed=6)
    page.wait_for_function(WAITS_FOR_PERSON)
    drawn = _draw(page)
    hand = [c["kind"] for c in drawn["players"][0]["hand"]]
    # two natural ranks: no single meld, add or discard lays just those two cards
    first, second = sorted(set(hand))[:2]
    _select(page, [first, second])
    for button in ("#meld-selected", "#add-selected", "#discard-selected"):
        assert page.locator(button).is_disabled()
    page.click("#clear-selection")
    assert page.locator("#hand .card.selected").count() == 0
    # the full list of legal moves stays one click away
    assert page.locator("#moves").is_hidden()
    page.click("#moves-box summary")
    assert page.locator("#moves button.move").count() == len(drawn["legal"])
    assert view(page)["version"] == drawn["version"]


def test_a_raised_card_leaves_the_seat_label_clear(page):
    page.wait_for_function(WAITS_FOR_PERSON)
    page.locator("#hand .card").first.click()
    raised = page.locator("#hand .card.selected").first.bounding_box()
    label = page.locator("#me-label").bounding_box()
    assert raised["y"] >= label["y"] + label["height"]


#: Plays the person's turns from the page (draw, then the first discard) to the hand's end.
_PLAY_TO_HAND_OVER = """async () => {
  const table = window.canastaTable;
  const over = () => ['next hand', 'game over'].includes(table.state.view.waiting_for);
  while (!over()) {
    const view = table.state.view;
    if (view.waiting_for === 'you' && !table.state.busy) {
      const move = view.legal.find((m) => m.id === 0)
        || view.legal.find((m) => m.move === 'discard') || view.legal[0];
      await table.act(move.id);
    } else {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}"""


def test_next_hand_is_in_view_at_1400_by_1000(browser, url):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(STEP_TIMEOUT)
    try:
        page.goto(url)
        page.wait_for_function(READY)
        start(page, seed=1)
        page.evaluate(_PLAY_TO_HAND_OVER)
        assert view(page)["waiting_for"] == "next hand"
        page.evaluate("window.scrollTo(0, 0)")
        box = page.locator("#next-hand").bounding_box()
        assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= 1000
    finally:
        context.close()
