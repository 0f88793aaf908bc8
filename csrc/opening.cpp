// The turn search (engine/opening.py), on plain nodes.
#include "opening.hpp"

#include <algorithm>
#include <atomic>
#include <string>
#include <unordered_map>
#include <vector>

#include "turn_bounds.hpp"

namespace canasta {

namespace {

// An open-addressing table of key -> feasible, one per thread and search, valid for one
// turn of one game (the answers are functions of the key and of facts fixed for the
// turn: the player and so the team, its opening minimum, S-15's clean canasta at turn
// start). A generation stamp clears it; it grows with the search up to MAX_SIZE slots
// (a table that forgets answers mid-search makes a search repeat itself) and shrinks
// back at the next turn. Key: a plain struct of whole words, compared byte for byte.
template <class Key, uint32_t MAX_SIZE>
struct Table {
  static constexpr uint32_t MIN_SIZE = 1u << 12;
  static_assert(sizeof(Key) % 8 == 0, "a key is a whole number of words");
  struct Entry {
    Key key;
    uint32_t generation;
    uint8_t result;
  };
  std::vector<Entry> entries = std::vector<Entry>(MIN_SIZE);
  uint32_t mask = MIN_SIZE - 1;
  uint32_t generation = 1;
  uint32_t used = 0;
  uint64_t turn = 0;  // the turn id (Game::turn_id_) the entries belong to

  void reset(bool shrink) {
    if (shrink && entries.size() > MIN_SIZE) {  // a big search is over: give its memory back
      std::vector<Entry>(MIN_SIZE).swap(entries);
      mask = MIN_SIZE - 1;
      generation = 1;
    } else if (++generation == 0) {  // wrapped: entries stamped long ago would look current
      for (Entry& e : entries) e.generation = 0;
      generation = 1;
    }
    used = 0;
  }
  static uint64_t hash(const Key& key) {
    uint64_t words[sizeof(Key) / 8];
    std::memcpy(words, &key, sizeof(Key));
    // two independent multiply chains (cheap; the probe compares whole keys anyway)
    uint64_t a = 0x9e3779b97f4a7c15ULL, b = 0xc2b2ae3d27d4eb4fULL;
    constexpr int N = sizeof(Key) / 8;
    for (int i = 0; i + 1 < N; i += 2) {
      a = (a ^ words[i]) * 0xff51afd7ed558ccdULL;
      b = (b ^ words[i + 1]) * 0xc4ceb9fe1a85ec53ULL;
    }
    if (N % 2) a = (a ^ words[N - 1]) * 0xff51afd7ed558ccdULL;
    const uint64_t h = a ^ (b >> 1) ^ (a >> 31);
    return h ^ (h >> 29);
  }
  int find(const Key& key, uint64_t h) const {  // -1 absent, else 0/1
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
      const Entry& e = entries[i];
      if (e.generation != generation) return -1;
      if (std::memcmp(&e.key, &key, sizeof(Key)) == 0) return e.result;
    }
  }
  void store(const Key& key, uint64_t h, bool result) {
    if (used >= entries.size() / 2) {
      if (entries.size() < MAX_SIZE) grow();
      else reset(false);  // as opening.py clears its memos past MEMO_MAX entries
    }
    for (uint32_t i = h & mask;; i = (i + 1) & mask) {
      Entry& e = entries[i];
      if (e.generation != generation) {
        e.key = key;
        e.generation = generation;
        e.result = result;
        ++used;
        return;
      }
      if (std::memcmp(&e.key, &key, sizeof(Key)) == 0) {
        e.result = result;
        return;
      }
    }
  }
  void grow() {
    std::vector<Entry> old(entries.size() * 2);
    old.swap(entries);
    mask = static_cast<uint32_t>(entries.size()) - 1;
    const uint32_t current = generation;
    generation = 1;
    for (const Entry& e : old) {
      if (e.generation != current) continue;
      for (uint32_t i = hash(e.key) & mask;; i = (i + 1) & mask) {
        Entry& slot = entries[i];
        if (slot.generation != generation) {
          slot.key = e.key;
          slot.generation = generation;
          slot.result = e.result;
          break;
        }
      }
    }
  }
};

// The slot search's key (opening.py _SlotState.memo_key): the id of (position, facts of
// the turn, the untouched slots after it), the state's counts and its flags.
struct SlotKey {
  static constexpr int VALUES = 13;  // cn ct cj hn qn hb ht hj qb qt qj staged count
  uint32_t suffix;
  int16_t values[VALUES];
  uint16_t flags;
};
static_assert(sizeof(SlotKey) == 32, "a key is four words, without padding");

// The slot search's memo (40-byte entries: 2 M slots, 80 MB, hold far more states than
// the adversarial positions of benchmarks/bench_turn_search.py reach), with the ids of
// the suffixes met this turn.
struct Memo : Table<SlotKey, (1u << 21)> {
  using Key = SlotKey;
  static constexpr int VALUES = SlotKey::VALUES;
  std::unordered_map<std::string, uint32_t> suffixes;  // suffix key -> id, for the turn

