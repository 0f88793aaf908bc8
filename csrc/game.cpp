// The game (engine/game.py): deal, legal actions, applying an action, hand and game end.
#include "game.hpp"

#include <algorithm>
#include <cstring>

#include "opening.hpp"
#include "pot.hpp"
#include "sequences.hpp"

namespace canasta {

int g_fault = 0;

namespace {

// Suits each kind exists in per 52-card deck (sequences.py _KIND_SUITS; a joker's is -1).
int kind_suits(int kind, int* out) {
  for (int i = 0; i < KIND_SUIT_COUNT[kind]; ++i) out[i] = KIND_SUITS[kind][i];
  return KIND_SUIT_COUNT[kind];
}

// cards.py suited_code (a suit outside SUITS: the kind's code)
std::string suited_code(int kind, int suit) {
  return suit < 0 || suit >= NUM_SUITS ? KIND_CODES[kind] : SUITED_CODES[kind][suit];
}

}  // namespace

Game::Game(std::shared_ptr<const Rules> r, std::string name, int num_players, const Rng& rng,
           const StackedDeck* deck)
    : rules_ptr(std::move(r)), rules(*rules_ptr), rules_name(std::move(name)), tables(rules), s() {
  if (!is_player_count(num_players))
    throw IllegalAction(std::string("core: a table seats ") + PLAYER_COUNTS_TEXT + " players, not " +
                        std::to_string(num_players));
  rules.check_players(num_players);
  // the deal pops num_players hands from the stock unguarded (rules.py _deal_fits_deck
  // leaves more; the core needs at least this much whoever made the rules)
  if (static_cast<int64_t>(num_players) * rules.hand_size > rules.total_cards())
    throw std::invalid_argument("core rules: the field 'hand_size' deals " + std::to_string(num_players) +
                                " x " + std::to_string(rules.hand_size) + " cards from a deck of " +
                                std::to_string(rules.total_cards()));
  s.num_players = num_players;
  s.num_teams = teams_of(num_players);
  for (int seat = 0; seat < num_players; ++seat) s.team_of[seat] = static_cast<int8_t>(team_of_seat(num_players, seat));
  s.rng = rng;
  s.hand_index = 0;
  s.game_over = false;
  s.winner_team = -1;
  s.suits.tracked = rules.sequences;
  start_hand(deck);
}

int Game::closed_clean(int team) const {
  int clean = 0;
  for (int i = 0; i < s.closed[team].len; ++i) {
    const Closed& c = s.closed[team][i];
    if (canasta_clean(c.slot, c.twos, c.jokers)) ++clean;
  }
  return clean;
}

bool Game::team_has_black3_closed(int team) const {
  for (int i = 0; i < s.closed[team].len; ++i)
    if (s.closed[team][i].slot == SLOT_BLACK3) return true;
  return false;
}

bool Game::any_held() const {
  for (int k = 0; k < NUM_KINDS; ++k)
    if (s.held[k]) return true;
  return false;
}

// ------------------------------------------------------------------ setup
void Game::build_stock(const StackedDeck* deck) {
  if (rules.sequences) {
    build_suited_stock(deck);
    return;
  }
  auto counts = deck_counts(rules.num_decks, rules.jokers_per_deck);
  int len = 0;
  uint8_t order[MAX_CARDS];
  if (deck) {
    for (int kind : deck->kinds) {
      if (kind < 0 || kind >= NUM_KINDS) throw IllegalAction("a stacked deck is a list of kinds 0..14");
      --counts[kind];
    }
    for (int kind = 0; kind < NUM_KINDS; ++kind)
      if (counts[kind] < 0)
        throw IllegalAction("stacked deck has " + std::to_string(-counts[kind]) + " more " +
                            KIND_NAMES[kind] + " than the " + rules_name + " deck holds");
    for (int kind : deck->kinds) order[len++] = static_cast<uint8_t>(kind);
  }
  const int prefix = len;
  for (int kind = 0; kind < NUM_KINDS; ++kind)
    for (int i = 0; i < counts[kind]; ++i) order[len++] = static_cast<uint8_t>(kind);
  s.rng.shuffle(order + prefix, len - prefix);
  for (int i = 0; i < len; ++i) s.stock[i] = order[len - 1 - i];
  s.stock.len = static_cast<int16_t>(len);
}

// S-19: the same as build_stock, following every card's suit too: the suited deck in a
// fixed order, the prefix taken out of it (sequences.py assign_suits)
void Game::build_suited_stock(const StackedDeck* deck) {
  const int decks = rules.num_decks;
  struct Card { uint8_t kind; int8_t suit; };
  Card cards[MAX_CARDS];
  int16_t left[NUM_KINDS][NUM_SUITS + 1] = {{0}};  // [kind][suit + 1]
  auto left_of = [&](int kind, int suit) -> int16_t& { return left[kind][suit + 1]; };
  for (int kind = 0; kind < NUM_KINDS; ++kind) {
    int suits[NUM_SUITS];
    const int n = kind_suits(kind, suits);
    for (int i = 0; i < n; ++i)
      left_of(kind, suits[i]) = static_cast<int16_t>(kind == JOKER ? rules.jokers_per_deck * decks : decks);
  }
  int len = 0;
  if (deck) {
    const bool given = !deck->suits.empty();
    for (size_t i = 0; i < deck->kinds.size(); ++i) {
      const int kind = deck->kinds[i];
      if (kind < 0 || kind >= NUM_KINDS) throw IllegalAction("a stacked deck is a list of kinds 0..14");
      int suit = given ? deck->suits[i] : -2;
      if (suit == -2) {  // given as a kind number: the first suit still in the decks
        int suits[NUM_SUITS];
        const int n = kind_suits(kind, suits);
        suit = suits[0];
        for (int j = 0; j < n; ++j)
          if (left_of(kind, suits[j]) > 0) { suit = suits[j]; break; }
      }
      if (suit < -1 || suit >= NUM_SUITS || left_of(kind, suit) <= 0)
        throw IllegalAction("stacked deck has more " + suited_code(kind, suit) + " than the " +
                            std::to_string(decks) + " deck(s) hold");
      --left_of(kind, suit);
      cards[len++] = Card{static_cast<uint8_t>(kind), static_cast<int8_t>(suit)};
    }
  }
  const int prefix = len;
  for (int kind = 0; kind < NUM_KINDS; ++kind) {
    int suits[NUM_SUITS];
    const int n = kind_suits(kind, suits);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < left_of(kind, suits[i]); ++c)
        cards[len++] = Card{static_cast<uint8_t>(kind), static_cast<int8_t>(suits[i])};
  }
  s.rng.shuffle(cards + prefix, len - prefix);
  for (int i = 0; i < len; ++i) {
    const Card& c = cards[len - 1 - i];
    s.stock[i] = c.kind;
    // only naturals keep their suit (runs are made of naturals)
    s.suits.stock[i] = c.kind < NUM_NATURALS ? c.suit : -1;
  }
  s.stock.len = static_cast<int16_t>(len);
}

