// The observation: one fixed-shape float32 vector from one seat's view, the mirror of
// canasta_env/observation/builder.py (ObservationBuilder.build), bit for bit.
//
// The layout is observation/layout.py's LAYOUT: blocks of named fields, each entry a whole
// number times its field's scale (computed in float32, as numpy does). Its offsets, sizes
// and scales are in namespace obs of core_decls.hpp, generated from LAYOUT at build time:
// obs::POT_SIZE (the field's first entry), obs::POT_SIZE_SCALE, obs::HAND_SIZE (a field's
// entries); a group's fields inside one copy, obs::teams::SCORE, with obs::teams::SIZE the
// stride and obs::TEAMS the first copy. Teams and seats are ordered from the viewer (own
// team, own seat first) and padded to the largest table. Nothing hidden is written (G-8):
// other hands only as sizes and known cards. The pot cards held until the opening is
// met (C-8), the pot's state (C-9, I-8 frozen, S-6 crossed, C-12 blocked), the canastas
// closed at 7 (S-7), the turn's opening (S-8 hidden_open, I-10 clean_only) and the S-19
// runs (the sequences block) have fields of their own.
#pragma once
#include <string>
#include <vector>

#include "actions.hpp"
#include "game.hpp"

namespace canasta {
namespace obs {

// One field (or one copy of a group's field): its LAYOUT span name ("pot_size",
// "teams[1].score"), first entry, entries and scale.
struct Span {
  std::string name;
  int start;
  int size;
  float scale;
};

// Every field of the layout in vector order, from obs::SPANS (the target's scale is
// LAYOUT's: the builder multiplies it by the game's target score).
std::vector<Span> spans();

}  // namespace obs

constexpr int OBS_SIZE = obs::SIZE;

// Write seat `viewer`'s observation of `game` into out[0..OBS_SIZE): exactly
// ObservationBuilder(game).build(viewer, viewer_to_act). viewer_to_act False shows the
// seat as not to act even on its turn (the turn fields zeroed). No allocation.
void write_observation(const Game& game, int viewer, bool viewer_to_act, float* out);

}  // namespace canasta
