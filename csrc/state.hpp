// STATE-STABLE
// The declared state of a game: every field of canasta_env/engine/state.py, and nothing else.
//
// One plain struct of fixed-size arrays (no allocation per step; the one growing field,
// hand_history, grows once per hand). Field names, groups and meanings are those of
// engine/state.py; where Python holds None this holds a sentinel (-1) or a flag.
//
// Shapes: [team][slot] arrays are indexed by team (G-3) then meld slot (natural ranks
// 0-10, black 3s 11, wild cards 12: NUM_SLOTS); [seat][kind] by seat then card kind
// (cards.hpp). Suited arrays (S-19 only, used when `suited`) count naturals by
// kind * 4 + suit. Stock and pot are arrays with a length: the stock pops from its
// end (stock[stock_len - 1] is the next card drawn); the pot's top is pot[pot_len - 1]
// and its first pot_hidden cards are face down.
//
// Sizes: at most 8 decks of 52 cards plus 255 jokers in all (rules.py MAX_DECKS and
// the observation's byte limit), so MAX_CARDS = 672 covers any deck the rules accept.
// MAX_CLOSED and MAX_RUNS bound a team's finished canastas and runs for every rules set
// the rules accept, so the core refuses none: a finished canasta holds at least 2 cards
// (a new meld from the hand has at least 3, the action layout; a pot take makes at
// least the top card and one natural), so all teams together finish at most
// MAX_CARDS / 2; a run holds 7 naturals of one suit, and each suit has 11 ranks of at
// most 8 copies (8 decks), so at most 8 * 11 / 7 = 12 runs a suit, 48 in all.
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "cards.hpp"
#include "rng.hpp"

namespace canasta {

constexpr int MAX_PLAYERS = 6;
constexpr int MAX_TEAMS = 3;  // 3 players play alone; 4 and 6 are two partnerships
constexpr int NUM_SLOTS = 13;
constexpr int SLOT_BLACK3 = 11;
constexpr int SLOT_WILD = 12;
constexpr int MAX_CARDS = 672;
constexpr int MAX_CLOSED = MAX_CARDS / 2;
constexpr int MAX_RUNS = 64;

constexpr int PHASE_DRAW = 0;
constexpr int PHASE_MELD = 1;
constexpr int PHASE_HAND_OVER = 2;

// END_REASONS, in the order of engine/state.py; -1 while the hand goes on.
constexpr int END_NONE = -1;
constexpr int END_WENT_OUT = 0;     // "went out"
constexpr int END_STOCK = 1;        // "stock exhausted"
constexpr int END_BLACK3 = 2;       // "black-3 canasta"

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

// One team's score sheet of a finished hand (scoring.py score_team's dict).
struct Sheet {
  int64_t melded, canasta_bonus, sequences, red3, count_bonus, going_out, hand_penalty, total;
  int32_t canastas;
};

// One entry of hand_history: {"hand", "reason", "scores"}.
struct HandRecord {
  int32_t hand;
  int32_t reason;  // END_*
  std::array<int64_t, MAX_TEAMS> scores;
};

struct GameState {
  // ------------------------------------------------------------------ the game
  // (rules: held beside the state by the Game, immutable; seed: kept by the Python face)
  int32_t num_players;
  int32_t num_teams;                  // G-3, from num_players
  int8_t team_of[MAX_PLAYERS];        // [seat] -> team (G-3)
  Rng rng;                            // every shuffle draws from it (random.Random's state)
  int64_t scores[MAX_TEAMS];          // [team] game totals
  int32_t hand_index;                 // 0 for the first hand
  bool game_over;
  int8_t winner_team;                 // -1: None (still playing, or a tie at the end)
  std::vector<HandRecord> hand_history;  // per finished hand

