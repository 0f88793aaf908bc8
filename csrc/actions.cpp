// The move table, as actions.py's MOVES: each member read from its column of moves_decl
// (core_decls.hpp, generated from actions.py at build time), once.
#include "actions.hpp"

namespace canasta {

Move MOVES[NUM_ACTIONS];
Composition COMPOSITIONS[NUM_COMPOSITIONS];
WildComposition WILD_COMPOSITIONS[NUM_WILD_COMPOSITIONS];

namespace {

struct Builder {
  Builder() {
    for (int c = 0; c < NUM_COMPOSITIONS; ++c)
      COMPOSITIONS[c] = {COMPOSITION_ROWS[c][0], COMPOSITION_ROWS[c][1], COMPOSITION_ROWS[c][2]};
    for (int w = 0; w < NUM_WILD_COMPOSITIONS; ++w)
      WILD_COMPOSITIONS[w] = {WILD_COMPOSITION_ROWS[w][0], WILD_COMPOSITION_ROWS[w][1]};
    using namespace moves_decl;
    for (int id = 0; id < NUM_ACTIONS; ++id)
      MOVES[id] = Move{KIND[id], SLOT[id], NATURALS[id], TWOS[id], JOKERS[id], NEW[id], SUIT[id], START[id]};
  }
};

const Builder BUILT;

}  // namespace

const char* action_text(int action) {
  if (action < 0 || action >= NUM_ACTIONS) return "?";
  return ACTION_TEXTS[action];
}

}  // namespace canasta
