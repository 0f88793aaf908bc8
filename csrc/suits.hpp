// The suits of the cards, one component of the state (S-19, rules.sequences): the mirror
// of engine/suits.py.
//
// The engine plays with card kinds; only the optional Spanish runs need suits
// (sequences.hpp tells how they are followed and which suit a meld, a pot take or a
// discard gives up). Suits holds every suit the game follows, beside the kind counts of
// the state: the suit of each stock and pot card in their order (-1 for a card that is
// not a natural; the lengths are the state's stock.len and pot.len), and the naturals of
// each hand and of the held pot cards counted by kind * 4 + suit.
//
// Its methods are the moves of the engine that carry suits, named as engine/suits.py
// names them; game.cpp makes the same call at every move, with or without suits. Without
// the option `tracked` is false and every move returns at once (Python's NO_SUITS, a null
// object): the one test sits in the move, where the branch at each call site was, and the
// arrays are then never read (the state dict holds None for them).
#pragma once
#include <cstdint>
#include <cstring>

#include "cards.hpp"
#include "sequences.hpp"
#include "sizes.hpp"

namespace canasta {

struct Suits {
  bool tracked;                             // are suits followed? (S-19 on)
  int8_t stock[MAX_CARDS];                  // suits of the stock, in its order
  int16_t hands[MAX_PLAYERS][SUITED_SIZE];  // [seat][kind * 4 + suit] naturals held
  int8_t pot[MAX_CARDS];                    // suits of the pot cards, bottom first
  int16_t held[SUITED_SIZE];                // [kind * 4 + suit] pot naturals set aside (C-8)

  // ------------------------------------------------------------------ reading
  // The escala action ids whose cards are all in `seat`'s hand (none without suits).
  int runs(int seat, int16_t* out) const { return tracked ? held_runs(hands[seat], out) : 0; }

  // ------------------------------------------------------------------ the moves
  // A new hand: no natural held or set aside (the stock's suits are dealt with it).
  void new_hand() {
    if (!tracked) return;
    std::memset(hands, 0, sizeof(hands));
    std::memset(held, 0, sizeof(held));
  }
  // The stock card at `at` (of kind `card`) went to `seat`'s hand.
  void draw(int seat, int card, int at) {
    if (tracked && card < NUM_NATURALS) ++hands[seat][card * NUM_SUITS + stock[at]];
  }
  // The stock card at `from` went into the pot at `to` (C-3, S-3, I-3).
  void stock_to_pot(int from, int to) {
    if (tracked) pot[to] = stock[from];
  }
  // `seat` took the pot: its top card `top` and `naturals` of its kind from the hand go to
  // the table, the other cards (kinds rest[0..rest_len), the pot below the top) are set aside.
  void take_pot(int seat, int top, int naturals, const uint8_t* rest, int rest_len) {
    if (!tracked) return;
    remove_suits(hands[seat], top, naturals);
    for (int i = 0; i < rest_len; ++i)
      if (rest[i] < NUM_NATURALS) ++held[rest[i] * NUM_SUITS + pot[i]];
  }
  // The set-aside pot cards join `seat`'s hand (C-8).
  void release_held(int seat) {
    if (!tracked) return;
    for (int i = 0; i < SUITED_SIZE; ++i) hands[seat][i] += held[i];
    std::memset(held, 0, sizeof(held));
  }
  // A new turn: nothing is set aside.
  void clear_held() {
    if (tracked) std::memset(held, 0, sizeof(held));
  }
  // `seat` melded `naturals` cards of `kind` (melds keep no suits).
  void meld(int seat, int kind, int naturals) {
    if (tracked && kind < NUM_NATURALS) remove_suits(hands[seat], kind, naturals);
  }
  // `seat` discarded a card of `kind` onto the pot, at `at`.
  void discard(int seat, int kind, int at) {
    if (tracked) pot[at] = static_cast<int8_t>(kind < NUM_NATURALS ? remove_suits(hands[seat], kind, 1) : -1);
  }
  // `seat` laid the run of `suit` from rank `start` (S-19).
  void lay_run(int seat, int suit, int start, int length) {
    if (!tracked) return;
    for (int rank = start; rank < start + length; ++rank) --hands[seat][rank * NUM_SUITS + suit];
  }
};

}  // namespace canasta
