#pragma once
// Inverted dropout: in training each value is dropped with probability `rate` and the rest
// are scaled by 1 / (1 - rate), so evaluation passes values through unchanged. The mask
// (0 or the scale per value) is kept with the forward pass (ForwardPass::saved) for the
// backward pass; the layer draws it from its own random stream, seeded when the network is
// initialised and saved in checkpoints, so a run is the same for any thread count and
// after a resume.
#include <string>

#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Dropout final : public Layer<T> {
 public:
  /// UserError unless 0 <= rate < 1.
  Dropout(const Shape& in, double rate);
  std::string type() const override { return "dropout"; }
  /// Evaluation: y = x. (Training goes through forward_graph, which keeps the mask.)
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) override;
  void backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y, const Tensor<T>& saved,
                           const Tensor<T>& dy, std::size_t k, Tensor<T>& dx) override;
  void init(const InitSpec& spec, Rng& rng) override { rng_ = Rng(rng.next_u64()); }
  void set_training(bool training) override { training_ = training; }
  bool has_state() const override { return true; }
  void archive_state(StateArchive& a) override;

 private:
  double rate_;
  Rng rng_{0};
  bool training_ = true;
};

}  // namespace trainsim
