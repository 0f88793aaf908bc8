// Quick proofs that a turn cannot end (engine/turn_bounds.py, line for line): the opening
// out of reach (G-5, C-8, S-8, I-9, I-10), going out out of reach (C-7, C-14, S-15, I-11),
// a winning black-3 canasta out of reach (S-11). Upper bounds the turn search asks before
// any search: each says false only where no sequence of meld moves ends the turn that way.
#pragma once
#include <algorithm>
#include <cstdint>

#include "melds.hpp"

namespace canasta {

// turn_bounds.py's constants, in core_decls.hpp: LEAST_WILD_POINTS, the fewest points a
// wild card adds (a 2, G-2); WILD_SLACK, wild cards counted beyond those whose points alone
// reach the minimum (a slot's wild counts above MAX_NEW_MELD have no gaps);
// MOST_WILDS_COUNTED, the knapsack's widest row (an opening minimum is at most a byte,
// rules.py BOUNDS; past it, no legal position, the search decides); NO_LIMIT.

// S-8: may a new meld of exactly canasta_size cards, laid at once, open the team?
inline bool hidden_canasta_possible(const MeldTables& tables, const int16_t* hand,
                                    const int16_t* nat, const int16_t* two, const int16_t* jok,
                                    bool clean_only) {
  const Rules& rules = tables.rules;
  const int64_t size = rules.canasta_size;
  if (!rules.hidden_canasta_opens || size > MAX_NEW_MELD) return false;
  const bool closes = rules.meld_closes_at != 0;
  const int64_t wilds = clean_only ? 0 : hand[TWO] + hand[JOKER];
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int64_t have = hand[rank];
    if (have < 2 || (!closes && nat[rank] + two[rank] + jok[rank])) continue;
    for (int64_t n = std::max<int64_t>(2, size - wilds); n <= std::min(have, size); ++n)
      if (tables.natural_meld_ok(n, size - n, 0)) return true;
  }
  if (rules.black3_melds && hand[BLACK3] >= size &&
      std::max<int64_t>(3, rules.min_meld_size) <= size && size <= rules.black3_meld_max_size &&
      (closes || !nat[SLOT_BLACK3]))
    return true;
  if (rules.wild_melds && (closes || !(two[SLOT_WILD] + jok[SLOT_WILD]))) {
    for (const auto& o : tables.new_wild)
      if (o.twos + o.jokers == size && o.twos <= hand[TWO] && o.jokers <= hand[JOKER] &&
          (!clean_only || tables.is_clean_wild_opening(o.twos, o.jokers)))
        return true;
  }
  return false;
}

