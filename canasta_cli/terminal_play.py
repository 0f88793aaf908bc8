"""A hand in the terminal against bots (:func:`play_hand`); its command line,
``canasta play``, is :mod:`canasta_cli.play`.

The hand is played on a :class:`~canasta_env.table.Table`. The table is drawn
from your seat (other hands hidden). On your turn the legal moves are listed as
a numbered menu; type a number or an action in words (``draw``, ``take``,
``meld K K K``, ``add 2 to K``, ``discard 7``). An illegal action is refused
with the engine's reason and you are asked again. While your team's opening is
being laid, the points staged toward its minimum are shown (C-3: melds laid in
one turn count together), and when the menu has no discard a line says why
(``finish your opening first (30 of 50)``). ``q`` quits,
``?`` shows this help. Your partners (4 and 6 players) and opponents are bots
(``--partners`` defaults to ``--opponents``), any name ``make_agent`` takes: an
outside agent by import path too (``--opponents mypkg.bots:MyAgent``). A bot
that returns an illegal action ends the command with an error naming it. At
the end of the hand the score sheet of every team is shown. A ``ppo:`` bot that
is a Stable-Baselines3 ``.zip`` (other than the shipped ones) needs
``--trust-pickle``: pickle loads it and can run code it carries.

``main(argv, input_fn, output)`` (:func:`canasta_cli.play.main`) takes the input
function and the output stream so a test can drive a whole hand with scripted input.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TextIO

from agents.registry import make_agent
from canasta_env.actions import (
    DISCARD,
    MOVE_DISCARD,
    MOVE_DRAW,
    MOVE_KINDS,
    action_to_str,
    str_to_action,
)
from canasta_env.cards import KIND_NAMES
from canasta_env.engine.game import PHASE_MELD, Game, IllegalActionError, team_of_seat, teams_of
from canasta_env.engine.scoring import SHEET_ROWS as SCORE_SHEET
from canasta_env.render import render_table
from canasta_env.rules import check_player_count, make_rules
from canasta_env.table import Table

HELP = (
    "type the number of a move, or the move in words (draw, take, take +2, take onto meld, "
    "pass, meld K K K, meld 7 7 2, add Q, add 2 to Q, add JK to Q, discard 5); "
    "q quits, ? shows this help"
)

QUIT_WORDS = ("q", "quit", "exit")


def format_menu(legal: list[int], columns: int = 3) -> str:
    """The legal moves as a numbered menu (1-based), in columns."""
    cells = [f"{i:>3}) {action_to_str(a)}" for i, a in enumerate(legal, start=1)]
    width = max(len(c) for c in cells) + 2
    lines = []
    for start in range(0, len(cells), columns):
        lines.append("".join(c.ljust(width) for c in cells[start : start + columns]).rstrip())
    return "\n".join(lines)


#: The longest move in words worth reading ("add 2 to Q", "meld 7 7 7 2 2 JK ..."): a
#: longer line is refused without being repeated back.
MAX_MOVE_TEXT = 200


def parse_move(text: str, legal: list[int]) -> int:
    """A menu number or an action in words -> action id (ValueError if neither)."""
    text = text.strip()
    if text.isdecimal():  # (any script's digits; past 6 of them no menu is that long)
        if len(text) > 6 or not 1 <= int(text) <= len(legal):
            raise ValueError(f"choose a number from 1 to {len(legal)}")
        return legal[int(text) - 1]
    if len(text) > MAX_MOVE_TEXT:  # the refusal would repeat all of it
        raise ValueError(f"a move is a few words; that was {len(text):,} characters")
    return str_to_action(text)


def score_sheet(hand_scores: list[dict], team_names: list[str], sequences: bool = False) -> str:
    """The end-of-hand score sheet: one column per team, one row per item, named as the
    web's sheet names them (the runs row only where the rules have runs, S-19)."""
    rows = [(key, label) for key, label in SCORE_SHEET if key != "sequences" or sequences]
    left = max(len(label) for _key, label in rows) + 2
    width = max(12, *(len(n) + 2 for n in team_names))
    lines = [" " * left + "".join(f"{n:>{width}}" for n in team_names)]
    for key, label in rows:
        cells = "".join(f"{sheet.get(key, 0):>{width}}" for sheet in hand_scores)
        lines.append(f"{label:<{left}}{cells}")
    return "\n".join(lines)


def drawn_line(before: list[int], after: list[int], red3_laid: int) -> str:
    """What a draw brought the player: the kinds now held that were not (and the red 3s
    it laid down at once, G-6)."""
    gained = []
    for kind, (old, new) in enumerate(zip(before, after)):
        gained += [KIND_NAMES[kind]] * max(0, new - old)
    laid = ["R3 (laid down, another card drawn)"] * red3_laid
    return "you drew: " + (", ".join(laid + gained) or "nothing")


