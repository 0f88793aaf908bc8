"""Write core_decls.hpp: what the C++ core declares, read from the Python declarations.

    python csrc/gen_core_decls.py OUTPUT [SOURCE ...]

CMake runs this at build time (CMakeLists.txt, ``canasta_core_decls``) whenever one of the
Python files it reads changes; the SOURCE arguments are those files, and the run fails if
it read a file of the package (or of ``agents/``) that is not among them (the list in
CMakeLists.txt would miss a change). OUTPUT is rewritten only when its text changes. The
header holds:

* the constants of ``cards.py``, ``actions.py``, ``rules.py``, ``engine/sequences.py``,
  ``engine/state.py``, ``engine/opening.py``, ``engine/turn_bounds.py`` and
  ``observation/layout.py`` that the core uses, by their Python names (``NUM_KINDS``,
  ``MAX_NEW_MELD``, ``OBSERVATION_BYTE_MAX``, ``DFS_BUDGET``, ...);
* the tables those modules build: the move table (``MOVES``, a column per field), the
  compositions, ``ACTION_TEXTS``, each kind's card codes and suits, the player counts, the
  score sheet's rows (``engine/scoring.py SHEET_ROWS``, the X-macro ``CANASTA_SHEET_ROWS``);
* the state's fields the core holds (``engine/state.py``, ``state_decl::``), which
  ``state.hpp`` checks its ``CANASTA_STATE_FIELDS`` against at compile time;
* the rules fields as ``core_values.CORE_RULES`` declares them (shape, the range of each
  column, exact rows, not empty): ``rules_decl::FIELDS`` in ``Rules``' order, an id per
  field and the X-macro ``CANASTA_RULES_FIELDS``, which ``Rules::from_values``
  (``rules.cpp``) reads every field through;
* the observation's layout (``LAYOUT``): each field's first entry, entries and scale,
  each group's stride and copies, each one-hot field's values, and every span;
* from modules that import numpy, read as text (``py_source.py``): the batch's modes,
  redeals and reward_scale bounds (``table.py``, ``options.py``), the suits' parts of a state
  dict (``core.py``), and the house bots' numbers and names (``agents/``: heuristics,
  greedy, ``ExpertParams`` and ``StyleParams`` with their defaults, the styled families).

Only plain Python runs here: the package's ``__init__`` (gymnasium, numpy, the compiled
core) is skipped, and numpy is refused, so the build needs nothing beyond the standard
library (pip builds the wheel where only scikit-build-core and nanobind are installed).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import types
from pathlib import Path

from py_source import Source

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "canasta_env"
#: Subpackages whose modules are read; their ``__init__`` is not run.
SUBPACKAGES = ("engine", "observation")
#: What this reads and must never import: the build has none of it.
REFUSED = ("numpy", "gymnasium", "pettingzoo", f"{PACKAGE}._core")


class _Checkout(importlib.abc.MetaPathFinder):
    """Finds the package's modules in this checkout, ahead of any installed copy (an
    editable install's finder would give another checkout's files)."""

    def find_spec(self, name, path=None, target=None):
        parent, _, _ = name.rpartition(".")
        if parent != PACKAGE and not parent.startswith(PACKAGE + "."):
            return None
        folder = ROOT.joinpath(*parent.split("."))
        return importlib.machinery.PathFinder.find_spec(name, [str(folder)])


def load_declarations() -> dict[str, types.ModuleType]:
    """The declaring modules, imported from this checkout without the package's
    ``__init__`` files."""
    for name in REFUSED:
        sys.modules[name] = None  # an import of it raises ImportError
    sys.meta_path.insert(0, _Checkout())
    for package in (PACKAGE, *(f"{PACKAGE}.{sub}" for sub in SUBPACKAGES)):
        module = types.ModuleType(package)
        module.__path__ = [str(ROOT.joinpath(*package.split(".")))]
        sys.modules[package] = module
    names = (
        "cards",
        "actions",
        "rules",
        "core_values",
        "engine.sequences",
        "engine.state",
        "engine.scoring",
        "engine.turn_bounds",
        "engine.opening",
    )
    modules = {name: importlib.import_module(f"{PACKAGE}.{name}") for name in names}
    modules["layout"] = importlib.import_module(f"{PACKAGE}.observation.layout")
    return modules


def read_files() -> set[Path]:
    """The package's source files imported so far, and those read as text."""
    found = set(Source.read)
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and name.startswith(PACKAGE + "."):
            found.add(Path(path).resolve())
    return found


