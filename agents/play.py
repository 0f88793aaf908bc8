"""A hand in the terminal against bots (:func:`play_hand`); its command line,
``canasta play``, is :mod:`canasta_cli.play`.

The table is drawn from your seat (other hands hidden). On your turn the legal
moves are listed as a numbered menu; type a number or an action in words
(``draw``, ``take``, ``meld K K K``, ``add 2 to K``, ``discard 7``). An illegal
action is refused with the reason and you are asked again. ``q`` quits,
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

from collections.abc import Callable
from typing import TextIO

import canasta_env
from agents.base import choose_action, refused_action
from agents.registry import make_agent
from canasta_env.actions import action_to_str, str_to_action
from canasta_env.engine.game import IllegalActionError, team_of_seat, teams_of
from canasta_env.engine.scoring import SHEET_ROWS as SCORE_SHEET
from canasta_env.render import render_table

#: Score sheet rows (keys), in the order they are added up (G-9).
SHEET_ROWS = tuple(key for key, _ in SCORE_SHEET)

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


def parse_move(text: str, legal: list[int]) -> int:
    """A menu number or an action in words -> action id (ValueError if neither)."""
    text = text.strip()
    if text.isdigit():
        number = int(text)
        if not 1 <= number <= len(legal):
            raise ValueError(f"choose a number from 1 to {len(legal)}")
        return legal[number - 1]
    return str_to_action(text)


def score_sheet(hand_scores: list[dict], team_names: list[str]) -> str:
    """The end-of-hand score sheet: one column per team, one row per item."""
    width = max(12, *(len(n) + 2 for n in team_names))
    lines = [" " * 15 + "".join(f"{n:>{width}}" for n in team_names)]
    for row in SHEET_ROWS:
        cells = "".join(f"{sheet.get(row, 0):>{width}}" for sheet in hand_scores)
        lines.append(f"{row:<15}{cells}")
    return "\n".join(lines)


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

    env = canasta_env.raw_env(variant=variant, num_players=num_players, **(rules or {}))
    env.reset(seed=seed)
    game = env.game
    bots = {}
    for seat in range(num_players):
        if seat == human:
            continue
        teammate = game.team_of[seat] == game.team_of[human]
        name = partners if teammate else opponents
        bot_seed = None if seed is None else seed * 31 + seat
        bot = make_agent(name, seed=bot_seed, trust_pickle=trust_pickle)
        bot.reset(seat, num_players, env.rules)
        bots[seat] = (name, bot)
    say(f"you are player {human}; {HELP}")
    hand_scores = None
    for agent in env.agent_iter():
        observation, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            hand_scores = info.get("hand_scores", hand_scores)  # the env's score sheet
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent]
        if seat != human:
            name, bot = bots[seat]
            action = choose_action(
                bot, game, observation["observation"], observation["action_mask"]
            )
            try:
                env.step(action)
            except IllegalActionError as error:
                raise refused_action(bot, seat, error) from error
            say(f"player {seat} ({name}): {action_to_str(action)}")
            continue
        legal = [int(a) for a in observation["action_mask"].nonzero()[0]]
        say()
        say(render_table(game, viewer=human, color=color))
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
            try:
                env.step(action)
            except IllegalActionError:
                say(f"illegal: {action_to_str(action)}: {game.explain_illegal(action)}")
                continue
            say(f"you: {action_to_str(action)}")
            break
    say()
    table = render_table(game, viewer=None, color=color)
    say(table.split("\nhand over")[0])  # every hand shown; the score sheet follows
    who = "" if game.went_out is None else f" (player {game.went_out})"
    say(f"hand over: {game.end_reason}{who}")
    say(score_sheet(hand_scores or game.hand_scores, team_labels(num_players, human)))
    return 0
