// Filling the rules struct from the values canasta_env/core.py sends (rules.hpp).
#include "rules.hpp"

#include "actions.hpp"
#include "state.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace canasta {

namespace {

// The ranges of canasta_env/rules.py BOUNDS, checked again here: the core holds counts in
// fixed arrays and fixed-width integers, so a value the Python rules would refuse is
// refused whoever sends it (_core.Rules.from_values is callable directly), with
// ValueError naming the field, before any game is made. A Python bound of None is the
// clamp of core.py rules_values (every comparison of the engine the same beyond it).
constexpr int64_t ANY = int64_t(1) << 62;        // core.py _CLAMP
constexpr int64_t BYTE_MAX = 255;                // rules.py OBSERVATION_BYTE_MAX
constexpr int64_t MAX_POINTS = 1000000;          // rules.py MAX_POINTS
constexpr int64_t MAX_FACTOR = 10;               // rules.py MAX_FACTOR
constexpr int64_t MAX_DECKS = 8;                 // rules.py MAX_DECKS
constexpr int64_t MELD = MAX_NEW_MELD;           // actions.py MAX_NEW_MELD

struct Range {
  int64_t low, high;
};
constexpr Range FLAG{0, 1};
constexpr Range POINTS{0, MAX_POINTS};
constexpr Range SIGNED_POINTS{-MAX_POINTS, MAX_POINTS};
constexpr Range COUNT{0, ANY};

// The fields from_values has read: every field the Python side sends must be read, so
// that a rules field added to rules.py alone is refused here (docs/core.md).
thread_local std::vector<std::string>* g_read = nullptr;

[[noreturn]] void bad(const std::string& name, const std::string& what) {
  throw std::invalid_argument("core rules: the field '" + name + "' " + what);
}

const std::vector<int64_t>& field(const RuleValues& values, const char* name) {
  if (g_read) g_read->emplace_back(name);
  auto found = values.find(name);
  if (found == values.end()) bad(name, "is missing");
  return found->second;
}

void check_range(const char* name, const char* column, int64_t value, Range range) {
  if (value < range.low || value > range.high)
    bad(name, std::string(column ? std::string("(") + column + ") " : "") + "must be >= " +
                  std::to_string(range.low) + " and <= " + std::to_string(range.high) +
                  ", got " + std::to_string(value));
}

int64_t scalar(const RuleValues& values, const char* name, Range range) {
  const auto& v = field(values, name);
  if (v.size() != 1) bad(name, "must hold one integer");
  check_range(name, nullptr, v[0], range);
  return v[0];
}

bool flag(const RuleValues& values, const char* name) { return scalar(values, name, FLAG) != 0; }

// A table field sent flat: rows of columns.size() integers, each column in its range.
std::vector<int64_t> rows(const RuleValues& values, const char* name,
                          std::initializer_list<std::pair<const char*, Range>> columns) {
  const auto& v = field(values, name);
  const size_t width = columns.size();
  if (v.size() % width) bad(name, "must hold rows of " + std::to_string(width) + " integers");
  for (size_t i = 0; i < v.size(); ++i) {
    const auto& column = *(columns.begin() + i % width);
    check_range(name, column.first, v[i], column.second);
  }
  return v;
}

std::vector<std::pair<int64_t, int64_t>> pairs(const RuleValues& values, const char* name,
                                               std::pair<const char*, Range> first,
                                               std::pair<const char*, Range> second) {
  const auto v = rows(values, name, {first, second});
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < v.size(); i += 2) out.emplace_back(v[i], v[i + 1]);
  return out;
}

uint32_t kind_mask(const RuleValues& values, const char* name) {
  uint32_t mask = 0;
  for (int64_t kind : field(values, name)) {
    if (kind < 0 || kind >= NUM_KINDS) bad(name, "holds a kind outside 0.." + std::to_string(NUM_KINDS - 1));
    mask |= 1U << kind;
  }
  return mask;
}

}  // namespace

