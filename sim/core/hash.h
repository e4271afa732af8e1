#pragma once
// Hashing of small integer keys (memo tables keyed by op or tile shapes). The shapes differ
// in a few low bits of a few fields; a multiply-xor chain leaves such keys clustered in a
// hash table's buckets, so every word goes through a full 64-bit mixer (SplitMix64's).
#include <array>
#include <cstddef>
#include <cstdint>

namespace trainsim {

inline std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

template <std::size_t N>
struct WordsHash {
  std::size_t operator()(const std::array<std::int64_t, N>& k) const {
    std::uint64_t h = 0x9e3779b97f4a7c15ULL;
    for (std::int64_t v : k) h = mix64(h ^ static_cast<std::uint64_t>(v));
    return static_cast<std::size_t>(h);
  }
};

}  // namespace trainsim
