"""Generate ``docs/observation.md`` and the block table of
``canasta_env/observation/layout.py``'s docstring from the observation's declaration.

Every offset, size, scale and index order on the page and in the table comes from
:data:`canasta_env.observation.LAYOUT` and the card and slot constants; only the
meanings are written here, one per declared field, and a test checks that the
two lists name the same fields. ``python -m canasta_env.docs`` writes both.
"""

from __future__ import annotations

import re
import textwrap
from fractions import Fraction
from pathlib import Path

from canasta_env.actions import NUM_SLOTS, slot_name
from canasta_env.cards import KIND_NAMES, NUM_HAND_KINDS, NUM_KINDS, SUITS
from canasta_env.engine.sequences import SUITED_SIZE
from canasta_env.observation import (
    COUNTS,
    FLAG,
    FLAGS,
    LAYOUT,
    NO_CARD,
    NUMBER,
    OBS_SIZE,
    OBS_SIZE_V0,
    OBS_SIZE_V1,
    ONE_HOT,
    PER_SEAT,
    PER_TEAM,
    Field,
    Group,
)
from canasta_env.observation import layout as observation_layout

#: What each declared field holds, unscaled; group fields are named ``group.field``.
MEANINGS: dict[str, str] = {
    "hand": "cards of each holdable kind in the viewer's hand",
    "held": "pot cards set aside after an unopened team took the pot, until its opening "
    "minimum is met this turn (C-8); 0 except for the player to act",
    "pot_top": f"kind of the pot's top card; the last entry (read as {NO_CARD}) is an empty pot",
    "pot_size": "cards in the pot, face-down ones included",
    "pot_face_down": "face-down cards at the bottom of the pot (S-3, I-3)",
    "pot_frozen": "a wild card (or the card turned up at the start) froze the pot "
    "(C-3, C-9, I-3, I-8); 0 where wild cards cross it",
    "pot_crossed": "a wild card crossed the pot (S-3, S-6)",
    "pot_blocked": "the top card is not a natural (black 3, wild card, red 3): "
    "nobody may take the pot now (C-12, S-6, I-7)",
    "pot_frozen_for_me": "the pot is frozen against the viewer's team because it has not "
    "opened (C-9)",
    "pot_known": "the pot's face-up cards, per kind (red 3 included)",
    "teams.naturals": "naturals in the team's open meld of each slot (black 3s in the B3 slot)",
    "teams.twos": "2s in the open meld of each slot",
    "teams.jokers": "jokers in the open meld of each slot",
    "teams.is_canasta": "the open meld of the slot has reached canasta size",
    "teams.closed_clean": "finished clean canastas of each slot, in presets whose melds "
    "close at 7 (S-7)",
    "teams.closed_dirty": "finished dirty canastas of each slot (S-7)",
    "teams.present": "1 for a team at this table, 0 for a padding copy",
    "teams.red3": "red 3s laid out in front of the team (G-6)",
    "teams.opened": "the team has opened this hand (G-5)",
    "teams.opening_minimum": "the team's opening minimum this hand (C-8, S-8, I-9), kept "
    "after it opened",
    "teams.score": "the team's game total from the hands already finished (may be negative)",
    "teams.canastas": "canastas the team has, open and finished",
    "teams.clean": "clean canastas among them (wild canastas by their kind, S-10)",
    "teams.dirty": "dirty canastas among them",
    "players.present": "1 for a seat at this table, 0 for a padding copy",
    "players.teammate": "the seat plays in the viewer's team (the viewer's own copy too)",
    "players.hand_size": "cards in that seat's hand",
    "players.known": "cards every player saw that seat take with the pot and it still "
    "holds, per holdable kind (G-8)",
    "draw_phase": "the viewer is to act and must draw, take the pot or pass",
    "meld_phase": "the viewer is to act and may meld, then must discard",
    "staged": "opening points the viewer's unopened team laid this turn (G-5); 0 for a "
    "player not to act",
    "still_needed": "opening points the viewer's team still lacks this turn (the whole "
    "minimum for a player not to act; 0 once the team opened)",
    "took_pot": "the viewer took the pot this turn",
    "clean_only": "only clean melds may be laid this turn (I-10)",
    "may_go_out": "in the meld phase, the viewer's team meets the going-out conditions now "
    "(C-14, S-15, I-11)",
    "hidden_open": "a hidden canasta opened the team this turn (S-8)",
    "stock": "cards in the stock",
    "stock_short": "the stock holds fewer cards than one draw takes (C-16, S-17, I-11)",
    "steps": "actions applied so far in this hand",
    "num_players": "players at the table, one-hot over the values shown",
    "hand_number": "hand of the game, 0 for the first (saturates at 255)",
    "draw_count": "cards one draw takes (C-4, S-4, I-4)",
    "melds_close_at_7": "melds close into finished canastas (S-7)",
    "wild_melds": "melds of wild cards only are allowed (S-9, I-6)",
    "black3_melds": "black 3s may be melded (C-7, S-11)",
    "needs_clean_and_dirty": "going out needs a clean and a dirty canasta (S-15, I-11)",
    "three_to_take_frozen": "a frozen or crossed pot needs three naturals (S-6, I-8)",
    "wild_crosses_pot": "a discarded wild card crosses the pot rather than freezing it (S-6)",
    "target": "the target score of the game (G-7)",
    "suited_hand": "S-19: the viewer's naturals by rank and suit, entry rank x 4 + suit",
    "pot_suit": "S-19: suit of a natural pot top, one-hot (read as -1 otherwise)",
    "runs.escalas": "S-19: escalas (7 in a row) the team laid",
    "runs.escalas_reales": "S-19: escalas reales (4 to A) the team laid",
    "sequences_on": "the S-19 runs are played (`sequences=True`); the block is all 0 otherwise",
    "history.discarded": "cards the seat discarded this hand, per holdable kind",
    "history.declined": "plain draws the seat made while the pot's top card was of that kind "
    "(pot tops it let go)",
    "since_my_discard": "cards the other seats discarded since the viewer's own last discard "
    "(since the deal if none), per holdable kind",
}

