#pragma once
// Times and counts the model forms in floating point from user-given figures (a transfer's
// bytes over a bandwidth, cycles over a clock, a latency in picoseconds) become integers
// through these functions. A value past what one op, transfer or task may take (2^62, so that
// two of them add without overflow and the checked sums of sim/spec/op_stats.h take over
// from there), or not a number at all, is a UserError naming the key that set it, instead of
// an undefined conversion: a link at 1e-12 GB/s once cost nothing because its transfer time,
// 1e27 ps, became a negative integer.
//
// The keys' ranges (sim/yaml/key_ranges.h) keep ordinary tensors far inside the limit; what
// is left to check here are products of several figures with large ops.
#include <cmath>
#include <cstdint>
#include <string_view>

namespace trainsim {

/// 2^62: the most one op, transfer or task may take, in its unit (cycles or picoseconds).
inline constexpr double kMaxSpan = 4611686018427387904.0;

/// What a span is and what set it, for the message
///   "<key>: at <value> (<other_key> <other_value>) <what> would take <x> <unit>, more than
///    one may take (2^62 = 4.6e+18)"
struct SpanBlame {
  std::string_view key;   ///< the figure that makes it long: "accelerator.dram.bandwidth_gbps"
  double value = 0;       ///< its value
  std::string_view what;  ///< "a DRAM transfer"
  std::string_view unit;  ///< "cycles", "ps"
  std::string_view other_key = {};  ///< a second figure it depends on (empty: none)
  double other_value = 0;
};

[[noreturn]] void span_overflow(double x, const SpanBlame& blame);

/// ceil(x) as an integer; UserError unless 0 <= x < kMaxSpan. Inline: the cost models
/// convert a transfer time per op.
inline std::int64_t checked_ceil(double x, const SpanBlame& blame) {
  if (__builtin_expect(!(x >= 0 && x < kMaxSpan), 0)) span_overflow(x, blame);
  return static_cast<std::int64_t>(std::ceil(x));
}

/// std::llround(x); UserError unless 0 <= x < kMaxSpan.
inline std::int64_t checked_round(double x, const SpanBlame& blame) {
  if (__builtin_expect(!(x >= 0 && x < kMaxSpan), 0)) span_overflow(x, blame);
  return static_cast<std::int64_t>(std::llround(x));
}

/// a + b for spans a, b >= 0 (a channel's busy time plus a transfer); UserError when the
/// sum reaches kMaxSpan.
inline std::int64_t add_span(std::int64_t a, std::int64_t b, const SpanBlame& blame) {
  std::int64_t r = 0;
  if (__builtin_expect(__builtin_add_overflow(a, b, &r) || static_cast<double>(r) >= kMaxSpan, 0))
    span_overflow(static_cast<double>(a) + static_cast<double>(b), blame);
  return r;
}

}  // namespace trainsim
