// Card kinds, values and deck counts: the mirror of canasta_env/cards.py.
//
// A card is one of 15 kinds (ids 0-10 the naturals 4..A, 11 the 2, 12 the joker,
// 13 the black 3, 14 the red 3); suits matter only to the S-19 runs, which count
// naturals by kind * 4 + suit (suits S H D C = 0..3, -1 for none). The kinds, their
// values (G-2: joker 50; 2 = 20; A = 20; K..8 = 10; 7..4 = 5; black 3 = 5 when melded),
// names and the suits are cards.py's, in core_decls.hpp (generated at build time); red 3s
// are never held (G-6), so a hand counts NUM_HAND_KINDS kinds.
#pragma once
#include <array>
#include <cstdint>

#include "core_decls.hpp"

namespace canasta {

inline bool is_wild(int kind) { return kind == TWO || kind == JOKER; }
inline bool is_natural(int kind) { return kind >= 0 && kind < NUM_NATURALS; }

// G-1: cards of each kind in num_decks 52-card decks plus jokers (the decks and jokers of
// C-1, K-1, S-1 and I-1 come resolved in the rules).
inline std::array<int, NUM_KINDS> deck_counts(int num_decks, int jokers_per_deck) {
  std::array<int, NUM_KINDS> counts{};
  for (int k = 0; k < NUM_NATURALS; ++k) counts[k] = 4 * num_decks;
  counts[TWO] = 4 * num_decks;
  counts[JOKER] = jokers_per_deck * num_decks;
  counts[BLACK3] = 2 * num_decks;
  counts[RED3] = 2 * num_decks;
  return counts;
}

}  // namespace canasta
