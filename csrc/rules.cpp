// Filling the rules struct from the values canasta_env/core.py sends (rules.hpp).
//
// Every field is read through its entry in rules_decl::FIELDS (core_decls.hpp, generated
// at build time from canasta_env/core_values.py CORE_RULES, that is rules.py's Rules and
// BOUNDS): its shape, the range of each column, its exact rows, whether it may be empty.
// The core holds counts in fixed arrays and fixed-width integers, so a value the Python
// rules would refuse is refused whoever sends it (_core.Rules.from_values is callable
// directly), with ValueError naming the field, before any game is made. A Python bound of
// None is the clamp of core_values.py rules_values (every comparison of the engine the
// same beyond it).
#include "rules.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core_decls.hpp"
#include "state.hpp"

namespace canasta {

namespace {

namespace decl = rules_decl;
using decl::Shape;

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw std::invalid_argument("core rules: the field '" + name + "' " + what);
}

// Where the core holds less than the rules allow: a hand is dealt from a deck that fits
// the stock's MAX_CARDS (rules.py _deal_fits_deck makes every deal fit the deck).
int64_t core_high(int id, int64_t high) {
  return id == decl::hand_size ? std::min<int64_t>(high, MAX_CARDS - 1) : high;
}

void check_entry(int id, const decl::Column& column, int64_t value) {
  const char* name = decl::FIELDS[id].name;
  const int64_t high = core_high(id, column.high);
  if (value < column.low || value > high)
    bad(name, std::string(column.name ? std::string("(") + column.name + ") " : "") + "must be >= " +
                  std::to_string(column.low) + " and <= " + std::to_string(high) + ", got " +
                  std::to_string(value));
  if (!column.allowed) return;
  std::string allowed;
  for (int i = 0; i < column.num_allowed; ++i) {
    if (column.allowed[i] == value) return;
    allowed += (i == 0 ? "" : i + 1 == column.num_allowed ? " or " : ", ") + std::to_string(column.allowed[i]);
  }
  bad(name, "must be " + allowed + ", got " + std::to_string(value));
}

// Field `id`'s values, checked as its declaration says.
const std::vector<int64_t>& checked(const RuleValues& values, int id) {
  const decl::Field& field = decl::FIELDS[id];
  auto found = values.find(field.name);
  if (found == values.end()) bad(field.name, "is missing");
  const std::vector<int64_t>& v = found->second;
  const decl::Column& first = field.columns[0];
  switch (field.shape) {
    case Shape::flag:
    case Shape::scalar:
      if (v.size() != 1) bad(field.name, "must hold one integer");
      check_entry(id, first, v[0]);
      break;
    case Shape::kinds:
      for (int64_t kind : v)
        if (kind < first.low || kind > first.high)
          bad(field.name, "holds a kind outside " + std::to_string(first.low) + ".." + std::to_string(first.high));
      break;
    case Shape::rows: {
      const size_t width = static_cast<size_t>(field.width);
      if (v.size() % width) bad(field.name, "must hold rows of " + std::to_string(width) + " integers");
      for (size_t i = 0; i < v.size(); ++i) check_entry(id, field.columns[i % width], v[i]);
      if (field.rows && v.size() != width * field.rows)
        bad(field.name, "must hold " + std::to_string(width * field.rows) + " integers");
      if (field.not_empty && v.empty()) bad(field.name, "must not be empty");
      break;
    }
  }
  return v;
}

// Each member type of Rules, and the fields it can hold: checked at compile time against
// every field's declaration, so a shape changed in Python does not compile here.
constexpr bool holds(const decl::Field& f, const bool*) { return f.shape == Shape::flag; }
constexpr bool holds(const decl::Field& f, const int*) { return f.shape == Shape::scalar; }
constexpr bool holds(const decl::Field& f, const int64_t*) { return f.shape == Shape::scalar; }
constexpr bool holds(const decl::Field& f, const KindSet*) { return f.shape == Shape::kinds; }
constexpr bool holds(const decl::Field& f, const std::vector<int64_t>*) {
  return f.shape == Shape::rows && f.width == 1 && f.rows == 0;
}
template <class A, class B>
constexpr bool holds(const decl::Field& f, const std::vector<std::pair<A, B>>*) {
  return f.shape == Shape::rows && f.width == 2 && f.rows == 0;
}
template <size_t N>
constexpr bool holds(const decl::Field& f, const std::vector<std::array<int64_t, N>>*) {
  return f.shape == Shape::rows && f.width == static_cast<int>(N) && f.rows == 0;
}
template <size_t N>
constexpr bool holds(const decl::Field& f, const std::array<int64_t, N>*) {
  return f.shape == Shape::rows && f.rows != 0 && f.width * f.rows == static_cast<int>(N);
}

// Field `id` into the member that holds it.
void read(const RuleValues& values, int id, bool& out) { out = checked(values, id)[0] != 0; }
void read(const RuleValues& values, int id, int& out) { out = static_cast<int>(checked(values, id)[0]); }
void read(const RuleValues& values, int id, int64_t& out) { out = checked(values, id)[0]; }
void read(const RuleValues& values, int id, KindSet& out) {
  out.bits = 0;
  for (int64_t kind : checked(values, id)) out.bits |= 1U << kind;
}
void read(const RuleValues& values, int id, std::vector<int64_t>& out) { out = checked(values, id); }
template <class A, class B>
void read(const RuleValues& values, int id, std::vector<std::pair<A, B>>& out) {
  const auto& v = checked(values, id);
  out.clear();
  for (size_t i = 0; i < v.size(); i += 2) out.emplace_back(static_cast<A>(v[i]), static_cast<B>(v[i + 1]));
}
template <size_t N>
void read(const RuleValues& values, int id, std::vector<std::array<int64_t, N>>& out) {
  const auto& v = checked(values, id);
  out.clear();
  for (size_t i = 0; i < v.size(); i += N) {
    std::array<int64_t, N> row;
    std::copy(v.begin() + i, v.begin() + i + N, row.begin());
    out.push_back(row);
  }
}
template <size_t N>
void read(const RuleValues& values, int id, std::array<int64_t, N>& out) {
  const auto& v = checked(values, id);
  std::copy(v.begin(), v.end(), out.begin());
}

#define CANASTA_HOLDS(name)                                                                      \
  static_assert(holds(decl::FIELDS[decl::name], static_cast<const decltype(Rules::name)*>(nullptr)), \
                "csrc/rules.hpp: Rules::" #name " cannot hold the field as core_values.py declares it");
CANASTA_RULES_FIELDS(CANASTA_HOLDS)
#undef CANASTA_HOLDS

bool declared(const std::string& name) {
  for (const decl::Field& field : decl::FIELDS)
    if (name == field.name) return true;
  return false;
}

}  // namespace

Rules Rules::from_values(const RuleValues& v) {
  Rules r{};
#define CANASTA_READ(name) read(v, decl::name, r.name);
  CANASTA_RULES_FIELDS(CANASTA_READ)
#undef CANASTA_READ
  // rules.py _kinds_fit_observation: a finished canasta keeps its cards of one kind in a
  // byte (state.hpp Closed), as the observation does
  if (static_cast<int64_t>(r.jokers_per_deck) * r.num_decks > OBSERVATION_BYTE_MAX)
    bad("jokers_per_deck", "makes " + std::to_string(r.jokers_per_deck * r.num_decks) + " jokers in " +
                               std::to_string(r.num_decks) + " decks, more than " +
                               std::to_string(OBSERVATION_BYTE_MAX) + " cards of one kind");
  if (r.total_cards() > MAX_CARDS - 1)  // the stock and the pot are arrays of MAX_CARDS
    bad("num_decks", "makes a deck of " + std::to_string(r.total_cards()) + " cards, more than the core holds (" +
                         std::to_string(MAX_CARDS - 1) + ")");
  for (const auto& entry : v)
    if (!declared(entry.first)) bad(entry.first, "is not read by the core (csrc/rules.cpp; docs/core.md)");
  return r;
}

}  // namespace canasta