void Game::start_hand(const StackedDeck* deck) {
  const int n = s.num_players;
  build_stock(deck);
  const int size = rules.hand_size;
  const int first = s.hand_index % n;
  s.first_player = static_cast<int8_t>(first);
  std::memset(s.hands, 0, sizeof(s.hands));
  std::memset(s.hand_totals, 0, sizeof(s.hand_totals));
  std::memset(s.known, 0, sizeof(s.known));
  s.suits.new_hand();
  for (int offset = 0; offset < n; ++offset) {
    const int seat = (first + offset) % n;
    for (int i = 0; i < size; ++i) {
      const int top = --s.stock.len;
      ++s.hands[seat][s.stock[top]];
      s.suits.draw(seat, s.stock[top], top);
    }
    s.hand_totals[seat] = size;
  }
  for (int team = 0; team < s.num_teams; ++team) s.escalas[team].len = 0;
  std::memset(s.red3, 0, sizeof(s.red3));
  std::memset(s.table_totals, 0, sizeof(s.table_totals));
  std::memset(s.opened, 0, sizeof(s.opened));
  for (int team = 0; team < s.num_teams; ++team)
    s.need[team] = static_cast<int32_t>(rules.opening_minimum(s.scores[team]));
  std::memset(s.nat, 0, sizeof(s.nat));
  std::memset(s.two, 0, sizeof(s.two));
  std::memset(s.jok, 0, sizeof(s.jok));
  for (int team = 0; team < s.num_teams; ++team) s.closed[team].len = 0;
  s.went_out = -1;
  s.concealed = false;
  s.end_reason = END_NONE;
  std::memset(s.hand_scores, 0, sizeof(s.hand_scores));
  s.phase = PHASE_DRAW;
  s.num_steps = 0;
  reset_history();
  for (int offset = 0; offset < n; ++offset) {  // G-6: red 3s of the deal
    const int seat = (first + offset) % n;
    while (s.hands[seat][RED3]) {
      --s.hands[seat][RED3];
      --s.hand_totals[seat];
      lay_red3(s.team_of[seat]);
      if (s.stock.len) {
        const int top = --s.stock.len;
        const int card = s.stock[top];
        ++s.hands[seat][card];
        ++s.hand_totals[seat];
        s.suits.draw(seat, card, top);
      }
    }
  }
  start_pot();
  begin_turn(first);
}

