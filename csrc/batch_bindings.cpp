// _core.Batch, _core.observation, _core.view, _core.seat_rewards and
// _core.observation_spans: typed arrays in and out.
//
// A Batch owns its buffers; its obs, mask, seat, rewards, paid, done, hand_over, hand-end
// properties (hand_sheets, game_scores, end_reason, game_over, winner_team, hand_rewards)
// and new_episodes' rows (learner_seat, deal_seed, redeals, dealt_rewards) are numpy views
// of them that keep the Batch alive, rewritten in place by the calls that write them.
// A numpy PCG64 state crosses as the tuple (state, inc, has_uint32, uinteger) of
// PCG64.state's values (_core._pcg64_integers draws from one, for the tests). reset, step
// and the learner's calls release the GIL (each batch touches only its own games), so
// threads may step separate batches at once; one batch is stepped by one thread at a
// time: every method holds the batch's BusyFlag (and those of the games and bots it
// touches) for the call, and a second thread gets RuntimeError (busy.hpp).
#include "batch_bindings.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>

#include "batch.hpp"
#include "bot_bindings.hpp"
#include "busy.hpp"
#include "numpy_pcg64.hpp"
#include "observation.hpp"

namespace nb = nanobind;

namespace canasta {
namespace {

using Actions = nb::ndarray<nb::ro, nb::device::cpu>;

// A mode by its name: its index in `names` (table.py REWARD_MODES, EPISODE_MODES), which is
// its enumerator's (both generated from the one tuple).
template <class Mode, size_t N>
Mode mode_of(const std::string& name, const char* const (&names)[N], const char* option,
             const char* text) {
  for (size_t i = 0; i < N; ++i)
    if (name == names[i]) return static_cast<Mode>(i);
  throw std::invalid_argument(std::string(option) + " must be one of " + text + ", got '" + name + "'");
}

RewardMode reward_mode(const std::string& name) {
  return mode_of<RewardMode>(name, REWARD_MODES, "reward", REWARD_MODES_TEXT);
}

EpisodeMode episode_mode(const std::string& name) {
  return mode_of<EpisodeMode>(name, EPISODE_MODES, "episode", EPISODE_MODES_TEXT);
}

// The id at row k of an integer array of 8 to 64 bits (any stride), as a uint64 for an
// unsigned dtype and an int64 otherwise (the caller checked the dtype and shape).
struct ActionValue {
  bool is_unsigned;
  int64_t value;
  uint64_t wide;
};

ActionValue action_at(const Actions& actions, int k) {
  const nb::dlpack::dtype dtype = actions.dtype();
  const bool is_int = dtype.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
  const char* at = static_cast<const char*>(actions.data()) + k * actions.stride(0) * (dtype.bits / 8);
  switch (dtype.bits) {
    case 8: return is_int ? ActionValue{false, *reinterpret_cast<const int8_t*>(at), 0}
                          : ActionValue{true, 0, *reinterpret_cast<const uint8_t*>(at)};
    case 16: return is_int ? ActionValue{false, *reinterpret_cast<const int16_t*>(at), 0}
                           : ActionValue{true, 0, *reinterpret_cast<const uint16_t*>(at)};
    case 32: return is_int ? ActionValue{false, *reinterpret_cast<const int32_t*>(at), 0}
                           : ActionValue{true, 0, *reinterpret_cast<const uint32_t*>(at)};
    default: return is_int ? ActionValue{false, *reinterpret_cast<const int64_t*>(at), 0}
                           : ActionValue{true, 0, *reinterpret_cast<const uint64_t*>(at)};
  }
}

// The actions as int64 (any integer dtype of 8 to 64 bits, any stride, native byte
// order: canasta_env/vector.py converts the others); raises ValueError for another shape
// or dtype. A uint64 beyond int64 reads as int64's largest (out of range anyway; an error
// names the real value, action_text).
void read_actions(const Actions& actions, int num_tables, std::vector<int64_t>& out) {
  const nb::dlpack::dtype dtype = actions.dtype();
  const bool is_int = dtype.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
  const bool is_uint = dtype.code == static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
  const bool bits_ok = dtype.bits == 8 || dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64;
  if (actions.ndim() != 1 || actions.shape(0) != static_cast<size_t>(num_tables) ||
      !(is_int || is_uint) || !bits_ok || dtype.lanes != 1) {
    std::string shape = "(";  // as numpy writes it: (3,) or (2, 3)
    for (size_t i = 0; i < actions.ndim(); ++i)
      shape += (i ? ", " : "") + std::to_string(actions.shape(i));
    shape += actions.ndim() == 1 ? ",)" : ")";
    throw std::invalid_argument("actions must be " + std::to_string(num_tables) +
                                " integer ids, got shape " + shape);
  }
  out.resize(num_tables);
  constexpr uint64_t LARGEST = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  for (int k = 0; k < num_tables; ++k) {
    const ActionValue a = action_at(actions, k);
    out[k] = !a.is_unsigned ? a.value : static_cast<int64_t>(std::min(a.wide, LARGEST));
  }
}

// The id at row k as Python writes it (the real value of a uint64 beyond int64).
std::string action_text(const Actions& actions, int k) {
  const ActionValue a = action_at(actions, k);
  return a.is_unsigned ? std::to_string(a.wide) : std::to_string(a.value);
}

// A Batch and its scratch for the actions read from Python.
struct PyBatch {
  Batch batch;
  std::vector<int64_t> actions;
  BusyFlag busy;
};

// The batch held for a call and, for a call that plays them, the games it has dealt (a
// caller may hold one through Batch.game and play it in another thread). `games` keeps
// those games alive until their flags are released: a step deals new games in place of
// ended ones.
struct BatchHold {
  std::vector<std::shared_ptr<Game>> games;  // declared first: destroyed after `flags`
  HoldAll flags;

