// Meld tables and meld moves (engine/melds.py).
#include "melds.hpp"

#include <algorithm>

namespace canasta {

MeldTables::MeldTables(const Rules& r) : rules(r) {
  for (int index = 0; index < NUM_COMPOSITIONS; ++index) {
    const auto& c = COMPOSITIONS[index];
    if (natural_meld_ok(c.naturals, c.twos, c.jokers))
      new_natural_by_n[c.naturals].push_back(
          {static_cast<uint8_t>(index), c.naturals, c.twos, c.jokers});
  }
  if (r.wild_melds) {
    for (int index = 0; index < NUM_WILD_COMPOSITIONS; ++index) {
      const auto& c = WILD_COMPOSITIONS[index];
      const int size = c.twos + c.jokers;
      if (r.wild_meld_min_start <= size && size <= r.wild_meld_max_size)
        new_wild.push_back({static_cast<uint8_t>(index), 0, c.twos, c.jokers});
    }
  }
}

bool MeldTables::is_clean_wild_opening(int twos, int jokers) const {
  for (const auto& p : rules.clean_opening_wild_melds)
    if (p.first == twos && p.second == jokers) return true;
  return false;
}

int meld_moves(const MeldTables& tables, const int16_t* hand, const int16_t* nat,
               const int16_t* two, const int16_t* jok, bool clean_only, int16_t* out) {
  const Rules& rules = tables.rules;
  int count = 0;
  const int twos_in_hand = hand[TWO], jokers_in_hand = hand[JOKER];
  const int twos_cap = std::min(twos_in_hand, 8), jokers_cap = std::min(jokers_in_hand, 8);
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int have = hand[rank];
    const int n0 = nat[rank], twos_on = two[rank], jokers_on = jok[rank];
    if (n0 || twos_on || jokers_on) {
      const int wilds = twos_on + jokers_on;
      if (have && tables.natural_meld_ok(n0 + 1, wilds, 0)) out[count++] = ADD_NATURAL + rank;
      if (clean_only || !tables.natural_meld_ok(n0, wilds + 1, 0)) continue;
      if (twos_in_hand) out[count++] = ADD_TWO + rank;
      if (jokers_in_hand) out[count++] = ADD_JOKER + rank;
    } else if (have >= 2) {
      const int base = NEW_MELD + rank * NUM_COMPOSITIONS;
      const int top = have < 7 ? have : 7;
      for (int n = 2; n <= top; ++n)
        for (const auto& o : tables.new_natural_by_n[n]) {
          if (o.twos <= twos_cap && o.jokers <= jokers_cap) {
            if (clean_only && o.twos + o.jokers) continue;
            out[count++] = static_cast<int16_t>(base + o.index);
          }
        }
    }
  }
  if (rules.black3_melds && hand[BLACK3]) {
    const int size = nat[SLOT_BLACK3];
    if (size) {
      if (size < rules.black3_meld_max_size) out[count++] = ADD_NATURAL + SLOT_BLACK3;
    } else {
      const int64_t top = std::min<int64_t>(hand[BLACK3], rules.black3_meld_max_size);
      for (int n = 3; n <= top; ++n) out[count++] = static_cast<int16_t>(NEW_BLACK3 + n - 3);
    }
  }
  if (rules.wild_melds && (twos_in_hand || jokers_in_hand)) {
    const int size = two[SLOT_WILD] + jok[SLOT_WILD];
    if (size) {
      if (size < rules.wild_meld_max_size && !clean_only) {
        if (twos_in_hand) out[count++] = ADD_TWO + 11;
        if (jokers_in_hand) out[count++] = ADD_JOKER + 11;
      }
    } else {
      for (const auto& o : tables.new_wild) {
        if (o.twos <= twos_in_hand && o.jokers <= jokers_in_hand) {
          if (clean_only && !tables.is_clean_wild_opening(o.twos, o.jokers)) continue;
          out[count++] = static_cast<int16_t>(NEW_WILD + o.index);
        }
      }
    }
  }
  return count;
}

}  // namespace canasta
