"""``canasta play`` driven by scripted input."""

from __future__ import annotations

import io
import re

import pytest

from canasta_cli import play as play_command
from canasta_cli import terminal_play as play
from canasta_env.actions import str_to_action
from canasta_env.engine.scoring import SHEET_ROWS


def _scripted(lines):
    """An input function that answers with ``lines``, then quits."""
    answers = iter(lines)
    prompts = []

    def input_fn(prompt):
        prompts.append(prompt)
        return next(answers, "q")

    input_fn.prompts = prompts
    return input_fn


def _run(argv, lines):
    output = io.StringIO()
    input_fn = _scripted(lines)
    code = play_command.main(argv, input_fn=input_fn, output=output)
    return code, output.getvalue(), input_fn.prompts


BASE = ["--variant", "classic", "--players", "4", "--opponents", "greedy", "--seed", "7"]


def test_number_action_string_illegal_move_and_quit():
    """Player 0 opens the hand: 'draw' in words, an illegal move, a menu number, then quit."""
    code, text, prompts = _run(BASE + ["--no-color"], ["draw", "pass", "meld", "1", "q"])
    assert code == 0
    assert "your move" in prompts[0]
    assert "1) draw" in text  # the menu of the first turn
    assert "you: draw" in text
    # 'pass' is a real action but illegal now: the engine's reason is shown
    assert "illegal: pass: you have already drawn or taken the pot this turn" in text
    assert "not understood" in text  # 'meld' alone is not an action
    assert "you: discard" in text or "you: meld" in text or "you: add" in text
    assert text.rstrip().endswith("quit.")
    assert "\033[" not in text  # --no-color


def test_play_a_whole_hand_to_the_score_sheet():
    """Always choosing menu item 1 ends the hand; bots play the other seats."""
    output = io.StringIO()
    code = play_command.main(
        BASE + ["--no-color", "--opponents", "expert", "--partners", "greedy", "--seat", "1"],
        input_fn=lambda prompt: "1",
        output=output,
    )
    text = output.getvalue()
    assert code == 0
    assert "hand over:" in text
    for key, label in SHEET_ROWS:  # the sheet's rows by their names, never the code keys
        assert (label in text) == (key != "sequences"), key  # no runs row in classic
    sheet = text.split("hand over:")[1]
    assert not [
        code for code in ("canasta_bonus", "hand_penalty", "count_bonus", "red3 ") if code in sheet
    ]
    assert "you drew: " in text  # menu item 1 of a draw phase is the draw: it says the card
    assert "team 1 (you)" in text
    assert "player 0 (expert)" in text and "player 3 (greedy)" in text


@pytest.mark.parametrize("variant,players", [("spanish", 2), ("italian", 4), ("canastone", 3)])
def test_every_preset_can_be_played(variant, players):
    output = io.StringIO()
    argv = ["--variant", variant, "--players", str(players), "--seed", "1", "--no-color"]
    assert play_command.main(argv, input_fn=lambda prompt: "1", output=output) == 0
    assert "hand over:" in output.getvalue()


def test_a_staged_opening_is_shown_and_a_missing_discard_explained():
    """Seed 12, classic 4 players: after drawing, 'meld T T T' lays 30 of the 50 points the
    opening needs (C-3). The table shows the staged points, a line says why the menu has no
    discard, and a typed discard is refused with the engine's reason."""
    argv = ["--variant", "classic", "--players", "4", "--opponents", "greedy", "--seed", "12"]
    code, text, _ = _run(argv + ["--no-color"], ["draw", "meld T T T", "discard 4", "q"])
    assert code == 0
    before, after = text.split("you: meld T T T")
    assert "opening:" not in before and "no discard now" not in before
    assert "opening: 30 of 50 points laid this turn; meld 20 more before you may discard" in after
    assert "no discard now: finish your opening first (30 of 50)" in after
    assert "illegal: discard 4: finish your opening first (30 of 50)" in after
    assert ") discard" not in after  # the menu after the meld has no discard


