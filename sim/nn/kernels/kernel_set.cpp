// This build's KernelSet (sim/nn/kernels.h): `native` with the build's flags, or one of the
// extra builds of CMakeLists.txt, which name themselves with TRAINSIM_KERNEL_SET
// (sim/nn/kernel_namespace.h).
#include "sim/nn/kernels/kernel_impl.h"

namespace trainsim::TRAINSIM_KERNEL_NS {

namespace {

#if defined(TRAINSIM_KERNEL_SET)
constexpr const char* kId = TRAINSIM_KERNEL_SET;
#else
constexpr const char* kId = "native";
#endif

// The widest vector instructions this build may use, as the compiler was told.
constexpr const char* kWhat =
#if defined(__AVX512F__)
    "AVX-512"
#elif defined(__AVX2__) && defined(__FMA__)
    "AVX2 + FMA"
#elif defined(__AVX__)
    "AVX"
#else
    "SSE2, no FMA instruction"
#endif
    ;

template <typename T>
KernelFns<T> fns() {
  KernelFns<T> k;
  k.gemm = &gemm<T>;
  k.dot_gemm = &dot_gemm<T>;
  k.row_sums = &row_sums<T>;
  k.direct_forward = &direct_forward<T>;
  k.direct_backward_data = &direct_backward_data<T>;
  k.direct_weight_grad = &direct_weight_grad<T>;
  k.direct_bias_grad = &direct_bias_grad<T>;
  k.direct_forward_filters = &direct_forward_filters<T>;
  k.direct_weight_grad_filters = &direct_weight_grad_filters<T>;
  k.sum_gradient_filters = &sum_gradient_filters<T>;
  return k;
}

}  // namespace

const KernelSet& kernel_set() {
  static const KernelSet set{kId, kWhat, fns<float>(), fns<double>()};
  return set;
}

}  // namespace trainsim::TRAINSIM_KERNEL_NS
