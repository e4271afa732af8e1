#pragma once
// C[m x n] += A[m x k] B[n x k]^T with every row of A and B contiguous, as blocks of dot
// products vectorised along k. This is the shape of a convolution's backward-weight when
// its output is small and its reduction long (LeNet-5's conv1: a 6 x 25 gradient summed
// over 25,088 pixels per batch): a GEMM kernel vectorises along an output dimension and
// wastes most of its register panel on 6 x 25, this one keeps all lanes busy
// (docs/benchmarks.md has the measurements).
#include <cstdint>

namespace trainsim {

template <typename T>
void dot_gemm(const T* a, const T* b, T* c, int m, int n, std::int64_t k);

}  // namespace trainsim