  uint32_t suffix(const std::string& key) {
    auto found = suffixes.find(key);
    if (found != suffixes.end()) return found->second;
    const uint32_t id = static_cast<uint32_t>(suffixes.size());
    suffixes.emplace(key, id);
    return id;
  }
  void reset(bool shrink) {
    if (shrink && !suffixes.empty()) suffixes.clear();  // a new turn: its ids start again
    Table::reset(shrink);
  }
};

thread_local Memo memo;

// The search over whole positions' key (opening.py _dfs_expand): a node packed into bytes.
constexpr int NODE_KEY_BYTES = 2 * NUM_KINDS + 3 * NUM_SLOTS + 2 + 5 + 2 * 4;
struct NodeKey {
  uint8_t bytes[(NODE_KEY_BYTES + 7) / 8 * 8];
};

struct NodeMemo : Table<NodeKey, (1u << 19)> {
  using Key = NodeKey;
  // Pack a node; false where a count does not fit a byte (then it is not memoised).
  static bool pack(const Node& node, Key& key) {
    std::memset(&key, 0, sizeof(Key));
    uint8_t* out = key.bytes;
    int fits = 0;
    auto put = [&](const int16_t* values, int n) {
      for (int i = 0; i < n; ++i) {
        fits |= values[i];
        *out++ = static_cast<uint8_t>(values[i]);
      }
    };
    put(node.hand, NUM_KINDS);
    put(node.nat, NUM_SLOTS);
    put(node.two, NUM_SLOTS);
    put(node.jok, NUM_SLOTS);
    put(node.held, NUM_KINDS);
    put(&node.closed_count, 1);
    put(&node.closed_clean, 1);
    *out++ = node.closed_b3;
    *out++ = node.hidden_open;
    *out++ = node.opened;
    *out++ = node.took;
    *out++ = node.clean_only;
    std::memcpy(out, &node.total, 4);
    std::memcpy(out + 4, &node.staged, 4);
    return (fits & ~0xff) == 0;
  }
};

thread_local NodeMemo node_memo;

// An expansion budget spent: the slot search answers instead.
struct OverBudget {};


bool any_of(const int16_t* values, int n) {
  for (int i = 0; i < n; ++i)
    if (values[i]) return true;
  return false;
}

// S-11: does the team hold a canasta of black 3s (open or closed)?
bool black3_canasta(const Rules& rules, const Node& node) {
  return node.nat[SLOT_BLACK3] >= rules.canasta_size || node.closed_b3;
}

}  // namespace

std::atomic<uint64_t> last_turn_id{0};

uint64_t new_turn_id() { return ++last_turn_id; }

void search_memo_for_turn(uint64_t turn) {
  if (memo.turn == turn) return;
  memo.reset(true);
  memo.turn = turn;
  node_memo.reset(true);
  node_memo.turn = turn;
}

TurnSearch::TurnSearch(Game& g) : game(g), rules(g.rules), team(g.s.team_of[g.s.current]) {}

bool TurnSearch::go_out_allowed_counts(int count, int clean, int dirty) const {
  if (!canastas_let_go_out(rules, count, clean, dirty)) return false;
  if (rules.no_go_out_on_first_clean_turn && clean && !game.s.had_clean_at_turn_start)
    return false;  // S-15: not in the turn of the first clean canasta
  return true;
}

bool TurnSearch::go_out_allowed(const Node& node, bool opening_ok) const {
  if (!opening_ok) return false;
  auto sum = canasta_summary(rules, node.nat, node.two, node.jok, node.closed_count,
                             node.closed_clean);
  return go_out_allowed_counts(sum.count, sum.clean, sum.dirty);
}

void TurnSearch::game_node(Node& node) const {
  const GameState& s = game.s;
  std::memset(&node, 0, sizeof(Node));
  std::memcpy(node.hand, s.hands[s.current], sizeof(node.hand));
  std::memcpy(node.nat, s.nat[team], sizeof(node.nat));
  std::memcpy(node.two, s.two[team], sizeof(node.two));
  std::memcpy(node.jok, s.jok[team], sizeof(node.jok));
  std::memcpy(node.held, s.held, sizeof(node.held));
  node.closed_count = s.closed[team].len;
  node.closed_clean = static_cast<int16_t>(game.closed_clean(team));
  node.closed_b3 = game.team_has_black3_closed(team);
  node.total = s.hand_totals[s.current];
  node.staged = s.staged;
  node.hidden_open = s.hidden_open;
  node.opened = s.opened[team];
  node.took = s.took_pot;
  node.clean_only = s.clean_only;
}

bool TurnSearch::discard_allowed() const {
  const GameState& s = game.s;
  Node node;
  game_node(node);
  const int total = s.hand_totals[s.current];
  if (going_out_only(rules, node.nat) || (!s.opened[team] && s.melded_this_turn)) {
    // C-7: black 3s on the table, or G-5: an opening staged but not complete: only
    // going out may end the turn now (concealed, C-15, for an unopened team)
    return total == 1 && go_out_allowed(node, game.opening_done(team));
  }
  if (total >= 2) return true;
  return total == 1 && go_out_allowed(node, game.opening_done(team));
}

bool TurnSearch::move_feasible(const Move& move, const Node& node) {
  Node next;
  child(node, move, next);
  return node_ok(next);
}