void Game::reset_history() {
  std::memset(s.discarded, 0, sizeof(s.discarded));
  std::memset(s.declined, 0, sizeof(s.declined));
  std::memset(s.since_discard, 0, sizeof(s.since_discard));
  std::memset(s.history_totals, 0, sizeof(s.history_totals));
}

void Game::start_pot() {  // C-3, S-3, I-3
  s.pot.len = 0;
  std::memset(s.pot_known, 0, sizeof(s.pot_known));
  s.pot_hidden = 0;
  s.pot_wild = false;
  s.pot_start_frozen = false;
  // the stock places of the face-down and turned cards (the stock keeps them until dealt)
  int16_t hidden[MAX_CARDS], turned[MAX_CARDS];
  int num_hidden = 0, num_turned = 0;
  for (int i = 0; i < rules.pot_face_down; ++i)
    if (s.stock.len) hidden[num_hidden++] = --s.stock.len;
  while (s.stock.len) {
    const int top = --s.stock.len;
    const int card = s.stock[top];
    turned[num_turned++] = static_cast<int16_t>(top);
    if (rules.pot_start_freeze_kinds.has(card)) {
      s.pot_wild = true;
      s.pot_start_frozen = true;
    }
    if (!rules.pot_start_cover_kinds.has(card)) break;
  }
  const int last_turned = num_turned ? s.stock[turned[num_turned - 1]] : NUM_KINDS;
  if (rules.pot_start_count_under_natural && last_turned < NUM_NATURALS) {
    const int count = last_turned + 4;  // I-3: 4..10 by number, J 11, Q 12, K 13, A 14
    for (int i = 0; i < count; ++i)
      if (s.stock.len) hidden[num_hidden++] = --s.stock.len;  // under the turned cards
  }
  for (int i = 0; i < num_hidden; ++i) {
    s.suits.stock_to_pot(hidden[i], s.pot.len);
    s.pot[s.pot.len++] = s.stock[hidden[i]];
  }
  for (int i = 0; i < num_turned; ++i) {
    const int card = s.stock[turned[i]];
    s.suits.stock_to_pot(turned[i], s.pot.len);
    s.pot[s.pot.len++] = static_cast<uint8_t>(card);
    ++s.pot_known[card];
  }
  s.pot_hidden = static_cast<int16_t>(num_hidden);
}

