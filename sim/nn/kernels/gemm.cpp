// gemm (sim/nn/kernels.h): C = A B or C += A B, every C[i][j] one chain of fused multiply-adds
// over p = 0, 1, ..., k-1 in order. The usual blocking of a GEMM (Goto and van de Geijn: blocks
// of A and B sized for the caches, strips of B packed where they cannot be read in place, a
// register block of C updated by a micro-kernel) only changes which outputs are computed
// together; a depth block that ends leaves each output in C, exactly rounded as the chain has
// it, and the next one continues from there. So the result is the same for any block sizes, vector
// width or cut of the output into tasks, down to the plain loop
//   for i, j: c = accumulate ? C[i][j] : 0; for p: c = fma(A[i][p], B[p][j], c); C[i][j] = c.
#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include "sim/nn/constant_dispatch.h"
#include "sim/nn/kernels/kernel_impl.h"
#include "sim/nn/simd.h"

namespace trainsim::TRAINSIM_KERNEL_NS {

namespace {

// The vectors run along the output's columns, so their width cannot change a bit: take the
// widest registers the build has.
template <typename T>
constexpr int kLanes = simd::kWideLanes<T>;
template <typename T>
using V = simd::Wide<T>;

// The packing buffers' allocator: 64-byte aligned, and a type of this build's own, so that the
// std::vector code behind the buffers is this build's too (the linker would otherwise keep
// one copy for both builds; tests/unit/test_kernel_isa.cpp checks that they share nothing).
template <typename T>
struct PackAllocator {
  using value_type = T;
  PackAllocator() = default;
  template <typename U>
  PackAllocator(const PackAllocator<U>&) {}
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64)));
  }
  void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
  template <typename U>
  bool operator==(const PackAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const PackAllocator<U>&) const {
    return false;
  }
};
template <typename T>
using PackBuffer = std::vector<T, PackAllocator<T>>;

template <typename T>
V<T> load(const T* p) {
  return simd::load_as<V<T>>(p);
}
template <typename T>
void store(T* p, V<T> v) {
  simd::store_as(p, v);
}

// Depth of a block: an MR x kDepth strip of A and a kDepth x NR strip of B stay in the L1
// cache while the micro-kernel runs over them.
constexpr std::int64_t kDepth = 256;
// Rows of A per block (a multiple of both register blocks' MR): 96 x 256 floats, in L2.
constexpr int kBlockRows = 96;
// Columns of B per block (a multiple of every NR): 256 x 384 floats.
constexpr int kBlockCols = 384;

// The register block: MR rows x NV vectors of C, in MR * NV accumulators. 6 x 2 leaves AVX2's
// 16 registers room for the two B vectors and a broadcast A value; outputs at most one vector
// wide use 12 x 1 instead.
#if defined(__AVX512F__)
constexpr int kWideRows = 12;  // 24 accumulators of AVX-512's 32 registers
#else
constexpr int kWideRows = 6;
#endif
template <int MR_, int NV_>
struct Block {
  static constexpr int MR = MR_, NV = NV_;
};

// How the micro-kernel finds A(i, p) of its strip: at a[i * lda + p] (kRows: A's rows are
// contiguous, as a row-major A) or at a[p * lda + i] (kCols: a transposed view, or a strip packed
// step by step).
enum class ALayout { kRows, kCols };

// The loops over a register block are unrolled, so that the accumulators stay in registers.
#define TRAINSIM_UNROLL _Pragma("GCC unroll 16")

// C[0..MR) x [0..cols) (+)= A's strip times B's strip over kc steps, B(p, v-th vector) at
// b + p * ldb + v * lanes. `load_c`: continue the chains from C.
// The first n < lanes values at p as a vector (the rest zero), and back.
template <typename T>
V<T> load_part(const T* p, int n) {
  V<T> v = simd::splat_as<V<T>>(T(0));
  for (int l = 0; l < n; ++l) v[l] = p[l];
  return v;
}
template <typename T>
void store_part(T* p, V<T> v, int n) {
  for (int l = 0; l < n; ++l) p[l] = v[l];
}

