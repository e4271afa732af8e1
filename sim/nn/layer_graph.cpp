#include "sim/nn/layer_graph.h"

#include <map>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/nn/layer_registry.h"

namespace trainsim {

const char* layer_op_slot_name(LayerOpSlot slot) {
  switch (slot) {
    case LayerOpSlot::kForward:
      return "forward";
    case LayerOpSlot::kLossGrad:
      return "loss-grad";
    case LayerOpSlot::kGradSum:
      return "grad-sum";
    case LayerOpSlot::kBackwardWeight:
      return "backward-weight";
    case LayerOpSlot::kBackwardData:
      return "backward-data";
    case LayerOpSlot::kUpdate:
      return "update";
  }
  return "?";
}

LayerGraph::LayerGraph(const NetworkSpec& spec) {
  const std::size_t n = spec.layers.size();
  inputs_.resize(n);
  consumers_.assign(n, 0);
  source_.assign(n, false);
  params_.assign(n, false);
  second_operand_grad_.assign(n, false);
  needs_input_grad_.assign(n, false);
  std::map<std::string, int> index;  // layers above the one being resolved
  std::map<std::string, std::size_t> all;
  for (std::size_t i = 0; i < n; ++i) all.emplace(spec.layers[i].name, i);
  for (std::size_t i = 0; i < n; ++i) {
    const LayerSpec& ls = spec.layers[i];
    source_[i] = layer_boundary(ls.type) == LayerBoundary::kSource;
    if (source_[i]) {
      // A tensor from outside: it reads nothing here.
    } else if (ls.from.empty()) {
      inputs_[i].push_back(static_cast<int>(i) - 1);
    } else {
      for (const std::string& src : ls.from) {
        if (src == "input") {
          inputs_[i].push_back(-1);
          continue;
        }
        const auto it = index.find(src);
        if (it != index.end()) {
          inputs_[i].push_back(it->second);
          continue;
        }
        const std::string layer = "network '" + spec.name + "' (" + spec.source + "): layer '" +
                                  ls.name + "' (" + ls.type + "): ";
        if (all.count(src) != 0)
          throw UserError(layer + "reads layer '" + src + "', which is not above it: a layer " +
                          "reads only layers listed before it (a graph has no cycle)");
        throw UserError(layer + "reads unknown layer '" + src + "'");
      }
    }
    for (int p : inputs_[i])
      if (p >= 0) ++consumers_[static_cast<std::size_t>(p)];
    index[ls.name] = static_cast<int>(i);
  }
}

void LayerGraph::set_layers(const std::vector<bool>& params,
                            const std::vector<bool>& second_operand_grad) {
  if (params.size() != size() || second_operand_grad.size() != size())
    throw std::logic_error("LayerGraph::set_layers: one flag per layer");
  params_ = params;
  second_operand_grad_ = second_operand_grad;
  // upstream[i]: layer i's output depends on something that wants a gradient.
  std::vector<bool> upstream(size(), false);
  for (std::size_t i = 0; i < size(); ++i) {
    needs_input_grad_[i] = false;
    for (int p : inputs_[i])
      if (p >= 0 && upstream[static_cast<std::size_t>(p)]) needs_input_grad_[i] = true;
    upstream[i] = source_[i] || params_[i] || needs_input_grad_[i];
  }
}

std::vector<StepEvent> LayerGraph::forward_events() const {
  std::vector<StepEvent> out;
  for (std::size_t l = 0; l < size(); ++l) out.push_back({LayerOpSlot::kForward, l});
  return out;
}

std::vector<StepEvent> LayerGraph::backward_events() const {
  std::vector<StepEvent> out;
  if (size() == 0) return out;
  out.push_back({LayerOpSlot::kLossGrad, size() - 1});
  for (std::size_t l = size() - 1; l-- > 0;) {
    if (!needs_output_grad(l)) continue;
    if (consumers_[l] > 1) out.push_back({LayerOpSlot::kGradSum, l});
    if (has_backward_weight(l)) out.push_back({LayerOpSlot::kBackwardWeight, l});
    if (needs_input_grad_[l]) out.push_back({LayerOpSlot::kBackwardData, l});
  }
  return out;
}

std::vector<StepEvent> LayerGraph::update_events() const {
  std::vector<StepEvent> out;
  for (std::size_t l = 0; l < size(); ++l)
    if (params_[l]) out.push_back({LayerOpSlot::kUpdate, l});
  return out;
}

}  // namespace trainsim
