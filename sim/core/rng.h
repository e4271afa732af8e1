#pragma once
// A small, fully specified random source. std::*_distribution are implementation-defined,
// so results would differ between standard libraries; everything trainsim draws (weight
// initialisation, shuffles, dataset splits) goes through this instead, so a seed means the
// same numbers everywhere.
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t next_u64() { return engine_(); }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }

  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

  /// Uniform integer in [0, n) without modulo bias (Lemire's rejection method).
  std::uint64_t below(std::uint64_t n) {
    const std::uint64_t threshold = (0 - n) % n;
    for (;;) {
      const std::uint64_t x = engine_();
      const unsigned __int128 m = static_cast<unsigned __int128>(x) * n;
      if (static_cast<std::uint64_t>(m) >= threshold) return static_cast<std::uint64_t>(m >> 64);
    }
  }

  /// Standard normal via Box-Muller (both uniforms consumed every call: no hidden state).
  double normal() {
    double u1 = uniform();
    while (u1 <= 0.0) u1 = uniform();
    const double u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586476925 * u2);
  }

  /// Fisher-Yates shuffle.
  template <typename T>
  void shuffle(std::vector<T>& v) {
    for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  }

  /// The engine's full state as text, and back (checkpoints: a resumed run draws on).
  std::string state() const {
    std::ostringstream out;
    out << engine_;
    return out.str();
  }
  void set_state(const std::string& text) {
    std::istringstream in(text);
    in >> engine_;
  }

 private:
  std::mt19937_64 engine_;  // the engine itself is fully specified by the standard
};

}  // namespace trainsim
