#pragma once
// What an op asks of a device that is not trainsim's PE array (a GPU, an FPGA): its arithmetic,
// the bytes it must move at least, and the kind of kernel that runs it. The PE-array
// accelerator costs ops with its own dataflow and memory model instead (accel_device.h).
#include <cstdint>
#include <string>

#include "sim/workload/op.h"

namespace trainsim {

/// The kernel an op needs: TensorFlow's op types as far as a lowered trainsim op tells them
/// apart (Table 1 of He et al. profiles MatMul, Conv2D, Conv2DBackpropFilter /
/// Conv2DBackpropInput and element-wise ops). A GEMM is a MatMul in every role (a dense
/// layer's backward passes are MatMuls with transposed operands); every element-wise op
/// (activations, pooling, updates, bias gradients) shares one kind here.
enum class KernelType : std::uint8_t {
  kMatMul,
  kConv2D,
  kConv2DBackpropInput,
  kConv2DBackpropFilter,
  kElementwise,
};
inline constexpr int kNumKernelTypes = 5;

/// "matmul", "conv2d", "conv2d_backprop_input", "conv2d_backprop_filter", "elementwise"
const char* kernel_type_name(KernelType t);
/// Parses kernel_type_name() output; false if unknown.
bool parse_kernel_type(const std::string& text, KernelType& t);
/// Every kernel type's name, comma-separated (for error messages).
std::string kernel_type_names();
KernelType kernel_type(const Op& op);

/// The work of an op, for devices that time it as arithmetic plus memory traffic.
struct OpWork {
  /// Multiply-accumulates for GEMMs and convolutions, arithmetic operations for element-wise
  /// ops: what one lane of a device does per cycle. All repetitions.
  double ops = 0;
  /// Floating-point operations (a multiply-accumulate is two), all repetitions.
  double flops = 0;
  /// Results it computes independently of each other (GEMM: M x N; element-wise: elements), all
  /// repetitions: the parallelism a device can spread over its cores.
  double outputs = 0;
  /// Bytes of every tensor the op reads or writes, each once: the least any device moves.
  double bytes = 0;
  /// One repetition as a GEMM (convolutions lowered by im2col); element-wise ops: M = the
  /// element count, N = K = 1.
  GemmShape gemm;
};

/// `op`'s work with words of `word_bytes`.
OpWork op_work(const Op& op, int word_bytes);

/// The share of `op` one of `devices` devices computes when the op is partitioned by rows over
/// them (He et al. Sec. 3.2 ran big ops on three FPGAs that way): a GEMM's M, a convolution's
/// batch and an element-wise op's elements divided, rounded up. Weight gradients of a
/// convolution split by batch would need a reduction after; it is not counted.
Op split_rows(const Op& op, int devices);

}  // namespace trainsim
