// The fixed sizes of the core's arrays, and why each is enough (the Python engine's lists
// have none). state.hpp and suits.hpp are sized by them; the state reader (bindings.cpp)
// refuses a value past them, so no index the core makes leaves its array.
//
// MAX_CARDS: a pile's room: the largest deck the rules accept (rules.py MAX_DECK_CARDS: 8
// decks of 52 cards plus 255 jokers in all) and one more. MAX_CLOSED and
// MAX_RUNS bound a team's finished canastas and runs for every rules set the rules
// accept, so the core refuses none: a finished canasta holds at least 2 cards (a new meld
// from the hand has at least 3, the action layout; a pot take makes at least the top card
// and one natural), so all teams together finish at most MAX_CARDS / 2; a run holds 7
// naturals of one suit, and each suit has 11 ranks of at most 8 copies (8 decks), so at
// most 8 * 11 / 7 = 12 runs a suit, 48 in all.
//
// MAX_PLAYERS and MAX_TEAMS (3 players play alone; 4 and 6 are two partnerships) are
// observation/layout.py's, the meld slots (NUM_SLOTS, SLOT_BLACK3, SLOT_WILD) actions.py's,
// in core_decls.hpp (generated at build time).
#pragma once
#include <cstdint>

#include "core_decls.hpp"

namespace canasta {

constexpr int MAX_CARDS = MAX_DECK_CARDS + 1;
constexpr int MAX_CLOSED = MAX_CARDS / 2;
constexpr int MAX_RUNS = 64;

// The bounds of the counters and scores a loaded state may hold (MAX_COUNT, MAX_SCORE) are
// rules.py's, in core_decls.hpp.

// A list of at most N items in a fixed array: items[0..len). The stock, the pot, a team's
// finished canastas and runs: a plain struct, copied whole, never allocated.
template <class T, int N>
struct List {
  static constexpr int CAPACITY = N;
  int16_t len;
  T items[N];
  T& operator[](int i) { return items[i]; }
  const T& operator[](int i) const { return items[i]; }
};

}  // namespace canasta
