// The Python face of the house bots (bot_bindings.cpp): _core.Bot and _core.play_bots, added
// to canasta_env._core by bindings.cpp; batch_bindings.cpp takes a Bot in Batch.set_bot.
#pragma once
#include <memory>
#include <vector>

#include "bots/bot.hpp"
#include "busy.hpp"

namespace nanobind {
class module_;
}

namespace canasta {

// A house bot owned by Python (_core.Bot).
struct PyBot {
  std::unique_ptr<bots::Bot> bot;
  std::vector<int16_t> legal;  // scratch: the ids of the mask act was given
  BusyFlag busy;               // held by each call that uses the bot (busy.hpp)
};

void bind_bots(nanobind::module_& m);

}  // namespace canasta