namespace turn_bounds_detail {

// The fewest wild cards of a new natural meld of at most `naturals` naturals the action
// layout lays (3..MAX_NEW_MELD cards, 2 naturals at least); past MAX_NEW_MELD if none.
inline int least_start_wilds(const MeldTables& tables, int naturals) {
  for (int wilds = 0; wilds <= MAX_NEW_MELD; ++wilds)
    for (int n = 2; n <= naturals; ++n)
      if (wilds <= n && 3 <= n + wilds && n + wilds <= MAX_NEW_MELD &&
          tables.natural_meld_ok(n, wilds, 0))
        return wilds;
  return MAX_NEW_MELD + 1;
}

// For w = 0..top wild cards laid on a natural slot this turn, the fewest naturals laid
// with them (-1: no way); more of the `have` in hand are then legal too, and laying nothing
// always is: turn_bounds.py _natural_slot.
inline void natural_slot(const MeldTables& tables, int64_t have, int64_t n0, int64_t w0,
                         bool clean_only, int top, int64_t* least) {
  const Rules& rules = tables.rules;
  for (int w = 0; w <= top; ++w) least[w] = -1;
  if (rules.meld_closes_at) {  // S-7: several melds in turn
    const bool start = !(n0 || w0);
    for (int w = 0; w <= top; ++w) {
      if (w && (clean_only || !rules.max_wilds_per_meld)) break;
      int64_t fewest = std::max<int64_t>(0, w + w0 + rules.min_natural_excess - n0);
      if (start)
        fewest = std::max({fewest, int64_t(2), rules.min_naturals,
                           std::max<int64_t>(3, rules.min_meld_size) - w});
      if (fewest <= have) least[w] = fewest;
    }
    return;
  }
  for (int w = 0; w <= top; ++w) {
    if (w && clean_only) break;
    int64_t first = 0;  // a meld on the table grows a card at a time (C-5)
    if (!(n0 || w0)) {  // a new meld: 2..7 cards laid at once, then naturals, then wilds
      first = 2;
      while (first <= have &&
             least_start_wilds(tables, static_cast<int>(std::min<int64_t>(first, MAX_NEW_MELD))) > w)
        ++first;
    }
    for (int64_t added = first; added <= have; ++added)  // (more naturals keep it legal)
      if (tables.natural_meld_ok(n0 + added, w0 + w, 0)) {
        least[w] = added;
        break;
      }
  }
}

// (fewest, most) black 3s a turn lays when it lays any (C-7, S-11); fewest > most when
// it lays none: turn_bounds.py _black3_laid.
inline void black3_laid(const Rules& rules, int64_t have, int64_t n0, int64_t& low,
                        int64_t& high) {
  const int64_t least = n0 ? 1 : std::max<int64_t>(3, rules.min_meld_size);
  low = 1;
  high = 0;
  if (!rules.black3_melds || !have || (!n0 && rules.black3_meld_max_size < least)) return;
  low = least;
  high = rules.meld_closes_at ? have : std::min<int64_t>(have, rules.black3_meld_max_size - n0);
}

// (fewest, most) wild cards the wild-only slot takes when it takes any (S-9, I-6);
// fewest > most when it takes none: turn_bounds.py _wild_slot.
inline void wild_slot(const MeldTables& tables, int64_t size, bool clean_only, int64_t& low,
                      int64_t& high) {
  const Rules& rules = tables.rules;
  low = 1;
  high = 0;
  if (!rules.wild_melds) return;
  if (size) {
    if (clean_only) return;
    high = rules.meld_closes_at ? NO_LIMIT
                                : std::max<int64_t>(0, rules.wild_meld_max_size - size);
    return;
  }
  int64_t least = NO_LIMIT, most = -1;
  for (const auto& o : tables.new_wild) {
    if (clean_only && !tables.is_clean_wild_opening(o.twos, o.jokers)) continue;
    least = std::min<int64_t>(least, o.twos + o.jokers);
    most = std::max<int64_t>(most, o.twos + o.jokers);
  }
  if (most < 0) return;
  low = least;
  if (clean_only) high = most;
  else high = rules.meld_closes_at ? NO_LIMIT : rules.wild_meld_max_size;
}

}  // namespace turn_bounds_detail

