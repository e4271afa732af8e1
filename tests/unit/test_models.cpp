// The SystemC system (driver -> TLM -> accelerator -> DMA -> shared DRAM channel) with a
// deliberately simple dataflow, so these tests check the plumbing and timing rules, not a
// mapping: one PE row of `cols` MAC units, each cycle every unit does one MAC of the GEMM in
// row-major order of (i, j, k).
#include <catch2/catch.hpp>
#include <memory>

#include "models/accel_node.h"
#include "sim/accel/reference.h"
#include "sim/accel/scalesim_memory.h"
#include "sim/core/error.h"

using namespace trainsim;

namespace {

class LaneEngine final : public ArrayEngine {
 public:
  LaneEngine(GemmShape g, int lanes, OperandValues v) : g_(g), lanes_(lanes), v_(std::move(v)) {
    result_.assign(static_cast<std::size_t>(g.m * g.n), 0.0);
    stats_.pes = lanes;
  }
  bool step() override {
    const std::int64_t total = g_.macs();
    if (done_ >= total) return false;
    active_ = 0;
    for (int l = 0; l < lanes_ && done_ < total; ++l, ++done_, ++active_) {
      const std::int64_t i = done_ / (g_.n * g_.k), j = (done_ / g_.k) % g_.n, k = done_ % g_.k;
      result_[static_cast<std::size_t>(i * g_.n + j)] +=
          v_.a[static_cast<std::size_t>(i * g_.k + k)] *
          v_.b[static_cast<std::size_t>(k * g_.n + j)];
      ++stats_.macs;
      ++stats_.buffer.reads[kIfmap];
      ++stats_.buffer.reads[kFilter];
    }
    ++stats_.compute_cycles;
    if (done_ == total) stats_.buffer.writes[kOfmap] = g_.m * g_.n;
    return true;
  }
  const OpStats& stats() const override { return stats_; }
  const std::vector<double>& result() const override { return result_; }
  int active_pes() const override { return active_; }
  std::int64_t fold() const override { return 0; }

 private:
  GemmShape g_;
  int lanes_;
  OperandValues v_;
  std::vector<double> result_;
  OpStats stats_;
  std::int64_t done_ = 0;
  int active_ = 0;
};

class LaneDataflow final : public Dataflow {
 public:
  std::string name() const override { return "lanes"; }
  std::string description() const override { return "test: one MAC per lane per cycle"; }
  bool gemm_based() const override { return true; }
  OpStats evaluate(const Op& op, const AcceleratorSpec& acc) const override {
    const GemmShape g = lower_to_gemm(op);
    OpStats s;
    s.pes = acc.cols;
    const auto macs = static_cast<Count>(g.macs());
    s.macs = macs;
    s.compute_cycles = (g.macs() + acc.cols - 1) / acc.cols;
    s.buffer.reads = {macs, macs, 0};
    s.buffer.writes = {0, 0, static_cast<Count>(g.m * g.n)};
    return s;
  }
  std::unique_ptr<ArrayEngine> engine(const Op& op, const AcceleratorSpec& acc,
                                      OperandValues values) const override {
    return std::make_unique<LaneEngine>(lower_to_gemm(op), acc.cols, std::move(values));
  }
};

AcceleratorSpec accel(double bandwidth_gbps) {
  AcceleratorSpec a;
  a.name = "lanes4";
  a.rows = 1;
  a.cols = 4;
  a.word_bits = 16;
  a.dram.bandwidth_gbps = bandwidth_gbps;
  a.dram.latency_cycles = 5;
  a.energy.mac = {{16, 1.0}};
  return a;
}

const LaneDataflow kLanes;

}  // namespace

TEST_CASE("Fast fidelity through SystemC equals the closed form and advances time", "[models]") {
  const AcceleratorSpec a = accel(64);  // DRAM never the bottleneck here
  AcceleratorNode sys(a, kLanes, Fidelity::kFast);
  std::vector<OpRequest> batch(3);
  batch[0].op = Op::make_gemm({8, 4, 16});
  batch[1].op = Op::make_gemm({3, 5, 7});
  batch[2].op = Op::make_eltwise({100, 2, 1, 2}, OpRole::kUpdate);
  sys.run(batch);
  std::int64_t cycles = 0;
  for (const OpRequest& r : batch) {
    const OpStats expected = evaluate_op(r.op, a, kLanes);
    CHECK(r.stats.cycles() == expected.cycles());
    CHECK(r.stats.stall_cycles == expected.stall_cycles);
    CHECK(r.stats.dram_bytes() == expected.dram_bytes());
    cycles += expected.cycles();
  }
  CHECK(sys.cycles() == cycles);
  CHECK(sys.accelerator().totals().cycles() == cycles);
}

