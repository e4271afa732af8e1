#pragma once
// Batch normalization per channel (Ioffe & Szegedy 2015), as PyTorch's BatchNorm2d computes
// it: in training, each channel is normalised with the batch's mean and biased variance over
// N x H x W values, then scaled and shifted by the learnt gamma and beta; the running mean
// and the running (unbiased) variance follow with momentum 0.1; evaluation normalises with
// the running ones. eps = 1e-5.
//
// In a network the forward pass keeps each channel's mean and 1 / sqrt(var + eps) with the
// pass (ForwardPass::saved), as PyTorch saves them, so the backward passes need not compute
// them again and a stored forward pass (speculative backprop) is differentiated with its own
// batch's statistics. Called without them (forward / backward_data / backward_weight), the
// layer computes them from x. The backward passes are those of the mode the layer is in (a
// network trains in training mode).
//
// Backward-data and backward-weight need the same two per-channel sums of the output
// gradient; whichever runs first keeps them for the other (the pair of calls of one step, on
// the same tensors), so a step reads x and dy for them once.
#include <vector>

#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class BatchNorm final : public Layer<T> {
 public:
  explicit BatchNorm(const Shape& in);
  std::string type() const override { return "batchnorm"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void backward_weight(const Tensor<T>& x, const Tensor<T>& dy) override;
  void forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) override;
  void backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y, const Tensor<T>& saved,
                           const Tensor<T>& dy, std::size_t k, Tensor<T>& dx) override;
  void backward_weight_graph(const Tensor<T>& x, const Tensor<T>& saved,
                             const Tensor<T>& dy) override;
  std::vector<Param<T>*> params() override { return {&gamma_, &beta_}; }
  /// gamma = 1, beta = 0 whatever the scheme (PyTorch's BatchNorm2d); running mean 0,
  /// running variance 1.
  void init(const InitSpec& spec, Rng& rng) override;
  void set_training(bool training) override {
    training_ = training;
    memo_.pending = false;
  }
  bool has_state() const override { return true; }
  void archive_state(StateArchive& a) override;

  Tensor<T>& running_mean() { return running_mean_; }
  Tensor<T>& running_var() { return running_var_; }

  static constexpr double kEps = 1e-5;
  static constexpr double kMomentum = 0.1;

 private:
  /// Per channel: the mean and 1 / sqrt(var + eps) the normalisation used.
  struct Stats {
    std::vector<double> mean, invstd;
  };
  /// The batch's statistics; with `update`, the running ones follow.
  Stats batch_stats(const Tensor<T>& x, bool update);
  /// The batch's statistics in training, the running ones in evaluation.
  Stats stats(const Tensor<T>& x, bool update);
  /// What forward_graph saved (training), or stats(x) (evaluation, or nothing saved).
  Stats saved_stats(const Tensor<T>& x, const Tensor<T>& saved);
  void normalize(const Tensor<T>& x, const Stats& st, Tensor<T>& y) const;
  /// Per channel: sum of dy and sum of dy * xhat.
  struct GradSums {
    std::vector<double> dy, dy_xhat;
  };
  void compute_grad_sums(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st,
                         GradSums& out) const;
  /// The sums for (x, dy, the statistics saved in `stats_key`): the ones the other backward
  /// pass of this step left, if it ran on the same tensors just before, else computed now
  /// and left for it.
  const GradSums& grad_sums(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st,
                            const void* stats_key, bool by_weight);
  void input_grad(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st, const void* stats_key,
                  Tensor<T>& dx);
  void weight_grad(const Tensor<T>& x, const Tensor<T>& dy, const Stats& st, const void* stats_key);

  Param<T> gamma_, beta_;
  Tensor<T> running_mean_, running_var_;
  bool training_ = true;
  // The sums the last backward call computed, for the next call if it is the other pass on
  // the same tensors; `pending` is cleared when they are taken and by anything that could
  // change what the tensors hold meanwhile (a forward pass, a change of mode).
  struct SumsMemo {
    bool pending = false;
    bool by_weight = false;  // which pass computed them
    const T* x = nullptr;
    const T* dy = nullptr;
    const void* stats_key = nullptr;
    std::size_t size = 0;
    GradSums sums;
  } memo_;
};

}  // namespace trainsim