template <typename T, int MR, int NV, ALayout kA>
void micro_kernel(std::int64_t kc, const T* a, std::int64_t lda, const T* b, std::int64_t ldb, T* c,
                  std::int64_t ldc, int cols, bool load_c) {
  constexpr int L = kLanes<T>, NR = NV * L;
  V<T> acc[MR][NV];
  if (!load_c) {
    TRAINSIM_UNROLL for (int i = 0; i < MR; ++i) {
      TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) acc[i][v] = simd::splat_as<V<T>>(T(0));
    }
  } else if (cols == NR) {
    TRAINSIM_UNROLL for (int i = 0; i < MR; ++i) {
      TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) acc[i][v] = load(c + i * ldc + v * L);
    }
  } else {  // a partial block: the columns past `cols` are zeros, computed and dropped
    TRAINSIM_UNROLL for (int i = 0; i < MR; ++i) {
      TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) {
        const int n = std::clamp(cols - v * L, 0, L);
        acc[i][v] = n == L ? load(c + i * ldc + v * L) : load_part(c + i * ldc + v * L, n);
      }
    }
  }
  for (std::int64_t p = 0; p < kc; ++p, b += ldb) {
    V<T> bv[NV];
    TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) bv[v] = load(b + v * L);
    TRAINSIM_UNROLL for (int i = 0; i < MR; ++i) {
      const T ai = kA == ALayout::kRows ? a[i * lda + p] : a[p * lda + i];
      const V<T> av = simd::splat_as<V<T>>(ai);
      TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) acc[i][v] = simd::fma(av, bv[v], acc[i][v]);
    }
  }
  if (cols == NR) {
    TRAINSIM_UNROLL for (int i = 0; i < MR; ++i) {
      TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) store(c + i * ldc + v * L, acc[i][v]);
    }
    return;
  }
  TRAINSIM_UNROLL for (int i = 0; i < MR; ++i) {
    TRAINSIM_UNROLL for (int v = 0; v < NV; ++v) {
      const int n = std::clamp(cols - v * L, 0, L);
      if (n == L) {
        store(c + i * ldc + v * L, acc[i][v]);
      } else {
        store_part(c + i * ldc + v * L, acc[i][v], n);
      }
    }
  }
}

// An 8 x 8 block transposed: rows r[0..8) of 8 floats in, out[p][j] = r[j][p]. Shuffles only
// (unpack pairs, then pairs of pairs, then halves), in the fixed 8-float vectors.
inline void transpose8(const simd::Vec<float> (&r)[8], simd::Vec<float> (&out)[8]) {
  using simd::Vec;
  Vec<float> t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = __builtin_shufflevector(r[i], r[i + 1], 0, 8, 1, 9, 4, 12, 5, 13);
    t[i + 1] = __builtin_shufflevector(r[i], r[i + 1], 2, 10, 3, 11, 6, 14, 7, 15);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = __builtin_shufflevector(t[i], t[i + 2], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 1] = __builtin_shufflevector(t[i], t[i + 2], 2, 3, 10, 11, 6, 7, 14, 15);
    u[i + 2] = __builtin_shufflevector(t[i + 1], t[i + 3], 0, 1, 8, 9, 4, 5, 12, 13);
    u[i + 3] = __builtin_shufflevector(t[i + 1], t[i + 3], 2, 3, 10, 11, 6, 7, 14, 15);
  }
  for (int i = 0; i < 4; ++i) {
    out[i] = __builtin_shufflevector(u[i], u[i + 4], 0, 1, 2, 3, 8, 9, 10, 11);
    out[i + 4] = __builtin_shufflevector(u[i], u[i + 4], 4, 5, 6, 7, 12, 13, 14, 15);
  }
}

// B's steps [p0, p0 + kc) x `cols` columns from j as one strip of NR columns, step-major
// (columns past `cols` are zeros). Data movement only: any way of doing it gives the same
// strip.
template <typename T, int NR>
void pack_b(const GemmArgs<T>& g, std::int64_t p0, std::int64_t kc, int j, int cols, T* dst) {
  const T* src = g.b + p0 * g.b_rows + j * g.b_cols;
  if (g.b_cols == 1) {  // rows of B contiguous: a run of `cols` values per step
    for (std::int64_t p = 0; p < kc; ++p) {
      std::memcpy(dst + p * NR, src + p * g.b_rows, sizeof(T) * static_cast<std::size_t>(cols));
      std::fill(dst + p * NR + cols, dst + (p + 1) * NR, T(0));
    }
    return;
  }
  std::int64_t p = 0;
  if constexpr (std::is_same_v<T, float>) {
    if (g.b_rows == 1 && cols == NR) {  // a transposed view: 8 x 8 blocks through registers
      for (; p + 8 <= kc; p += 8)
        for (int jj = 0; jj < NR; jj += 8) {
          simd::Vec<float> r[8], out[8];
          for (int i = 0; i < 8; ++i) r[i] = simd::load(src + (jj + i) * g.b_cols + p);
          transpose8(r, out);
          for (int i = 0; i < 8; ++i) simd::store(dst + (p + i) * NR + jj, out[i]);
        }
    }
  }
  for (int jj = 0; jj < NR; ++jj) {
    if (jj >= cols) {
      for (std::int64_t q = p; q < kc; ++q) dst[q * NR + jj] = T(0);
      continue;
    }
    const T* col = src + jj * g.b_cols;
    for (std::int64_t q = p; q < kc; ++q) dst[q * NR + jj] = col[q * g.b_rows];
  }
}

