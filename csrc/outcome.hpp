// A hand's or a game's result, counted once: the mirror of canasta_env/engine/outcome.py.
//
// The one convention (docs/rules.md, "The result of a hand"): points per team (the hand's
// sheet totals, or the game's running totals); a team's margin is its points minus the
// mean points of the other teams; the teams with the highest points share the win (a game
// that has a winner, declared by the rules, has that team alone); outcome +1 won alone, 0
// tied for the win, -1 lost. The batch books its rewards through it (batch.cpp book_hand).
#pragma once
#include <algorithm>
#include <cstdint>

#include "state.hpp"

namespace canasta {

struct Result {
  int num_teams = 0;
  int64_t points[MAX_TEAMS] = {};
  bool wins[MAX_TEAMS] = {};  // the teams sharing the win
  int num_winners = 0;

  // Result.of: `winner` a team the rules declared the winner (a game's), -1: the highest
  static Result of(const int64_t* team_points, int teams, int winner = -1) {
    Result result;
    result.num_teams = teams;
    std::copy(team_points, team_points + teams, result.points);
    if (winner >= 0) {
      result.wins[winner] = true;
      result.num_winners = 1;
      return result;
    }
    const int64_t top = *std::max_element(team_points, team_points + teams);
    for (int team = 0; team < teams; ++team)
      if (team_points[team] == top) {
        result.wins[team] = true;
        ++result.num_winners;
      }
    return result;
  }

  // Result.margin: Python's int / int is the correctly rounded quotient, as double /
  // double here (the totals are far inside 2**53)
  double margin(int team) const {
    int64_t others = 0;
    for (int t = 0; t < num_teams; ++t)
      if (t != team) others += points[t];
    return static_cast<double>(points[team]) -
           static_cast<double>(others) / static_cast<double>(num_teams - 1);
  }

  // Result.outcome
  int outcome(int team) const {
    if (!wins[team]) return -1;
    return num_winners == 1 ? 1 : 0;
  }
};

// outcome.py result_of(game, "hand"): the hand that ended (its sheets' totals)
inline Result hand_result(const GameState& s) {
  int64_t totals[MAX_TEAMS];
  for (int team = 0; team < s.num_teams; ++team) totals[team] = s.hand_scores[team].total;
  return Result::of(totals, s.num_teams);
}

// outcome.py result_of(game, "game"): the game's totals, its winner where the rules gave one
inline Result game_result(const GameState& s) {
  return Result::of(s.scores, s.num_teams, s.winner_team);
}

}  // namespace canasta
