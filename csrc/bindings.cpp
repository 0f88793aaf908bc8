// The Python face of the core (module canasta_env._core): thin, typed values in and out.
// canasta_env/core.py wraps it (CoreGame) and converts to and from the Python Game.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <iterator>

#include "batch_bindings.hpp"
#include "bot_bindings.hpp"
#include "game.hpp"

namespace nb = nanobind;
using namespace canasta;

namespace {

Rng rng_from_words(const std::vector<int64_t>& words) {
  if (words.size() != Rng::N + 1)
    throw std::invalid_argument("core: the generator state is 624 words and an index");
  Rng rng;
  for (int i = 0; i < Rng::N; ++i) {
    if (words[i] < 0 || words[i] > 0xffffffffLL)
      throw std::invalid_argument("core: a generator word is outside 0..2**32-1");
    rng.mt[i] = static_cast<uint32_t>(words[i]);
  }
  if (words[Rng::N] < 0 || words[Rng::N] > Rng::N)
    throw std::invalid_argument("core: the generator index is outside 0..624");
  rng.index = static_cast<int32_t>(words[Rng::N]);
  return rng;
}

std::unique_ptr<StackedDeck> deck_of(const nb::object& kinds, const nb::object& suits) {
  if (kinds.is_none()) return nullptr;
  auto deck = std::make_unique<StackedDeck>();
  deck->kinds = nb::cast<std::vector<int>>(kinds);
  if (!suits.is_none()) {
    deck->suits = nb::cast<std::vector<int>>(suits);
    if (deck->suits.size() != deck->kinds.size())
      throw std::invalid_argument("core: a stacked deck's suits must match its kinds");
  }
  return deck;
}

template <class T>
nb::list list_of(const T* values, int n) {
  nb::list out;
  for (int i = 0; i < n; ++i) out.append(static_cast<int64_t>(values[i]));
  return out;
}

template <class T, size_t W>
nb::list rows_of(const T (*values)[W], int rows, int width) {
  nb::list out;
  for (int r = 0; r < rows; ++r) out.append(list_of(values[r], width));
  return out;
}

// A state dict's key. Every name is a static string (a literal of CANASTA_STATE_FIELDS or
// of this file), so nanobind may keep its Python string in its cache (by address, the
// contents checked at each use): a name passed on as a plain const char* would be made
// into a new string, and hashed, at every lookup (a tenth of a get_state and set_state).
nb::detail::str_key key(const char* name) { return {name, std::strlen(name) + 1}; }

nb::dict sheet_dict(const Sheet& sheet) {
  nb::dict d;
#define CANASTA_SHEET_ROW(name) d[key(#name)] = sheet.name;
  CANASTA_SHEET_ROWS(CANASTA_SHEET_ROW)
#undef CANASTA_SHEET_ROW
  d["canastas"] = static_cast<int64_t>(sheet.canastas);
  return d;
}

// ------------------------------------------------------------------ state out
// Each shape of state.hpp as Python's engine holds it (engine/state.py's values): one
// `out` per shape, one `put` per field (the suits put their four parts).
template <class T>
nb::object out(const T& value, const field::Int&) { return nb::cast(static_cast<int64_t>(value)); }
template <class T>
nb::object out(const T& value, const field::Same&) { return nb::cast(static_cast<int64_t>(value)); }
nb::object out(bool value, const field::Flag&) { return nb::cast(value); }
template <class T>
nb::object out(const T& value, const field::Maybe&) {
  return value < 0 ? nb::none() : nb::cast(static_cast<int64_t>(value));
}
template <class T, size_t N>
nb::object out(const T (&values)[N], const field::Row& shape) { return list_of(values, shape.len); }
template <class T, size_t N>
nb::object out(const T (&values)[N], const field::SeatTeams& shape) { return list_of(values, shape.seats); }
template <class T, size_t R, size_t W>
nb::object out(const T (&values)[R][W], const field::Rows& shape) { return rows_of(values, shape.rows, shape.width); }
template <size_t N>
nb::object out(const bool (&values)[N], const field::Flags& shape) {
  nb::list flags;
  for (int i = 0; i < shape.len; ++i) flags.append(values[i]);
  return flags;
}
nb::object out(const Pile& pile, const field::Cards&) { return list_of(pile.items, pile.len); }
nb::object out(const Rng& rng, const field::Generator&) {
  nb::list words = list_of(rng.mt, Rng::N);
  words.append(static_cast<int64_t>(rng.index));
  return nb::make_tuple(3, nb::tuple(words), nb::none());
}
nb::object out(const std::vector<HandRecord>& records, const field::Records& shape) {
  nb::list history;
  for (const auto& record : records) {
    nb::dict entry;
    entry["hand"] = record.hand;
    entry["reason"] = END_REASONS[record.reason];
    entry["scores"] = list_of(record.scores.data(), shape.teams);
    history.append(entry);
  }
  return history;
}
nb::object out(const Canastas (&closed)[MAX_TEAMS], const field::TeamCanastas& shape) {
  nb::list teams;
  for (int t = 0; t < shape.teams; ++t) {
    nb::list team;
    for (int i = 0; i < closed[t].len; ++i) {
      const Closed& c = closed[t][i];
      team.append(nb::make_tuple(int(c.slot), int(c.naturals), int(c.twos), int(c.jokers), bool(c.hidden)));
    }
    teams.append(team);
  }
  return teams;
}
nb::object out(const Runs (&escalas)[MAX_TEAMS], const field::TeamRuns& shape) {
  nb::list teams;
  for (int t = 0; t < shape.teams; ++t) {
    nb::list team;
    for (int i = 0; i < escalas[t].len; ++i) {
      const Run& r = escalas[t][i];
      team.append(nb::make_tuple(int(r.suit), int(r.start), int(r.length)));
    }
    teams.append(team);
  }
  return teams;
}
nb::object out(int8_t reason, const field::Reason&) {
  return reason < 0 ? nb::none() : nb::cast(std::string(END_REASONS[reason]));
}
nb::object out(const Sheet (&sheets)[MAX_TEAMS], const field::Sheets& shape) {
  if (!shape.hand_over) return nb::none();
  nb::list teams;
  for (int t = 0; t < shape.teams; ++t) teams.append(sheet_dict(sheets[t]));
  return teams;
}

template <class T, class Shape>
void put(nb::dict& d, const char* name, const T& value, const Shape& shape) {
  d[key(name)] = out(value, shape);
}
// S-19: the suits cross as four parts (core.py _SUIT_PARTS), each None without suits.
void put(nb::dict& d, const char*, const Suits& suits, const field::SuitParts& shape) {
  const bool on = suits.tracked;
  d[SUIT_PART_STOCK] = on ? nb::object(list_of(suits.stock, shape.stock_len)) : nb::none();
  d[SUIT_PART_HANDS] = on ? nb::object(rows_of(suits.hands, shape.seats, SUITED_SIZE)) : nb::none();
  d[SUIT_PART_POT] = on ? nb::object(list_of(suits.pot, shape.pot_len)) : nb::none();
  d[SUIT_PART_HELD] = on ? nb::object(list_of(suits.held, SUITED_SIZE)) : nb::none();
}

nb::dict get_state(Game& game) {
  const Hold hold(game.busy, GAME_IN_USE);
  const GameState& s = game.s;
  nb::dict d;
  visit_fields(s, s.num_players, s.num_teams,
               [&](const char* name, const auto& value, const auto& shape) { put(d, name, value, shape); });
  return d;
}

// ------------------------------------------------------------------ state in
struct Reader {
  nb::dict d;
  nb::object get(const char* name) {
    if (!d.contains(key(name))) throw std::invalid_argument(std::string("core state: the field '") + name + "' is missing");
    return d[key(name)];
  }
  [[noreturn]] static void bad(const char* name, const std::string& what) {
    throw std::invalid_argument(std::string("core state: field '") + name + "' " + what);
  }
  // An integer (not a bool) in low..high; ValueError naming the field and the value as
  // Python writes it (an int past 64 bits included).
  static bool in_range(nb::handle v, int64_t low, int64_t high, int64_t& out) {
    return nb::try_cast<int64_t>(v, out, false) && out >= low && out <= high;
  }
  static bool is_integer(nb::handle v) { return nb::isinstance<nb::int_>(v) && !nb::isinstance<nb::bool_>(v); }
  static std::string range_text(int64_t low, int64_t high) {
    return ">= " + std::to_string(low) + " and <= " + std::to_string(high);
  }
  int64_t integer(const char* name, int64_t low, int64_t high) {
    nb::object v = get(name);
    if (!is_integer(v)) bad(name, "must be an integer");
    int64_t x;
    if (!in_range(v, low, high, x)) bad(name, "must be " + range_text(low, high) + ", got " + nb::str(v).c_str());
    return x;
  }
  bool flag(const char* name) {
    nb::object v = get(name);
    if (!nb::isinstance<nb::bool_>(v)) bad(name, "must be a boolean");
    return nb::cast<bool>(v);
  }
  bool is_none(const char* name) { return get(name).is_none(); }
  // One of END_REASONS, as its END_* index (-1 for any other value).
  int end_reason(const char* name) {
    nb::object v = get(name);
    if (!nb::isinstance<nb::str>(v)) return -1;
    const std::string text = nb::cast<std::string>(v);
    for (int i = 0; i < static_cast<int>(std::size(END_REASONS)); ++i)
      if (text == END_REASONS[i]) return i;
    return -1;
  }
  std::vector<int64_t> ints(nb::handle v, const char* name, size_t min_len, size_t max_len, int64_t low, int64_t high) {
    if (!nb::isinstance<nb::list>(v) && !nb::isinstance<nb::tuple>(v)) bad(name, "must be a list");
    std::vector<int64_t> out;
    for (nb::handle item : v) {
      if (!is_integer(item)) bad(name, "must hold integers");
      int64_t x;
      if (!in_range(item, low, high, x))
        bad(name, std::string("holds ") + nb::str(item).c_str() + ", outside " + std::to_string(low) + ".." + std::to_string(high));
      out.push_back(x);
    }
    if (out.size() < min_len || out.size() > max_len)
      bad(name, "must hold " + (min_len == max_len ? std::to_string(min_len) : std::to_string(min_len) + ".." + std::to_string(max_len)) + " entries, got " + std::to_string(out.size()));
    return out;
  }
  template <class T, size_t W>
  void rows(const char* name, T (*out)[W], int rows, int width, int64_t low, int64_t high) {
    nb::object v = get(name);
    if (!nb::isinstance<nb::list>(v) || nb::len(v) != static_cast<size_t>(rows)) bad(name, "must be a list of " + std::to_string(rows) + " rows");
    int r = 0;
    for (nb::handle row : v) {
      auto values = ints(row, name, width, width, low, high);
      for (int i = 0; i < width; ++i) out[r][i] = static_cast<T>(values[i]);
      ++r;
    }
  }
  template <class T>
  void row(const char* name, T* out, int width, int64_t low, int64_t high) {
    auto values = ints(get(name), name, width, width, low, high);
    for (int i = 0; i < width; ++i) out[i] = static_cast<T>(values[i]);
  }
};

// Card conservation (state_io's check_card_conservation): every card of the deck lies
// in exactly one place: the stock, the pot, a hand, the held pot cards, a team's melds,
// finished canastas and runs, or laid out as a red 3. It bounds every array the core
// writes into as it plays (the pot grows by the discards, a hand by the draws, a meld by
// the cards laid) by the deck, which fits MAX_CARDS (Rules::from_values). A field that
// alone brings a kind past the deck is named.
void check_cards(const GameState& s, const Rules& rules, const std::string& rules_name) {
  const auto deck = deck_counts(rules.num_decks, rules.jokers_per_deck);
  int64_t seen[NUM_KINDS] = {};
  auto add = [&](const char* field, int kind, int64_t count) {
    seen[kind] += count;
    if (seen[kind] > deck[kind])
      Reader::bad(field, std::string("brings the cards of kind '") + KIND_NAMES[kind] + "' to " +
                             std::to_string(seen[kind]) + ", more than the " + rules_name + " deck holds (" +
                             std::to_string(deck[kind]) + "; card conservation)");
  };
  for (int i = 0; i < s.stock.len; ++i) add("stock", s.stock[i], 1);
  for (int i = 0; i < s.pot.len; ++i) add("pot", s.pot[i], 1);
  for (int seat = 0; seat < s.num_players; ++seat)
    for (int k = 0; k < NUM_KINDS; ++k) add("hands", k, s.hands[seat][k]);
  for (int k = 0; k < NUM_KINDS; ++k) add("held", k, s.held[k]);
  for (int t = 0; t < s.num_teams; ++t) {
    // the wild-card slot holds no naturals (a natural there is no card of any kind)
    if (s.nat[t][SLOT_WILD]) Reader::bad("nat", "holds naturals in the wild-card slot");
    for (int slot = 0; slot < NUM_SLOTS; ++slot) {
      if (slot != SLOT_WILD) add("nat", natural_kind(slot), s.nat[t][slot]);
      add("two", TWO, s.two[t][slot]);
      add("jok", JOKER, s.jok[t][slot]);
    }
    for (int i = 0; i < s.closed[t].len; ++i) {
      const Closed& c = s.closed[t][i];
      if (c.slot == SLOT_WILD && c.naturals) Reader::bad("closed", "holds naturals in a wild-card canasta");
      if (c.slot != SLOT_WILD) add("closed", natural_kind(c.slot), c.naturals);
      add("closed", TWO, c.twos);
      add("closed", JOKER, c.jokers);
    }
    for (int i = 0; i < s.escalas[t].len; ++i)
      for (int rank = s.escalas[t][i].start; rank < s.escalas[t][i].start + s.escalas[t][i].length; ++rank)
        add("escalas", rank, 1);
    add("red3", RED3, s.red3[t]);
  }
  for (int k = 0; k < NUM_KINDS; ++k)
    if (seen[k] != deck[k])
      throw std::invalid_argument(std::string("core state: card conservation violated for '") + KIND_NAMES[k] +
                                  "': " + std::to_string(seen[k]) + " in stock + pot + hands + held + melds + "
                                  "closed canastas + runs + red 3s, but the " + rules_name + " deck holds " +
                                  std::to_string(deck[k]));
}

// S-19 (state_io's check_suits and the Suits component): a suit for every natural of the
// stock and pot and none for the other cards; the suited counts of each hand and of the
// held cards are its naturals, suit by suit; no natural of one suit more often than the
// decks hold it. The core indexes its suited arrays by kind * 4 + suit as it draws,
// discards and lays runs, so a missing suit or a count that disagrees is refused here.
void check_suits(const GameState& s, const Rules& rules) {
  int64_t seen[SUITED_SIZE] = {};
  auto pile = [&](const char* field, const uint8_t* kinds, const int8_t* suits, int len) {
    for (int i = 0; i < len; ++i) {
      const bool natural = kinds[i] < NUM_NATURALS;
      if (natural ? suits[i] < 0 : suits[i] != -1)
        Reader::bad(field, natural ? "must give a suit 0..3 for every natural" : "must give -1 for every card but a natural");
      if (natural) ++seen[kinds[i] * NUM_SUITS + suits[i]];
    }
  };
  pile(SUIT_PART_STOCK, s.stock.items, s.suits.stock, s.stock.len);
  pile(SUIT_PART_POT, s.pot.items, s.suits.pot, s.pot.len);
  auto counts = [&](const char* field, const int16_t* kinds, const int16_t* suited) {
    for (int k = 0; k < NUM_NATURALS; ++k) {
      int64_t sum = 0;
      for (int suit = 0; suit < NUM_SUITS; ++suit) {
        sum += suited[k * NUM_SUITS + suit];
        seen[k * NUM_SUITS + suit] += suited[k * NUM_SUITS + suit];
      }
      if (sum != kinds[k]) Reader::bad(field, std::string("must count the ") + KIND_NAMES[k] + " of its cards suit by suit");
    }
  };
  for (int seat = 0; seat < s.num_players; ++seat) counts(SUIT_PART_HANDS, s.hands[seat], s.suits.hands[seat]);
  counts(SUIT_PART_HELD, s.held, s.suits.held);
  for (int t = 0; t < s.num_teams; ++t)
    for (int i = 0; i < s.escalas[t].len; ++i) {
      const Run& run = s.escalas[t][i];
      for (int rank = run.start; rank < run.start + run.length; ++rank) ++seen[rank * NUM_SUITS + run.suit];
    }
  for (int index = 0; index < SUITED_SIZE; ++index)
    if (seen[index] > rules.num_decks)
      throw std::invalid_argument(std::string("core state: ") + std::to_string(seen[index]) + " " +
                                  KIND_NAMES[index / NUM_SUITS] + " of suit " + std::to_string(index % NUM_SUITS) +
                                  " in stock + pot + hands + held + runs, but the decks hold " +
                                  std::to_string(rules.num_decks));
}

// One `read` per shape of state.hpp: the value checked (type, range, length against its
// array) and written into the new state; a bad one raises ValueError naming the field.
template <class T>
void read(Reader& in, const char* name, T& value, const field::Int& shape) {
  value = static_cast<T>(in.integer(name, shape.low, shape.high));
}
template <class T>
void read(Reader& in, const char* name, T& value, const field::Same& shape) {
  if (in.integer(name, shape.low, shape.high) != shape.value)
    Reader::bad(name, std::string("must be ") + shape.what + std::to_string(shape.value));
  value = static_cast<T>(shape.value);
}
void read(Reader& in, const char* name, bool& value, const field::Flag&) { value = in.flag(name); }
template <class T>
void read(Reader& in, const char* name, T& value, const field::Maybe& shape) {
  value = in.is_none(name) ? T(-1) : static_cast<T>(in.integer(name, shape.low, shape.high));
}
template <class T, size_t N>
void read(Reader& in, const char* name, T (&values)[N], const field::Row& shape) {
  in.row(name, values, shape.len, shape.low, shape.high);
}
template <class T, size_t N>
void read(Reader& in, const char* name, T (&values)[N], const field::SeatTeams& shape) {
  in.row(name, values, shape.seats, 0, shape.teams - 1);
  for (int seat = 0; seat < shape.seats; ++seat)
    if (values[seat] != team_of_seat(shape.seats, seat)) Reader::bad(name, "must follow G-3");
}
template <class T, size_t R, size_t W>
void read(Reader& in, const char* name, T (&values)[R][W], const field::Rows& shape) {
  in.rows(name, values, shape.rows, shape.width, shape.low, shape.high);
}
template <size_t N>
void read(Reader& in, const char* name, bool (&values)[N], const field::Flags& shape) {
  nb::object flags = in.get(name);
  if (!nb::isinstance<nb::list>(flags) || nb::len(flags) != static_cast<size_t>(shape.len))
    Reader::bad(name, "must be a list of booleans per team");
  int i = 0;
  for (nb::handle flag : flags) {
    if (!nb::isinstance<nb::bool_>(flag)) Reader::bad(name, "must hold booleans");
    values[i++] = nb::cast<bool>(flag);
  }
}
// At most MAX_CARDS - 1: a discard or a turned card may still join the pile.
void read(Reader& in, const char* name, Pile& pile, const field::Cards&) {
  auto cards = in.ints(in.get(name), name, 0, MAX_CARDS - 1, 0, NUM_KINDS - 1);
  pile.len = static_cast<int16_t>(cards.size());
  for (size_t i = 0; i < cards.size(); ++i) pile[i] = static_cast<uint8_t>(cards[i]);
}
void read(Reader& in, const char* name, Rng& rng, const field::Generator&) {
  nb::object state = in.get(name);
  if (!nb::isinstance<nb::tuple>(state) || nb::len(state) != 3 || !nb::tuple(state)[2].is_none())
    Reader::bad(name, "must be a random.Random state (3, words, None)");
  rng = rng_from_words(in.ints(nb::tuple(state)[1], name, Rng::N + 1, Rng::N + 1, 0, 0xffffffffLL));
}
void read(Reader& in, const char* name, std::vector<HandRecord>& records, const field::Records& shape) {
  nb::object history = in.get(name);
  if (!nb::isinstance<nb::list>(history)) Reader::bad(name, "must be a list");
  for (nb::handle entry : history) {
    if (!nb::isinstance<nb::dict>(entry)) Reader::bad(name, "must hold dicts");
    Reader er{nb::borrow<nb::dict>(entry)};
    HandRecord record{};
    record.hand = static_cast<int32_t>(er.integer("hand", 0, MAX_COUNT));
    record.reason = er.end_reason("reason");
    if (record.reason < 0) Reader::bad(name, "holds an unknown reason");
    auto scores = er.ints(er.get("scores"), name, shape.teams, shape.teams, -MAX_SCORE, MAX_SCORE);
    for (int t = 0; t < shape.teams; ++t) record.scores[t] = scores[t];
    records.push_back(record);
  }
}
void read(Reader& in, const char* name, Canastas (&closed)[MAX_TEAMS], const field::TeamCanastas& shape) {
  nb::object teams = in.get(name);
  if (!nb::isinstance<nb::list>(teams) || nb::len(teams) != static_cast<size_t>(shape.teams))
    Reader::bad(name, "must be a list per team");
  int t = 0;
  for (nb::handle team : teams) {
    if (!nb::isinstance<nb::list>(team) || nb::len(team) > Canastas::CAPACITY)
      Reader::bad(name, "must hold lists of at most " + std::to_string(Canastas::CAPACITY) + " canastas");
    for (nb::handle c : team) {
      if (!nb::isinstance<nb::tuple>(c) || nb::len(c) != 5)
        Reader::bad(name, "must hold (slot, naturals, twos, jokers, hidden) tuples");
      nb::tuple tup = nb::borrow<nb::tuple>(c);
      auto v = in.ints(nb::make_tuple(tup[0], tup[1], tup[2], tup[3]), name, 4, 4, 0, 255);
      if (v[0] >= NUM_SLOTS || !nb::isinstance<nb::bool_>(tup[4])) Reader::bad(name, "holds a bad canasta");
      closed[t][closed[t].len++] = Closed{uint8_t(v[0]), uint8_t(v[1]), uint8_t(v[2]), uint8_t(v[3]),
                                         uint8_t(nb::cast<bool>(tup[4]))};
    }
    ++t;
  }
}
void read(Reader& in, const char* name, Runs (&escalas)[MAX_TEAMS], const field::TeamRuns& shape) {
  nb::object teams = in.get(name);
  if (!nb::isinstance<nb::list>(teams) || nb::len(teams) != static_cast<size_t>(shape.teams))
    Reader::bad(name, "must be a list per team");
  int t = 0;
  for (nb::handle team : teams) {
    if (!nb::isinstance<nb::list>(team) || nb::len(team) > Runs::CAPACITY)
      Reader::bad(name, "must hold lists of at most " + std::to_string(Runs::CAPACITY) + " runs");
    for (nb::handle r : team) {
      if (!nb::isinstance<nb::tuple>(r) || nb::len(r) != 3) Reader::bad(name, "must hold (suit, start, length) tuples");
      auto v = in.ints(r, name, 3, 3, 0, NUM_NATURALS);
      if (v[0] > 3 || v[1] + v[2] > NUM_NATURALS) Reader::bad(name, "holds a bad run");
      escalas[t][escalas[t].len++] = Run{int8_t(v[0]), uint8_t(v[1]), uint8_t(v[2])};
    }
    ++t;
  }
}
void read(Reader& in, const char* name, int8_t& reason, const field::Reason& shape) {
  if (in.is_none(name)) {
    reason = END_NONE;
  } else {
    reason = static_cast<int8_t>(in.end_reason(name));
    if (reason == END_NONE) Reader::bad(name, "must be one of END_REASONS or None");
  }
  if (shape.hand_over != (reason != END_NONE)) Reader::bad(name, "must be set exactly when the hand is over");
}
void read(Reader& in, const char* name, Sheet (&sheets)[MAX_TEAMS], const field::Sheets& shape) {
  if (!shape.hand_over) {
    if (!in.is_none(name)) Reader::bad(name, "must be None while the hand goes on");
    return;
  }
  nb::object teams = in.get(name);
  if (!nb::isinstance<nb::list>(teams) || nb::len(teams) != static_cast<size_t>(shape.teams))
    Reader::bad(name, "must be a sheet per team once the hand is over");
  int t = 0;
  for (nb::handle sheet : teams) {
    if (!nb::isinstance<nb::dict>(sheet)) Reader::bad(name, "must hold dicts");
    Reader sr{nb::borrow<nb::dict>(sheet)};
    Sheet& out = sheets[t++];
#define CANASTA_SHEET_ROW(name) out.name = sr.integer(#name, -MAX_SCORE, MAX_SCORE);
    CANASTA_SHEET_ROWS(CANASTA_SHEET_ROW)
#undef CANASTA_SHEET_ROW
    out.canastas = static_cast<int32_t>(sr.integer("canastas", 0, 1 << 20));
  }
}
// S-19: the four parts, each a list exactly when the rules follow suits (`tracked`, set
// from the rules before the fields are read); their lengths are the piles' and the
// hands'. Whether they agree with the kinds is check_suits', after every field is read.
void read(Reader& in, const char*, Suits& suits, const field::SuitParts& shape) {
  const bool on = suits.tracked;
  for (const char* name : {SUIT_PART_STOCK, SUIT_PART_HANDS, SUIT_PART_POT, SUIT_PART_HELD})
    if (in.is_none(name) == on)
      Reader::bad(name, on ? "must be a list (S-19 sequences are on)" : "must be None (S-19 sequences are off)");
  if (!on) return;
  auto stock = in.ints(in.get(SUIT_PART_STOCK), SUIT_PART_STOCK, shape.stock_len, shape.stock_len, -1, NUM_SUITS - 1);
  for (size_t i = 0; i < stock.size(); ++i) suits.stock[i] = static_cast<int8_t>(stock[i]);
  in.rows(SUIT_PART_HANDS, suits.hands, shape.seats, SUITED_SIZE, 0, MAX_CARDS);
  auto pot = in.ints(in.get(SUIT_PART_POT), SUIT_PART_POT, shape.pot_len, shape.pot_len, -1, NUM_SUITS - 1);
  for (size_t i = 0; i < pot.size(); ++i) suits.pot[i] = static_cast<int8_t>(pot[i]);
  in.row(SUIT_PART_HELD, suits.held, SUITED_SIZE, 0, MAX_CARDS);
}

// The totals the engine keeps must agree with the counts (Game.state_changed recounts
// them in Python; a state that disagrees is refused rather than played wrongly), and no
// red 3 is held (G-6: the core lays them out as it draws, never from a hand).
void check_totals(const GameState& s) {
  for (int seat = 0; seat < s.num_players; ++seat) {
    int sum = 0;
    for (int k = 0; k < NUM_KINDS; ++k) sum += s.hands[seat][k];
    if (sum != s.hand_totals[seat]) Reader::bad("hand_totals", "must be the sum of each hand");
    if (s.hands[seat][RED3]) Reader::bad("hands", "must hold no red 3 (G-6)");
  }
  if (s.held[RED3]) Reader::bad("held", "must hold no red 3 (G-6)");
  for (int t = 0; t < s.num_teams; ++t) {  // state.py table_cards
    int64_t cards = s.red3[t];
    for (int slot = 0; slot < NUM_SLOTS; ++slot) cards += s.nat[t][slot] + s.two[t][slot] + s.jok[t][slot];
    for (int i = 0; i < s.closed[t].len; ++i) cards += s.closed[t][i].naturals + s.closed[t][i].twos + s.closed[t][i].jokers;
    for (int i = 0; i < s.escalas[t].len; ++i) cards += s.escalas[t][i].length;
    if (cards != s.table_totals[t]) Reader::bad("table_totals", "must count the cards on each team's table");
  }
  for (int seat = 0; seat < s.num_players; ++seat) {  // state.py history_entries
    int64_t entries = 0;
    for (int k = 0; k < NUM_HAND_KINDS; ++k) entries += s.discarded[seat][k] + s.declined[seat][k];
    if (entries != s.history_totals[seat]) Reader::bad("history_totals", "must count each seat's discards and declines");
  }
}

// A state dict (CoreGame.load's values) as the GameState of `game`: every field of
// CANASTA_STATE_FIELDS read and checked in order, then the totals, the cards'
// conservation and suits, before anything is written; a bad field raises ValueError
// naming it. `game` does not change.
GameState read_state(const Game& game, nb::dict d) {
  Reader in{d};
  GameState s{};
  s.suits.tracked = game.rules.sequences;
  visit_fields(s, game.s.num_players, game.s.num_teams,
               [&](const char* name, auto& value, const auto& shape) { read(in, name, value, shape); });
  check_totals(s);
  check_cards(s, game.rules, game.rules_name);
  if (s.suits.tracked) check_suits(s, game.rules);
  return s;
}

// Overwrite the game's state with a dict's; a bad field raises and changes nothing.
void set_state(Game& game, nb::dict d) {
  const Hold hold(game.busy, GAME_IN_USE);
  game.s = read_state(game, d);
  game.state_changed();
}

nb::ndarray<nb::numpy, int8_t, nb::ndim<1>> mask_array(Game& game) {
  const Hold hold(game.busy, GAME_IN_USE);
  int8_t* data = new int8_t[NUM_ACTIONS];
  std::memcpy(data, game.mask(), NUM_ACTIONS);
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int8_t*>(p); });
  return nb::ndarray<nb::numpy, int8_t, nb::ndim<1>>(data, {static_cast<size_t>(NUM_ACTIONS)}, owner);
}

