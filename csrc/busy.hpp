// One thread at a time: the objects Python may reach from several threads (a _core.Game, a
// _core.Batch, a _core.Bot) each hold a BusyFlag, and every binding that reads or writes
// one holds it for the call. The calls that release the GIL (Batch.reset and step, the
// learner's face, play_bots, random_steps) would otherwise let a second thread change a
// game or a bot under the first: a crash, not an error. A second thread now gets
// RuntimeError naming the rule (docs/core.md, "Threads"); a call never waits.
#pragma once
#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace canasta {

class BusyFlag {
 public:
  BusyFlag() = default;
  BusyFlag(const BusyFlag&) = delete;
  BusyFlag& operator=(const BusyFlag&) = delete;

  bool try_take() { return !taken_.exchange(true, std::memory_order_acquire); }
  void release() { taken_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> taken_{false};
};

// `what` ("this _core.Batch") is being used by another thread.
[[noreturn]] inline void busy_error(const char* what) {
  throw std::runtime_error(std::string("core: ") + what +
                           " is being used by another thread: one thread at a time "
                           "(docs/core.md, \"Threads\")");
}

// One flag held for one call: taken at once or busy_error, released on return or throw.
class Hold {
 public:
  Hold(BusyFlag& flag, const char* what) : flag_(flag) {
    if (!flag.try_take()) busy_error(what);
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  ~Hold() { flag_.release(); }

 private:
  BusyFlag& flag_;
};

// The flags of one call that touches several objects (a batch and its games, a game and
// its bots): taken all or none (a flag held elsewhere releases those taken and throws),
// released on return or throw.
class HoldAll {
 public:
  HoldAll() = default;
  HoldAll(const HoldAll&) = delete;
  HoldAll& operator=(const HoldAll&) = delete;
  ~HoldAll() { release(); }

  void reserve(std::size_t flags) { held_.reserve(flags); }

  // a flag this call holds already (one bot at two seats) is taken once: take_once
  void take_once(BusyFlag& flag, const char* what) {
    for (BusyFlag* held : held_)
      if (held == &flag) return;
    take(flag, what);
  }
  void take(BusyFlag& flag, const char* what) {
    if (!flag.try_take()) {
      release();
      busy_error(what);
    }
    held_.push_back(&flag);
  }

 private:
  std::vector<BusyFlag*> held_;
  void release() {
    for (BusyFlag* held : held_) held->release();
    held_.clear();
  }
};

constexpr const char* GAME_IN_USE = "this _core.Game";
constexpr const char* BATCH_IN_USE = "this _core.Batch";
constexpr const char* BOT_IN_USE = "this _core.Bot";

}  // namespace canasta
