// agents/greedy.py in C++ (bot.hpp GreedyBot): no memory, no randomness.
#include <stdexcept>

#include "bot.hpp"

namespace canasta {
namespace bots {

void Bot::reset(int, int, std::shared_ptr<const Rules> rules) {
  rules_ = std::move(rules);
  acted = false;
}

const Rules& Bot::rules(const char* agent) const {
  if (!rules_)
    throw std::logic_error(NOT_RESET_BEFORE + std::string(agent) + NOT_RESET_AFTER);  // base.py's
  return *rules_;
}

Key meld_all_key(const View& view, int action) {
  const Move& move = MOVES[action];
  Key key;
  const int cards = move_cards(move), wilds = move_wilds(move);
  if (move.kind == MOVE_RUN) return key << 5 << cards << 0 << 0 << -action;  // S-19 run first
  const int before = view.me().meld_size(move.slot);
  const int after = before + cards;
  if (wilds == 0) return key << 4 << cards << after << move_points(move) << -action;
  if (before < CANASTA_SIZE && CANASTA_SIZE <= after)
    return key << 3 << -wilds << after << move.twos << -action;
  if (move.is_new) return key << 1 << move.naturals << -wilds << move.twos << -action;
  if (after < CANASTA_SIZE) return key << 2 << after << move.twos << -action;
  return key << 0 << -after << move.twos << -action;
}

int GreedyBot::act(const float* observation, const int16_t* legal, int count) {
  const Rules& table_rules = rules("GreedyAgent");
  acted = true;
  return greedy_move(observation, legal, count, view_, legal_,
                     [&](const View& view, const std::vector<int>& discard_ids) {
                       return choose_discard(view, discard_ids, table_rules);
                     });
}

int GreedyBot::choose_discard(const View& view, const std::vector<int>& discard_ids,
                              const Rules& rules) {
  if (discard_ids.empty()) throw std::logic_error("min() arg is an empty sequence");
  const Unseen unseen = unseen_counts(view, rules);
  // greedy.py POT_LOSS_BASE, POT_LOSS_PER_CARD: what handing the pot to the next player costs
  const double pot_loss = POT_LOSS_BASE + POT_LOSS_PER_CARD * static_cast<double>(view.pot_size + 1);
  // min(discard_ids, key=(cost, action)): the lowest cost, then the lowest id
  int best = -1;
  double best_cost = 0.0;
  for (int action : discard_ids) {
    const int kind = MOVES[action].slot;  // the kind discarded
    const double risk = take_probability(view, kind, rules, unseen);
    const double cost = keep_value(view, kind, unseen) + risk * pot_loss;
    if (best < 0 || cost < best_cost) best = action, best_cost = cost;
  }
  return best;
}

double GreedyBot::keep_value(const View& view, int kind, const Unseen& unseen) {
  if (kind == BLACK3) return -100.0;  // C-12: blocks the next player; worth nothing in hand
  if (kind == TWO || kind == JOKER) return 1000.0 + CARD_VALUES[kind];
  const int count = view.hand[kind];
  const double value = static_cast<double>(CARD_VALUES[kind]);
  if (view.me().has_meld(kind)) return 45.0 + value;
  if (count >= 2) return 15.0 * count + value;  // a pair takes the pot
  return value + 3.0 * (unseen.count[kind] < 4 ? unseen.count[kind] : 4);  // may still pair up
}

}  // namespace bots
}  // namespace canasta