// The next three tests check the channel and port plumbing with the scalesim memory model,
// whose op-level streaming has the simplest closed form; the tiled model's tile-level
// timing has tests of its own below.
AcceleratorSpec scalesim_accel(double bandwidth_gbps) {
  AcceleratorSpec a = accel(bandwidth_gbps);
  a.memory = "scalesim";
  return a;
}

TEST_CASE("A slow DRAM stalls the array by exactly the closed-form amount", "[models]") {
  const AcceleratorSpec a = scalesim_accel(0.5);  // half a byte per cycle
  AcceleratorNode sys(a, kLanes, Fidelity::kFast);
  std::vector<OpRequest> batch(1);
  batch[0].op = Op::make_gemm({8, 4, 16});
  sys.run(batch);
  const OpStats expected = evaluate_op(batch[0].op, a, kLanes);
  REQUIRE(expected.stall_cycles > 0);
  CHECK(batch[0].stats.stall_cycles == expected.stall_cycles);
  CHECK(expected.cycles() == dram_cycles(expected.dram_bytes(), a));
}

TEST_CASE("Another unit's traffic on the shared DRAM channel delays the op", "[models]") {
  const AcceleratorSpec a = scalesim_accel(0.5);
  AcceleratorNode sys(a, kLanes, Fidelity::kFast);
  const OpStats alone = evaluate_op(Op::make_gemm({8, 4, 16}), a, kLanes);
  // Another unit books 1000 bytes (2000 cycles of channel time) right now.
  sys.dram().transfer(sc_core::sc_time_stamp(), 1000);
  std::vector<OpRequest> batch(1);
  batch[0].op = Op::make_gemm({8, 4, 16});
  sys.run(batch);
  CHECK(batch[0].stats.stall_cycles == alone.stall_cycles + 2000);
  CHECK(sys.dram().contention_cycles() == 2000);
}

TEST_CASE("A limited buffer port stalls by the closed form, and is shared between units",
          "[models]") {
  AcceleratorSpec a = scalesim_accel(64);
  a.buffer.port_words_per_cycle = 1;  // one word per cycle for every unit together
  AcceleratorNode sys(a, kLanes, Fidelity::kFast);
  std::vector<OpRequest> batch(1);
  batch[0].op = Op::make_gemm({8, 4, 16});
  const OpStats alone = evaluate_op(batch[0].op, a, kLanes);
  // 512 ifmap + 512 filter reads + 32 ofmap writes at one word per cycle: 1056 cycles of port
  // time against 128 cycles of compute.
  REQUIRE(buffer_port_cycles(alone, a) == 1056);
  CHECK(alone.stall_cycles == 1056 - 128);
  sys.run(batch);
  CHECK(batch[0].stats.stall_cycles == alone.stall_cycles);
  // Another unit's 500 words on the port now delay the op by 500 cycles.
  sys.buffer_port().transfer(sc_core::sc_time_stamp(), 500);
  sys.run(batch);
  CHECK(batch[0].stats.stall_cycles == alone.stall_cycles + 500);
  CHECK(sys.buffer_port().contention_cycles() == 500);
}

TEST_CASE("Cycle fidelity clocks the engine: same counts, real result, same time", "[models]") {
  const AcceleratorSpec a = accel(64);
  AcceleratorNode sys(a, kLanes, Fidelity::kCycle);
  std::vector<OpRequest> batch(2);
  batch[0].op = Op::make_gemm({5, 3, 6});
  batch[1].op = Op::make_gemm({2, 7, 3});
  const OperandValues v0 = make_operands(batch[0].op, true, 1);
  const OperandValues v1 = make_operands(batch[1].op, true, 2);
  batch[0].values = &v0;
  batch[1].values = &v1;
  sys.run(batch);
  std::int64_t cycles = 0;
  for (int i = 0; i < 2; ++i) {
    const OpStats fast = evaluate_op(batch[i].op, a, kLanes);
    CHECK(batch[i].stats.compute_cycles == fast.compute_cycles);
    CHECK(batch[i].stats.buffer == fast.buffer);
    CHECK(batch[i].stats.dram_bytes() == fast.dram_bytes());
    CHECK(batch[i].stats.stall_cycles == fast.stall_cycles);
    cycles += fast.cycles();
  }
  CHECK(batch[0].result == reference_gemm(batch[0].op.gemm, v0.a, v0.b));
  CHECK(batch[1].result == reference_gemm(batch[1].op.gemm, v1.a, v1.b));
  CHECK(sys.cycles() == cycles);
}

