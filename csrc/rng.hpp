// CPython's random.Random, reproduced exactly for what the engine draws:
// MT19937 (genrand_uint32), getrandbits(k) for k <= 32, _randbelow(n) and the
// shuffle of Python 3.11+ (for i in reversed(range(1, len(x))): j = _randbelow(i + 1)).
// The state is the one random.Random.getstate() gives: 624 words and an index, so a
// Python generator's state loads here and back without any seeding on this side.
#pragma once
#include <cstdint>

namespace canasta {

struct Rng {
  static constexpr int N = 624;
  uint32_t mt[N];
  int32_t index;  // 624: the next draw regenerates the words (CPython's mti)

  uint32_t genrand_uint32() {
    static constexpr int M = 397;
    static constexpr uint32_t MATRIX_A = 0x9908b0dfU, UPPER = 0x80000000U, LOWER = 0x7fffffffU;
    if (index >= N) {
      int kk = 0;
      for (; kk < N - M; ++kk) {
        uint32_t y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
        mt[kk] = mt[kk + M] ^ (y >> 1) ^ ((y & 1U) ? MATRIX_A : 0U);
      }
      for (; kk < N - 1; ++kk) {
        uint32_t y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER);
        mt[kk] = mt[kk + (M - N)] ^ (y >> 1) ^ ((y & 1U) ? MATRIX_A : 0U);
      }
      uint32_t y = (mt[N - 1] & UPPER) | (mt[0] & LOWER);
      mt[N - 1] = mt[M - 1] ^ (y >> 1) ^ ((y & 1U) ? MATRIX_A : 0U);
      index = 0;
    }
    uint32_t y = mt[index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
  }

  // random.getrandbits(k), 1 <= k <= 32
  uint32_t getrandbits(int k) { return genrand_uint32() >> (32 - k); }

  // random._randbelow_with_getrandbits(n), n >= 1
  uint32_t randbelow(uint32_t n) {
    const int k = 32 - __builtin_clz(n);  // n.bit_length(), n >= 1
    uint32_t r = getrandbits(k);
    while (r >= n) r = getrandbits(k);
    return r;
  }

  // random.shuffle (Python 3.11+)
  template <typename T>
  void shuffle(T* x, int len) {
    for (int i = len - 1; i >= 1; --i) {
      int j = static_cast<int>(randbelow(static_cast<uint32_t>(i + 1)));
      T tmp = x[i];
      x[i] = x[j];
      x[j] = tmp;
    }
  }

  // A stand-alone generator seeded like CPython's init_genrand (for the C++-side
  // random playouts of the benchmark only; games load a Python state).
  void seed32(uint32_t s) {
    mt[0] = s;
    for (int i = 1; i < N; ++i) mt[i] = 1812433253U * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
    index = N;
  }
};

}  // namespace canasta
