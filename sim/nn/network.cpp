#include "sim/nn/network.h"

#include <algorithm>
#include <stdexcept>

#include "sim/core/error.h"
#include "sim/nn/kernels.h"
#include "sim/nn/layer_registry.h"
#include "sim/nn/softmax.h"

namespace trainsim {

namespace {
template <typename T>
auto maker(const LayerTypeInfo& info);
template <>
auto maker<float>(const LayerTypeInfo& info) {
  return info.make_float;
}
template <>
auto maker<double>(const LayerTypeInfo& info) {
  return info.make_double;
}

// dst += src, element by element (the gradient of a layer read by several).
template <typename T>
void add_into(Tensor<T>& dst, const Tensor<T>& src) {
  T* d = dst.data();
  const T* s = src.data();
  for (std::size_t i = 0; i < dst.size(); ++i) d[i] += s[i];
}
}  // namespace

template <typename T>
std::int64_t ForwardPass<T>::copy_from(const ForwardPass& other) {
  // Copies each tensor into the buffers already here; returns the values copied.
  auto copy = [](std::vector<Tensor<T>>& to, const std::vector<Tensor<T>>& from) {
    std::int64_t values = 0;
    to.resize(from.size());
    for (std::size_t a = 0; a < from.size(); ++a) {
      to[a].resize(from[a].n(), from[a].shape());
      std::copy(from[a].data(), from[a].data() + from[a].size(), to[a].data());
      values += static_cast<std::int64_t>(from[a].size());
    }
    return values;
  };
  // The words of the activations only: what a layer saves (dropout's mask) is one bit per
  // value in hardware, not a word.
  copy(saved, other.saved);
  return copy(acts, other.acts);
}

template <typename T>
Network<T>::Network(const NetworkSpec& spec) : spec_(spec), graph_(spec_) {
  // Settles the kernel set now (TRAINSIM_KERNELS, sim/nn/kernels.h): a bad name fails while a
  // run is being set up, before it has written anything.
  active_kernel_set();
  const std::string where = "network '" + spec.name + "' (" + spec.source + ")";
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const LayerSpec& ls = spec.layers[i];
    const LayerTypeInfo* info = find_layer_type(ls.type);
    if (info == nullptr)
      throw UserError(where + ": layer '" + ls.name + "': unknown type '" + ls.type + "'");
    if (maker<T>(*info) == nullptr)
      throw UserError(where + ": layer '" + ls.name + "' (" + ls.type +
                      ") can only be timed, not trained: use the experiment with "
                      "`numerics: none`");
    std::vector<Shape> ins;
    for (int p : graph_.inputs(i))
      ins.push_back(p < 0 ? input_shape() : layers_[static_cast<std::size_t>(p)]->out_shape());
    try {
      layers_.push_back(maker<T>(*info)(ls, ins));
    } catch (const UserError& e) {
      throw UserError(where + ": layer '" + ls.name + "' (" + ls.type + "): " + e.what());
    }
    if (layers_.back()->out_shape().size() <= 0)
      throw UserError(where + ": layer '" + ls.name + "' produces an empty output");
  }
  // The numerics train with cross-entropy (Network::backward); a network ending in another
  // output layer (a sigmoid with binary cross-entropy) is timed only.
  const OutputLoss loss = layers_.empty() ? OutputLoss::kNone : output_loss(layers_.back()->type());
  if (loss != OutputLoss::kCrossEntropy)
    throw UserError(
        where + ": the last layer must be softmax" +
        (loss == OutputLoss::kNone
             ? std::string()
             : ": a " + layers_.back()->type() + " output can only be timed (`numerics: none`)"));
  const Shape out = layers_.back()->out_shape();
  if (out.size() != spec.classes)
    throw UserError(where + ": the output has " + std::to_string(out.size()) +
                    " values but the network declares " + std::to_string(spec.classes) +
                    " classes");
  std::vector<bool> params(layers_.size());
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    layer_macs_.push_back(layers_[i]->forward_macs());
    params[i] = layers_[i]->has_params();
  }
  // No trainable layer computes a second input's gradient in its backward-weight pass.
  graph_.set_layers(params, std::vector<bool>(layers_.size(), false));
  backward_events_ = graph_.backward_events();
}

template <typename T>
void Network<T>::init(std::uint64_t seed) {
  Rng rng(seed);
  for (auto& l : layers_) l->init(spec_.init, rng);
  zero_grad();
}

template <typename T>
std::vector<Param<T>*> Network<T>::params() {
  std::vector<Param<T>*> all;
  for (auto& l : layers_)
    for (Param<T>* p : l->params()) all.push_back(p);
  return all;
}

template <typename T>
std::int64_t Network<T>::param_count() {
  std::int64_t n = 0;
  for (Param<T>* p : params()) n += static_cast<std::int64_t>(p->value.size());
  return n;
}

template <typename T>
void Network<T>::zero_grad() {
  for (Param<T>* p : params()) p->grad.set_zero();
}

