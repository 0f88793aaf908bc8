// numpy's PCG64 bit generator and Generator.integers(high), reproduced exactly for what the
// learner's face draws (canasta_env/gym_vector.py: the learner's seat, the opponents' seeds
// and the deal seed of each episode, from the table's seeding.np_random generator).
//
// The state is the one numpy's PCG64.state holds: the 128-bit LCG state and increment,
// and the 32-bit buffer of next_uint32 (has_uint32, uinteger), so a Python generator's
// state loads here and back. A step is the 128-bit LCG state * MULTIPLIER + increment,
// and a 64-bit draw the XSL-RR output of the new state (the high and low halves xored,
// rotated right by the top 6 bits). next_uint32 hands out the low half of a 64-bit draw
// and keeps the high half for the next call, as numpy does.
//
// integers(high), 1 <= high <= 2**31 - 1, is numpy's Generator.integers(high) (int64,
// endpoint False) for such a bound: numpy's random_bounded_uint64_fill with the closed
// range high - 1 that fits 32 bits, so Lemire's multiply-and-reject on 32-bit draws; a
// range of 0 (high == 1) returns 0 and draws nothing. tests/test_numpy_pcg64.py checks
// the draws and the final state against numpy itself.
//
// The 128-bit arithmetic is written on two 64-bit halves (no __int128: MSVC lacks it).
#pragma once
#include <cstdint>

namespace canasta {

// An unsigned 128-bit integer as two 64-bit halves, with the LCG's two operations.
struct Uint128 {
  uint64_t high = 0, low = 0;

  friend bool operator==(const Uint128& a, const Uint128& b) {
    return a.high == b.high && a.low == b.low;
  }
};

// a + b mod 2**128
inline Uint128 add128(Uint128 a, Uint128 b) {
  const uint64_t low = a.low + b.low;
  return {a.high + b.high + (low < a.low ? 1 : 0), low};
}

// a * b as a full 128-bit product, from 32-bit halves
inline Uint128 multiply64(uint64_t a, uint64_t b) {
  const uint64_t a_low = a & 0xffffffffULL, a_high = a >> 32;
  const uint64_t b_low = b & 0xffffffffULL, b_high = b >> 32;
  const uint64_t low_low = a_low * b_low, high_low = a_high * b_low;
  const uint64_t low_high = a_low * b_high, high_high = a_high * b_high;
  const uint64_t middle = (low_low >> 32) + (high_low & 0xffffffffULL) + low_high;
  return {high_high + (high_low >> 32) + (middle >> 32),
          (middle << 32) | (low_low & 0xffffffffULL)};
}

// a * b mod 2**128
inline Uint128 multiply128(Uint128 a, Uint128 b) {
  Uint128 product = multiply64(a.low, b.low);
  product.high += a.high * b.low + a.low * b.high;
  return product;
}

struct NumpyPcg64 {
  // numpy's PCG_DEFAULT_MULTIPLIER_128 (pcg64.h)
  static constexpr Uint128 MULTIPLIER{0x2360ed051fc65da4ULL, 0x4385df649fccf645ULL};
  // the largest bound integers takes here, the one tests/test_numpy_pcg64.py checks
  // against numpy (the algorithm itself holds up to 2**32 - 1); the seeds the episodes
  // draw fit under it (batch.cpp checks SEED_BOUND at compile time)
  static constexpr int64_t MAX_BOUND = 0x7fffffff;

  Uint128 state;      // PCG64.state["state"]["state"]
  Uint128 increment;  // PCG64.state["state"]["inc"]
  bool has_uint32 = false;  // the high half of the last 64-bit draw is waiting (uinteger)
  uint32_t uinteger = 0;

  uint64_t next_uint64() {
    state = add128(multiply128(state, MULTIPLIER), increment);
    const uint64_t folded = state.high ^ state.low;
    const unsigned rotation = static_cast<unsigned>(state.high >> 58);
    return (folded >> rotation) | (folded << ((64 - rotation) & 63));
  }

  uint32_t next_uint32() {
    if (has_uint32) {
      has_uint32 = false;
      return uinteger;
    }
    const uint64_t next = next_uint64();
    has_uint32 = true;
    uinteger = static_cast<uint32_t>(next >> 32);
    return static_cast<uint32_t>(next);
  }

  // Generator.integers(high) for 1 <= high <= MAX_BOUND (the caller checks the bound)
  int64_t integers(int64_t high) {
    if (high == 1) return 0;  // numpy's closed range 0: no draw
    const uint32_t bound = static_cast<uint32_t>(high);
    uint64_t product = static_cast<uint64_t>(next_uint32()) * bound;
    uint32_t leftover = static_cast<uint32_t>(product);
    if (leftover < bound) {
      // 2**32 mod bound: the products below it would favour the smaller values
      const uint32_t threshold = (0u - bound) % bound;
      while (leftover < threshold) {
        product = static_cast<uint64_t>(next_uint32()) * bound;
        leftover = static_cast<uint32_t>(product);
      }
    }
    return static_cast<int64_t>(product >> 32);
  }
};

}  // namespace canasta