// A's rows [i0, i0 + rows) x steps [p0, p0 + kc) step-major (ALayout::kCols with lda = MR),
// for an A with neither stride 1.
template <typename T, int MR>
void pack_a(const GemmArgs<T>& g, int i0, int rows, std::int64_t p0, std::int64_t kc, T* dst) {
  const T* src = g.a + i0 * g.a_rows + p0 * g.a_cols;
  for (std::int64_t p = 0; p < kc; ++p)
    for (int i = 0; i < MR; ++i)
      dst[p * MR + i] = i < rows ? src[i * g.a_rows + p * g.a_cols] : T(0);
}

template <typename T, typename B>
void blocked_gemm(const GemmArgs<T>& g) {
  constexpr int MR = B::MR, NV = B::NV, NR = NV * kLanes<T>;
  static_assert(kBlockRows % MR == 0 && kBlockCols % NR == 0, "blocks of whole strips");
  // Per thread (the pool's workers each pack their own): B strips that cannot be read in
  // place, and an A strip with neither stride 1.
  thread_local PackBuffer<T> b_pack, a_pack;
  const bool b_direct = g.b_cols == 1;  // rows of B contiguous: full strips read in place
  const bool a_rows = g.a_cols == 1, a_cols = !a_rows && g.a_rows == 1;
  // Grown once to the largest use: resizing back and forth would zero them each time.
  const auto b_size = static_cast<std::size_t>((b_direct ? NR : kBlockCols) * kDepth);
  if (b_pack.size() < b_size) b_pack.resize(b_size);
  if (!a_rows && !a_cols && a_pack.size() < static_cast<std::size_t>(MR * kDepth))
    a_pack.resize(static_cast<std::size_t>(MR * kDepth));

  // One strip of rows [i, i + rows) against one strip of B: rows < MR only for the last.
  auto strip = [&](int i, int rows, std::int64_t p0, std::int64_t kc, const T* b, std::int64_t ldb,
                   T* c, int cols, bool load_c) {
    const T* a = g.a + i * g.a_rows + p0 * g.a_cols;
    std::int64_t lda = a_rows ? g.a_rows : g.a_cols;
    if (!a_rows && !a_cols) {
      pack_a<T, MR>(g, i, rows, p0, kc, a_pack.data());
      a = a_pack.data();
      lda = MR;
    }
    with_constant<MR>(rows, [&](auto r) {
      if (a_rows) {
        micro_kernel<T, r, NV, ALayout::kRows>(kc, a, lda, b, ldb, c, g.ldc, cols, load_c);
      } else {
        micro_kernel<T, r, NV, ALayout::kCols>(kc, a, lda, b, ldb, c, g.ldc, cols, load_c);
      }
    });
  };

  for (int j0 = 0; j0 < g.n; j0 += kBlockCols) {
    const int nc = std::min(kBlockCols, g.n - j0);
    for (std::int64_t p0 = 0; p0 < g.k; p0 += kDepth) {
      const std::int64_t kc = std::min(kDepth, g.k - p0);
      const bool load_c = g.accumulate || p0 > 0;
      if (!b_direct)
        for (int js = 0; js < nc; js += NR)
          pack_b<T, NR>(g, p0, kc, j0 + js, std::min(NR, nc - js), b_pack.data() + js * kc);
      for (int i0 = 0; i0 < g.m; i0 += kBlockRows) {
        const int mc = std::min(kBlockRows, g.m - i0);
        for (int js = 0; js < nc; js += NR) {
          const int cols = std::min(NR, nc - js);
          const T* b = b_pack.data() + js * kc;
          std::int64_t ldb = NR;
          if (b_direct && cols == NR) {
            b = g.b + p0 * g.b_rows + j0 + js;
            ldb = g.b_rows;
          } else if (b_direct) {  // the last, partial strip: zero-padded to NR
            pack_b<T, NR>(g, p0, kc, j0 + js, cols, b_pack.data());
            b = b_pack.data();
          }
          for (int is = 0; is < mc; is += MR)
            strip(i0 + is, std::min(MR, mc - is), p0, kc, b, ldb, g.c + (i0 + is) * g.ldc + j0 + js,
                  cols, load_c);
        }
      }
    }
  }
}

}  // namespace

template <typename T>
void gemm(const GemmArgs<T>& g) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.k <= 0) {
    if (!g.accumulate)
      for (int i = 0; i < g.m; ++i) std::fill(g.c + i * g.ldc, g.c + i * g.ldc + g.n, T(0));
    return;
  }
  if (g.n <= kLanes<T>) {
    blocked_gemm<T, Block<12, 1>>(g);
  } else {
    blocked_gemm<T, Block<kWideRows, 2>>(g);
  }
}

template void gemm<float>(const GemmArgs<float>&);
template void gemm<double>(const GemmArgs<double>&);

}  // namespace trainsim::TRAINSIM_KERNEL_NS
