// N games of one rules object stepped together: the mirror of canasta_env/table.py's
// BatchedTable with auto_deal, writing the views into buffers it allocated once.
//
// After reset and after each step, row k holds table k: obs[k] (OBS_SIZE float32) and
// mask[k] (NUM_ACTIONS int8), the view of seat[k], the seat to act; rewards[k] (one per
// seat, float32 of the float64 sum table.py's seat_rewards gives over the hands that
// ended on this step); done[k], the episode ended on this step (its table then already
// holds a new game). Deals are numbered over the batch in the order they are made (the
// first N to tables 0..N-1 at reset, then each new game in table order); deal h is seeded
// like Python's random.Random(seed + h), for a seed of any size. A deal whose hand ends during the deal is
// skipped (MAX_REDEALS). With EPISODE_GAME a hand that ends deals the game's next hand
// until the game is over.
//
// House bots (bots/bot.hpp) may hold seats of a table (set_bot): then reset and step play
// those seats inside C++, each bot reset at every new deal of its table (as play_hands
// resets its agents), until a seat without a bot is to act. The views are the seats
// without a bot's; rewards[k] add up every hand that ended during the step (the bots'
// moves included), in float64, and done[k] says that at least one episode ended.
//
// The learner's face (canasta_env/gym_vector.py's fast path) drives a batch another way:
// deal_table deals one table from the caller's seeds with the bots of its episode (each
// bot's generator seeded as random.Random(seed)), and step_learner plays the learner's
// actions (the binding's play_learner checks every id and action first and plays the
// legal ones). Neither deals a new game: a hand that ends stops its table (hand_over[k])
// for the caller to go on with next_hand (a game's next hand) or deal_table (a new
// episode); the bots' seats are played in C++ up to a seat without a bot or the hand's
// end. The call that ends a hand also writes, at row k, how it ended (hand_sheets,
// game_scores, end_reason, game_over, winner_team), each seat's reward (hand_rewards,
// book_hand) and the last view of the seat that acted (final_obs), so the face books the
// ended hands from arrays, without reading the game's state.
//
// The learner's face may also leave each new episode's draws to the batch (new_episodes,
// after configure_episodes and set_generator): per table the learner's seat, one seed per
// opponent seat and the deal seed, from the table's numpy generator (numpy_pcg64.hpp) as
// gym_vector.py's _reset_tables draws them, then deal_table and the redeals while the
// episode ends before the learner acts.
//
// A batch touches only its own games and buffers (the turn search's memo is per thread),
// so separate batches may step in separate threads; one batch, one thread at a time (its
// binding holds the batch's BusyFlag and those of the games a call steps: busy.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bots/bot.hpp"
#include "game.hpp"
#include "numpy_pcg64.hpp"
#include "observation.hpp"
#include "outcome.hpp"

namespace canasta {

// The reward and episode modes (RewardMode, EpisodeMode, by their names REWARD_MODES and
// EPISODE_MODES), MAX_REDEALS (deals tried for one new game whose hand ends during its
// deal) and reward_scale's bounds (MIN_REWARD_SCALE, MAX_REWARD_SCALE, exposed as
// _core.REWARD_SCALE_RANGE) are table.py's and options.py's, in core_decls.hpp.

// The most tables one batch holds: its buffers and games are allocated at once (about
// 20 kB a table), so a count past memory is refused rather than half allocated.
constexpr int MAX_TABLES = 1 << 16;

// The generator state of CPython's random.Random(seed) for an integer seed: init_genrand
// (19650218), then init_by_array with the key: |seed| as 32-bit words, least significant
// first, without high zero words ([0] for 0).
Rng python_seeded_rng(const uint32_t* key, int key_length);

// A Python integer seed of any size: its sign and |seed| as 32-bit words, least
// significant first (canasta_env/vector.py seed_words).
struct SeedValue {
  bool negative = false;
  std::vector<uint32_t> magnitude{0};
  // python_seeded_rng's key for seed + offset
  std::vector<uint32_t> key(uint64_t offset) const;
  // whether the seed fits int64, and then its value in *value
  bool as_int64(int64_t* value) const;
};

// The batch's one booking of a hand that ended at `s` (its phase PHASE_HAND_OVER): what
// each seat earns, out[seat] in float64, as table.py Table.seat_rewards books it through
// the one Result (outcome.hpp): SCORE, the seat's team's hand margin / reward_scale; WIN,
// the seat's team's outcome of the episode (the hand's, or the game's with its winner)
// once the hand ends it, zeros before. Returns whether the hand ends the episode.
bool book_hand(const GameState& s, RewardMode reward, double reward_scale, EpisodeMode episode,
               double* out);
// options.py's bounds of reward_scale: std::invalid_argument for a value outside them (or NaN)
void check_reward_scale(double reward_scale);

class Batch {
 public:
  Batch(std::shared_ptr<const Rules> rules, std::string rules_name, int num_players,
        int num_tables, RewardMode reward, double reward_scale, EpisodeMode episode);

