// The turn search (engine/opening.py), on plain nodes.
#include "opening.hpp"

#include <algorithm>
#include <atomic>
#include <vector>

namespace canasta {

namespace {

// A memo of node -> feasible, one per thread, valid for one turn of one game (the answers
// are functions of the node and of facts fixed for the turn: the player and so the team,
// its opening minimum, S-15's clean canasta at turn start): the positions after each meld
// of the turn find their subtrees already answered. Open addressing; a generation stamp
// clears it.
//
// The table grows with the search (it must hold every node of one turn's search: a
// table that forgets answers mid-search makes the search exponential, as a fixed 8,192
// slots cleared when half full did: 77 million expansions where opening.py made 78,000)
// up to MAX_SIZE slots, more than opening.py's memo keeps (it clears past 200,000), and
// shrinks back at the next turn. Keys are nodes packed into bytes: every count of a node
// is a count of cards of one kind (at most OBSERVATION_BYTE_MAX = 255 by the rules'
// bounds) or of a team's canastas (fewer); a node that does not pack is not memoised.
struct Memo {
  static constexpr uint32_t MIN_SIZE = 1u << 12;
  static constexpr uint32_t MAX_SIZE = 1u << 19;
  static constexpr int COUNTS = 2 * NUM_KINDS + 3 * NUM_SLOTS + 2;  // + closed count/clean
  static constexpr int FLAGS = 5;
  static constexpr int KEY_BYTES = COUNTS + FLAGS + 2 * 4;  // + total, staged
  struct Key {
    uint8_t bytes[(KEY_BYTES + 7) / 8 * 8];
  };
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
  static uint64_t hash(const Key& key) {
    uint64_t words[sizeof(Key) / 8];
    static_assert(sizeof(Key) % 8 == 0, "a key is a whole number of words");
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
      else reset(false);  // as opening.py clears its memo past 200,000 nodes
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

thread_local Memo memo;

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
  node.closed_count = s.closed_len[team];
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
  const int top = s.pot[s.pot_len - 1];
  // The rest of the pot; its red 3s are laid out (G-6). Legality uses only what the
  // player can see (G-8): face-down cards count as if they were red 3s.
  int16_t rest[NUM_KINDS] = {0};
  int rest_total = 0;
  for (int i = s.pot_hidden; i < s.pot_len - 1; ++i)
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
    node.total += rest_total + std::min(rules.draw_after_pot_take, static_cast<int>(s.stock_len));
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

bool TurnSearch::node_ok(const Node& in) {
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
  if (going_out_only(rules, node.nat)) {
    int out = -1;
    if (!any_of(node.held, NUM_KINDS)) out = can_meld_out(node, opened, concealed_ok);
    if (out >= 0) return out == 1;
  } else if (opened && node.total >= 2) {
    return true;
  }
  if (node.total == 0)
    return !rules.go_out_needs_discard && go_out_allowed(node, opened || concealed_ok);
  if (node.total == 1 && go_out_allowed(node, opened || concealed_ok)) return true;
  if (!opened && node.total > 0 && !may_still_open(node, concealed_ok)) return false;
  node.opened = opened;
  return expand(node);
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
    if (have && have < rules.min_naturals && !(node.nat[rank] || node.two[rank] || node.jok[rank])) {
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
    } else if (have < rules.min_naturals) {
      return false;  // a natural that no meld can take
    } else {
      minimum = have < rules.min_meld_size ? rules.min_meld_size - have : 0;
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
  if (left[BLACK3] && (black3 > rules.black3_meld_max_size || black3 < 3)) return false;
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

bool TurnSearch::expand(const Node& node) {
  Memo::Key key;
  const bool memoised = Memo::pack(node, key);
  const uint64_t h = memoised ? Memo::hash(key) : 0;
  if (memoised) {
    const int found = memo.find(key, h);
    if (found >= 0) return found == 1;
  }
  int16_t moves[NUM_ACTIONS];
  const int count =
      meld_moves(game.tables, node.hand, node.nat, node.two, node.jok, node.clean_only, moves);
  bool result = false;
  Node next;
  for (int i = 0; i < count; ++i) {
    child(node, MOVES[moves[i]], next);
    if (node_ok(next)) {
      result = true;
      break;
    }
  }
  if (memoised) memo.store(key, h, result);
  return result;
}

}  // namespace canasta