  BatchHold(PyBatch& self, bool with_games) {
    flags.take(self.busy, BATCH_IN_USE);
    if (!with_games) return;
    games.reserve(self.batch.num_tables);
    flags.reserve(self.batch.num_tables + 1);
    for (int k = 0; k < self.batch.num_tables; ++k)
      if (std::shared_ptr<Game> game = self.batch.dealt(k)) {
        flags.take(game->busy, GAME_IN_USE);
        games.push_back(std::move(game));
      }
  }
  // one table's game
  BatchHold(PyBatch& self, int table) {
    flags.take(self.busy, BATCH_IN_USE);
    if (table < 0 || table >= self.batch.num_tables) return;  // the batch names the table
    if (std::shared_ptr<Game> game = self.batch.dealt(table)) {
      flags.take(game->busy, GAME_IN_USE);
      games.push_back(std::move(game));
    }
  }
};

void check_seat(const Game& game, int seat) {
  if (seat < 0 || seat >= game.s.num_players)
    throw std::invalid_argument("seat " + std::to_string(seat) + " is not at the table");
}

// A new numpy array of `size` values that owns `data` (made with new[]).
template <class T>
nb::ndarray<nb::numpy, T> owned_array(T* data, size_t size) {
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return nb::ndarray<nb::numpy, T>(data, {size}, owner);
}

// One value of a PCG64 state tuple: a Python int in 0..2**bits - 1 (TypeError for another
// type, ValueError outside), as its high and low 64-bit words.
Uint128 state_value(nb::handle value, int bits, const char* name) {
  PyObject* number = value.ptr();
  if (!PyLong_Check(number) || PyBool_Check(number))
    throw nb::type_error((std::string("a PCG64 state's ") + name + " must be an int, got " +
                          Py_TYPE(number)->tp_name).c_str());
  const nb::int_ zero(0);
  const int negative = PyObject_RichCompareBool(number, zero.ptr(), Py_LT);
  if (negative < 0) throw nb::python_error();
  const int64_t length = nb::cast<int64_t>(value.attr("bit_length")());
  if (negative || length > bits)
    throw std::invalid_argument(std::string("a PCG64 state's ") + name + " must be 0..2**" +
                                std::to_string(bits) + " - 1, got " +
                                nb::cast<std::string>(nb::repr(value)));
  const nb::object high = nb::borrow(value) >> nb::int_(64);
  return {PyLong_AsUnsignedLongLongMask(high.ptr()), PyLong_AsUnsignedLongLongMask(number)};
}

// numpy's PCG64 state from its tuple (state, inc, has_uint32, uinteger).
NumpyPcg64 pcg64_of(nb::handle state) {
  if (!PyTuple_Check(state.ptr()))
    throw nb::type_error((std::string("a PCG64 state is a tuple (state, inc, has_uint32, "
                                      "uinteger), got ") + Py_TYPE(state.ptr())->tp_name).c_str());
  const nb::tuple values = nb::borrow<nb::tuple>(state);
  if (values.size() != 4)
    throw std::invalid_argument("a PCG64 state is a tuple of 4 ints (state, inc, has_uint32, "
                                "uinteger), got " + std::to_string(values.size()));
  NumpyPcg64 generator;
  generator.state = state_value(values[0], 128, "state");
  generator.increment = state_value(values[1], 128, "inc");
  generator.has_uint32 = state_value(values[2], 1, "has_uint32").low != 0;
  generator.uinteger = static_cast<uint32_t>(state_value(values[3], 32, "uinteger").low);
  return generator;
}

nb::object int_of(Uint128 value) {
  return (nb::int_(value.high) << nb::int_(64)) | nb::int_(value.low);
}

// The tuple of a PCG64 state, as pcg64_of reads it.
nb::tuple pcg64_tuple(const NumpyPcg64& generator) {
  return nb::make_tuple(int_of(generator.state), int_of(generator.increment),
                        static_cast<int>(generator.has_uint32), generator.uinteger);
}

template <class T>
nb::ndarray<nb::numpy, T> view_of(PyBatch& self, T* data, std::initializer_list<size_t> shape) {
  return nb::ndarray<nb::numpy, T>(data, shape, nb::find(&self));
}

}  // namespace

void bind_batch(nb::module_& m) {
  m.attr("OBS_SIZE") = OBS_SIZE;
  m.attr("MAX_TABLES") = MAX_TABLES;
  m.attr("REWARD_SCALE_RANGE") = nb::make_tuple(MIN_REWARD_SCALE, MAX_REWARD_SCALE);

  m.def(
      "observation",
      [](Game& game, int seat, bool to_act) {
        const Hold hold(game.busy, GAME_IN_USE);
        check_seat(game, seat);
        auto values = std::make_unique<float[]>(OBS_SIZE);
        write_observation(game, seat, to_act, values.get());
        return owned_array(values.release(), OBS_SIZE);
      },
      nb::arg("game"), nb::arg("seat"), nb::arg("to_act") = true,
      "The observation of `seat` (a new float32 array): ObservationBuilder.build, bit for bit.");

  m.def(
      "view",
      [](Game& game, int seat, bool live) {
        const Hold hold(game.busy, GAME_IN_USE);
        check_seat(game, seat);
        // table.py Table.view: the seat acts when live, on its turn, with the hand on
        const bool to_act = live && seat == game.current_player() && !game.hand_over();
        auto mask = std::make_unique<int8_t[]>(NUM_ACTIONS);  // zeroed
        if (to_act) {
          int count;
          const int16_t* legal = game.legal_actions(&count);
          for (int i = 0; i < count; ++i) mask[legal[i]] = 1;
        }
        auto values = std::make_unique<float[]>(OBS_SIZE);
        write_observation(game, seat, to_act, values.get());
        return nb::make_tuple(owned_array(values.release(), OBS_SIZE),
                              owned_array(mask.release(), NUM_ACTIONS));
      },
      nb::arg("game"), nb::arg("seat"), nb::arg("live") = true,
      "What `seat` sees, in one call: (observation float32 (OBS_SIZE,), mask int8 "
      "(NUM_ACTIONS,)), new arrays; the mask is all zero unless the seat is live, to act "
      "and the hand is on (then the observation shows it to act), as Table.view.");

  m.def(
      "seat_rewards",
      [](Game& game, const std::string& reward, double reward_scale, const std::string& episode) {
        const Hold hold(game.busy, GAME_IN_USE);
        const RewardMode reward_in = reward_mode(reward);
        const EpisodeMode episode_in = episode_mode(episode);
        check_reward_scale(reward_scale);
        if (!game.hand_over()) throw std::invalid_argument("the hand has no result before it ends");
        double out[MAX_PLAYERS];
        book_hand(game.s, reward_in, reward_scale, episode_in, out);
        return std::vector<double>(out, out + game.s.num_players);
      },
      nb::arg("game"), nb::arg("reward") = "score", nb::arg("reward_scale") = 1000.0,
      nb::arg("episode") = "hand",
      "The batch's booking of the hand that ended (book_hand): each seat's reward, as "
      "Table.seat_rewards(reward, reward_scale, episode) gives it (the tests compare them).");

  m.def(
      "_pcg64_integers",
      [](nb::handle state, const std::vector<int64_t>& bounds) {
        NumpyPcg64 generator = pcg64_of(state);
        for (const int64_t bound : bounds)
          if (bound < 1 || bound > NumpyPcg64::MAX_BOUND)
            throw std::invalid_argument("a bound must be 1.." +
                                        std::to_string(NumpyPcg64::MAX_BOUND) + ", got " +
                                        std::to_string(bound));
        std::vector<int64_t> values;
        values.reserve(bounds.size());
        for (const int64_t bound : bounds) values.push_back(generator.integers(bound));
        return nb::make_tuple(values, pcg64_tuple(generator));
      },
      nb::arg("state"), nb::arg("bounds"),
      "For the tests: Generator.integers(bound) for each of `bounds` (1..2**31 - 1) from a "
      "numpy PCG64 state (state, inc, has_uint32, uinteger), as the batch draws them: "
      "(the values, the state after them).");

  m.def(
      "observation_spans",
      []() {
        nb::list out;
        for (const auto& span : obs::spans())
          out.append(nb::make_tuple(span.name, span.start, span.size, span.scale));
        return out;
      },
      "Every field of the C++ observation layout: (LAYOUT span name, start, size, scale).");

  nb::class_<PyBatch>(m, "Batch")
      .def(
          "__init__",
          [](PyBatch* self, const Rules& rules, const std::string& name, int num_players,
             int num_tables, const std::string& reward, double reward_scale,
             const std::string& episode) {
            new (self) PyBatch{Batch(std::make_shared<const Rules>(rules), name, num_players,
                                     num_tables, reward_mode(reward), reward_scale,
                                     episode_mode(episode)),
                               {},
                               {}};
          },
          nb::arg("rules"), nb::arg("name"), nb::arg("num_players"), nb::arg("num_tables"),
          nb::arg("reward") = "score", nb::arg("reward_scale") = 1000.0,
          nb::arg("episode") = "hand")
      .def(
          "reset",
          [](PyBatch& self, bool negative, const std::vector<uint32_t>& magnitude) {
            if (magnitude.empty()) throw std::invalid_argument("a seed has at least one word");
            const Hold hold(self.busy, BATCH_IN_USE);
            nb::gil_scoped_release release;
            self.batch.reset(SeedValue{negative, magnitude});
          },
          nb::arg("negative"), nb::arg("magnitude"),
          "Deal every table a new game (seeds seed, seed + 1, ...): the seed as its sign and "
          "|seed| in 32-bit words, least significant first (vector.py seed_words).")
      .def(
          "step",
          [](PyBatch& self, const Actions& actions) {
            const BatchHold hold(self, true);
            self.batch.check_step();
            read_actions(actions, self.batch.num_tables, self.actions);
            const int bad = self.batch.first_illegal(self.actions.data());
            if (bad >= 0) throw IllegalAction(self.batch.illegal_message(bad, action_text(actions, bad)));
            nb::gil_scoped_release release;
            self.batch.step(self.actions.data());
          },
          nb::arg("actions"),
          "Play actions[k] at every table; an illegal one raises ValueError naming the table "
          "and the id before anything changes.")
      .def(
          "set_bot",
          [](PyBatch& self, int table, int seat, std::optional<PyBot*> bot) {
            HoldAll hold;
            hold.take(self.busy, BATCH_IN_USE);
            if (bot && *bot) hold.take((*bot)->busy, BOT_IN_USE);  // copied
            self.batch.set_bot(table, seat, bot && *bot ? (*bot)->bot.get() : nullptr);
          },
          nb::arg("table"), nb::arg("seat"), nb::arg("bot").none(),
          "Seat `seat` of table `table` played by a copy of `bot` (a _core.Bot; None: by the "
          "caller) inside reset and step, reset at each new deal of the table; a table keeps "
          "one seat without a bot. After reset the copy is reset at once for the game on the "
          "table.")
      .def(
          "deal_table",
          [](PyBatch& self, int table, bool negative, const std::vector<uint32_t>& magnitude,
             std::vector<std::optional<PyBot*>> seat_bots, const std::vector<int64_t>& bot_seeds) {
            if (magnitude.empty()) throw std::invalid_argument("a seed has at least one word");
            HoldAll hold;
            hold.take(self.busy, BATCH_IN_USE);
            std::vector<const bots::Bot*> by_seat;
            for (auto& bot : seat_bots) {
              if (bot && *bot) hold.take_once((*bot)->busy, BOT_IN_USE);  // copied
              by_seat.push_back(bot && *bot ? (*bot)->bot.get() : nullptr);
            }
            nb::gil_scoped_release release;
            self.batch.deal_table(table, SeedValue{negative, magnitude}, by_seat, bot_seeds);
          },
          nb::arg("table"), nb::arg("negative"), nb::arg("magnitude"), nb::arg("bots"),
          nb::arg("bot_seeds"),
          "The learner's face: deal `table` a new game seeded as Random(seed) (sign and words, "
          "as reset), a copy of bots[seat] (a _core.Bot; None: the learner's seat) in each bot "
          "seat, a drawing bot's generator seeded Random(bot_seeds[seat]); the bots play up "
          "to a seat without one or the hand's end. Deals no other game and pays no rewards.")
      .def(
          "next_hand",
          [](PyBatch& self, int table) {
            const BatchHold hold(self, table);
            nb::gil_scoped_release release;
            self.batch.next_hand_of(table);
          },
          nb::arg("table"), "The learner's face: the game's next hand at `table`, its bots played.")
      .def(
          "step_learner",
          [](PyBatch& self, nb::ndarray<const int64_t, nb::ndim<1>, nb::c_contig, nb::device::cpu> actions,
             nb::ndarray<const bool, nb::ndim<1>, nb::c_contig, nb::device::cpu> play) {
            const size_t n = static_cast<size_t>(self.batch.num_tables);
            if (actions.shape(0) != n || play.shape(0) != n)
              throw std::invalid_argument("step_learner takes one action and one flag per table");
            const BatchHold hold(self, true);
            nb::gil_scoped_release release;
            self.batch.step_learner(actions.data(), play.data());
          },
          nb::arg("actions"), nb::arg("play"),
          "The learner's face: actions[k] (int64) played at each table k with play[k], then its "
          "bots, up to a seat without one or the hand's end (hand_over); an illegal action "
          "raises ValueError before anything changes.")
      .def(
          "play_learner",
          [](PyBatch& self, const Actions& actions, bool raise_illegal) {
            const BatchHold hold(self, true);
            Batch& batch = self.batch;
            const int n = batch.num_tables;
            read_actions(actions, n, self.actions);
            const int64_t* ids = self.actions.data();
            for (int k = 0; k < n; ++k)  // every id first, then every action
              if (ids[k] < 0 || ids[k] >= NUM_ACTIONS)
                throw IllegalAction("table " + std::to_string(k) + ": action id " +
                                    action_text(actions, k) + " is outside 0.." +
                                    std::to_string(NUM_ACTIONS - 1));
            bool* legal = batch.legal();
            for (int k = 0; k < n; ++k) {
              legal[k] = batch.learner_legal(k, ids[k]);
              if (raise_illegal && !legal[k])
                throw IllegalAction(batch.illegal_message(k, action_text(actions, k)));
            }
            std::vector<int> ended;
            {
              nb::gil_scoped_release release;
              batch.step_learner(ids, legal);
              for (int k = 0; k < n; ++k)
                if (legal[k] && batch.hand_over()[k]) ended.push_back(k);
            }
            return ended;
          },
          nb::arg("actions"), nb::arg("raise_illegal"),
          "The learner's face in one call: every id checked to be 0..NUM_ACTIONS-1 (else "
          "ValueError naming the first table), then legal[k] set for each table's action "
          "(raise_illegal: ValueError for the first illegal one), then step_learner with "
          "legal: nothing changes before a refusal. Returns the tables played whose hand is "
          "over, in order.")
      .def(
          "configure_episodes",
          [](PyBatch& self, const std::vector<std::vector<PyBot*>>& twins, std::optional<int> seat,
             bool team) {
            HoldAll hold;
            hold.take(self.busy, BATCH_IN_USE);
            std::vector<std::vector<const bots::Bot*>> by_table;
            by_table.reserve(twins.size());
            for (const auto& row : twins) {
              by_table.emplace_back();
              for (PyBot* twin : row) {
                if (twin) hold.take_once(twin->busy, BOT_IN_USE);  // copied
                by_table.back().push_back(twin ? twin->bot.get() : nullptr);
              }
            }
            if (seat && *seat < 0)  // -1 is the batch's "drawn": not a seat to give
              throw std::invalid_argument("seat " + std::to_string(*seat) + " is not at the table");
            self.batch.configure_episodes(by_table, seat ? *seat : -1, team);
          },
          nb::arg("twins"), nb::arg("seat").none(), nb::arg("team"),
          "The learner's face: how new_episodes seats the learner at every table. twins[k]: "
          "table k's opponents (_core.Bot, copied) in the order of its opponent seats; seat: "
          "the learner's seat, None for one drawn per episode; team: the learner holds its "
          "seat's team (learner=\"team\"), else the seat alone.")
      .def(
          "set_generator",
          [](PyBatch& self, int table, nb::handle state) {
            const NumpyPcg64 generator = pcg64_of(state);
            const Hold hold(self.busy, BATCH_IN_USE);
            self.batch.set_generator(table, generator);
          },
          nb::arg("table"), nb::arg("state"),
          "The learner's face: table `table`'s generator, a numpy PCG64 state (state, inc, "
          "has_uint32, uinteger), which new_episodes draws from.")
      .def(
          "generator",
          [](PyBatch& self, int table) {
            const Hold hold(self.busy, BATCH_IN_USE);
            return pcg64_tuple(self.batch.generator(table));
          },
          nb::arg("table"), "Table `table`'s generator now: (state, inc, has_uint32, uinteger).")
      .def(
          "new_episodes",
          [](PyBatch& self, const std::vector<int>& tables,
             const std::vector<std::optional<std::pair<bool, std::vector<uint32_t>>>>& seeds) {
            std::vector<SeedValue> given;
            given.reserve(seeds.size());
            for (const auto& seed : seeds) {
              if (seed && seed->second.empty())
                throw std::invalid_argument("a seed has at least one word");
              given.push_back(seed ? SeedValue{seed->first, seed->second} : SeedValue{});
            }
            std::vector<const SeedValue*> by_table;
            for (size_t i = 0; i < seeds.size(); ++i)
              by_table.push_back(seeds[i] ? &given[i] : nullptr);
            const Hold hold(self.busy, BATCH_IN_USE);
            nb::gil_scoped_release release;
            self.batch.new_episodes(tables, by_table);
          },
          nb::arg("tables"), nb::arg("seeds"),
          "The learner's face: each of `tables` dealt a new episode from its generator, as "
          "gym_vector.py deals one: the learner's seat, a seed per opponent seat, the deal "
          "seed (seeds[i], a seed's sign and words as reset takes them, on the first deal; "
          "None: drawn), deal_table, again while the episode ends before the learner acts. "
          "Writes learner_seat, deal_seed, redeals and dealt_rewards at their rows; a bad "
          "table, a table without a generator or no configure_episodes raise before "
          "anything changes.")
      .def_prop_ro("learner_seat",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.learner_seat(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("deal_seed",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.deal_seed(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("redeals",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.redeals(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("dealt_rewards",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.dealt_rewards(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(self.batch.num_players)});
                   })
      .def_prop_ro("legal",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.legal(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("final_obs",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.final_obs(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(OBS_SIZE)});
                   })
      .def(
          "game",
          [](PyBatch& self, int table) {
            const Hold hold(self.busy, BATCH_IN_USE);
            return self.batch.game_at(table);
          },
          nb::arg("table"),
          "The game at `table` (a _core.Game, not a copy) until that table is dealt again; "
          "kept past it, the old game, which the batch no longer plays.")
      .def(
          "finished",
          [](PyBatch& self, int table) {
            const Hold hold(self.busy, BATCH_IN_USE);
            return self.batch.finished(table);
          },
          nb::arg("table"),
          "The game whose episode ended at `table` on the last step (done), which the batch "
          "no longer plays; None where none ended.")
      .def_prop_ro("hand_over",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.hand_over(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("hand_sheets",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.hand_sheets(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(self.batch.num_teams),
                                     static_cast<size_t>(Batch::SHEET_VALUES)});
                   })
      .def_prop_ro("game_scores",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.game_scores(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(self.batch.num_teams)});
                   })
      .def_prop_ro("end_reason",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.end_reason(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("game_over",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.game_over(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("hand_rewards",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.hand_rewards(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(self.batch.num_players)});
                   })
      .def_prop_ro("winner_team",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.winner_team(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("num_tables", [](PyBatch& self) { return self.batch.num_tables; })
      .def_prop_ro("num_players", [](PyBatch& self) { return self.batch.num_players; })
      .def_prop_ro("deal_numbers",
                   [](PyBatch& self) {
                     const Hold hold(self.busy, BATCH_IN_USE);
                     return self.batch.deal_numbers();
                   })
      .def_prop_ro("obs",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.obs(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(OBS_SIZE)});
                   })
      .def_prop_ro("mask",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.mask(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(NUM_ACTIONS)});
                   })
      .def_prop_ro("seat",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.seat(),
                                    {static_cast<size_t>(self.batch.num_tables)});
                   })
      .def_prop_ro("rewards",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.rewards(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(self.batch.num_players)});
                   })
      .def_prop_ro("paid",
                   [](PyBatch& self) {
                     return view_of(self, self.batch.paid(),
                                    {static_cast<size_t>(self.batch.num_tables),
                                     static_cast<size_t>(self.batch.num_players)});
                   })
      .def_prop_ro("done", [](PyBatch& self) {
        return view_of(self, self.batch.done(), {static_cast<size_t>(self.batch.num_tables)});
      });
}

}  // namespace canasta
