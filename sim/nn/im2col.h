#pragma once
// The patch matrix of a convolution over a block of consecutive samples: row (c, r, s) holds,
// for every sample of the block and every output pixel, the input value under kernel tap
// (r, s) of channel c. Columns run sample-major, so the block's convolution is one GEMM,
// W[F x C*R*S] times cols[C*R*S x samples*Ho*Wo].
//
// The patch matrix is read from a copy of the input with the zero padding written out, so
// every row is a plain strided copy (no bounds tests, no short zero-fills); the copy costs
// one input's worth of values against the patch matrix's R*S.
#include <cstdint>

#include "sim/nn/tensor.h"

namespace trainsim {

struct ConvGeometry {
  Shape in;  ///< per-sample input (all channels), unpadded
  int kernel, stride, padding;
  int out_h, out_w;
  int padded_h() const { return in.h + 2 * padding; }
  int padded_w() const { return in.w + 2 * padding; }
  std::int64_t padded_size() const {
    return static_cast<std::int64_t>(in.c) * padded_h() * padded_w();
  }
  std::int64_t pixels() const { return static_cast<std::int64_t>(out_h) * out_w; }
};

/// Writes `samples` samples from `x` into `xpad` (padded_size() values each) with zeros
/// around every plane.
template <typename T>
void pad_samples(const ConvGeometry& g, const T* x, int samples, T* xpad);
/// The adjoint of pad_samples: the interior of every padded plane, back into `dx`.
template <typename T>
void crop_samples(const ConvGeometry& g, const T* dxpad, int samples, T* dx);

/// Fills `cols` ([channels*k*k] x [samples*pixels], row-major) from channels
/// [c0, c0 + channels) of `samples` padded samples starting at `xpad`.
template <typename T>
void im2col(const ConvGeometry& g, const T* xpad, int samples, int c0, int channels, T* cols);

/// The adjoint of im2col: adds every entry of `dcols` into the padded position it came from.
template <typename T>
void col2im(const ConvGeometry& g, const T* dcols, int samples, int c0, int channels, T* dxpad);

}  // namespace trainsim
