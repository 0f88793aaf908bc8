// What the house bots share: the mirror of agents/heuristics.py, function by function
// (reading action ids, public score estimates, card counting), plus the sort keys and
// the Python random draws the bots make.
//
// Floating point: every number is a double computed in the order the Python bot computes
// it, so ties and argmax come out alike; integer sums Python keeps as ints are ints here.
// The hypergeometric probability divides two exact binomial sums (Python ints) correctly
// rounded, as Python's int / int does, with a small unsigned big integer (Big).
#pragma once
#include <cstdint>
#include <vector>

#include "../actions.hpp"
#include "../rules.hpp"
#include "../rng.hpp"
#include "view.hpp"

namespace canasta {
namespace bots {

// heuristics.py's constants are in core_decls.hpp (bots::, generated from the Python file):
// CANASTA_SIZE, cards in a canasta (G-4), the same in every preset; UNKNOWN_CARD_VALUE,
// the average value of an unknown card in another player's hand, for score estimates;
// CLOSED_DIRTY_TWOS, the 2s a closed dirty canasta is taken to hold (S-7);
// TAKE_PREFERENCE, the take actions from the cheapest (no card from the hand) to the
// dearest (a joker).

// The legal ids of a mask (ascending) as heuristics.py split_legal returns them.
struct Legal {
  std::vector<int> draw, melds, discards;
  void split(const int16_t* legal, int count);
  bool draw_has(int action) const;
};

// A Python tuple of integers (bools as 0/1), compared as Python compares tuples.
struct Key {
  int64_t item[8];
  int size = 0;
  Key& operator<<(int64_t value) {
    item[size++] = value;
    return *this;
  }
  bool operator<(const Key& other) const {
    const int common = size < other.size ? size : other.size;
    for (int i = 0; i < common; ++i)
      if (item[i] != other.item[i]) return item[i] < other.item[i];
    return size < other.size;
  }
};

// Python's max(ids, key=key): the first id whose key is the greatest (ids not empty).
template <typename KeyOf>
int first_max(const std::vector<int>& ids, KeyOf key_of) {
  int best = ids[0];
  Key best_key = key_of(best);
  for (size_t i = 1; i < ids.size(); ++i) {
    const Key key = key_of(ids[i]);
    if (best_key < key) best = ids[i], best_key = key;
  }
  return best;
}

// Move properties as actions.py's Move names them.
inline int move_cards(const Move& m) { return m.naturals + m.twos + m.jokers; }
inline int move_wilds(const Move& m) { return m.twos + m.jokers; }
int move_points(const Move& m);  // G-2: the card values a meld move lays

double team_score_estimate(const TeamView& team, const Rules& rules);
double hand_margin(const View& view, const Rules& rules, bool going_out);
int choose_take_or_draw(const std::vector<int>& draw_ids);
Key biggest_meld_key(const View& view, int action);

// P(X >= at_least) for X ~ Hypergeometric(population, successes, draws).
double hypergeom_at_least(int64_t successes, int64_t population, int64_t draws, int64_t at_least);

struct Unseen {
  int count[NUM_HAND_KINDS];
  int pool;
};
Unseen unseen_counts(const View& view, const Rules& rules);
double take_probability(const View& view, int kind, const Rules& rules, const Unseen& unseen,
                        double wild_take_factor = 0.5, double discount = 1.0);

// random.Random's draws beyond rng.hpp's, as CPython 3.11 makes them: random(), uniform,
// randint, and gauss with its second value kept for the next call (gauss_next).
struct PyRandom {
  Rng rng;
  bool has_gauss_next = false;
  double gauss_next = 0.0;

  double random();
  double uniform(double a, double b) { return a + (b - a) * random(); }
  int64_t randint(int64_t a, int64_t b) {
    return a + static_cast<int64_t>(rng.randbelow(static_cast<uint32_t>(b - a + 1)));
  }
  double gauss(double mu, double sigma);
};

}  // namespace bots
}  // namespace canasta
