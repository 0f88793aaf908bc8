// agents/heuristics.py in C++ (heuristics.hpp), in the Python file's order.
#include "heuristics.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "../game.hpp"
#include "../pot.hpp"
#include "../state.hpp"

namespace canasta {
namespace bots {

// ---------------------------------------------------------------------- actions

void Legal::split(const int16_t* legal, int count) {
  draw.clear();
  melds.clear();
  discards.clear();
  for (int i = 0; i < count; ++i) {
    const int action = legal[i];
    switch (MOVES[action].kind) {
      case MOVE_DRAW:
      case MOVE_TAKE:
      case MOVE_PASS: draw.push_back(action); break;
      case MOVE_DISCARD: discards.push_back(action); break;
      default: melds.push_back(action);  // MOVE_MELD, MOVE_RUN
    }
  }
}

bool Legal::draw_has(int action) const {
  for (int a : draw)
    if (a == action) return true;
  return false;
}

int move_points(const Move& m) {
  if (m.kind != MOVE_MELD) return 0;
  return CARD_VALUES[natural_kind(m.slot)] * m.naturals + CARD_VALUES[TWO] * m.twos +
         CARD_VALUES[JOKER] * m.jokers;
}

double team_score_estimate(const TeamView& team, const Rules& rules) {
  double melded = 0.0;
  double bonus = 0.0;
  for (int slot = 0; slot < NUM_SLOTS; ++slot) {
    const int n = team.naturals[slot], t = team.twos[slot], j = team.jokers[slot];
    if (n + t + j == 0) continue;
    const int value = slot == SLOT_WILD ? 0 : CARD_VALUES[natural_kind(slot)];
    melded += static_cast<double>(n * value + t * CARD_VALUES[TWO] + j * CARD_VALUES[JOKER]);
    if (n + t + j >= rules.canasta_size)
      bonus += static_cast<double>(canasta_bonus(rules, slot, t, j, false));
  }
  for (int slot = 0; slot < NUM_SLOTS; ++slot) {
    const int value = slot == SLOT_WILD ? CARD_VALUES[TWO] : CARD_VALUES[natural_kind(slot)];
    const int clean = team.closed_clean[slot], dirty = team.closed_dirty[slot];
    if (clean) {
      melded += static_cast<double>(clean * CANASTA_SIZE * value);
      const int twos = slot == SLOT_WILD ? CANASTA_SIZE : 0;
      bonus += static_cast<double>(clean * canasta_bonus(rules, slot, twos, 0, false));
    }
    if (dirty) {
      const int others = CANASTA_SIZE - CLOSED_DIRTY_TWOS;
      melded += static_cast<double>(dirty * (others * value + CLOSED_DIRTY_TWOS * CARD_VALUES[TWO]));
      // the bonus of a dirty wild canasta: four 2s and three jokers (S-9)
      const int twos = slot == SLOT_WILD ? 4 : CLOSED_DIRTY_TWOS;
      const int jokers = slot == SLOT_WILD ? 3 : 0;
      bonus += static_cast<double>(dirty * canasta_bonus(rules, slot, twos, jokers, false));
    }
  }
  int condition;
  if (!team.opened)
    condition = TEAM_NO_MELD;
  else if (team.canastas == 0)
    condition = TEAM_NO_CANASTA;
  else if (team.clean && team.dirty)
    condition = TEAM_CLEAN_AND_DIRTY;
  else if (team.clean)
    condition = TEAM_CLEAN_ONLY;
  else
    condition = TEAM_DIRTY_ONLY;
  if (rules.melds_minus_without_canasta && team.canastas == 0) melded = -melded;
  const int64_t red3 = rules.red3_total(team.red3) * rules.red3_sign[condition];
  return melded + bonus + static_cast<double>(red3);
}

double hand_margin(const View& view, const Rules& rules, bool going_out) {
  int64_t own_hand = 0;
  for (int k = 0; k < NUM_HAND_KINDS; ++k)
    own_hand += view.hand[k] * (k == BLACK3 ? rules.black3_in_hand_penalty : CARD_VALUES[k]);
  double ours = team_score_estimate(view.me(), rules);
  int64_t partners = 0;
  for (int p = 1; p < view.num_players; ++p)
    if (view.players[p].teammate) partners += view.players[p].hand_size;
  ours -= static_cast<double>(partners) * UNKNOWN_CARD_VALUE;
  if (going_out)
    ours += static_cast<double>(rules.go_out_bonus);
  else
    ours -= static_cast<double>(own_hand);
  double best = -std::numeric_limits<double>::infinity();
  for (int offset = 1; offset < view.num_teams; ++offset) {
    double theirs = team_score_estimate(view.teams[offset], rules);
    // seats and teams are both ordered from the viewer, so offsets follow the seat rule (G-3)
    int64_t held = 0;
    for (int p = 0; p < view.num_players; ++p)
      if (team_of_seat(view.num_players, p) == offset) held += view.players[p].hand_size;
    theirs -= static_cast<double>(held) * UNKNOWN_CARD_VALUE;
    if (theirs > best) best = theirs;  // Python's max keeps the first of equals
  }
  return ours - best;
}

int choose_take_or_draw(const std::vector<int>& draw_ids) {
  for (int action : TAKE_PREFERENCE)
    for (int a : draw_ids)
      if (a == action) return action;
  for (int a : draw_ids)
    if (a == DRAW) return DRAW;
  return draw_ids[0];
}

Key biggest_meld_key(const View& view, int action) {
  const Move& move = MOVES[action];
  Key key;
  if (move.kind == MOVE_RUN) return key << 1 << move_cards(move) << 99 << 0 << -action;
  const int before = view.me().meld_size(move.slot);
  const int size_after = before + move_cards(move);
  const bool completes = before < CANASTA_SIZE && CANASTA_SIZE <= size_after;
  return key << completes << move_cards(move) << size_after << move_points(move) << -action;
}

// ---------------------------------------------------------------------- card counting

namespace {

// A non-negative integer of up to 1024 bits: enough for any binomial of a deck of at most
// MAX_CARDS (672) cards, and for a quotient's dividend shifted left by 56 more bits.
struct Big {
  static constexpr int LIMBS = 16;
  uint64_t w[LIMBS];
  int used;  // limbs in use (the rest zero)