bool TurnSearch::take_feasible(const TakeOption& option) {
  const GameState& s = game.s;
  const int top = s.pot[s.pot.len - 1];
  // The rest of the pot; its red 3s are laid out (G-6). Legality uses only what the
  // player can see (G-8): face-down cards count as if they were red 3s.
  int16_t rest[NUM_KINDS] = {0};
  int rest_total = 0;
  for (int i = s.pot_hidden; i < s.pot.len - 1; ++i)
    if (s.pot[i] != RED3) {
      ++rest[s.pot[i]];
      ++rest_total;
    }
  Node node;
  game_node(node);
  node.total = s.hand_totals[s.current] - option.naturals - option.twos - option.jokers;
  NodeClosed sink{&node};
  const int64_t points =
      take_top(rules, node.hand, node.nat, node.two, node.jok, sink, top, option);
  if (s.opened[team]) {
    // C-12: the rest of the pot joins the hand at once and may be melded
    for (int k = 0; k < NUM_KINDS; ++k) node.hand[k] += rest[k];
    node.total += rest_total + std::min(rules.draw_after_pot_take, static_cast<int>(s.stock.len));
    if (node.total >= 2) return true;
    node.staged = 0;
    node.hidden_open = 0;
    std::memset(node.held, 0, sizeof(node.held));
    node.opened = 1;
    node.took = s.took_pot;
    node.clean_only = s.clean_only;
    return node_ok(node);
  }
  // I-7, I-10: in some presets the take binds the turn to a clean opening
  node.staged = static_cast<int32_t>(points);
  node.hidden_open = 0;
  std::memcpy(node.held, rest, sizeof(rest));
  node.opened = 0;
  node.took = 1;
  node.clean_only = s.clean_only || rules.unopened_take_needs_clean_opening;
  return node_ok(node);
}

bool TurnSearch::hand_after_ok(const int16_t* hand, int total) {
  Node node;
  game_node(node);
  std::memcpy(node.hand, hand, sizeof(node.hand));
  node.total = total;
  node.opened = 1;
  return node_ok(node);
}

void TurnSearch::child(const Node& node, const Move& move, Node& out) const {
  out = node;
  NodeClosed sink{&out};
  const bool hidden = lay(rules, out.hand, out.nat, out.two, out.jok, sink, move);
  if (out.opened) {
    std::memset(out.held, 0, sizeof(out.held));
  } else {
    out.staged += static_cast<int32_t>(meld_points(move.slot, move.naturals, move.twos, move.jokers));
    out.hidden_open = out.hidden_open || (hidden && rules.hidden_canasta_opens);
  }
  out.total -= move.naturals + move.twos + move.jokers;
}

bool TurnSearch::node_ok(const Node& node) {
  const int64_t need = game.s.need[team];
  const bool opened = node.opened || node.staged >= need || node.hidden_open;
  int64_t total = node.total;
  if (opened && !node.opened)
    for (int k = 0; k < NUM_KINDS; ++k) total += node.held[k];
  const bool goo = going_out_only(rules, node.nat);
  if (opened && total >= 2 && !goo) return true;  // a discard ends the turn, at once
  if (!opened && !goo && opens_plainly(node)) return true;
  if (!may_end(node, opened, goo)) return false;  // quick bounds: going out or the opening
  if (goo) {  // only going out ends the turn (C-7): the slot search prunes that best
    if (!rules.black3_canasta_wins_game) {
      if (!any_of(node.held, NUM_KINDS)) {  // (held cards join mid-turn: the search's)
        const bool concealed_ok = rules.concealed_go_out_ignores_minimum && !node.took;
        const int out = can_meld_out(node, opened, concealed_ok);
        if (out >= 0) return out == 1;
      }
    }
    SlotSearch search(game, team, node);
    return search.run();
  }
  // the search over whole positions answers most positions fastest (its memo serves
  // every move of the turn); past its budget the slot search, whose states are bounded,
  // answers instead: both are exact, so the answer is the same
  budget = DFS_BUDGET;
  try {
    return dfs_ok(node);
  } catch (const OverBudget&) {
    SlotSearch search(game, team, node);
    return search.run();
  }
}

int TurnSearch::can_meld_out(const Node& node, bool opened, bool concealed_ok) const {
  if (rules.meld_closes_at || rules.wild_melds || rules.min_natural_excess ||
      rules.go_out_needs_discard || rules.go_out_needs_clean_and_dirty ||
      rules.no_go_out_on_first_clean_turn || rules.hidden_canasta_opens || node.clean_only ||
      node.closed_count)
    return -1;
  const int16_t* hand = node.hand;
  int lone[2];
  int lone_count = 0;
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int have = hand[rank];
    // a new meld from the hand: 2 naturals at least (the action layout)
    if (have && have < std::max<int64_t>(2, rules.min_naturals) &&
        !(node.nat[rank] || node.two[rank] || node.jok[rank])) {
      if (lone_count >= 1) return 0;  // two such ranks: melding out is impossible
      lone[lone_count++] = rank;
    }
  }
  int choices[NUM_HAND_KINDS + 1];
  int num_choices = 0;
  if (lone_count) {
    choices[num_choices++] = lone[0];
  } else {
    choices[num_choices++] = -1;  // None: no discard
    for (int kind = 0; kind < NUM_HAND_KINDS; ++kind)
      if (hand[kind]) choices[num_choices++] = kind;
  }
  const bool check_points = !(opened || concealed_ok);
  int64_t lacking = 0, points = 0;
  if (check_points) {
    lacking = game.s.need[team] - node.staged;
    for (int kind = 0; kind < NUM_HAND_KINDS; ++kind) points += CARD_VALUES[kind] * hand[kind];
  }
  for (int i = 0; i < num_choices; ++i) {
    const int discard = choices[i];
    int16_t left[NUM_KINDS];
    std::memcpy(left, hand, sizeof(left));
    if (discard >= 0) --left[discard];
    if (check_points) {
      const int64_t melded = discard < 0 ? points : points - CARD_VALUES[discard];
      if (melded < lacking) continue;
    }
    if (melds_out(left, node)) return 1;
  }
  return 0;
}

