// The move table and action texts, built once from the id ranges (actions.py _build_moves,
// _build_texts).
#include "actions.hpp"

#include <string>
#include <vector>

namespace canasta {

Move MOVES[NUM_ACTIONS];
Composition COMPOSITIONS[NUM_COMPOSITIONS];
WildComposition WILD_COMPOSITIONS[NUM_WILD_COMPOSITIONS];

namespace {

std::vector<std::string> TEXTS;

Move meld(int slot, int n, int t, int j, bool is_new) {
  return Move{MOVE_MELD, static_cast<int8_t>(slot), static_cast<uint8_t>(n),
              static_cast<uint8_t>(t), static_cast<uint8_t>(j), is_new, -1, -1};
}

std::string meld_text(const std::string& name, int n, int t, int j) {
  std::string text = "meld";
  for (int i = 0; i < n; ++i) text += " " + name;
  for (int i = 0; i < t; ++i) text += " 2";
  for (int i = 0; i < j; ++i) text += " JK";
  return text;
}

std::string slot_name(int slot) {
  if (slot == 12) return "wild";
  if (slot == 11) return "B3";
  return KIND_NAMES[slot];
}

struct Builder {
  Builder() {
    int c = 0;  // compositions: 2 <= n <= 7, t + j <= n, 3 <= n + t + j <= 7
    for (int n = 2; n <= MAX_NEW_MELD; ++n)
      for (int wilds = 0; wilds <= MAX_NEW_MELD - n; ++wilds) {
        if (wilds > n || n + wilds < 3) continue;
        for (int jokers = 0; jokers <= wilds; ++jokers)
          COMPOSITIONS[c++] = {static_cast<uint8_t>(n), static_cast<uint8_t>(wilds - jokers),
                               static_cast<uint8_t>(jokers)};
      }
    int w = 0;
    for (int size = 3; size <= MAX_NEW_MELD; ++size)
      for (int jokers = 0; jokers <= size; ++jokers)
        WILD_COMPOSITIONS[w++] = {static_cast<uint8_t>(size - jokers), static_cast<uint8_t>(jokers)};
    int id = 0;
    MOVES[id++] = Move{MOVE_DRAW, -1, 0, 0, 0, false, -1, -1};
    for (int i = TAKE; i < PASS; ++i) MOVES[id++] = Move{MOVE_TAKE, -1, 0, 0, 0, false, -1, -1};
    MOVES[id++] = Move{MOVE_PASS, -1, 0, 0, 0, false, -1, -1};
    for (int k = 0; k < NUM_HAND_KINDS; ++k)
      MOVES[id++] = Move{MOVE_DISCARD, static_cast<int8_t>(k), 0, 0, 0, false, -1, -1};
    for (int slot = 0; slot <= SLOT_BLACK3; ++slot) MOVES[id++] = meld(slot, 1, 0, 0, false);
    for (int s = 0; s < 12; ++s) MOVES[id++] = meld(s < 11 ? s : 12, 0, 1, 0, false);
    for (int s = 0; s < 12; ++s) MOVES[id++] = meld(s < 11 ? s : 12, 0, 0, 1, false);
    for (int rank = 0; rank < NUM_NATURALS; ++rank)
      for (const auto& comp : COMPOSITIONS)
        MOVES[id++] = meld(rank, comp.naturals, comp.twos, comp.jokers, true);
    for (int n = 3; n <= MAX_NEW_MELD; ++n) MOVES[id++] = meld(11, n, 0, 0, true);
    for (const auto& comp : WILD_COMPOSITIONS) MOVES[id++] = meld(12, 0, comp.twos, comp.jokers, true);
    for (int suit = 0; suit < NUM_SUITS; ++suit)
      for (int r = 0; r < NUM_RUNS; ++r)
        MOVES[id++] = Move{MOVE_RUN, -1, static_cast<uint8_t>(RUN_LENGTH[r]), 0, 0, true,
                           static_cast<int8_t>(suit), static_cast<int8_t>(RUN_START[r])};
    // texts
    const char* fixed[] = {"draw", "take", "take +2", "take +JK", "take onto meld", "pass"};
    for (const char* t : fixed) TEXTS.emplace_back(t);
    for (int k = 0; k < NUM_HAND_KINDS; ++k) TEXTS.push_back(std::string("discard ") + KIND_NAMES[k]);
    for (int s = 0; s < 12; ++s) TEXTS.push_back("add " + slot_name(s));
    for (int s = 0; s < 12; ++s) TEXTS.push_back("add 2 to " + slot_name(s < 11 ? s : 12));
    for (int s = 0; s < 12; ++s) TEXTS.push_back("add JK to " + slot_name(s < 11 ? s : 12));
    for (int rank = 0; rank < NUM_NATURALS; ++rank)
      for (const auto& comp : COMPOSITIONS)
        TEXTS.push_back(meld_text(KIND_NAMES[rank], comp.naturals, comp.twos, comp.jokers));
    for (int n = 3; n <= MAX_NEW_MELD; ++n) TEXTS.push_back(meld_text("B3", n, 0, 0));
    for (const auto& comp : WILD_COMPOSITIONS) {
      std::string t = "meld";
      for (int i = 0; i < comp.twos; ++i) t += " 2";
      for (int i = 0; i < comp.jokers; ++i) t += " JK";
      TEXTS.push_back(t);
    }
    const char* suits = SUITS;
    for (int suit = 0; suit < NUM_SUITS; ++suit)
      for (int r = 0; r < NUM_RUNS; ++r) {
        if (RUN_LENGTH[r] == NUM_NATURALS) {
          TEXTS.push_back(std::string("escala real ") + suits[suit]);
        } else {
          TEXTS.push_back(std::string("escala ") + KIND_NAMES[RUN_START[r]] + "-" +
                          KIND_NAMES[RUN_START[r] + RUN_LENGTH[r] - 1] + " " + suits[suit]);
        }
      }
  }
};

const Builder BUILT;

}  // namespace

const char* action_text(int action) {
  if (action < 0 || action >= NUM_ACTIONS) return "?";
  return TEXTS[action].c_str();
}

}  // namespace canasta
