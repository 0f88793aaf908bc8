// Suits for the optional Spanish runs (S-19, rules.sequences): engine/sequences.py.
#pragma once
#include <cstdint>
#include <stdexcept>

#include "actions.hpp"
#include "cards.hpp"

namespace canasta {

// Length of the same-suit run of held naturals that contains `kind`.
inline int run_length_through(const int16_t* hand_suits, int kind, int suit) {
  int length = 1;
  for (int rank = kind - 1; rank >= 0 && hand_suits[rank * NUM_SUITS + suit]; --rank) ++length;
  for (int rank = kind + 1; rank < NUM_NATURALS && hand_suits[rank * NUM_SUITS + suit]; ++rank)
    ++length;
  return length;
}

// Take `count` naturals of `kind` out of hand_suits (a suit held twice first, then the
// suit whose run through `kind` is shortest, ties in S H D C order); returns the suit of
// the last one taken (the one a discard needs).
inline int remove_suits(int16_t* hand_suits, int kind, int count) {
  const int base = kind * NUM_SUITS;
  int best = -1;
  for (int i = 0; i < count; ++i) {
    best = -1;
    int best_cost = 0;
    for (int suit = 0; suit < NUM_SUITS; ++suit) {
      const int have = hand_suits[base + suit];
      if (!have) continue;
      const int cost = have >= 2 ? 0 : run_length_through(hand_suits, kind, suit);
      if (best < 0 || cost < best_cost) {
        best = suit;
        best_cost = cost;
      }
    }
    if (best < 0) throw std::logic_error("core: no natural of that kind in the suited hand");
    --hand_suits[base + best];
  }
  return best;
}

// The escala action ids whose cards are all in hand_suits; returns their count.
inline int held_runs(const int16_t* hand_suits, int16_t* out) {
  int count = 0;
  for (int suit = 0; suit < NUM_SUITS; ++suit) {
    unsigned held = 0;
    int cards = 0;
    for (int rank = 0; rank < NUM_NATURALS; ++rank)
      if (hand_suits[rank * NUM_SUITS + suit]) {
        held |= 1U << rank;
        ++cards;
      }
    if (cards < SEQUENCE_LENGTH) continue;
    for (int r = 0; r < NUM_RUNS; ++r) {
      const unsigned mask = ((1U << RUN_LENGTH[r]) - 1U) << RUN_START[r];
      if ((held & mask) == mask) out[count++] = static_cast<int16_t>(ESCALA + suit * NUM_RUNS + r);
    }
  }
  return count;
}

}  // namespace canasta