bool TurnSearch::melds_out(const int16_t* left, const Node& node) const {
  const int64_t size_needed = rules.canasta_size;
  const int64_t wilds = left[TWO] + left[JOKER];
  int64_t least = 0, room = 0;
  int64_t canastas = 0;
  int64_t extra[NUM_NATURALS];
  int num_extra = 0;
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int64_t have = left[rank];
    const int64_t placed = node.two[rank] + node.jok[rank];
    int64_t minimum;
    if (node.nat[rank] + placed) {
      minimum = 0;
    } else if (!have) {
      continue;
    } else if (have < std::max<int64_t>(2, rules.min_naturals)) {
      return false;  // a natural that no meld can take
    } else {
      // a new meld from the hand has at least 3 cards (the action layout)
      const int64_t least_size = std::max<int64_t>(3, rules.min_meld_size);
      minimum = have < least_size ? least_size - have : 0;
    }
    const int64_t naturals = node.nat[rank] + have;
    const int64_t free =
        (rules.max_wilds_per_meld < naturals ? rules.max_wilds_per_meld : naturals) - placed;
    if (free < minimum) return false;
    least += minimum;
    room += free;
    const int64_t lacking = size_needed - naturals - placed;
    if (lacking <= 0) {
      ++canastas;
    } else if (lacking <= free) {
      extra[num_extra++] = (lacking > minimum ? lacking : minimum) - minimum;
    }
  }
  const int64_t black3 = node.nat[SLOT_BLACK3] + left[BLACK3];
  if (left[BLACK3] &&
      (black3 > rules.black3_meld_max_size || black3 < std::max<int64_t>(3, rules.min_meld_size)))
    return false;
  if (black3 >= size_needed) ++canastas;
  if (!(least <= wilds && wilds <= room)) return false;
  const int64_t missing = rules.go_out_min_canastas - canastas;
  if (missing <= 0) return true;
  std::sort(extra, extra + num_extra);
  if (num_extra < missing) return false;
  int64_t sum = 0;
  for (int64_t i = 0; i < missing; ++i) sum += extra[i];
  return sum <= wilds - least;
}

// The search over whole positions (opening.py _dfs_ok).
bool TurnSearch::dfs_ok(const Node& in) {
  Node node = in;
  const bool opened = node.opened || node.staged >= game.s.need[team] || node.hidden_open;
  const bool concealed_ok = rules.concealed_go_out_ignores_minimum && !node.took;
  if (opened && any_of(node.held, NUM_KINDS)) {
    // C-8: the pot cards held aside join the hand once the minimum is reached
    for (int k = 0; k < NUM_KINDS; ++k) {
      node.total += node.held[k];
      node.hand[k] += node.held[k];
    }
    std::memset(node.held, 0, sizeof(node.held));
  }
  if (rules.black3_canasta_wins_game && opened && node.total && black3_canasta(rules, node))
    return true;  // S-11: a black-3 canasta ends the game at once
  if (opened && node.total >= 2 && !going_out_only(rules, node.nat)) return true;
  if (node.total == 0)
    return !rules.go_out_needs_discard && go_out_allowed(node, opened || concealed_ok);
  if (node.total == 1 && go_out_allowed(node, opened || concealed_ok)) return true;
  if (!opened && node.total > 0 && !may_still_open(node, concealed_ok)) return false;
  node.opened = opened;
  return dfs_expand(node);
}
bool TurnSearch::may_still_open(const Node& node, bool concealed_ok) const {
  const int16_t* hand = node.hand;
  const int64_t wilds = hand[TWO] + hand[JOKER];
  const int64_t size = rules.canasta_size;  // S-8: a whole canasta laid at once opens
  if (concealed_ok || (rules.hidden_canasta_opens && (wilds >= size || hand[BLACK3] >= size)))
    return true;
  int64_t bound = node.staged + CARD_VALUES[TWO] * hand[TWO] + CARD_VALUES[JOKER] * hand[JOKER];
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int64_t have = hand[rank];
    if (have >= 2 || (have && node.nat[rank] + node.two[rank] + node.jok[rank])) {
      bound += CARD_VALUES[rank] * have;
      if (rules.hidden_canasta_opens && have + wilds >= size && 2 * have >= size) return true;
    }
  }
  if (rules.black3_melds) bound += CARD_VALUES[BLACK3] * hand[BLACK3];
  return bound >= game.s.need[team];
}

bool TurnSearch::dfs_expand(const Node& node) {
  NodeMemo::Key key;
  const bool memoised = NodeMemo::pack(node, key);
  const uint64_t h = memoised ? NodeMemo::hash(key) : 0;
  if (memoised) {
    const int found = node_memo.find(key, h);
    if (found >= 0) return found == 1;
  }
  if (--budget < 0) throw OverBudget{};
  if (!may_end(node, node.opened, going_out_only(rules, node.nat))) {
    if (memoised) node_memo.store(key, h, false);  // (the quick bounds, once a position)
    return false;
  }
  int16_t moves[NUM_ACTIONS];
  const int count =
      meld_moves(game.tables, node.hand, node.nat, node.two, node.jok, node.clean_only, moves);
  bool result = false;
  Node next;
  for (int i = 0; i < count; ++i) {
    child(node, MOVES[moves[i]], next);
    if (dfs_ok(next)) {
      result = true;
      break;
    }
  }
  if (memoised) node_memo.store(key, h, result);
  return result;
}

