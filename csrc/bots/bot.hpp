// The house bots in the core: the mirror of agents/greedy.py (GreedyBot), agents/expert.py
// (ExpertBot) and agents/styles.py (StyledBot), class by class and method by method, with
// agents/base.py's interface: reset(seat, num_players, rules) before each hand (or game),
// then act(observation, legal ids) -> one legal id.
//
// A bot reads exactly what the Python bot reads: the seat's observation, decoded as
// decode_view decodes it (view.hpp), and the legal ids of its mask, ascending. It keeps
// the same memory across decisions (the expert's pot after its discard, the kinds
// discarded since, the hand number) and draws from the same generator (a styled bot's
// random.Random, loaded from the Python generator's state: PyRandom). Same observations
// in, same moves out, bit for bit (tests/test_core_bots.py).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "../rules.hpp"
#include "heuristics.hpp"
#include "view.hpp"

namespace canasta {
namespace bots {

// Numbers of a bot given by name (an ExpertParams field -> its value; bools 0 or 1).
using ParamValues = std::map<std::string, double>;

class Bot {
 public:
  explicit Bot(std::string bot_name) : name(std::move(bot_name)) {}
  virtual ~Bot() = default;
  virtual std::unique_ptr<Bot> clone() const = 0;

  // agents/base.py Agent.reset: before each hand (or game), with the table's rules (the
  // core's, resolved for the player count).
  virtual void reset(int seat, int num_players, std::shared_ptr<const Rules> rules);
  // agents/base.py Agent.act: the action for the seat whose observation this is; `legal`
  // are the mask's legal ids, ascending (count >= 1).
  virtual int act(const float* observation, const int16_t* legal, int count) = 0;

  // whether act reads the observation (all but the random bot): then an observation from
  // outside the core is checked before act (check_observation)
  virtual bool reads_observation() const { return true; }

  const std::string name;
  bool acted = false;  // act was called since the last reset
  // the generator of a bot that draws (styled bots), else null
  virtual PyRandom* generator() { return nullptr; }

 protected:
  std::shared_ptr<const Rules> rules_;
  const Rules& rules(const char* agent) const;  // throws agents/base.py's NOT_RESET before reset
  View view_;     // scratch: the decoded observation
  Legal legal_;   // scratch: the legal ids split
};

// ---------------------------------------------------------------------- agents/base.py

// RandomAgent: a legal id drawn uniformly, legal[rng.randrange(len(legal))], from its own
// random.Random (randrange(n) is _randbelow(n), rng.hpp's randbelow).
class RandomBot : public Bot {
 public:
  explicit RandomBot(const PyRandom& rng) : Bot(RANDOM_NAME), rng_(rng) {}
  std::unique_ptr<Bot> clone() const override { return std::make_unique<RandomBot>(*this); }
  int act(const float*, const int16_t* legal, int count) override {
    acted = true;
    return legal[rng_.rng.randbelow(static_cast<uint32_t>(count))];
  }
  PyRandom* generator() override { return &rng_; }
  bool reads_observation() const override { return false; }

 private:
  PyRandom rng_;
};

// ---------------------------------------------------------------------- agents/greedy.py

// GreedyAgent: takes every pot it can, melds everything it can, discards its least useful card.
class GreedyBot : public Bot {
 public:
  GreedyBot() : Bot(GREEDY_NAME) {}
  std::unique_ptr<Bot> clone() const override { return std::make_unique<GreedyBot>(*this); }
  int act(const float* observation, const int16_t* legal, int count) override;

  static int choose_discard(const View& view, const std::vector<int>& discard_ids, const Rules& rules);
  static double keep_value(const View& view, int kind, const Unseen& unseen);
};

Key meld_all_key(const View& view, int action);

// greedy_move: take or draw, meld everything (meld_all_key), else the discard that
// `choose_discard(view, discard_ids)` picks. `view` and `legal` are the caller's scratch.
template <class ChooseDiscard>
int greedy_move(const float* observation, const int16_t* legal_ids, int count, View& view,
                Legal& legal, ChooseDiscard choose_discard) {
  legal.split(legal_ids, count);
  if (!legal.draw.empty()) return choose_take_or_draw(legal.draw);
  decode_view(observation, &view);
  if (!legal.melds.empty()) {  // max(meld_ids, key=meld_all_key): the first of the best
    int best = legal.melds[0];
    Key best_key = meld_all_key(view, best);
    for (size_t i = 1; i < legal.melds.size(); ++i) {
      const Key key = meld_all_key(view, legal.melds[i]);
      if (best_key < key) best = legal.melds[i], best_key = key;
    }
    return best;
  }
  return choose_discard(view, legal.discards);
}

// ---------------------------------------------------------------------- agents/expert.py

// A field of ExpertParams as the core holds it: a flag, or a number as a double (an int
// field too: ExpertAgent(params=...) may give any number, and Python compares it as given).
template <class Declared>
using ExpertNumber = std::conditional_t<std::is_same_v<Declared, bool>, bool, double>;

// ExpertParams: the numbers of the strategy (expert.py gives their meaning), every field
// of expert.py's ExpertParams with its default (CANASTA_EXPERT_PARAMS, generated).
struct ExpertParams {
#define CANASTA_EXPERT_PARAM(name, type, value) ExpertNumber<type> name = value;
  CANASTA_EXPERT_PARAMS(CANASTA_EXPERT_PARAM)
#undef CANASTA_EXPERT_PARAM

