// The action layout and the move table: the mirror of canasta_env/actions.py.
//
// The id ranges (DRAW .. ESCALA, NUM_ACTIONS), MAX_NEW_MELD and the runs (RUN_START,
// RUN_LENGTH) are actions.py's, in core_decls.hpp (generated at build time): DISCARD + kind,
// ADD_NATURAL + slot 0..11, ADD_TWO and ADD_JOKER + slot 0..10 (11 = wild meld),
// NEW_MELD + rank * NUM_COMPOSITIONS + composition, NEW_BLACK3 + (n - 3), NEW_WILD +
// composition, ESCALA + suit * NUM_RUNS + run. MOVES[id] says what an id does (kind of
// move, slot or discarded kind, the cards a meld lays, whether it starts a meld, an S-19
// run's suit and first rank): actions.py's MOVES, generated column by column
// (moves_decl::, with the kinds of move MoveKind, the compositions and ACTION_TEXTS).
#pragma once
#include <cstdint>

#include "cards.hpp"

namespace canasta {

struct Move {
  uint8_t kind;
  int8_t slot;       // meld slot, or the discarded kind; -1 otherwise
  uint8_t naturals;  // cards laid from the hand (a run: its length)
  uint8_t twos;
  uint8_t jokers;
  bool is_new;       // starts a meld (or lays a run)
  int8_t suit;       // S-19 run: suit, else -1
  int8_t start;      // S-19 run: first rank, else -1
};

struct Composition { uint8_t naturals, twos, jokers; };
struct WildComposition { uint8_t twos, jokers; };

extern Move MOVES[NUM_ACTIONS];
extern Composition COMPOSITIONS[NUM_COMPOSITIONS];
extern WildComposition WILD_COMPOSITIONS[NUM_WILD_COMPOSITIONS];

// The text of an action id (actions.py ACTION_TEXTS), for error messages.
const char* action_text(int action);

// The natural card kind a meld slot holds (black 3s have their own slot).
inline int natural_kind(int slot) { return slot == SLOT_BLACK3 ? BLACK3 : slot; }

}  // namespace canasta