template <typename T>
void Network<T>::archive_state(StateArchive& a) {
  for (auto& l : layers_)
    if (l->has_state()) l->archive_state(a);
}

template <typename T>
bool Network<T>::has_state() const {
  for (const auto& l : layers_)
    if (l->has_state()) return true;
  return false;
}

template <typename T>
void Network<T>::set_training(bool training) {
  if (training == training_) return;
  training_ = training;
  for (auto& l : layers_) l->set_training(training);
}

template <typename T>
const LayerInputs<T>& Network<T>::inputs_of(const ForwardPass<T>& pass, std::size_t i) {
  xs_.clear();
  for (int p : graph_.inputs(i)) xs_.push_back(&pass.acts[static_cast<std::size_t>(p + 1)]);
  return xs_;
}

template <typename T>
void Network<T>::prepare(ForwardPass<T>& pass, bool training) {
  pass.acts.resize(layers_.size() + 1);
  pass.saved.resize(layers_.size());
  set_training(training);
}

template <typename T>
void Network<T>::forward_layer(ForwardPass<T>& pass, std::size_t i) {
  const int batch = pass.acts[0].n();
  layers_[i]->forward_graph(inputs_of(pass, i), pass.acts[i + 1], pass.saved[i]);
  macs_ += layer_macs_[i] * batch;
  if (observer_) observer_->on_forward(i, batch);
}

template <typename T>
void Network<T>::forward(ForwardPass<T>& pass, bool training) {
  prepare(pass, training);
  for (std::size_t i = 0; i < layers_.size(); ++i) forward_layer(pass, i);
}

template <typename T>
void Network<T>::backward(const ForwardPass<T>& pass, const std::uint8_t* labels,
                          BackwardScratch<T>& scratch, bool compute) {
  if (pass.acts.size() != layers_.size() + 1 || pass.saved.size() != layers_.size())
    throw std::logic_error("Network::backward: the pass was not made by forward()");
  const int batch = pass.acts[0].n();
  std::vector<Tensor<T>>& grads = scratch.grads;
  grads.resize(layers_.size());
  // How many readers of each layer have added their share of its output's gradient: the
  // first one writes it, the others add to it.
  std::vector<int>& shares = scratch.shares;
  shares.assign(layers_.size(), 0);
  // Hands the gradient of input k of layer l to its producer, if the producer wants it.
  auto input_grad = [&](std::size_t l, std::size_t k, auto&& compute_into) {
    const int p = graph_.inputs(l)[k];
    if (p < 0 || !graph_.needs_output_grad(static_cast<std::size_t>(p))) return;
    const auto producer = static_cast<std::size_t>(p);
    if (shares[producer]++ == 0) return compute_into(grads[producer]);
    compute_into(scratch.part);
    add_into(grads[producer], scratch.part);
  };
  for (const StepEvent& e : backward_events_) {
    const std::size_t l = e.layer;
    // A layer nothing reads (a branch that ends nowhere) has a zero output gradient.
    if (compute && e.slot != LayerOpSlot::kLossGrad && shares[l] == 0) {
      grads[l].resize(batch, layers_[l]->out_shape());
      grads[l].set_zero();
      shares[l] = 1;
    }
    switch (e.slot) {
      case LayerOpSlot::kLossGrad:
        // The softmax layer and the loss are fused: the gradient entering the layer below the
        // softmax is p - onehot.
        if (compute)
          input_grad(l, 0, [&](Tensor<T>& g) { cross_entropy_grad(pass.probs(), labels, g); });
        if (observer_) observer_->on_loss_grad(l, batch);
        break;
      case LayerOpSlot::kGradSum:
        // The readers added their shares as they computed them.
        if (observer_) observer_->on_grad_sum(l, batch);
        break;
      case LayerOpSlot::kBackwardWeight:
        if (compute) {
          layers_[l]->backward_weight_graph(*inputs_of(pass, l)[0], pass.saved[l], grads[l]);
          macs_ += layer_macs_[l] * batch;
        }
        if (observer_) observer_->on_backward_weight(l, batch);
        break;
      case LayerOpSlot::kBackwardData:
        if (compute) {
          const LayerInputs<T>& xs = inputs_of(pass, l);
          for (std::size_t k = 0; k < xs.size(); ++k)
            input_grad(l, k, [&](Tensor<T>& dx) {
              layers_[l]->backward_data_graph(xs, pass.acts[l + 1], pass.saved[l], grads[l], k, dx);
            });
          macs_ += layer_macs_[l] * batch;
        }
        if (observer_) observer_->on_backward_data(l, batch);
        break;
      case LayerOpSlot::kForward:
      case LayerOpSlot::kUpdate:
        break;  // not backward events
    }
  }
}

template struct ForwardPass<float>;
template struct ForwardPass<double>;
template class Network<float>;
template class Network<double>;

}  // namespace trainsim
