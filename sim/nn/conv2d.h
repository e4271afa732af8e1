#pragma once
// 2-D convolution (cross-correlation, as every framework defines it) with square kernels,
// stride, zero padding and channel groups. The batch is cut into blocks of consecutive
// samples and each block's patch matrix (sim/nn/im2col.h) makes every pass one GEMM per
// group:
//   forward:         Y[F/G x B*P]   = W_g[F/G x K] cols[K x B*P] + b     (K = C/G*R*S)
//   backward-data:   dcols[K x B*P] = W_g^T dY, scattered back with col2im
//   backward-weight: dW_g          += dY cols^T, db += row sums of dY
// Stride-1 convolutions with kernels of 2 to 7 run the same passes without the patch matrix
// instead (sim/nn/direct_conv.h, sim/nn/conv2d_direct.cpp).
// Blocks run in parallel (sim/core/parallel.h). Their size depends on the layer's shape and
// the batch size only, and backward-weight sums the blocks' partial gradients in block
// order, so the result is the same for any number of threads.
#include "sim/core/parallel.h"
#include "sim/nn/direct_conv.h"
#include "sim/nn/im2col.h"
#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Conv2d final : public Layer<T> {
 public:
  Conv2d(const Shape& in, int filters, int kernel, int stride, int padding, bool bias,
         int groups = 1);
  std::string type() const override { return "conv2d"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void backward_weight(const Tensor<T>& x, const Tensor<T>& dy) override;
  std::vector<Param<T>*> params() override;
  std::int64_t forward_macs() const override;
  void init(const InitSpec& spec, Rng& rng) override;
  int groups() const { return groups_; }

 private:
  struct Blocks {
    int count, samples;  // `count` blocks of `samples` samples (the last may be shorter)
  };
  struct Block {
    int first, samples;    // samples [first, first + samples) of the batch
    std::int64_t columns;  // samples * output pixels: the width of the block's GEMMs
  };
  /// Per-worker buffers: the block's patch matrix, its F/G-row output or gradient, and its
  /// zero-padded input or input gradient (the direct passes: `rows` for outputs and gradients
  /// in their kernels' layouts, `padded` for the padded input or its gradient).
  struct Scratch {
    AlignedVector<T> cols, rows, padded;
  };
  Blocks blocks(int batch) const;
  /// Runs fn(task, block, scratch) for every block of a `batch`, in parallel, the blocks dealt
  /// to `tasks` tasks in consecutive runs.
  template <typename F>
  void for_each_block(int batch, int tasks, const F& fn);
  Scratch& scratch(int worker, int samples);
  /// The block's input with its padding written out (x itself when there is none).
  const T* padded_input(Scratch& s, const T* x, int samples) const;
  /// Copies group g's filters of dy for the block into the filter-major `rows`.
  void gather_rows(const Tensor<T>& dy, const Block& b, int g, T* rows) const;
  const T* group_weight(int g) const { return weight_.value.sample(g * group_filters_); }

  /// Backward-weight's blocks into partial_w_ / partial_b_, one partial per task.
  void backward_weight_gemm(const Tensor<T>& x, const Tensor<T>& dy, int tasks);
  // The direct passes (conv2d_direct.cpp).
  void forward_direct(const Tensor<T>& x, Tensor<T>& y);
  void backward_data_direct(const Tensor<T>& dy, Tensor<T>& dx);
  void backward_weight_direct(const Tensor<T>& x, const Tensor<T>& dy, int tasks);
  /// The block's input, padded (even without padding: the kernels read past the last plane)
  /// and followed by the direct kernels' slack, in s.padded.
  const T* padded_block(Scratch& s, const T* x, int samples) const;
  /// The block's output gradient in the direct kernels' wide layout, zero outside the image
  /// (in s.rows): samples x filters x shape_.wide().
  const T* wide_gradient(Scratch& s, const Tensor<T>& dy, const Block& b) const;
  /// Packs every group's weights with `pack` into packed_, `per_group` values a group
  /// (returned).
  std::int64_t pack_weights(void (*pack)(const DirectShape&, const T*, T*), std::int64_t per_group);
  /// The forward and backward-weight passes with the filters in the vector lanes.
  void forward_filter_lanes(const Tensor<T>& x, Tensor<T>& y);
  void backward_weight_filter_lanes(const Tensor<T>& x, const Tensor<T>& dy, int tasks);

  int filters_, kernel_, stride_, padding_, groups_;
  int group_channels_, group_filters_;
  std::int64_t patch_;  // K = group_channels_ * kernel_ * kernel_
  bool has_bias_;
  ConvGeometry geo_;
  bool direct_;        // the direct kernels run the passes
  bool filter_lanes_;  // ... with the filters in the vector lanes (forward, backward-weight)
  DirectShape shape_;  // one group's shape for them
  AlignedVector<T> packed_;
  Param<T> weight_, bias_;
  std::vector<Scratch> scratch_;
  std::vector<AlignedVector<T>> partial_w_, partial_b_;  // backward-weight, per task
};

template <typename T>
template <typename F>
void Conv2d<T>::for_each_block(int batch, int tasks, const F& fn) {
  const Blocks b = blocks(batch);
  scratch_.resize(static_cast<std::size_t>(parallel_workers()));
  parallel_for(tasks, [&](int task, int worker) {
    const IndexRange mine = split_range(b.count, tasks, task);
    for (auto i = mine.begin; i < mine.end; ++i) {
      Block block;
      block.first = static_cast<int>(i) * b.samples;
      block.samples = std::min(b.samples, batch - block.first);
      block.columns = block.samples * geo_.pixels();
      fn(task, block, scratch(worker, block.samples));
    }
  });
}

}  // namespace trainsim
