// agents/expert.py in C++ (bot.hpp ExpertBot), method by method.
#include <stdexcept>

#include "../melds.hpp"
#include "bot.hpp"

namespace canasta {
namespace bots {

namespace {
// A number given by name, as its field holds it: a flag is set by any number but 0.
void set_param(bool& field, double value) { field = value != 0.0; }
void set_param(double& field, double value) { field = value; }
}  // namespace

ExpertParams ExpertParams::from_values(const ParamValues& values) {
  ExpertParams p;
  for (const auto& [name, value] : values) {
    bool found = false;
#define CANASTA_EXPERT_PARAM(field, type, default_value) \
  if (name == #field) set_param(p.field, value), found = true;
    CANASTA_EXPERT_PARAMS(CANASTA_EXPERT_PARAM)
#undef CANASTA_EXPERT_PARAM
    if (!found) throw std::invalid_argument("ExpertParams has no field '" + name + "'");
  }
  return p;
}

// default_params(num_players): 2 players race (TWO_PLAYER_PARAMS, generated)
ExpertParams default_params(int num_players) {
  ExpertParams params;
  if (num_players == 2) {
#define CANASTA_TWO_PLAYER_PARAM(field, value) params.field = value;
    CANASTA_TWO_PLAYER_PARAMS(CANASTA_TWO_PLAYER_PARAM)
#undef CANASTA_TWO_PLAYER_PARAM
  }
  return params;
}

ExpertBot::ExpertBot(const ExpertParams* given, std::string bot_name)
    : Bot(std::move(bot_name)), params(given ? *given : ExpertParams()), has_given_(given != nullptr) {
  if (given) given_ = *given;
  forget();
}

void ExpertBot::reset(int seat, int num_players, std::shared_ptr<const Rules> rules) {
  Bot::reset(seat, num_players, std::move(rules));
  params = has_given_ ? given_ : default_params(num_players);
  forget();
}

void ExpertBot::forget() {
  has_hand_number_ = false;
  has_pot_after_discard_ = false;
  pot_size_after_discard_ = 0;
  for (bool& kind : recent_) kind = false;
}

// ------------------------------------------------------------------ entry point
int ExpertBot::act(const float* observation, const int16_t* legal, int count) {
  const Rules& table_rules = rules("ExpertAgent");
  acted = true;
  decode_view(observation, &view_);
  legal_.split(legal, count);
  return expert_act(view_, table_rules);
}

int ExpertBot::expert_act(const View& view, const Rules& rules) {
  if (!has_hand_number_ || view.hand_number != hand_number_) {
    forget();
    has_hand_number_ = true;
    hand_number_ = view.hand_number;
  }
  if (!legal_.draw.empty()) {
    remember_recent(view);
    return draw_phase(view, legal_.draw, rules);
  }
  const int move = choose_meld(view, legal_.melds, legal_.discards, rules);
  if (move >= 0) return move;
  const int action = choose_discard(view, legal_.discards, rules);
  const int kind = MOVES[action].slot;  // the kind discarded
  for (int k = 0; k < NUM_KINDS; ++k) pot_after_discard_[k] = view.pot_known[k];
  pot_after_discard_[kind] += 1;
  has_pot_after_discard_ = true;
  pot_size_after_discard_ = view.pot_size + 1;
  return action;
}

bool ExpertBot::racing(const Rules& rules) const {
  return params.race && rules.go_out_min_canastas <= 1 && !rules.go_out_needs_clean_and_dirty;
}

void ExpertBot::remember_recent(const View& view) {
  for (int k = 0; k < NUM_HAND_KINDS; ++k) {
    if (!has_pot_after_discard_)
      recent_[k] = false;
    else if (view.pot_size >= pot_size_after_discard_)
      recent_[k] = view.pot_known[k] > pot_after_discard_[k];
    else  // the pot was taken since: what lies on it now came after the take
      recent_[k] = view.pot_known[k] > 0;
  }
}

// ------------------------------------------------------------------ draw phase
namespace {
bool contains(const std::vector<int>& ids, int action) {
  for (int a : ids)
    if (a == action) return true;
  return false;
}
}  // namespace

int ExpertBot::draw_phase(const View& view, const std::vector<int>& draw_ids, const Rules& rules) {
  int takes[4], num_takes = 0;
  for (int action : TAKE_PREFERENCE)
    if (contains(draw_ids, action)) takes[num_takes++] = action;
  const bool may_draw = contains(draw_ids, DRAW);
  if (contains(draw_ids, PASS) && !may_draw && hand_margin(view, rules, false) > 0)
    return PASS;  // C-16, S-17: the stock is out and we lead: end the hand
  if (num_takes && may_draw && 2 <= view.pot_size && view.pot_size < params.race_take_pot &&
      view.me().canastas > 0 && racing(rules))
    return DRAW;  // racing: the pot's cards would keep us from going out
  if (num_takes) {
    const int best = takes[0];
    if (best == TAKE_ONTO_MELD || best == TAKE || !may_draw) return best;
    if (view.pot_size > params.small_pot) return best;  // worth a wild card
  }
  if (may_draw) return DRAW;
  return num_takes ? takes[0] : draw_ids[0];
}

// ------------------------------------------------------------------ melding
int ExpertBot::choose_meld(const View& view, const std::vector<int>& meld_ids,
                           const std::vector<int>& discard_ids, const Rules& rules) {
  if (meld_ids.empty()) return -1;
  if (!view.me().opened) {  // C-9: an unopened team faces a frozen pot: open at once
    return first_max(meld_ids, [&](int id) { return opening_key(view, id, rules); });
  }
  const bool want_out = want_go_out(view, rules);
  if (want_out && view.may_go_out) {  // meld everything: out this turn or the next
    return first_max(meld_ids, [&](int id) { return biggest_meld_key(view, id); });
  }
  std::vector<int> kept;
  const std::vector<int>* candidates = &meld_ids;
  if (!want_out) {  // keep two cards: a move that empties the hand would go out
    const int hand_size = view.hand_size();
    for (int a : meld_ids)
      if (hand_size - move_cards(MOVES[a]) >= 2) kept.push_back(a);
    if (!kept.empty())
      candidates = &kept;
    else if (!discard_ids.empty())
      return -1;
  }
  // max((score, biggest_meld_key, action)): the key ends in -action, so no two tie
  int best = -1;
  double best_score = 0.0;
  Key best_key;
  for (int a : *candidates) {
    const double score = meld_score(view, a, rules);
    const Key key = biggest_meld_key(view, a);
    if (best < 0 || score > best_score || (score == best_score && best_key < key))
      best = a, best_score = score, best_key = key;
  }
  if (best_score > 0 || discard_ids.empty()) return best;
  return -1;
}

Key ExpertBot::opening_key(const View& view, int action, const Rules& rules) const {
  const Move& move = MOVES[action];
  const bool hidden = move.is_new && move_cards(move) == rules.canasta_size &&
                      rules.hidden_canasta_bonus > 0;  // S-10
  const Key tail = biggest_meld_key(view, action);
  Key key;
  key << hidden << -move_wilds(move);
  for (int i = 0; i < tail.size; ++i) key << tail.item[i];
  return key;
}

double ExpertBot::meld_score(const View& view, int action, const Rules& rules) const {
  const Move& move = MOVES[action];
  if (move.kind == MOVE_RUN) return 1000.0;  // S-19: a run's bonus, once the team has a canasta
  const TeamView& me = view.me();
  const int slot = move.slot, cards = move_cards(move);
  const int64_t size = rules.canasta_size;
  if (move.is_new && cards == size && rules.hidden_canasta_bonus) return 500.0;  // S-10
  if (slot == SLOT_BLACK3) {
    if (rules.black3_canasta_wins_game && me.meld_size(slot) + cards >= size)
      return 10000.0;  // S-11: the game is won
    return rules.black3_in_hand_penalty > CARD_VALUES[BLACK3] ? 80.0 : -10.0;
  }
  if (slot == SLOT_WILD) {
    if (move.is_new) return cards >= size ? 400.0 : -20.0;
    return 60.0;
  }
  if (move_wilds(move) == 0) {
    if (!move.is_new) return 100.0;  // grow a meld toward a canasta
    if (params.hold_triples_when_frozen && view.pot_wild())
      return -5.0;  // C-10: keep them in hand to take the frozen pot
    return 80.0 + cards;
  }
  if (move.is_new) return -10.0;  // keep the pair (and the wild card) for a pot take
  return wild_on_meld_score(view, move, rules);
}

double ExpertBot::wild_on_meld_score(const View& view, const Move& move, const Rules& rules) const {
  const TeamView& me = view.me();
  const int slot = move.slot;
  const int current = me.meld_size(slot);
  const int64_t size = rules.canasta_size;
  const bool dirty = me.twos[slot] + me.jokers[slot] > 0;
  if (current >= size) return -50.0;  // already a canasta: a wild card adds only its value
  if (slot == ACE && !rules.rank_canasta_bonus.empty() && !dirty)
    return -40.0;  // I-12: keep the aces clean
  const int wilds_in_hand = view.hand[TWO] + view.hand[JOKER];
  const double twos_first = move.twos ? 20.0 : 0.0;  // spend 2s before jokers
  if (current + wilds_in_hand < size) {
    if (me.canastas == 0 && current >= params.race_wild_meld && racing(rules))
      return 60.0 + twos_first;  // racing: toward the first canasta now
    return -30.0;  // cannot finish it now: keep the wild cards
  }
  const bool needs_canasta =
      me.canastas == 0 || (rules.go_out_needs_clean_and_dirty && me.dirty == 0);
  if (dirty || needs_canasta) return 120.0 + twos_first;
  return -20.0;
}

// ------------------------------------------------------------------ timing
bool ExpertBot::want_go_out(const View& view, const Rules& rules) {
  if (racing(rules)) return true;
  const double margin = hand_margin(view, rules, true);
  if (margin > 0) return true;
  if (margin > -params.far_behind && opponent_can_go_out(view, rules)) return true;
  return view.stock <= 2 * view.num_players * view.draw_count;
}

bool ExpertBot::opponent_can_go_out(const View& view, const Rules& rules) const {
  for (int t = 1; t < view.num_teams; ++t) {
    const TeamView& team = view.teams[t];
    if (canastas_let_go_out(rules, team.canastas, team.clean, team.dirty)) return true;
  }
  return false;
}

// ------------------------------------------------------------------ discarding
int ExpertBot::choose_discard(const View& view, const std::vector<int>& discard_ids,
                              const Rules& rules) {
  if (discard_ids.empty()) throw std::logic_error("min() arg is an empty sequence");
  const Unseen unseen = unseen_counts(view, rules);
  const bool behind = hand_margin(view, rules, false) < 0;
  double pot_loss =
      params.pot_loss_base + params.pot_loss_per_card * static_cast<double>(view.pot_size + 1);
  if (behind) pot_loss *= params.behind_pot_factor;
  int best = -1;
  double best_cost = 0.0;
  for (int action : discard_ids) {  // min((cost, action))
    const int kind = MOVES[action].slot;  // the kind discarded
    const double keep = keep_value(view, kind, rules, unseen);
    const double risk = take_probability_of(view, kind, rules, unseen);
    const double cost = keep + risk * pot_loss;
    if (best < 0 || cost < best_cost) best = action, best_cost = cost;
  }
  return best;
}

double ExpertBot::keep_value(const View& view, int kind, const Rules& rules,
                             const Unseen& unseen) const {
  if (kind == BLACK3) {
    if (rules.black3_in_hand_penalty > CARD_VALUES[BLACK3]) {
      if (rules.black3_canasta_wins_game && view.hand[BLACK3] + view.me().meld_size(SLOT_BLACK3) >= 5)
        return 200.0;  // S-11: collecting black 3s for the game-winning canasta
      return params.black3_keep_penalised;
    }
    return params.black3_keep;
  }
  if (kind == TWO) return params.two_keep;
  if (kind == JOKER) return params.joker_keep;
  const int count = view.hand[kind];
  const double value = static_cast<double>(CARD_VALUES[kind]);
  double keep;
  if (view.me().has_meld(kind))
    keep = params.meld_keep + value;
  else if (count >= 2)
    keep = params.pair_keep + 15.0 * count + value;
  else
    keep = value + 3.0 * (unseen.count[kind] < 4 ? unseen.count[kind] : 4);
  if (kind == ACE && !rules.rank_canasta_bonus.empty()) keep += 10.0;  // I-12: aces canastas
  return keep;
}

double ExpertBot::take_probability_of(const View& view, int kind, const Rules& rules,
                                      const Unseen& unseen) const {
  double discount = 1.0;
  if (kind < NUM_HAND_KINDS && recent_[kind] && view.num_players == 2)
    discount = params.recent_discount;  // exact: only they discarded since
  return take_probability(view, kind, rules, unseen, params.wild_take_factor, discount);
}

}  // namespace bots
}  // namespace canasta
