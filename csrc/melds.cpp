// Meld tables and meld moves (engine/melds.py).
#include "melds.hpp"

#include <algorithm>
#include <stdexcept>

namespace canasta {

namespace {

// A new meld's wild cards: at most MAX_NEW_WILDS (n + wilds <= 7 with wilds <= n).
constexpr int MAX_NEW_WILDS = 3;

// The compositions a hand can lay, as bits of COMPOSITIONS: bits[naturals][twos][jokers]
// with each count capped (naturals at MAX_NEW_MELD, wild cards at MAX_NEW_WILDS); wild_free
// the compositions without wild cards (I-10). The same for every rules object.
struct Holds {
  uint64_t bits[MAX_NEW_MELD + 1][MAX_NEW_WILDS + 1][MAX_NEW_WILDS + 1] = {};
  uint64_t wild_free = 0;
  Holds() {
    for (int index = 0; index < NUM_COMPOSITIONS; ++index) {
      const auto& c = COMPOSITIONS[index];
      if (c.twos > MAX_NEW_WILDS || c.jokers > MAX_NEW_WILDS)
        throw std::logic_error("core: a composition holds more wild cards than MAX_NEW_WILDS");
      const uint64_t bit = uint64_t(1) << index;
      if (c.twos + c.jokers == 0) wild_free |= bit;
      for (int n = c.naturals; n <= MAX_NEW_MELD; ++n)
        for (int t = c.twos; t <= MAX_NEW_WILDS; ++t)
          for (int j = c.jokers; j <= MAX_NEW_WILDS; ++j) bits[n][t][j] |= bit;
    }
  }
};

const Holds& holds() {
  static const Holds table;  // built on first use: COMPOSITIONS is filled at load time
  return table;
}

}  // namespace

MeldTables::MeldTables(const Rules& r) : rules(r) {
  static_assert(NUM_COMPOSITIONS <= 64, "compositions are bits of a word");
  for (int index = 0; index < NUM_COMPOSITIONS; ++index) {
    const auto& c = COMPOSITIONS[index];
    if (natural_meld_ok(c.naturals, c.twos, c.jokers)) new_natural_ok |= uint64_t(1) << index;
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
  // Written in id order (ADD_NATURAL, ADD_TWO, ADD_JOKER, NEW_MELD, NEW_BLACK3, NEW_WILD,
  // each by slot), so that the list is ascending without a sort.
  const Rules& rules = tables.rules;
  int count = 0;
  const int twos_in_hand = hand[TWO], jokers_in_hand = hand[JOKER];
  // one pass over the ranks: melds on the table take a natural now (ADD_NATURAL, in
  // order), a wild card (bits of wild_targets); ranks without one may start one (new_ranks)
  uint32_t wild_targets = 0, new_ranks = 0;
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int n0 = nat[rank], wilds = two[rank] + jok[rank];
    if (n0 || wilds) {
      if (hand[rank] && tables.natural_meld_ok(n0 + 1, wilds, 0)) out[count++] = ADD_NATURAL + rank;
      if (!clean_only && tables.natural_meld_ok(n0, wilds + 1, 0)) wild_targets |= 1U << rank;
    } else if (hand[rank] >= 2) {
      new_ranks |= 1U << rank;
    }
  }
  const bool black3 = rules.black3_melds && hand[BLACK3];
  if (black3 && nat[SLOT_BLACK3] && nat[SLOT_BLACK3] < rules.black3_meld_max_size)
    out[count++] = ADD_NATURAL + SLOT_BLACK3;
  // S-9, I-6: the wild meld takes one more wild card (ADD_TWO/ADD_JOKER + 11)
  const int wild_size = two[SLOT_WILD] + jok[SLOT_WILD];
  const bool wild_grows = rules.wild_melds && !clean_only && wild_size &&
                          wild_size < rules.wild_meld_max_size;
  if (twos_in_hand) {
    for (uint32_t bits = wild_targets; bits; bits &= bits - 1)
      out[count++] = static_cast<int16_t>(ADD_TWO + __builtin_ctz(bits));
    if (wild_grows) out[count++] = ADD_TWO + 11;
  }
  if (jokers_in_hand) {
    for (uint32_t bits = wild_targets; bits; bits &= bits - 1)
      out[count++] = static_cast<int16_t>(ADD_JOKER + __builtin_ctz(bits));
    if (wild_grows) out[count++] = ADD_JOKER + 11;
  }
  const Holds& held = holds();
  const uint64_t allowed = tables.new_natural_ok & (clean_only ? held.wild_free : ~uint64_t(0));
  const uint64_t* holds_by_n = &held.bits[0][std::min(twos_in_hand, MAX_NEW_WILDS)]
                                         [std::min(jokers_in_hand, MAX_NEW_WILDS)];
  constexpr int N_STRIDE = (MAX_NEW_WILDS + 1) * (MAX_NEW_WILDS + 1);
  for (uint32_t ranks = new_ranks; ranks; ranks &= ranks - 1) {
    const int rank = __builtin_ctz(ranks);
    uint64_t bits = holds_by_n[std::min<int>(hand[rank], MAX_NEW_MELD) * N_STRIDE] & allowed;
    const int base = NEW_MELD + rank * NUM_COMPOSITIONS;
    for (; bits; bits &= bits - 1)  // ascending composition index
      out[count++] = static_cast<int16_t>(base + __builtin_ctzll(bits));
  }
  if (black3 && !nat[SLOT_BLACK3]) {
    const int64_t top = std::min<int64_t>(hand[BLACK3], rules.black3_meld_max_size);
    // C-5's minimum holds for black 3s too
    for (int64_t n = std::max<int64_t>(3, rules.min_meld_size); n <= top; ++n) out[count++] = static_cast<int16_t>(NEW_BLACK3 + n - 3);
  }
  if (rules.wild_melds && !wild_size && (twos_in_hand || jokers_in_hand)) {
    for (const auto& o : tables.new_wild) {
      if (o.twos <= twos_in_hand && o.jokers <= jokers_in_hand) {
        if (clean_only && !tables.is_clean_wild_opening(o.twos, o.jokers)) continue;
        out[count++] = static_cast<int16_t>(NEW_WILD + o.index);
      }
    }
  }
  return count;
}

}  // namespace canasta
