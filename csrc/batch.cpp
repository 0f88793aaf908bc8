// The batched core (batch.hpp): BatchedTable's reset and step over N games.
#include "batch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace canasta {

namespace {
// A double as Python's repr would name it closely enough for an error (nan, inf, 5e-324).
std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}
}  // namespace

Rng python_seeded_rng(const uint32_t* key, int key_length) {
  // init_genrand(19650218) is the same for every seed: made once, copied per deal
  static const Rng genrand_base = [] {
    Rng base;
    base.seed32(19650218U);
    return base;
  }();
  Rng rng = genrand_base;
  uint32_t* mt = rng.mt;
  constexpr int N = Rng::N;
  int i = 1, j = 0;
  for (int k = std::max(N, key_length); k; --k) {  // init_by_array
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1664525U)) + key[j] +
            static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= N) {
      mt[0] = mt[N - 1];
      i = 1;
    }
    if (j >= key_length) j = 0;
  }
  for (int k = N - 1; k; --k) {
    mt[i] = (mt[i] ^ ((mt[i - 1] ^ (mt[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= N) {
      mt[0] = mt[N - 1];
      i = 1;
    }
  }
  mt[0] = 0x80000000U;  // a non-zero initial state
  rng.index = N;
  return rng;
}

std::vector<uint32_t> SeedValue::key(uint64_t offset) const {
  // |seed + offset|: a negative seed's magnitude shrinks by offset (or the sum turns
  // non-negative, offset - magnitude, when offset is the larger: then magnitude < 2**64)
  std::vector<uint32_t> out = magnitude;
  if (out.empty()) out.push_back(0);
  const bool high_words = std::any_of(out.begin() + std::min<size_t>(2, out.size()), out.end(),
                                      [](uint32_t w) { return w != 0; });
  const uint64_t low = out[0] | (out.size() > 1 ? static_cast<uint64_t>(out[1]) << 32 : 0);
  if (negative && !high_words && offset >= low) {
    const uint64_t sum = offset - low;
    out.assign({static_cast<uint32_t>(sum), static_cast<uint32_t>(sum >> 32)});
  } else if (negative) {  // magnitude - offset, with borrow
    uint64_t borrow = offset;
    for (size_t i = 0; i < out.size() && borrow; ++i) {
      const uint64_t word = out[i], take = borrow & 0xffffffffULL;
      borrow >>= 32;
      if (word < take) ++borrow;
      out[i] = static_cast<uint32_t>(word - take);
    }
  } else {  // magnitude + offset, with carry
    uint64_t carry = offset;
    for (size_t i = 0; carry; ++i) {
      if (i == out.size()) out.push_back(0);
      const uint64_t sum = static_cast<uint64_t>(out[i]) + (carry & 0xffffffffULL);
      out[i] = static_cast<uint32_t>(sum);
      carry = (carry >> 32) + (sum >> 32);
    }
  }
  while (out.size() > 1 && out.back() == 0) out.pop_back();  // CPython's key drops them
  return out;
}

bool SeedValue::as_int64(int64_t* value) const {
  size_t words = magnitude.size();
  while (words > 1 && magnitude[words - 1] == 0) --words;
  if (words > 2) return false;
  const uint64_t size = (words > 0 ? magnitude[0] : 0) |
                        (words > 1 ? static_cast<uint64_t>(magnitude[1]) << 32 : 0);
  constexpr uint64_t LARGEST = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (size > LARGEST + (negative ? 1 : 0)) return false;
  // -2**63 has no positive twin: negated as an unsigned value
  *value = negative ? static_cast<int64_t>(0 - size) : static_cast<int64_t>(size);
  return true;
}

void check_reward_scale(double reward_scale) {
  // options.py MIN_REWARD_SCALE..MAX_REWARD_SCALE (_core.REWARD_SCALE_RANGE, compared by the
  // tests): every reward finite; NaN fails both comparisons
  if (!(reward_scale >= MIN_REWARD_SCALE && reward_scale <= MAX_REWARD_SCALE))
    throw std::invalid_argument(std::string("reward_scale must be a number in ") + REWARD_SCALE_RANGE +
                                ", got " + number_text(reward_scale));
}

bool book_hand(const GameState& s, RewardMode reward, double reward_scale, EpisodeMode episode,
               double* out) {
  const bool ends = episode == EpisodeMode::HAND || s.game_over;
  if (reward == RewardMode::SCORE) {
    const Result hand = hand_result(s);
    for (int seat = 0; seat < s.num_players; ++seat)
      out[seat] = hand.margin(s.team_of[seat]) / reward_scale;
  } else if (!ends) {  // WIN: zeros until the episode's end
    std::fill(out, out + s.num_players, 0.0);
  } else {
    const Result result = episode == EpisodeMode::HAND ? hand_result(s) : game_result(s);
    for (int seat = 0; seat < s.num_players; ++seat)
      out[seat] = static_cast<double>(result.outcome(s.team_of[seat]));
  }
  return ends;
}

Batch::Batch(std::shared_ptr<const Rules> rules, std::string rules_name, int players, int tables,
             RewardMode reward, double reward_scale, EpisodeMode episode)
    : num_tables(tables),
      num_players(players),
      num_teams(teams_of(players)),
      rules_(std::move(rules)),
      rules_name_(std::move(rules_name)),
      reward_(reward),
      reward_scale_(reward_scale),
      episode_(episode) {
  if (tables < 1 || tables > MAX_TABLES)
    throw std::invalid_argument("num_tables must be 1.." + std::to_string(MAX_TABLES) + ", got " +
                                std::to_string(tables));
  if (!is_player_count(players))
    throw std::invalid_argument(std::string("a table seats ") + PLAYER_COUNTS_TEXT + " players");
  rules_->check_players(players);
  check_reward_scale(reward_scale);
  const size_t n = static_cast<size_t>(tables);
  obs_.reset(new float[n * OBS_SIZE]());
  mask_.reset(new int8_t[n * NUM_ACTIONS]());
  seat_.reset(new int64_t[n]());
  rewards_.reset(new float[n * players]());
  done_.reset(new bool[n]());
  hand_over_.reset(new bool[n]());
  legal_.reset(new bool[n]());
  acted_.reset(new int64_t[n]());
  final_obs_.reset(new float[n * OBS_SIZE]());
  hand_sheets_.reset(new int64_t[n * num_teams * SHEET_VALUES]());
  game_scores_.reset(new int64_t[n * num_teams]());
  end_reason_.reset(new int64_t[n]());
  game_over_.reset(new bool[n]());
  winner_team_.reset(new int64_t[n]());
  hand_rewards_.reset(new double[n * players]());
  generators_.resize(n);
  has_generator_.reset(new bool[n]());
  learner_seat_.reset(new int64_t[n]());
  deal_seed_.reset(new int64_t[n]());
  redeals_.reset(new int64_t[n]());
  dealt_rewards_.reset(new double[n * players]());
  earned_.assign(players, 0.0);
  booked_.assign(players, 0.0);
  bots_.resize(n * players);
  paid_.assign(n * players, 0.0);
  bot_obs_.reset(new float[OBS_SIZE]());
}

void Batch::check_table(int table) const {
  if (table < 0 || table >= num_tables)
    throw std::invalid_argument("table " + std::to_string(table) + " is not in the batch");
}

void Batch::deal_table(int k, const SeedValue& seed, const std::vector<const bots::Bot*>& seat_bots,
                       const std::vector<int64_t>& bot_seeds) {
  check_table(k);
  if (static_cast<int>(seat_bots.size()) != num_players ||
      static_cast<int>(bot_seeds.size()) != num_players)
    throw std::invalid_argument("deal_table takes one bot and one seed per seat");
  if (std::all_of(seat_bots.begin(), seat_bots.end(), [](const bots::Bot* b) { return b; }))
    throw std::invalid_argument("every seat played by a bot leaves no seat to step");
  for (int seat = 0; seat < num_players; ++seat)  // checked before anything changes
    if (seat_bots[seat] && bot_seeds[seat] < 0)
      throw std::invalid_argument("a bot's seed is not negative, got " + std::to_string(bot_seeds[seat]));
  if (games_.empty()) {  // the learner's face deals every table itself
    games_.resize(num_tables);
    deal_numbers_.assign(num_tables, -1);
  }
  auto_deal_ = false;
  const std::vector<uint32_t> key = seed.key(0);
  games_[k] = std::make_shared<Game>(rules_, rules_name_, num_players,
                                     python_seeded_rng(key.data(), static_cast<int>(key.size())),
                                     nullptr);
  std::unique_ptr<bots::Bot>* row = &bots_[static_cast<size_t>(k) * num_players];
  for (int seat = 0; seat < num_players; ++seat) {
    row[seat] = seat_bots[seat] ? seat_bots[seat]->clone() : nullptr;
    if (!row[seat]) continue;
    if (bots::PyRandom* generator = row[seat]->generator()) {  // random.Random(seed)
      const uint64_t value = static_cast<uint64_t>(bot_seeds[seat]);
      const SeedValue bot_seed{false, {static_cast<uint32_t>(value), static_cast<uint32_t>(value >> 32)}};
      const std::vector<uint32_t> bot_key = bot_seed.key(0);
      generator->rng = python_seeded_rng(bot_key.data(), static_cast<int>(bot_key.size()));
      generator->has_gauss_next = false;
      generator->gauss_next = 0.0;
    }
    row[seat]->reset(seat, num_players, rules_);
  }
  play_bots(k);
  learner_table_settled(k);
}

std::shared_ptr<Game> Batch::finished(int k) const {
  check_table(k);
  return finished_.empty() ? nullptr : finished_[k];
}

std::shared_ptr<Game> Batch::game_at(int k) {
  check_table(k);
  if (!dealt(k)) throw std::invalid_argument("no game at table " + std::to_string(k));
  return games_[k];
}

void Batch::next_hand_of(int k) {
  check_table(k);
  if (!dealt(k)) throw std::logic_error("next_hand before deal_table at table " + std::to_string(k));
  Game& game = *games_[k];
  if (!game.hand_over() || game.s.game_over)
    throw std::logic_error("table " + std::to_string(k) + " has no next hand to deal");
  game.next_hand(nullptr);
  play_bots(k);
  learner_table_settled(k);
}

void Batch::configure_episodes(const std::vector<std::vector<const bots::Bot*>>& twins, int seat,
                               bool team) {
  if (seat < -1 || seat >= num_players)
    throw std::invalid_argument("seat " + std::to_string(seat) + " is not at the table");
  std::vector<std::vector<int>> others(num_players);  // gym_vector.py _other_seats
  for (int learner = 0; learner < num_players; ++learner)
    for (int s = 0; s < num_players; ++s) {
      const bool learners =
          team ? team_of_seat(num_players, s) == team_of_seat(num_players, learner) : s == learner;
      if (!learners) others[learner].push_back(s);
    }
  if (static_cast<int>(twins.size()) != num_tables)
    throw std::invalid_argument("configure_episodes takes the twins of each of the " +
                                std::to_string(num_tables) + " tables, got " +
                                std::to_string(twins.size()));
  const size_t count = others[seat < 0 ? 0 : seat].size();
  for (int k = 0; k < num_tables; ++k) {
    if (twins[k].size() != count)
      throw std::invalid_argument("table " + std::to_string(k) + ": one twin per opponent seat (" +
                                  std::to_string(count) + "), got " +
                                  std::to_string(twins[k].size()));
    for (const bots::Bot* twin : twins[k])
      if (!twin) throw std::invalid_argument("table " + std::to_string(k) + ": a twin is None");
  }
  for (int learner = 0; learner < num_players; ++learner)  // every seat a drawn learner may take
    if ((seat < 0 || learner == seat) && others[learner].size() != count)
      throw std::invalid_argument("the learner's seats leave the tables " +
                                  std::to_string(others[learner].size()) + " or " +
                                  std::to_string(count) + " opponent seats");
  std::vector<std::unique_ptr<bots::Bot>> copies;
  copies.reserve(static_cast<size_t>(num_tables) * count);
  for (const auto& row : twins)
    for (const bots::Bot* twin : row) copies.push_back(twin->clone());
  episode_twins_ = std::move(copies);
  other_seats_ = std::move(others);
  num_opponents_ = static_cast<int>(count);
  fixed_seat_ = seat;
}

void Batch::set_generator(int k, const NumpyPcg64& generator) {
  check_table(k);
  generators_[k] = generator;
  has_generator_[k] = true;
}

const NumpyPcg64& Batch::generator(int k) const {
  check_table(k);
  if (!has_generator_[k])
    throw std::invalid_argument("table " + std::to_string(k) + " has no generator");
  return generators_[k];
}

void Batch::new_episodes(const std::vector<int>& tables,
                         const std::vector<const SeedValue*>& seeds) {
  if (num_opponents_ < 0) throw std::logic_error("new_episodes before configure_episodes");
  if (seeds.size() != tables.size())
    throw std::invalid_argument("new_episodes takes one seed (or None) per table");
  std::vector<bool> listed(num_tables, false);
  for (const int k : tables) {  // checked before anything changes
    check_table(k);
    if (listed[k]) throw std::invalid_argument("table " + std::to_string(k) + " is listed twice");
    listed[k] = true;
    if (!has_generator_[k])
      throw std::invalid_argument("table " + std::to_string(k) + " has no generator");
  }
  for (size_t i = 0; i < tables.size(); ++i) new_episode(tables[i], seeds[i]);
}

static_assert(1 <= SEED_BOUND && SEED_BOUND <= NumpyPcg64::MAX_BOUND,
              "table.py's SEED_BOUND is past the bounds NumpyPcg64::integers reproduces");

// One table's new episode (new_episodes): the draws of gym_vector.py's _start_episode and
// _deal_opponents, the deal seed, the deal, again while the episode ends in its deal.
void Batch::new_episode(int k, const SeedValue* given) {
  NumpyPcg64& rng = generators_[k];
  std::vector<const bots::Bot*> seat_bots(num_players);
  std::vector<int64_t> bot_seeds(num_players);
  for (int attempt = 0; attempt < MAX_REDEALS; ++attempt) {
    const int seat = fixed_seat_ >= 0 ? fixed_seat_ : static_cast<int>(rng.integers(num_players));
    learner_seat_[k] = seat;
    std::fill(seat_bots.begin(), seat_bots.end(), nullptr);
    std::fill(bot_seeds.begin(), bot_seeds.end(), 0);
    const std::vector<int>& others = other_seats_[seat];
    for (size_t i = 0; i < others.size(); ++i) {
      seat_bots[others[i]] = episode_twins_[static_cast<size_t>(k) * num_opponents_ + i].get();
      bot_seeds[others[i]] = rng.integers(SEED_BOUND);
    }
    redeals_[k] = attempt;
    if (attempt == 0 && given) {
      if (!given->as_int64(&deal_seed_[k])) deal_seed_[k] = 0;  // the caller holds it
      deal_table(k, *given, seat_bots, bot_seeds);
    } else {
      const int64_t drawn = rng.integers(SEED_BOUND);
      deal_seed_[k] = drawn;
      deal_table(k, SeedValue{false, {static_cast<uint32_t>(drawn)}}, seat_bots, bot_seeds);
    }
    if (episode_dealt(k)) return;
  }
  throw std::runtime_error("no deal in " + std::to_string(MAX_REDEALS) +
                           " in which the learner acts");
}

// batched_table.py BatchedTable._settle after a deal: the hands that end before the learner
// acts booked (dealt_rewards), a game's next hand dealt; whether the episode is on.
bool Batch::episode_dealt(int k) {
  double* booked = &dealt_rewards_[static_cast<size_t>(k) * num_players];
  const double* hand = &hand_rewards_[static_cast<size_t>(k) * num_players];
  std::fill(booked, booked + num_players, 0.0);
  while (hand_over_[k]) {
    for (int seat = 0; seat < num_players; ++seat) booked[seat] += hand[seat];
    if (episode_ == EpisodeMode::HAND || game_over_[k]) return false;
    next_hand_of(k);
  }
  return true;
}

// The learner's face: table k's view, whether its hand is over and, if so, how it ended.
void Batch::learner_table_settled(int k) {
  write_view(k);
  const GameState& s = games_[k]->s;
  hand_over_[k] = games_[k]->hand_over();
  if (!hand_over_[k]) return;
  int64_t* sheet_row = &hand_sheets_[static_cast<size_t>(k) * num_teams * SHEET_VALUES];
  for (int team = 0; team < num_teams; ++team, sheet_row += SHEET_VALUES) {
    const Sheet& sheet = s.hand_scores[team];  // SHEET_ROWS' order, then canastas
    int64_t* value = sheet_row;
#define CANASTA_SHEET_ROW(name) *value++ = sheet.name;
    CANASTA_SHEET_ROWS(CANASTA_SHEET_ROW)
#undef CANASTA_SHEET_ROW
    *value = sheet.canastas;
    game_scores_[static_cast<size_t>(k) * num_teams + team] = s.scores[team];
  }
  end_reason_[k] = s.end_reason;
  game_over_[k] = s.game_over;
  winner_team_[k] = s.winner_team;
  write_observation(*games_[k], static_cast<int>(acted_[k]), false,
                    final_obs_.get() + static_cast<size_t>(k) * OBS_SIZE);
  book_hand(s, reward_, reward_scale_, episode_,
            &hand_rewards_[static_cast<size_t>(k) * num_players]);
}

void Batch::step_learner(const int64_t* actions, const bool* play) {
  if (auto_deal_ && was_reset())
    throw std::logic_error("step_learner after reset: a batch dealt by reset steps by step");
  for (int k = 0; k < num_tables; ++k) {
    if (!play[k]) continue;
    if (!dealt(k))
      throw std::logic_error("step_learner before deal_table at table " + std::to_string(k));
    Game& game = *games_[k];
    const int64_t action = actions[k];
    if (game.hand_over() || action < 0 || action >= NUM_ACTIONS ||
        !game.is_legal(static_cast<int>(action)))
      throw IllegalAction(illegal_message(k, std::to_string(action)));
  }
  for (int k = 0; k < num_tables; ++k) {
    if (!play[k]) continue;
    acted_[k] = games_[k]->current_player();
    games_[k]->apply(static_cast<int>(actions[k]));
    play_bots(k);
    learner_table_settled(k);
  }
}

bool Batch::learner_legal(int k, int64_t action) {
  check_table(k);
  Game* game = games_.empty() ? nullptr : games_[k].get();
  return game && !game->hand_over() && action >= 0 && action < NUM_ACTIONS &&
         game->is_legal(static_cast<int>(action));
}

void Batch::set_bot(int table, int seat, const bots::Bot* bot) {
  if (table < 0 || table >= num_tables)
    throw std::invalid_argument("table " + std::to_string(table) + " is not in the batch");
  if (seat < 0 || seat >= num_players)
    throw std::invalid_argument("seat " + std::to_string(seat) + " is not at the table");
  std::unique_ptr<bots::Bot>* row = &bots_[static_cast<size_t>(table) * num_players];
  int others = 0;
  for (int s = 0; s < num_players; ++s)
    if (s != seat && row[s]) ++others;
  if (bot && others == num_players - 1)
    throw std::invalid_argument("table " + std::to_string(table) +
                                ": every seat played by a bot leaves no seat to step");
  row[seat] = bot ? bot->clone() : nullptr;
  if (bot && was_reset()) row[seat]->reset(seat, num_players, rules_);
}

void Batch::reset_bots(int k) {
  std::unique_ptr<bots::Bot>* row = &bots_[static_cast<size_t>(k) * num_players];
  for (int seat = 0; seat < num_players; ++seat)
    if (row[seat]) row[seat]->reset(seat, num_players, rules_);
}

// The bots' seats played until a seat without a bot is to act; a hand they end is paid and
// dealt again (hand_ended), as after a step.
void Batch::play_bots(int k) {
  std::unique_ptr<bots::Bot>* row = &bots_[static_cast<size_t>(k) * num_players];
  while (true) {
    Game& game = *games_[k];
    if (game.hand_over()) return;
    const int seat = game.current_player();
    bots::Bot* bot = row[seat].get();
    if (!bot) return;
    int count;
    const int16_t* legal = game.legal_actions(&count);
    if (count == 0) return;  // a position loaded into the game (game_at) may leave none
    write_observation(game, seat, true, bot_obs_.get());
    game.apply(bot->act(bot_obs_.get(), legal, count));
    if (game.hand_over() && auto_deal_) hand_ended(k);  // the learner's face: its caller's
  }
}

std::shared_ptr<Game> Batch::deal(int64_t* deal_number) {
  for (int attempt = 0; attempt < MAX_REDEALS; ++attempt) {
    *deal_number = next_deal_;
    const std::vector<uint32_t> key = seed_.key(static_cast<uint64_t>(next_deal_));
    ++next_deal_;
    auto game = std::make_shared<Game>(rules_, rules_name_, num_players,
                                       python_seeded_rng(key.data(), static_cast<int>(key.size())),
                                       nullptr);
    if (!game->hand_over()) return game;
  }
  throw std::runtime_error("no deal in " + std::to_string(MAX_REDEALS) + " in which a seat acts");
}

void Batch::reset(SeedValue seed) {
  auto_deal_ = true;
  if (seed.magnitude.empty()) seed.magnitude.push_back(0);
  seed_ = std::move(seed);
  next_deal_ = 0;
  std::vector<std::shared_ptr<Game>> games;
  std::vector<int64_t> numbers(num_tables);
  games.reserve(num_tables);
  for (int k = 0; k < num_tables; ++k) games.push_back(deal(&numbers[k]));
  games_ = std::move(games);
  finished_.assign(num_tables, nullptr);
  deal_numbers_ = std::move(numbers);
  std::fill(rewards_.get(), rewards_.get() + static_cast<size_t>(num_tables) * num_players, 0.0f);
  std::fill(paid_.begin(), paid_.end(), 0.0);
  std::fill(done_.get(), done_.get() + num_tables, false);
  for (int k = 0; k < num_tables; ++k) {
    reset_bots(k);
    play_bots(k);
    write_view(k);
  }
}

void Batch::write_view(int k) {
  Game& game = *games_[k];
  const bool to_act = !game.hand_over();
  // the whole row rewritten (whatever a caller wrote into it), from the legal id list
  // rather than a copy of the game's mask: a finished hand lists none
  int8_t* row = mask_.get() + static_cast<size_t>(k) * NUM_ACTIONS;
  std::memset(row, 0, NUM_ACTIONS);
  int count;
  const int16_t* legal = game.legal_actions(&count);
  for (int i = 0; i < count; ++i) row[legal[i]] = 1;
  seat_[k] = game.current_player();
  write_observation(game, game.current_player(), to_act,
                    obs_.get() + static_cast<size_t>(k) * OBS_SIZE);
}

int Batch::first_illegal(const int64_t* actions) {
  for (int k = 0; k < num_tables; ++k) {
    Game& game = *games_[k];
    if (game.hand_over()) continue;  // an ended episode's entry is ignored
    const int64_t action = actions[k];
    // asked of the game, not of the mask row a caller may have written into
    if (action < 0 || action >= NUM_ACTIONS || !game.is_legal(static_cast<int>(action))) return k;
  }
  return -1;
}

void Batch::check_step() const {
  if (!was_reset()) throw std::logic_error("step before reset");
  if (!auto_deal_) throw std::logic_error("step after deal_table: the learner's face steps by step_learner");
}

void Batch::step(const int64_t* actions) {
  check_step();
  const int bad = first_illegal(actions);
  if (bad >= 0) throw IllegalAction(illegal_message(bad, std::to_string(actions[bad])));
  std::fill(rewards_.get(), rewards_.get() + static_cast<size_t>(num_tables) * num_players, 0.0f);
  std::fill(paid_.begin(), paid_.end(), 0.0);
  std::fill(done_.get(), done_.get() + num_tables, false);
  std::fill(finished_.begin(), finished_.end(), nullptr);
  for (int k = 0; k < num_tables; ++k) {
    Game& game = *games_[k];
    if (game.hand_over()) continue;  // an ended episode that was not dealt again
    game.apply(static_cast<int>(actions[k]));
    if (game.hand_over()) hand_ended(k);
    play_bots(k);
    write_view(k);
  }
}

std::string Batch::illegal_message(int table, const std::string& action) const {
  return "table " + std::to_string(table) + ": illegal action " + action + " for seat " +
         std::to_string(seat_[table]);
}

// Pay the hand(s) that ended, as the env does, and deal what comes next.
void Batch::hand_ended(int k) {
  Game* game = games_[k].get();
  std::fill(earned_.begin(), earned_.end(), 0.0);
  bool over = true;
  while (true) {
    const bool ends = book_hand(game->s, reward_, reward_scale_, episode_, booked_.data());
    for (int seat = 0; seat < num_players; ++seat) earned_[seat] += booked_[seat];
    if (ends) break;
    game->next_hand(nullptr);
    if (!game->hand_over()) {
      over = false;
      break;
    }
  }
  float* row = rewards_.get() + static_cast<size_t>(k) * num_players;
  double* paid = &paid_[static_cast<size_t>(k) * num_players];
  for (int seat = 0; seat < num_players; ++seat) {
    paid[seat] += earned_[seat];  // a second hand ended in this step (by bots) adds to the first
    row[seat] = static_cast<float>(paid[seat]);
  }
  if (!over) return;
  done_[k] = true;
  finished_[k] = games_[k];
  games_[k] = deal(&deal_numbers_[k]);
  reset_bots(k);
}

}  // namespace canasta