// Quick upper bounds (turn_bounds.hpp) before any search: false where the turn surely
// cannot end (opening.py _may_end): only going out ends it (C-7) and its canastas are out
// of reach; or the team has not opened, cannot go out concealed (C-15) nor lay a hidden
// canasta (S-8), and cannot meld its opening minimum keeping the cards the end needs.
bool TurnSearch::may_end(const Node& node, bool opened, bool goo) const {
  const bool escape = rules.black3_canasta_wins_game &&
                      black3_canasta_in_reach(rules, node.hand, node.held, node.nat,
                                              node.closed_b3);  // S-11, a card left
  const bool out = going_out_in_reach(rules, node.hand, node.held, node.nat, node.two, node.jok,
                                      node.closed_count, node.closed_clean,
                                      game.s.had_clean_at_turn_start);
  if (goo && !out && !escape) return false;
  if (opened || (out && rules.concealed_go_out_ignores_minimum && !node.took)) return true;
  const MeldTables& tables = game.tables;
  if (hidden_canasta_possible(tables, node.hand, node.nat, node.two, node.jok, node.clean_only))
    return true;
  const int fewest = out ? (rules.go_out_needs_discard ? 1 : 0) : (escape ? 1 : 2);
  int64_t held = 0;
  for (int k = 0; k < NUM_KINDS; ++k) held += node.held[k];
  const int keep = static_cast<int>(std::max<int64_t>(0, fewest - held));
  return opening_in_reach(tables, node.hand, node.nat, node.two, node.jok, node.clean_only,
                          game.s.need[team] - node.staged, keep);
}

// A witness, found at once where it exists: new melds of naturals alone, a rank at a
// time (up to 7 cards, C-5's limits), reach the minimum and keep two cards in hand (the
// held pot cards joining, C-8) -- opening.py _opens_plainly.
bool TurnSearch::opens_plainly(const Node& node) const {
  const int64_t need = game.s.need[team];
  int64_t points = node.staged, left = node.total;
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int have = node.hand[rank];
    if (have < 3 || node.nat[rank] || node.two[rank] || node.jok[rank]) continue;
    const int laid = std::min(have, MAX_NEW_MELD);
    if (!game.tables.natural_meld_ok(laid, 0, 0)) continue;
    points += CARD_VALUES[rank] * laid;
    left -= laid;
    if (points >= need) {
      int64_t held = 0;
      for (int k = 0; k < NUM_KINDS; ++k) held += node.held[k];
      return left + held >= 2;
    }
  }
  return false;
}

// ---------------------------------------------------------------- the slot search
// The mirror of opening.py's _SlotSearch, state for state: the turn's meld moves taken
// slot after slot in ORDER (black 3s, the wild-only meld, then the natural ranks from
// FIRST_NATURAL on: opening.py's, in core_decls.hpp), each
// slot's moves before the opening (from the hand, counted towards the minimum) and then
// after it (hand and held pot cards, C-8); on a natural meld the wild cards are one
// count (jokers laid first before the opening, held ones, then 2s after it), a run
// without closing melds lays its naturals before its wild cards, and once only going
// out ends the turn (C-7) a state that leaves two cards behind is dead. The memo is
// keyed on the position, its meld and cards, the wild cards and black 3s left, the
// points staged (capped at the minimum), the capped counts of the slots passed and an
// id of the untouched slots after it.

SlotSearch::SlotSearch(Game& g, int team_, const Node& start)
    : game(g), rules(g.rules), tables(g.tables), node(start) {
  need = static_cast<int>(game.s.need[team_]);
  was_opened = start.opened;
  concealed_ok = rules.concealed_go_out_ignores_minimum && !start.took;
  has_held = !start.opened && any_of(start.held, NUM_KINDS);
  count_cap = static_cast<int>(std::min<int64_t>(rules.go_out_min_canastas, 30000));
  closes_at = rules.meld_closes_at;
  canasta_size = rules.canasta_size;
  max_wilds = rules.max_wilds_per_meld;
  may_hide = !start.opened && hidden_canasta_possible(tables, start.hand, start.nat, start.two,
                                                      start.jok, start.clean_only);
  b3_escape = rules.black3_canasta_wins_game;
  for (int r = 0; r < NUM_NATURALS; ++r) {
    hand_nat[r] = start.hand[r];
    held_nat[r] = has_held ? start.held[r] : 0;
  }
  for (int i = 0; i < NUM_SLOTS; ++i) {
    const int slot = ORDER[i];
    if (slot < NUM_NATURALS) {
      start_meld[i][0] = start.nat[slot];
      start_meld[i][1] = static_cast<int16_t>(start.two[slot] + start.jok[slot]);
      start_meld[i][2] = 0;
    } else {
      start_meld[i][0] = start.nat[slot];
      start_meld[i][1] = start.two[slot];
      start_meld[i][2] = start.jok[slot];
    }
  }
  suffix_hand[NUM_SLOTS] = suffix_held[NUM_SLOTS] = suffix_points[NUM_SLOTS] = 0;
  suffix_room[NUM_SLOTS] = 0;
  suffix_count[NUM_SLOTS] = suffix_clean[NUM_SLOTS] = suffix_dirty[NUM_SLOTS] = 0;
  for (int i = NUM_SLOTS - 1; i >= 0; --i) {
    const int slot = ORDER[i];
    const int n = start_meld[i][0], t = start_meld[i][1], j = start_meld[i][2];
    const bool natural = slot < NUM_NATURALS;
    const int in_hand = natural ? hand_nat[slot] : 0;
    const int in_held = natural ? held_nat[slot] : 0;
    suffix_hand[i] = suffix_hand[i + 1] + in_hand;
    suffix_held[i] = suffix_held[i + 1] + in_held;
    const bool meldable = in_hand >= 2 || (in_hand && n + t + j);
    suffix_points[i] = suffix_points[i + 1] + (natural && meldable ? CARD_VALUES[slot] * in_hand : 0);
    suffix_room[i] = suffix_room[i + 1];
    if (rules.black3_meld_only_going_out || concealed_ok)  // read then only
      suffix_room[i] += natural ? room(n, t, in_hand + in_held) : 0;
    suffix_count[i] = suffix_count[i + 1];
    suffix_clean[i] = suffix_clean[i + 1];
    suffix_dirty[i] = suffix_dirty[i + 1];
    if (n + t + j >= canasta_size) {
      ++suffix_count[i];
      if (canasta_clean(slot, t, j)) ++suffix_clean[i];
      else ++suffix_dirty[i];
    }
    suffix_id[i] = -1;
  }
  suffix_id[NUM_SLOTS] = -1;
}