// May meld moves from `hand` onto the team's melds add `lacking` opening points this turn
// and leave `keep` (0, 1 or 2) cards in the hand? False only where none can
// (turn_bounds.py opening_in_reach).
inline bool opening_in_reach(const MeldTables& tables, const int16_t* hand, const int16_t* nat,
                             const int16_t* two, const int16_t* jok, bool clean_only,
                             int64_t lacking, int keep) {
  using namespace turn_bounds_detail;
  if (lacking <= 0) return true;
  const Rules& rules = tables.rules;
  const int64_t twos = hand[TWO], jokers = hand[JOKER];
  const int64_t wilds = clean_only && !rules.wild_melds ? 0 : twos + jokers;
  const int64_t enough = (lacking + LEAST_WILD_POINTS - 1) / LEAST_WILD_POINTS;
  const int64_t wide = std::min<int64_t>(wilds, enough + WILD_SLACK);
  if (wide > MOST_WILDS_COUNTED) return true;  // no legal position: the search decides
  const int top = static_cast<int>(wide);
  constexpr int ROW = MOST_WILDS_COUNTED + 1;
  // best[left][w]: the most points of naturals and black 3s with w wild cards laid and
  // `left` of those naturals and black 3s kept (capped at keep); -1: none
  int64_t best[3][ROW], merged[3][ROW], least[ROW];
  std::fill(&best[0][0], &best[0][0] + 3 * ROW, int64_t(-1));
  int64_t low, high;
  black3_laid(rules, hand[BLACK3], nat[SLOT_BLACK3], low, high);  // C-7, S-11 (G-2)
  for (int k = -1; k <= keep; ++k) {  // k = -1: none laid
    const int64_t laid = k < 0 ? 0 : std::max<int64_t>(0, high - k);
    if (laid != 0 && !(low <= laid && laid <= high)) continue;
    const int left = static_cast<int>(std::min<int64_t>(keep, hand[BLACK3] - laid));
    best[left][0] = std::max(best[left][0], CARD_VALUES[BLACK3] * laid);
  }
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int64_t have = hand[rank];
    const int64_t n0 = nat[rank], w0 = two[rank] + jok[rank];
    if (!have && (!(n0 || w0) || clean_only || !top)) continue;
    natural_slot(tables, have, n0, w0, clean_only, top, least);
    const int64_t value = CARD_VALUES[rank];
    std::copy(&best[0][0], &best[0][0] + 3 * ROW, &merged[0][0]);
    for (int left = 0; left <= keep; ++left)
      for (int used = 0; used <= top; ++used) {
        const int64_t base = best[left][used];
        if (base < 0) continue;
        // (wild cards, naturals laid) of each way worth trying: none, the most, or keep fewer
        for (int w = 0; w <= top - used; ++w) {
          for (int k = -1; k <= keep; ++k) {
            int64_t added;
            if (k < 0) {
              if (w) continue;
              added = 0;
            } else {
              added = have - k;
              if (least[w] < 0 || added < least[w]) continue;
            }
            int64_t& into = merged[std::min<int64_t>(keep, left + have - added)][used + w];
            if (base + value * added > into) into = base + value * added;
          }
        }
      }
    std::copy(&merged[0][0], &merged[0][0] + 3 * ROW, &best[0][0]);
  }
  wild_slot(tables, two[SLOT_WILD] + jok[SLOT_WILD], clean_only, low, high);
  if (low <= high && top) {
    for (int left = 0; left <= keep; ++left) {
      int64_t row[ROW];
      std::copy(best[left], best[left] + top + 1, row);
      for (int used = 0; used <= top; ++used) {
        if (best[left][used] < 0) continue;
        for (int64_t w = low; w <= std::min<int64_t>(high, top - used); ++w)
          if (best[left][used] > row[used + w]) row[used + w] = best[left][used];
      }
      std::copy(row, row + top + 1, best[left]);
    }
  }
  for (int left = 0; left <= keep; ++left)
    for (int used = 0; used <= top; ++used) {
      const int64_t base = best[left][used];
      if (base < 0 || left + twos + jokers - used < keep) continue;
      const int64_t laid_jokers = std::min<int64_t>(used, jokers);
      const int64_t wild_points =
          CARD_VALUES[JOKER] * laid_jokers + CARD_VALUES[TWO] * (used - laid_jokers);
      if (base + wild_points >= lacking) return true;
    }
  return false;
}

// Cards of the hand and the held pot cards (they join it at the opening, C-8) that no meld
// move can take: turn_bounds.py cards_no_meld_takes.
inline int64_t cards_no_meld_takes(const Rules& rules, const int16_t* hand, const int16_t* held,
                                   const int16_t* nat, const int16_t* two, const int16_t* jok) {
  const int64_t least = std::max<int64_t>(2, rules.min_naturals);
  int64_t stuck = 0;
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int64_t have = hand[rank] + held[rank];
    if (have && have < least && !(nat[rank] || two[rank] || jok[rank])) stuck += have;
  }
  const int64_t black3 = hand[BLACK3] + held[BLACK3];
  if (black3 && !rules.meld_closes_at) {  // (closing melds start anew: not counted)
    if (!rules.black3_melds) stuck += black3;
    else if (nat[SLOT_BLACK3])
      stuck += std::max<int64_t>(0, black3 - (rules.black3_meld_max_size - nat[SLOT_BLACK3]));
    else if (black3 < std::max<int64_t>(3, rules.min_meld_size)) stuck += black3;
    else stuck += std::max<int64_t>(0, black3 - rules.black3_meld_max_size);
  }
  return stuck;
}

// The fewest black 3s of a black-3 canasta (turn_bounds.py _black3_size).
inline int64_t black3_canasta_size(const Rules& rules) {
  const int64_t most = rules.black3_meld_max_size;
  int64_t size = rules.canasta_size <= most ? rules.canasta_size : NO_LIMIT;
  if (rules.meld_closes_at && rules.meld_closes_at <= most)
    size = std::min<int64_t>(size, rules.meld_closes_at);
  return size;
}

