#include "sim/workload/op.h"

#include <array>
#include <cstring>
#include <stdexcept>

namespace trainsim {

namespace {

struct RoleEntry {
  std::string name;
  OpRole computes = OpRole::kForward;
};

// The roles by id. Written only while the technique registry is built (a function-local
// static, so once and before any op of a registered role exists); read everywhere after.
struct RoleTable {
  std::array<RoleEntry, kNumRoles> entries;
  int size = kNumCoreRoles;
  RoleTable() {
    entries[0] = {"fw", OpRole::kForward};
    entries[1] = {"bwd-data", OpRole::kBackwardData};
    entries[2] = {"bwd-weight", OpRole::kBackwardWeight};
    entries[3] = {"update", OpRole::kForward};
    entries[4] = {"act-grad", OpRole::kForward};
  }
};

RoleTable& role_table() {
  static RoleTable table;
  return table;
}

}  // namespace

OpRole register_role(const std::string& name, OpRole computes) {
  RoleTable& t = role_table();
  for (int i = 0; i < t.size; ++i) {
    const RoleEntry& e = t.entries[static_cast<std::size_t>(i)];
    if (e.name != name) continue;
    if (e.computes != computes)
      throw std::logic_error("op role '" + name + "' registered twice with different passes");
    return static_cast<OpRole>(i);
  }
  if (t.size == kNumRoles)
    throw std::logic_error("more than " + std::to_string(kNumRoles) + " op roles (kNumRoles)");
  t.entries[static_cast<std::size_t>(t.size)] = {name, computes};
  return static_cast<OpRole>(t.size++);
}

int num_roles() {
  return role_table().size;
}

const char* role_name(OpRole role) {
  const RoleTable& t = role_table();
  const int i = static_cast<int>(role);
  return i < t.size ? t.entries[static_cast<std::size_t>(i)].name.c_str() : "?";
}

bool parse_role(const std::string& text, OpRole& role) {
  for (int i = 0; i < num_roles(); ++i) {
    if (text == role_name(static_cast<OpRole>(i))) {
      role = static_cast<OpRole>(i);
      return true;
    }
  }
  if (text == "forward") return role = OpRole::kForward, true;
  if (text == "backward-data" || text == "bwd_data") return role = OpRole::kBackwardData, true;
  if (text == "backward-weight" || text == "bwd_weight")
    return role = OpRole::kBackwardWeight, true;
  return false;
}

const char* kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kGemm:
      return "gemm";
    case OpKind::kConv:
      return "conv";
    case OpKind::kElementwise:
      return "eltwise";
  }
  return "?";
}

namespace {

constexpr const char* kEltwiseKernelNames[kNumEltwiseKernels] = {
    "map",     "broadcast",    "transpose",     "reduction",          "softmax",
    "pooling", "pooling_grad", "normalization", "normalization_grad", "update"};

}  // namespace

const char* eltwise_kernel_name(EltwiseKernel k) {
  const auto i = static_cast<std::size_t>(k);
  return i < kNumEltwiseKernels ? kEltwiseKernelNames[i] : "?";
}

bool parse_eltwise_kernel(const std::string& text, EltwiseKernel& k) {
  for (int i = 0; i < kNumEltwiseKernels; ++i)
    if (text == kEltwiseKernelNames[i]) {
      k = static_cast<EltwiseKernel>(i);
      return true;
    }
  return false;
}

TensorId tensor_id(TensorKind kind, int layer, int index) {
  return (static_cast<TensorId>(kind) << 28) | (static_cast<TensorId>(layer + 1) << 8) |
         static_cast<TensorId>(index & 0xff);
}

TensorKind tensor_id_kind(TensorId id) {
  return static_cast<TensorKind>(id >> 28);
}

int tensor_id_layer(TensorId id) {
  return static_cast<int>((id >> 8) & 0xfffff) - 1;
}

bool tensor_persistent(TensorId id) {
  const TensorKind kind = tensor_id_kind(id);
  return kind == TensorKind::kWeight || kind == TensorKind::kOptimizerState;
}

bool ConvShape::operator==(const ConvShape& o) const {
  return batch == o.batch && channels == o.channels && height == o.height && width == o.width &&
         filters == o.filters && kernel_h == o.kernel_h && kernel_w == o.kernel_w &&
         stride == o.stride && pad == o.pad;
}

Op Op::make_gemm(GemmShape g, OpRole role, int layer) {
  Op op;
  op.kind = OpKind::kGemm;
  op.role = role;
  op.layer = layer;
  op.gemm = g;
  return op;
}