int64_t SlotSearch::room(int64_t n, int64_t wilds, int64_t more) const {
  if (!(n || wilds || more >= 2)) return 0;
  if (closes_at) return std::max<int64_t>(0, n + more - wilds);
  return std::max<int64_t>(0, std::min<int64_t>(max_wilds, n + more - rules.min_natural_excess) - wilds);
}

uint32_t SlotSearch::suffix_of(int i) {
  if (suffix_id[i] >= 0) return static_cast<uint32_t>(suffix_id[i]);
  // (the position, the facts of the turn, the untouched slots after it) as bytes
  std::string key;
  key.reserve(16 + 2 * (3 * NUM_SLOTS + 2 * NUM_NATURALS));
  auto put = [&](int64_t v) {
    const int16_t x = static_cast<int16_t>(v);
    key.append(reinterpret_cast<const char*>(&x), 2);
  };
  put(i);
  put(need);
  put(was_opened | node.took << 1 | node.clean_only << 2 | has_held << 3 |
      game.s.had_clean_at_turn_start << 4);
  for (int k = i + 1; k < NUM_SLOTS; ++k)
    for (int c = 0; c < 3; ++c) put(start_meld[k][c]);
  const int first_rank = i >= FIRST_NATURAL ? ORDER[i] + 1 : 0;
  for (int r = first_rank; r < NUM_NATURALS; ++r) {
    put(hand_nat[r]);
    put(held_nat[r]);
  }
  const uint32_t id = memo.suffix(key);
  suffix_id[i] = static_cast<int64_t>(id);
  return id;
}

bool SlotSearch::run() {
  State st{};
  st.i = 0;
  st.cn = start_meld[0][0];
  st.ct = start_meld[0][1];
  st.cj = start_meld[0][2];
  st.hb = node.hand[BLACK3];
  st.ht = node.hand[TWO];
  st.hj = node.hand[JOKER];
  if (has_held) {
    st.qb = node.held[BLACK3];
    st.qt = node.held[TWO];
    st.qj = node.held[JOKER];
  }
  st.staged = static_cast<int16_t>(std::min<int64_t>(node.staged, need));
  st.hidden = node.hidden_open;
  const int closed_dirty = node.closed_count - node.closed_clean;
  st.count = static_cast<int16_t>(std::min<int>(node.closed_count, count_cap));
  st.clean = node.closed_clean > 0;
  st.dirty = closed_dirty > 0;
  st.b3c = node.closed_b3;
  return visit(st);
}

// Where only going out can end the turn: are two cards sure to stay in hand?
bool SlotSearch::stranded(const State& st) const {
  const bool frozen = st.wild_added && !closes_at && (st.post || !has_held);
  const int64_t behind =
      st.left_hand + st.left_held + st.hb + st.qb + (frozen ? st.hn + st.qn : 0);
  if (behind >= 2) return true;
  if (st.i >= FIRST_NATURAL || !rules.wild_melds) {  // the wild cards need room
    int64_t space = suffix_room[st.i + 1];
    if (st.i >= FIRST_NATURAL) space += room(st.cn, st.ct, st.hn + st.qn);
    return st.ht + st.hj + st.qt + st.qj - space + behind >= 2;
  }
  return false;
}

int64_t SlotSearch::points_bound(const State& st) const {
  int64_t bound = CARD_VALUES[TWO] * st.ht + CARD_VALUES[JOKER] * st.hj + suffix_points[st.i + 1];
  if (st.i == 0 && rules.black3_melds) bound += CARD_VALUES[BLACK3] * st.hb;
  const int slot = ORDER[st.i];
  if (slot < NUM_NATURALS && (st.hn >= 2 || (st.hn && st.cn + st.ct + st.cj)))
    bound += CARD_VALUES[slot] * st.hn;
  return bound;
}

bool SlotSearch::visit(const State& in) {
  State st = in;
  const bool opened = was_opened || st.staged >= need || st.hidden;
  if (st.i >= FIRST_NATURAL) {
    st.qt = static_cast<int16_t>(st.qt + st.qj);  // held wild cards: laid after the opening
    st.qj = 0;
    if (opened) {  // the points no longer matter: one count
      st.ht = static_cast<int16_t>(st.ht + st.hj);
      st.hj = 0;
    }
  }
  bool must_empty = st.i > 0 && st.goo && !(b3_escape && st.b3c);  // C-7
  if (st.staged < need && !(was_opened || st.hidden || may_hide) &&
      st.staged + points_bound(st) < need) {
    // G-5: the opening is out of reach; only a concealed going out (C-15) is left
    if (!concealed_ok) return false;
    must_empty = st.i > 0;
  }
  if (must_empty && stranded(st)) return false;
  Memo::Key key;
  std::memset(&key, 0, sizeof(key));
  key.suffix = suffix_of(st.i);
  const int16_t values[Memo::VALUES] = {st.cn, st.ct, st.cj, st.hn, st.qn, st.hb,
                                        st.ht, st.hj, st.qb, st.qt, st.qj, st.staged,
                                        st.count};
  std::memcpy(key.values, values, sizeof(values));
  key.flags = static_cast<uint16_t>(st.post | st.hidden << 1 | st.used_post << 2 |
                                    st.clean << 3 | st.dirty << 4 | st.b3c << 5 |
                                    st.goo << 6 | st.wild_added << 7 | st.left_hand << 8 |
                                    st.left_held << 10);
  const uint64_t h = Memo::hash(key);
  const int found = memo.find(key, h);
  if (found >= 0) return found == 1;
  const bool result = ends(st) || step(st);
  memo.store(key, h, result);
  return result;
}