# ---------------------------------------------------------------------- C++ text
def is_int32(value: int) -> bool:
    return -(2**31) <= value < 2**31


def cpp_int(value: int) -> str:
    if not -(2**63) < value < 2**63:
        raise ValueError(f"{value} does not fit an int64_t")
    return str(value) if is_int32(value) else f"int64_t({value})"


def cpp_float(value: float) -> str:
    """The Python float (a double) as a float32, as numpy's float32 of it: repr reads back
    as the same double, and the cast rounds it to nearest as numpy does."""
    return f"static_cast<float>({float(value)!r})"


def cpp_string(text: str) -> str:
    assert all(32 <= ord(c) < 127 and c not in '"\\' for c in text), text
    return f'"{text}"'


def cpp_row(values) -> str:
    return "{" + ", ".join(cpp_int(v) for v in values) + "}"


def cpp_literal(value) -> str:
    """A bool, an int or a float as C++ (a float as repr, which reads back as the same double)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return cpp_int(value)
    if isinstance(value, float):
        return repr(value)
    raise TypeError(f"{value!r} is no bool, int or float")


def cpp_name(name: str) -> str:
    return name.upper()


class Header:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def constant(self, name: str, value: int, comment: str = "", wide: bool = False) -> None:
        kind = "int" if is_int32(value) and not wide else "int64_t"
        tail = f"  // {comment}" if comment else ""
        self.add(f"constexpr {kind} {name} = {cpp_int(value)};{tail}")

    def array(self, declaration: str, items: list[str]) -> None:
        """``declaration = {items};`` on one line, or wrapped at 96 columns."""
        line = f"{declaration} = {{{', '.join(items)}}};"
        if len(line) <= 96:
            self.add(line)
            return
        self.add(f"{declaration} = {{")
        row = ""
        for item in items:
            if row and len(row) + len(item) + 2 > 96:
                self.add(row.rstrip())
                row = ""
            row += ("    " if not row else "") + item + ", "
        self.add(row.rstrip(), "};")

    def ints(self, name: str, values, size: str | None = None) -> None:
        declaration = f"inline constexpr int {name}[{size or len(values)}]"
        self.array(declaration, [cpp_int(v) for v in values])

    def chars(self, name: str, text: str) -> None:
        self.add(f"inline constexpr char {name}[] = {cpp_string(text)};")

    def strings(self, name: str, values, size: str | None = None) -> None:
        declaration = f"inline constexpr const char* {name}[{size or len(values)}]"
        self.array(declaration, [cpp_string(v) for v in values])

    def double(self, name: str, value: float) -> None:
        """A Python float as the same double (repr reads back as it)."""
        self.add(f"constexpr double {name} = {float(value)!r};")

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


# ------------------------------------------------------------------- constants
def write_constants(out: Header, m: dict[str, types.ModuleType]) -> None:
    cards, actions, rules, state = m["cards"], m["actions"], m["rules"], m["engine.state"]
    sequences, layout = m["engine.sequences"], m["layout"]
    out.add("// ---- cards.py: card kinds (naturals 4..A are 0..10), values, names, suits")
    for name in ("NUM_NATURALS", "TWO", "JOKER", "BLACK3", "RED3", "NUM_KINDS", "NUM_HAND_KINDS"):
        out.constant(name, getattr(cards, name))
    out.add(
        "inline constexpr std::array<int, NUM_KINDS> CARD_VALUES = {"
        + ", ".join(str(v) for v in cards.CARD_VALUES)
        + "};"
    )
    out.strings("KIND_NAMES", cards.KIND_NAMES, "NUM_KINDS")
    out.chars("SUITS", cards.SUITS)
    out.add("// engine/sequences.py: suits of the S-19 runs; naturals counted by kind * 4 + suit")
    out.constant("NUM_SUITS", sequences.NUM_SUITS)
    out.constant("SUITED_SIZE", sequences.SUITED_SIZE)
    out.add("", "// ---- actions.py: the action layout's id ranges, meld slots and runs")
    for name in (
        "DRAW",
        "TAKE",
        "TAKE_WITH_TWO",
        "TAKE_WITH_JOKER",
        "TAKE_ONTO_MELD",
        "PASS",
        "DISCARD",
        "ADD_NATURAL",
        "ADD_TWO",
        "ADD_JOKER",
        "NEW_MELD",
        "NUM_COMPOSITIONS",
        "NEW_BLACK3",
        "NEW_WILD",
        "ESCALA",
        "SEQUENCE_LENGTH",
        "NUM_ACTIONS",
        "MAX_NEW_MELD",
        "NUM_SLOTS",
        "SLOT_BLACK3",
        "SLOT_WILD",
    ):
        out.constant(name, getattr(actions, name))
    out.constant("NUM_WILD_COMPOSITIONS", len(actions.WILD_COMPOSITIONS))
    out.constant("NUM_RUNS", len(actions.RUNS))
    out.ints("RUN_START", [start for start, _ in actions.RUNS], "NUM_RUNS")
    out.ints("RUN_LENGTH", [length for _, length in actions.RUNS], "NUM_RUNS")
    out.add("", "// ---- observation/layout.py: the largest table (teams and seats padded to it)")
    out.constant("MAX_PLAYERS", layout.MAX_PLAYERS)
    out.constant("MAX_TEAMS", layout.MAX_TEAMS)
    assert layout.MAX_PLAYERS == max(rules.PLAYER_COUNTS)
    out.add("", "// ---- rules.py: limits of the rules, team conditions (red3_sign's index)")
    for name in (
        "OBSERVATION_BYTE_MAX",
        "MAX_DECKS",
        "MAX_DECK_CARDS",
        "MAX_COUNT",
        "MAX_SCORE",
        "MAX_POINTS",
        "MAX_FACTOR",
        "ACE",
    ):
        out.constant(name, getattr(rules, name))
    for name in (
        "TEAM_NO_MELD",
        "TEAM_NO_CANASTA",
        "TEAM_CLEAN_ONLY",
        "TEAM_DIRTY_ONLY",
        "TEAM_CLEAN_AND_DIRTY",
    ):
        out.constant(name, getattr(rules, name))
    out.add("", "// ---- engine/state.py: phases, and the end reasons by their index")
    for name in ("PHASE_DRAW", "PHASE_MELD", "PHASE_HAND_OVER"):
        out.constant(name, getattr(state, name))
    out.strings("PHASE_NAMES", state.PHASE_NAMES)
    for name in ("END_WENT_OUT", "END_STOCK", "END_BLACK3"):
        out.constant(name, state.END_REASONS.index(getattr(state, name)), getattr(state, name))
    out.strings("END_REASONS", state.END_REASONS)


# ----------------------------------------------------------------------- engine
def write_engine(out: Header, m: dict[str, types.ModuleType]) -> None:
    """What the engine's modules declare beside the constants: the move table and the
    action texts, card codes and suits, the score sheet's rows, the search's order."""
    actions, cards, sequences, rules = m["actions"], m["cards"], m["engine.sequences"], m["rules"]
    out.add("", "// ---- actions.py: the kinds of move (MOVE_KIND_NAMES), in id order")
    for value, name in enumerate(actions.MOVE_KIND_NAMES):
        assert getattr(actions, f"MOVE_{name.upper()}") == value, name
    kinds = ", ".join(f"MOVE_{name.upper()}" for name in actions.MOVE_KIND_NAMES)
    out.add(f"enum MoveKind : uint8_t {{ {kinds} }};")
    out.add(
        "// MOVES: what each id does, one column per field of actions.py's Move (less uses and",
        "// points, which the core works out where it needs them); COMPOSITIONS (naturals, twos,",
        "// jokers) and WILD_COMPOSITIONS (twos, jokers) in action order; ACTION_TEXTS.",
        "namespace moves_decl {",
    )
    columns = (
        ("KIND", "uint8_t", "kind"),
        ("SLOT", "int8_t", "slot"),
        ("NATURALS", "uint8_t", "naturals"),
        ("TWOS", "uint8_t", "twos"),
        ("JOKERS", "uint8_t", "jokers"),
        ("NEW", "bool", "new"),
        ("SUIT", "int8_t", "suit"),
        ("START", "int8_t", "start"),
    )
    for name, kind, field in columns:
        values = [getattr(move, field) for move in actions.MOVES]
        out.array(f"inline constexpr {kind} {name}[NUM_ACTIONS]", [cpp_literal(v) for v in values])
    out.add("}  // namespace moves_decl")
    out.array(
        "inline constexpr uint8_t COMPOSITION_ROWS[NUM_COMPOSITIONS][3]",
        [cpp_row(c) for c in actions.COMPOSITIONS],
    )
    out.array(
        "inline constexpr uint8_t WILD_COMPOSITION_ROWS[NUM_WILD_COMPOSITIONS][2]",
        [cpp_row(c) for c in actions.WILD_COMPOSITIONS],
    )
    out.array(
        "inline constexpr const char* ACTION_TEXTS[NUM_ACTIONS]",
        [cpp_string(text) for text in actions.ACTION_TEXTS],
    )

    out.add(
        "",
        "// ---- cards.py: each kind's code (kind_code) and its code in each suit (suited_code);",
        "// engine/sequences.py: the suits each kind exists in per deck (a joker: -1)",
    )
    out.strings("KIND_CODES", [cards.kind_code(k) for k in range(cards.NUM_KINDS)], "NUM_KINDS")
    suits = range(sequences.NUM_SUITS)
    out.array(
        "inline constexpr const char* SUITED_CODES[NUM_KINDS][NUM_SUITS]",
        [
            "{" + ", ".join(cpp_string(cards.suited_code(kind, suit)) for suit in suits) + "}"
            for kind in range(cards.NUM_KINDS)
        ],
    )
    # the kinds suited_deck deals in suits, and a joker's suit (-1) as assign_suits gives it
    kind_suits = [sequences._KIND_SUITS.get(k, (-1,)) for k in range(cards.NUM_KINDS)]
    out.ints("KIND_SUIT_COUNT", [len(s) for s in kind_suits], "NUM_KINDS")
    padded = [(*s, *(-1,) * (sequences.NUM_SUITS - len(s))) for s in kind_suits]
    out.array("inline constexpr int KIND_SUITS[NUM_KINDS][NUM_SUITS]", [cpp_row(s) for s in padded])

    counts = rules.PLAYER_COUNTS
    out.add("", "// ---- rules.py: the player counts a table seats")
    out.ints("PLAYER_COUNTS", counts)
    words = ", ".join(map(str, counts[:-1])) + f" or {counts[-1]}"
    out.chars("PLAYER_COUNTS_TEXT", words)

    scoring = m["engine.scoring"]
    keys = [key for key, _ in scoring.SHEET_ROWS]
    out.add(
        "",
        "// ---- engine/scoring.py SHEET_ROWS: a hand's score sheet, row by row (then canastas)",
    )
    out.constant("NUM_SHEET_ROWS", len(keys))
    out.add("#define CANASTA_SHEET_ROWS(X)" + "".join(f" \\\n  X({key})" for key in keys))

    opening, bounds = m["engine.opening"], m["engine.turn_bounds"]
    out.add("", "// ---- engine/opening.py: the turn search's budget and its order of the slots")
    out.constant("DFS_BUDGET", opening.DFS_BUDGET)
    out.ints("ORDER", opening.ORDER, "NUM_SLOTS")
    out.constant("FIRST_NATURAL", opening.FIRST_NATURAL)
    out.add("// ---- engine/turn_bounds.py: the opening's knapsack and the bound of no limit")
    out.constant("LEAST_WILD_POINTS", bounds.LEAST_WILD_POINTS, wide=True)
    out.constant("WILD_SLACK", bounds.WILD_SLACK)
    out.constant("MOST_WILDS_COUNTED", bounds.MOST_WILDS_COUNTED)
    out.constant("NO_LIMIT", bounds.NO_LIMIT, wide=True)


# ------------------------------------------------------------------------ state
def write_state(out: Header, m: dict[str, types.ModuleType]) -> None:
    state = m["engine.state"]
    assert set(state.PYTHON_ONLY_FIELDS) <= set(state.STATE_FIELDS)
    names = [name for name in state.STATE_FIELDS if name not in state.PYTHON_ONLY_FIELDS]
    out.add(
        "",
        "// ---- engine/state.py GameState: the fields the core holds (less PYTHON_ONLY_FIELDS),",
        "// each by its place; state.hpp's CANASTA_STATE_FIELDS must list exactly these, in order",
        "namespace state_decl {",
        "enum Id : int {",
        *(f"  {name}," for name in names),
        "  NUM_FIELDS",
        "};",
        "}  // namespace state_decl",
    )


# ------------------------------------------------------------------------ table
def mode_names(out: Header, enum: str, name: str, modes: tuple[str, ...]) -> None:
    """``enum class`` of the modes (upper case) and their names, in order."""
    out.add(f"enum class {enum} {{ {', '.join(mode.upper() for mode in modes)} }};")
    out.strings(name, modes)
    out.chars(f"{name}_TEXT", repr(tuple(modes)))


def write_table(out: Header, m: dict[str, types.ModuleType]) -> None:
    table, options = Source("canasta_env/table.py"), Source("canasta_env/options.py")
    out.add(
        "",
        "// ---- core.py, table.py, options.py (read as text: they import numpy): the suits' parts",
        "// in a state dict; the batch's reward and episode modes, the deals tried for one new",
        "// game, the bound of a learner's episode's drawn seeds; the bounds of reward_scale",
    )
    core = Source("canasta_env/core.py")
    out.add("// core.py _SUIT_PARTS: the key of each part of the suits (S-19) in a state dict")
    for key, part in core.value_dict("_SUIT_PARTS").items():
        out.chars(f"SUIT_PART_{part.upper()}", key)
    mode_names(out, "RewardMode", "REWARD_MODES", table.value("REWARD_MODES"))
    mode_names(out, "EpisodeMode", "EPISODE_MODES", table.value("EPISODE_MODES"))
    out.constant("MAX_REDEALS", table.value("MAX_REDEALS"))
    out.constant("SEED_BOUND", table.value("SEED_BOUND"))
    out.double("MIN_REWARD_SCALE", options.value("MIN_REWARD_SCALE"))
    out.double("MAX_REWARD_SCALE", options.value("MAX_REWARD_SCALE"))
    out.chars("REWARD_SCALE_RANGE", options.value("REWARD_SCALE_RANGE"))


# ------------------------------------------------------------------------- bots
def params_macro(out: Header, macro: str, fields) -> None:
    """X(name, type, default) for each field: the type is the Python annotation (int, float
    or bool, each a C++ type too), the default a C++ literal."""
    for name, annotation, default in fields:
        assert annotation in ("int", "float", "bool"), (name, annotation)
        assert default is not Source.NO_DEFAULT, name
    out.add(
        f"#define {macro}(X)"
        + "".join(
            f" \\\n  X({name}, {annotation}, {cpp_literal(default)})"
            for name, annotation, default in fields
        )
    )


def write_bots(out: Header, m: dict[str, types.ModuleType]) -> None:
    """The house bots' numbers and names (agents/, read as text: the bots import numpy)."""
    heuristics = Source("agents/heuristics.py", m["actions"])
    greedy, expert = Source("agents/greedy.py"), Source("agents/expert.py")
    styles, base = Source("agents/styles.py"), Source("agents/base.py")
    out.add(
        "",
        "// ---- agents/ (read as text: the bots import numpy): the house bots' numbers and names",
        "namespace bots {",
        "// heuristics.py",
    )
    out.constant("CANASTA_SIZE", heuristics.value("CANASTA_SIZE"))
    out.double("UNKNOWN_CARD_VALUE", heuristics.value("UNKNOWN_CARD_VALUE"))
    out.constant("CLOSED_DIRTY_TWOS", heuristics.value("CLOSED_DIRTY_TWOS"))
    out.ints("TAKE_PREFERENCE", heuristics.value("TAKE_PREFERENCE"))
    out.add("// greedy.py")
    out.double("POT_LOSS_BASE", greedy.value("POT_LOSS_BASE"))
    out.double("POT_LOSS_PER_CARD", greedy.value("POT_LOSS_PER_CARD"))
    out.add("// expert.py ExpertParams: X(name, type, default); TWO_PLAYER_PARAMS: X(name, value)")
    params_macro(out, "CANASTA_EXPERT_PARAMS", expert.dataclass_fields("ExpertParams"))
    two_players = expert.call_keywords("TWO_PLAYER_PARAMS")
    out.add(
        "#define CANASTA_TWO_PLAYER_PARAMS(X)"
        + "".join(f" \\\n  X({name}, {cpp_literal(v)})" for name, v in two_players.items())
    )
    out.add("// styles.py StyleParams, every field after `expert` (the ExpertParams)")
    (first, *style_fields) = styles.dataclass_fields("StyleParams")
    assert first[:2] == ("expert", "ExpertParams"), first
    params_macro(out, "CANASTA_STYLE_PARAMS", style_fields)
    families = styles.keys("FAMILIES")
    out.add("// styles.py FAMILIES, in order: X(family); TRAINING_STYLES by their index in it")
    out.add("#define CANASTA_STYLE_FAMILIES(X)" + "".join(f" \\\n  X({f})" for f in families))
    out.constant("NUM_FAMILIES", len(families))
    out.strings("FAMILY_NAMES", families, "NUM_FAMILIES")
    training = styles.value("TRAINING_STYLES")
    out.constant("NUM_TRAINING_FAMILIES", len(training))
    out.ints("TRAINING_FAMILIES", [families.index(f) for f in training], "NUM_TRAINING_FAMILIES")
    out.chars("STYLE_PREFIX", styles.value("PREFIX"))
    out.chars("STYLED", styles.value("STYLED"))
    out.add("// the agents' names (their class's `name`), and base.py NOT_RESET around its {agent}")
    for cls, source in (("RandomAgent", base), ("GreedyAgent", greedy), ("ExpertAgent", expert)):
        name = source.class_attribute(cls, "name")
        out.chars(f"{cls.removesuffix('Agent').upper()}_NAME", name)
    before, after = base.value("NOT_RESET").split("{agent}")
    out.chars("NOT_RESET_BEFORE", before)
    out.chars("NOT_RESET_AFTER", after)
    out.add("}  // namespace bots")