// ------------------------------------------------------------------ legality
const int16_t* Game::legal_actions(int* count) {
  if (!legal_valid_) compute_legal();
  *count = num_legal_;
  return legal_;
}

const uint8_t* Game::mask() {
  if (!legal_valid_) compute_legal();
  return mask_;
}

bool Game::is_legal(int action) {
  if (action < 0 || action >= NUM_ACTIONS) return false;
  return mask()[action] != 0;
}

void Game::compute_legal() {
  // clear the previous mask by its list (cheaper than clearing all 500)
  for (int i = 0; i < num_legal_; ++i) mask_[legal_[i]] = 0;
  num_legal_ = 0;
  search_memo_for_turn(turn_id_);
  if (s.phase == PHASE_DRAW) num_legal_ = draw_phase_actions(legal_);
  else if (s.phase == PHASE_MELD) num_legal_ = meld_phase_actions(legal_);
  for (int i = 0; i < num_legal_; ++i) mask_[legal_[i]] = 1;
  legal_valid_ = true;
}

int Game::take_options(TakeOption* out) const {
  if (!s.pot.len) return 0;
  const int top = s.pot[s.pot.len - 1];
  if (top >= NUM_NATURALS) return 0;  // C-12, S-6, I-7: wild, black 3 or red 3 on top
  const int team = s.team_of[s.current];
  const int16_t* hand = s.hands[s.current];
  const bool frozen = pot_frozen(rules, s.pot_wild, s.opened[team]);
  const int have = hand[top];
  TakeOption options[4];
  int count = 0;
  int64_t needed = naturals_to_take(rules, frozen);
  if (g_fault == 1) needed -= 1;  // positive control only: C-10 with one natural fewer
  if (have >= needed) options[count++] = {TAKE, static_cast<int>(needed), 0, 0};
  if (!frozen) {
    if (rules.take_with_wild && have >= 1) {
      if (hand[TWO]) options[count++] = {TAKE_WITH_TWO, 1, 1, 0};
      if (hand[JOKER]) options[count++] = {TAKE_WITH_JOKER, 1, 0, 1};
    }
    if (rules.take_onto_meld && s.opened[team] && s.nat[team][top] + s.two[team][top] + s.jok[team][top])
      options[count++] = {TAKE_ONTO_MELD, 0, 0, 0};
  }
  int legal = 0;
  for (int i = 0; i < count; ++i) {
    const TakeOption& o = options[i];
    if (tables.natural_meld_ok(s.nat[team][top] + 1 + o.naturals, s.two[team][top] + o.twos,
                               s.jok[team][top] + o.jokers))
      out[legal++] = o;
  }
  return legal;
}

int Game::draw_phase_actions(int16_t* out) {
  int count = 0;
  const bool stock_ok = s.stock.len >= rules.draw_count;
  if (stock_ok) out[count++] = DRAW;
  TakeOption options[4];
  const int num_options = take_options(options);
  int takes = 0;
  bool onto_meld = false;
  if (num_options) {
    TurnSearch search(*this);
    for (int i = 0; i < num_options; ++i)
      if (search.take_feasible(options[i])) {
        out[count++] = static_cast<int16_t>(options[i].action);
        ++takes;
        onto_meld = onto_meld || options[i].action == TAKE_ONTO_MELD;
      }
  }
  if (!stock_ok && takes) {
    const bool forced = rules.must_take_matching_pot && onto_meld;  // C-16
    if (!forced) out[count++] = PASS;
  }
  return count;
}

