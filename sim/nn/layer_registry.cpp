#include "sim/nn/layer_registry.h"

#include "sim/core/error.h"
#include "sim/nn/activation.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/pool.h"
#include "sim/nn/softmax.h"

namespace trainsim {

namespace {

// Shape errors are reported by the network builder, which prefixes the layer and file.
void require_window_fits(const LayerSpec& s, const Shape& in, int pad) {
  if (in.h + 2 * pad < s.kernel || in.w + 2 * pad < s.kernel)
    throw UserError("kernel " + std::to_string(s.kernel) + " does not fit input " + in.str() +
                    (pad ? " with padding " + std::to_string(pad) : std::string()));
}

template <typename T>
std::unique_ptr<Layer<T>> make_dense(const LayerSpec& s, const Shape& in) {
  return std::make_unique<Dense<T>>(in, s.units, s.bias);
}
template <typename T>
std::unique_ptr<Layer<T>> make_conv(const LayerSpec& s, const Shape& in) {
  require_window_fits(s, in, s.padding);
  return std::make_unique<Conv2d<T>>(in, s.filters, s.kernel, s.stride, s.padding, s.bias);
}
template <typename T>
std::unique_ptr<Layer<T>> make_maxpool(const LayerSpec& s, const Shape& in) {
  require_window_fits(s, in, 0);
  return std::make_unique<Pool2d<T>>(in, Pool2d<T>::Mode::kMax, s.kernel, s.stride);
}
template <typename T>
std::unique_ptr<Layer<T>> make_avgpool(const LayerSpec& s, const Shape& in) {
  require_window_fits(s, in, 0);
  return std::make_unique<Pool2d<T>>(in, Pool2d<T>::Mode::kAvg, s.kernel, s.stride);
}
template <typename T>
std::unique_ptr<Layer<T>> make_flatten(const LayerSpec&, const Shape& in) {
  return std::make_unique<Flatten<T>>(in);
}
template <typename T>
std::unique_ptr<Layer<T>> make_relu(const LayerSpec&, const Shape& in) {
  return std::make_unique<LeakyRelu<T>>(in, T(0));
}
template <typename T>
std::unique_ptr<Layer<T>> make_leaky(const LayerSpec& s, const Shape& in) {
  return std::make_unique<LeakyRelu<T>>(in, static_cast<T>(s.slope));
}
template <typename T>
std::unique_ptr<Layer<T>> make_softmax(const LayerSpec&, const Shape& in) {
  return std::make_unique<Softmax<T>>(in);
}

#define TRAINSIM_LAYER(name, desc, keys, fn)  \
  LayerTypeInfo {                             \
    name, desc, keys, &fn<float>, &fn<double> \
  }

}  // namespace

const std::vector<LayerTypeInfo>& layer_types() {
  static const std::vector<LayerTypeInfo> types = {
      TRAINSIM_LAYER("dense", "fully connected, Y = X W + b",
                     (std::vector<std::string>{"units", "bias"}), make_dense),
      TRAINSIM_LAYER("conv2d", "2-D convolution, square kernel, stride, zero padding",
                     (std::vector<std::string>{"filters", "kernel", "stride", "padding", "bias"}),
                     make_conv),
      TRAINSIM_LAYER("maxpool2d", "max pooling, stride defaults to kernel",
                     (std::vector<std::string>{"kernel", "stride"}), make_maxpool),
      TRAINSIM_LAYER("avgpool2d", "average pooling, stride defaults to kernel",
                     (std::vector<std::string>{"kernel", "stride"}), make_avgpool),
      TRAINSIM_LAYER("flatten", "reshape C x H x W to a vector", std::vector<std::string>{},
                     make_flatten),
      TRAINSIM_LAYER("relu", "max(x, 0)", std::vector<std::string>{}, make_relu),
      TRAINSIM_LAYER("leaky_relu", "x > 0 ? x : slope * x", std::vector<std::string>{"slope"},
                     make_leaky),
      TRAINSIM_LAYER("softmax", "softmax output, trained with cross-entropy (last layer only)",
                     std::vector<std::string>{}, make_softmax),
  };
  return types;
}

const LayerTypeInfo* find_layer_type(const std::string& name) {
  for (const auto& t : layer_types())
    if (t.name == name) return &t;
  return nullptr;
}

}  // namespace trainsim