// Game.hidden_counts: the cards by kind (int16 [num_players + 2, NUM_KINDS]) that the
// observation hides from someone: each seat's hand (rows 0..num_players-1), the stock (row
// num_players) and the face-down pot cards (row num_players + 1). game.py hidden_counts.
nb::ndarray<nb::numpy, int16_t, nb::ndim<2>> hidden_counts(Game& game) {
  const Hold hold(game.busy, GAME_IN_USE);
  const GameState& s = game.s;
  const int seats = s.num_players;
  const size_t rows = static_cast<size_t>(seats + 2);
  int16_t* data = new int16_t[rows * NUM_KINDS]();
  for (int seat = 0; seat < seats; ++seat)
    std::memcpy(data + seat * NUM_KINDS, s.hands[seat], NUM_KINDS * sizeof(int16_t));
  int16_t* stock = data + seats * NUM_KINDS;
  for (int i = 0; i < s.stock.len; ++i) ++stock[s.stock[i]];
  int16_t* face_down = stock + NUM_KINDS;
  for (int i = 0; i < s.pot_hidden; ++i) ++face_down[s.pot[i]];
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int16_t*>(p); });
  return nb::ndarray<nb::numpy, int16_t, nb::ndim<2>>(
      data, {rows, static_cast<size_t>(NUM_KINDS)}, owner);
}