Op Op::make_conv(ConvShape c, OpRole role, int layer) {
  Op op;
  op.kind = OpKind::kConv;
  op.role = role;
  op.layer = layer;
  op.conv = c;
  return op;
}

Op Op::make_eltwise(ElementwiseShape e, OpRole role, int layer) {
  Op op;
  op.kind = OpKind::kElementwise;
  op.role = role;
  op.layer = layer;
  op.eltwise = e;
  return op;
}

std::int64_t Op::macs() const {
  switch (kind) {
    case OpKind::kGemm:
      return gemm.macs() * repeat;
    case OpKind::kConv:
      return lower_to_gemm(*this).macs() * repeat;
    case OpKind::kElementwise:
      return 0;
  }
  return 0;
}

std::string Op::describe() const {
  std::string s = std::string(kind_name(kind)) + " " + role_name(role) + " ";
  switch (kind) {
    case OpKind::kGemm:
      s += "M=" + std::to_string(gemm.m) + " N=" + std::to_string(gemm.n) +
           " K=" + std::to_string(gemm.k);
      break;
    case OpKind::kConv:
      s += std::to_string(conv.batch) + "x" + std::to_string(conv.channels) + "x" +
           std::to_string(conv.height) + "x" + std::to_string(conv.width) + " k" +
           std::to_string(conv.kernel_h) + "x" + std::to_string(conv.kernel_w) + " s" +
           std::to_string(conv.stride) + " p" + std::to_string(conv.pad) + " -> " +
           std::to_string(conv.filters);
      break;
    case OpKind::kElementwise:
      s += std::to_string(eltwise.elements) + " elements";
      break;
  }
  if (repeat > 1) s += " x" + std::to_string(repeat);
  return s;
}

OpRole conv_pass(OpRole role) {
  const RoleTable& t = role_table();
  const int i = static_cast<int>(role);
  return i < t.size ? t.entries[static_cast<std::size_t>(i)].computes : OpRole::kForward;
}

GemmShape lower_to_gemm(const Op& op) {
  if (op.kind == OpKind::kGemm) return op.gemm;
  if (op.kind == OpKind::kElementwise) return {};
  const ConvShape& c = op.conv;
  const std::int64_t rs = c.kernel_h * c.kernel_w;
  switch (conv_pass(op.role)) {
    case OpRole::kBackwardData:
      return {c.batch * c.height * c.width, c.channels, rs * c.filters};
    case OpRole::kBackwardWeight:
      return {rs * c.channels, c.filters, c.batch * c.out_h() * c.out_w()};
    default:
      return {c.batch * c.out_h() * c.out_w(), c.filters, rs * c.channels};
  }
}

ConvShape lower_to_conv(const Op& op) {
  if (op.kind == OpKind::kGemm) {
    ConvShape c;
    c.batch = 1;
    c.channels = op.gemm.k;
    c.height = op.gemm.m;
    c.width = 1;
    c.filters = op.gemm.n;
    return c;
  }
  if (op.kind == OpKind::kElementwise) return {};
  const ConvShape& f = op.conv;
  const std::int64_t ho = f.out_h(), wo = f.out_w();
  switch (conv_pass(op.role)) {
    case OpRole::kBackwardData: {
      // dY dilated by the stride ((Ho-1)*s+1 rows) and padded by R-1-pad on each side, so
      // that a stride-1 "valid" convolution with the rotated kernel yields H x W (plus the
      // rows the forward stride skipped, which the dilation accounts for).
      ConvShape c;
      c.batch = f.batch;
      c.channels = f.filters;
      c.filters = f.channels;
      c.kernel_h = f.kernel_h;
      c.kernel_w = f.kernel_w;
      c.stride = 1;
      c.pad = 0;
      c.height = f.height + f.kernel_h - 1;
      c.width = f.width + f.kernel_w - 1;
      return c;
    }
    case OpRole::kBackwardWeight: {
      ConvShape c;
      c.batch = f.channels;  // one output plane per input channel ...
      c.channels = f.batch;  // ... accumulated over the batch
      c.filters = f.filters;
      c.kernel_h = (ho - 1) * f.stride + 1;
      c.kernel_w = (wo - 1) * f.stride + 1;
      c.stride = 1;
      c.pad = f.pad;
      c.height = f.height;
      c.width = f.width;
      return c;
    }
    default:
      return f;
  }
}

}  // namespace trainsim