def test_menu_and_move_parsing():
    legal = [0, 1, 6, 20]
    assert play.parse_move("2", legal) == 1
    assert play.parse_move(" discard 4 ", legal) == str_to_action("discard 4")
    assert play.parse_move("meld 10 10 10", legal) == str_to_action("meld T T T")
    with pytest.raises(ValueError):
        play.parse_move("5", legal)
    with pytest.raises(ValueError):
        play.parse_move("fold", legal)
    menu = play.format_menu(legal)
    assert "1) draw" in menu and "4) add 4" in menu


def test_bad_arguments_are_refused():
    assert _run(["--variant", "italian", "--players", "3"], [])[0] == 2
    assert _run(["--players", "2", "--seat", "2"], [])[0] == 2
    assert _run(["--opponents", "nobody"], [])[0] == 2


def test_end_of_input_quits():
    def closed(prompt):
        raise EOFError

    output = io.StringIO()
    assert play_command.main(BASE + ["--no-color"], input_fn=closed, output=output) == 0
    assert "quit." in output.getvalue()


def test_house_rule_runs_are_played_with_suits_shown():
    """``--rule sequences=true`` (S-19): the table shows suits, the hand ends normally."""
    output = io.StringIO()
    argv = ["--variant", "spanish", "--players", "2", "--seed", "0", "--no-color"]
    argv += ["--rule", "sequences=true"]
    assert play_command.main(argv, input_fn=lambda prompt: "1", output=output) == 0
    text = output.getvalue()
    assert "suits matter for 3s and runs" in text and "hand over:" in text


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("sequences", "KEY=VALUE"),
        ("sequence=true", "unknown rules field"),
        ("draw_count=0", ">= 1"),
    ],
)
def test_bad_house_rules_are_refused(rule, message):
    code, text, _ = _run(["--variant", "spanish", "--players", "2", "--rule", rule], [])
    assert code == 2 and message in text


class _Searching:
    """A stand-in search agent: asks for a world (``see_world``), then plays its first
    legal id; it records the worlds it was handed."""

    name = "searching"

    def __init__(self, seed=None):
        import random

        self.rng = random.Random(seed)
        self.worlds = 0

    def reset(self, seat, num_players, rules):
        pass

    def see_world(self, world):
        self.worlds += 1

    def act(self, observation, action_mask):
        return int(action_mask.nonzero()[0][0])


def test_a_search_agent_is_shown_thinking_with_its_time():
    """A bot that searches (``see_world``) gets a line saying it is thinking, then how long
    it took; a bot that does not search (greedy, the control) gets none."""
    from agents.registry import _FACTORIES, register_agent

    register_agent("test-searching", _Searching)
    try:
        code, text, _ = _run(
            [
                "--variant",
                "classic",
                "--players",
                "4",
                "--seed",
                "7",
                "--no-color",
                "--opponents",
                "test-searching",
                "--partners",
                "greedy",
            ],
            ["1"] * 400,
        )
    finally:
        del _FACTORIES["test-searching"]
    assert code == 0
    thinking = [line for line in text.splitlines() if "is thinking..." in line]
    assert thinking, text
    for line in thinking:  # the opponents' seats 1 and 3, each with its seconds
        assert re.fullmatch(r"player [13] \(test-searching\) is thinking\.\.\. \d+\.\d\d s", line)
    assert "player 2 (greedy) is thinking" not in text
    assert any(line.startswith("player 2 (greedy): ") for line in text.splitlines())


def test_a_move_naming_no_card_says_which_word():
    with pytest.raises(ValueError, match=r"not a card: '42' in 'discard 42'; cards are 4-9"):
        str_to_action("discard 42")
    with pytest.raises(ValueError, match=r"no move is written 'meld A A'"):
        str_to_action("meld A A")  # every word a card: the move itself is not one
    assert str_to_action("discard 7") == str_to_action("DISCARD 7")  # control: a real move


def test_drawn_line_names_the_cards_a_draw_brought():
    before = [0] * 15
    after = list(before)
    after[3] = 1  # a 7 (kinds 4 5 6 7 ...)
    assert play.drawn_line(before, after, 0) == "you drew: 7"
    assert play.drawn_line(before, after, 1) == "you drew: R3 (laid down, another card drawn), 7"