# ------------------------------------------------------------------------ rules
def write_rules(out: Header, m: dict[str, types.ModuleType]) -> None:
    core_values = m["core_values"]
    fields = core_values.CORE_RULES
    width = max(len(field.columns) for field in fields)
    out.add(
        "",
        "// ---- core_values.py CORE_RULES: every rules field the core reads, in Rules' order.",
        "// A field arrives as a flat list of integers: rows of `width` columns, each column",
        "// in [low, high] (and among `allowed` where it lists values); `rows` is the exact",
        "// number of rows (0: any). Shapes: a flag (0 or 1), a scalar (one integer), card kinds",
        "// (by number), rows.",
        "namespace rules_decl {",
        "",
        "enum class Shape : uint8_t { flag, scalar, kinds, rows };",
        f"constexpr int MAX_COLUMNS = {width};",
        f"constexpr int64_t CLAMP = {cpp_int(core_values.CLAMP)};  // a bound of None",
        "",
        "struct Column {",
        "  const char* name;  // nullptr for a field of one column",
        "  int64_t low, high;",
        "  const int64_t* allowed;  // nullptr: any value in range",
        "  int num_allowed;",
        "};",
        "",
        "struct Field {",
        "  const char* name;",
        "  Shape shape;",
        "  int width;",
        "  int rows;",
        "  bool not_empty;",
        "  Column columns[MAX_COLUMNS];",
        "};",
        "",
    )
    for field in fields:
        for column in field.columns:
            if column.allowed:
                body = ", ".join(cpp_int(v) for v in column.allowed)
                out.add(f"inline constexpr int64_t {field.name}_allowed[] = {{{body}}};")
    out.add("", "enum Id : int {")
    out.add(*(f"  {field.name}," for field in fields))
    out.add("  NUM_FIELDS", "};", "", "inline constexpr Field FIELDS[NUM_FIELDS] = {")
    for field in fields:
        columns = []
        for column in field.columns:
            name = cpp_string(column.name) if column.name else "nullptr"
            allowed = "nullptr, 0"
            if column.allowed:
                allowed = f"{field.name}_allowed, {len(column.allowed)}"
            columns.append(f"{{{name}, {cpp_int(column.low)}, {cpp_int(column.high)}, {allowed}}}")
        out.add(
            f"    {{{cpp_string(field.name)}, Shape::{field.shape}, {len(field.columns)}, "
            f"{field.rows or 0}, {'true' if field.not_empty else 'false'}, "
            f"{{{', '.join(columns)}}}}},"
        )
    out.add("};", "", "}  // namespace rules_decl", "")
    out.add("// X(name) for every field of rules_decl::FIELDS, in its order")
    out.add("#define CANASTA_RULES_FIELDS(X)" + "".join(f" \\\n  X({f.name})" for f in fields))


