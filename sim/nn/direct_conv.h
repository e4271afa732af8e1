#pragma once
// Stride-1 convolutions computed straight from the zero-padded input, with no patch matrix.
//
// Output pixel (oh, ow) of a plane whose padded rows are `pitch` values apart reads input
// (oh + r) * pitch + (ow + s) = q + r * pitch + s with q = oh * pitch + ow. So with outputs
// kept in the same "wide" layout (rows of `pitch`, of which the first out_cols() are pixels and
// the rest are discarded), every kernel tap reads a contiguous run of the input at a fixed
// offset: the loops over q vectorise with plain unaligned loads, each load feeding several
// filters' multiply-adds (sim/nn/simd.h: the build's widest registers, since a lane is one
// output's chain; the weight gradient, which sums along the lanes, keeps the fixed width). The
// price is computing pitch - out_cols() discarded columns per row: 12% on LeNet-5's conv1 (32 wide
// for 28), 29% on its conv2.
//
// Backward-data is the adjoint: each tap's sum over filters, a run of positions, is added to
// the input gradient at the tap's offset.
//
// Against im2col + GEMM (sim/nn/im2col.h, still used for other strides and kernel sizes) this
// saves writing and reading a patch matrix k*k times the input, which on LeNet-5 cost as much
// as the GEMMs themselves, and a GEMM kernel's poor use of a 6-row output (conv1).
//
// Sums run in a fixed order, so results do not depend on the ISA's vector width or the thread
// count: forward, each output is the fused multiply-add chain fma(w2, x2, fma(w1, x1, fma(w0,
// x0, 0)))... over (c, r, s) in order; weight gradients sum each lane of the fixed-width
// vectors (8 floats, 4 doubles) over its positions, samples first, then the lanes in index
// order (sim/nn/kernels.h).
#include <cstdint>

