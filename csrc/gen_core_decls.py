"""Write core_decls.hpp: what the C++ core declares, read from the Python declarations.

    python csrc/gen_core_decls.py OUTPUT [SOURCE ...]

CMake runs this at build time (CMakeLists.txt, ``canasta_core_decls``) whenever one of the
Python files it reads changes; the SOURCE arguments are those files, and the run fails if
it read a module of the package that is not among them (the list in CMakeLists.txt would
miss a change). OUTPUT is rewritten only when its text changes. The header holds:

* the constants of ``cards.py``, ``actions.py``, ``rules.py``, ``engine/sequences.py``,
  ``engine/state.py`` and ``observation/layout.py`` that the core uses, by their Python
  names (``NUM_KINDS``, ``MAX_NEW_MELD``, ``OBSERVATION_BYTE_MAX``, ...);
* the rules fields as ``core_values.CORE_RULES`` declares them (shape, the range of each
  column, exact rows, not empty): ``rules_decl::FIELDS`` in ``Rules``' order, an id per
  field and the X-macro ``CANASTA_RULES_FIELDS``, which ``Rules::from_values``
  (``rules.cpp``) reads every field through;
* the observation's layout (``LAYOUT``): each field's first entry, entries and scale,
  each group's stride and copies, each one-hot field's values, and every span.

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
    names = ("cards", "actions", "rules", "core_values", "engine.sequences", "engine.state")
    modules = {name: importlib.import_module(f"{PACKAGE}.{name}") for name in names}
    modules["layout"] = importlib.import_module(f"{PACKAGE}.observation.layout")
    return modules


def read_files() -> set[Path]:
    """The package's source files imported so far."""
    found = set()
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


def cpp_name(name: str) -> str:
    return name.upper()


class Header:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def add(self, *lines: str) -> None:
        self.lines.extend(lines)

    def constant(self, name: str, value: int, comment: str = "") -> None:
        kind = "int" if is_int32(value) else "int64_t"
        tail = f"  // {comment}" if comment else ""
        self.add(f"constexpr {kind} {name} = {cpp_int(value)};{tail}")

    def ints(self, name: str, values, size: str | None = None) -> None:
        body = ", ".join(cpp_int(v) for v in values)
        self.add(f"inline constexpr int {name}[{size or len(values)}] = {{{body}}};")

    def strings(self, name: str, values, size: str | None = None) -> None:
        body = ", ".join(cpp_string(v) for v in values)
        self.add(f"inline constexpr const char* {name}[{size or len(values)}] = {{{body}}};")

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
    out.add(f"inline constexpr char SUITS[] = {cpp_string(cards.SUITS)};")
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
        "// Generated by csrc/gen_core_decls.py from canasta_env/ (cards.py, actions.py,",
        "// rules.py, core_values.py, engine/sequences.py, engine/state.py,",
        "// observation/layout.py) at build time. Do not edit; do not restate these in csrc/.",
        "#pragma once",
        "#include <array>",
        "#include <cstdint>",
        "",
        "namespace canasta {",
        "",
    )
    write_constants(out, modules)
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
