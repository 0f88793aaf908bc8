// Turn guards: which moves leave the player a way to finish the turn legally
// (engine/opening.py: C-13, S-16, I-11, G-5, C-8, S-8, I-9, I-10).
//
// A depth-first search over meld moves with memoisation and an upper bound on the
// points the hand can still add, exactly as opening.py. A node depends on the team's
// finished canastas (S-7) only through their number, their clean ones and whether one
// is of black 3s, so a node keeps that summary instead of the list.
#pragma once
#include <cstdint>
#include <cstring>

#include "game.hpp"

namespace canasta {

struct Node {
  int16_t hand[NUM_KINDS];
  int16_t nat[NUM_SLOTS];
  int16_t two[NUM_SLOTS];
  int16_t jok[NUM_SLOTS];
  int16_t held[NUM_KINDS];  // pot cards set aside until the opening (C-8)
  int16_t closed_count;
  int16_t closed_clean;
  int32_t total;   // cards in the hand
  int32_t staged;  // opening points melded this turn
  uint8_t closed_b3;
  uint8_t hidden_open;  // a hidden canasta opened the team (S-8)
  uint8_t opened;       // the team had opened before the last move
  uint8_t took;         // the pot was taken this turn
  uint8_t clean_only;   // only clean melds may follow (I-10)
  uint8_t pad[3];
};

struct NodeClosed {  // the search's sink for finished canastas: their summary
  Node* node;
  void add(int slot, int, int t, int j, bool) {
    ++node->closed_count;
    if (canasta_clean(slot, t, j)) ++node->closed_clean;
    if (slot == SLOT_BLACK3) node->closed_b3 = 1;
  }
};

class TurnSearch {
 public:
  explicit TurnSearch(Game& game);
  bool go_out_allowed_counts(int count, int clean, int dirty) const;
  bool discard_allowed() const;
  bool move_feasible(const Move& move, const Node& node);
  bool take_feasible(const TakeOption& option);
  bool hand_after_ok(const int16_t* hand, int total);
  void game_node(Node& node) const;

 private:
  Game& game;
  const Rules& rules;
  int team;
  bool go_out_allowed(const Node& node, bool opening_ok) const;
  void child(const Node& node, const Move& move, Node& out) const;
  bool node_ok(const Node& node);
  int can_meld_out(const Node& node, bool opened, bool concealed_ok) const;  // -1: None
  bool melds_out(const int16_t* left, const Node& node) const;
  bool may_still_open(const Node& node, bool concealed_ok) const;
  bool expand(const Node& node);
};

// A turn id no other turn has had (any game, any thread).
uint64_t new_turn_id();
// Keep this thread's memo if it belongs to `turn`, else start a fresh one for it.
void search_memo_for_turn(uint64_t turn);

}  // namespace canasta
