// agents/styles.py in C++ (bot.hpp StyledBot): the families' draws, in the order the
// Python functions draw, from the bot's own generator (PyRandom, CPython's random.Random).
#include <stdexcept>
#include <string>

#include "bot.hpp"

namespace canasta {
namespace bots {

int family_index(const std::string& family) {
  for (int i = 0; i < NUM_FAMILIES; ++i)
    if (family == FAMILY_NAMES[i]) return i;
  return -1;
}

// ---------------------------------------------------------------------- the families
namespace {

// _expert_numbers: every number of the expert's strategy, drawn around the tuned ones
ExpertParams expert_numbers(PyRandom& rng, int num_players) {
  ExpertParams p = default_params(num_players);
  p.small_pot = static_cast<double>(rng.randint(5, 11));
  p.pot_loss_base = rng.uniform(10.0, 40.0);
  p.pot_loss_per_card = rng.uniform(300.0, 700.0);
  p.behind_pot_factor = rng.uniform(1.0, 1.6);
  p.recent_discount = rng.uniform(0.4, 0.8);
  p.pair_keep = rng.uniform(35.0, 65.0);
  p.meld_keep = rng.uniform(30.0, 60.0);
  p.two_keep = rng.uniform(-10.0, 20.0);
  p.joker_keep = rng.uniform(100.0, 160.0);
  p.black3_keep = rng.uniform(0.0, 40.0);
  p.black3_keep_penalised = rng.uniform(-80.0, -40.0);
  p.wild_take_factor = rng.uniform(0.3, 0.7);
  p.far_behind = rng.uniform(100.0, 250.0);
  p.race_wild_meld = static_cast<double>(rng.randint(4, 5));
  p.race_take_pot = static_cast<double>(rng.randint(8, 12));
  return p;
}

StyleParams with_expert(const ExpertParams& expert) {
  StyleParams style;
  style.expert = expert;
  return style;
}

StyleParams tuned(PyRandom& rng, int num_players) {
  return with_expert(expert_numbers(rng, num_players));
}

StyleParams racer(PyRandom& rng, int num_players) {
  ExpertParams numbers = expert_numbers(rng, num_players);
  numbers.race = true;
  numbers.race_wild_meld = 4;
  numbers.race_take_pot = static_cast<double>(rng.randint(6, 10));
  StyleParams style = with_expert(numbers);
  style.always_go_out = true;
  return style;
}

StyleParams melder(PyRandom& rng, int num_players) {
  StyleParams style = with_expert(expert_numbers(rng, num_players));
  style.meld_all = true;
  return style;
}

StyleParams taker(PyRandom& rng, int num_players) {
  ExpertParams numbers = expert_numbers(rng, num_players);
  numbers.small_pot = static_cast<double>(rng.randint(0, 2));  // a wild card on (almost) any pot
  numbers.race_take_pot = 2;  // racing, it still takes every pot
  numbers.pair_keep = rng.uniform(70.0, 110.0);  // pairs take pots
  numbers.pot_loss_per_card = rng.uniform(150.0, 350.0);
  return with_expert(numbers);
}

StyleParams noisy(PyRandom& rng, int num_players) {
  StyleParams style = with_expert(default_params(num_players));
  style.greedy = true;
  style.pot_loss_base = rng.uniform(30.0, 70.0);
  style.pot_loss_per_card = rng.uniform(10.0, 40.0);
  style.discard_noise = rng.uniform(5.0, 30.0);
  return style;
}

StyleParams builder(PyRandom& rng, int num_players) {
  ExpertParams numbers = expert_numbers(rng, num_players);
  numbers.race = false;
  numbers.small_pot = static_cast<double>(rng.randint(4, 8));
  StyleParams style = with_expert(numbers);
  style.go_out_canastas = static_cast<int>(rng.randint(2, 3));
  return style;
}

StyleParams controller(PyRandom& rng, int num_players) {
  ExpertParams numbers = expert_numbers(rng, num_players);
  numbers.pot_loss_base = rng.uniform(60.0, 120.0);
  numbers.pot_loss_per_card = rng.uniform(900.0, 1500.0);
  numbers.behind_pot_factor = rng.uniform(1.4, 2.0);
  numbers.black3_keep = rng.uniform(-40.0, 0.0);  // a black 3 blocks the next player
  numbers.recent_discount = rng.uniform(0.3, 0.6);
  StyleParams style = with_expert(numbers);
  style.min_take_pot = static_cast<int>(rng.randint(3, 6));
  return style;
}

StyleParams naive(PyRandom& rng, int num_players) {
  StyleParams style = with_expert(default_params(num_players));
  style.naive = true;
  style.naive_take_pot = rng.random() < 0.5 ? 0 : static_cast<int>(rng.randint(2, 6));
  style.naive_wild_first = rng.random() < 0.25;
  style.naive_keep_wild = rng.uniform(60.0, 400.0);
  style.naive_keep_count = rng.uniform(5.0, 40.0);
  style.naive_keep_value = rng.uniform(-1.5, 1.0);
  style.discard_noise = rng.uniform(0.0, 15.0);
  return style;
}

// FAMILIES, in FAMILY_NAMES' order: the draw of each family by its name (a family styles.py
// adds, drops or renames fails to compile here until it has its draw)
#define CANASTA_FAMILY_DRAW(family) family,
StyleParams (*const FAMILY_DRAWS[NUM_FAMILIES])(PyRandom&, int) = {CANASTA_STYLE_FAMILIES(CANASTA_FAMILY_DRAW)};
#undef CANASTA_FAMILY_DRAW

}  // namespace

// ---------------------------------------------------------------------- the bot

StyledBot::StyledBot(int family, const PyRandom& rng)
    : ExpertBot(nullptr, family < 0 ? STYLED : std::string(STYLE_PREFIX) + FAMILY_NAMES[family]),
      family_given_(family),
      family_(family < 0 ? TRAINING_FAMILIES[0] : family),  // until the first reset
      rng_(rng) {
  style_ = with_expert(params);
}

void StyledBot::reset(int seat, int num_players, std::shared_ptr<const Rules> rules) {
  ExpertBot::reset(seat, num_players, std::move(rules));
  if (family_given_ >= 0) {
    family_ = family_given_;
  } else {  // rng.choice(TRAINING_STYLES)
    family_ = TRAINING_FAMILIES[rng_.rng.randbelow(NUM_TRAINING_FAMILIES)];
  }
  style_ = FAMILY_DRAWS[family_](rng_, num_players);
  params = style_.expert;
}

int StyledBot::act(const float* observation, const int16_t* legal, int count) {
  if (rules_ && style_.greedy) {
    acted = true;
    const Rules& table_rules = *rules_;
    return greedy_move(observation, legal, count, view_, legal_,
                       [&](const View& view, const std::vector<int>& discard_ids) {
                         return noisy_discard(view, discard_ids, table_rules);
                       });
  }
  if (style_.naive) {
    acted = true;
    return naive_act(observation, legal, count);
  }
  return ExpertBot::act(observation, legal, count);
}

// ------------------------------------------------------------------ the expert, changed
int StyledBot::draw_phase(const View& view, const std::vector<int>& draw_ids, const Rules& rules) {
  bool takes = false, may_draw = false;
  for (int a : draw_ids) {
    if (a == DRAW) may_draw = true;
    if (a == TAKE || a == TAKE_WITH_TWO || a == TAKE_WITH_JOKER || a == TAKE_ONTO_MELD) takes = true;
  }
  if (takes && may_draw && view.pot_size < style_.min_take_pot)
    return DRAW;  // controller: a small pot is not worth the cards it gives away
  return ExpertBot::draw_phase(view, draw_ids, rules);
}

int StyledBot::choose_meld(const View& view, const std::vector<int>& meld_ids,
                           const std::vector<int>& discard_ids, const Rules& rules) {
  if (style_.meld_all && !meld_ids.empty() && view.me().opened) {
    return first_max(meld_ids, [&](int id) { return meld_all_key(view, id); });
  }
  return ExpertBot::choose_meld(view, meld_ids, discard_ids, rules);
}

bool StyledBot::want_go_out(const View& view, const Rules& rules) {
  if (style_.always_go_out) return true;
  if (view.me().canastas < style_.go_out_canastas) {
    if (view.stock <= 2 * view.num_players * view.draw_count) return true;  // ends soon anyway
    // out only to take a lead before the other side goes out itself
    return opponent_can_go_out(view, rules) && hand_margin(view, rules, true) > 0;
  }
  return ExpertBot::want_go_out(view, rules);
}

// ------------------------------------------------------------------ the greedy bot, noisy
int StyledBot::noisy_discard(const View& view, const std::vector<int>& discard_ids,
                             const Rules& rules) {
  if (discard_ids.empty()) throw std::logic_error("min() arg is an empty sequence");
  const Unseen unseen = unseen_counts(view, rules);
  const double pot_loss =
      style_.pot_loss_base + style_.pot_loss_per_card * static_cast<double>(view.pot_size + 1);
  int best = -1;
  double best_cost = 0.0;
  for (int action : discard_ids) {  // one noise draw per legal discard, in order
    const int kind = MOVES[action].slot;  // the kind discarded
    const double risk = take_probability(view, kind, rules, unseen);
    const double keep = GreedyBot::keep_value(view, kind, unseen);
    const double cost = keep + risk * pot_loss + rng_.gauss(0.0, style_.discard_noise);
    if (best < 0 || cost < best_cost) best = action, best_cost = cost;
  }
  return best;
}

// ------------------------------------------------------------------ the naive bot
int StyledBot::naive_act(const float* observation, const int16_t* legal, int count) {
  decode_view(observation, &view_);
  const View& view = view_;
  for (int i = 0; i < count; ++i) {  // takes[0], ids ascending
    if (legal[i] >= TAKE && legal[i] <= TAKE_ONTO_MELD) {
      if (view.pot_size >= style_.naive_take_pot) return legal[i];
      break;
    }
  }
  const int sign = style_.naive_wild_first ? -1 : 1;
  int best = -1, best_value = 0;
  for (int i = 0; i < count; ++i) {  // min(melds, key=sign * wilds): the first of the best
    if (legal[i] < ADD_NATURAL) continue;
    const int value = sign * move_wilds(MOVES[legal[i]]);
    if (best < 0 || value < best_value) best = legal[i], best_value = value;
  }
  if (best >= 0) return best;
  double best_score = 0.0;
  for (int i = 0; i < count; ++i) {  // one noise draw per legal discard, in order
    const int action = legal[i];
    if (action < DISCARD || action >= ADD_NATURAL) continue;
    const int kind = action - DISCARD;
    const double score = style_.naive_keep_wild * static_cast<double>(is_wild(kind) ? 1 : 0) +
                         style_.naive_keep_count * static_cast<double>(view.hand[kind]) +
                         style_.naive_keep_value * static_cast<double>(CARD_VALUES[kind]) +
                         rng_.gauss(0.0, style_.discard_noise);
    if (best < 0 || score < best_score) best = action, best_score = score;
  }
  if (best >= 0) return best;
  for (int i = 0; i < count; ++i)
    if (legal[i] == DRAW) return DRAW;
  return legal[0];
}

// ---------------------------------------------------------------------- by name

std::unique_ptr<Bot> make_bot(const std::string& name, const ParamValues* params,
                              const PyRandom* rng) {
  if (params && name != EXPERT_NAME)
    throw std::invalid_argument("only the expert takes parameters, not '" + name + "'");
  if (name == GREEDY_NAME) return std::make_unique<GreedyBot>();
  if (name == RANDOM_NAME) {
    if (!rng) throw std::invalid_argument("the random bot needs its generator's state");
    return std::make_unique<RandomBot>(*rng);
  }
  if (name == EXPERT_NAME) {
    if (!params) return std::make_unique<ExpertBot>();
    const ExpertParams given = ExpertParams::from_values(*params);
    return std::make_unique<ExpertBot>(&given);
  }
  int family = -2;
  const size_t prefix = std::char_traits<char>::length(STYLE_PREFIX);
  if (name == STYLED) family = -1;
  if (name.rfind(STYLE_PREFIX, 0) == 0) {
    family = family_index(name.substr(prefix));
    if (family < 0) throw std::invalid_argument("unknown style '" + name.substr(prefix) + "'");
  }
  if (family == -2) throw std::invalid_argument("no house bot '" + name + "' in the core");
  if (!rng) throw std::invalid_argument("a styled bot needs its generator's state");
  return std::make_unique<StyledBot>(family, *rng);
}

}  // namespace bots
}  // namespace canasta