std::vector<int> legal_list(Game& game) {
  const Hold hold(game.busy, GAME_IN_USE);
  int count;
  const int16_t* legal = game.legal_actions(&count);
  return std::vector<int>(legal, legal + count);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "The compiled Canasta engine (csrc/), bit for bit the Python engine; see canasta_env/core.py.";
  m.attr("NUM_ACTIONS") = NUM_ACTIONS;
  // The state's fields as state.hpp declares them, in order (engine/state.py's, less the
  // rules and the seed; tests/test_state_fields.py compares the lists).
  {
    nb::list names;
    for (const char* name : STATE_FIELDS) names.append(name);
    m.attr("STATE_FIELDS") = nb::tuple(names);
  }

  nb::class_<Rules>(m, "Rules")
      .def_static("from_values", &Rules::from_values, nb::arg("values"),
                  "Rules from canasta_env.core.rules_values(rules, num_players).");

  // Every method of a Game holds its BusyFlag for the call (busy.hpp: one thread at a time;
  // random_steps, play_bots and a batch's steps release the GIL); the read-only properties
  // read one number each and take no flag.
  nb::class_<Game>(m, "Game")
      .def("__init__",
           [](Game* self, const Rules& rules, const std::string& name, int num_players,
              const std::vector<int64_t>& rng_words, nb::object deck, nb::object deck_suits) {
             auto stacked = deck_of(deck, deck_suits);
             new (self) Game(std::make_shared<const Rules>(rules), name, num_players,
                             rng_from_words(rng_words), stacked.get());
           },
           nb::arg("rules"), nb::arg("name"), nb::arg("num_players"), nb::arg("rng_words"),
           nb::arg("deck").none() = nb::none(), nb::arg("deck_suits").none() = nb::none())
      .def("legal_actions", &legal_list)
      .def("mask", &mask_array)
      // The game's own mask buffer as an int8 array, no copy (it lives as long as the
      // game and changes with it): CoreGame keeps one and copies it per call, after
      // update_mask, which is cheaper than a fresh array from the core.
      .def("mask_view",
           [](Game& g) {
             const Hold hold(g.busy, GAME_IN_USE);
             auto* data = reinterpret_cast<int8_t*>(const_cast<uint8_t*>(g.mask()));
             return nb::ndarray<nb::numpy, int8_t, nb::ndim<1>>(data, {static_cast<size_t>(NUM_ACTIONS)});
           },
           nb::rv_policy::reference_internal)
      .def("update_mask",
           [](Game& g) {
             const Hold hold(g.busy, GAME_IN_USE);
             g.mask();
           })
      .def("is_legal",
           [](Game& g, int action) {
             const Hold hold(g.busy, GAME_IN_USE);
             return g.is_legal(action);
           },
           nb::arg("action"))
      .def("apply",
           [](Game& g, int action) {
             const Hold hold(g.busy, GAME_IN_USE);
             g.apply(action);
           },
           nb::arg("action"))
      .def("next_hand",
           [](Game& g, nb::object deck, nb::object deck_suits) {
             const Hold hold(g.busy, GAME_IN_USE);
             auto stacked = deck_of(deck, deck_suits);
             g.next_hand(stacked.get());
           },
           nb::arg("deck").none() = nb::none(), nb::arg("deck_suits").none() = nb::none())
      .def("hidden_counts", &hidden_counts,
           "The cards by kind that the observation hides (int16 [num_players + 2, kinds]): "
           "each seat's hand, the stock, the face-down pot cards (Game.hidden_counts).")
      .def("get_state", &get_state)
      .def("set_state", &set_state, nb::arg("state"),
           "Load a state dict (CoreGame.load's values), every field checked first (ValueError "
           "naming the field: types, ranges, lengths, card conservation, S-19 suits); a bad "
           "one changes nothing.")
      .def_prop_ro("current_player", &Game::current_player)
      .def_prop_ro("hand_over", &Game::hand_over)
      .def_prop_ro("phase", [](const Game& g) { return int(g.s.phase); })
      .def_prop_ro("game_over", [](const Game& g) { return g.s.game_over; })
      .def_prop_ro("hand_index", [](const Game& g) { return g.s.hand_index; })
      .def_prop_ro("num_steps", [](const Game& g) { return g.s.num_steps; })
      .def_prop_ro("scores", [](const Game& g) { return std::vector<int64_t>(g.s.scores, g.s.scores + g.s.num_teams); })
      .def_prop_ro("winner_team", [](const Game& g) { return g.s.winner_team < 0 ? nb::none() : nb::cast(int(g.s.winner_team)); })
      .def_prop_ro("end_reason", [](const Game& g) { return g.s.end_reason < 0 ? nb::none() : nb::cast(std::string(END_REASONS[g.s.end_reason])); })
      .def("random_steps",
           [](Game& g, int64_t steps, uint32_t seed) {
             // a random masked policy on this game, in C++ (stops at the hand's end, or
             // where the player to act has no legal action)
             const Hold hold(g.busy, GAME_IN_USE);
             nb::gil_scoped_release release;
             Rng policy;
             policy.seed32(seed);
             int64_t done = 0;
             while (done < steps && !g.hand_over()) {
               int count;
               const int16_t* legal = g.legal_actions(&count);
               if (count == 0) break;  // a loaded position with no legal action: stuck
               g.apply(legal[policy.randbelow(static_cast<uint32_t>(count))]);
               ++done;
             }
             return done;
           },
           nb::arg("steps"), nb::arg("seed"));

  m.def("random_playout_steps",
        [](const Rules& rules, const std::string& name, int num_players, int64_t steps, uint32_t seed) {
          auto shared = std::make_shared<const Rules>(rules);
          nb::gil_scoped_release release;
          return random_playout(shared, name, num_players, steps, seed);
        },
        nb::arg("rules"), nb::arg("name"), nb::arg("num_players"), nb::arg("steps"), nb::arg("seed"),
        "Play `steps` random masked actions in C++ (new hands and games as needed); returns hands finished.");
  m.def("action_text", [](int action) { return std::string(action_text(action)); });
  m.def("_set_fault", [](int fault) { g_fault = fault; }, nb::arg("fault"),
        "Tests only (the positive control of the parity tests): 1 lets a plain take use one natural "
        "fewer (C-10), 2 adds 10 to the going-out bonus; 0 plays the rules.");
  m.def("_fault", []() { return g_fault; });
  bind_bots(m);   // the house bots (bot_bindings.cpp)
  bind_batch(m);  // the observation and the batched core (batch_bindings.cpp)
}
