// STATE-STABLE
// The declared state of a game: every field of canasta_env/engine/state.py, and nothing else,
// declared once in CANASTA_STATE_FIELDS below.
//
// One plain struct of fixed-size arrays (no allocation per step; the one growing field,
// hand_history, grows once per hand), sized by sizes.hpp. Field names, order and meanings
// are those of engine/state.py; where Python holds None this holds a sentinel (-1) or a
// flag. The rules stay beside the state in the Game (immutable); the seed stays in Python.
//
// Shapes: [team][slot] arrays are indexed by team (G-3) then meld slot (natural ranks
// 0-10, black 3s 11, wild cards 12: NUM_SLOTS); [seat][kind] by seat then card kind
// (cards.hpp). Stock and pot are Lists (a length and a fixed array): the stock pops from
// its end (stock[stock.len - 1] is the next card drawn); the pot's top is
// pot[pot.len - 1] and its first pot_hidden cards are face down. The suits of the cards
// (S-19 only) are one component, `suits` (suits.hpp).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "cards.hpp"
#include "rng.hpp"
#include "sizes.hpp"
#include "suits.hpp"

namespace canasta {

// The phases (PHASE_DRAW, PHASE_MELD, PHASE_HAND_OVER) and the end reasons by their index
// in END_REASONS (END_WENT_OUT, END_STOCK, END_BLACK3) are engine/state.py's, in
// core_decls.hpp (generated at build time); -1 while the hand goes on.
constexpr int END_NONE = -1;

// rules.py PLAYER_COUNTS: the tables a game is dealt at.
inline bool is_player_count(int num_players) {
  for (int count : PLAYER_COUNTS)
    if (num_players == count) return true;
  return false;
}

// G-3: two partnerships at 4 and 6 players, else one team per player.
inline int teams_of(int num_players) {
  return (num_players == 4 || num_players == 6) ? 2 : num_players;
}
inline int team_of_seat(int num_players, int seat) {
  return (num_players == 4 || num_players == 6) ? seat % 2 : seat;
}

// A finished canasta of a preset whose melds close (S-7): Python's Closed tuple
// (slot, naturals, twos, jokers, hidden).
struct Closed {
  uint8_t slot;
  uint8_t naturals;
  uint8_t twos;
  uint8_t jokers;
  uint8_t hidden;  // laid whole from the hand (S-10)
};

// A run laid from the hand (S-19): Python's Run tuple (suit, first rank, length).
struct Run {
  int8_t suit;
  uint8_t start;
  uint8_t length;
};

// One team's score sheet of a finished hand (scoring.py score_team's dict): a member per
// row of scoring.py SHEET_ROWS (CANASTA_SHEET_ROWS, generated), then the canastas.
struct Sheet {
#define CANASTA_SHEET_ROW(name) int64_t name;
  CANASTA_SHEET_ROWS(CANASTA_SHEET_ROW)
#undef CANASTA_SHEET_ROW
  int32_t canastas;
};

// One entry of hand_history: {"hand", "reason", "scores"}.
struct HandRecord {
  int32_t hand;
  int32_t reason;  // END_*
  std::array<int64_t, MAX_TEAMS> scores;
};

using Pile = List<uint8_t, MAX_CARDS>;      // card kinds
using Canastas = List<Closed, MAX_CLOSED>;  // a team's finished canastas, in order laid
using Runs = List<Run, MAX_RUNS>;           // a team's runs, in order laid

// What a loaded state must hold in a field, by the field's shape: the checks that keep
// every index the core makes inside its arrays (the state reader in bindings.cpp applies
// them, and writes each shape back to Python; its errors name the field). The meaning of
// a saved state (scores are the sums of the hands, ...) is state_io/checks.py's, not these.
namespace field {
struct Int { int64_t low, high; };                    // an integer (not a bool) in low..high
struct Same { int64_t low, high, value; const char* what; };  // an Int that is the game's value
struct Flag {};                                       // a bool
struct Maybe { int64_t low, high; };                  // None (held as -1) or an Int
struct Row { int len; int64_t low, high; };           // a list of len Ints
struct Rows { int rows, width; int64_t low, high; };  // a list of rows Rows of width
struct Flags { int len; };                            // a list of len bools
struct SeatTeams { int seats, teams; };               // a Row of each seat's team, by G-3
struct Cards {};                                      // card kinds, at most MAX_CARDS - 1
struct Generator {};                                  // random.Random's state (3, 625 words, None)
struct Records { int teams; };                        // {"hand", "reason", "scores"} dicts
struct TeamCanastas { int teams; };                   // per team, (slot, n, twos, jokers, hidden)
struct TeamRuns { int teams; };                       // per team, (suit, start, length)
struct Reason { bool hand_over; };                    // one of END_REASONS exactly when over
struct Sheets { int teams; bool hand_over; };         // a sheet per team when over, else None
struct SuitParts { int seats, stock_len, pot_len; };  // the four parts (S-19 on), else None each
}  // namespace field

// Every field, in engine/state.py's order (checked at compile time against the names
// generated from GameState, state_check below):  X(name, C++ type, shape, shape's arguments...)
// The arguments are expressions in `seats` and `teams` (the game's) and `s`, the state
// read so far: a field's bounds may depend on a field above it (pot_hidden on the pot).
// From this one list: the struct below, STATE_FIELDS (the names, _core.STATE_FIELDS),
// visit_fields; through that the state dict out and in and its checks (bindings.cpp).
// Copying a state is the struct's own copy (Game::next_hand keeps one to restore).
#define CANASTA_STATE_FIELDS(X)                                                             \
  /* ------------------------------------------------------------------ the game */         \
  X(num_players, int32_t, Same, 2, MAX_PLAYERS, seats, "the game's ")                       \
  X(num_teams, int32_t, Same, 1, MAX_TEAMS, teams, "")     /* G-3, from num_players */      \
  X(team_of, int8_t[MAX_PLAYERS], SeatTeams, seats, teams) /* [seat] -> team (G-3) */       \
  X(rng, Rng, Generator)                                   /* every shuffle draws from it */ \
  X(scores, int64_t[MAX_TEAMS], Row, teams, -MAX_SCORE, MAX_SCORE) /* [team] game totals */ \
  X(hand_index, int32_t, Int, 0, MAX_COUNT)                /* 0 for the first hand */       \
  X(game_over, bool, Flag)                                                                  \
  X(winner_team, int8_t, Maybe, 0, teams - 1)   /* -1: None (playing, or a tie at the end) */ \
  X(hand_history, std::vector<HandRecord>, Records, teams) /* per finished hand */          \
  /* ------------------------------------------------------------------ the hand */         \
  X(first_player, int8_t, Int, 0, seats - 1)    /* who played first this hand (G-7) */      \
  X(current, int8_t, Int, 0, seats - 1)         /* the seat to act */                       \
  X(phase, int8_t, Int, 0, PHASE_HAND_OVER)     /* PHASE_DRAW, PHASE_MELD, PHASE_HAND_OVER */ \
  X(num_steps, int32_t, Int, 0, MAX_COUNT)      /* actions applied this hand */             \
  X(stock, Pile, Cards)                         /* kinds; draws pop from the end */         \
  X(hands, int16_t[MAX_PLAYERS][NUM_KINDS], Rows, seats, NUM_KINDS, 0, MAX_CARDS)           \
  X(hand_totals, int32_t[MAX_PLAYERS], Row, seats, 0, MAX_CARDS) /* [seat] cards held */    \
  X(known, int16_t[MAX_PLAYERS][NUM_KINDS], Rows, seats, NUM_KINDS, 0, MAX_CARDS)           \
  /* [seat][kind]: cards all saw it take with the pot */                                    \
  X(nat, int16_t[MAX_TEAMS][NUM_SLOTS], Rows, teams, NUM_SLOTS, 0, 255) /* in unfinished melds */ \
  X(two, int16_t[MAX_TEAMS][NUM_SLOTS], Rows, teams, NUM_SLOTS, 0, 255) /* twos in them */  \
  X(jok, int16_t[MAX_TEAMS][NUM_SLOTS], Rows, teams, NUM_SLOTS, 0, 255) /* jokers in them */ \
  X(closed, Canastas[MAX_TEAMS], TeamCanastas, teams) /* [team] finished canastas (S-7) */  \
  X(escalas, Runs[MAX_TEAMS], TeamRuns, teams)  /* [team] runs (S-19) */                    \
  X(red3, int16_t[MAX_TEAMS], Row, teams, 0, MAX_CARDS) /* [team] red 3s laid out */        \
  X(table_totals, int32_t[MAX_TEAMS], Row, teams, 0, MAX_CARDS) /* [team] cards on its table */ \
  X(opened, bool[MAX_TEAMS], Flags, teams)      /* [team] has met its opening minimum */    \
  X(need, int32_t[MAX_TEAMS], Row, teams, 0, MAX_COUNT) /* [team] opening minimum (C-8) */  \
  X(went_out, int8_t, Maybe, 0, seats - 1)      /* the seat that went out, -1: None */      \
  X(concealed, bool, Flag)                      /* out without having opened before (C-15) */ \
  X(end_reason, int8_t, Reason, s.phase == PHASE_HAND_OVER) /* END_*, END_NONE before */    \
  X(hand_scores, Sheet[MAX_TEAMS], Sheets, teams, s.phase == PHASE_HAND_OVER)               \
  /* ------------------------------------------------------------------ the pot */          \
  X(pot, Pile, Cards)                           /* kinds, bottom first */                   \
  X(pot_known, int16_t[NUM_KINDS], Row, NUM_KINDS, 0, MAX_CARDS) /* [kind] face-up pot cards */ \
  X(pot_hidden, int16_t, Int, 0, s.pot.len)     /* face-down cards at the bottom (S-3, I-3) */ \
  X(pot_wild, bool, Flag)                       /* frozen by a wild card (C-9) */           \
  X(pot_start_frozen, bool, Flag)               /* by the card turned up at the start (C-3) */ \
  /* ------------------------------------------------------------------ the turn */         \
  X(staged, int32_t, Int, 0, MAX_COUNT)         /* opening points melded this turn */       \
  X(held, int16_t[NUM_KINDS], Row, NUM_KINDS, 0, MAX_CARDS) /* pot cards set aside (C-8) */ \
  X(took_pot, bool, Flag)                                                                   \
  X(clean_only, bool, Flag)                     /* only clean melds this turn (I-10) */     \
  X(hidden_open, bool, Flag)                    /* a hidden canasta opened the team (S-8) */ \
  X(melded_this_turn, bool, Flag)                                                           \
  X(opened_at_turn_start, bool, Flag)           /* for a concealed going out (C-15) */      \
  X(had_clean_at_turn_start, bool, Flag)        /* S-15 */                                  \
  /* ------------------------------------------------------------------ public history (G-8) */ \
  X(discarded, int16_t[MAX_PLAYERS][NUM_HAND_KINDS], Rows, seats, NUM_HAND_KINDS, 0, MAX_CARDS) \
  X(declined, int16_t[MAX_PLAYERS][NUM_HAND_KINDS], Rows, seats, NUM_HAND_KINDS, 0, MAX_CARDS) \
  X(since_discard, int16_t[MAX_PLAYERS][NUM_HAND_KINDS], Rows, seats, NUM_HAND_KINDS, 0, MAX_CARDS) \
  X(history_totals, int32_t[MAX_PLAYERS], Row, seats, 0, MAX_COUNT) /* [seat] its entries */ \
  /* ------------------------------------------------------------------ suits (S-19) */      \
  X(suits, Suits, SuitParts, seats, s.stock.len, s.pot.len) /* untracked without S-19 */

template <class T>
using Declared = T;  // lets an array type stand where a member's type is written

struct GameState {
#define CANASTA_DECLARE(name, type, ...) Declared<type> name;
  CANASTA_STATE_FIELDS(CANASTA_DECLARE)
#undef CANASTA_DECLARE
};

#define CANASTA_NAME(name, ...) #name,
constexpr const char* STATE_FIELDS[] = {CANASTA_STATE_FIELDS(CANASTA_NAME)};
#undef CANASTA_NAME
constexpr int NUM_STATE_FIELDS = sizeof(STATE_FIELDS) / sizeof(STATE_FIELDS[0]);

// The list is engine/state.py's GameState less its PYTHON_ONLY_FIELDS (state_decl::,
// generated), or this does not compile: a field added or left out fails the count, a name
// GameState lacks is no state_decl:: id, a field at another place fails its static_assert.
namespace state_check {
constexpr bool same_name(const char* a, const char* b) {
  while (*a != '\0' && *a == *b) ++a, ++b;
  return *a == *b;
}
constexpr int place_of(const char* name) {
  for (int i = 0; i < NUM_STATE_FIELDS; ++i)
    if (same_name(STATE_FIELDS[i], name)) return i;
  return -1;
}
static_assert(NUM_STATE_FIELDS == state_decl::NUM_FIELDS,
              "csrc/state.hpp: CANASTA_STATE_FIELDS and engine/state.py's GameState (less its "
              "PYTHON_ONLY_FIELDS) hold different numbers of fields");
#define CANASTA_PLACE(name, ...)                                 \
  static_assert(place_of(#name) == state_decl::name,             \
                "csrc/state.hpp: CANASTA_STATE_FIELDS holds " #name \
                " at another place than engine/state.py's GameState");
CANASTA_STATE_FIELDS(CANASTA_PLACE)
#undef CANASTA_PLACE
}  // namespace state_check

// f(name, member, shape) for every field in order, `s` a GameState (const to read it out);
// seats and teams are the game's.
template <class State, class F>
void visit_fields(State& s, int seats, int teams, F&& f) {
  using namespace field;
#define CANASTA_VISIT(name, type, shape, ...) f(#name, s.name, shape{__VA_ARGS__});
  CANASTA_STATE_FIELDS(CANASTA_VISIT)
#undef CANASTA_VISIT
  (void)seats;
  (void)teams;
}

}  // namespace canasta