bool SlotSearch::ends(const State& st) const {
  const int i = st.i;
  const bool opened = was_opened || st.staged >= need || st.hidden;
  if (st.used_post && !opened) return false;  // moves from held cards need the opening
  const bool current = i < NUM_SLOTS && ORDER[i] < NUM_NATURALS;
  const int after = std::min(i + 1, NUM_SLOTS);
  int64_t total =
      st.left_hand + (current ? st.hn : 0) + suffix_hand[after] + st.hb + st.ht + st.hj;
  if (opened && has_held)  // C-8: the held pot cards have joined the hand
    total += st.left_held + (current ? st.qn : 0) + suffix_held[after] + st.qb + st.qt + st.qj;
  int count = st.count, clean = st.clean, dirty = st.dirty;
  bool b3c = st.b3c, goo = st.goo;
  if (i < NUM_SLOTS) {  // the slot being worked on, then the untouched ones
    count += suffix_count[i + 1];
    clean += suffix_clean[i + 1];
    dirty += suffix_dirty[i + 1];
    if (st.cn + st.ct + st.cj >= canasta_size) {
      ++count;
      if (canasta_clean(ORDER[i], st.ct, st.cj)) ++clean;
      else ++dirty;
    }
    if (i == 0) {  // the black-3 slot
      b3c = b3c || st.cn >= canasta_size;
      goo = rules.black3_meld_only_going_out && st.cn > 0;
    }
  }
  if (b3_escape && opened && total && b3c) return true;  // S-11, with a card left (S-16)
  if (!goo && opened && total >= 2) return true;          // a discard ends the turn
  if (total >= 2) return false;
  if (!(opened || concealed_ok) || !canastas_let_go_out(rules, count, clean, dirty)) return false;
  if (rules.no_go_out_on_first_clean_turn && clean && !game.s.had_clean_at_turn_start)
    return false;  // S-15
  return total == 1 || !rules.go_out_needs_discard;
}

int SlotSearch::slot_moves(const State& st, bool wild_added, int have, int twos_in_hand,
                           int jokers_in_hand, SlotMove* out) const {
  const int slot = ORDER[st.i];
  const bool clean_only = node.clean_only;
  int n = 0;
  if (slot < NUM_NATURALS) {
    const int wilds_in_hand = twos_in_hand + jokers_in_hand;
    if (st.cn || st.ct) {
      // without closing melds a run lays its naturals before its wild cards
      if (have && tables.natural_meld_ok(st.cn + 1, st.ct, 0) && !(wild_added && !closes_at))
        out[n++] = {1, 0, 0, true, false};
      if (wilds_in_hand && !clean_only && tables.natural_meld_ok(st.cn, st.ct + 1, 0))
        out[n++] = {0, 1, 0, false, false};
    } else if (have >= 2) {
      const int most = std::min(have, MAX_NEW_MELD);
      const int wilds_cap = std::min(wilds_in_hand, 8);
      for (int k = 2; k <= most; ++k)
        for (int w = 0; w <= std::min(wilds_cap, k); ++w) {
          if (k + w < 3 || k + w > MAX_NEW_MELD) continue;
          if (!tables.natural_meld_ok(k, w, 0)) continue;
          if (clean_only && w) continue;
          out[n++] = {static_cast<uint8_t>(k), static_cast<uint8_t>(w), 0, false, true};
        }
    }
  } else if (slot == SLOT_BLACK3) {
    if (rules.black3_melds && have) {
      if (st.cn) {
        if (st.cn < rules.black3_meld_max_size) out[n++] = {1, 0, 0, false, false};
      } else {
        const int64_t top = std::min<int64_t>(have, rules.black3_meld_max_size);
        for (int64_t k = std::max<int64_t>(3, rules.min_meld_size); k <= top; ++k)
          out[n++] = {static_cast<uint8_t>(k), 0, 0, false, true};
      }
    }
  } else if (rules.wild_melds && (twos_in_hand || jokers_in_hand)) {
    const int size = st.ct + st.cj;
    if (size) {
      if (size < rules.wild_meld_max_size && !clean_only) {
        if (twos_in_hand) out[n++] = {0, 1, 0, false, false};
        if (jokers_in_hand) out[n++] = {0, 0, 1, false, false};
      }
    } else {
      for (const auto& o : tables.new_wild) {
        if (o.twos > twos_in_hand || o.jokers > jokers_in_hand) continue;
        if (clean_only && !tables.is_clean_wild_opening(o.twos, o.jokers)) continue;
        out[n++] = {0, o.twos, o.jokers, false, true};
      }
    }
  }
  return n;
}

