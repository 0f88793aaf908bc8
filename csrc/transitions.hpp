// Moves of cards onto a team's table, written once (engine/transitions.py): play applies
// them to the game's arrays, the turn search to a node's copies. Finished canastas go to
// a sink: the game's closed list (GameClosed) or the search's summary of it (NodeClosed).
#pragma once
#include <stdexcept>

#include "actions.hpp"
#include "melds.hpp"
#include "rules.hpp"
#include "state.hpp"

namespace canasta {

struct GameClosed {  // appends to a team's closed list in the state
  Closed* list;
  int16_t* len;
  void add(int slot, int n, int t, int j, bool hidden) {
    if (*len >= Canastas::CAPACITY) throw std::runtime_error("core: a team's closed canastas overflow");
    list[(*len)++] = Closed{static_cast<uint8_t>(slot), static_cast<uint8_t>(n),
                            static_cast<uint8_t>(t), static_cast<uint8_t>(j),
                            static_cast<uint8_t>(hidden)};
  }
};

// S-7: a meld that reaches its size limit becomes a finished canasta; its slot empties.
template <class Sink>
inline void close_if_full(const Rules& rules, int16_t* nat, int16_t* two, int16_t* jok,
                          Sink& closed, int slot, bool hidden) {
  if (!rules.meld_closes_at) return;
  const int64_t size = nat[slot] + two[slot] + jok[slot];
  const int64_t limit = slot == SLOT_WILD ? rules.wild_meld_max_size : rules.meld_closes_at;
  if (size < limit) return;
  closed.add(slot, nat[slot], two[slot], jok[slot], hidden);
  nat[slot] = two[slot] = jok[slot] = 0;
}

// A meld move (C-5..C-7, S-7, S-9, I-5): its cards leave the hand and join the slot.
// Returns whether it laid a whole canasta at once (S-8 hidden).
template <class Sink>
inline bool lay(const Rules& rules, int16_t* hand, int16_t* nat, int16_t* two, int16_t* jok,
                Sink& closed, const Move& move) {
  const int slot = move.slot;
  const int kind = slot == SLOT_BLACK3 ? BLACK3 : slot;
  if (move.naturals) {
    hand[kind] -= move.naturals;
    nat[slot] += move.naturals;
  }
  if (move.twos) {
    hand[TWO] -= move.twos;
    two[slot] += move.twos;
  }
  if (move.jokers) {
    hand[JOKER] -= move.jokers;
    jok[slot] += move.jokers;
  }
  const bool hidden = move.is_new && move.naturals + move.twos + move.jokers == rules.canasta_size;
  if (rules.meld_closes_at) close_if_full(rules, nat, two, jok, closed, slot, hidden);
  return hidden;
}

// A way to take the pot: (action, naturals, twos, jokers) from the hand.
struct TakeOption { int action, naturals, twos, jokers; };

// Taking the pot (C-10, S-5, I-7): the top card and the option's cards form or join the
// top card's meld. Returns what they count towards an opening.
template <class Sink>
inline int64_t take_top(const Rules& rules, int16_t* hand, int16_t* nat, int16_t* two,
                        int16_t* jok, Sink& closed, int top, const TakeOption& option) {
  hand[top] -= option.naturals;
  hand[TWO] -= option.twos;
  hand[JOKER] -= option.jokers;
  nat[top] += 1 + option.naturals;
  two[top] += option.twos;
  jok[top] += option.jokers;
  const int64_t points = meld_points(top, 1 + option.naturals, option.twos, option.jokers);
  if (rules.meld_closes_at) close_if_full(rules, nat, two, jok, closed, top, false);
  return points;
}

}  // namespace canasta
