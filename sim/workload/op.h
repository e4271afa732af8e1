#pragma once
// The op stream: what the training loop hands the accelerator model. An op is a value:
// kind, dimensions, training role, layer id and word width. The same op is timed by every
// dataflow; each dataflow lowers it the way it executes it (GEMM for the systolic
// dataflows, convolution for row-stationary).
#include <array>
#include <cstdint>
#include <string>

namespace trainsim {

enum class OpKind : std::uint8_t { kGemm, kConv, kElementwise };

/// The training computation an op belongs to. The named roles are the passes every network's
/// training has. A technique's own work (speculative backprop's compare and store, ADA-GP's
/// predictor) has roles the technique declares (TechniqueInfo::roles); the technique
/// registry registers them (register_role) when it is built, numbered after these, so shared
/// code counts them like any role without knowing what they are.
enum class OpRole : std::uint8_t {
  kForward,         ///< y = f(x, W)
  kBackwardData,    ///< dX from dY and W
  kBackwardWeight,  ///< dW from X and dY
  kUpdate,          ///< optimizer step, element-wise over the parameters
  kActivationGrad,  ///< activation / pooling derivative, element-wise
};
inline constexpr int kNumCoreRoles = 5;
/// Room for the core roles and every registered one: per-role sums are arrays of this size.
inline constexpr int kNumRoles = 16;

/// Registers a technique's role `name` whose convolutions compute the pass `computes`
/// (kForward, kBackwardData or kBackwardWeight); returns its id. Registering a name again
/// returns the same id (techniques that share hardware share its roles). std::logic_error
/// past kNumRoles roles or for a name registered with another pass.
OpRole register_role(const std::string& name, OpRole computes);
/// Core roles plus those registered so far.
int num_roles();

/// "fw", "bwd-data", "bwd-weight", "update", "act-grad", then the registered roles' names
/// ("compare", "pred-fw", ...); "?" for an id nobody registered.
const char* role_name(OpRole role);
/// Parses role_name() output (and "forward" etc.); returns false if unknown.
bool parse_role(const std::string& text, OpRole& role);
const char* kind_name(OpKind kind);  ///< "gemm", "conv", "eltwise"
/// The pass a conv op of this role computes: fw, bwd-data or bwd-weight (a registered role:
/// the pass it was registered with).
OpRole conv_pass(OpRole role);

/// C[M x N] = A[M x K] B[K x N]. SCALE-Sim's operand names: A = ifmap, B = filter,
/// C = ofmap.
struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t macs() const { return m * n * k; }
  bool operator==(const GemmShape& o) const { return m == o.m && n == o.n && k == o.k; }
};

/// A forward convolution: `batch` inputs of channels x height x width, `filters` kernels
/// of channels x kernel_h x kernel_w, stride and zero padding on each side.
struct ConvShape {
  std::int64_t batch = 1, channels = 1, height = 1, width = 1;
  std::int64_t filters = 1, kernel_h = 1, kernel_w = 1, stride = 1, pad = 0;
  std::int64_t out_h() const { return (height + 2 * pad - kernel_h) / stride + 1; }
  std::int64_t out_w() const { return (width + 2 * pad - kernel_w) / stride + 1; }
  std::int64_t macs() const {
    return batch * filters * out_h() * out_w() * channels * kernel_h * kernel_w;
  }
  bool operator==(const ConvShape& o) const;
};

/// The kind of kernel an element-wise op is on a device that runs a kernel per op (a GPU):
/// how it walks memory, which decides how close to the memory's bandwidth it gets. The
/// lowering sets it from the layer; trainsim's own accelerator ignores it.
enum class EltwiseKernel : std::uint8_t {
  kMap,                ///< one output per input position (activations, add, mul, casts)
  kBroadcast,          ///< a per-channel vector applied at every position (bias add)
  kTranspose,          ///< a layout change: every value read and written once, strided
  kReduction,          ///< sums over positions (bias gradient, embedding gradient, losses)
  kSoftmax,            ///< a row's max, exponentials, sum and normalisation
  kPooling,            ///< a window per output (max / average pooling)
  kPoolingGrad,        ///< routes each output gradient back into its window
  kNormalization,      ///< statistics over a batch or a row, then normalise (batch/layer norm)
  kNormalizationGrad,  ///< its gradient
  kUpdate,             ///< an optimizer step over the parameters
};
inline constexpr int kNumEltwiseKernels = 10;
/// "map", "broadcast", "transpose", "reduction", "softmax", "pooling", "pooling_grad",
/// "normalization", "normalization_grad", "update"
const char* eltwise_kernel_name(EltwiseKernel k);
/// Parses eltwise_kernel_name() output; false if unknown.
bool parse_eltwise_kernel(const std::string& text, EltwiseKernel& k);

/// An element-wise op (weight update, activation derivative): `elements` values, each
/// reading `reads` words, writing `writes` words and doing `flops` arithmetic operations.
struct ElementwiseShape {
  std::int64_t elements = 0;
  int reads = 1, writes = 1, flops = 1;
  /// false: operands and results stay in the global buffer (no DRAM traffic), e.g. a
  /// store kept on chip.
  bool dram = true;
  EltwiseKernel kernel = EltwiseKernel::kMap;
};

