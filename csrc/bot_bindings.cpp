// _core.Bot and _core.play_bots: the house bots of csrc/bots/ for Python (canasta_env/core.py
// CoreBot wraps them). Batch.set_bot (batch_bindings.cpp) seats a copy of one in a batch.
#include "bot_bindings.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bots/bot.hpp"
#include "game.hpp"
#include "observation.hpp"

namespace nb = nanobind;

namespace canasta {
namespace {

using bots::Bot;
using bots::PyRandom;

// random.Random.getstate()'s (version, (624 words and the index), gauss_next) as PyRandom.
PyRandom generator_from(const std::vector<int64_t>& words, std::optional<double> gauss_next) {
  if (words.size() != Rng::N + 1)
    throw std::invalid_argument("a generator state is 624 words and an index");
  PyRandom out;
  for (int i = 0; i < Rng::N; ++i) {
    if (words[i] < 0 || words[i] > 0xffffffffLL) throw std::invalid_argument("a generator word is 32 bits");
    out.rng.mt[i] = static_cast<uint32_t>(words[i]);
  }
  if (words[Rng::N] < 0 || words[Rng::N] > Rng::N)
    throw std::invalid_argument("a generator index is 0 to 624");
  out.rng.index = static_cast<int32_t>(words[Rng::N]);
  out.has_gauss_next = gauss_next.has_value();
  out.gauss_next = gauss_next.value_or(0.0);
  return out;
}

using Observation = nb::ndarray<const float, nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using Mask = nb::ndarray<const int8_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

// Play the bots' seats of `game` until a seat without a bot is to act or the hand is over.
int64_t play_bots(Game& game, const std::vector<Bot*>& seat_bots) {
  std::unique_ptr<float[]> observation(new float[OBS_SIZE]);
  int64_t played = 0;
  while (!game.hand_over()) {
    const int seat = game.current_player();
    Bot* bot = seat < static_cast<int>(seat_bots.size()) ? seat_bots[seat] : nullptr;
    if (!bot) break;
    int count;
    const int16_t* legal = game.legal_actions(&count);
    if (count == 0) break;  // a loaded position whose player has no legal action: stuck
    write_observation(game, seat, true, observation.get());
    game.apply(bot->act(observation.get(), legal, count));
    ++played;
  }
  return played;
}

}  // namespace

void bind_bots(nb::module_& m) {
  nb::class_<PyBot>(m, "Bot")
      .def(
          "__init__",
          [](PyBot* self, const std::string& name, std::optional<std::map<std::string, double>> params,
             std::optional<std::vector<int64_t>> rng_words, std::optional<double> gauss_next) {
            std::optional<PyRandom> rng;
            if (rng_words) rng = generator_from(*rng_words, gauss_next);
            new (self) PyBot{bots::make_bot(name, params ? &*params : nullptr, rng ? &*rng : nullptr), {}};
          },
          nb::arg("name"), nb::arg("params").none() = nb::none(),
          nb::arg("rng_words").none() = nb::none(), nb::arg("gauss_next").none() = nb::none(),
          "A house bot by its registry name (greedy, expert, styled, style:FAMILY); params: "
          "the expert's ExpertParams as a dict; rng_words and gauss_next: a styled bot's "
          "random.Random state (getstate()[1], getstate()[2]).")
      .def("reset",
           [](PyBot& self, int seat, int num_players, const Rules& rules) {
             const Hold hold(self.busy, BOT_IN_USE);
             if (!is_player_count(num_players))
               throw std::invalid_argument(std::string("a table seats ") + PLAYER_COUNTS_TEXT +
                                           " players, not " + std::to_string(num_players));
             if (seat < 0 || seat >= num_players)
               throw std::invalid_argument("seat " + std::to_string(seat) + " is not at a table of " +
                                           std::to_string(num_players));
             rules.check_players(num_players);
             self.bot->reset(seat, num_players, std::make_shared<const Rules>(rules));
           },
           nb::arg("seat"), nb::arg("num_players"), nb::arg("rules"),
           "Before each hand (or game): the seat, the table's player count and its rules "
           "(made for that count); ValueError for a seat or count the table has not.")
      .def(
          "act",
          [](PyBot& self, Observation observation, Mask mask) {
            const Hold hold(self.busy, BOT_IN_USE);
            if (observation.shape(0) != static_cast<size_t>(OBS_SIZE) ||
                mask.shape(0) != static_cast<size_t>(NUM_ACTIONS))
              throw std::invalid_argument("an observation of " + std::to_string(OBS_SIZE) +
                                          " floats and a mask of " + std::to_string(NUM_ACTIONS) +
                                          ", got " + std::to_string(observation.shape(0)) + " and " +
                                          std::to_string(mask.shape(0)));
            self.legal.clear();
            for (int a = 0; a < NUM_ACTIONS; ++a) {
              if (mask(a) != 0 && mask(a) != 1)
                throw std::invalid_argument("not a mask: entry " + std::to_string(a) + " is " +
                                            std::to_string(mask(a)) + ", not 0 or 1");
              if (mask(a)) self.legal.push_back(static_cast<int16_t>(a));
            }
            if (self.legal.empty()) throw std::invalid_argument("the mask allows no action");
            if (self.bot->reads_observation())  // from outside the core: checked first
              bots::check_observation(observation.data());
            return self.bot->act(observation.data(), self.legal.data(), static_cast<int>(self.legal.size()));
          },
          nb::arg("observation"), nb::arg("mask"),
          "The bot's action for this observation (float32 (OBS_SIZE,)) and mask (int8 "
          "(NUM_ACTIONS,) of 0 and 1): Agent.act. For a bot that reads it (all but random), "
          "an observation the builder cannot have written (an entry not finite, or an entry "
          "the bot reads not a whole number in its field's range) is ValueError 'not an "
          "observation', naming the entry.")
      .def_prop_ro("name", [](const PyBot& self) { return self.bot->name; })
      .def_prop_ro("acted", [](const PyBot& self) { return self.bot->acted; },
                   "Whether the bot acted since its last reset.")
      .def_prop_ro(
          "rng_state",
          [](PyBot& self) -> nb::object {
            const Hold hold(self.busy, BOT_IN_USE);
            PyRandom* rng = self.bot->generator();
            if (!rng) return nb::none();
            std::vector<int64_t> words(rng->rng.mt, rng->rng.mt + Rng::N);
            words.push_back(rng->rng.index);
            return nb::make_tuple(words, rng->has_gauss_next ? nb::cast(rng->gauss_next) : nb::none());
          },
          "A styled bot's generator as (624 words and the index, gauss_next); None for the others.")
      .def_prop_ro(
          "style",
          [](PyBot& self) -> nb::object {
            const Hold hold(self.busy, BOT_IN_USE);
            auto* styled = dynamic_cast<bots::StyledBot*>(self.bot.get());
            if (!styled) return nb::none();
            return nb::cast(std::string(bots::FAMILY_NAMES[styled->family()]));
          },
          "A styled bot's family this hand; None for the others.");

  m.def(
      "play_bots",
      [](Game& game, std::vector<std::optional<PyBot*>> seat_bots) {
        HoldAll hold;
        hold.take(game.busy, GAME_IN_USE);
        std::vector<Bot*> bots_by_seat;
        for (auto& bot : seat_bots) {
          if (bot && *bot) hold.take_once((*bot)->busy, BOT_IN_USE);  // one bot may hold two seats
          bots_by_seat.push_back(bot && *bot ? (*bot)->bot.get() : nullptr);
        }
        nb::gil_scoped_release release;
        return play_bots(game, bots_by_seat);
      },
      nb::arg("game"), nb::arg("bots"),
      "Play the seats that have a bot (bots[seat], None for a seat without) until a seat "
      "without one is to act or the hand is over; returns the moves played.");
}

}  // namespace canasta