  const int num_tables;
  const int num_players;

  // Deal every table a new game (seeds seed, seed + 1, ...) and write the views.
  void reset(SeedValue seed);
  // The first table whose episode is on and whose action is not legal there, or -1.
  int first_illegal(const int64_t* actions);
  // Play actions[k] at every table k; an illegal action throws IllegalAction naming the
  // table before anything changes. Call reset first.
  void step(const int64_t* actions);
  // The refusal of `action` (its text) at `table`: BatchedTable.step's words.
  std::string illegal_message(int table, const std::string& action) const;

  // Seat `seat` of table `table` played by a copy of `bot` (nullptr: by the caller). A table
  // keeps at least one seat without a bot. After reset, the copy is reset at once for the
  // game on the table and plays its seat from the next step (or reset) on.
  void set_bot(int table, int seat, const bots::Bot* bot);
  const bots::Bot* bot(int table, int seat) const { return bots_[table * num_players + seat].get(); }

  // The learner's face: table `table` dealt a new game from `seed` with a copy of
  // seat_bots[seat] in each seat that has one (nullptr: the learner's), a drawing bot's
  // generator seeded random.Random(bot_seeds[seat]); its bots reset and played.
  void deal_table(int table, const SeedValue& seed, const std::vector<const bots::Bot*>& seat_bots,
                  const std::vector<int64_t>& bot_seeds);
  // The learner's face: the next hand of the game at `table` (its hand over, the game
  // not), its bots played.
  void next_hand_of(int table);

  // The learner's face drawing its episodes (gym_vector.py's fast path). How every new
  // episode seats the learner, set once (again: replaced): twins[table] are the opponents
  // of that table in the order of its opponent seats (each copied); `seat` the learner's
  // seat, or -1 for one drawn per episode; `team`: the learner holds its seat's team
  // (gym_env.py learner="team"), else the seat alone. Throws std::invalid_argument where a
  // table's twins are not one per opponent seat, before anything changes.
  void configure_episodes(const std::vector<std::vector<const bots::Bot*>>& twins, int seat,
                          bool team);
  // Table `table`'s numpy generator: its PCG64 state (seeding.np_random's), kept and
  // drawn from by new_episodes.
  void set_generator(int table, const NumpyPcg64& generator);
  const NumpyPcg64& generator(int table) const;  // throws where none was set
  // Each of `tables` dealt a new episode as gym_vector.py's _reset_tables deals it, from
  // its generator: the learner's seat (drawn with integers(num_players), or the fixed
  // one), integers(SEED_BOUND) for each opponent seat in seat order, then the deal seed
  // (seeds[i] where given, on the first deal only; else integers(SEED_BOUND)), deal_table,
  // and while the episode ends before the learner acts (a hand over; with EPISODE_GAME a
  // hand over moves to the game's next hand unless the game is over) the same draws
  // again, up to MAX_REDEALS deals (then std::runtime_error). Row k of learner_seat,
  // deal_seed, redeals and dealt_rewards is written. Throws before anything changes for a
  // table outside the batch or listed twice, a table without a generator, seeds not one
  // per table, or no configure_episodes.
  void new_episodes(const std::vector<int>& tables, const std::vector<const SeedValue*>& seeds);
  // new_episodes' rows: each table's learner seat, the seed of its deal (a given seed
  // past int64 is written 0: the caller holds it), the redeals that took (0: the first
  // deal held; a given seed is used only then), and the rewards of the hands that ended
  // while its episode was dealt ([table][seat] float64, book_hand's; zero but for a game's
  // hand that ended before the learner acted).
  int64_t* learner_seat() { return learner_seat_.get(); }
  int64_t* deal_seed() { return deal_seed_.get(); }
  int64_t* redeals() { return redeals_.get(); }
  double* dealt_rewards() { return dealt_rewards_.get(); }
  // The learner's face: actions[k] played at every table k with play[k] (throws
  // IllegalAction before anything changes for an illegal one), then its bots. The seat
  // that plays actions[k] is kept, and once the table's hand is over (after this step or
  // a next_hand of its game) final_obs[k] is what that seat sees, shown as not to act.
  void step_learner(const int64_t* actions, const bool* play);
  // Whether `action` is legal at `table` (dealt, its hand on, an id of the layout).
  bool learner_legal(int table, int64_t action);
  bool* legal() { return legal_.get(); }  // play_learner's flags (batch_bindings.cpp)
  float* final_obs() { return final_obs_.get(); }
  bool* hand_over() { return hand_over_.get(); }
  // The learner's face, row k written when table k's hand ends: each team's score sheet
  // ([table][team][SHEET_VALUES]: engine/scoring.py SHEET_ROWS, then canastas), the game's
  // totals ([table][team]), the END_* reason, whether the game is over, its winner (-1:
  // none), and each seat's reward for the hand (hand_rewards, [table][seat] float64:
  // book_hand with the batch's reward and episode modes).
  static constexpr int SHEET_VALUES = NUM_SHEET_ROWS + 1;
  const int num_teams;
  int64_t* hand_sheets() { return hand_sheets_.get(); }
  int64_t* game_scores() { return game_scores_.get(); }
  int64_t* end_reason() { return end_reason_.get(); }
  bool* game_over() { return game_over_.get(); }
  double* hand_rewards() { return hand_rewards_.get(); }
  int64_t* winner_team() { return winner_team_.get(); }
  // the game at `table` (throws where none was dealt); shared, so a caller that keeps it
  // past the table's next deal keeps the old game, never a freed one
  std::shared_ptr<Game> game_at(int table);
  // the game at `table`, or null before its first deal
  std::shared_ptr<Game> dealt(int table) const { return games_.empty() ? nullptr : games_[table]; }
  // reset and step's order: throws std::logic_error for a step before reset, or after the
  // learner's face dealt a table
  void check_step() const;