Rules Rules::from_values(const RuleValues& v) {
  std::vector<std::string> read;
  g_read = &read;
  struct Done { ~Done() { g_read = nullptr; } } done;
  Rules r;
  r.num_players = static_cast<int>(scalar(v, "num_players", {2, MAX_PLAYERS}));
  if (r.num_players == 5) bad("num_players", "must be 2, 3, 4 or 6, got 5");
  r.num_decks = static_cast<int>(scalar(v, "num_decks", {1, MAX_DECKS}));
  r.jokers_per_deck = static_cast<int>(scalar(v, "jokers_per_deck", {0, BYTE_MAX}));
  // any deal the rules accept fits the deck (rules.py _deal_fits_deck), which fits MAX_CARDS
  r.hand_size = static_cast<int>(scalar(v, "hand_size", {1, MAX_CARDS - 1}));
  r.pot_face_down = static_cast<int>(scalar(v, "pot_face_down", {0, BYTE_MAX}));
  r.cover_mask = kind_mask(v, "pot_start_cover_kinds");
  r.freeze_mask = kind_mask(v, "pot_start_freeze_kinds");
  r.pot_start_count_under_natural = flag(v, "pot_start_count_under_natural");
  r.draw_count = static_cast<int>(scalar(v, "draw_count", {1, BYTE_MAX}));
  r.draw_after_pot_take = static_cast<int>(scalar(v, "draw_after_pot_take", {0, BYTE_MAX}));
  r.min_meld_size = scalar(v, "min_meld_size", {2, MELD});
  r.min_naturals = scalar(v, "min_naturals", {1, MELD});
  r.max_wilds_per_meld = scalar(v, "max_wilds_per_meld", COUNT);
  r.min_natural_excess = scalar(v, "min_natural_excess", COUNT);
  r.meld_closes_at = scalar(v, "meld_closes_at", COUNT);
  r.canasta_size = scalar(v, "canasta_size", {3, ANY});
  r.wild_melds = flag(v, "wild_melds");
  r.wild_meld_min_start = scalar(v, "wild_meld_min_start", {1, MELD});
  r.wild_meld_max_size = scalar(v, "wild_meld_max_size", {1, ANY});
  r.black3_melds = flag(v, "black3_melds");
  r.black3_meld_only_going_out = flag(v, "black3_meld_only_going_out");
  // black-3 melds of 3 to MAX_NEW_MELD cards are the action layout's (NEW_BLACK3 + n - 3)
  r.black3_meld_max_size = scalar(v, "black3_meld_max_size", {0, MELD});
  r.black3_canasta_wins_game = flag(v, "black3_canasta_wins_game");
  r.opening_table = pairs(v, "opening_table", {"lowest team score", {-ANY, ANY}}, {"minimum", {0, BYTE_MAX}});
  if (r.opening_table.empty()) bad("opening_table", "must not be empty");
  r.hidden_canasta_opens = flag(v, "hidden_canasta_opens");
  r.clean_opening_max_minimum = scalar(v, "clean_opening_max_minimum", COUNT);
  for (auto& p : pairs(v, "clean_opening_wild_melds", {"twos", {0, MELD}}, {"jokers", {0, MELD}}))
    r.clean_opening_wild_melds.emplace_back(static_cast<int>(p.first), static_cast<int>(p.second));
  r.concealed_go_out_ignores_minimum = flag(v, "concealed_go_out_ignores_minimum");
  r.unopened_take_needs_clean_opening = flag(v, "unopened_take_needs_clean_opening");
  r.take_naturals = scalar(v, "take_naturals", {1, ANY});
  r.take_naturals_frozen = scalar(v, "take_naturals_frozen", {1, ANY});
  r.take_with_wild = flag(v, "take_with_wild");
  r.take_onto_meld = flag(v, "take_onto_meld");
  r.frozen_for_unopened = flag(v, "frozen_for_unopened");
  r.wild_crosses_pot = flag(v, "wild_crosses_pot");
  r.must_take_matching_pot = flag(v, "must_take_matching_pot");
  r.go_out_min_canastas = scalar(v, "go_out_min_canastas", COUNT);
  r.go_out_needs_clean_and_dirty = flag(v, "go_out_needs_clean_and_dirty");
  r.go_out_needs_discard = flag(v, "go_out_needs_discard");
  r.no_go_out_on_first_clean_turn = flag(v, "no_go_out_on_first_clean_turn");
  r.go_out_bonus = scalar(v, "go_out_bonus", POINTS);
  r.concealed_go_out_bonus = scalar(v, "concealed_go_out_bonus", POINTS);
  r.clean_canasta_bonus = scalar(v, "clean_canasta_bonus", POINTS);
  r.dirty_canasta_bonus = scalar(v, "dirty_canasta_bonus", POINTS);
  r.hidden_canasta_bonus = scalar(v, "hidden_canasta_bonus", POINTS);
  {
    const auto values = rows(v, "rank_canasta_bonus",
                             {{"rank", {0, NUM_NATURALS - 1}}, {"clean bonus", POINTS}, {"dirty bonus", POINTS}});
    for (size_t i = 0; i < values.size(); i += 3)
      r.rank_canasta_bonus.push_back({values[i], values[i + 1], values[i + 2]});
  }
  r.wild_canasta_clean_bonus = scalar(v, "wild_canasta_clean_bonus", POINTS);
  r.wild_canasta_dirty_bonus = scalar(v, "wild_canasta_dirty_bonus", POINTS);
  {
    const auto row = rows(v, "special_wild_canasta", {{"jokers", COUNT}, {"twos", COUNT}, {"bonus", POINTS}});
    if (row.size() != 3) bad("special_wild_canasta", "must hold 3 integers");
    r.special_wild_canasta = {row[0], row[1], row[2]};
  }
  r.red3_scores = rows(v, "red3_scores", {{nullptr, SIGNED_POINTS}});
  if (r.red3_scores.empty()) bad("red3_scores", "must not be empty");
  r.red3_extra_each = scalar(v, "red3_extra_each", SIGNED_POINTS);
  {
    const auto row = rows(v, "red3_sign", {{nullptr, {-MAX_FACTOR, MAX_FACTOR}}});
    if (row.size() != 5) bad("red3_sign", "must hold 5 integers");
    for (int i = 0; i < 5; ++i) r.red3_sign[i] = row[i];
  }
  r.melds_minus_without_canasta = flag(v, "melds_minus_without_canasta");
  r.black3_in_hand_penalty = scalar(v, "black3_in_hand_penalty", POINTS);
  r.unopened_hand_penalty_factor = scalar(v, "unopened_hand_penalty_factor", {0, MAX_FACTOR});
  r.canasta_count_bonus = pairs(v, "canasta_count_bonus", {"canastas", COUNT}, {"bonus", POINTS});
  r.clean_canasta_count_bonus =
      pairs(v, "clean_canasta_count_bonus", {"clean canastas", COUNT}, {"bonus", POINTS});
  r.sequences = flag(v, "sequences");
  r.sequence_bonus = scalar(v, "sequence_bonus", POINTS);
  r.royal_sequence_bonus = scalar(v, "royal_sequence_bonus", POINTS);
  r.target_score = scalar(v, "target_score", {1, MAX_POINTS});
  // rules.py _kinds_fit_observation: a finished canasta keeps its cards of one kind in a
  // byte (state.hpp Closed), as the observation does
  if (static_cast<int64_t>(r.jokers_per_deck) * r.num_decks > BYTE_MAX)
    bad("jokers_per_deck", "makes " + std::to_string(r.jokers_per_deck * r.num_decks) + " jokers in " +
                               std::to_string(r.num_decks) + " decks, more than " + std::to_string(BYTE_MAX) +
                               " cards of one kind");
  if (r.total_cards() > MAX_CARDS - 1)  // the stock and the pot are arrays of MAX_CARDS
    bad("num_decks", "makes a deck of " + std::to_string(r.total_cards()) + " cards, more than the core holds (" +
                         std::to_string(MAX_CARDS - 1) + ")");
  for (const auto& [name, values] : v)
    if (std::find(read.begin(), read.end(), name) == read.end())
      bad(name, "is not read by the core (csrc/rules.cpp; docs/core.md)");
  return r;
}

}  // namespace canasta
