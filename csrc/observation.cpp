// The observation, written field by field at the offsets of observation.hpp (the
// mirror of canasta_env/observation/builder.py's ObservationBuilder.build).
//
// Each entry is float(value) * scale in float32, as numpy computes the Python vector
// (uint8 * float32, or the big fields and scores as float32 numbers, times the scales).
// Counts that the Python builder stores as bytes are the same numbers here; the public
// history counts are clamped to 255 as observation/builder.py's _count_bytes does.
#include "observation.hpp"

#include <algorithm>
#include <cstring>

#include "melds.hpp"
#include "opening.hpp"
#include "pot.hpp"

namespace canasta {
namespace obs {
namespace {

// The scales of LAYOUT (observation/layout.py _declare_layout), as numpy's float32 of them.
constexpr float POT_SIZE_SCALE = static_cast<float>(1.0 / 20);
constexpr float POT_FACE_DOWN_SCALE = static_cast<float>(1.0 / 10);
constexpr float OPENING_MINIMUM_SCALE = static_cast<float>(1.0 / 100);
constexpr float SCORE_SCALE = static_cast<float>(1.0 / 5000);
constexpr float HAND_SIZE_SCALE = static_cast<float>(1.0 / 15);
constexpr float STAGED_SCALE = static_cast<float>(1.0 / 100);
constexpr float STILL_NEEDED_SCALE = static_cast<float>(1.0 / 100);
constexpr float STOCK_SCALE = static_cast<float>(1.0 / 100);
constexpr float STEPS_SCALE = static_cast<float>(1.0 / 500);
constexpr float HAND_NUMBER_SCALE = static_cast<float>(1.0 / 10);
constexpr float DRAW_COUNT_SCALE = static_cast<float>(1.0 / 2);
constexpr float TARGET_SCALE = static_cast<float>(1.0 / 10000);

// num_players' one-hot values
constexpr int PLAYER_COUNTS[NUM_PLAYERS_SIZE] = {2, 3, 4, 6};
// observation/builder.py _ESCALA_REAL: a run of every rank of one suit
constexpr int ESCALA_REAL = NUM_NATURALS;
// the largest count a byte of the Python vector holds (observation/builder.py _count_bytes)
constexpr int BYTE_MAX = 255;

// Counts as float(count) * scale, written whether 0 or not (a branch per entry costs more
// than the store). Kept out of line on purpose: inlined at a fixed size, GCC vectorizes
// the int16 loads through the stack and stalls on store forwarding (the whole observation
// took 1.4x as long); as a loop over `size` it vectorizes cleanly.
[[gnu::noinline]] void put_counts(float* out, const int16_t* counts, int size, float scale) {
  for (int i = 0; i < size; ++i) out[i] = static_cast<float>(counts[i]) * scale;
}

// The public history counts, clamped to a byte as observation/builder.py's _count_bytes does.
[[gnu::noinline]] void put_clamped(float* out, const int16_t* counts, int size) {
  for (int i = 0; i < size; ++i) {
    const int16_t count = counts[i] < BYTE_MAX ? counts[i] : static_cast<int16_t>(BYTE_MAX);
    out[i] = static_cast<float>(count) * QUARTER;
  }
}

// (canastas, clean, dirty) of a team, as observation/builder.py _team_block counts them
struct TeamCounts {
  int canastas = 0, clean = 0, dirty = 0;
};

// One copy of "teams" (its fields from `at`) for `team`; returns its canasta counts.
TeamCounts write_team(const GameState& s, const Rules& rules, int team, float* at) {
  TeamCounts counts;
  const int16_t *nat = s.nat[team], *two = s.two[team], *jok = s.jok[team];
  put_counts(at + team::NATURALS, nat, NUM_SLOTS, QUARTER);
  put_counts(at + team::TWOS, two, NUM_SLOTS, QUARTER);
  put_counts(at + team::JOKERS, jok, NUM_SLOTS, QUARTER);
  for (int slot = 0; slot < NUM_SLOTS; ++slot) {
    if (nat[slot] + two[slot] + jok[slot] < rules.canasta_size) continue;
    at[team::IS_CANASTA + slot] = FLAG;
    ++counts.canastas;
    if (canasta_clean(slot, two[slot], jok[slot]))
      ++counts.clean;
    else
      ++counts.dirty;
  }
  int16_t closed_clean[NUM_SLOTS] = {}, closed_dirty[NUM_SLOTS] = {};
  for (int i = 0; i < s.closed[team].len; ++i) {  // S-7
    const Closed& canasta = s.closed[team][i];
    ++counts.canastas;
    if (canasta_clean(canasta.slot, canasta.twos, canasta.jokers)) {
      ++closed_clean[canasta.slot];
      ++counts.clean;
    } else {
      ++closed_dirty[canasta.slot];
      ++counts.dirty;
    }
  }
  put_counts(at + team::CLOSED_CLEAN, closed_clean, NUM_SLOTS, QUARTER);
  put_counts(at + team::CLOSED_DIRTY, closed_dirty, NUM_SLOTS, QUARTER);
  at[team::PRESENT] = FLAG;
  at[team::RED3] = static_cast<float>(s.red3[team]) * QUARTER;
  if (s.opened[team]) at[team::OPENED] = FLAG;
  at[team::OPENING_MINIMUM] = static_cast<float>(s.need[team]) * OPENING_MINIMUM_SCALE;
  at[team::SCORE] = static_cast<float>(s.scores[team]) * SCORE_SCALE;
  at[team::CANASTAS] = static_cast<float>(counts.canastas) * QUARTER;
  at[team::CLEAN] = static_cast<float>(counts.clean) * QUARTER;
  at[team::DIRTY] = static_cast<float>(counts.dirty) * QUARTER;
  return counts;
}

// The fields fixed for the game (the table block) and the hand number.
void write_table(const GameState& s, const Rules& rules, float* out) {
  for (int i = 0; i < NUM_PLAYERS_SIZE; ++i)
    if (PLAYER_COUNTS[i] == s.num_players) out[NUM_PLAYERS + i] = FLAG;
  // the hand number saturates at 255, as observation/builder.py's byte does
  out[HAND_NUMBER] = static_cast<float>(std::min(s.hand_index, BYTE_MAX)) * HAND_NUMBER_SCALE;
  out[DRAW_COUNT] = static_cast<float>(rules.draw_count) * DRAW_COUNT_SCALE;
  if (rules.meld_closes_at) out[MELDS_CLOSE_AT_7] = FLAG;
  if (rules.wild_melds) out[WILD_MELDS] = FLAG;
  if (rules.black3_melds) out[BLACK3_MELDS] = FLAG;
  if (rules.go_out_needs_clean_and_dirty) out[NEEDS_CLEAN_AND_DIRTY] = FLAG;
  if (rules.take_naturals_frozen >= 3) out[THREE_TO_TAKE_FROZEN] = FLAG;
  if (rules.wild_crosses_pot) out[WILD_CROSSES_POT] = FLAG;
  // observation/builder.py folds the target into its scales: float32(target) * float32(1/10000)
  out[TARGET] = static_cast<float>(rules.target_score) * TARGET_SCALE;
  if (rules.sequences) out[SEQUENCES_ON] = FLAG;
}

// The turn block: the viewer's own turn fields when it acts, else the opening it needs.
void write_turn(const Game& game, int viewer, bool viewer_to_act, const TeamCounts& mine,
                float* out) {
  const GameState& s = game.s;
  const Rules& rules = game.rules;
  const int my_team = s.team_of[viewer];
  const bool opened = s.opened[my_team];
  const int64_t need = s.need[my_team];
  int64_t staged = 0;
  if (viewer_to_act && s.current == viewer) {
    put_counts(out + HELD, s.held, NUM_HAND_KINDS, QUARTER);
    staged = s.staged;
    if (s.phase == PHASE_DRAW) {
      out[DRAW_PHASE] = FLAG;
    } else if (s.phase == PHASE_MELD) {
      out[MELD_PHASE] = FLAG;
      // asked of the engine: the turn search's going-out rule (C-14, S-15, I-11); the
      // query writes nothing, the search only takes a non-const game for its moves
      if (mine.canastas >= rules.go_out_min_canastas && game.opening_done(my_team) &&
          TurnSearch(const_cast<Game&>(game))
              .go_out_allowed_counts(mine.canastas, mine.clean, mine.dirty))
        out[MAY_GO_OUT] = FLAG;
    }
    if (!opened && need > staged)
      out[STILL_NEEDED] = static_cast<float>(need - staged) * STILL_NEEDED_SCALE;
    if (s.took_pot) out[TOOK_POT] = FLAG;
    if (s.clean_only) out[CLEAN_ONLY] = FLAG;
    if (s.hidden_open) out[HIDDEN_OPEN] = FLAG;
  } else if (!opened && need > 0) {
    out[STILL_NEEDED] = static_cast<float>(need) * STILL_NEEDED_SCALE;
  }
  if (staged) out[STAGED] = static_cast<float>(staged) * STAGED_SCALE;
  if (s.stock.len < rules.draw_count) out[STOCK_SHORT] = FLAG;
  out[STOCK] = static_cast<float>(s.stock.len) * STOCK_SCALE;
  out[STEPS] = static_cast<float>(s.num_steps) * STEPS_SCALE;
}

}  // namespace

std::vector<Span> spans() {
  std::vector<Span> out;
  auto field = [&out](const std::string& name, int start, int size, float scale) {
    out.push_back(Span{name, start, size, scale});
  };
  auto copy_name = [](const char* group, int copy, const char* name) {
    return std::string(group) + "[" + std::to_string(copy) + "]." + name;
  };
  field("hand", HAND, NUM_HAND_KINDS, QUARTER);
  field("held", HELD, NUM_HAND_KINDS, QUARTER);
  field("pot_top", POT_TOP, POT_TOP_SIZE, FLAG);
  field("pot_size", POT_SIZE, 1, POT_SIZE_SCALE);
  field("pot_face_down", POT_FACE_DOWN, 1, POT_FACE_DOWN_SCALE);
  field("pot_frozen", POT_FROZEN, 1, FLAG);
  field("pot_crossed", POT_CROSSED, 1, FLAG);
  field("pot_blocked", POT_BLOCKED, 1, FLAG);
  field("pot_frozen_for_me", POT_FROZEN_FOR_ME, 1, FLAG);
  field("pot_known", POT_KNOWN, NUM_KINDS, QUARTER);
  for (int copy = 0; copy < MAX_TEAMS; ++copy) {
    const int at = TEAMS + copy * team::SIZE;
    auto f = [&](const char* name, int offset, int size, float scale) {
      field(copy_name("teams", copy, name), at + offset, size, scale);
    };
    f("naturals", team::NATURALS, NUM_SLOTS, QUARTER);
    f("twos", team::TWOS, NUM_SLOTS, QUARTER);
    f("jokers", team::JOKERS, NUM_SLOTS, QUARTER);
    f("is_canasta", team::IS_CANASTA, NUM_SLOTS, FLAG);
    f("closed_clean", team::CLOSED_CLEAN, NUM_SLOTS, QUARTER);
    f("closed_dirty", team::CLOSED_DIRTY, NUM_SLOTS, QUARTER);
    f("present", team::PRESENT, 1, FLAG);
    f("red3", team::RED3, 1, QUARTER);
    f("opened", team::OPENED, 1, FLAG);
    f("opening_minimum", team::OPENING_MINIMUM, 1, OPENING_MINIMUM_SCALE);
    f("score", team::SCORE, 1, SCORE_SCALE);
    f("canastas", team::CANASTAS, 1, QUARTER);
    f("clean", team::CLEAN, 1, QUARTER);
    f("dirty", team::DIRTY, 1, QUARTER);
  }
  for (int copy = 0; copy < MAX_PLAYERS; ++copy) {
    const int at = PLAYERS + copy * player::SIZE;
    field(copy_name("players", copy, "present"), at + player::PRESENT, 1, FLAG);
    field(copy_name("players", copy, "teammate"), at + player::TEAMMATE, 1, FLAG);
    field(copy_name("players", copy, "hand_size"), at + player::HAND_SIZE, 1, HAND_SIZE_SCALE);
    field(copy_name("players", copy, "known"), at + player::KNOWN, NUM_HAND_KINDS, QUARTER);
  }
  field("draw_phase", DRAW_PHASE, 1, FLAG);
  field("meld_phase", MELD_PHASE, 1, FLAG);
  field("staged", STAGED, 1, STAGED_SCALE);
  field("still_needed", STILL_NEEDED, 1, STILL_NEEDED_SCALE);
  field("took_pot", TOOK_POT, 1, FLAG);
  field("clean_only", CLEAN_ONLY, 1, FLAG);
  field("may_go_out", MAY_GO_OUT, 1, FLAG);
  field("hidden_open", HIDDEN_OPEN, 1, FLAG);
  field("stock", STOCK, 1, STOCK_SCALE);
  field("stock_short", STOCK_SHORT, 1, FLAG);
  field("steps", STEPS, 1, STEPS_SCALE);
  field("num_players", NUM_PLAYERS, NUM_PLAYERS_SIZE, FLAG);
  field("hand_number", HAND_NUMBER, 1, HAND_NUMBER_SCALE);
  field("draw_count", DRAW_COUNT, 1, DRAW_COUNT_SCALE);
  field("melds_close_at_7", MELDS_CLOSE_AT_7, 1, FLAG);
  field("wild_melds", WILD_MELDS, 1, FLAG);
  field("black3_melds", BLACK3_MELDS, 1, FLAG);
  field("needs_clean_and_dirty", NEEDS_CLEAN_AND_DIRTY, 1, FLAG);
  field("three_to_take_frozen", THREE_TO_TAKE_FROZEN, 1, FLAG);
  field("wild_crosses_pot", WILD_CROSSES_POT, 1, FLAG);
  field("target", TARGET, 1, TARGET_SCALE);
  field("suited_hand", SUITED_HAND, SUITED_SIZE, QUARTER);
  field("pot_suit", POT_SUIT, NUM_SUITS, FLAG);
  for (int copy = 0; copy < MAX_TEAMS; ++copy) {
    const int at = RUNS + copy * runs::SIZE;
    field(copy_name("runs", copy, "escalas"), at + runs::ESCALAS, 1, QUARTER);
    field(copy_name("runs", copy, "escalas_reales"), at + runs::ESCALAS_REALES, 1, QUARTER);
  }
  field("sequences_on", SEQUENCES_ON, 1, FLAG);
  for (int copy = 0; copy < MAX_PLAYERS; ++copy) {
    const int at = HISTORY + copy * history::SIZE;
    field(copy_name("history", copy, "discarded"), at + history::DISCARDED, NUM_HAND_KINDS,
          QUARTER);
    field(copy_name("history", copy, "declined"), at + history::DECLINED, NUM_HAND_KINDS,
          QUARTER);
  }
  field("since_my_discard", SINCE_MY_DISCARD, NUM_HAND_KINDS, QUARTER);
  return out;
}

}  // namespace obs

void write_observation(const Game& game, int viewer, bool viewer_to_act, float* out) {
  using namespace obs;
  const GameState& s = game.s;
  const Rules& rules = game.rules;
  const int players = s.num_players, teams = s.num_teams;
  const int my_team = s.team_of[viewer];
  std::memset(out, 0, sizeof(float) * OBS_SIZE);

  put_counts(out + HAND, s.hands[viewer], NUM_HAND_KINDS, QUARTER);
  const int top = s.pot.len ? s.pot[s.pot.len - 1] : NUM_KINDS;  // NUM_KINDS: an empty pot
  out[POT_TOP + top] = FLAG;
  out[POT_SIZE] = static_cast<float>(s.pot.len) * POT_SIZE_SCALE;
  out[POT_FACE_DOWN] = static_cast<float>(s.pot_hidden) * POT_FACE_DOWN_SCALE;
  // C-9, S-6: a wild card in the pot froze it, or crossed it where wild cards cross
  if (s.pot_wild) out[rules.wild_crosses_pot ? POT_CROSSED : POT_FROZEN] = FLAG;
  if (top >= NUM_NATURALS && top < NUM_KINDS) out[POT_BLOCKED] = FLAG;  // C-12
  if (frozen_until_opened(rules, s.opened[my_team])) out[POT_FROZEN_FOR_ME] = FLAG;  // C-9
  put_counts(out + POT_KNOWN, s.pot_known, NUM_KINDS, QUARTER);

  TeamCounts mine;
  for (int copy = 0; copy < teams; ++copy) {
    const int team_id = (my_team + copy) % teams;
    const TeamCounts counts = write_team(s, rules, team_id, out + TEAMS + copy * team::SIZE);
    if (copy == 0) mine = counts;
  }
  for (int copy = 0; copy < players; ++copy) {
    const int seat = (viewer + copy) % players;
    float* at = out + PLAYERS + copy * player::SIZE;
    at[player::PRESENT] = FLAG;
    if (s.team_of[seat] == my_team) at[player::TEAMMATE] = FLAG;
    at[player::HAND_SIZE] = static_cast<float>(s.hand_totals[seat]) * HAND_SIZE_SCALE;
    put_counts(at + player::KNOWN, s.known[seat], NUM_HAND_KINDS, QUARTER);
  }
  write_turn(game, viewer, viewer_to_act, mine, out);
  write_table(s, rules, out);

  if (rules.sequences) {  // S-19: the viewer's naturals by suit, a natural top's suit, runs
    put_counts(out + SUITED_HAND, s.suits.hands[viewer], SUITED_SIZE, QUARTER);
    if (top < NUM_NATURALS) {
      // observation/builder.py indexes its rows by the suit: a negative suit counts from the end
      const int suit = s.suits.pot[s.pot.len - 1];
      out[POT_SUIT + (suit + NUM_SUITS) % NUM_SUITS] = FLAG;
    }
    for (int copy = 0; copy < teams; ++copy) {
      const int team_id = (my_team + copy) % teams;
      int royal = 0;
      for (int i = 0; i < s.escalas[team_id].len; ++i)
        if (s.escalas[team_id][i].length == ESCALA_REAL) ++royal;
      float* at = out + RUNS + copy * runs::SIZE;
      at[runs::ESCALAS] = static_cast<float>(s.escalas[team_id].len - royal) * QUARTER;
      at[runs::ESCALAS_REALES] = static_cast<float>(royal) * QUARTER;
    }
  }

  for (int copy = 0; copy < players; ++copy) {  // G-8: the public history of the hand
    const int seat = (viewer + copy) % players;
    float* at = out + HISTORY + copy * history::SIZE;
    put_clamped(at + history::DISCARDED, s.discarded[seat], NUM_HAND_KINDS);
    put_clamped(at + history::DECLINED, s.declined[seat], NUM_HAND_KINDS);
  }
  put_clamped(out + SINCE_MY_DISCARD, s.since_discard[viewer], NUM_HAND_KINDS);
}

}  // namespace canasta