  explicit Big(uint64_t value = 0) : used(value ? 1 : 0) {
    std::memset(w, 0, sizeof w);
    w[0] = value;
  }
  bool zero() const { return used == 0; }
  void trim() {
    while (used > 0 && w[used - 1] == 0) --used;
  }
  void mul_small(uint64_t m) {
    unsigned __int128 carry = 0;
    for (int i = 0; i < used; ++i) {
      const unsigned __int128 product = static_cast<unsigned __int128>(w[i]) * m + carry;
      w[i] = static_cast<uint64_t>(product);
      carry = product >> 64;
    }
    if (carry) w[used++] = static_cast<uint64_t>(carry);
    trim();
  }
  void div_small(uint64_t d) {  // exact division by the caller's arithmetic
    unsigned __int128 rest = 0;
    for (int i = used - 1; i >= 0; --i) {
      const unsigned __int128 part = (rest << 64) | w[i];
      w[i] = static_cast<uint64_t>(part / d);
      rest = part % d;
    }
    trim();
  }
  void add(const Big& other) {
    const int n = used > other.used ? used : other.used;
    unsigned __int128 carry = 0;
    for (int i = 0; i < n; ++i) {
      const unsigned __int128 sum = static_cast<unsigned __int128>(w[i]) + other.w[i] + carry;
      w[i] = static_cast<uint64_t>(sum);
      carry = sum >> 64;
    }
    used = n;
    if (carry) w[used++] = 1;
  }
  static Big mul(const Big& a, const Big& b) {
    Big out;
    for (int i = 0; i < a.used; ++i) {
      unsigned __int128 carry = 0;
      for (int j = 0; j < b.used; ++j) {
        const unsigned __int128 t =
            static_cast<unsigned __int128>(a.w[i]) * b.w[j] + out.w[i + j] + carry;
        out.w[i + j] = static_cast<uint64_t>(t);
        carry = t >> 64;
      }
      out.w[i + b.used] = static_cast<uint64_t>(carry);
    }
    out.used = a.used + b.used;
    out.trim();
    return out;
  }
  int bit_length() const {
    if (!used) return 0;
    return 64 * (used - 1) + (64 - __builtin_clzll(w[used - 1]));
  }
  void shift_left(int bits) {
    const int limbs = bits / 64, rest = bits % 64;
    for (int i = LIMBS - 1; i >= 0; --i) {
      uint64_t value = 0;
      if (i - limbs >= 0) {
        value = w[i - limbs] << rest;
        if (rest && i - limbs - 1 >= 0) value |= w[i - limbs - 1] >> (64 - rest);
      }
      w[i] = value;
    }
    used = LIMBS;
    trim();
  }
  int compare(const Big& other) const {
    if (used != other.used) return used < other.used ? -1 : 1;
    for (int i = used - 1; i >= 0; --i)
      if (w[i] != other.w[i]) return w[i] < other.w[i] ? -1 : 1;
    return 0;
  }
  void sub(const Big& other) {  // this >= other
    uint64_t borrow = 0;
    for (int i = 0; i < used; ++i) {
      const uint64_t b = other.w[i] + borrow;
      const bool wrap = (b < borrow) || (w[i] < b);
      w[i] -= b;
      borrow = wrap ? 1 : 0;
    }
    trim();
  }
  bool fits53() const { return used == 0 || (used == 1 && w[0] < (uint64_t(1) << 53)); }
};

// math.comb(n, k), exact (0 <= k <= n).
Big comb(int64_t n, int64_t k) {
  if (k > n - k) k = n - k;
  Big c(1);
  for (int64_t i = 1; i <= k; ++i) {
    c.mul_small(static_cast<uint64_t>(n - k + i));
    c.div_small(static_cast<uint64_t>(i));
  }
  return c;
}

// Python's int / int for 0 < n <= d: the quotient correctly rounded to a double.
double true_divide(Big n, const Big& d) {
  if (n.fits53() && d.fits53())  // both exact as doubles: IEEE division rounds correctly
    return static_cast<double>(n.w[0]) / static_cast<double>(d.w[0]);
  const int shift = 55 - (n.bit_length() - d.bit_length());  // quotient of 55 or 56 bits
  n.shift_left(shift);
  uint64_t q = 0;
  for (int bit = 56; bit >= 0; --bit) {
    Big part = d;
    part.shift_left(bit);
    if (n.compare(part) >= 0) {
      n.sub(part);
      q |= uint64_t(1) << bit;
    }
  }
  const bool sticky = !n.zero();
  const int extra = (64 - __builtin_clzll(q)) - 53;
  const uint64_t low = q & ((uint64_t(1) << extra) - 1), half = uint64_t(1) << (extra - 1);
  q >>= extra;
  if (low > half || (low == half && (sticky || (q & 1)))) ++q;  // to nearest, ties to even
  return std::ldexp(static_cast<double>(q), extra - shift);
}

}  // namespace

double hypergeom_at_least(int64_t successes, int64_t population, int64_t draws, int64_t at_least) {
  if (at_least <= 0) return 1.0;
  if (successes < at_least || draws < at_least || population <= 0) return 0.0;
  if (draws > population) draws = population;
  const Big total = comb(population, draws);
  Big below;
  for (int64_t x = 0; x < at_least; ++x)
    if (draws - x <= population - successes)
      below.add(Big::mul(comb(successes, x), comb(population - successes, draws - x)));
  const double ratio = below.zero() ? 0.0 : true_divide(below, total);
  const double p = 1.0 - ratio;
  return p > 0.0 ? p : 0.0;  // max(0.0, p): 0.0 for p <= 0
}

Unseen unseen_counts(const View& view, const Rules& rules) {
  const auto deck = deck_counts(rules.num_decks, rules.jokers_per_deck);
  int seen[NUM_HAND_KINDS];
  for (int k = 0; k < NUM_HAND_KINDS; ++k) seen[k] = view.hand[k] + view.held[k] + view.pot_known[k];
  for (int p = 1; p < view.num_players; ++p)
    for (int k = 0; k < NUM_HAND_KINDS; ++k) seen[k] += view.players[p].known[k];
  for (int t = 0; t < view.num_teams; ++t) {
    const TeamView& team = view.teams[t];
    for (int slot = 0; slot < NUM_SLOTS; ++slot) {
      const int clean = team.closed_clean[slot], dirty = team.closed_dirty[slot];
      if (slot != SLOT_WILD) {
        const int kind = natural_kind(slot);
        seen[kind] += team.naturals[slot];
        seen[kind] += CANASTA_SIZE * clean + (CANASTA_SIZE - CLOSED_DIRTY_TWOS) * dirty;
        seen[TWO] += CLOSED_DIRTY_TWOS * dirty;
      } else {
        seen[TWO] += CANASTA_SIZE * (clean + dirty);
      }
      seen[TWO] += team.twos[slot];
      seen[JOKER] += team.jokers[slot];
    }
  }
  Unseen out;
  out.pool = 0;
  for (int k = 0; k < NUM_HAND_KINDS; ++k) {
    out.count[k] = deck[k] - seen[k] > 0 ? deck[k] - seen[k] : 0;
    out.pool += out.count[k];
  }
  return out;
}

double take_probability(const View& view, int kind, const Rules& rules, const Unseen& unseen,
                        double wild_take_factor, double discount) {
  if (kind >= NUM_NATURALS) return 0.0;
  if (view.num_players < 2 || view.num_teams < 2) return 0.0;
  const PlayerView& next = view.players[1];
  if (next.teammate) return 0.0;
  const TeamView& their_team = view.teams[1];
  const bool frozen = pot_frozen(rules, view.pot_wild(), their_team.opened);
  if (rules.take_onto_meld && !frozen && their_team.opened && their_team.has_meld(kind)) return 1.0;
  const int64_t needed = naturals_to_take(rules, frozen);
  const int known = next.known[kind];
  int known_total = 0;
  for (int k = 0; k < NUM_HAND_KINDS; ++k) known_total += next.known[k];
  const int64_t unknown_cards = next.hand_size - known_total > 0 ? next.hand_size - known_total : 0;
  const int64_t missing = needed - known;
  double probability;
  if (missing <= 0) {
    probability = 1.0;
  } else {
    probability = hypergeom_at_least(unseen.count[kind], unseen.pool, unknown_cards, missing);
    if (!frozen && rules.take_with_wild && missing >= 2) {
      const double one = hypergeom_at_least(unseen.count[kind], unseen.pool, unknown_cards, missing - 1);
      const int wilds = unseen.count[TWO] + unseen.count[JOKER] + next.known[TWO] + next.known[JOKER];
      const double has_wild = hypergeom_at_least(wilds, unseen.pool, unknown_cards, 1);
      const double with_wild = wild_take_factor * one * has_wild;
      if (with_wild > probability) probability = with_wild;  // max keeps the first of equals
    }
  }
  if (!their_team.opened) probability *= 0.6;  // they must open with it too (C-10, S-5, I-7)
  return probability * discount;
}

// ---------------------------------------------------------------------- random draws

double PyRandom::random() {  // CPython random_random
  const uint32_t a = rng.genrand_uint32() >> 5, b = rng.genrand_uint32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

namespace {
// libm's functions called one by one (as CPython's math module calls them): through
// pointers, so that the compiler does not fuse cos and sin into one sincos.
double (*volatile libm_cos)(double) = ::cos;
double (*volatile libm_sin)(double) = ::sin;
double (*volatile libm_log)(double) = ::log;
double (*volatile libm_sqrt)(double) = ::sqrt;
constexpr double TWOPI = 2.0 * 3.141592653589793;
}  // namespace

double PyRandom::gauss(double mu, double sigma) {
  double z = gauss_next;
  const bool had = has_gauss_next;
  has_gauss_next = false;
  if (!had) {
    const double x2pi = random() * TWOPI;
    const double g2rad = libm_sqrt(-2.0 * libm_log(1.0 - random()));
    z = libm_cos(x2pi) * g2rad;
    gauss_next = libm_sin(x2pi) * g2rad;
    has_gauss_next = true;
  }
  return mu + z * sigma;
}

}  // namespace bots
}  // namespace canasta
