// The action layout and the move table: the mirror of canasta_env/actions.py.
//
// MOVES[id] says what an id does (kind of move, slot or discarded kind, the cards a
// meld lays, whether it starts a meld, an S-19 run's suit and first rank).
#pragma once
#include <cstdint>

#include "cards.hpp"

namespace canasta {

constexpr int DRAW = 0;
constexpr int TAKE = 1;
constexpr int TAKE_WITH_TWO = 2;
constexpr int TAKE_WITH_JOKER = 3;
constexpr int TAKE_ONTO_MELD = 4;
constexpr int PASS = 5;
constexpr int DISCARD = 6;                              // + kind, 14 ids
constexpr int ADD_NATURAL = DISCARD + NUM_HAND_KINDS;   // 20: + slot 0..11
constexpr int ADD_TWO = ADD_NATURAL + 12;               // 32: + slot 0..10, 11 = wild meld
constexpr int ADD_JOKER = ADD_TWO + 12;                 // 44
constexpr int NEW_MELD = ADD_JOKER + 12;                // 56: + rank * 35 + composition
constexpr int NUM_COMPOSITIONS = 35;
constexpr int NEW_BLACK3 = NEW_MELD + NUM_NATURALS * NUM_COMPOSITIONS;  // 441: + (n - 3)
constexpr int NEW_WILD = NEW_BLACK3 + 5;                // 446
constexpr int NUM_WILD_COMPOSITIONS = 30;
constexpr int ESCALA = NEW_WILD + NUM_WILD_COMPOSITIONS;  // 476: + suit * 6 + run
constexpr int NUM_RUNS = 6;
constexpr int SEQUENCE_LENGTH = 7;
constexpr int NUM_ACTIONS = ESCALA + NUM_SUITS * NUM_RUNS;  // 500
constexpr int MAX_NEW_MELD = 7;
static_assert(NUM_ACTIONS == 500, "the action layout is 500 ids");

enum MoveKind : uint8_t { MOVE_DRAW, MOVE_TAKE, MOVE_PASS, MOVE_DISCARD, MOVE_MELD, MOVE_RUN };

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
extern const int RUN_START[NUM_RUNS];
extern const int RUN_LENGTH[NUM_RUNS];
extern const char* const PHASE_NAMES[3];

// The text of an action id (actions.py ACTION_TEXTS), for error messages.
const char* action_text(int action);

// The natural card kind a meld slot holds (black 3s have their own slot).
inline int natural_kind(int slot) { return slot == 11 ? BLACK3 : slot; }

}  // namespace canasta