/// Names a tensor of one training step, so that the session can see which op reads what
/// another op wrote (inter-op residency, sim/train/residency.h). 0 is anonymous: a tensor no
/// other op is known to share, never kept on chip.
using TensorId = std::uint32_t;
inline constexpr TensorId kNoTensor = 0;
enum class TensorKind : std::uint8_t {
  kActivation = 1,  ///< a layer's output (layer -1: the network input)
  kGradient,        ///< the loss gradient with respect to a layer's output
  kWeight,          ///< a layer's parameters
  kWeightGrad,      ///< their gradient
  kOptimizerState,  ///< momentum, Adam's moments (index 0, 1)
  kOwnModel,        ///< a technique's own model's tensors (ADA-GP's predictor; index = which)
};
/// kind | layer + 1 | index, packed; layer in [-1, 2^20 - 2], index in [0, 255].
TensorId tensor_id(TensorKind kind, int layer, int index = 0);
/// The kind and layer tensor_id() packed into `id` (not kNoTensor).
TensorKind tensor_id_kind(TensorId id);
int tensor_id_layer(TensorId id);
/// Whether the tensor outlives the training step (weights and optimizer state): such a
/// tensor is always written back to DRAM, whatever reads it next.
bool tensor_persistent(TensorId id);

/// One tensor an op reads or writes, with its size in words (the DRAM footprint).
struct TensorUse {
  TensorId id = kNoTensor;
  std::int64_t words = 0;
};
inline constexpr int kMaxOpInputs = 4, kMaxOpOutputs = 3;

/// What the session decided about keeping tensors on chip around one op. Bit i refers to
/// inputs[i] / outputs[i]; for array ops input 0 is the ifmap, 1 the filter, output 0 the
/// ofmap. Only the tiled memory model reads it.
struct Residency {
  std::uint8_t in_on_chip = 0;  ///< whole in the buffer already: not read from DRAM
  std::uint8_t in_keep = 0;     ///< read from DRAM once, whole, and kept for the next op
  std::uint8_t out_keep = 0;    ///< kept whole in the buffer for the next op
  std::uint8_t out_drop = 0;    ///< not written to DRAM: the next op is its last reader
  bool any() const { return (in_on_chip | in_keep | out_keep | out_drop) != 0; }
  bool operator==(const Residency& o) const {
    return in_on_chip == o.in_on_chip && in_keep == o.in_keep && out_keep == o.out_keep &&
           out_drop == o.out_drop;
  }
};

struct Op {
  OpKind kind = OpKind::kGemm;
  OpRole role = OpRole::kForward;
  int layer = -1;      ///< index of the network layer it belongs to (-1: none)
  int word_bits = 16;  ///< set to the accelerator's word width by whoever issues the op
  /// The filter operand (B) lives in a dedicated on-chip memory and is never read from DRAM
  /// (ADA-GP's predictor weights on its MAX and Efficient hardware).
  bool resident_filter = false;
  /// The op runs this many times back to back, each time on its own operands: the groups
  /// of a grouped (e.g. depthwise) convolution, each a convolution of channels/groups
  /// inputs to filters/groups outputs. Shapes describe one repetition.
  std::int64_t repeat = 1;
  /// The tensors it reads and writes (lowering fills them; unused slots are kNoTensor).
  std::array<TensorUse, kMaxOpInputs> inputs{};
  std::array<TensorUse, kMaxOpOutputs> outputs{};
  Residency residency;
  GemmShape gemm;  ///< kGemm: the GEMM exactly as executed (already per role)
  ConvShape conv;  ///< kConv: the *forward* layer geometry; `role` says which pass
  ElementwiseShape eltwise;

  static Op make_gemm(GemmShape g, OpRole role = OpRole::kForward, int layer = -1);
  static Op make_conv(ConvShape c, OpRole role = OpRole::kForward, int layer = -1);
  static Op make_eltwise(ElementwiseShape e, OpRole role, int layer = -1);

  /// Useful multiply-accumulates of all repetitions (0 for element-wise ops).
  std::int64_t macs() const;
  std::string describe() const;  ///< e.g. "conv fw 1x6x28x28 k5 s1 p2 -> 16" for messages
};

/// The GEMM a systolic array executes for `op` (SCALE-Sim's im2col convention):
///   conv fw:         M = B*Ho*Wo, N = F, K = R*S*C
///   conv bwd-data:   M = B*H*W,   N = C, K = R*S*F   (dX = dY (*) rot(W), as a GEMM)
///   conv bwd-weight: M = R*S*C,   N = F, K = B*Ho*Wo (dW = cols(X)^T dY)
///   gemm:            as given
GemmShape lower_to_gemm(const Op& op);

/// The forward convolution a row-stationary array executes for `op`:
///   conv fw:         the layer itself
///   conv bwd-data:   dY (zero-dilated by the stride, padded by R-1-pad) convolved with
///                    the rotated weights: B x F x H' x W' -> B x C x H x W, stride 1
///   conv bwd-weight: X convolved with dY as the kernel: "batch" C, channels B, kernel
///                    Ho' x Wo' (dY dilated by the stride) -> C x F x R x S, stride 1
///   gemm (M, N, K):  a 1x1 convolution, batch 1, K channels, M x 1 pixels, N filters
ConvShape lower_to_conv(const Op& op);

}  // namespace trainsim
