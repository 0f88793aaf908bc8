// decode_view (view.hpp): observation/reader.py's reading, entry by entry.
#include "view.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "../observation.hpp"
#include "../state.hpp"

namespace canasta {
namespace bots {
namespace {

// Each entry's scale as numpy's SCALES holds it (float32), from the core's own spans.
struct Scales {
  double of[OBS_SIZE];
  Scales() {
    for (const obs::Span& span : obs::spans())
      for (int i = 0; i < span.size; ++i) of[span.start + i] = static_cast<double>(span.scale);
  }
};

const Scales& scales() {
  static const Scales table;
  return table;
}

// What an entry the bots read may hold once unscaled: what the builder writes there. The
// counts and small numbers are bytes (builder.py: counts of one kind, the hand number
// saturating at 255); the big fields the bots read count cards (the pot, the stock, a
// hand), at most the deck, which fits MAX_CARDS (Rules::from_values).
struct Range {
  int low, high;
};
constexpr Range FLAG{0, 1};
constexpr Range BYTE{0, OBSERVATION_BYTE_MAX};
constexpr Range CARDS{0, MAX_CARDS};
// An unscaled entry of an observation is a whole number to within this (the builder's
// float32 rounding is about 1e-7 of the value); anything else is no observation.
constexpr double WHOLE = 1e-3;

// Entry i's LAYOUT span name, with its index inside the field ("players[1].known[5]").
std::string entry_name(int i) {
  for (const obs::Span& span : obs::spans())
    if (i >= span.start && i < span.start + span.size)
      return span.size == 1 ? span.name : span.name + "[" + std::to_string(i - span.start) + "]";
  return "?";
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

[[noreturn]] void refuse(const float* observation, int i, const std::string& why) {
  throw std::invalid_argument("not an observation: entry " + std::to_string(i) + " (" + entry_name(i) +
                              ") is " + number_text(observation[i]) + why);
}

// reader.py: np.rint(np.asarray(observation, float64) / SCALES).astype(int64). Checked
// (an observation from outside the core: check_observation), every entry read is first
// found a whole number in its range, so nothing out of range reaches a bot (an index, a
// loop bound, a binomial) and no conversion overflows.
template <bool Checked>
struct Entries {
  const float* observation;
  const double* scale;
  int read(int i, Range range) const {
    const double value = static_cast<double>(observation[i]) / scale[i];
    const double whole = std::nearbyint(value);
    if (Checked) {
      if (!(std::fabs(value - whole) <= WHOLE))  // NaN and infinities fail too
        refuse(observation, i, ", which reads " + number_text(value) + ": not a whole number");
      if (whole < range.low || whole > range.high)
        refuse(observation, i, ", which reads " + number_text(whole) + ": outside " +
                                   std::to_string(range.low) + ".." + std::to_string(range.high));
    }
    return static_cast<int>(static_cast<int64_t>(whole));
  }
  void counts(int start, int size, int* out, Range range) const {
    for (int i = 0; i < size; ++i) out[i] = read(start + i, range);
  }
  bool flag(int i) const { return read(i, FLAG) != 0; }
};

template <bool Checked>
void decode(const float* observation, View& v) {
  const Entries<Checked> at{observation, scales().of};
  v.num_players = -1;  // the one-hot's first entry set (reader.py _one_hot)
  for (int i = 0; i < obs::NUM_PLAYERS_SIZE; ++i)
    if (at.read(obs::NUM_PLAYERS + i, FLAG) == 1) {
      v.num_players = obs::NUM_PLAYERS_VALUES[i];
      break;
    }
  if (v.num_players < 0) throw std::invalid_argument("not an observation: it shows no player count");
  v.num_teams = teams_of(v.num_players);
  at.counts(obs::HAND, NUM_HAND_KINDS, v.hand, BYTE);
  at.counts(obs::HELD, NUM_HAND_KINDS, v.held, BYTE);
  v.pot_size = at.read(obs::POT_SIZE, CARDS);
  v.pot_frozen = at.flag(obs::POT_FROZEN);
  v.pot_crossed = at.flag(obs::POT_CROSSED);
  at.counts(obs::POT_KNOWN, NUM_KINDS, v.pot_known, BYTE);
  for (int t = 0; t < v.num_teams; ++t) {
    const int base = obs::TEAMS + t * obs::teams::SIZE;
    TeamView& team = v.teams[t];
    at.counts(base + obs::teams::NATURALS, NUM_SLOTS, team.naturals, BYTE);
    at.counts(base + obs::teams::TWOS, NUM_SLOTS, team.twos, BYTE);
    at.counts(base + obs::teams::JOKERS, NUM_SLOTS, team.jokers, BYTE);
    at.counts(base + obs::teams::CLOSED_CLEAN, NUM_SLOTS, team.closed_clean, BYTE);
    at.counts(base + obs::teams::CLOSED_DIRTY, NUM_SLOTS, team.closed_dirty, BYTE);
    team.red3 = at.read(base + obs::teams::RED3, BYTE);
    team.opened = at.flag(base + obs::teams::OPENED);
    team.canastas = at.read(base + obs::teams::CANASTAS, BYTE);
    team.clean = at.read(base + obs::teams::CLEAN, BYTE);
    team.dirty = at.read(base + obs::teams::DIRTY, BYTE);
  }
  for (int p = 0; p < v.num_players; ++p) {
    const int base = obs::PLAYERS + p * obs::players::SIZE;
    PlayerView& player = v.players[p];
    player.teammate = at.flag(base + obs::players::TEAMMATE);
    player.hand_size = at.read(base + obs::players::HAND_SIZE, CARDS);
    at.counts(base + obs::players::KNOWN, NUM_HAND_KINDS, player.known, BYTE);
  }
  v.may_go_out = at.flag(obs::MAY_GO_OUT);
  v.stock = at.read(obs::STOCK, CARDS);
  v.hand_number = at.read(obs::HAND_NUMBER, BYTE);
  v.draw_count = at.read(obs::DRAW_COUNT, BYTE);
}

}  // namespace

void decode_view(const float* observation, View* view) { decode<false>(observation, *view); }

void check_observation(const float* observation) {
  for (int i = 0; i < OBS_SIZE; ++i)
    if (!std::isfinite(observation[i])) refuse(observation, i, ": not a finite number");
  View view;
  decode<true>(observation, view);
}

}  // namespace bots
}  // namespace canasta
