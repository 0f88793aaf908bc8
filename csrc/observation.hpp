// The observation: one fixed-shape float32 vector from one seat's view, the mirror of
// canasta_env/observation/builder.py (ObservationBuilder.build), bit for bit.
//
// The layout is observation/layout.py's LAYOUT: blocks of named fields, each entry a whole
// number times its field's scale (computed in float32, as numpy does). The offsets
// below are built from the field sizes, in LAYOUT's order; observation_spans() lists
// every field (and group copy) by LAYOUT's span names, with its start, size and scale,
// and tests/test_core_vector.py checks that list against LAYOUT. Teams and seats are
// ordered from the viewer (own team, own seat first) and padded to the largest table.
// Nothing hidden is written (G-8): other hands only as sizes and known cards.
#pragma once
#include <string>
#include <vector>

#include "actions.hpp"
#include "game.hpp"

namespace canasta {
namespace obs {

// counts of one kind: four read 1
constexpr float QUARTER = 0.25f;
constexpr float FLAG = 1.0f;

// ---- block hand (14)
constexpr int HAND = 0;                                   // hand: count per holdable kind
// ---- block held (14)
constexpr int HELD = HAND + NUM_HAND_KINDS;               // held: pot cards set aside (C-8)
// ---- block pot_top (16): one-hot kind, the last entry an empty pot
constexpr int POT_TOP = HELD + NUM_HAND_KINDS;
constexpr int POT_TOP_SIZE = NUM_KINDS + 1;
// ---- block pot_state (6)
constexpr int POT_SIZE = POT_TOP + POT_TOP_SIZE;          // big
constexpr int POT_FACE_DOWN = POT_SIZE + 1;
constexpr int POT_FROZEN = POT_FACE_DOWN + 1;             // C-9, I-8
constexpr int POT_CROSSED = POT_FROZEN + 1;               // S-6
constexpr int POT_BLOCKED = POT_CROSSED + 1;              // C-12
constexpr int POT_FROZEN_FOR_ME = POT_BLOCKED + 1;        // C-9
// ---- block pot_known (15)
constexpr int POT_KNOWN = POT_FROZEN_FOR_ME + 1;
// ---- block teams: group "teams", MAX_TEAMS copies of one team's public table
constexpr int TEAMS = POT_KNOWN + NUM_KINDS;
namespace team {  // offsets inside one copy
constexpr int NATURALS = 0;                               // [slot] open meld's naturals
constexpr int TWOS = NATURALS + NUM_SLOTS;
constexpr int JOKERS = TWOS + NUM_SLOTS;
constexpr int IS_CANASTA = JOKERS + NUM_SLOTS;            // [slot] flags
constexpr int CLOSED_CLEAN = IS_CANASTA + NUM_SLOTS;      // S-7, [slot]
constexpr int CLOSED_DIRTY = CLOSED_CLEAN + NUM_SLOTS;
constexpr int PRESENT = CLOSED_DIRTY + NUM_SLOTS;
constexpr int RED3 = PRESENT + 1;
constexpr int OPENED = RED3 + 1;
constexpr int OPENING_MINIMUM = OPENED + 1;               // the engine's need
constexpr int SCORE = OPENING_MINIMUM + 1;                // big
constexpr int CANASTAS = SCORE + 1;
constexpr int CLEAN = CANASTAS + 1;
constexpr int DIRTY = CLEAN + 1;
constexpr int SIZE = DIRTY + 1;                           // 86
}  // namespace team
// ---- block players: group "players", MAX_PLAYERS copies
constexpr int PLAYERS = TEAMS + MAX_TEAMS * team::SIZE;
namespace player {
constexpr int PRESENT = 0;
constexpr int TEAMMATE = PRESENT + 1;
constexpr int HAND_SIZE = TEAMMATE + 1;                   // big
constexpr int KNOWN = HAND_SIZE + 1;                      // [kind] known from pot takes (G-8)
constexpr int SIZE = KNOWN + NUM_HAND_KINDS;              // 17
}  // namespace player
// ---- block turn (11)
constexpr int DRAW_PHASE = PLAYERS + MAX_PLAYERS * player::SIZE;
constexpr int MELD_PHASE = DRAW_PHASE + 1;
constexpr int STAGED = MELD_PHASE + 1;                    // big
constexpr int STILL_NEEDED = STAGED + 1;
constexpr int TOOK_POT = STILL_NEEDED + 1;
constexpr int CLEAN_ONLY = TOOK_POT + 1;                  // I-10
constexpr int MAY_GO_OUT = CLEAN_ONLY + 1;
constexpr int HIDDEN_OPEN = MAY_GO_OUT + 1;               // S-8
constexpr int STOCK = HIDDEN_OPEN + 1;                    // big
constexpr int STOCK_SHORT = STOCK + 1;
constexpr int STEPS = STOCK_SHORT + 1;                    // big
// ---- block table (13): fixed for the game but the hand number
constexpr int NUM_PLAYERS = STEPS + 1;                    // one-hot over 2, 3, 4, 6
constexpr int NUM_PLAYERS_SIZE = 4;
constexpr int HAND_NUMBER = NUM_PLAYERS + NUM_PLAYERS_SIZE;
constexpr int DRAW_COUNT = HAND_NUMBER + 1;
constexpr int MELDS_CLOSE_AT_7 = DRAW_COUNT + 1;
constexpr int WILD_MELDS = MELDS_CLOSE_AT_7 + 1;
constexpr int BLACK3_MELDS = WILD_MELDS + 1;
constexpr int NEEDS_CLEAN_AND_DIRTY = BLACK3_MELDS + 1;
constexpr int THREE_TO_TAKE_FROZEN = NEEDS_CLEAN_AND_DIRTY + 1;
constexpr int WILD_CROSSES_POT = THREE_TO_TAKE_FROZEN + 1;
constexpr int TARGET = WILD_CROSSES_POT + 1;              // big
// ---- block sequences (55): S-19 runs, all 0 unless the rules play them
constexpr int SUITED_HAND = TARGET + 1;                   // [kind * 4 + suit]
constexpr int POT_SUIT = SUITED_HAND + SUITED_SIZE;       // one-hot suit of a natural top
constexpr int RUNS = POT_SUIT + NUM_SUITS;                // group "runs", MAX_TEAMS copies
namespace runs {
constexpr int ESCALAS = 0;
constexpr int ESCALAS_REALES = ESCALAS + 1;
constexpr int SIZE = ESCALAS_REALES + 1;
}  // namespace runs
constexpr int SEQUENCES_ON = RUNS + MAX_TEAMS * runs::SIZE;
// ---- block history: group "history", MAX_PLAYERS copies, then since_my_discard
constexpr int HISTORY = SEQUENCES_ON + 1;
namespace history {
constexpr int DISCARDED = 0;
constexpr int DECLINED = DISCARDED + NUM_HAND_KINDS;      // pot tops it drew instead of taking
constexpr int SIZE = DECLINED + NUM_HAND_KINDS;           // 28
}  // namespace history
constexpr int SINCE_MY_DISCARD = HISTORY + MAX_PLAYERS * history::SIZE;
constexpr int SIZE = SINCE_MY_DISCARD + NUM_HAND_KINDS;

static_assert(TEAMS == 65 && PLAYERS == 323 && DRAW_PHASE == 425 && NUM_PLAYERS == 436,
              "observation/layout.py's block offsets");
static_assert(SUITED_HAND == 449 && HISTORY == 504 && SIZE == 686,
              "observation/layout.py's OBS_SIZE");

// One field (or one copy of a group's field): its LAYOUT span name ("pot_size",
// "teams[1].score"), first entry, entries and scale.
struct Span {
  std::string name;
  int start;
  int size;
  float scale;
};

// Every field of the layout in vector order (the target's scale is 1/10000: the
// builder multiplies it by the game's target score).
std::vector<Span> spans();

}  // namespace obs

constexpr int OBS_SIZE = obs::SIZE;

// Write seat `viewer`'s observation of `game` into out[0..OBS_SIZE): exactly
// ObservationBuilder(game).build(viewer, viewer_to_act). viewer_to_act False shows the
// seat as not to act even on its turn (the turn fields zeroed). No allocation.
void write_observation(const Game& game, int viewer, bool viewer_to_act, float* out);

}  // namespace canasta
