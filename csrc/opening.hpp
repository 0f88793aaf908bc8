// Turn guards: which moves leave the player a way to finish the turn legally
// (engine/opening.py: C-13, S-16, I-11, G-5, C-8, S-8, I-9, I-10).
//
// The slot search of opening.py (_SlotSearch): the turn's meld moves taken slot by slot,
// memoised on a polynomial number of states, with an upper bound on the points the hand
// can still add. A node depends on the team's finished canastas (S-7) only through their
// number, their clean ones and whether one is of black 3s, so a node keeps that summary
// instead of the list.
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
  bool opens_plainly(const Node& node) const;
  bool may_end(const Node& node, bool opened, bool goo) const;
  // C-7's going out by counting, where the rules allow (-1: the search decides)
  int can_meld_out(const Node& node, bool opened, bool concealed_ok) const;
  bool melds_out(const int16_t* left, const Node& node) const;
  // the search over whole positions, within opening.py's DFS_BUDGET expansions (_dfs_ok)
  int budget = 0;
  bool dfs_ok(const Node& node);
  bool dfs_expand(const Node& node);
  bool may_still_open(const Node& node, bool concealed_ok) const;
};

// The search from one node (opening.py _SlotSearch, state for state).
class SlotSearch {
 public:
  SlotSearch(Game& game, int team, const Node& start);
  bool run();

 private:
  struct State {  // opening.py _SlotState (each field's doc there gives its name here)
    int16_t i, cn, ct, cj, hn, qn, hb, ht, hj, qb, qt, qj, staged, count;
    uint8_t post, wild_added, hidden, used_post, clean, dirty, b3c, goo, left_hand, left_held;
  };
  struct SlotMove {  // on a natural slot, twos holds the wild cards (of either kind)
    uint8_t naturals, twos, jokers;
    bool natural_add, is_new;
  };
  Game& game;
  const Rules& rules;
  const MeldTables& tables;
  const Node& node;
  int need, count_cap;
  int64_t closes_at, canasta_size, max_wilds;
  bool was_opened, concealed_ok, has_held, may_hide, b3_escape;
  int16_t hand_nat[NUM_NATURALS], held_nat[NUM_NATURALS];
  int16_t start_meld[NUM_SLOTS][3];  // each position's meld; a natural slot's wilds as one
  int64_t suffix_hand[NUM_SLOTS + 1], suffix_held[NUM_SLOTS + 1], suffix_points[NUM_SLOTS + 1];
  int64_t suffix_room[NUM_SLOTS + 1];
  int suffix_count[NUM_SLOTS + 1], suffix_clean[NUM_SLOTS + 1], suffix_dirty[NUM_SLOTS + 1];
  int64_t suffix_id[NUM_SLOTS + 1];

  int64_t room(int64_t n, int64_t wilds, int64_t more) const;
  uint32_t suffix_of(int i);
  int64_t points_bound(const State& st) const;
  bool stranded(const State& st) const;
  bool visit(const State& st);
  bool ends(const State& st) const;
  bool step(const State& st);
  bool advance(const State& st);
  int slot_moves(const State& st, bool wild_added, int have, int twos_in_hand,
                 int jokers_in_hand, SlotMove* out) const;
};

// A turn id no other turn has had (any game, any thread).
uint64_t new_turn_id();
// Keep this thread's memo if it belongs to `turn`, else start a fresh one for it.
void search_memo_for_turn(uint64_t turn);

}  // namespace canasta