int Game::meld_phase_actions(int16_t* out) {
  const int player = s.current;
  const int team = s.team_of[player];
  const int16_t* hand = s.hands[player];
  const int total = s.hand_totals[player];
  // An opened team keeping two cards can always discard: no search needed.
  const bool quick = s.opened[team] && !going_out_only(rules, s.nat[team]);
  int16_t moves[NUM_ACTIONS];
  const int num_moves = meld_moves(tables, hand, s.nat[team], s.two[team], s.jok[team], s.clean_only, moves);
  int16_t melds[NUM_ACTIONS];
  int num_melds = 0;
  TurnSearch search(*this);
  bool have_node = false;
  Node node;
  const bool black3_last = rules.black3_meld_only_going_out;
  for (int i = 0; i < num_moves; ++i) {
    const Move& move = MOVES[moves[i]];
    bool ok;
    if (quick && total - move.naturals - move.twos - move.jokers >= 2 &&
        !(black3_last && move.slot == SLOT_BLACK3)) {
      ok = true;
    } else {
      if (!have_node) {
        search.game_node(node);
        have_node = true;
      }
      ok = search.move_feasible(move, node);
    }
    if (ok) melds[num_melds++] = moves[i];
  }
  int count = 0;
  // ids ascend: discards, then melds, then runs
  if ((quick && total >= 2) || search.discard_allowed()) {
    for (int kind = 0; kind < NUM_HAND_KINDS; ++kind)
      if (hand[kind]) out[count++] = static_cast<int16_t>(DISCARD + kind);
  }
  for (int i = 0; i < num_melds; ++i) out[count++] = melds[i];
  if (s.opened[team]) count += escala_actions(search, out + count);  // S-19
  return count;
}

// S-19: runs the opened team may lay, leaving a way to finish the turn (none without suits).
int Game::escala_actions(TurnSearch& search, int16_t* out) {
  const int player = s.current;
  const int total = s.hand_totals[player];
  int16_t runs[NUM_SUITS * NUM_RUNS];
  const int num_runs = s.suits.runs(player, runs);
  int count = 0;
  for (int i = 0; i < num_runs; ++i) {
    const Move& move = MOVES[runs[i]];
    if (total - move.naturals < 2) {  // few cards left: the turn must still end legally
      int16_t after[NUM_KINDS];
      std::memcpy(after, s.hands[player], sizeof(after));
      for (int rank = move.start; rank < move.start + move.naturals; ++rank) --after[rank];
      if (!search.hand_after_ok(after, total - move.naturals)) continue;
    }
    out[count++] = runs[i];
  }
  return count;
}

// ------------------------------------------------------------------ applying
void Game::apply(int action) {
  if (action < 0 || action >= NUM_ACTIONS)
    throw IllegalAction("action id " + std::to_string(action) + " is outside 0.." +
                        std::to_string(NUM_ACTIONS - 1));
  if (s.phase == PHASE_HAND_OVER)
    throw IllegalAction("illegal action " + std::to_string(action) + " ('" + action_text(action) +
                        "'): the hand is over");
  if (!mask()[action])
    throw IllegalAction("illegal action " + std::to_string(action) + " ('" + action_text(action) +
                        "') for player " + std::to_string(s.current) + " in the " +
                        PHASE_NAMES[s.phase] + " phase");
  legal_valid_ = false;
  ++s.num_steps;
  const Move& move = MOVES[action];
  switch (move.kind) {
    case MOVE_MELD: meld(action); break;
    case MOVE_DISCARD: discard(move.slot); break;
    case MOVE_DRAW: draw(); break;
    case MOVE_TAKE: take(action); break;
    case MOVE_PASS: end_hand(END_STOCK); break;
    default: lay_escala(action); break;
  }
}

bool Game::draw_cards(int count) {
  const int player = s.current;
  for (int i = 0; i < count; ++i) {
    if (!s.stock.len) break;
    int top = --s.stock.len;
    int card = s.stock[top];
    while (card == RED3) {
      lay_red3(s.team_of[player]);
      if (!s.stock.len) {
        end_hand(END_STOCK);
        return false;
      }
      top = --s.stock.len;
      card = s.stock[top];
    }
    ++s.hands[player][card];
    ++s.hand_totals[player];
    s.suits.draw(player, card, top);
  }
  return true;
}