namespace trainsim {

/// Positions per step of the fixed-width kernels' vector loops over the wide layout: two
/// vectors of 8 floats (sim/nn/simd.h), or two steps of two vectors of 4 doubles; wide() is a
/// multiple of it. The kernels on the build's widest registers take one or two of them a
/// step (sim/nn/kernels/direct_conv.cpp).
inline constexpr int kDirectStep = 16;

/// One channel group of a stride-1 convolution over padded input planes of rows x pitch.
struct DirectShape {
  int channels, filters, kernel;
  int rows, pitch;
  int out_rows() const { return rows - kernel + 1; }
  int out_cols() const { return pitch - kernel + 1; }
  std::int64_t plane() const { return static_cast<std::int64_t>(rows) * pitch; }
  /// Values per filter in the wide output layout: out_rows() rows of `pitch`, rounded up to
  /// whole steps of the vector loops.
  std::int64_t wide() const {
    const std::int64_t n = static_cast<std::int64_t>(out_rows()) * pitch;
    return (n + kDirectStep - 1) / kDirectStep * kDirectStep;
  }
  /// Values that must be readable (finite, any value) after the last input plane.
  std::int64_t slack() const {
    return wide() - static_cast<std::int64_t>(out_rows()) * pitch + kernel - 1;
  }
};

/// Whether the direct kernels take a convolution of this stride and kernel size.
bool direct_conv_supported(int kernel, int stride);

/// Packs w[f][c][r][s] (`filters` x `channels` x k x k) for direct_forward.
template <typename T>
void pack_forward_weights(const DirectShape& s, const T* w, T* packed);
/// Packs w[f][c][r][s] for direct_backward_data: taps (c, r, s) in blocks, each block's taps
/// side by side for every filter.
template <typename T>
void pack_backward_data_weights(const DirectShape& s, const T* w, T* packed);
/// Values of the packed weights (either packing).
std::int64_t packed_size(const DirectShape& s);

// The kernels themselves are members of KernelFns (sim/nn/kernels.h, in sim/nn/kernels/):
//
// direct_forward(s, packed, x, out): out[f][q] = sum over (c, r, s) of w[f][c][r][s]
// x[c][q + r*pitch + s], for q < wide(); `packed` from pack_forward_weights, `x` holds
// `channels` planes followed by slack() readable values, `out` filters x wide().
//
// direct_backward_data(s, packed, dy, dx): dx[c][q + r*pitch + s] += sum over f of
// w[f][c][r][s] dy[f][q] for q < wide(): the backward-data pass as the adjoint of
// direct_forward, each tap's product added to the padded input's gradient at the tap's offset
// (only products of real gradients: no padding is multiplied). `packed` from
// pack_backward_data_weights; dy is the output gradient in the wide layout (zero in the
// discarded columns and the rounding); dx holds `channels` planes in the padded input's layout
// followed by slack() writable values.
//
// direct_weight_grad(s, dy, dy_stride, x, x_stride, samples, dw): dw[f][c][r][s] += sum over
// samples n and q < wide() of dy_n[f][q] x_n[c][q + r*pitch + s]: the weight gradient of
// `samples` samples, x_n = x + n * x_stride (padded planes, the last followed by slack()
// readable values) and dy_n = dy + n * dy_stride (the output gradient in the wide layout, zero
// in the discarded columns and the rounding).
//
// direct_bias_grad(s, dy, dy_stride, samples, db): db[f] += sum over samples n and q < wide()
// of dy_n[f][q] (dy_n as for direct_weight_grad).

// Kernels with the filters in the vector lanes instead (sim/nn/direct_conv_filters.cpp), for
// layers whose short output rows leave the pixel lanes half empty: a block of pixels (or
// taps) x one or two vectors of filters per step, the input values broadcast. Their forward
// sums are the pixel-lane kernel's, bit for bit (the same chain over the taps per output).

/// The samples one call of a filter-lane kernel covers, one after another: `count` samples
/// whose padded inputs are `x_stride` values apart and whose outputs (forward: filter-major
/// planes, one sample's filters x pixels) `y_stride` apart. A layer whose samples have few
/// pixels (VGG's last convolutions at 1 x 1 or 3 x 3) then still fills the kernels' blocks of
/// pixels, which one sample would leave mostly empty.
struct SampleRun {
  int count = 1;
  std::int64_t x_stride = 0, y_stride = 0;
};

/// Whether the filter-lane kernels use more of `lanes`-wide vectors than the pixel-lane ones.
bool filter_lanes_pay(const DirectShape& s, int lanes);
/// Filters rounded up to whole vectors: the row width of the packed weights, the transposed
/// gradient and the accumulators below.
template <typename T>
std::int64_t filter_lanes_width(const DirectShape& s);
/// Packs w[f][c][r][s] as taps x filter_lanes_width() (filters padded with zeros).
template <typename T>
void pack_filter_lanes(const DirectShape& s, const T* w, T* packed);
/// dyt[p][f] = dy[f][p] for one sample's dense output gradient, filters padded with zeros.
template <typename T>
void transpose_gradient(const DirectShape& s, const T* dy, T* dyt);
/// Adds the accumulators of direct_weight_grad_filters (below) to dw[f][c][r][s].
template <typename T>
void finish_weight_grad_filters(const DirectShape& s, const T* acc, T* dw);

// Their kernels (KernelFns):
//
// direct_forward_filters(s, packed, x, bias, run, y): y_n[f][p] = the forward sum (as
// direct_forward) + bias[f] (none if null) for the out_rows() x out_cols() pixels p of each
// sample n of the run (x_n = x + n * run.x_stride, y_n = y + n * run.y_stride, dense and
// filter-major); `packed` from pack_filter_lanes.
//
// direct_weight_grad_filters(s, dyt, x, run, acc): acc[tap][f] += sum over the run's samples
// n and pixels p of dyt_n[p][f] x_n[tap's offset + p's offset] (dyt holds the samples'
// transposed gradients one after another, x_n as above): each weight's gradient as one chain
// over the samples and pixels in order, however the samples are cut into runs. acc holds
// taps x filter_lanes_width() values, zero before the first sample; then
// finish_weight_grad_filters adds them to dw.
//
// sum_gradient_filters(s, dyt, samples, sums): sums[f] += sum over the samples' pixels, in
// order, of dyt[p][f] (the bias gradient), filter_lanes_width() values.

}  // namespace trainsim
