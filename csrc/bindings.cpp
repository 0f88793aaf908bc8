// The Python face of the core (module canasta_env._core): thin, typed values in and out.
// canasta_env/core.py wraps it (CoreGame) and converts to and from the Python Game.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstring>

#include "batch_bindings.hpp"
#include "game.hpp"

namespace nb = nanobind;
using namespace canasta;

namespace {

const char* const END_NAMES[3] = {"went out", "stock exhausted", "black-3 canasta"};
const char* const SHEET_KEYS[8] = {"melded", "canasta_bonus", "sequences", "red3",
                                    "count_bonus", "going_out", "hand_penalty", "total"};

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

nb::dict sheet_dict(const Sheet& sheet) {
  nb::dict d;
  const int64_t values[8] = {sheet.melded, sheet.canasta_bonus, sheet.sequences, sheet.red3,
                             sheet.count_bonus, sheet.going_out, sheet.hand_penalty, sheet.total};
  for (int i = 0; i < 8; ++i) d[SHEET_KEYS[i]] = values[i];
  d["canastas"] = static_cast<int64_t>(sheet.canastas);
  return d;
}

// ------------------------------------------------------------------ state out
nb::dict get_state(const Game& game) {
  const GameState& s = game.s;
  const int n = s.num_players, teams = s.num_teams;
  nb::dict d;
  d["num_players"] = s.num_players;
  d["num_teams"] = s.num_teams;
  d["team_of"] = list_of(s.team_of, n);
  nb::list words = list_of(s.rng.mt, Rng::N);
  words.append(static_cast<int64_t>(s.rng.index));
  d["rng"] = nb::make_tuple(3, nb::tuple(words), nb::none());
  d["scores"] = list_of(s.scores, teams);
  d["hand_index"] = s.hand_index;
  d["game_over"] = s.game_over;
  d["winner_team"] = s.winner_team < 0 ? nb::none() : nb::cast(static_cast<int>(s.winner_team));
  nb::list history;
  for (const auto& record : s.hand_history) {
    nb::dict entry;
    entry["hand"] = record.hand;
    entry["reason"] = END_NAMES[record.reason];
    entry["scores"] = list_of(record.scores.data(), teams);
    history.append(entry);
  }
  d["hand_history"] = history;
  d["first_player"] = static_cast<int>(s.first_player);
  d["current"] = static_cast<int>(s.current);
  d["phase"] = static_cast<int>(s.phase);
  d["num_steps"] = s.num_steps;
  d["stock"] = list_of(s.stock, s.stock_len);
  d["stock_suits"] = s.suited ? nb::object(list_of(s.stock_suits, s.stock_len)) : nb::none();
  d["hands"] = rows_of(s.hands, n, NUM_KINDS);
  d["hand_totals"] = list_of(s.hand_totals, n);
  d["hand_suits"] = s.suited ? nb::object(rows_of(s.hand_suits, n, SUITED_SIZE)) : nb::none();
  d["known"] = rows_of(s.known, n, NUM_KINDS);
  d["nat"] = rows_of(s.nat, teams, NUM_SLOTS);
  d["two"] = rows_of(s.two, teams, NUM_SLOTS);
  d["jok"] = rows_of(s.jok, teams, NUM_SLOTS);
  nb::list closed, escalas;
  for (int t = 0; t < teams; ++t) {
    nb::list cl, el;
    for (int i = 0; i < s.closed_len[t]; ++i) {
      const Closed& c = s.closed[t][i];
      cl.append(nb::make_tuple(int(c.slot), int(c.naturals), int(c.twos), int(c.jokers), bool(c.hidden)));
    }
    for (int i = 0; i < s.escalas_len[t]; ++i) {
      const Run& r = s.escalas[t][i];
      el.append(nb::make_tuple(int(r.suit), int(r.start), int(r.length)));
    }
    closed.append(cl);
    escalas.append(el);
  }
  d["closed"] = closed;
  d["escalas"] = escalas;
  d["red3"] = list_of(s.red3, teams);
  d["table_totals"] = list_of(s.table_totals, teams);
  nb::list opened;
  for (int t = 0; t < teams; ++t) opened.append(bool(s.opened[t]));
  d["opened"] = opened;
  d["need"] = list_of(s.need, teams);
  d["went_out"] = s.went_out < 0 ? nb::none() : nb::cast(static_cast<int>(s.went_out));
  d["concealed"] = s.concealed;
  d["end_reason"] = s.end_reason < 0 ? nb::none() : nb::cast(std::string(END_NAMES[s.end_reason]));
  if (s.phase == PHASE_HAND_OVER) {
    nb::list sheets;
    for (int t = 0; t < teams; ++t) sheets.append(sheet_dict(s.hand_scores[t]));
    d["hand_scores"] = sheets;
  } else {
    d["hand_scores"] = nb::none();
  }
  d["pot"] = list_of(s.pot, s.pot_len);
  d["pot_suits"] = s.suited ? nb::object(list_of(s.pot_suits, s.pot_len)) : nb::none();
  d["pot_known"] = list_of(s.pot_known, NUM_KINDS);
  d["pot_hidden"] = static_cast<int>(s.pot_hidden);
  d["pot_wild"] = s.pot_wild;
  d["pot_start_frozen"] = s.pot_start_frozen;
  d["staged"] = s.staged;
  d["held"] = list_of(s.held, NUM_KINDS);
  d["held_suits"] = s.suited ? nb::object(list_of(s.held_suits, SUITED_SIZE)) : nb::none();
  d["took_pot"] = s.took_pot;
  d["clean_only"] = s.clean_only;
  d["hidden_open"] = s.hidden_open;
  d["melded_this_turn"] = s.melded_this_turn;
  d["opened_at_turn_start"] = s.opened_at_turn_start;
  d["had_clean_at_turn_start"] = s.had_clean_at_turn_start;
  d["discarded"] = rows_of(s.discarded, n, NUM_HAND_KINDS);
  d["declined"] = rows_of(s.declined, n, NUM_HAND_KINDS);
  d["since_discard"] = rows_of(s.since_discard, n, NUM_HAND_KINDS);
  d["history_totals"] = list_of(s.history_totals, n);
  return d;
}

// ------------------------------------------------------------------ state in
struct Reader {
  nb::dict d;
  nb::object get(const char* name) {
    if (!d.contains(name)) throw std::invalid_argument(std::string("core state: the field '") + name + "' is missing");
    return d[name];
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
  // One of END_NAMES, as its END_* index (-1 for any other value).
  int end_reason(const char* name) {
    nb::object v = get(name);
    if (!nb::isinstance<nb::str>(v)) return -1;
    const std::string text = nb::cast<std::string>(v);
    for (int i = 0; i < 3; ++i)
      if (text == END_NAMES[i]) return i;
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
  for (int i = 0; i < s.stock_len; ++i) add("stock", s.stock[i], 1);
  for (int i = 0; i < s.pot_len; ++i) add("pot", s.pot[i], 1);
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
    for (int i = 0; i < s.closed_len[t]; ++i) {
      const Closed& c = s.closed[t][i];
      if (c.slot == SLOT_WILD && c.naturals) Reader::bad("closed", "holds naturals in a wild-card canasta");
      if (c.slot != SLOT_WILD) add("closed", natural_kind(c.slot), c.naturals);
      add("closed", TWO, c.twos);
      add("closed", JOKER, c.jokers);
    }
    for (int i = 0; i < s.escalas_len[t]; ++i)
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
  pile("stock_suits", s.stock, s.stock_suits, s.stock_len);
  pile("pot_suits", s.pot, s.pot_suits, s.pot_len);
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
  for (int seat = 0; seat < s.num_players; ++seat) counts("hand_suits", s.hands[seat], s.hand_suits[seat]);
  counts("held_suits", s.held, s.held_suits);
  for (int t = 0; t < s.num_teams; ++t)
    for (int i = 0; i < s.escalas_len[t]; ++i) {
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

// A state dict (CoreGame.load's values) as the GameState of `game`: every field read and
// checked, with the cards' conservation and suits, before anything is written; a bad
// field raises ValueError naming it. `game` does not change.
GameState read_state(const Game& game, nb::dict d) {
  Reader in{d};
  GameState s{};
  const int n = game.s.num_players, teams = game.s.num_teams;
  if (in.integer("num_players", 2, 6) != n) Reader::bad("num_players", "must be the game's " + std::to_string(n));
  if (in.integer("num_teams", 1, 3) != teams) Reader::bad("num_teams", "must be " + std::to_string(teams));
  s.num_players = n;
  s.num_teams = teams;
  in.row("team_of", s.team_of, n, 0, teams - 1);
  for (int seat = 0; seat < n; ++seat)
    if (s.team_of[seat] != team_of_seat(n, seat)) Reader::bad("team_of", "must follow G-3");
  {
    nb::object rng = in.get("rng");
    if (!nb::isinstance<nb::tuple>(rng) || nb::len(rng) != 3 || !nb::tuple(rng)[2].is_none())
      Reader::bad("rng", "must be a random.Random state (3, words, None)");
    s.rng = rng_from_words(in.ints(nb::tuple(rng)[1], "rng", Rng::N + 1, Rng::N + 1, 0, 0xffffffffLL));
  }
  const int64_t BIG = int64_t(1) << 60;
  in.row("scores", s.scores, teams, -BIG, BIG);
  s.hand_index = static_cast<int32_t>(in.integer("hand_index", 0, 1 << 30));
  s.game_over = in.flag("game_over");
  s.winner_team = in.is_none("winner_team") ? -1 : static_cast<int8_t>(in.integer("winner_team", 0, teams - 1));
  {
    nb::object history = in.get("hand_history");
    if (!nb::isinstance<nb::list>(history)) Reader::bad("hand_history", "must be a list");
    for (nb::handle entry : history) {
      if (!nb::isinstance<nb::dict>(entry)) Reader::bad("hand_history", "must hold dicts");
      nb::dict e = nb::borrow<nb::dict>(entry);
      HandRecord record{};
      Reader er{e};
      record.hand = static_cast<int32_t>(er.integer("hand", 0, 1 << 30));
      record.reason = er.end_reason("reason");
      if (record.reason < 0) Reader::bad("hand_history", "holds an unknown reason");
      auto scores = er.ints(er.get("scores"), "hand_history", teams, teams, -BIG, BIG);
      for (int t = 0; t < teams; ++t) record.scores[t] = scores[t];
      s.hand_history.push_back(record);
    }
  }
  s.first_player = static_cast<int8_t>(in.integer("first_player", 0, n - 1));
  s.current = static_cast<int8_t>(in.integer("current", 0, n - 1));
  s.phase = static_cast<int8_t>(in.integer("phase", 0, 2));
  s.num_steps = static_cast<int32_t>(in.integer("num_steps", 0, 1 << 30));
  s.suited = game.rules.sequences;
  const char* suited_fields[] = {"stock_suits", "hand_suits", "pot_suits", "held_suits"};
  for (const char* name : suited_fields)
    if (in.is_none(name) == s.suited) Reader::bad(name, s.suited ? "must be a list (S-19 sequences are on)" : "must be None (S-19 sequences are off)");
  {
    auto stock = in.ints(in.get("stock"), "stock", 0, MAX_CARDS - 1, 0, NUM_KINDS - 1);
    s.stock_len = static_cast<int16_t>(stock.size());
    for (size_t i = 0; i < stock.size(); ++i) { s.stock[i] = static_cast<uint8_t>(stock[i]); s.stock_suits[i] = -1; }
    if (s.suited) {
      auto suits = in.ints(in.get("stock_suits"), "stock_suits", stock.size(), stock.size(), -1, 3);
      for (size_t i = 0; i < suits.size(); ++i) s.stock_suits[i] = static_cast<int8_t>(suits[i]);
    }
  }
  in.rows("hands", s.hands, n, NUM_KINDS, 0, MAX_CARDS);
  in.row("hand_totals", s.hand_totals, n, 0, MAX_CARDS);
  if (s.suited) in.rows("hand_suits", s.hand_suits, n, SUITED_SIZE, 0, MAX_CARDS);
  in.rows("known", s.known, n, NUM_KINDS, 0, MAX_CARDS);
  in.rows("nat", s.nat, teams, NUM_SLOTS, 0, 255);
  in.rows("two", s.two, teams, NUM_SLOTS, 0, 255);
  in.rows("jok", s.jok, teams, NUM_SLOTS, 0, 255);
  {
    nb::object closed = in.get("closed"), escalas = in.get("escalas");
    if (!nb::isinstance<nb::list>(closed) || nb::len(closed) != static_cast<size_t>(teams)) Reader::bad("closed", "must be a list per team");
    if (!nb::isinstance<nb::list>(escalas) || nb::len(escalas) != static_cast<size_t>(teams)) Reader::bad("escalas", "must be a list per team");
    int t = 0;
    for (nb::handle team_list : closed) {
      if (!nb::isinstance<nb::list>(team_list) || nb::len(team_list) > MAX_CLOSED) Reader::bad("closed", "must hold lists of at most " + std::to_string(MAX_CLOSED) + " canastas");
      for (nb::handle c : team_list) {
        if (!nb::isinstance<nb::tuple>(c) || nb::len(c) != 5) Reader::bad("closed", "must hold (slot, naturals, twos, jokers, hidden) tuples");
        nb::tuple tup = nb::borrow<nb::tuple>(c);
        auto v = in.ints(nb::make_tuple(tup[0], tup[1], tup[2], tup[3]), "closed", 4, 4, 0, 255);
        if (v[0] >= NUM_SLOTS || !nb::isinstance<nb::bool_>(tup[4])) Reader::bad("closed", "holds a bad canasta");
        s.closed[t][s.closed_len[t]++] = Closed{uint8_t(v[0]), uint8_t(v[1]), uint8_t(v[2]), uint8_t(v[3]), uint8_t(nb::cast<bool>(tup[4]))};
      }
      ++t;
    }
    t = 0;
    for (nb::handle team_list : escalas) {
      if (!nb::isinstance<nb::list>(team_list) || nb::len(team_list) > MAX_RUNS) Reader::bad("escalas", "must hold lists of at most " + std::to_string(MAX_RUNS) + " runs");
      for (nb::handle r : team_list) {
        if (!nb::isinstance<nb::tuple>(r) || nb::len(r) != 3) Reader::bad("escalas", "must hold (suit, start, length) tuples");
        auto v = in.ints(r, "escalas", 3, 3, 0, NUM_NATURALS);
        if (v[0] > 3 || v[1] + v[2] > NUM_NATURALS) Reader::bad("escalas", "holds a bad run");
        s.escalas[t][s.escalas_len[t]++] = Run{int8_t(v[0]), uint8_t(v[1]), uint8_t(v[2])};
      }
      ++t;
    }
  }
  in.row("red3", s.red3, teams, 0, MAX_CARDS);
  in.row("table_totals", s.table_totals, teams, 0, MAX_CARDS);
  {
    nb::object opened = in.get("opened");
    if (!nb::isinstance<nb::list>(opened) || nb::len(opened) != static_cast<size_t>(teams)) Reader::bad("opened", "must be a list of booleans per team");
    int t = 0;
    for (nb::handle o : opened) {
      if (!nb::isinstance<nb::bool_>(o)) Reader::bad("opened", "must hold booleans");
      s.opened[t++] = nb::cast<bool>(o);
    }
  }
  in.row("need", s.need, teams, 0, 1 << 30);
  s.went_out = in.is_none("went_out") ? -1 : static_cast<int8_t>(in.integer("went_out", 0, n - 1));
  s.concealed = in.flag("concealed");
  if (in.is_none("end_reason")) {
    s.end_reason = END_NONE;
  } else {
    s.end_reason = static_cast<int8_t>(in.end_reason("end_reason"));
    if (s.end_reason == END_NONE) Reader::bad("end_reason", "must be one of END_REASONS or None");
  }
  if ((s.phase == PHASE_HAND_OVER) != (s.end_reason != END_NONE))
    Reader::bad("end_reason", "must be set exactly when the hand is over");
  if (s.phase == PHASE_HAND_OVER) {
    nb::object sheets = in.get("hand_scores");
    if (!nb::isinstance<nb::list>(sheets) || nb::len(sheets) != static_cast<size_t>(teams)) Reader::bad("hand_scores", "must be a sheet per team once the hand is over");
    int t = 0;
    for (nb::handle sheet : sheets) {
      if (!nb::isinstance<nb::dict>(sheet)) Reader::bad("hand_scores", "must hold dicts");
      Reader sr{nb::borrow<nb::dict>(sheet)};
      int64_t* fields[8] = {&s.hand_scores[t].melded, &s.hand_scores[t].canasta_bonus, &s.hand_scores[t].sequences, &s.hand_scores[t].red3,
                            &s.hand_scores[t].count_bonus, &s.hand_scores[t].going_out, &s.hand_scores[t].hand_penalty, &s.hand_scores[t].total};
      for (int i = 0; i < 8; ++i) *fields[i] = sr.integer(SHEET_KEYS[i], -BIG, BIG);
      s.hand_scores[t].canastas = static_cast<int32_t>(sr.integer("canastas", 0, 1 << 20));
      ++t;
    }
  } else if (!in.is_none("hand_scores")) {
    Reader::bad("hand_scores", "must be None while the hand goes on");
  }
  {
    auto pot = in.ints(in.get("pot"), "pot", 0, MAX_CARDS - 1, 0, NUM_KINDS - 1);
    s.pot_len = static_cast<int16_t>(pot.size());
    for (size_t i = 0; i < pot.size(); ++i) { s.pot[i] = static_cast<uint8_t>(pot[i]); s.pot_suits[i] = -1; }
    if (s.suited) {
      auto suits = in.ints(in.get("pot_suits"), "pot_suits", pot.size(), pot.size(), -1, 3);
      for (size_t i = 0; i < suits.size(); ++i) s.pot_suits[i] = static_cast<int8_t>(suits[i]);
    }
  }
  in.row("pot_known", s.pot_known, NUM_KINDS, 0, MAX_CARDS);
  s.pot_hidden = static_cast<int16_t>(in.integer("pot_hidden", 0, s.pot_len));
  s.pot_wild = in.flag("pot_wild");
  s.pot_start_frozen = in.flag("pot_start_frozen");
  s.staged = static_cast<int32_t>(in.integer("staged", 0, 1 << 30));
  in.row("held", s.held, NUM_KINDS, 0, MAX_CARDS);
  if (s.suited) in.row("held_suits", s.held_suits, SUITED_SIZE, 0, MAX_CARDS);
  s.took_pot = in.flag("took_pot");
  s.clean_only = in.flag("clean_only");
  s.hidden_open = in.flag("hidden_open");
  s.melded_this_turn = in.flag("melded_this_turn");
  s.opened_at_turn_start = in.flag("opened_at_turn_start");
  s.had_clean_at_turn_start = in.flag("had_clean_at_turn_start");
  in.rows("discarded", s.discarded, n, NUM_HAND_KINDS, 0, MAX_CARDS);
  in.rows("declined", s.declined, n, NUM_HAND_KINDS, 0, MAX_CARDS);
  in.rows("since_discard", s.since_discard, n, NUM_HAND_KINDS, 0, MAX_CARDS);
  in.row("history_totals", s.history_totals, n, 0, 1 << 30);
  // the totals the engine keeps must agree with the counts (state_changed recounts them
  // in Python; a state that disagrees is refused rather than played wrongly)
  for (int seat = 0; seat < n; ++seat) {
    int sum = 0;
    for (int k = 0; k < NUM_KINDS; ++k) sum += s.hands[seat][k];
    if (sum != s.hand_totals[seat]) Reader::bad("hand_totals", "must be the sum of each hand");
    if (s.hands[seat][RED3]) Reader::bad("hands", "must hold no red 3 (G-6)");
  }
  if (s.held[RED3]) Reader::bad("held", "must hold no red 3 (G-6)");
  for (int t = 0; t < teams; ++t) {  // state.py table_cards
    int64_t cards = s.red3[t];
    for (int slot = 0; slot < NUM_SLOTS; ++slot) cards += s.nat[t][slot] + s.two[t][slot] + s.jok[t][slot];
    for (int i = 0; i < s.closed_len[t]; ++i) cards += s.closed[t][i].naturals + s.closed[t][i].twos + s.closed[t][i].jokers;
    for (int i = 0; i < s.escalas_len[t]; ++i) cards += s.escalas[t][i].length;
    if (cards != s.table_totals[t]) Reader::bad("table_totals", "must count the cards on each team's table");
  }
  for (int seat = 0; seat < n; ++seat) {  // state.py history_entries
    int64_t entries = 0;
    for (int k = 0; k < NUM_HAND_KINDS; ++k) entries += s.discarded[seat][k] + s.declined[seat][k];
    if (entries != s.history_totals[seat]) Reader::bad("history_totals", "must count each seat's discards and declines");
  }
  check_cards(s, game.rules, game.rules_name);
  if (s.suited) check_suits(s, game.rules);
  return s;
}

// Overwrite the game's state with a dict's; a bad field raises and changes nothing.
void set_state(Game& game, nb::dict d) {
  game.s = read_state(game, d);
  game.state_changed();
}

nb::ndarray<nb::numpy, int8_t, nb::ndim<1>> mask_array(Game& game) {
  int8_t* data = new int8_t[NUM_ACTIONS];
  std::memcpy(data, game.mask(), NUM_ACTIONS);
  nb::capsule owner(data, [](void* p) noexcept { delete[] static_cast<int8_t*>(p); });
  return nb::ndarray<nb::numpy, int8_t, nb::ndim<1>>(data, {static_cast<size_t>(NUM_ACTIONS)}, owner);
}

std::vector<int> legal_list(Game& game) {
  int count;
  const int16_t* legal = game.legal_actions(&count);
  return std::vector<int>(legal, legal + count);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "The compiled Canasta engine (csrc/), bit for bit the Python engine; see canasta_env/core.py.";
  m.attr("NUM_ACTIONS") = NUM_ACTIONS;

  nb::class_<Rules>(m, "Rules")
      .def_static("from_values", &Rules::from_values, nb::arg("values"),
                  "Rules from canasta_env.core.rules_values(rules, num_players).");

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
             auto* data = reinterpret_cast<int8_t*>(const_cast<uint8_t*>(g.mask()));
             return nb::ndarray<nb::numpy, int8_t, nb::ndim<1>>(data, {static_cast<size_t>(NUM_ACTIONS)});
           },
           nb::rv_policy::reference_internal)
      .def("update_mask", [](Game& g) { g.mask(); })
      .def("is_legal", &Game::is_legal)
      .def("apply", &Game::apply, nb::arg("action"))
      .def("next_hand",
           [](Game& g, nb::object deck, nb::object deck_suits) {
             auto stacked = deck_of(deck, deck_suits);
             g.next_hand(stacked.get());
           },
           nb::arg("deck").none() = nb::none(), nb::arg("deck_suits").none() = nb::none())
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
      .def_prop_ro("end_reason", [](const Game& g) { return g.s.end_reason < 0 ? nb::none() : nb::cast(std::string(END_NAMES[g.s.end_reason])); })
      .def("random_steps",
           [](Game& g, int64_t steps, uint32_t seed) {
             // a random masked policy on this game, in C++ (stops at the hand's end, or
             // where the player to act has no legal action)
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
  bind_batch(m);  // the observation and the batched core (batch_bindings.cpp)
}