void Game::lay_red3(int team) {  // G-6
  ++s.red3[team];
  ++s.table_totals[team];
}

void Game::draw() {
  if (s.pot.len && s.pot[s.pot.len - 1] < NUM_HAND_KINDS) {  // a red 3 on top is not declined
    ++s.declined[s.current][s.pot[s.pot.len - 1]];
    ++s.history_totals[s.current];
  }
  if (draw_cards(rules.draw_count)) s.phase = PHASE_MELD;
}

void Game::take(int action) {
  TakeOption options[4];
  const int num_options = take_options(options);
  TakeOption option = options[0];
  for (int i = 0; i < num_options; ++i)
    if (options[i].action == action) option = options[i];
  const int player = s.current;
  const int team = s.team_of[player];
  int16_t* hand = s.hands[player];
  const int top = s.pot[--s.pot.len];
  if (s.pot_known[top]) --s.pot_known[top];
  const int rest_len = s.pot.len;  // the rest stays in s.pot[0..rest_len) until dealt out below
  s.pot.len = 0;
  s.suits.take_pot(player, top, option.naturals, s.pot.items, rest_len);  // S-19
  int16_t known_rest[NUM_KINDS];
  std::memcpy(known_rest, s.pot_known, sizeof(known_rest));
  std::memset(s.pot_known, 0, sizeof(s.pot_known));
  s.pot_hidden = 0;
  s.pot_wild = false;
  s.took_pot = true;
  const bool unopened = !s.opened[team];
  if (unopened && rules.unopened_take_needs_clean_opening) s.clean_only = true;  // I-7, I-10
  // the top card and the cards from the hand form or join the meld (C-10, S-5, I-7)
  GameClosed sink = closed_sink(team);
  const int64_t points = take_top(rules, hand, s.nat[team], s.two[team], s.jok[team], sink, top, option);
  const int cards = option.naturals + option.twos + option.jokers;
  s.hand_totals[player] -= cards;
  s.table_totals[team] += 1 + cards;
  forget_known(player, top, option.naturals);
  forget_known(player, TWO, option.twos);
  forget_known(player, JOKER, option.jokers);
  // the rest of the pot: red 3s are laid out unreplaced (G-6), the others are known
  for (int kind = 0; kind < NUM_HAND_KINDS; ++kind) s.known[player][kind] += known_rest[kind];
  for (int i = 0; i < rest_len; ++i) {
    const int card = s.pot[i];
    if (card == RED3) lay_red3(team);
    else ++s.held[card];
  }
  after_meld(player, team, top, points, false);
  if (s.phase == PHASE_HAND_OVER) return;
  if (!unopened || s.opened[team]) release_held(player);
  if (rules.draw_after_pot_take && s.stock.len) {  // I-4, ambiguity 12
    if (!draw_cards(rules.draw_after_pot_take)) return;
  }
  s.phase = PHASE_MELD;
}

void Game::release_held(int player) {
  if (!any_held()) return;
  int total = 0;
  for (int kind = 0; kind < NUM_KINDS; ++kind) {
    s.hands[player][kind] += s.held[kind];
    total += s.held[kind];
  }
  s.hand_totals[player] += total;
  std::memset(s.held, 0, sizeof(s.held));
  s.suits.release_held(player);
}

void Game::forget_known(int player, int kind, int count) {
  if (count) s.known[player][kind] = static_cast<int16_t>(std::max(0, s.known[player][kind] - count));
}

