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

// Every field is written at its offset with its scale and entries from core_decls.hpp
// (LAYOUT's): a count c as float(c) * NAME_SCALE, a flag set as 1 * NAME_SCALE. The
// arrays of the state the counts come from have the layout's sizes:
static_assert(HAND_SIZE == NUM_HAND_KINDS && HELD_SIZE == NUM_HAND_KINDS &&
                  POT_KNOWN_SIZE == NUM_KINDS && players::KNOWN_SIZE == NUM_HAND_KINDS &&
                  SUITED_HAND_SIZE == SUITED_SIZE && history::DISCARDED_SIZE == NUM_HAND_KINDS &&
                  history::DECLINED_SIZE == NUM_HAND_KINDS && SINCE_MY_DISCARD_SIZE == NUM_HAND_KINDS,
              "observation/layout.py: a count field's entries differ from the state's kinds");
static_assert(teams::NATURALS_SIZE == NUM_SLOTS && teams::TWOS_SIZE == NUM_SLOTS &&
                  teams::JOKERS_SIZE == NUM_SLOTS && teams::IS_CANASTA_SIZE == NUM_SLOTS &&
                  teams::CLOSED_CLEAN_SIZE == NUM_SLOTS && teams::CLOSED_DIRTY_SIZE == NUM_SLOTS,
              "observation/layout.py: a team's per-slot field differs from NUM_SLOTS");
static_assert(teams::COPIES == MAX_TEAMS && players::COPIES == MAX_PLAYERS && runs::COPIES == MAX_TEAMS &&
                  history::COPIES == MAX_PLAYERS,
              "observation/layout.py: a group's copies differ from the largest table");
// pot_top is one-hot over the kinds and an empty pot, pot_suit over the suits
static_assert(POT_TOP_SIZE == NUM_KINDS + 1 && POT_TOP_VALUES[NUM_KINDS] == -1 && POT_SUIT_SIZE == NUM_SUITS,
              "observation/layout.py: pot_top or pot_suit differ from the kinds and suits");

// Counts as float(count) * scale, written whether 0 or not (a branch per entry costs more
// than the store). Kept out of line on purpose: inlined at a fixed size, GCC vectorizes
// the int16 loads through the stack and stalls on store forwarding (the whole observation
// took 1.4x as long); as a loop over `size` it vectorizes cleanly.
[[gnu::noinline]] void put_counts(float* out, const int16_t* counts, int size, float scale) {
  for (int i = 0; i < size; ++i) out[i] = static_cast<float>(counts[i]) * scale;
}