_READS_AS = {
    COUNTS: "counts",
    NUMBER: "number",
    FLAG: "0/1",
    FLAGS: "0/1 each",
    ONE_HOT: "one-hot",
}
_PER = {PER_TEAM: "team", PER_SEAT: "seat"}


def declared_names() -> list[str]:
    """Every field of the layout, groups' fields as ``group.field``, in vector order."""
    names = []
    for block in LAYOUT.blocks:
        for item in block.items:
            if isinstance(item, Group):
                names += [f"{item.name}.{field.name}" for field in item.fields]
            else:
                names.append(item.name)
    return names


def _scale(value: float) -> str:
    fraction = Fraction(value).limit_denominator(100_000)
    return str(fraction.numerator) if fraction.denominator == 1 else f"1/{fraction.denominator}"


def _entries(field: Field) -> str:
    """What the entries of a multi-entry field stand for, in index order."""
    if field.kind == ONE_HOT:
        return "values " + " ".join(str(v) for v in field.values)
    if field.size == NUM_HAND_KINDS:
        return "holdable kinds"
    if field.size == NUM_KINDS:
        return "all kinds"
    if field.size == NUM_SLOTS:
        return "slots"
    if field.size == SUITED_SIZE:
        return "rank x 4 + suit"
    return ""


def _row(start: str, stop: str, name: str, field: Field) -> str:
    entries = _entries(field) if field.size > 1 else ""
    reads = _READS_AS[field.kind] + (f" ({entries})" if entries else "")
    return (
        f"| {start} | {stop} | {field.size} | `{name}` | {reads} | {_scale(field.scale)} "
        f"| {MEANINGS[name]} |"
    )


def _field_rows() -> list[str]:
    lines = [
        "| start | end | size | field | reads as | scale | meaning |",
        "|---|---|---|---|---|---|---|",
    ]
    for block in LAYOUT.blocks:
        lines.append(f"| **{LAYOUT.offsets[block.name]}** | | | **{block.name}** | | | |")
        for item in block.items:
            if isinstance(item, Field):
                span = LAYOUT.span(item.name)
                lines.append(_row(str(span.start), str(span.stop), item.name, item))
                continue
            for field in item.fields:
                span = LAYOUT.span(f"{item.name}.{field.name}")
                step = f" + {item.stride}k"
                name = f"{item.name}.{field.name}"
                lines.append(_row(f"{span.start}{step}", f"{span.stop}{step}", name, field))
    return lines


