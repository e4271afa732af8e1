#include "sim/devices/op_work.h"

#include <stdexcept>

namespace trainsim {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

constexpr KernelType kAllTypes[] = {KernelType::kMatMul, KernelType::kConv2D,
                                    KernelType::kConv2DBackpropInput,
                                    KernelType::kConv2DBackpropFilter, KernelType::kElementwise};

}  // namespace

const char* kernel_type_name(KernelType t) {
  switch (t) {
    case KernelType::kMatMul:
      return "matmul";
    case KernelType::kConv2D:
      return "conv2d";
    case KernelType::kConv2DBackpropInput:
      return "conv2d_backprop_input";
    case KernelType::kConv2DBackpropFilter:
      return "conv2d_backprop_filter";
    case KernelType::kElementwise:
      return "elementwise";
  }
  return "?";
}

bool parse_kernel_type(const std::string& text, KernelType& t) {
  for (KernelType k : kAllTypes) {
    if (text == kernel_type_name(k)) {
      t = k;
      return true;
    }
  }
  return false;
}

std::string kernel_type_names() {
  std::string out;
  for (KernelType k : kAllTypes)
    out += (out.empty() ? "" : ", ") + std::string(kernel_type_name(k));
  return out;
}

KernelType kernel_type(const Op& op) {
  switch (op.kind) {
    case OpKind::kGemm:
      return KernelType::kMatMul;
    case OpKind::kElementwise:
      return KernelType::kElementwise;
    case OpKind::kConv:
      break;
  }
  switch (conv_pass(op.role)) {
    case OpRole::kBackwardData:
      return KernelType::kConv2DBackpropInput;
    case OpRole::kBackwardWeight:
      return KernelType::kConv2DBackpropFilter;
    default:
      return KernelType::kConv2D;
  }
}

OpWork op_work(const Op& op, int word_bytes) {
  OpWork w;
  const double repeat = static_cast<double>(op.repeat);
  double words = 0;
  switch (op.kind) {
    case OpKind::kGemm: {
      const GemmShape& g = op.gemm;
      w.gemm = g;
      w.ops = static_cast<double>(g.macs()) * repeat;
      w.flops = 2 * w.ops;
      words = static_cast<double>(g.m * g.k + g.k * g.n + g.m * g.n);
      break;
    }
    case OpKind::kConv: {
      // Every pass touches the same three tensors: input (or its gradient), filter (or its
      // gradient) and output (or its gradient), each once.
      const ConvShape& c = op.conv;
      w.gemm = lower_to_gemm(op);
      w.ops = static_cast<double>(w.gemm.macs()) * repeat;
      w.flops = 2 * w.ops;
      words = static_cast<double>(c.batch * c.channels * c.height * c.width +
                                  c.filters * c.channels * c.kernel_h * c.kernel_w +
                                  c.batch * c.filters * c.out_h() * c.out_w());
      break;
    }
    case OpKind::kElementwise: {
      // Whether the accelerator keeps the operands on chip (`dram`) is its own business; a
      // GPU or FPGA reads and writes them in its memory.
      const ElementwiseShape& e = op.eltwise;
      w.gemm = {e.elements, 1, 1};
      w.ops = static_cast<double>(e.elements) * e.flops * repeat;
      w.flops = w.ops;
      words = static_cast<double>(e.elements) * (e.reads + e.writes);
      break;
    }
  }
  w.outputs = static_cast<double>(w.gemm.m) * static_cast<double>(w.gemm.n) * repeat;
  w.bytes = words * repeat * word_bytes;
  return w;
}

Op split_rows(const Op& op, int devices) {
  if (devices < 1) throw std::logic_error("split_rows: devices must be >= 1");
  Op part = op;
  switch (op.kind) {
    case OpKind::kGemm:
      part.gemm.m = ceil_div(op.gemm.m, devices);
      break;
    case OpKind::kConv:
      part.conv.batch = ceil_div(op.conv.batch, devices);
      break;
    case OpKind::kElementwise:
      part.eltwise.elements = ceil_div(op.eltwise.elements, devices);
      break;
  }
  return part;
}

}  // namespace trainsim