// The public history counts, clamped to a byte as observation/builder.py's _count_bytes does.
[[gnu::noinline]] void put_clamped(float* out, const int16_t* counts, int size, float scale) {
  constexpr int16_t most = OBSERVATION_BYTE_MAX;
  for (int i = 0; i < size; ++i) {
    const int16_t count = counts[i] < most ? counts[i] : most;
    out[i] = static_cast<float>(count) * scale;
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
  put_counts(at + teams::NATURALS, nat, teams::NATURALS_SIZE, teams::NATURALS_SCALE);
  put_counts(at + teams::TWOS, two, teams::TWOS_SIZE, teams::TWOS_SCALE);
  put_counts(at + teams::JOKERS, jok, teams::JOKERS_SIZE, teams::JOKERS_SCALE);
  for (int slot = 0; slot < NUM_SLOTS; ++slot) {
    if (nat[slot] + two[slot] + jok[slot] < rules.canasta_size) continue;
    at[teams::IS_CANASTA + slot] = teams::IS_CANASTA_SCALE;
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
  put_counts(at + teams::CLOSED_CLEAN, closed_clean, teams::CLOSED_CLEAN_SIZE, teams::CLOSED_CLEAN_SCALE);
  put_counts(at + teams::CLOSED_DIRTY, closed_dirty, teams::CLOSED_DIRTY_SIZE, teams::CLOSED_DIRTY_SCALE);
  at[teams::PRESENT] = teams::PRESENT_SCALE;
  at[teams::RED3] = static_cast<float>(s.red3[team]) * teams::RED3_SCALE;
  if (s.opened[team]) at[teams::OPENED] = teams::OPENED_SCALE;
  at[teams::OPENING_MINIMUM] = static_cast<float>(s.need[team]) * teams::OPENING_MINIMUM_SCALE;
  at[teams::SCORE] = static_cast<float>(s.scores[team]) * teams::SCORE_SCALE;
  at[teams::CANASTAS] = static_cast<float>(counts.canastas) * teams::CANASTAS_SCALE;
  at[teams::CLEAN] = static_cast<float>(counts.clean) * teams::CLEAN_SCALE;
  at[teams::DIRTY] = static_cast<float>(counts.dirty) * teams::DIRTY_SCALE;
  return counts;
}

// The fields fixed for the game (the table block) and the hand number.
void write_table(const GameState& s, const Rules& rules, float* out) {
  for (int i = 0; i < NUM_PLAYERS_SIZE; ++i)
    if (NUM_PLAYERS_VALUES[i] == s.num_players) out[NUM_PLAYERS + i] = NUM_PLAYERS_SCALE;
  // the hand number saturates at a byte, as observation/builder.py's does
  out[HAND_NUMBER] = static_cast<float>(std::min(s.hand_index, OBSERVATION_BYTE_MAX)) * HAND_NUMBER_SCALE;
  out[DRAW_COUNT] = static_cast<float>(rules.draw_count) * DRAW_COUNT_SCALE;
  if (rules.meld_closes_at) out[MELDS_CLOSE_AT_7] = MELDS_CLOSE_AT_7_SCALE;
  if (rules.wild_melds) out[WILD_MELDS] = WILD_MELDS_SCALE;
  if (rules.black3_melds) out[BLACK3_MELDS] = BLACK3_MELDS_SCALE;
  if (rules.go_out_needs_clean_and_dirty) out[NEEDS_CLEAN_AND_DIRTY] = NEEDS_CLEAN_AND_DIRTY_SCALE;
  if (rules.take_naturals_frozen >= 3) out[THREE_TO_TAKE_FROZEN] = THREE_TO_TAKE_FROZEN_SCALE;
  if (rules.wild_crosses_pot) out[WILD_CROSSES_POT] = WILD_CROSSES_POT_SCALE;
  // observation/builder.py folds the target into its scales: float32(target) * float32(scale)
  out[TARGET] = static_cast<float>(rules.target_score) * TARGET_SCALE;
  if (rules.sequences) out[SEQUENCES_ON] = SEQUENCES_ON_SCALE;
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
    put_counts(out + HELD, s.held, HELD_SIZE, HELD_SCALE);
    staged = s.staged;
    if (s.phase == PHASE_DRAW) {
      out[DRAW_PHASE] = DRAW_PHASE_SCALE;
    } else if (s.phase == PHASE_MELD) {
      out[MELD_PHASE] = MELD_PHASE_SCALE;
      // asked of the engine: the turn search's going-out rule (C-14, S-15, I-11); the
      // query writes nothing, the search only takes a non-const game for its moves
      if (mine.canastas >= rules.go_out_min_canastas && game.opening_done(my_team) &&
          TurnSearch(const_cast<Game&>(game))
              .go_out_allowed_counts(mine.canastas, mine.clean, mine.dirty))
        out[MAY_GO_OUT] = MAY_GO_OUT_SCALE;
    }
    if (!opened && need > staged)
      out[STILL_NEEDED] = static_cast<float>(need - staged) * STILL_NEEDED_SCALE;
    if (s.took_pot) out[TOOK_POT] = TOOK_POT_SCALE;
    if (s.clean_only) out[CLEAN_ONLY] = CLEAN_ONLY_SCALE;
    if (s.hidden_open) out[HIDDEN_OPEN] = HIDDEN_OPEN_SCALE;
  } else if (!opened && need > 0) {
    out[STILL_NEEDED] = static_cast<float>(need) * STILL_NEEDED_SCALE;
  }
  if (staged) out[STAGED] = static_cast<float>(staged) * STAGED_SCALE;
  if (s.stock.len < rules.draw_count) out[STOCK_SHORT] = STOCK_SHORT_SCALE;
  out[STOCK] = static_cast<float>(s.stock.len) * STOCK_SCALE;
  out[STEPS] = static_cast<float>(s.num_steps) * STEPS_SCALE;
}

}  // namespace