  // the defaults with `values` set (a name ExpertParams lacks: std::invalid_argument)
  static ExpertParams from_values(const ParamValues& values);
};

// default_params(num_players): 2 players race (TWO_PLAYER_PARAMS).
ExpertParams default_params(int num_players);

class ExpertBot : public Bot {
 public:
  // given: the parameters for every player count (ExpertAgent(params=...)), or none
  explicit ExpertBot(const ExpertParams* given = nullptr, std::string bot_name = EXPERT_NAME);
  std::unique_ptr<Bot> clone() const override { return std::make_unique<ExpertBot>(*this); }
  void reset(int seat, int num_players, std::shared_ptr<const Rules> rules) override;
  int act(const float* observation, const int16_t* legal, int count) override;

  ExpertParams params;

 protected:
  bool has_given_ = false;
  ExpertParams given_;
  // memory across the decisions of a hand (_forget clears it)
  bool has_hand_number_ = false;
  int hand_number_ = 0;
  bool has_pot_after_discard_ = false;
  int pot_after_discard_[NUM_KINDS] = {};
  int pot_size_after_discard_ = 0;
  bool recent_[NUM_HAND_KINDS] = {};

  void forget();
  int expert_act(const View& view, const Rules& rules);
  bool racing(const Rules& rules) const;
  void remember_recent(const View& view);
  virtual int draw_phase(const View& view, const std::vector<int>& draw_ids, const Rules& rules);
  // the meld move to play now, or -1 to discard
  virtual int choose_meld(const View& view, const std::vector<int>& meld_ids,
                          const std::vector<int>& discard_ids, const Rules& rules);
  Key opening_key(const View& view, int action, const Rules& rules) const;
  double meld_score(const View& view, int action, const Rules& rules) const;
  double wild_on_meld_score(const View& view, const Move& move, const Rules& rules) const;
  virtual bool want_go_out(const View& view, const Rules& rules);
  bool opponent_can_go_out(const View& view, const Rules& rules) const;
  int choose_discard(const View& view, const std::vector<int>& discard_ids, const Rules& rules);
  double keep_value(const View& view, int kind, const Rules& rules, const Unseen& unseen) const;
  double take_probability_of(const View& view, int kind, const Rules& rules,
                             const Unseen& unseen) const;
};

// ---------------------------------------------------------------------- agents/styles.py

// A field of StyleParams as the core holds it: a Python float as a double, an int or a
// bool as itself (the families draw them).
template <class Declared>
using StyleNumber = std::conditional_t<std::is_same_v<Declared, float>, double, Declared>;

// StyleParams: one hand's numbers and switches of a styled bot: the expert's numbers,
// then every other field of styles.py's StyleParams (CANASTA_STYLE_PARAMS, generated).
struct StyleParams {
  ExpertParams expert;
#define CANASTA_STYLE_PARAM(name, type, value) StyleNumber<type> name = value;
  CANASTA_STYLE_PARAMS(CANASTA_STYLE_PARAM)
#undef CANASTA_STYLE_PARAM
};

// styles.py FAMILIES (FAMILY_NAMES) and TRAINING_STYLES (TRAINING_FAMILIES, their indexes)
// are in core_decls.hpp. The index of a family's name in FAMILY_NAMES, or -1:
int family_index(const std::string& family);

class StyledBot : public ExpertBot {
 public:
  // family: an index of FAMILY_NAMES, or -1 for a training family drawn each hand
  StyledBot(int family, const PyRandom& rng);
  std::unique_ptr<Bot> clone() const override { return std::make_unique<StyledBot>(*this); }
  void reset(int seat, int num_players, std::shared_ptr<const Rules> rules) override;
  int act(const float* observation, const int16_t* legal, int count) override;
  PyRandom* generator() override { return &rng_; }

  int family() const { return family_; }
  const StyleParams& style() const { return style_; }

 private:
  int family_given_;
  int family_;
  StyleParams style_;
  PyRandom rng_;

  int draw_phase(const View& view, const std::vector<int>& draw_ids, const Rules& rules) override;
  int choose_meld(const View& view, const std::vector<int>& meld_ids,
                  const std::vector<int>& discard_ids, const Rules& rules) override;
  bool want_go_out(const View& view, const Rules& rules) override;
  int noisy_discard(const View& view, const std::vector<int>& discard_ids, const Rules& rules);
  int naive_act(const float* observation, const int16_t* legal, int count);
};

// ---------------------------------------------------------------------- by name

// agents/registry.py's names: "random", "greedy", "expert", "styled", "style:FAMILY". `params`:
// the expert's (ExpertAgent(params=...)), only for "expert"; `rng`: a styled bot's
// generator state (random.Random(seed).getstate()), required for random and the styled names.
std::unique_ptr<Bot> make_bot(const std::string& name, const ParamValues* params,
                              const PyRandom* rng);

}  // namespace bots
}  // namespace canasta
