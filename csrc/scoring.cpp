// End-of-hand scoring (engine/scoring.py: G-9, C-15, C-17, S-10..S-14, S-19, I-12..I-15).
#include "game.hpp"

namespace canasta {

// Bonus of one canasta (C-17, S-10, I-12).
int64_t canasta_bonus(const Rules& rules, int slot, int twos, int jokers, bool hidden) {
  if (slot == SLOT_BLACK3) return 0;  // S-11: a black-3 canasta wins the game instead
  if (slot == SLOT_WILD) {
    int64_t bonus;
    const auto& special = rules.special_wild_canasta;  // (jokers, twos, bonus)
    if (special[2] && jokers == special[0] && twos == special[1]) {
      bonus = special[2];  // I-12 "toro seduto"
    } else if (canasta_clean(slot, twos, jokers)) {  // S-10: one kind of wild card
      bonus = rules.wild_canasta_clean_bonus;
    } else {
      bonus = rules.wild_canasta_dirty_bonus;
    }
    const int64_t hidden_bonus = hidden ? rules.hidden_canasta_bonus : 0;
    return bonus > hidden_bonus ? bonus : hidden_bonus;
  }
  const bool clean = canasta_clean(slot, twos, jokers);
  if (hidden && rules.hidden_canasta_bonus) return rules.hidden_canasta_bonus;  // S-10
  for (const auto& row : rules.rank_canasta_bonus)
    if (row[0] == slot) return clean ? row[1] : row[2];  // I-12 aces
  return clean ? rules.clean_canasta_bonus : rules.dirty_canasta_bonus;
}

Sheet score_team(const Game& game, int team) {
  const Rules& rules = game.rules;
  const GameState& s = game.s;
  const int16_t *nat = s.nat[team], *two = s.two[team], *jok = s.jok[team];
  int64_t melded = 0, bonus = 0;
  for (int slot = 0; slot < NUM_SLOTS; ++slot) melded += meld_points(slot, nat[slot], two[slot], jok[slot]);
  for (int i = 0; i < s.closed[team].len; ++i) {
    const Closed& c = s.closed[team][i];
    melded += meld_points(c.slot, c.naturals, c.twos, c.jokers);
  }
  for (int slot = 0; slot < NUM_SLOTS; ++slot)
    if (nat[slot] + two[slot] + jok[slot] >= rules.canasta_size)
      bonus += canasta_bonus(rules, slot, two[slot], jok[slot], false);
  for (int i = 0; i < s.closed[team].len; ++i) {
    const Closed& c = s.closed[team][i];
    bonus += canasta_bonus(rules, c.slot, c.twos, c.jokers, c.hidden);
  }
  const auto sum = canasta_summary(rules, nat, two, jok, s.closed[team].len, game.closed_clean(team));
  // S-19 runs: their cards count as melded cards; the bonus needs a canasta
  int64_t sequences = 0;
  for (int i = 0; i < s.escalas[team].len; ++i) {
    const Run& run = s.escalas[team][i];
    for (int rank = run.start; rank < run.start + run.length; ++rank) melded += CARD_VALUES[rank];
    if (sum.count)
      sequences += run.length == NUM_NATURALS ? rules.royal_sequence_bonus : rules.sequence_bonus;
  }
  const bool opened = s.opened[team];
  if (rules.melds_minus_without_canasta && sum.count == 0) melded = -melded;  // S-14
  // red 3s (C-17, K-3, S-13, I-15)
  int condition;
  if (!opened) condition = TEAM_NO_MELD;
  else if (sum.count == 0) condition = TEAM_NO_CANASTA;
  else if (sum.clean && sum.dirty) condition = TEAM_CLEAN_AND_DIRTY;
  else if (sum.clean) condition = TEAM_CLEAN_ONLY;
  else condition = TEAM_DIRTY_ONLY;
  const int64_t red3 = rules.red3_total(s.red3[team]) * rules.red3_sign[condition];
  // team bonuses (S-12, I-13)
  int64_t count_bonus = 0;
  for (const auto& row : rules.canasta_count_bonus)
    if (sum.count >= row.first) count_bonus = row.second;
  for (const auto& row : rules.clean_canasta_count_bonus)
    if (sum.clean >= row.first) count_bonus += row.second;
  // going out (C-15, S-15, I-13)
  int64_t going_out = 0;
  if (s.went_out >= 0 && s.team_of[s.went_out] == team) {
    going_out = rules.go_out_bonus;
    if (s.concealed && rules.concealed_go_out_bonus) going_out = rules.concealed_go_out_bonus;
    if (g_fault == 2) going_out += 10;  // positive control only: a wrong going-out bonus
  }
  // cards left in hand (G-9, S-14, I-14)
  int64_t penalty = 0;
  for (int seat = 0; seat < s.num_players; ++seat) {
    if (s.team_of[seat] != team) continue;
    for (int kind = 0; kind < NUM_HAND_KINDS; ++kind) {
      const int64_t count = s.hands[seat][kind];
      if (count) penalty += (kind == BLACK3 ? rules.black3_in_hand_penalty : CARD_VALUES[kind]) * count;
    }
  }
  if (!opened) penalty *= rules.unopened_hand_penalty_factor;
  Sheet sheet;
  sheet.melded = melded;
  sheet.canasta_bonus = bonus;
  sheet.sequences = sequences;
  sheet.red3 = red3;
  sheet.count_bonus = count_bonus;
  sheet.going_out = going_out;
  sheet.hand_penalty = -penalty;
  sheet.total = melded + bonus + sequences + red3 + count_bonus + going_out - penalty;
  sheet.canastas = sum.count;
  return sheet;
}

}  // namespace canasta
