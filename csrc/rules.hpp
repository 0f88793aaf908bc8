// The rules as the core reads them: the fields of canasta_env/rules.py's Rules, as plain
// values. The core never re-types a preset: the Python Rules object (already checked by
// check_rules) is converted field by field (canasta_env/core_values.py rules_values) into a
// map name -> list of integers, and this struct is filled from it; the per-player-count
// tables (num_decks_by_players, hand_size) arrive resolved for the game's player count.
//
// Each member has the name of its field in core_values.py CORE_RULES (core_decls.hpp,
// generated from it at build time), and Rules::from_values reads every field into the
// member of its name: a field added in Python does not compile until it has a member
// here, and a member whose type cannot hold the field's shape fails a static_assert
// (rules.cpp).
#pragma once
#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cards.hpp"

namespace canasta {

using RuleValues = std::map<std::string, std::vector<int64_t>>;

// A set of card kinds (pot_start_cover_kinds, pot_start_freeze_kinds): a bit per kind.
struct KindSet {
  uint32_t bits = 0;
  bool has(int kind) const { return bits & (1U << kind); }
};

// No member has a default value: Rules::from_values makes every Rules (value-initialized)
// and reads every member from its field, so the presets' values live in rules.py alone.
struct Rules {
  // players, deck, deal (resolved for the game's player count)
  int num_players;  // the count they were resolved for (another table refuses them)
  int num_decks;  // C-1, S-1 (decks_for)
  int jokers_per_deck;
  int hand_size;  // C-2 (hand_size_for)
  // the pot at the start of the hand
  int pot_face_down;  // S-3
  KindSet pot_start_cover_kinds;  // C-3, I-3
  KindSet pot_start_freeze_kinds;  // C-3, I-3, S-3
  bool pot_start_count_under_natural;  // I-3
  // the turn
  int draw_count;  // C-4, S-4, I-4
  int draw_after_pot_take;  // I-4
  // melds
  int64_t min_meld_size, min_naturals, max_wilds_per_meld;  // C-5
  int64_t min_natural_excess;  // I-5
  int64_t meld_closes_at;  // S-7
  int64_t canasta_size;  // G-4
  bool wild_melds;  // S-9, I-6
  int64_t wild_meld_min_start, wild_meld_max_size;
  bool black3_melds, black3_meld_only_going_out;  // C-7, S-11, I-5
  int64_t black3_meld_max_size;
  bool black3_canasta_wins_game;  // S-11
  // opening
  std::vector<std::pair<int64_t, int64_t>> opening_table;  // C-8, S-8, I-9
  bool hidden_canasta_opens;  // S-8
  int64_t clean_opening_max_minimum;  // I-10
  std::vector<std::pair<int, int>> clean_opening_wild_melds;  // (twos, jokers), I-10
  bool concealed_go_out_ignores_minimum;  // C-15
  bool unopened_take_needs_clean_opening;  // I-7, I-10
  // taking the pot
  int64_t take_naturals, take_naturals_frozen;  // C-10, S-5, I-7, I-8
  bool take_with_wild, take_onto_meld;  // C-11
  bool frozen_for_unopened;  // C-9
  bool wild_crosses_pot;  // S-6 (same effect as freezing)
  bool must_take_matching_pot;  // C-16
  // going out
  int64_t go_out_min_canastas;  // C-14
  bool go_out_needs_clean_and_dirty;  // S-15, I-11
  bool go_out_needs_discard;
  bool no_go_out_on_first_clean_turn;  // S-15
  int64_t go_out_bonus, concealed_go_out_bonus;  // C-15
  // scoring
  int64_t clean_canasta_bonus, dirty_canasta_bonus, hidden_canasta_bonus;
  std::vector<std::array<int64_t, 3>> rank_canasta_bonus;  // (rank, clean, dirty), I-12
  int64_t wild_canasta_clean_bonus, wild_canasta_dirty_bonus;  // S-10, I-12
  std::array<int64_t, 3> special_wild_canasta;  // (jokers, twos, bonus), I-12
  std::vector<int64_t> red3_scores;  // C-17, K-3, S-13, I-15
  int64_t red3_extra_each;
  std::array<int64_t, 5> red3_sign;
  bool melds_minus_without_canasta;  // S-14
  int64_t black3_in_hand_penalty;
  int64_t unopened_hand_penalty_factor;  // I-14
  std::vector<std::pair<int64_t, int64_t>> canasta_count_bonus;  // S-12
  std::vector<std::pair<int64_t, int64_t>> clean_canasta_count_bonus;  // I-13
  bool sequences;  // S-19
  int64_t sequence_bonus, royal_sequence_bonus;
  int64_t target_score;  // C-18

  static Rules from_values(const RuleValues& values);

  // A game, batch or bot seats `players`: the rules must have been resolved for them.
  void check_players(int players) const {
    if (players != num_players)
      throw std::invalid_argument("core rules: resolved for " + std::to_string(num_players) +
                                  " players (core.rules_values(rules, " + std::to_string(num_players) +
                                  ")), not for a table of " + std::to_string(players));
  }

  // C-8, S-8, I-9
  int64_t opening_minimum(int64_t team_score) const {
    int64_t minimum = opening_table[0].second;
    for (const auto& row : opening_table)
      if (team_score >= row.first) minimum = row.second;
    return minimum;
  }

  int64_t red3_total(int64_t count) const {
    const int64_t size = static_cast<int64_t>(red3_scores.size());
    if (count < size) return red3_scores[count];
    return red3_scores.back() + (count - size + 1) * red3_extra_each;
  }

  int total_cards() const {
    auto counts = deck_counts(num_decks, jokers_per_deck);
    int total = 0;
    for (int c : counts) total += c;
    return total;
  }
};

}  // namespace canasta