bool SlotSearch::advance(const State& st) {
  const int slot = ORDER[st.i];
  State next = st;
  if (st.cn + st.ct + st.cj >= canasta_size) {
    next.count = static_cast<int16_t>(std::min<int>(st.count + 1, count_cap));
    if (canasta_clean(slot, st.ct, st.cj)) next.clean = 1;
    else next.dirty = 1;
    if (slot == SLOT_BLACK3) next.b3c = 1;
  }
  if (slot < NUM_NATURALS) {
    next.left_hand = static_cast<uint8_t>(std::min(2, st.left_hand + st.hn));
    next.left_held = static_cast<uint8_t>(std::min(2, st.left_held + st.qn));
  } else if (slot == SLOT_BLACK3) {
    next.goo = rules.black3_meld_only_going_out && st.cn > 0;
  }
  next.i = static_cast<int16_t>(st.i + 1);
  next.post = 0;
  next.wild_added = 0;
  if (next.i >= NUM_SLOTS) {
    next.cn = next.ct = next.cj = next.hn = next.qn = 0;
    return ends(next);
  }
  const int rank = ORDER[next.i];
  next.hn = rank < NUM_NATURALS ? hand_nat[rank] : 0;
  next.qn = rank < NUM_NATURALS ? held_nat[rank] : 0;
  next.cn = start_meld[next.i][0];
  next.ct = start_meld[next.i][1];
  next.cj = start_meld[next.i][2];
  return visit(next);
}

bool SlotSearch::step(const State& st) {
  const int i = st.i;
  if (i >= NUM_SLOTS) return false;
  const int slot = ORDER[i];
  const bool natural = slot < NUM_NATURALS;
  const int have = slot == SLOT_BLACK3 ? st.hb : st.hn;
  const int held_have = slot == SLOT_BLACK3 ? st.qb : st.qn;
  // black 3s left in hand: the least binding way on (C-7)
  if (slot == SLOT_BLACK3 && advance(st)) return true;
  SlotMove moves[64];
  for (int run = 0; run < 2; ++run) {
    const bool after_opening = run == 1;
    bool run_wild;
    int count;
    if (after_opening) {
      if (!has_held) break;
      run_wild = st.post ? st.wild_added : false;
      count = slot_moves(st, run_wild, have + held_have, st.ht + st.qt, st.hj + st.qj, moves);
    } else {
      if (st.post) continue;
      run_wild = st.wild_added;
      count = slot_moves(st, run_wild, have, st.ht, st.hj, moves);
    }
    for (int k = 0; k < count; ++k) {
      const SlotMove& m = moves[k];
      State next = st;
      int h_nat, q_nat;
      if (after_opening) {  // held cards first: the hand's serve the runs before
        int from_held = std::min<int>(m.naturals, held_have);
        h_nat = have - (m.naturals - from_held);
        q_nat = held_have - from_held;
        if (natural) {  // a wild count: held ones, then 2s, then jokers
          const int wilds = m.twos;
          from_held = std::min<int>(wilds, st.qt);
          next.qt = static_cast<int16_t>(st.qt - from_held);
          const int rest = wilds - from_held;
          const int from_twos = std::min<int>(rest, st.ht);
          next.ht = static_cast<int16_t>(st.ht - from_twos);
          next.hj = static_cast<int16_t>(st.hj - (rest - from_twos));
        } else {
          from_held = std::min<int>(m.twos, st.qt);
          next.ht = static_cast<int16_t>(st.ht - (m.twos - from_held));
          next.qt = static_cast<int16_t>(st.qt - from_held);
          from_held = std::min<int>(m.jokers, st.qj);
          next.hj = static_cast<int16_t>(st.hj - (m.jokers - from_held));
          next.qj = static_cast<int16_t>(st.qj - from_held);
        }
      } else {
        h_nat = have - m.naturals;
        q_nat = held_have;
        int laid_twos, laid_jokers;
        if (natural) {  // a wild count: jokers first (the most points)
          laid_jokers = std::min<int>(m.twos, st.hj);
          laid_twos = m.twos - laid_jokers;
        } else {
          laid_twos = m.twos;
          laid_jokers = m.jokers;
        }
        next.ht = static_cast<int16_t>(st.ht - laid_twos);
        next.hj = static_cast<int16_t>(st.hj - laid_jokers);
        if (!was_opened) {
          if (st.staged < need)
            next.staged = static_cast<int16_t>(std::min<int64_t>(
                need, st.staged + meld_points(slot, m.naturals, laid_twos, laid_jokers)));
          if (m.is_new && rules.hidden_canasta_opens &&
              m.naturals + m.twos + m.jokers == canasta_size)
            next.hidden = 1;
        }
      }
      int n = st.cn + m.naturals, t = st.ct + m.twos, j = st.cj + m.jokers;
      if (closes_at) {  // S-7: a full meld closes and its slot empties
        const int64_t limit = slot == SLOT_WILD ? rules.wild_meld_max_size : closes_at;
        if (n + t + j >= limit) {
          next.count = static_cast<int16_t>(std::min<int>(st.count + 1, count_cap));
          if (canasta_clean(slot, t, j)) next.clean = 1;
          else next.dirty = 1;
          if (slot == SLOT_BLACK3) next.b3c = 1;
          n = t = j = 0;
        }
      }
      next.cn = static_cast<int16_t>(n);
      next.ct = static_cast<int16_t>(t);
      next.cj = static_cast<int16_t>(j);
      next.post = after_opening;
      next.used_post = st.used_post || after_opening;
      next.wild_added = run_wild || (natural && m.twos > 0 && !closes_at);
      if (slot == SLOT_BLACK3) {
        next.hb = static_cast<int16_t>(h_nat);
        next.qb = static_cast<int16_t>(q_nat);
      } else {
        next.hn = static_cast<int16_t>(h_nat);
        next.qn = static_cast<int16_t>(q_nat);
      }
      if (visit(next)) return true;
    }
  }
  if (slot != SLOT_BLACK3) return advance(st);
  return false;
}

}  // namespace canasta