TEST_CASE("A tiled op stalls on a slow DRAM by the same amount in both fidelities", "[models]") {
  AcceleratorSpec a = accel(0.5);
  a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = 0.25;  // 128 words each
  const Op op = Op::make_gemm({24, 12, 20});
  const OpStats fast = evaluate_op(op, a, kLanes);
  REQUIRE(fast.stall_cycles > 0);
  REQUIRE(fast.mapping.back().second > 1);  // several buffer tiles
  const OperandValues v = make_operands(op, true, 3);
  for (Fidelity f : {Fidelity::kFast, Fidelity::kCycle}) {
    AcceleratorNode sys(a, kLanes, f);
    std::vector<OpRequest> batch(1);
    batch[0].op = op;
    batch[0].values = &v;
    sys.run(batch);
    INFO(fidelity_name(f));
    CHECK(batch[0].stats.compute_cycles == fast.compute_cycles);
    CHECK(batch[0].stats.stall_cycles == fast.stall_cycles);
    CHECK(batch[0].stats.dram_read_bytes == fast.dram_read_bytes);
    CHECK(batch[0].stats.dram_write_bytes == fast.dram_write_bytes);
    CHECK(batch[0].stats.buffer == fast.buffer);
    CHECK(sys.cycles() == fast.cycles());
    if (f == Fidelity::kCycle) CHECK(batch[0].result == reference_gemm(op.gemm, v.a, v.b));
  }
}

TEST_CASE("In the cycle fidelity another unit's transfer delays a tiled op's first tile",
          "[models]") {
  AcceleratorSpec a = accel(0.5);
  a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = 0.25;
  const Op op = Op::make_gemm({24, 12, 20});
  const OpStats alone = evaluate_op(op, a, kLanes);
  const OperandValues v = make_operands(op, true, 3);
  AcceleratorNode sys(a, kLanes, Fidelity::kCycle);
  // 1000 bytes hold the channel for 2000 cycles: the first fetch waits for them, and the
  // rest of the schedule, which never finds the channel busy again, shifts as a whole.
  sys.dram().transfer(sc_core::sc_time_stamp(), 1000);
  std::vector<OpRequest> batch(1);
  batch[0].op = op;
  batch[0].values = &v;
  sys.run(batch);
  CHECK(batch[0].stats.stall_cycles == alone.stall_cycles + 2000);
}

TEST_CASE("An error inside the simulation reaches the caller as a UserError", "[models]") {
  AcceleratorSpec a = accel(64);
  a.buffer.filter_kib = 0.001;  // cannot hold a tile
  AcceleratorNode sys(a, kLanes, Fidelity::kFast);
  std::vector<OpRequest> batch(1);
  batch[0].op = Op::make_gemm({64, 64, 64});
  CHECK_THROWS_AS(sys.run(batch), UserError);
  // The kernel is still usable afterwards: the failed node's driver went back to waiting,
  // and another node runs.
  AcceleratorNode other(accel(64), kLanes, Fidelity::kFast);
  batch[0].op = Op::make_gemm({4, 4, 4});
  CHECK_NOTHROW(other.run(batch));
}

TEST_CASE("Accelerator nodes are independent: each keeps its own clock and channels", "[models]") {
  // Nothing in a node is process-wide: two live side by side, one after another, and one
  // built after another was destroyed, each count only their own runs.
  std::vector<OpRequest> batch(1);
  batch[0].op = Op::make_gemm({64, 64, 64});
  auto first = std::make_unique<AcceleratorNode>(accel(64), kLanes, Fidelity::kFast);
  AcceleratorNode second(accel(32), kLanes, Fidelity::kFast);
  first->run(batch);
  const std::int64_t on_first = batch[0].stats.cycles();
  CHECK(first->cycles() == on_first);
  CHECK(second.cycles() == 0);
  const std::int64_t first_bytes = first->dram().bytes_moved();
  CHECK(first_bytes > 0);
  CHECK(second.dram().bytes_moved() == 0);
  second.run(batch);
  const std::int64_t on_second = batch[0].stats.cycles();
  CHECK(on_second > on_first);  // a quarter of the PEs
  CHECK(second.cycles() == on_second);
  CHECK(first->cycles() == on_first);  // the kernel's time moved on; the node's did not
  CHECK(first->dram().bytes_moved() == first_bytes);
  first.reset();
  second.run(batch);
  CHECK(second.cycles() == 2 * on_second);
  AcceleratorNode third(accel(64), kLanes, Fidelity::kFast);
  third.run(batch);
  CHECK(third.cycles() == on_first);
}
