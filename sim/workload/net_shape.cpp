#include "sim/workload/net_shape.h"

#include <algorithm>
#include <climits>

#include "sim/core/error.h"
#include "sim/nn/layer_registry.h"
#include "sim/workload/layer_kind.h"
#include "sim/workload/layers/layer_kinds.h"
#include "sim/workload/size_limits.h"

namespace trainsim {

int window_extent(int in, int pad, int k, int stride, const char* axis, std::string& err) {
  if (in + 2 * pad < k) {
    err = std::string("kernel ") + std::to_string(k) + " does not fit the input " + axis + " " +
          std::to_string(in) + (pad ? " with padding " + std::to_string(pad) : std::string());
    return 0;
  }
  return (in + 2 * pad - k) / stride + 1;
}

NetShape::NetShape(const NetworkSpec& spec) : spec_(&spec), graph_(spec) {
  const std::string where = "network '" + spec.name + "' (" + spec.source + ")";
  const Shape input{spec.input[0], spec.input[1], spec.input[2]};
  const std::int64_t input_values = saturating_product({input.c, input.h, input.w});
  if (input_values > kMaxSampleValues)
    throw UserError(where + ": the input " + input.str() + " " +
                    size_limit_violation(input_values, 0, 0));
  layers_.resize(spec.layers.size());
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerSpec& ls = spec.layers[i];
    LayerShape& l = layers_[i];
    l.spec = &ls;
    l.inputs = graph_.inputs(i);
    l.consumers = graph_.consumers(i);
    auto fail = [&](const std::string& what) {
      throw UserError(where + ": layer '" + ls.name + "' (" + ls.type + "): " + what);
    };
    if (layer_boundary(ls.type) == LayerBoundary::kSource) {
      // A tensor from outside: no producer here, but the layer outside that made it wants
      // its gradient, so its readers compute backward-data as if it had parameters
      // (LayerGraph).
      l.out = l.in = Shape{ls.shape[0], ls.shape[1], ls.shape[2]};
      const std::int64_t values = saturating_product({l.out.c, l.out.h, l.out.w});
      if (values <= 0) fail("produces an empty output");
      l.work = values;
      const std::string too_big = size_limit_violation(values, 0, values);
      if (!too_big.empty()) fail(too_big);
      continue;
    }
    std::vector<Shape> ins;
    for (int p : l.inputs) ins.push_back(p < 0 ? input : layers_[static_cast<std::size_t>(p)].out);
    l.in = ins.front();
    const Shape in = l.in;
    const LayerKind& kind = layer_kind(ls.type);
    const std::string err = kind.infer(ls, ins, l.out, l.params);
    if (!err.empty()) fail(err);
    l.second_operand_grad = kind.second_operand_grad;
    // Shape::size() could overflow here (a resize or a concat of huge inputs): checked first.
    const std::int64_t out_values = saturating_product({l.out.c, l.out.h, l.out.w});
    if (out_values <= 0) fail("produces an empty output");
    l.work = std::max(saturating_product({in.c, in.h, in.w}), out_values);
    if (kind.work != nullptr) l.work = std::max(l.work, kind.work(ls, ins, l.out));
    const std::string too_big = size_limit_violation(out_values, l.params, l.work);
    if (!too_big.empty()) fail(too_big);
  }
  std::vector<bool> params(layers_.size()), second(layers_.size());
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    params[i] = layers_[i].params > 0;
    second[i] = layers_[i].second_operand_grad;
  }
  graph_.set_layers(params, second);
  // A layer read by n layers sums n gradients of its output's size.
  for (const LayerShape& l : layers_) {
    const std::int64_t summed = saturating_product({l.out.size(), l.consumers});
    if (summed > kMaxSampleWork)
      throw UserError(where + ": layer '" + l.spec->name + "' (" + l.spec->type + "): " +
                      std::to_string(l.consumers) + " layers read it: summing their gradients " +
                      size_limit_violation(0, 0, summed));
  }
  // The last layer is fused with the loss, or a sink whose outputs are not classes: their
  // gradients come from outside the network.
  const OutputLoss loss =
      layers_.empty() ? OutputLoss::kNone : output_loss(spec.layers.back().type);
  if (loss == OutputLoss::kNone && !ends_in_sink())
    throw UserError(where + ": the last layer must be " + output_layer_types());
  if (loss == OutputLoss::kBinary && (layers_.back().out.size() != 1 || spec.classes != 2))
    throw UserError(where + ": a " + spec.layers.back().type +
                    " output is one binary decision: it must have 1 value (has " +
                    std::to_string(layers_.back().out.size()) + ") and the network 2 classes (" +
                    std::to_string(spec.classes) + ")");
  if (loss == OutputLoss::kCrossEntropy && layers_.back().out.size() != spec.classes)
    throw UserError(where + ": the output has " + std::to_string(layers_.back().out.size()) +
                    " values but the network declares " + std::to_string(spec.classes) +
                    " classes");
}

bool NetShape::reads_input() const {
  for (const auto& l : layers_)
    for (int p : l.inputs)
      if (p < 0) return true;
  return false;
}

bool NetShape::ends_in_sink() const {
  return !layers_.empty() && layer_boundary(layers_.back().spec->type) == LayerBoundary::kSink;
}

std::int64_t NetShape::param_count() const {
  std::int64_t n = 0;
  for (const auto& l : layers_) n += l.params;
  return n;
}

std::int64_t NetShape::forward_macs() const {
  std::int64_t n = 0;
  for (const auto& l : layers_) {
    const LayerKind& kind = layer_kind(l.spec->type);
    if (kind.forward_macs != nullptr) n += kind.forward_macs(*l.spec, l);
  }
  return n;
}

}  // namespace trainsim