std::vector<Span> spans() {
  std::vector<Span> out;
  for (const SpanDecl& span : SPANS) out.push_back(Span{span.name, span.start, span.size, span.scale});
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

  put_counts(out + HAND, s.hands[viewer], HAND_SIZE, HAND_SCALE);
  const int top = s.pot.len ? s.pot[s.pot.len - 1] : NUM_KINDS;  // NUM_KINDS: an empty pot
  out[POT_TOP + top] = POT_TOP_SCALE;
  out[POT_SIZE] = static_cast<float>(s.pot.len) * POT_SIZE_SCALE;
  out[POT_FACE_DOWN] = static_cast<float>(s.pot_hidden) * POT_FACE_DOWN_SCALE;
  // C-9, S-6: a wild card in the pot froze it, or crossed it where wild cards cross
  if (s.pot_wild) {
    if (rules.wild_crosses_pot)
      out[POT_CROSSED] = POT_CROSSED_SCALE;
    else
      out[POT_FROZEN] = POT_FROZEN_SCALE;
  }
  if (top >= NUM_NATURALS && top < NUM_KINDS) out[POT_BLOCKED] = POT_BLOCKED_SCALE;  // C-12
  if (frozen_until_opened(rules, s.opened[my_team])) out[POT_FROZEN_FOR_ME] = POT_FROZEN_FOR_ME_SCALE;  // C-9
  put_counts(out + POT_KNOWN, s.pot_known, POT_KNOWN_SIZE, POT_KNOWN_SCALE);

  TeamCounts mine;
  for (int copy = 0; copy < teams; ++copy) {
    const int team_id = (my_team + copy) % teams;
    const TeamCounts counts = write_team(s, rules, team_id, out + TEAMS + copy * teams::SIZE);
    if (copy == 0) mine = counts;
  }
  for (int copy = 0; copy < players; ++copy) {
    const int seat = (viewer + copy) % players;
    float* at = out + PLAYERS + copy * players::SIZE;
    at[players::PRESENT] = players::PRESENT_SCALE;
    if (s.team_of[seat] == my_team) at[players::TEAMMATE] = players::TEAMMATE_SCALE;
    at[players::HAND_SIZE] = static_cast<float>(s.hand_totals[seat]) * players::HAND_SIZE_SCALE;
    put_counts(at + players::KNOWN, s.known[seat], players::KNOWN_SIZE, players::KNOWN_SCALE);
  }
  write_turn(game, viewer, viewer_to_act, mine, out);
  write_table(s, rules, out);

  if (rules.sequences) {  // S-19: the viewer's naturals by suit, a natural top's suit, runs
    put_counts(out + SUITED_HAND, s.suits.hands[viewer], SUITED_HAND_SIZE, SUITED_HAND_SCALE);
    if (top < NUM_NATURALS) {
      // observation/builder.py indexes its rows by the suit: a negative suit counts from the end
      const int suit = s.suits.pot[s.pot.len - 1];
      out[POT_SUIT + (suit + NUM_SUITS) % NUM_SUITS] = POT_SUIT_SCALE;
    }
    for (int copy = 0; copy < teams; ++copy) {
      const int team_id = (my_team + copy) % teams;
      int royal = 0;
      for (int i = 0; i < s.escalas[team_id].len; ++i)
        if (s.escalas[team_id][i].length == NUM_NATURALS) ++royal;  // an escala real: every rank
      float* at = out + RUNS + copy * runs::SIZE;
      at[runs::ESCALAS] = static_cast<float>(s.escalas[team_id].len - royal) * runs::ESCALAS_SCALE;
      at[runs::ESCALAS_REALES] = static_cast<float>(royal) * runs::ESCALAS_REALES_SCALE;
    }
  }

  for (int copy = 0; copy < players; ++copy) {  // G-8: the public history of the hand
    const int seat = (viewer + copy) % players;
    float* at = out + HISTORY + copy * history::SIZE;
    put_clamped(at + history::DISCARDED, s.discarded[seat], history::DISCARDED_SIZE, history::DISCARDED_SCALE);
    put_clamped(at + history::DECLINED, s.declined[seat], history::DECLINED_SIZE, history::DECLINED_SCALE);
  }
  put_clamped(out + SINCE_MY_DISCARD, s.since_discard[viewer], SINCE_MY_DISCARD_SIZE, SINCE_MY_DISCARD_SCALE);
}

}  // namespace canasta
