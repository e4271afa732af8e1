#pragma once
// The numerics' arithmetic kernels: every GEMM, dot product, reduction and convolution kernel
// of the layers' training passes. Each output of a kernel is computed in an order fixed by
// this source alone, never by the vector width the compiler picks, so a training run gives
// the same bits on an AVX2 and an AVX-512 machine:
//   * gemm: every C[i][j] is one chain of fused multiply-adds over p = 0, 1, ..., k-1 in
//     order (from 0, or from C[i][j] when accumulating). The vectors run along j, across
//     independent outputs, so their width (16 floats with AVX-512, 8 otherwise) and the
//     register blocking change how many outputs are computed at once, never a bit of any.
//   * dot_gemm, row_sums and the direct convolutions' weight and bias gradients sum along
//     the vector lanes: their lanes are the 8 floats / 4 doubles of sim/nn/simd.h on every
//     ISA, each lane a chain in index order, the lanes then added in index order.
// Multiply-adds are fused on every build (simd::fma: the FMA instruction, or libm's fma
// where the CPU lacks one), and the numerics are compiled with -ffp-contract=off, so no
// compiler decides to fuse an `a * b + c` on one build and not on another.
//
// Several builds of the kernels live in every program (sim/nn/kernels/, compiled once per
// build, each in its own namespace: sim/nn/kernel_namespace.h): `native`, with the build's
// flags (-march=native: AVX2 or AVX-512); `avx2`, for AVX2 + FMA, what an AVX2 machine's
// native build runs (listed where the CPU has both); and `baseline`, for plain x86-64 (SSE2:
// every 8-float vector two SSE operations, and no FMA instruction). They must all give the
// same bits; the tests run layers and short trainings on each and compare
// (tests/unit/test_kernel_isa.cpp). The layers call whichever set is active: `native`, or the
// one the environment variable TRAINSIM_KERNELS names, or use_kernels()'s.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/nn/direct_conv.h"

namespace trainsim {

/// C = A B or C += A B with C row-major (m x n, rows ldc apart) and A (m x k), B (k x n)
/// given by strides, so either may be a transposed view: A[i][p] = a[i * a_rows + p * a_cols],
/// B[p][j] = b[p * b_rows + j * b_cols].
template <typename T>
struct GemmArgs {
  int m = 0, n = 0;
  std::int64_t k = 0;
  const T* a = nullptr;
  std::int64_t a_rows = 0, a_cols = 0;
  const T* b = nullptr;
  std::int64_t b_rows = 0, b_cols = 0;
  T* c = nullptr;
  std::int64_t ldc = 0;
  bool accumulate = false;
};

/// One build's kernels for one element type. The direct convolution kernels are documented
/// in sim/nn/direct_conv.h.
template <typename T>
struct KernelFns {
  void (*gemm)(const GemmArgs<T>& g);
  /// C[m x n] += A[m x k] B[n x k]^T with every row of A and B contiguous, vectorised along
  /// k: the shape of a convolution's backward-weight whose output is small and reduction long
  /// (LeNet-5-sized layers off the direct path: a 6 x 25 gradient over 25,088 pixels), where
  /// a GEMM kernel's register block along the output would be mostly empty.
  void (*dot_gemm)(const T* a, const T* b, T* c, int m, int n, std::int64_t k);
  /// sums[r] += the sum of row r of x (rows x cols, row-major).
  void (*row_sums)(const T* x, int rows, std::int64_t cols, T* sums);
  void (*direct_forward)(const DirectShape& s, const T* packed, const T* x, T* out);
  void (*direct_backward_data)(const DirectShape& s, const T* packed, const T* dy, T* dx);
  void (*direct_weight_grad)(const DirectShape& s, const T* dy, std::int64_t dy_stride, const T* x,
                             std::int64_t x_stride, int samples, T* dw);
  void (*direct_bias_grad)(const DirectShape& s, const T* dy, std::int64_t dy_stride, int samples,
                           T* db);
  void (*direct_forward_filters)(const DirectShape& s, const T* packed, const T* x, const T* bias,
                                 const SampleRun& run, T* y);
  void (*direct_weight_grad_filters)(const DirectShape& s, const T* dyt, const T* x,
                                     const SampleRun& run, T* acc);
  void (*sum_gradient_filters)(const DirectShape& s, const T* dyt, int samples, T* sums);
};

/// One build of the kernels, both element types.
struct KernelSet {
  const char* id;
  const char* what;  ///< the instruction set it was compiled for, for people
  KernelFns<float> f32;
  KernelFns<double> f64;
  std::string name() const { return id; }
  const KernelFns<float>& fns(float*) const { return f32; }
  const KernelFns<double>& fns(double*) const { return f64; }
};

/// Every build of the kernels in this program that this CPU can run, `native` first.
const std::vector<const KernelSet*>& kernel_sets();
/// Makes the set called `name` the one every layer uses from now on, in every thread
/// (UserError for an unknown name). Not meant to change while layers run.
void use_kernels(const std::string& name);
/// The set the layers use: use_kernels()'s, else TRAINSIM_KERNELS's (UserError for an unknown
/// name), else `native`.
const KernelSet& active_kernel_set();

template <typename T>
const KernelFns<T>& kernels() {
  return active_kernel_set().fns(static_cast<T*>(nullptr));
}

}  // namespace trainsim
