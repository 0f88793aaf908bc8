"""Options that several ``canasta`` commands share, built once so each means one thing.

=====================  =========================================================
``--variant NAME``     one preset of :data:`canasta_env.rules.PRESETS` (one table)
``--players N``        the number of players at that table (:data:`DEFAULT_PLAYERS`)
``--variant A,B``      several tables (``many=True``): presets, by commas or spaces
``--players 2,4``      ... and their player counts
``--rule KEY=VALUE``   a house rule, repeatable (:func:`canasta_env.rules.add_rule_option`)
``--seed N``           the seed of the deals (and of the agents)
``--trust-pickle``     load Stable-Baselines3 ``.zip`` models, which pickle loads
``--jobs N``           worker processes
=====================  =========================================================

Every parser is made by :func:`command_parser`, whose help shows each option's default.
A mistyped variant, alone or in a list, is answered with the nearest preset names.
:func:`table_notes` says, one line per agent, when a trained agent sits at a table it was not
trained for.
"""

from __future__ import annotations

import argparse
import difflib
import importlib.util
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


def missing_extra(extra: str, modules: Iterable[str]) -> str | None:
    """One line naming the extra to install where a module it brings is missing (said
    before any work: without it a run failed late, or with a traceback), else None."""
    missing = [name for name in modules if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    from canasta_env.extras import install_command

    return (
        f"needs the '{extra}' extra ({', '.join(missing)} not installed): {install_command(extra)}"
    )


def command_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """The parser of one ``canasta`` subcommand; ``description`` (often the module's
    docstring) is shown as plain text (:func:`plain_text`)."""
    return argparse.ArgumentParser(
        prog=prog, description=plain_text(description), formatter_class=HelpFormatter
    )


_ROLE = re.compile(r":(?:func|mod|class|meth|data|attr|exc):`~?([^`]+)`")


def plain_text(text: str | None) -> str | None:
    """Docstring markup as a terminal shows it: ``:func:`x``` and ````x```` become ``x``."""
    if text is None:
        return None
    return _ROLE.sub(r"\1", text).replace("``", "")


def did_you_mean(text: str, names: Iterable[str]) -> str:
    """`` (did you mean 'expert'?)`` with the nearest of ``names``, or ``""``."""
    near = difflib.get_close_matches(text, list(names), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(n) for n in near)}?)" if near else ""


def known_name(text: str, names: Iterable[str], what: str = "variant") -> str:
    """``text`` when it is one of ``names``; else ``ArgumentTypeError`` naming it, with the
    nearest names."""
    allowed = list(names)
    if text in allowed:
        return text
    raise argparse.ArgumentTypeError(
        f"unknown {what} {text!r}{did_you_mean(text, allowed)}; choose one of {', '.join(allowed)}"
    )


def variant_name(text: str) -> str:
    """A preset name (argparse ``type``): an unknown one is refused with the nearest names."""
    return known_name(text, sorted(PRESETS))


def add_table_options(
    parser: argparse.ArgumentParser,
    players: int | str | None = DEFAULT_PLAYERS,
    rules: bool = True,
    variant: str | None = "classic",
    many: bool = False,
    variants: Iterable[str] = PRESETS,
    otherwise: tuple[str, str] | None = None,
) -> None:
    """``--variant``, ``--players`` (one table) and, with ``rules``, ``--rule``. A default
    of None leaves the option None when it is not given (a resumed run keeps its own).

    ``many``: several tables. ``--variant`` (alias ``--variants``) takes names of
    ``variants`` and ``--players`` counts, each by commas or spaces (``--variant
    classic,spanish --players 2 4``), parsed into one list; a default is given as text
    (``"classic"``, ``"2"``). ``otherwise``: what leaving each out means, for the help
    (``("all if not given", "a new run: 2")``)."""
    names = sorted(variants)
    if many:
        left_out = otherwise or ("", "")
        parser.add_argument(
            "--variant",
            "--variants",
            dest="variant",
            nargs="+",
            action=_Joined,
            default=variant,
            type=name_list(names),
            metavar="NAME[,NAME]",
            help=f"rules presets, a list: {', '.join(names)}" + _unless(left_out[0]),
        )
        parser.add_argument(
            "--players",
            nargs="+",
            action=_Joined,
            default=players,
            type=int_list,
            metavar="N[,N]",
            help="player counts, a list (of 2, 3, 4, 6: each table the presets allow)"
            + _unless(left_out[1]),
        )
    else:
        parser.add_argument(
            "--variant",
            default=variant,
            type=variant_name,
            metavar="NAME",
            help=f"rules preset: {', '.join(names)}",
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


def _unless(meaning: str) -> str:
    return f" ({meaning})" if meaning else ""


class _Joined(argparse.Action):
    """Stores the items of every list given (``--players 2,4 6``: ``[2, 4, 6]``)."""

    def __call__(self, parser, namespace, values, option_string=None):
        setattr(namespace, self.dest, [item for group in values for item in group])


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
    from agents.registry import make_agent, split_label

    notes = []
    for name in dict.fromkeys(names):
        if not split_label(name)[1].startswith("ppo:"):  # a LABEL=NAME names the same model
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
    this_table = f"{variant}-{players}p"
    hint = f"; ppo:{this_table} is the one for this table" if this_table in _shipped() else ""
    trained = [tuple(t) for t in (getattr(agent, "meta", None) or {}).get("tables", [])]
    if trained and (variant, players) not in trained:
        seen = ", ".join(f"{v} {n}-player" for v, n in trained)
        return f"note: {name} was trained at {seen} tables, not {here}: expect weaker play" + hint
    shipped = _shipped_name(agent)
    match = re.fullmatch(r"(\w+)-(\d)p", shipped or "")
    if match and (match[1], int(match[2])) != (variant, players):
        tuned = f"{match[1]} {match[2]}-player"
        return f"note: {name} is the agent tuned for {tuned} tables, not {here}" + hint
    return None


def _shipped() -> dict[str, Path]:
    try:
        from agents.network import SHIPPED
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


# ---------------------------------------------------------------------- lists


def name_list(names: Iterable[str], what: str = "variant"):
    """An argparse ``type``: ``"classic,spanish"`` to a list of names, each one of ``names``
    (a mistyped one is named, with the nearest names: :func:`known_name`)."""
    allowed = list(names)

    def parse(text: str) -> list[str]:
        return [known_name(item, allowed, what) for item in text.split(",") if item]

    return parse


def int_list(text: str) -> list[int]:
    """An argparse ``type``: ``"2,4"`` to ``[2, 4]``; an item that is not a whole number is
    named."""
    numbers = []
    for item in (item for item in text.split(",") if item):
        try:
            numbers.append(int(item))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{item!r} in {text!r} is not a whole number"
            ) from None
    return numbers
