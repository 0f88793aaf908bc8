// An observation read back into named, unscaled fields: the mirror of
// canasta_env/observation/reader.py's decode_view, for the fields the house bots read.
//
// Each entry is read as reader.py reads it: rint(float64(entry) / float64(scale)), the
// scale the float32 of LAYOUT's (observation.hpp spans()), so a bot in C++ sees exactly
// the numbers the Python bot sees in the same observation. Teams and seats are ordered
// from the viewer and cut to the table's teams and seats, as there.
#pragma once
#include <cstdint>

#include "../cards.hpp"
#include "../sizes.hpp"

namespace canasta {
namespace bots {

// One team's public table (reader.py TeamView).
struct TeamView {
  int naturals[NUM_SLOTS], twos[NUM_SLOTS], jokers[NUM_SLOTS];
  int closed_clean[NUM_SLOTS], closed_dirty[NUM_SLOTS];
  int red3;
  bool opened;
  int canastas, clean, dirty;

  int meld_size(int slot) const { return naturals[slot] + twos[slot] + jokers[slot]; }
  bool has_meld(int slot) const { return meld_size(slot) > 0; }
};

// One seat from the viewer's side (reader.py PlayerView).
struct PlayerView {
  bool teammate;
  int hand_size;
  int known[NUM_HAND_KINDS];  // cards known to be in the hand (pot takes, G-8)
};

// reader.py ObservationView, the fields the bots read.
struct View {
  int hand[NUM_HAND_KINDS];
  int held[NUM_HAND_KINDS];
  int pot_size;
  bool pot_frozen, pot_crossed;
  int pot_known[NUM_KINDS];
  int num_teams;
  TeamView teams[MAX_TEAMS];
  PlayerView players[MAX_PLAYERS];
  bool may_go_out;
  int stock;
  int num_players;  // -1 when the observation shows none
  int hand_number;
  int draw_count;

  const TeamView& me() const { return teams[0]; }
  int hand_size() const {
    int total = 0;
    for (int k = 0; k < NUM_HAND_KINDS; ++k) total += hand[k];
    return total;
  }
  // a wild card lies in the pot: it is frozen (C-9, I-8) or crossed (S-6)
  bool pot_wild() const { return pot_frozen || pot_crossed; }
};

// decode_view(observation): throws std::invalid_argument for a vector that shows no
// player count, as reader.py raises ValueError. The observation is trusted: the core's
// own (a batch's, play_bots'), or one check_observation passed.
void decode_view(const float* observation, View* view);

// An observation from outside the core (_core.Bot.act), checked before a bot reads it:
// every entry finite, and every entry decode_view reads a whole number (to within 1e-3,
// once unscaled) in the range the builder writes there (a flag 0 or 1, a count of one
// kind 0..255, the pot, the stock and a hand's size 0..MAX_CARDS); a player count shown.
// Otherwise std::invalid_argument "not an observation: entry i (its LAYOUT name) ...".
// What passes keeps every index, loop and binomial of the bots inside its bounds.
void check_observation(const float* observation);

}  // namespace bots
}  // namespace canasta
