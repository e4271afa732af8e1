#include "sim/accel/scalesim_memory.h"

#include <algorithm>
#include <cmath>

#include "sim/accel/fast_context.h"
#include "sim/accel/vector_unit.h"
#include "sim/core/error.h"

namespace trainsim {

std::array<std::int64_t, kNumOperands> operand_footprint_words(const Op& op) {
  if (op.kind == OpKind::kGemm) {
    const GemmShape& g = op.gemm;
    return {g.m * g.k, g.k * g.n, g.m * g.n};
  }
  if (op.kind == OpKind::kElementwise) {
    if (!op.eltwise.dram) return {0, 0, 0};
    const std::int64_t e = op.eltwise.elements;
    return {e * op.eltwise.reads, 0, e * op.eltwise.writes};
  }
  const ConvShape& c = op.conv;
  const std::int64_t x = c.batch * c.channels * c.height * c.width;
  const std::int64_t w = c.filters * c.channels * c.kernel_h * c.kernel_w;
  const std::int64_t y = c.batch * c.filters * c.out_h() * c.out_w();
  switch (conv_pass(op.role)) {
    case OpRole::kBackwardData:
      return {y, w, x};  // dY, W -> dX
    case OpRole::kBackwardWeight:
      return {x, y, w};  // X, dY -> dW
    default:
      return {x, w, y};
  }
}

std::array<std::int64_t, kNumOperands> partition_words(const AcceleratorSpec& acc) {
  const double words_per_kib = 1024.0 / static_cast<double>(acc.word_bytes());
  auto words = [&](double kib) {
    return static_cast<std::int64_t>(std::floor(kib * words_per_kib));
  };
  if (acc.buffer.shared) {
    const std::int64_t third = words(acc.buffer.kib / 3);
    return {third, third, third};
  }
  return {words(acc.buffer.ifmap_kib), words(acc.buffer.filter_kib), words(acc.buffer.ofmap_kib)};
}

void check_buffer_fits(const Op& op, const AcceleratorSpec& acc) {
  const auto foot = operand_footprint_words(op);
  const auto cap = partition_words(acc);
  for (int o = 0; o < kNumOperands; ++o) {
    const std::int64_t need = std::min<std::int64_t>(foot[o], acc.pes());
    if (cap[o] < need)
      throw UserError("accelerator '" + acc.name + "': buffer partition " + operand_name(o) +
                      " holds " + std::to_string(cap[o]) + " words, but one " +
                      std::to_string(acc.rows) + "x" + std::to_string(acc.cols) + " tile of " +
                      op.describe() + " needs " + std::to_string(need));
  }
}

namespace {
// Re-reads that miss a partition of `cap` words for an operand of `foot` unique words.
std::int64_t refetch_words(std::int64_t foot, std::int64_t reads, std::int64_t cap) {
  if (foot <= cap || reads <= foot) return 0;
  const double miss = 1.0 - static_cast<double>(cap) / static_cast<double>(foot);
  return static_cast<std::int64_t>(std::llround(static_cast<double>(reads - foot) * miss));
}
}  // namespace

void account_dram(const Op& op, const AcceleratorSpec& acc, OpStats& s) {
  const auto foot = operand_footprint_words(op);
  const auto cap = partition_words(acc);
  const std::int64_t wb = acc.word_bytes();
  for (int o : {kIfmap, kFilter}) {
    const std::int64_t words = foot[o] + refetch_words(foot[o], s.buffer.reads[o], cap[o]);
    s.dram_read_bytes[o] = words * wb;
  }
  if (op.resident_filter) s.dram_read_bytes[kFilter] = 0;
  const std::int64_t spill = refetch_words(foot[kOfmap], s.buffer.writes[kOfmap], cap[kOfmap]);
  s.dram_write_bytes[kOfmap] = (foot[kOfmap] + spill) * wb;
  s.dram_read_bytes[kOfmap] = spill * wb;
}

std::int64_t dram_cycles(std::int64_t bytes, const AcceleratorSpec& acc) {
  if (bytes == 0) return 0;
  return acc.dram.latency_cycles + dram_occupancy(bytes, acc);
}

std::int64_t buffer_port_cycles(const OpStats& s, const AcceleratorSpec& acc) {
  const double port = acc.buffer.port_words_per_cycle;
  if (port <= 0) return 0;
  const auto words = static_cast<double>(s.buffer.total_reads() + s.buffer.total_writes());
  return checked_ceil(words / port, {"accelerator.buffer.port_words_per_cycle", port,
                                     "the buffer accesses of an op", "cycles"});
}

void account_stall(const AcceleratorSpec& acc, OpStats& s) {
  const std::int64_t memory =
      std::max(dram_cycles(s.dram_bytes(), acc), buffer_port_cycles(s, acc));
  s.stall_cycles = std::max<std::int64_t>(0, memory - s.compute_cycles);
}

}  // namespace trainsim

namespace trainsim {
namespace {

// SCALE-Sim's assumptions: each op alone, operands streamed from DRAM while the array
// computes (the DMA's traffic is planned from the closed-form buffer accesses, so it can be
// booked at the op's start), results written back.
class ScaleSimMemory final : public MemoryModel {
 public:
  std::string name() const override { return "scalesim"; }
  std::string description() const override {
    return "SCALE-Sim's: each op alone, operands streamed from DRAM alongside the array, "
           "re-fetched as the partitions miss, results written back; no tiling, no reuse "
           "between ops";
  }
  bool plans_residency() const override { return false; }

  OpStats run(const Op& op, const AcceleratorSpec& acc, const Dataflow& df,
              ExecutionContext& ctx) const override {
    check_buffer_fits(op, acc);
    OpStats planned = df.evaluate(op, acc);
    account_dram(op, acc, planned);
    const std::int64_t done = ctx.transfer(planned.dram_bytes());
    OpStats s = ctx.compute(op, nullptr, nullptr);  // a copy: the context reuses its own
    s.dram_read_bytes = planned.dram_read_bytes;
    s.dram_write_bytes = planned.dram_write_bytes;
    ctx.wait_until(done);
    return s;
  }

  OpStats run_elementwise(const Op& op, const AcceleratorSpec& acc,
                          ExecutionContext& ctx) const override {
    OpStats s = elementwise_cost(op, acc);
    account_dram(op, acc, s);
    const std::int64_t done = ctx.transfer(s.dram_bytes());
    ctx.busy(s.compute_cycles);
    ctx.wait_until(done);
    return s;
  }
};

}  // namespace

const MemoryModel& scalesim_memory() {
  static const ScaleSimMemory instance;
  return instance;
}

}  // namespace trainsim
