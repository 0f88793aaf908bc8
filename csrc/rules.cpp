// Filling the rules struct from the values canasta_env/core.py sends (rules.hpp).
#include "rules.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace canasta {

namespace {

// The fields from_values has read: every field the Python side sends must be read, so
// that a rules field added to rules.py alone is refused here (docs/core.md).
thread_local std::vector<std::string>* g_read = nullptr;

const std::vector<int64_t>& field(const RuleValues& values, const char* name) {
  if (g_read) g_read->emplace_back(name);
  auto found = values.find(name);
  if (found == values.end())
    throw std::invalid_argument(std::string("core rules: the field '") + name + "' is missing");
  return found->second;
}

int64_t scalar(const RuleValues& values, const char* name) {
  const auto& v = field(values, name);
  if (v.size() != 1)
    throw std::invalid_argument(std::string("core rules: the field '") + name +
                                "' must hold one integer");
  return v[0];
}

std::vector<std::pair<int64_t, int64_t>> pairs(const RuleValues& values, const char* name) {
  const auto& v = field(values, name);
  if (v.size() % 2)
    throw std::invalid_argument(std::string("core rules: the field '") + name +
                                "' must hold pairs");
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i < v.size(); i += 2) out.emplace_back(v[i], v[i + 1]);
  return out;
}