def _index_orders() -> list[str]:
    slots = ", ".join(f"{s} `{slot_name(s)}`" for s in range(NUM_SLOTS))
    suits = ", ".join(f"{i} `{suit}`" for i, suit in enumerate(SUITS))
    return [
        "## Index orders",
        "",
        f"**Card kinds** (`canasta_env.cards.KIND_NAMES`). The *holdable kinds* are the first "
        f"{NUM_HAND_KINDS}; *all kinds* add the red 3, which is never held (G-6). `T` is the "
        "10; `B3` and `R3` are black and red 3s.",
        "",
        "| " + " | ".join(str(i) for i in range(NUM_KINDS)) + " |",
        "|" + "---|" * NUM_KINDS,
        "| " + " | ".join(f"`{name}`" for name in KIND_NAMES) + " |",
        "",
        f"**Meld slots** (`canasta_env.actions.slot_name`), one meld each: {slots}.",
        "",
        f"**Suits** (S-19 fields): {suits}; a rank-and-suit entry is `kind x {len(SUITS)} + "
        f"suit` over the {SUITED_SIZE // len(SUITS)} natural kinds.",
        "",
    ]


def _copies() -> list[str]:
    lines = [
        "## Teams and seats, from the viewer",
        "",
        "Groups repeat one set of fields for each team or seat, counted from the viewer: copy",
        "`k = 0` is the viewer's own team (or the viewer's own seat), then `k = 1, 2, ...` go",
        "round the table in turn order. Teams are those of G-3 (at 4 players seats 0 and 2 play",
        "1 and 3; at 2 or 3 players each seat is a team). Copies past the table's teams or seats",
        "are all 0 (their `present` is 0); `decode_view` drops them.",
        "",
        "| group | one copy per | copies | entries per copy | copy starts |",
        "|---|---|---|---|---|",
    ]
    for name, group in LAYOUT.groups.items():
        first = LAYOUT.span(f"{name}.{group.fields[0].name}").start
        starts = ", ".join(str(first + k * group.stride) for k in range(group.repeat))
        lines.append(
            f"| `{name}` | {_PER[group.per]} | {group.repeat} | {group.stride} | {starts} |"
        )
    lines += [
        "",
        "Example at 4 players, seen by seat 1: `teams[0]` is seats 1 and 3, `teams[1]` seats 0 "
        "and 2, `teams[2]` is padding; `players[0]` is seat 1, `players[1]` seat 2 (the next "
        "to play), `players[2]` seat 3 (the partner), `players[3]` seat 0, `players[4]` and "
        "`players[5]` padding.",
        "",
    ]
    return lines


def example_code() -> str:
    """The page's example: one field read by name and by slicing (a test runs it)."""
    hand = LAYOUT.span("hand")
    score = LAYOUT.span("teams.score", 1)
    top = LAYOUT.span("pot_top")
    return f"""import canasta_env
from canasta_env.cards import KIND_NAMES
from canasta_env.observation import LAYOUT, decode_view

env = canasta_env.env(variant="classic", num_players=4)
env.reset(seed=1)
obs = env.observe(env.agent_selection)["observation"]

# by name: decode_view undoes the scales and drops the padding copies
view = decode_view(obs)
aces = view.hand[KIND_NAMES.index("A")]
their_score = view.teams[1].score  # the next team in turn order
top = view.pot_top  # a kind, or -1 for an empty pot

# by slicing: entries start..end of the table, divided by the scale
hand = obs[{hand.start}:{hand.stop}] / {hand.field.scale}  # hand: {hand.field.scale} per card
assert round(hand[KIND_NAMES.index("A")]) == aces
assert round(obs[{score.start}] / {score.field.scale}) == their_score  # teams[1].score
values = LAYOUT.span("pot_top").field.values  # kinds 0..14, then -1 (empty pot)
assert values[int(obs[{top.start}:{top.stop}].argmax())] == top  # pot_top, one-hot

# or let the layout find the entries
span = LAYOUT.span("teams.score", 1)  # copy 1 of the teams group
assert (span.start, span.stop) == ({score.start}, {score.stop})
"""


