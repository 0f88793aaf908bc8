// Meld composition rules and the meld moves a hand allows: the mirror of engine/melds.py
// (C-5..C-7, S-7, S-9, S-11, I-5, I-6).
//
// A team's unfinished melds are three arrays by slot (naturals, twos, jokers); finished
// canastas (S-7) are a list the caller keeps. Functions take plain arrays so that play
// (game.cpp) and the turn search (opening.cpp) share one implementation.
#pragma once
#include <cstdint>
#include <vector>

#include "actions.hpp"
#include "rules.hpp"
#include "state.hpp"

namespace canasta {

struct NewOption { uint8_t index, naturals, twos, jokers; };

class MeldTables {
 public:
  explicit MeldTables(const Rules& rules);
  const Rules& rules;

  // C-5, S-7, I-5: is (n naturals, twos, jokers) a legal meld of a natural rank?
  bool natural_meld_ok(int64_t n, int64_t twos, int64_t jokers) const {
    const int64_t wilds = twos + jokers, size = n + wilds;
    return n >= rules.min_naturals && size >= rules.min_meld_size &&
           wilds <= rules.max_wilds_per_meld && n - wilds >= rules.min_natural_excess &&
           (!rules.meld_closes_at || size <= rules.meld_closes_at);
  }
  bool is_clean_wild_opening(int twos, int jokers) const;

  // New natural melds: bit i set when composition i (COMPOSITIONS) is legal under these
  // rules; meld_moves intersects it with the compositions a hand holds (melds.cpp).
  uint64_t new_natural_ok = 0;
  // new wild-only melds: (twos, jokers, wild composition index)
  std::vector<NewOption> new_wild;
};

// Every meld move the hand allows onto a team's melds, before turn guards (meld_moves);
// writes action ids to `out`, ascending, and returns their count. clean_only: I-10.
int meld_moves(const MeldTables& tables, const int16_t* hand, const int16_t* nat,
               const int16_t* two, const int16_t* jok, bool clean_only, int16_t* out);

// C-7: with a black-3 meld on the table the turn can end only by going out.
inline bool going_out_only(const Rules& rules, const int16_t* nat) {
  return rules.black3_meld_only_going_out && nat[SLOT_BLACK3] > 0;
}

// (is clean) of a canasta, for S-15 and I-11: a wild-only canasta is clean when it holds
// one kind of wild card only (S-10).
inline bool canasta_clean(int slot, int twos, int jokers) {
  if (slot == SLOT_WILD) return twos == 0 || jokers == 0;
  return twos + jokers == 0;
}

// G-2: the card values of a meld's cards (or of the cards a move adds to it).
inline int64_t meld_points(int slot, int64_t naturals, int64_t twos, int64_t jokers) {
  const int kind = slot == SLOT_BLACK3 ? BLACK3 : slot;
  return CARD_VALUES[kind] * naturals + CARD_VALUES[TWO] * twos + CARD_VALUES[JOKER] * jokers;
}

struct CanastaSummary { int count, clean, dirty; };

// (canastas, clean canastas, dirty canastas) of the unfinished melds of a team of canasta
// size (C-6, as melds.py team_canastas), plus
// `closed_count` and `closed_clean` finished ones (canasta_summary).
inline CanastaSummary canasta_summary(const Rules& rules, const int16_t* nat, const int16_t* two,
                                      const int16_t* jok, int closed_count, int closed_clean) {
  int count = closed_count, clean = closed_clean;
  for (int slot = 0; slot < NUM_SLOTS; ++slot) {
    if (nat[slot] + two[slot] + jok[slot] >= rules.canasta_size) {
      ++count;
      if (canasta_clean(slot, two[slot], jok[slot])) ++clean;
    }
  }
  return {count, clean, count - clean};
}

// C-14, S-15, I-11: do a team's canastas let it go out (opening and S-15's turn aside)?
inline bool canastas_let_go_out(const Rules& rules, int count, int clean, int dirty) {
  if (count < rules.go_out_min_canastas) return false;
  return !rules.go_out_needs_clean_and_dirty || (clean && dirty);
}

}  // namespace canasta