# ------------------------------------------------------------------ observation
def write_observation(out: Header, m: dict[str, types.ModuleType]) -> None:
    layout = m["layout"]
    LAYOUT, Field = layout.LAYOUT, layout.Field
    out.add(
        "",
        "// ---- observation/layout.py LAYOUT. NAME: a field's first entry; NAME_SIZE: its",
        "// entries (fields of more than one); NAME_SCALE: its scale as numpy's float32 of it;",
        "// NAME_VALUES: a one-hot field's values. A group's fields are offsets inside one copy,",
        "// in the namespace of the group's name, with SIZE its stride and COPIES its copies;",
        "// NAME (the group's, upper case) is its first entry. blocks:: the block offsets.",
        "namespace obs {",
        "",
        f"constexpr int SIZE = {LAYOUT.size};",
        "namespace blocks {",
    )
    for block in LAYOUT.blocks:
        out.constant(cpp_name(block.name), LAYOUT.offsets[block.name], f"{block.size} entries")
    out.add("}  // namespace blocks")
    names: set[str] = set()

    def field_lines(field, start: int, taken: set[str]) -> None:
        base = cpp_name(field.name)
        for name in (base, f"{base}_SIZE", f"{base}_SCALE", f"{base}_VALUES"):
            assert name not in taken, f"the layout's C++ name {name} twice"
            taken.add(name)
        out.constant(base, start)
        if field.size > 1:
            out.constant(f"{base}_SIZE", field.size)
        out.add(f"constexpr float {base}_SCALE = {cpp_float(field.scale)};")
        if field.values:
            out.ints(f"{base}_VALUES", field.values)

    start = 0
    for block in LAYOUT.blocks:
        out.add("", f"// block {block.name}")
        for item in block.items:
            if isinstance(item, Field):
                field_lines(item, start, names)
                start += item.size
                continue
            out.constant(cpp_name(item.name), start, f"group {item.name}: one copy per {item.per}")
            out.add(f"namespace {item.name} {{")
            out.constant("COPIES", item.repeat)
            out.constant("SIZE", item.stride)
            offset, taken = 0, {"COPIES", "SIZE"}
            for field in item.fields:
                field_lines(field, offset, taken)
                offset += field.size
            out.add(f"}}  // namespace {item.name}")
            start += item.size
    assert start == LAYOUT.size
    out.add(
        "",
        "// every field (and group copy) by its LAYOUT span name, in vector order",
        "struct SpanDecl {",
        "  const char* name;",
        "  int start, size;",
        "  float scale;",
        "};",
        f"inline constexpr SpanDecl SPANS[{len(LAYOUT.spans)}] = {{",
    )
    for span in LAYOUT.spans:
        out.add(
            f"    {{{cpp_string(span.name)}, {span.start}, {span.field.size}, "
            f"{cpp_float(span.field.scale)}}},"
        )
    out.add("};", "", "}  // namespace obs")