  // ------------------------------------------------------------------ the hand
  int8_t first_player;                // who played first this hand (G-7 rotates it)
  int8_t current;                     // the seat to act
  int8_t phase;                       // PHASE_DRAW, PHASE_MELD or PHASE_HAND_OVER
  int32_t num_steps;                  // actions applied this hand
  bool suited;                        // S-19: the suited arrays below are in use (else None)
  int16_t stock_len;
  uint8_t stock[MAX_CARDS];           // kinds; draws pop from the end
  int8_t stock_suits[MAX_CARDS];      // S-19: suits of the stock, in its order (-1: none)
  int16_t hands[MAX_PLAYERS][NUM_KINDS];        // [seat][kind] counts
  int32_t hand_totals[MAX_PLAYERS];             // [seat] cards held
  int16_t hand_suits[MAX_PLAYERS][SUITED_SIZE]; // S-19: [seat][kind * 4 + suit] of naturals
  int16_t known[MAX_PLAYERS][NUM_KINDS];        // [seat][kind]: cards all saw it take with the pot
  int16_t nat[MAX_TEAMS][NUM_SLOTS];  // [team][slot] naturals in unfinished melds
  int16_t two[MAX_TEAMS][NUM_SLOTS];  // [team][slot] twos in them
  int16_t jok[MAX_TEAMS][NUM_SLOTS];  // [team][slot] jokers in them
  int16_t closed_len[MAX_TEAMS];
  Closed closed[MAX_TEAMS][MAX_CLOSED];  // [team] finished canastas (S-7), in order laid
  int16_t escalas_len[MAX_TEAMS];
  Run escalas[MAX_TEAMS][MAX_RUNS];   // [team] runs (S-19), in order laid
  int16_t red3[MAX_TEAMS];            // [team] red 3s laid out
  int32_t table_totals[MAX_TEAMS];    // [team] cards on the team's table (melds, canastas, runs, red 3s)
  bool opened[MAX_TEAMS];             // [team] has met its opening minimum
  int32_t need[MAX_TEAMS];            // [team] opening minimum this hand (C-8)
  int8_t went_out;                    // the seat that went out, -1: None
  bool concealed;                     // it went out without having opened before that turn (C-15)
  int8_t end_reason;                  // END_* once the hand is over, END_NONE before
  Sheet hand_scores[MAX_TEAMS];       // [team] score sheet once the hand is over (else None)

  // ------------------------------------------------------------------ the pot
  int16_t pot_len;
  uint8_t pot[MAX_CARDS];             // kinds, bottom first; the first pot_hidden are face down
  int8_t pot_suits[MAX_CARDS];        // S-19: suits of the pot cards
  int16_t pot_known[NUM_KINDS];       // [kind] face-up pot cards
  int16_t pot_hidden;                 // face-down cards at the bottom (S-3, I-3)
  bool pot_wild;                      // frozen by a wild card (C-9)
  bool pot_start_frozen;              // frozen by the card turned up at the start (C-3)

  // ------------------------------------------------------------------ the turn
  int32_t staged;                     // opening points melded this turn by an unopened team
  int16_t held[NUM_KINDS];            // [kind] pot cards set aside until the opening (C-8)
  int16_t held_suits[SUITED_SIZE];    // S-19: their suits
  bool took_pot;
  bool clean_only;                    // only clean melds may be laid this turn (I-10)
  bool hidden_open;                   // a hidden canasta opened the team this turn (S-8)
  bool melded_this_turn;
  bool opened_at_turn_start;          // for a concealed going out (C-15)
  bool had_clean_at_turn_start;       // S-15

  // ------------------------------------------------------------------ public history (G-8)
  int16_t discarded[MAX_PLAYERS][NUM_HAND_KINDS];      // [seat][kind] cards it discarded this hand
  int16_t declined[MAX_PLAYERS][NUM_HAND_KINDS];       // [seat][kind] pot tops it drew instead of taking
  int16_t since_discard[MAX_PLAYERS][NUM_HAND_KINDS];  // [seat][kind] others' discards since its last one
  int32_t history_totals[MAX_PLAYERS];                 // [seat] its discards and declines this hand
};

}  // namespace canasta
