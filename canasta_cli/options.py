"""Options that several ``canasta`` commands share, built once so each means one thing.

=====================  =========================================================
``--variant NAME``     one preset of :data:`canasta_env.rules.PRESETS` (one table)
``--players N``        the number of players at that table (:data:`DEFAULT_PLAYERS`)
``--rule KEY=VALUE``   a house rule, repeatable (:func:`canasta_env.rules.add_rule_option`)
``--seed N``           the seed of the deals (and of the agents)
``--trust-pickle``     load Stable-Baselines3 ``.zip`` models, which pickle loads
``--jobs N``           worker processes
=====================  =========================================================

Every parser is made by :func:`command_parser`, whose help shows each option's default.
A mistyped variant is answered with the nearest preset names. :func:`table_notes` says,
one line per agent, when a trained agent sits at a table it was not trained for.
"""

from __future__ import annotations

import argparse
import difflib
import re
from collections.abc import Iterable
from pathlib import Path

from canasta_env.rules import PRESETS, add_rule_option

#: Players at a table when ``--players`` is not given: the common game, and the table the
#: shipped ``ppo:default`` agent is measured at.
DEFAULT_PLAYERS = 2


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The description as written, and ``(default: X)`` after every option that has one
    (not after flags, whose default is off, nor options that default to nothing)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        default = action.default
        if default is None or default is False or default == [] or default is argparse.SUPPRESS:
            return action.help
        return super()._get_help_string(action)


def command_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The parser of one ``canasta`` subcommand."""
    return argparse.ArgumentParser(
        prog=prog, description=description, formatter_class=HelpFormatter
    )


def did_you_mean(text: str, names: Iterable[str]) -> str:
    """`` (did you mean 'expert'?)`` with the nearest of ``names``, or ``""``."""
    near = difflib.get_close_matches(text, list(names), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""


def variant_name(text: str) -> str:
    """A preset name (argparse ``type``): an unknown one is refused with the nearest names."""
    if text in PRESETS:
        return text
    raise argparse.ArgumentTypeError(
        f"unknown variant {text!r}{did_you_mean(text, PRESETS)}; choose one of "
        f"{', '.join(sorted(PRESETS))}"
    )


def add_table_options(
    parser: argparse.ArgumentParser,
    players: int | None = DEFAULT_PLAYERS,
    rules: bool = True,
    variant: str | None = "classic",
) -> None:
    """``--variant``, ``--players`` (one table) and, with ``rules``, ``--rule``. A default
    of None leaves the option None when it is not given (a resumed run keeps its own)."""
    parser.add_argument(
        "--variant",
        default=variant,
        type=variant_name,
        metavar="NAME",
        help=f"rules preset: {', '.join(sorted(PRESETS))}",
    )
    parser.add_argument(
        "--players",
        type=int,
        default=players,
        metavar="N",
        help="players at the table (2, 3, 4 or 6, as the preset allows)",
    )
    if rules:
        add_rule_option(parser)


def add_seed_option(
    parser: argparse.ArgumentParser, default: int | None = 0, what: str = ""
) -> None:
    parser.add_argument(
        "--seed", type=int, default=default, metavar="N", help=what or "seed of the deals"
    )


def add_jobs_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes")


def add_trust_pickle_option(parser: argparse.ArgumentParser, what: str = "agents") -> None:
    parser.add_argument(
        "--trust-pickle",
        action="store_true",
        help=f"load ppo: {what} that are Stable-Baselines3 .zip files, which Python's pickle "
        "loads and can run code: only for files whose source you trust",
    )


def agent_names_help() -> str:
    from agents.registry import available_agents

    return ", ".join(available_agents())


# ---------------------------------------------------------------------- trained agents' tables


def table_notes(
    names: Iterable[str], variant: str, players: int, trust_pickle: bool = False
) -> list[str]:
    """One line for each trained agent among ``names`` that sits at a table it was not
    trained for (its model file's ``tables``), or at another table than the one a shipped
    agent's name says (``ppo:classic-2p`` at 4 players). Names that do not load are left
    to the command's own error."""
    from agents.registry import make_agent

    notes = []
    for name in dict.fromkeys(names):
        if not name.startswith("ppo:"):
            continue
        try:
            agent = make_agent(name, trust_pickle=trust_pickle)
        except ValueError:
            continue
        note = _table_note(name, agent, variant, players)
        if note:
            notes.append(note)
    return notes


def _table_note(name: str, agent, variant: str, players: int) -> str | None:
    here = f"{variant} {players}-player"
    trained = [tuple(t) for t in (getattr(agent, "meta", None) or {}).get("tables", [])]
    if trained and (variant, players) not in trained:
        seen = ", ".join(f"{v} {n}-player" for v, n in trained)
        return f"note: {name} was trained at {seen} tables, not {here}: expect weaker play"
    shipped = _shipped_name(agent)
    match = re.fullmatch(r"(\w+)-(\d)p", shipped or "")
    if match and (match[1], int(match[2])) != (variant, players):
        tuned = f"{match[1]} {match[2]}-player"
        return f"note: {name} is the agent tuned for {tuned} tables, not {here}" + (
            f"; ppo:{variant}-{players}p is the one for this table"
            if f"{variant}-{players}p" in _shipped()
            else ""
        )
    return None


def _shipped() -> dict[str, Path]:
    try:
        from training.agent import SHIPPED
    except ImportError:
        return {}
    return SHIPPED


def _shipped_name(agent) -> str | None:
    """The shipped name (``classic-2p``) of the model file ``agent`` was loaded from."""
    path = getattr(agent, "path", None)
    if path is None:
        return None
    for shipped_name, shipped_path in _shipped().items():
        try:
            if Path(path).resolve() == shipped_path.resolve():
                return shipped_name
        except OSError:
            continue
    return None


# ---------------------------------------------------------------------- several tables


def name_list(names: Iterable[str], what: str = "variant"):
    """An argparse ``type``: ``"classic,spanish"`` to a list of names, each one of ``names``."""
    allowed = list(names)

    def parse(text: str) -> list[str]:
        items = [item for item in text.split(",") if item]
        for item in items:
            if item not in allowed:
                raise argparse.ArgumentTypeError(
                    f"unknown {what} {item!r}{did_you_mean(item, allowed)}; choose from "
                    f"{', '.join(allowed)}"
                )
        return items

    return parse


def int_list(text: str) -> list[int]:
    """An argparse ``type``: ``"2,4"`` to ``[2, 4]``."""
    try:
        return [int(item) for item in text.split(",") if item]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a list of integers: {text!r}") from None


def add_tables_options(parser: argparse.ArgumentParser, variants: Iterable[str]) -> None:
    """``--variant`` (alias ``--variants``) and ``--players`` for a command over several
    tables: each takes names or numbers separated by spaces or commas (``--variant
    classic,spanish --players 2 4``); :func:`flat` joins what was given."""
    variants = list(variants)
    parser.add_argument(
        "--variant",
        "--variants",
        dest="variants",
        nargs="+",
        type=name_list(variants),
        metavar="NAME",
        help=f"presets (all if not given): {', '.join(variants)}",
    )
    parser.add_argument(
        "--players",
        nargs="+",
        type=int_list,
        metavar="N",
        help="player counts (every count a preset allows if not given)",
    )


def flat(groups: list[list] | None) -> list | None:
    """The items of a list option of :func:`add_tables_options` (None when not given)."""
    return None if groups is None else [item for group in groups for item in group]
