#pragma once
// The layers that join branches of a graph: Add (element-wise sum of equal shapes, the
// residual connection) and Concat (the inputs' channels one after another, as DenseNet and
// Inception join branches). Their backward pass hands each input its share of dy: all of it
// (Add) or its channels (Concat).
#include <vector>

#include "sim/nn/layer.h"

namespace trainsim {

template <typename T>
class Add final : public Layer<T> {
 public:
  /// UserError when the inputs differ in shape.
  explicit Add(const std::vector<Shape>& ins);
  std::string type() const override { return "add"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) override;
  void backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y, const Tensor<T>& saved,
                           const Tensor<T>& dy, std::size_t k, Tensor<T>& dx) override;
};

template <typename T>
class Concat final : public Layer<T> {
 public:
  /// UserError when the inputs differ in height or width.
  explicit Concat(const std::vector<Shape>& ins);
  std::string type() const override { return "concat"; }
  void forward(const Tensor<T>& x, Tensor<T>& y) override;
  void backward_data(const Tensor<T>& x, const Tensor<T>& y, const Tensor<T>& dy,
                     Tensor<T>& dx) override;
  void forward_graph(const LayerInputs<T>& xs, Tensor<T>& y, Tensor<T>& saved) override;
  void backward_data_graph(const LayerInputs<T>& xs, const Tensor<T>& y, const Tensor<T>& saved,
                           const Tensor<T>& dy, std::size_t k, Tensor<T>& dx) override;

 private:
  std::vector<Shape> ins_;
  std::vector<std::int64_t> offset_;  // of each input's values within an output sample
};

}  // namespace trainsim
