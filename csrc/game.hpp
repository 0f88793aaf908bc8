// The game: state, legal actions, applying an action, hand and game end (engine/game.py).
//
// A Game owns its state (state.hpp) and, beside it, caches only: the meld tables of its
// rules, and the legal actions of the position (dropped whenever the state moves on).
// Nothing here touches Python: a batched env can own many Games and call
// reset / step / mask on each (see random_playout in game.cpp for such a loop).
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "actions.hpp"
#include "busy.hpp"
#include "melds.hpp"
#include "rules.hpp"
#include "state.hpp"
#include "transitions.hpp"

namespace canasta {

// An action the rules do not allow (or a bad argument); the state is unchanged.
// The binding turns it into Python's ValueError.
struct IllegalAction : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// A stacked deck: the first cards in draw order, as kinds, with suits (S-19) where
// known: a suit of -2 is "not given" (a card given by kind number), -1 a joker.
struct StackedDeck {
  std::vector<int> kinds;
  std::vector<int> suits;  // empty: no suits given
};

// Positive control of the parity tests: a nonzero fault flips one rule (game.cpp
// `fault`); 0 (the default) plays the rules. Set only by tests (_core._set_fault).
extern int g_fault;

class TurnSearch;  // opening.hpp

class Game {
 public:
  Game(std::shared_ptr<const Rules> rules, std::string rules_name, int num_players,
       const Rng& rng, const StackedDeck* deck);
  // Not copied: a copy would share the turn id, and so the search memo, of its original.
  Game(const Game&) = delete;
  Game& operator=(const Game&) = delete;

  std::shared_ptr<const Rules> rules_ptr;
  const Rules& rules;
  std::string rules_name;
  MeldTables tables;
  GameState s;
  // held by every binding that reads or writes the game, and by a batch that steps it
  // (busy.hpp: one thread at a time)
  BusyFlag busy;

  // ---- queries
  int current_player() const { return s.current; }
  bool hand_over() const { return s.phase == PHASE_HAND_OVER; }
  // The legal action ids, ascending (empty once the hand is over); cached.
  const int16_t* legal_actions(int* count);
  const uint8_t* mask();  // [NUM_ACTIONS] 0/1
  bool is_legal(int action);

  // ---- moves
  void apply(int action);  // throws IllegalAction, changing nothing
  void next_hand(const StackedDeck* deck);
  // After the state was written from outside (set_state): drop caches, check sizes.
  void state_changed();

  // The search needs these (opening.cpp).
  bool opening_done(int team) const {
    return s.opened[team] || (rules.concealed_go_out_ignores_minimum && !s.took_pot);
  }
  int closed_clean(int team) const;
  bool team_has_black3_closed(int team) const;

 private:
  bool legal_valid_ = false;
  // The turn search's memo (opening.cpp) lives for one turn: its answers are functions
  // of the node and of facts fixed for the turn (the player, the team's opening minimum,
  // S-15's clean canasta at turn start). A fresh id at every turn start and whenever the
  // state is written from outside.
  uint64_t turn_id_ = 0;
  int num_legal_ = 0;
  int16_t legal_[NUM_ACTIONS];
  uint8_t mask_[NUM_ACTIONS] = {};

  void compute_legal();
  int draw_phase_actions(int16_t* out);
  int meld_phase_actions(int16_t* out);
  int escala_actions(TurnSearch& search, int16_t* out);
  int take_options(TakeOption* out) const;

  void start_hand(const StackedDeck* deck);
  void build_stock(const StackedDeck* deck);
  void build_suited_stock(const StackedDeck* deck);
  void start_pot();
  void reset_history();
  void begin_turn(int player);
  bool draw_cards(int count);
  void lay_red3(int team);
  void draw();
  void take(int action);
  void release_held(int player);
  void forget_known(int player, int kind, int count);
  void meld(int action);
  void after_meld(int player, int team, int slot, int64_t points, bool hidden);
  void lay_escala(int action);
  void discard(int kind);
  void go_out(int player);
  void end_hand(int reason, int winner = -1);
  bool any_held() const;
  GameClosed closed_sink(int team) { return GameClosed{s.closed[team].items, &s.closed[team].len}; }
  friend class TurnSearch;
};

// Bonus of one canasta (scoring.cpp; engine/scoring.py canasta_bonus: C-17, S-10, I-12).
int64_t canasta_bonus(const Rules& rules, int slot, int twos, int jokers, bool hidden);

// End-of-hand scoring (scoring.cpp): the score sheet of one team.
Sheet score_team(const Game& game, int team);

// A fast C++-side random masked policy: plays `steps` actions of games under `rules`
// (dealing a new game whenever one ends), choosing uniformly among the legal ids with
// its own generator seeded by `seed`. Returns the number of hands finished.
int64_t random_playout(std::shared_ptr<const Rules> rules, const std::string& name,
                       int num_players, int64_t steps, uint32_t seed);

}  // namespace canasta