void Game::meld(int action) {
  const Move& move = MOVES[action];
  const int player = s.current;
  const int team = s.team_of[player];
  GameClosed sink = closed_sink(team);
  const bool hidden = lay(rules, s.hands[player], s.nat[team], s.two[team], s.jok[team], sink, move);
  const int kind = natural_kind(move.slot);
  if (move.naturals) forget_known(player, kind, move.naturals);
  s.suits.meld(player, kind, move.naturals);
  if (move.twos) forget_known(player, TWO, move.twos);
  if (move.jokers) forget_known(player, JOKER, move.jokers);
  const int cards = move.naturals + move.twos + move.jokers;
  s.hand_totals[player] -= cards;
  s.table_totals[team] += cards;
  const int64_t points = s.opened[team] ? 0 : meld_points(move.slot, move.naturals, move.twos, move.jokers);
  after_meld(player, team, move.slot, points, hidden);
}

void Game::after_meld(int player, int team, int slot, int64_t points, bool hidden) {
  s.melded_this_turn = true;
  if (!s.opened[team]) {
    s.staged += static_cast<int32_t>(points);
    if (hidden && rules.hidden_canasta_opens) s.hidden_open = true;  // S-8
    if (s.staged >= s.need[team] || s.hidden_open) {
      s.opened[team] = true;
      release_held(player);
    }
  }
  if (slot == SLOT_BLACK3 && rules.black3_canasta_wins_game &&
      (s.nat[team][SLOT_BLACK3] >= rules.canasta_size || team_has_black3_closed(team))) {
    end_hand(END_BLACK3, team);  // S-11
    return;
  }
  if (s.hand_totals[player] == 0 && !any_held()) go_out(player);
}

void Game::lay_escala(int action) {  // S-19
  const Move& move = MOVES[action];
  const int player = s.current;
  const int team = s.team_of[player];
  for (int rank = move.start; rank < move.start + move.naturals; ++rank) {
    --s.hands[player][rank];
    forget_known(player, rank, 1);
  }
  s.suits.lay_run(player, move.suit, move.start, move.naturals);
  s.hand_totals[player] -= move.naturals;
  s.table_totals[team] += move.naturals;
  if (s.escalas[team].len >= Runs::CAPACITY) throw std::runtime_error("core: a team's runs overflow");
  s.escalas[team][s.escalas[team].len++] = Run{move.suit, static_cast<uint8_t>(move.start), move.naturals};
  s.melded_this_turn = true;
  if (s.hand_totals[player] == 0 && !any_held()) go_out(player);
}

void Game::discard(int kind) {
  const int player = s.current;
  --s.hands[player][kind];
  --s.hand_totals[player];
  if (s.known[player][kind]) --s.known[player][kind];  // a card the others saw it take
  s.suits.discard(player, kind, s.pot.len);  // S-19
  s.pot[s.pot.len++] = static_cast<uint8_t>(kind);
  ++s.pot_known[kind];
  ++s.discarded[player][kind];
  ++s.history_totals[player];
  for (int seat = 0; seat < s.num_players; ++seat) {
    if (seat == player) std::memset(s.since_discard[seat], 0, sizeof(s.since_discard[seat]));
    else ++s.since_discard[seat][kind];
  }
  if (kind == TWO || kind == JOKER) s.pot_wild = true;  // C-9, S-6, I-8
  if (s.hand_totals[player] == 0) {
    go_out(player);
    return;
  }
  begin_turn((player + 1) % s.num_players);
}

void Game::go_out(int player) {
  const int team = s.team_of[player];
  s.went_out = static_cast<int8_t>(player);
  s.concealed = !s.opened_at_turn_start;  // C-15, ambiguity 4
  s.opened[team] = true;
  end_hand(END_WENT_OUT);
}