def opening_line(game: Game) -> str | None:
    """The points the player to act has staged toward the team's opening this turn, while
    the opening is under way (melds laid, minimum not reached); None otherwise."""
    team = game.team_of[game.current]
    if game.phase != PHASE_MELD or game.opened[team] or not game.melded_this_turn:
        return None
    need = game.need[team]
    return (
        f"opening: {game.staged} of {need} points laid this turn; "
        f"meld {need - game.staged} more before you may discard"
    )


def missing_discard_line(game: Game, legal: list[int]) -> str | None:
    """Why the menu has no discard, when the player could otherwise discard now (the
    engine's reason for discarding the first card held); None when there is one."""
    if game.phase != PHASE_MELD or any(MOVE_KINDS[a] == MOVE_DISCARD for a in legal):
        return None
    hand = game.hands[game.current]
    held = next((kind for kind, count in enumerate(hand) if count), None)
    if held is None:
        return None
    return f"no discard now: {game.explain_illegal(DISCARD + held)}"


def team_labels(num_players: int, human: int) -> list[str]:
    mine = team_of_seat(num_players, human)
    return [f"team {t}{' (you)' if t == mine else ''}" for t in range(teams_of(num_players))]


def play_hand(
    variant: str,
    num_players: int,
    human: int,
    opponents: str,
    partners: str,
    seed: int | None,
    color: bool,
    input_fn: Callable[[str], str],
    output: TextIO,
    rules: dict | None = None,
    trust_pickle: bool = False,
) -> int:
    """Play one hand; return 0 when it ends or the player quits. ``rules``: house rules;
    ``trust_pickle``: handed to :func:`make_agent` (``--trust-pickle``)."""

    def say(text: str = "") -> None:
        print(text, file=output)

    table_rules = make_rules(variant, **(rules or {}))
    check_player_count(table_rules, num_players)
    table = Table(table_rules, num_players, seed=seed)
    game = table.game  # read for drawing the table and for the engine's reasons
    bots = {}
    for seat in table.seats:
        if seat == human:
            continue
        teammate = table.team_of[seat] == table.team_of[human]
        name = partners if teammate else opponents
        bot_seed = None if seed is None else seed * 31 + seat
        bot = make_agent(name, seed=bot_seed, trust_pickle=trust_pickle)
        bot.reset(seat, num_players, table_rules)
        bots[seat] = (name, bot)
    say(f"you are player {human}; {HELP}")
    bot_agents = {seat: bot for seat, (_name, bot) in bots.items()}
    thinking: list[float] = []

    def announce(table) -> bool:  # before each bot decision: a search says it is thinking
        seat = table.current
        name, bot = bots[seat]
        if getattr(bot, "see_world", None) is not None:
            print(f"player {seat} ({name}) is thinking...", end="", file=output, flush=True)
            thinking.append(time.perf_counter())
        return False

    def played(seat, _observation, _mask, action) -> None:
        if thinking:
            print(f" {time.perf_counter() - thinking.pop():.2f} s", file=output)
        say(f"player {seat} ({bots[seat][0]}): {action_to_str(action)}")

    while not table.hand_over:  # the bots through Table.play, then the person's turn
        table.play(bot_agents, until=announce, on_decision=played)  # up to the person
        if table.hand_over:
            break
        legal = table.legal_actions()
        say()
        say(render_table(game, viewer=human, color=color))
        for line in (opening_line(game), missing_discard_line(game, legal)):
            if line is not None:
                say(line)
        say(format_menu(legal))
        while True:
            try:
                text = input_fn("your move> ")
            except EOFError:
                text = "q"
            if text.strip().lower() in QUIT_WORDS:
                say("quit.")
                return 0
            if text.strip() in ("?", "help", "h"):
                say(HELP)
                continue
            try:
                action = parse_move(text, legal)
            except ValueError as error:
                say(f"not understood: {error}")
                continue
            hand, red3 = list(game.hands[human]), game.red3[table.team_of[human]]
            try:
                table.step(action)
            except IllegalActionError:
                say(f"illegal: {action_to_str(action)}: {game.explain_illegal(action)}")
                continue
            say(f"you: {action_to_str(action)}")
            if MOVE_KINDS[action] == MOVE_DRAW:
                say(drawn_line(hand, game.hands[human], game.red3[table.team_of[human]] - red3))
            break
    say()
    drawn = render_table(game, viewer=None, color=color)
    say(drawn.split("\nhand over")[0])  # every hand shown; the score sheet follows
    who = "" if table.went_out is None else f" (player {table.went_out})"
    say(f"hand over: {table.end_reason}{who}")
    labels = team_labels(num_players, human)
    say(score_sheet(table.outcome()["hand_scores"], labels, table_rules.sequences))
    return 0
