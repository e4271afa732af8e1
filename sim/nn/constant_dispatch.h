#pragma once
// Register-blocked kernels take their block sizes as template arguments; this turns a block
// size known only at run time into one of those instantiations.
#include <type_traits>

namespace trainsim {

/// Calls fn(std::integral_constant<int, n>{}) for n in [1, kMax]; a larger n calls it with kMax.
template <int kMax, typename F>
void with_constant(int n, const F& fn) {
  if constexpr (kMax > 1) {
    if (n < kMax) return with_constant<kMax - 1>(n, fn);
  }
  fn(std::integral_constant<int, kMax>{});
}

}  // namespace trainsim