uint32_t kind_mask(const RuleValues& values, const char* name) {
  uint32_t mask = 0;
  for (int64_t kind : field(values, name)) {
    if (kind < 0 || kind >= NUM_KINDS)
      throw std::invalid_argument(std::string("core rules: '") + name + "' holds a bad kind");
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
  r.num_decks = static_cast<int>(scalar(v, "num_decks"));
  r.jokers_per_deck = static_cast<int>(scalar(v, "jokers_per_deck"));
  r.hand_size = static_cast<int>(scalar(v, "hand_size"));
  r.pot_face_down = static_cast<int>(scalar(v, "pot_face_down"));
  r.cover_mask = kind_mask(v, "pot_start_cover_kinds");
  r.freeze_mask = kind_mask(v, "pot_start_freeze_kinds");
  r.pot_start_count_under_natural = scalar(v, "pot_start_count_under_natural");
  r.draw_count = static_cast<int>(scalar(v, "draw_count"));
  r.draw_after_pot_take = static_cast<int>(scalar(v, "draw_after_pot_take"));
  r.min_meld_size = scalar(v, "min_meld_size");
  r.min_naturals = scalar(v, "min_naturals");
  r.max_wilds_per_meld = scalar(v, "max_wilds_per_meld");
  r.min_natural_excess = scalar(v, "min_natural_excess");
  r.meld_closes_at = scalar(v, "meld_closes_at");
  r.canasta_size = scalar(v, "canasta_size");
  r.wild_melds = scalar(v, "wild_melds");
  r.wild_meld_min_start = scalar(v, "wild_meld_min_start");
  r.wild_meld_max_size = scalar(v, "wild_meld_max_size");
  r.black3_melds = scalar(v, "black3_melds");
  r.black3_meld_only_going_out = scalar(v, "black3_meld_only_going_out");
  r.black3_meld_max_size = scalar(v, "black3_meld_max_size");
  r.black3_canasta_wins_game = scalar(v, "black3_canasta_wins_game");
  r.opening_table = pairs(v, "opening_table");
  if (r.opening_table.empty())
    throw std::invalid_argument("core rules: 'opening_table' must not be empty");
  r.hidden_canasta_opens = scalar(v, "hidden_canasta_opens");
  r.clean_opening_max_minimum = scalar(v, "clean_opening_max_minimum");
  for (auto& p : pairs(v, "clean_opening_wild_melds"))
    r.clean_opening_wild_melds.emplace_back(static_cast<int>(p.first), static_cast<int>(p.second));
  r.concealed_go_out_ignores_minimum = scalar(v, "concealed_go_out_ignores_minimum");
  r.unopened_take_needs_clean_opening = scalar(v, "unopened_take_needs_clean_opening");
  r.take_naturals = scalar(v, "take_naturals");
  r.take_naturals_frozen = scalar(v, "take_naturals_frozen");
  r.take_with_wild = scalar(v, "take_with_wild");
  r.take_onto_meld = scalar(v, "take_onto_meld");
  r.frozen_for_unopened = scalar(v, "frozen_for_unopened");
  r.wild_crosses_pot = scalar(v, "wild_crosses_pot");
  r.must_take_matching_pot = scalar(v, "must_take_matching_pot");
  r.go_out_min_canastas = scalar(v, "go_out_min_canastas");
  r.go_out_needs_clean_and_dirty = scalar(v, "go_out_needs_clean_and_dirty");
  r.go_out_needs_discard = scalar(v, "go_out_needs_discard");
  r.no_go_out_on_first_clean_turn = scalar(v, "no_go_out_on_first_clean_turn");
  r.go_out_bonus = scalar(v, "go_out_bonus");
  r.concealed_go_out_bonus = scalar(v, "concealed_go_out_bonus");
  r.clean_canasta_bonus = scalar(v, "clean_canasta_bonus");
  r.dirty_canasta_bonus = scalar(v, "dirty_canasta_bonus");
  r.hidden_canasta_bonus = scalar(v, "hidden_canasta_bonus");
  {
    const auto& rows = field(v, "rank_canasta_bonus");
    if (rows.size() % 3) throw std::invalid_argument("core rules: 'rank_canasta_bonus' rows of 3");
    for (size_t i = 0; i < rows.size(); i += 3)
      r.rank_canasta_bonus.push_back({rows[i], rows[i + 1], rows[i + 2]});
  }
  r.wild_canasta_clean_bonus = scalar(v, "wild_canasta_clean_bonus");
  r.wild_canasta_dirty_bonus = scalar(v, "wild_canasta_dirty_bonus");
  {
    const auto& row = field(v, "special_wild_canasta");
    if (row.size() != 3) throw std::invalid_argument("core rules: 'special_wild_canasta' is 3");
    r.special_wild_canasta = {row[0], row[1], row[2]};
  }
  r.red3_scores = field(v, "red3_scores");
  if (r.red3_scores.empty()) throw std::invalid_argument("core rules: 'red3_scores' is empty");
  r.red3_extra_each = scalar(v, "red3_extra_each");
  {
    const auto& row = field(v, "red3_sign");
    if (row.size() != 5) throw std::invalid_argument("core rules: 'red3_sign' is 5");
    for (int i = 0; i < 5; ++i) r.red3_sign[i] = row[i];
  }
  r.melds_minus_without_canasta = scalar(v, "melds_minus_without_canasta");
  r.black3_in_hand_penalty = scalar(v, "black3_in_hand_penalty");
  r.unopened_hand_penalty_factor = scalar(v, "unopened_hand_penalty_factor");
  r.canasta_count_bonus = pairs(v, "canasta_count_bonus");
  r.clean_canasta_count_bonus = pairs(v, "clean_canasta_count_bonus");
  r.sequences = scalar(v, "sequences");
  r.sequence_bonus = scalar(v, "sequence_bonus");
  r.royal_sequence_bonus = scalar(v, "royal_sequence_bonus");
  r.target_score = scalar(v, "target_score");
  if (r.num_decks < 1 || r.num_decks > 8 || r.jokers_per_deck < 0 ||
      r.total_cards() > 671 || r.hand_size < 1 || r.draw_count < 1)
    throw std::invalid_argument("core rules: the deck or deal is outside what the core holds");
  for (const auto& [name, values] : v)
    if (std::find(read.begin(), read.end(), name) == read.end())
      throw std::invalid_argument("core rules: the field '" + name +
                                  "' is not read by the core (csrc/rules.cpp; docs/core.md)");
  return r;
}

}  // namespace canasta