  // the buffers (row-major, num_tables rows), written by reset and step; paid: the float64
  // sums that rewards holds as float32
  float* obs() { return obs_.get(); }
  int8_t* mask() { return mask_.get(); }
  int64_t* seat() { return seat_.get(); }
  float* rewards() { return rewards_.get(); }
  double* paid() { return paid_.data(); }
  bool* done() { return done_.get(); }
  // the game whose episode ended at `table` on the last step (done), null for the others
  std::shared_ptr<Game> finished(int table) const;
  // the deal number h of each table's game (its seed is the reset's seed + h)
  const std::vector<int64_t>& deal_numbers() const { return deal_numbers_; }
  bool was_reset() const { return !games_.empty(); }

 private:
  std::shared_ptr<const Rules> rules_;
  std::string rules_name_;
  RewardMode reward_;
  double reward_scale_;
  EpisodeMode episode_;
  SeedValue seed_;
  int64_t next_deal_ = 0;
  std::vector<std::shared_ptr<Game>> games_;
  std::vector<std::shared_ptr<Game>> finished_;  // [table] the game ended on this step
  std::vector<int64_t> deal_numbers_;
  std::unique_ptr<float[]> obs_;
  std::unique_ptr<int8_t[]> mask_;
  std::unique_ptr<int64_t[]> seat_;
  std::unique_ptr<float[]> rewards_;
  std::unique_ptr<bool[]> done_;
  std::unique_ptr<bool[]> hand_over_;  // the learner's face: each table's hand is over
  std::unique_ptr<bool[]> legal_;      // the learner's face: each table's action is legal
  std::unique_ptr<int64_t[]> acted_;   // the learner's face: the seat of its last action
  std::unique_ptr<float[]> final_obs_;  // the learner's face: acted_'s view at a hand's end
  std::unique_ptr<int64_t[]> hand_sheets_, game_scores_, end_reason_, winner_team_;
  std::unique_ptr<bool[]> game_over_;
  std::unique_ptr<double[]> hand_rewards_;
  bool auto_deal_ = true;              // false once the learner's face deals a table
  std::vector<double> earned_;  // [seat] this step's rewards of one table, in float64
  std::vector<double> booked_;  // [seat] one hand's rewards (book_hand)
  std::vector<double> paid_;    // [table * num_players + seat] this step's rewards, float64
  std::vector<std::unique_ptr<bots::Bot>> bots_;  // [table * num_players + seat], null: none
  std::unique_ptr<float[]> bot_obs_;  // a bot's observation, written before it acts
  // configure_episodes: the opponents' twins ([table * num_opponents_ + i], the i-th
  // opponent seat's), the opponent seats of each learner seat (in seat order), the fixed
  // learner seat (-1: drawn); num_opponents_ is -1 until configured
  std::vector<std::unique_ptr<bots::Bot>> episode_twins_;
  std::vector<std::vector<int>> other_seats_;
  int num_opponents_ = -1;
  int fixed_seat_ = -1;
  std::vector<NumpyPcg64> generators_;  // [table] set_generator's, drawn by new_episodes
  std::unique_ptr<bool[]> has_generator_;
  std::unique_ptr<int64_t[]> learner_seat_, deal_seed_, redeals_;
  std::unique_ptr<double[]> dealt_rewards_;

  std::shared_ptr<Game> deal(int64_t* deal_number);
  void write_view(int table);
  void learner_table_settled(int table);
  void new_episode(int table, const SeedValue* given);
  bool episode_dealt(int table);
  void check_table(int table) const;
  void hand_ended(int table);
  void reset_bots(int table);
  void play_bots(int table);
};

}  // namespace canasta
