#include "sim/nn/layer_registry.h"

#include "sim/core/error.h"
#include "sim/nn/activation.h"
#include "sim/nn/batchnorm.h"
#include "sim/nn/conv2d.h"
#include "sim/nn/dense.h"
#include "sim/nn/dropout.h"
#include "sim/nn/global_pool.h"
#include "sim/nn/merge.h"
#include "sim/nn/pool.h"
#include "sim/nn/softmax.h"

namespace trainsim {

namespace {

using Ins = std::vector<Shape>;

// Shape errors are reported by the network builder, which prefixes the layer and file.
void require_window_fits(const LayerSpec& s, const Shape& in, int pad) {
  if (in.h + 2 * pad < s.kernel || in.w + 2 * pad < s.kernel)
    throw UserError("kernel " + std::to_string(s.kernel) + " does not fit input " + in.str() +
                    (pad ? " with padding " + std::to_string(pad) : std::string()));
}

// What the numerics support: square kernels. The rest of the network language (rectangular
// convolutions, padded pools) is timed only.
[[noreturn]] void shape_only(const std::string& what) {
  throw UserError(what +
                  " can only be timed, not trained: use the experiment with "
                  "`numerics: none`");
}
void require_numeric(const LayerSpec& s) {
  if (!s.square()) shape_only("a rectangular kernel or padding");
}

template <typename T>
std::unique_ptr<Layer<T>> make_dense(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  return std::make_unique<Dense<T>>(in, s.units, s.bias);
}
template <typename T>
std::unique_ptr<Layer<T>> make_conv(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  require_window_fits(s, in, s.padding);
  if (in.c % s.groups != 0 || s.filters % s.groups != 0)
    throw UserError("groups " + std::to_string(s.groups) + " must divide the input channels (" +
                    std::to_string(in.c) + ") and the filters (" + std::to_string(s.filters) + ")");
  return std::make_unique<Conv2d<T>>(in, s.filters, s.kernel, s.stride, s.padding, s.bias,
                                     s.groups);
}
template <typename T>
std::unique_ptr<Layer<T>> make_maxpool(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  if (s.padding != 0) shape_only("a padded pooling window");
  require_window_fits(s, in, 0);
  return std::make_unique<Pool2d<T>>(in, Pool2d<T>::Mode::kMax, s.kernel, s.stride);
}
template <typename T>
std::unique_ptr<Layer<T>> make_avgpool(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  if (s.padding != 0) shape_only("a padded pooling window");
  require_window_fits(s, in, 0);
  return std::make_unique<Pool2d<T>>(in, Pool2d<T>::Mode::kAvg, s.kernel, s.stride);
}
template <typename T>
std::unique_ptr<Layer<T>> make_flatten(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  return std::make_unique<Flatten<T>>(in);
}
template <typename T>
std::unique_ptr<Layer<T>> make_relu(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  return std::make_unique<LeakyRelu<T>>(in, T(0));
}
template <typename T>
std::unique_ptr<Layer<T>> make_leaky(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  return std::make_unique<LeakyRelu<T>>(in, static_cast<T>(s.slope));
}
template <typename T>
std::unique_ptr<Layer<T>> make_softmax(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  return std::make_unique<Softmax<T>>(in);
}

// tanh, sigmoid, gelu: one element-wise layer class, the function a parameter.
template <Smooth F>
struct SmoothMaker {
  template <typename T>
  static std::unique_ptr<Layer<T>> make(const LayerSpec& s, const Ins& ins) {
    const Shape& in = ins.front();
    require_numeric(s);
    return std::make_unique<SmoothActivation<T>>(in, F);
  }
};
template <typename T>
std::unique_ptr<Layer<T>> make_reshape(const LayerSpec& s, const Ins& ins) {
  const Shape& in = ins.front();
  require_numeric(s);
  const Shape out{s.shape[0], s.shape[1], s.shape[2]};
  const std::string err = reshape_error(in, out);
  if (!err.empty()) throw UserError(err);
  return std::make_unique<Reshape<T>>(in, out);
}

template <typename T>
std::unique_ptr<Layer<T>> make_batchnorm(const LayerSpec& s, const Ins& ins) {
  require_numeric(s);
  return std::make_unique<BatchNorm<T>>(ins.front());
}
template <typename T>
std::unique_ptr<Layer<T>> make_global_avgpool(const LayerSpec& s, const Ins& ins) {
  require_numeric(s);
  return std::make_unique<GlobalAvgPool<T>>(ins.front());
}
template <typename T>
std::unique_ptr<Layer<T>> make_add(const LayerSpec& s, const Ins& ins) {
  require_numeric(s);
  return std::make_unique<Add<T>>(ins);
}
template <typename T>
std::unique_ptr<Layer<T>> make_concat(const LayerSpec& s, const Ins& ins) {
  require_numeric(s);
  return std::make_unique<Concat<T>>(ins);
}
template <typename T>
std::unique_ptr<Layer<T>> make_dropout(const LayerSpec& s, const Ins& ins) {
  require_numeric(s);
  return std::make_unique<Dropout<T>>(ins.front(), s.rate);
}

#define TRAINSIM_LAYER(name, desc, keys, fn)  \
  LayerTypeInfo {                             \
    name, desc, keys, &fn<float>, &fn<double> \
  }
// A layer type of shape-only networks (numerics: none): no numeric implementation.
#define TRAINSIM_SHAPE_LAYER(name, desc, keys) \
  LayerTypeInfo {                              \
    name, desc, keys, nullptr, nullptr         \
  }
// A type whose shapes and ops a LayerKind describes (sim/workload/layers/, which finds it
// by the type's name), with the keys it requires, with numerics (fn) or without (nullptr).
#define TRAINSIM_KIND_LAYER(name, desc, keys, required, fn, loss)                   \
  LayerTypeInfo {                                                                   \
    name, desc, keys, &fn<float>, &fn<double>, LayerBoundary::kNone, required, loss \
  }
#define TRAINSIM_KIND_SHAPE_LAYER(name, desc, keys, required)                             \
  LayerTypeInfo {                                                                         \
    name, desc, keys, nullptr, nullptr, LayerBoundary::kNone, required, OutputLoss::kNone \
  }
using Keys = std::vector<std::string>;

LayerTypeInfo in_family(LayerTypeInfo info, LayerFamily family) {
  info.family = family;
  return info;
}

LayerTypeInfo requiring(LayerTypeInfo info, std::vector<std::string> keys) {
  info.required = std::move(keys);
  return info;
}

// A pooling window: its kernel has no default, its stride defaults to the kernel.
LayerTypeInfo pooling(LayerTypeInfo info) {
  info = requiring(std::move(info), {"kernel"});
  info.stride_defaults_to_kernel = true;
  info.family = LayerFamily::kPool;
  return info;
}

// A merge of two or more layers' outputs.
LayerTypeInfo merging(LayerTypeInfo info) {
  info = requiring(std::move(info), {"from"});
  info.min_inputs = 2;
  return info;
}

}  // namespace

const std::vector<LayerTypeInfo>& layer_types() {
  static const std::vector<LayerTypeInfo> types = {
      in_family(requiring(TRAINSIM_LAYER("dense", "fully connected, Y = X W + b",
                                         (Keys{"units", "bias", "from"}), make_dense),
                          {"units"}),
                LayerFamily::kDense),
      in_family(
          requiring(
              TRAINSIM_LAYER(
                  "conv2d",
                  "2-D convolution, stride, zero padding, channel groups (timed only: [kh, kw] "
                  "kernels or padding)",
                  (Keys{"filters", "kernel", "stride", "padding", "groups", "bias", "from"}),
                  make_conv),
              {"filters", "kernel"}),
          LayerFamily::kConv),
      pooling(TRAINSIM_LAYER("maxpool2d",
                             "max pooling, stride defaults to kernel (timed only: padding)",
                             (Keys{"kernel", "stride", "padding", "from"}), make_maxpool)),
      pooling(TRAINSIM_LAYER("avgpool2d",
                             "average pooling, stride defaults to kernel (timed only: padding)",
                             (Keys{"kernel", "stride", "padding", "from"}), make_avgpool)),
      TRAINSIM_LAYER("flatten", "reshape C x H x W to a vector", Keys{"from"}, make_flatten),
      TRAINSIM_LAYER("relu", "max(x, 0)", Keys{"from"}, make_relu),
      TRAINSIM_LAYER("leaky_relu", "x > 0 ? x : slope * x", (Keys{"slope", "from"}), make_leaky),
      LayerTypeInfo{"softmax",
                    "softmax over each sample's values; as the last layer trained with "
                    "cross-entropy",
                    Keys{"from"}, &make_softmax<float>, &make_softmax<double>, LayerBoundary::kNone,
                    Keys{}, OutputLoss::kCrossEntropy},
      in_family(TRAINSIM_LAYER("batchnorm",
                               "batch normalization per channel: batch statistics in training, "
                               "running ones in evaluation, learnt scale and shift",
                               Keys{"from"}, make_batchnorm),
                LayerFamily::kNorm),
      in_family(TRAINSIM_LAYER("global_avgpool", "average of each channel, C x H x W -> C x 1 x 1",
                               Keys{"from"}, make_global_avgpool),
                LayerFamily::kPool),
      merging(TRAINSIM_LAYER("add",
                             "element-wise sum of two or more layers' outputs, e.g. a residual "
                             "connection",
                             Keys{"from"}, make_add)),
      merging(TRAINSIM_LAYER("concat", "channel concatenation of two or more layers' outputs",
                             Keys{"from"}, make_concat)),
      requiring(
          TRAINSIM_SHAPE_LAYER("resize", "bilinear resize of the input to size [h, w] (timed only)",
                               (Keys{"size", "from"})),
          {"size"}),
      LayerTypeInfo{"source",
                    "an input of shape [c, h, w] from outside the network, whose gradient is "
                    "computed (timed only; SCALE-Sim topologies)",
                    Keys{"shape"}, nullptr, nullptr, LayerBoundary::kSource, Keys{"shape"}},
      LayerTypeInfo{"sink",
                    "last layer instead of softmax: the outputs in `from` leave the network, "
                    "their gradients come from outside (timed only; SCALE-Sim topologies)",
                    Keys{"from"}, nullptr, nullptr, LayerBoundary::kSink, Keys{"from"}},
      in_family(
          TRAINSIM_KIND_SHAPE_LAYER(
              "conv2d_transpose",
              "transposed convolution (the mirrored conv's backward-data), output (H - 1) stride - "
              "2 padding + kernel + output_padding (timed only)",
              (Keys{"filters", "kernel", "stride", "padding", "output_padding", "bias", "from"}),
              (Keys{"filters", "kernel"})),
          LayerFamily::kConvTranspose),
      TRAINSIM_KIND_LAYER("tanh", "tanh(x)", Keys{"from"}, Keys{}, SmoothMaker<Smooth::kTanh>::make,
                          OutputLoss::kNone),
      TRAINSIM_KIND_LAYER("sigmoid",
                          "1 / (1 + exp(-x)); as the last layer one value trained with binary "
                          "cross-entropy (timed only)",
                          Keys{"from"}, Keys{}, SmoothMaker<Smooth::kSigmoid>::make,
                          OutputLoss::kBinary),
      TRAINSIM_KIND_LAYER("gelu", "x Phi(x), tanh form", Keys{"from"}, Keys{},
                          SmoothMaker<Smooth::kGelu>::make, OutputLoss::kNone),
      TRAINSIM_KIND_LAYER("dropout",
                          "drops each value with probability rate in training, scales the rest "
                          "by 1 / (1 - rate)",
                          (Keys{"rate", "from"}), Keys{}, make_dropout, OutputLoss::kNone),
      TRAINSIM_KIND_LAYER("reshape", "the input's values as shape [c, h, w]",
                          (Keys{"shape", "from"}), Keys{"shape"}, make_reshape, OutputLoss::kNone),
      in_family(TRAINSIM_KIND_SHAPE_LAYER(
                    "linear",
                    "dense layer at every position: C x H x W -> units x H x W, one "
                    "weight matrix (timed only)",
                    (Keys{"units", "bias", "from"}), Keys{"units"}),
                LayerFamily::kLinear),
      TRAINSIM_KIND_SHAPE_LAYER("batched_matmul",
                                "A B (or A B^T) per sample and head, A and B from two layers "
                                "(attention; timed only)",
                                (Keys{"heads", "transpose_b", "from"}), Keys{"from"}),
      in_family(
          TRAINSIM_KIND_SHAPE_LAYER("layernorm",
                                    "normalization over each position's features, scale and shift "
                                    "(timed only)",
                                    Keys{"from"}, Keys{}),
          LayerFamily::kNorm),
      TRAINSIM_KIND_SHAPE_LAYER("embedding",
                                "a vocab x units table looked up by the token id at each "
                                "position: 1 x H x W -> units x H x W (timed only)",
                                (Keys{"vocab", "units", "from"}), (Keys{"vocab", "units"})),
  };
  return types;
}

LayerFamily layer_family(const std::string& type) {
  const LayerTypeInfo* info = find_layer_type(type);
  return info ? info->family : LayerFamily::kOther;
}

LayerBoundary layer_boundary(const std::string& type) {
  const LayerTypeInfo* info = find_layer_type(type);
  return info ? info->boundary : LayerBoundary::kNone;
}

const LayerTypeInfo* find_layer_type(const std::string& name) {
  for (const auto& t : layer_types())
    if (t.name == name) return &t;
  return nullptr;
}

OutputLoss output_loss(const std::string& name) {
  const LayerTypeInfo* t = find_layer_type(name);
  return t != nullptr ? t->loss : OutputLoss::kNone;
}

std::string output_layer_types() {
  // The loss layers first, then the sinks.
  std::vector<std::string> names;
  for (const auto& t : layer_types())
    if (t.loss != OutputLoss::kNone) names.push_back("'" + t.name + "'");
  for (const auto& t : layer_types())
    if (t.boundary == LayerBoundary::kSink) names.push_back("'" + t.name + "'");
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

}  // namespace trainsim
