// decode_view (view.hpp): observation/reader.py's reading, entry by entry.
#include "view.hpp"

#include <cmath>
#include <stdexcept>

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

// reader.py: np.rint(np.asarray(observation, float64) / SCALES).astype(int64)
struct Entries {
  const float* observation;
  const double* scale;
  int operator[](int i) const {
    return static_cast<int>(
        static_cast<int64_t>(std::nearbyint(static_cast<double>(observation[i]) / scale[i])));
  }
  void counts(int start, int size, int* out) const {
    for (int i = 0; i < size; ++i) out[i] = (*this)[start + i];
  }
  bool flag(int i) const { return (*this)[i] != 0; }
};

constexpr int PLAYER_COUNTS[obs::NUM_PLAYERS_SIZE] = {2, 3, 4, 6};

}  // namespace

void decode_view(const float* observation, View* view) {
  const Entries at{observation, scales().of};
  View& v = *view;
  v.num_players = -1;  // the one-hot's first entry set (reader.py _one_hot)
  for (int i = 0; i < obs::NUM_PLAYERS_SIZE; ++i)
    if (at[obs::NUM_PLAYERS + i] == 1) {
      v.num_players = PLAYER_COUNTS[i];
      break;
    }
  if (v.num_players < 0) throw std::invalid_argument("not an observation: it shows no player count");
  v.num_teams = teams_of(v.num_players);
  at.counts(obs::HAND, NUM_HAND_KINDS, v.hand);
  at.counts(obs::HELD, NUM_HAND_KINDS, v.held);
  v.pot_size = at[obs::POT_SIZE];
  v.pot_frozen = at.flag(obs::POT_FROZEN);
  v.pot_crossed = at.flag(obs::POT_CROSSED);
  at.counts(obs::POT_KNOWN, NUM_KINDS, v.pot_known);
  for (int t = 0; t < v.num_teams; ++t) {
    const int base = obs::TEAMS + t * obs::team::SIZE;
    TeamView& team = v.teams[t];
    at.counts(base + obs::team::NATURALS, NUM_SLOTS, team.naturals);
    at.counts(base + obs::team::TWOS, NUM_SLOTS, team.twos);
    at.counts(base + obs::team::JOKERS, NUM_SLOTS, team.jokers);
    at.counts(base + obs::team::CLOSED_CLEAN, NUM_SLOTS, team.closed_clean);
    at.counts(base + obs::team::CLOSED_DIRTY, NUM_SLOTS, team.closed_dirty);
    team.red3 = at[base + obs::team::RED3];
    team.opened = at.flag(base + obs::team::OPENED);
    team.canastas = at[base + obs::team::CANASTAS];
    team.clean = at[base + obs::team::CLEAN];
    team.dirty = at[base + obs::team::DIRTY];
  }
  for (int p = 0; p < v.num_players; ++p) {
    const int base = obs::PLAYERS + p * obs::player::SIZE;
    PlayerView& player = v.players[p];
    player.teammate = at.flag(base + obs::player::TEAMMATE);
    player.hand_size = at[base + obs::player::HAND_SIZE];
    at.counts(base + obs::player::KNOWN, NUM_HAND_KINDS, player.known);
  }
  v.may_go_out = at.flag(obs::MAY_GO_OUT);
  v.stock = at[obs::STOCK];
  v.hand_number = at[obs::HAND_NUMBER];
  v.draw_count = at[obs::DRAW_COUNT];
}

}  // namespace bots
}  // namespace canasta
