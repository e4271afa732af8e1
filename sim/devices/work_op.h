#pragma once
// An op built from nothing but an amount of work, as an execution trace gives it (a Chakra
// node's num_ops and tensor_size): the device that runs it then prices it with its own model
// (DeviceModel::cost), so a trace's work costs on every kind what that kind says it costs.
#include <cstdint>

#include "sim/workload/op.h"

namespace trainsim {

/// A GEMM of `macs` multiply-accumulates whose operands and result come to about `words`
/// words: M = N = n, K = macs / n^2, with n the larger root of n^2 + 2 macs / n = words (the
/// words an M x K by K x N product reads and writes, each once). Fewer words than a cube
/// (n = K) touches, 3 macs^(2/3), give the cube: a GEMM cannot move less. More words than an
/// outer product (K = 1) touches give the outer product: a GEMM of those MACs cannot move
/// more. Dimensions are whole numbers, M rounded so that M N K is as close to `macs` as they
/// allow. `macs` >= 1.
GemmShape gemm_for_work(double macs, double words);

/// The op a device prices for `macs` multiply-accumulates over `bytes` bytes in words of
/// `word_bytes`: gemm_for_work() if there are MACs; with none, a stream of the bytes (an
/// element-wise op that reads each word once, or writes it once if `write`, and computes
/// nothing). `bytes` >= 0, `macs` >= 0.
Op op_for_work(double macs, double bytes, int word_bytes, bool write = false);

}  // namespace trainsim