void Game::begin_turn(int player) {
  s.current = static_cast<int8_t>(player);
  s.phase = PHASE_DRAW;
  const int team = s.team_of[player];
  s.staged = 0;
  std::memset(s.held, 0, sizeof(s.held));
  s.suits.clear_held();
  s.took_pot = false;
  s.hidden_open = false;
  s.melded_this_turn = false;
  s.opened_at_turn_start = s.opened[team];
  turn_id_ = new_turn_id();
  s.clean_only = !s.opened[team] && s.need[team] <= rules.clean_opening_max_minimum;
  if (rules.no_go_out_on_first_clean_turn) {  // S-15 is the only reader
    auto sum = canasta_summary(rules, s.nat[team], s.two[team], s.jok[team], s.closed[team].len, closed_clean(team));
    s.had_clean_at_turn_start = sum.clean > 0;
  } else {
    s.had_clean_at_turn_start = false;
  }
  legal_valid_ = false;
  if (s.stock.len < rules.draw_count) {
    int count;
    legal_actions(&count);
    if (!count) end_hand(END_STOCK);  // C-16, S-17, I-11
  }
}

// ------------------------------------------------------------------ hand end
void Game::end_hand(int reason, int winner) {
  if (any_held()) release_held(s.current);  // pot cards held for an opening that never came
  s.phase = PHASE_HAND_OVER;
  s.end_reason = static_cast<int8_t>(reason);
  for (int i = 0; i < num_legal_; ++i) mask_[legal_[i]] = 0;
  num_legal_ = 0;
  legal_valid_ = true;
  HandRecord record{};
  record.hand = s.hand_index;
  record.reason = reason;
  for (int team = 0; team < s.num_teams; ++team) {
    s.hand_scores[team] = score_team(*this, team);
    s.scores[team] += s.hand_scores[team].total;
    record.scores[team] = s.hand_scores[team].total;
  }
  s.hand_history.push_back(record);
  if (winner >= 0) {
    s.game_over = true;
    s.winner_team = static_cast<int8_t>(winner);
    return;
  }
  int64_t best = s.scores[0];
  for (int team = 1; team < s.num_teams; ++team) best = std::max(best, s.scores[team]);
  if (best >= rules.target_score) {  // G-7
    s.game_over = true;
    int leaders = 0, leader = -1;
    for (int team = 0; team < s.num_teams; ++team)
      if (s.scores[team] == best) {
        ++leaders;
        if (leader < 0) leader = team;
      }
    s.winner_team = static_cast<int8_t>(leaders == 1 ? leader : -1);
  }
}

void Game::next_hand(const StackedDeck* deck) {
  if (s.phase != PHASE_HAND_OVER) throw IllegalAction("the current hand is not over");
  if (s.game_over) throw IllegalAction("the game is over");
  // the deck is checked before anything changes: deal into a copy
  GameState saved = s;
  ++s.hand_index;
  try {
    legal_valid_ = false;
    start_hand(deck);
  } catch (...) {
    s = saved;
    legal_valid_ = false;
    turn_id_ = new_turn_id();
    throw;
  }
}

void Game::state_changed() {
  turn_id_ = new_turn_id();
  num_legal_ = 0;
  std::memset(mask_, 0, sizeof(mask_));
  legal_valid_ = false;
}

// ------------------------------------------------------------------ random playout
int64_t random_playout(std::shared_ptr<const Rules> rules, const std::string& name,
                       int num_players, int64_t steps, uint32_t seed) {
  Rng policy;
  policy.seed32(seed);
  Rng deal;
  deal.seed32(seed ^ 0x5bd1e995U);
  int64_t hands = 0;
  auto game = std::make_unique<Game>(rules, name, num_players, deal, nullptr);
  for (int64_t step = 0; step < steps; ++step) {
    while (game->hand_over()) {
      ++hands;
      if (game->s.game_over) {
        deal.seed32(policy.genrand_uint32());
        game = std::make_unique<Game>(rules, name, num_players, deal, nullptr);
      } else {
        game->next_hand(nullptr);
      }
    }
    int count;
    const int16_t* legal = game->legal_actions(&count);
    if (count == 0) break;  // no legal action (never on a dealt game): no draw from nothing
    game->apply(legal[policy.randbelow(static_cast<uint32_t>(count))]);
  }
  return hands;
}

}  // namespace canasta
