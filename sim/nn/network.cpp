#include "sim/nn/network.h"

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
}  // namespace

template <typename T>
Network<T>::Network(const NetworkSpec& spec) : spec_(spec) {
  // Settles the kernel set now (TRAINSIM_KERNELS, sim/nn/kernels.h): a bad name fails while a
  // run is being set up, before it has written anything.
  active_kernel_set();
  Shape shape = input_shape();
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
    try {
      layers_.push_back(maker<T>(*info)(ls, shape));
    } catch (const UserError& e) {
      throw UserError(where + ": layer '" + ls.name + "' (" + ls.type + "): " + e.what());
    }
    shape = layers_.back()->out_shape();
    if (shape.size() <= 0)
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
  if (shape.size() != spec.classes)
    throw UserError(where + ": the output has " + std::to_string(shape.size()) +
                    " values but the network declares " + std::to_string(spec.classes) +
                    " classes");
  first_param_layer_ = layers_.size();
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    layer_macs_.push_back(layers_[i]->forward_macs());
    has_params_.push_back(layers_[i]->has_params());
    if (has_params_[i] && first_param_layer_ == layers_.size()) first_param_layer_ = i;
  }
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
void Network<T>::forward(ForwardPass<T>& pass) {
  pass.acts.resize(layers_.size() + 1);
  const int batch = pass.acts[0].n();
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    layers_[i]->forward(pass.acts[i], pass.acts[i + 1]);
    macs_ += layer_macs_[i] * batch;
    if (observer_) observer_->on_forward(i, batch);
  }
}

template <typename T>
void Network<T>::backward(const ForwardPass<T>& pass, const std::uint8_t* labels,
                          BackwardScratch<T>& scratch, bool compute) {
  // The softmax layer and the loss are fused: the gradient entering the layer below the
  // softmax is p - onehot.
  const int batch = pass.acts[0].n();
  if (compute) cross_entropy_grad(pass.probs(), labels, scratch.grad);
  if (observer_) observer_->on_loss_grad(layers_.size() - 1, batch);
  for (std::size_t i = layers_.size() - 1; i-- > 0;) {
    if (has_params_[i]) {
      if (compute) {
        layers_[i]->backward_weight(pass.acts[i], scratch.grad);
        macs_ += layer_macs_[i] * batch;
      }
      if (observer_) observer_->on_backward_weight(i, batch);
    }
    if (!needs_input_grad(i)) break;
    if (compute) {
      layers_[i]->backward_data(pass.acts[i], pass.acts[i + 1], scratch.grad, scratch.next);
      macs_ += layer_macs_[i] * batch;
      std::swap(scratch.grad, scratch.next);
    }
    if (observer_) observer_->on_backward_data(i, batch);
  }
}

template class Network<float>;
template class Network<double>;

}  // namespace trainsim
