#pragma once
// The kernels of one build (sim/nn/kernel_namespace.h): what sim/nn/kernels/*.cpp define and
// kernel_set.cpp puts into that build's KernelSet. Semantics: sim/nn/kernels.h and
// sim/nn/direct_conv.h.
#include <cstdint>

#include "sim/nn/kernel_namespace.h"
#include "sim/nn/kernels.h"

namespace trainsim::TRAINSIM_KERNEL_NS {

/// This build's kernels.
const KernelSet& kernel_set();

template <typename T>
void gemm(const GemmArgs<T>& g);
template <typename T>
void dot_gemm(const T* a, const T* b, T* c, int m, int n, std::int64_t k);
template <typename T>
void row_sums(const T* x, int rows, std::int64_t cols, T* sums);

template <typename T>
void direct_forward(const DirectShape& s, const T* packed, const T* x, T* out);
template <typename T>
void direct_backward_data(const DirectShape& s, const T* packed, const T* dy, T* dx);
template <typename T>
void direct_weight_grad(const DirectShape& s, const T* dy, std::int64_t dy_stride, const T* x,
                        std::int64_t x_stride, int samples, T* dw);
template <typename T>
void direct_bias_grad(const DirectShape& s, const T* dy, std::int64_t dy_stride, int samples,
                      T* db);
template <typename T>
void direct_forward_filters(const DirectShape& s, const T* packed, const T* x, const T* bias,
                            const SampleRun& run, T* y);
template <typename T>
void direct_weight_grad_filters(const DirectShape& s, const T* dyt, const T* x,
                                const SampleRun& run, T* acc);
template <typename T>
void sum_gradient_filters(const DirectShape& s, const T* dyt, int samples, T* sums);

}  // namespace trainsim::TRAINSIM_KERNEL_NS