def header(modules: dict[str, types.ModuleType]) -> str:
    out = Header()
    out.add(
        "// Generated by csrc/gen_core_decls.py from canasta_env/ (cards.py, actions.py, rules.py,",
        "// core_values.py, engine/, observation/layout.py; core.py, options.py, table.py read as",
        "// text) and agents/ (the house bots, read as text) at build time. Do not edit; do not",
        "// restate these in csrc/.",
        "#pragma once",
        "#include <array>",
        "#include <cstdint>",
        "",
        "namespace canasta {",
        "",
    )
    write_constants(out, modules)
    write_engine(out, modules)
    write_state(out, modules)
    write_table(out, modules)
    write_bots(out, modules)
    write_rules(out, modules)
    write_observation(out, modules)
    out.add("", "}  // namespace canasta")
    return out.text()


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    output, sources = Path(argv[0]), {Path(s).resolve() for s in argv[1:]}
    text = header(load_declarations())
    missing = sorted(str(p.relative_to(ROOT)) for p in read_files() - sources)
    if sources and missing:
        print(
            f"gen_core_decls.py read {', '.join(missing)}, which CMakeLists.txt does not list "
            "among its sources (CANASTA_DECL_SOURCES): a change there would not regenerate "
            "core_decls.hpp",
            file=sys.stderr,
        )
        return 1
    if not output.exists() or output.read_text() != text:  # else nothing to recompile
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