def observation_page() -> str:
    blocks = [
        "| block | start | end | size |",
        "|---|---|---|---|",
        *(
            f"| `{block.name}` | {LAYOUT.offsets[block.name]} | "
            f"{LAYOUT.offsets[block.name] + block.size} | {block.size} |"
            for block in LAYOUT.blocks
        ),
    ]
    lines = [
        "# The observation, entry by entry",
        "",
        "Generated by `python -m canasta_env.docs` from `canasta_env/observation/layout.py` "
        "(`LAYOUT`); do not edit.",
        "",
        f"Every player's observation is {OBS_SIZE} float32 entries, the same layout for every "
        "preset and player count, seen from the player it is for (the *viewer*). It holds only "
        "what that player may know (G-8): other hands appear as their sizes and the cards seen "
        "going into them from the pot, the stock as its size, face-down pot cards as their "
        "number.",
        "",
        "Each entry is a whole number times its *scale* (counts of one kind: 1/4, so four of a "
        "kind read 1.0). `canasta_env.observation.decode_view(obs)` reads the vector back into "
        "named, unscaled fields (`view.hand`, `view.teams[1].score`, `view.history[0].declined`, "
        "...); `LAYOUT.span(name, copy)` gives any field's `start` and `stop`.",
        "",
        f"The layout only grows at its end: `obs[:{OBS_SIZE_V0}]` is the layout from before "
        f"the S-19 runs block, `obs[:{OBS_SIZE_V1}]` the layout from before the history block.",
        "",
        "## Blocks",
        "",
        "`start` and `end` are Python slice bounds: a block is `obs[start:end]`.",
        "",
        *blocks,
        "",
        "## Fields",
        "",
        "In groups, `k` is the copy (below); *reads as* says how `decode_view` reads the "
        "field; the value is the entry divided by the scale.",
        "",
        *_field_rows(),
        "",
        *_copies(),
        *_index_orders(),
        "## Reading a field",
        "",
        "```python",
        example_code().rstrip("\n"),
        "```",
        "",
        "What the player to act may do is in the action mask, not in the observation "
        "(`canasta_env/actions.py` has the action table).",
    ]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- the module docstring

#: The line that opens the generated table in ``canasta_env/observation/layout.py``'s docstring;
#: the table runs to the ``Total:`` line.
TABLE_MARK = ".. The table is generated from LAYOUT by python -m canasta_env.docs; do not edit."
_TABLE = re.compile(re.escape(TABLE_MARK) + r"\n.*?\(``OBS_SIZE``\)\.\n", re.DOTALL)
#: Widths of the table's columns: block, start, size, fields (100 columns in all).
_WIDTHS = (22, 5, 5, 62)
#: Joins what the table must not break across lines (textwrap breaks only at plain spaces).
_NBSP = "\N{NO-BREAK SPACE}"


def _item_text(item: Field | Group) -> str:
    """A field as ``name`` or ``name (size)``; a group as its copies and its fields."""
    if isinstance(item, Group):
        inner = ", ".join(_item_text(field) for field in item.fields)
        copies = f"({item.repeat} x {item.stride})".replace(" ", _NBSP)
        return f"{item.name} per {_PER[item.per]}{_NBSP}{copies}: {inner};"
    return item.name if item.size == 1 else f"{item.name}{_NBSP}({item.size})"


def docstring_table() -> str:
    """The docstring's table of blocks: where each lies and the fields it holds, in order."""
    rule = "  ".join("=" * width for width in _WIDTHS)
    name_w, start_w, size_w, fields_w = _WIDTHS

    def row(name: str, start: str, size: str, text: str) -> list[str]:
        lines = [line.replace(_NBSP, " ") for line in textwrap.wrap(text, fields_w)] or [""]
        first = f"{name:<{name_w}}  {start:>{start_w}}  {size:>{size_w}}  {lines[0]}"
        indent = " " * (name_w + start_w + size_w + 6)
        return [first.rstrip()] + [indent + line for line in lines[1:]]

    lines = [TABLE_MARK, "", rule, *row("block", "start", "size", "fields (entries)"), rule]
    for block in LAYOUT.blocks:
        text = ", ".join(_item_text(item) for item in block.items).replace(";,", ";").rstrip(";")
        lines += row(block.name, str(LAYOUT.offsets[block.name]), str(block.size), text)
    lines.append(rule)
    sizes = " + ".join(str(block.size) for block in LAYOUT.blocks)
    total = f"Total: {sizes} = {OBS_SIZE} (``OBS_SIZE``)."
    return "\n".join([*lines, "", *textwrap.wrap(total, 100)]) + "\n"


def observation_module() -> str:
    """``canasta_env/observation/layout.py`` with its docstring's table regenerated."""
    path = Path(observation_layout.__file__)
    source = path.read_text(encoding="utf-8")
    if not _TABLE.search(source):
        raise ValueError(f"{path}: no generated table (a line {TABLE_MARK!r} ... Total:)")
    return _TABLE.sub(lambda _match: docstring_table(), source, count=1)