// S-11: may the team hold a black-3 canasta at the end of this turn?
inline bool black3_canasta_in_reach(const Rules& rules, const int16_t* hand, const int16_t* held,
                                    const int16_t* nat, bool closed_black3) {
  if (closed_black3) return true;
  const int64_t have = hand[BLACK3] + held[BLACK3] + nat[SLOT_BLACK3];
  return rules.black3_melds && have >= black3_canasta_size(rules);
}

// S-15 with melds that grow (one a rank, C-5): each rank whose naturals reach canasta_size
// ends as a canasta when going out, clean unless a wild card of its own lies in it: more
// such ranks than wild cards? (turn_bounds.py _clean_canastas_forced)
inline bool clean_canastas_forced(const Rules& rules, const int16_t* hand, const int16_t* held,
                                  const int16_t* nat, const int16_t* two, const int16_t* jok,
                                  int64_t stuck) {
  int64_t forced = 0;
  bool exact = false;
  for (int rank = 0; rank < NUM_NATURALS; ++rank) {
    const int64_t naturals = nat[rank] + hand[rank] + held[rank];
    if (naturals >= rules.canasta_size && !(two[rank] + jok[rank])) {
      ++forced;
      exact = exact || naturals == rules.canasta_size;
    }
  }
  if (exact && !stuck) --forced;
  return forced > hand[TWO] + held[TWO] + hand[JOKER] + held[JOKER];
}

// May the team's canastas let it go out at the end of this turn (C-14, S-15, I-11)?
// turn_bounds.py going_out_in_reach.
inline bool going_out_in_reach(const Rules& rules, const int16_t* hand, const int16_t* held,
                               const int16_t* nat, const int16_t* two, const int16_t* jok,
                               int64_t closed_count, int64_t closed_clean, bool had_clean) {
  const int64_t stuck = cards_no_meld_takes(rules, hand, held, nat, two, jok);
  if (stuck >= 2) return false;  // two cards stay: one at most is discarded going out
  if (rules.no_go_out_on_first_clean_turn && !had_clean) {
    // S-15: a clean canasta made this turn forbids going out in it
    if (closed_clean || rules.go_out_needs_clean_and_dirty) return false;
    if (!rules.meld_closes_at && clean_canastas_forced(rules, hand, held, nat, two, jok, stuck))
      return false;
  }
  const int64_t size = rules.canasta_size;
  const int64_t closes = rules.meld_closes_at;
  const int64_t natural_size = closes ? std::min(size, closes) : size;
  int64_t wild_size = closes ? std::min<int64_t>(size, rules.wild_meld_max_size) : size;
  if (!closes && rules.wild_meld_max_size < size) wild_size = NO_LIMIT;
  const int64_t black3_size = black3_canasta_size(rules);
  const int64_t smallest = std::min(natural_size, rules.wild_melds ? wild_size : NO_LIMIT);
  const int64_t twos = hand[TWO] + held[TWO], jokers = hand[JOKER] + held[JOKER];
  int64_t cards = 0;
  for (int k = 0; k < NUM_KINDS; ++k) cards += hand[k] + held[k];
  for (int slot = 0; slot < NUM_SLOTS; ++slot) cards += nat[slot] + two[slot] + jok[slot];
  if (closed_count + cards / smallest < rules.go_out_min_canastas) return false;
  if (!rules.go_out_needs_clean_and_dirty) return true;
  bool clean = closed_clean > 0;
  bool dirty = closed_count > closed_clean;
  const int64_t wilds = twos + jokers;
  for (int slot = 0; slot < NUM_NATURALS; ++slot) {
    const int64_t naturals = hand[slot] + held[slot];
    const int64_t wild_on = two[slot] + jok[slot];
    clean = clean || naturals + (wild_on ? 0 : nat[slot]) >= natural_size;
    dirty = dirty || (wild_on + wilds && naturals + nat[slot] + wild_on + wilds >= natural_size);
  }
  if (rules.black3_melds)
    clean = clean || hand[BLACK3] + held[BLACK3] + nat[SLOT_BLACK3] >= black3_size;
  if (rules.wild_melds) {  // S-10: a wild canasta of one kind of wild card is clean
    const int64_t two_on = two[SLOT_WILD], jok_on = jok[SLOT_WILD];
    clean = clean || twos + two_on >= wild_size || jokers + jok_on >= wild_size;
    dirty = dirty || (two_on + twos && jok_on + jokers && two_on + jok_on + wilds >= wild_size);
  }
  return clean && dirty;
}

}  // namespace canasta
