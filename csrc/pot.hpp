// The pot as the rules read it (engine/pot.py): frozen or not, naturals a take needs.
#pragma once
#include "rules.hpp"

namespace canasta {

// C-9: the pot is frozen against a team that has not opened.
inline bool frozen_until_opened(const Rules& rules, bool team_opened) {
  return rules.frozen_for_unopened && !team_opened;
}

// C-9, S-6, I-8: frozen (or crossed) for a team.
inline bool pot_frozen(const Rules& rules, bool pot_wild, bool team_opened) {
  return pot_wild || frozen_until_opened(rules, team_opened);
}

// C-10, C-11, S-5, I-7, I-8: naturals of the top card's rank a plain take needs.
inline int64_t naturals_to_take(const Rules& rules, bool frozen) {
  return frozen ? rules.take_naturals_frozen : rules.take_naturals;
}

}  // namespace canasta
