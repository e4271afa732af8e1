// The dataflow-independent parts of an op's cost: footprints, buffer capacity, DRAM
// traffic and stalls, element-wise ops, energy pricing. Expected values are worked out by
// hand in the comments.
#include <catch2/catch.hpp>

#include "sim/accel/cost_model.h"
#include "sim/accel/energy.h"
#include "sim/accel/scalesim_memory.h"
#include "sim/accel/vector_unit.h"
#include "sim/core/error.h"

using namespace trainsim;

namespace {

AcceleratorSpec small_accel() {
  AcceleratorSpec a;
  a.name = "test";
  a.rows = 4;
  a.cols = 4;
  a.clock_ghz = 1.0;
  a.word_bits = 16;  // 2-byte words: 1 KiB = 512 words
  a.buffer.ifmap_kib = 1;
  a.buffer.filter_kib = 1;
  a.buffer.ofmap_kib = 1;
  a.dram.bandwidth_gbps = 8;  // 8 bytes per cycle at 1 GHz
  a.dram.latency_cycles = 10;
  a.vector_lanes = 4;
  a.energy.name = "unit";
  a.energy.unit = "pJ";
  a.energy.mac = {{8, 0.5}, {16, 2.0}, {32, 8.0}};
  a.energy.rf_read = {1.0, 16};
  a.energy.rf_write = {2.0, 16};
  a.energy.noc = {3.0, 16};
  a.energy.buffer_read = {{0.5, {4.0, 64}}, {2.0, {16.0, 64}}};
  a.energy.buffer_write = {{1.0, {8.0, 64}}};
  a.energy.dram_read = {64.0, 64};  // 1 pJ per bit
  a.energy.dram_write = {128.0, 64};
  a.energy.vector_op = 0.25;
  a.energy.leakage_per_pe_ns = 0.01;
  a.energy.leakage_per_kib_ns = 0.1;
  return a;
}

}  // namespace

TEST_CASE("Operand footprints are the layer's tensors, per training role", "[accel][memory]") {
  ConvShape c;
  c.batch = 2, c.channels = 3, c.height = 8, c.width = 8, c.filters = 4, c.kernel_h = 3,
  c.kernel_w = 3, c.pad = 1;  // output 2 x 4 x 8 x 8
  const std::int64_t x = 2 * 3 * 64, w = 4 * 3 * 9, y = 2 * 4 * 64;
  using A = std::array<std::int64_t, kNumOperands>;
  CHECK(operand_footprint_words(Op::make_conv(c, OpRole::kForward)) == A{x, w, y});
  CHECK(operand_footprint_words(Op::make_conv(c, OpRole::kBackwardData)) == A{y, w, x});
  CHECK(operand_footprint_words(Op::make_conv(c, OpRole::kBackwardWeight)) == A{x, y, w});
  CHECK(operand_footprint_words(Op::make_gemm({15, 16, 784})) == A{15 * 784, 784 * 16, 15 * 16});
}

TEST_CASE("GEMM lowering of conv roles follows SCALE-Sim's im2col convention", "[accel][op]") {
  ConvShape c;
  c.batch = 15, c.channels = 6, c.height = 14, c.width = 14, c.filters = 16, c.kernel_h = 5,
  c.kernel_w = 5;  // LeNet conv2: output 10x10
  CHECK(lower_to_gemm(Op::make_conv(c, OpRole::kForward)) == GemmShape{15 * 100, 16, 150});
  CHECK(lower_to_gemm(Op::make_conv(c, OpRole::kBackwardData)) == GemmShape{15 * 196, 6, 400});
  CHECK(lower_to_gemm(Op::make_conv(c, OpRole::kBackwardWeight)) == GemmShape{150, 16, 1500});
  // As a GEMM or as a convolution, each role executes the same MACs. Forward and
  // backward-weight of a stride-1 conv do the same work; backward-data of an unpadded conv
  // runs the transposed convolution over the zero-padded dY, so the hardware executes
  // B*H*W*C*R*S*F MACs (14x14 outputs, not 10x10), some of them on padding zeros.
  const std::int64_t fw = 15LL * 16 * 100 * 150, bwd_data = 15LL * 196 * 6 * 25 * 16;
  for (OpRole r : {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight}) {
    const Op op = Op::make_conv(c, r);
    const std::int64_t expected = r == OpRole::kBackwardData ? bwd_data : fw;
    CHECK(lower_to_conv(op).macs() == expected);
    CHECK(op.macs() == expected);
  }
}

TEST_CASE("DRAM traffic: read once when it fits, re-fetched when it does not", "[accel][memory]") {
  const AcceleratorSpec a = small_accel();  // 512 words per partition
  SECTION("everything fits") {
    const Op op = Op::make_gemm({10, 20, 30});  // A 300, B 600 words, C 200 words
    OpStats s;
    s.buffer.reads = {900, 600, 0};  // A read 3 times from the buffer
    s.buffer.writes = {0, 0, 200};
    // B (600 words) does not fit 512 words but is read only once: no re-fetch.
    account_dram(op, a, s);
    CHECK(s.dram_read_bytes[kIfmap] == 300 * 2);
    CHECK(s.dram_read_bytes[kFilter] == 600 * 2);
    CHECK(s.dram_write_bytes[kOfmap] == 200 * 2);
    CHECK(s.dram_read_bytes[kOfmap] == 0);
  }
  SECTION("an operand larger than its partition is partly re-fetched") {
    const Op op = Op::make_gemm({32, 8, 32});  // A = 1024 words > 512
    OpStats s;
    s.buffer.reads = {4096, 256, 0};  // A read 4 times
    s.buffer.writes = {0, 0, 256};
    account_dram(op, a, s);
    // 1024 + (4096 - 1024) * (1 - 512/1024) = 1024 + 1536 = 2560 words.
    CHECK(s.dram_read_bytes[kIfmap] == 2560 * 2);
  }
  SECTION("partial sums that spill cost a write and a read") {
    const Op op = Op::make_gemm({64, 16, 8});  // C = 1024 words > 512
    OpStats s;
    s.buffer.writes = {0, 0, 3072};  // three row folds write partial sums
    account_dram(op, a, s);
    // spill = (3072 - 1024) * 0.5 = 1024 words: written and read back once more.
    CHECK(s.dram_write_bytes[kOfmap] == (1024 + 1024) * 2);
    CHECK(s.dram_read_bytes[kOfmap] == 1024 * 2);
  }
}

TEST_CASE("Stalls are the DRAM time the compute cannot hide", "[accel][memory]") {
  const AcceleratorSpec a = small_accel();  // 8 B/cycle, latency 10
  CHECK(dram_cycles(0, a) == 0);
  CHECK(dram_cycles(80, a) == 10 + 10);
  CHECK(dram_cycles(81, a) == 10 + 11);
  OpStats s;
  s.dram_read_bytes = {800, 0, 0};  // 10 + 100 cycles
  s.compute_cycles = 60;
  account_stall(a, s);
  CHECK(s.stall_cycles == 50);
  s.compute_cycles = 500;
  account_stall(a, s);
  CHECK(s.stall_cycles == 0);
}

TEST_CASE("A buffer that cannot hold one tile is an error naming the partition",
          "[accel][memory]") {
  AcceleratorSpec a = small_accel();
  a.buffer.filter_kib = 0.01;  // 5 words < one 4x4 tile
  const Op op = Op::make_gemm({64, 64, 64});
  try {
    check_buffer_fits(op, a);
    FAIL("expected an error");
  } catch (const UserError& e) {
    CHECK(std::string(e.what()).find("filter") != std::string::npos);
    CHECK(std::string(e.what()).find("4x4") != std::string::npos);
  }
  // A tiny op needs less than a tile: min(footprint, tile).
  CHECK_NOTHROW(check_buffer_fits(Op::make_gemm({1, 1, 2}), a));
}

TEST_CASE("Element-wise ops run on the vector unit", "[accel][eltwise]") {
  const AcceleratorSpec a = small_accel();  // 4 lanes
  // SGD update of 1000 weights: read w and g, write w, 2 flops each.
  const Op op = Op::make_eltwise({1000, 2, 1, 2}, OpRole::kUpdate, 3);
  const OpStats s = elementwise_cost(op, a);
  CHECK(s.vector_ops == 2000);
  CHECK(s.compute_cycles == 500);
  CHECK(s.buffer.reads[kIfmap] == 2000);
  CHECK(s.buffer.writes[kOfmap] == 1000);
  CHECK(s.macs == 0);
}

TEST_CASE("Energy is priced from counts and the table", "[accel][energy]") {
  const AcceleratorSpec a = small_accel();
  OpStats s;
  s.macs = 100;
  s.compute_cycles = 50;
  s.stall_cycles = 10;
  s.rf.reads = {10, 20, 30};
  s.rf.writes = {0, 0, 5};
  s.noc.reads = {7, 0, 0};
  s.noc.writes = {0, 0, 3};
  s.buffer.reads = {4, 0, 0};
  s.buffer.writes = {0, 0, 2};
  s.dram_read_bytes = {16, 0, 0};
  s.dram_write_bytes = {0, 0, 8};
  s.vector_ops = 40;
  const EnergyBreakdown e = price(s, a);
  CHECK(e.mac == Approx(100 * 2.0));          // 16-bit MAC entry
  CHECK(e.rf == Approx(60 * 1.0 + 5 * 2.0));  // per 16-bit word
  CHECK(e.noc == Approx(10 * 3.0));
  // Buffer read: partition 1 KiB, halfway between (0.5 KiB, 4 pJ/64b) and (2 KiB, 16 pJ/64b)
  // at 1/3: 8 pJ per 64 bits = 2 pJ per 16-bit word. Write: 8 pJ/64b = 2 pJ per word.
  CHECK(e.buffer == Approx(4 * 2.0 + 2 * 2.0));
  CHECK(e.dram == Approx(16 * 8 * 1.0 + 8 * 8 * 2.0));
  CHECK(e.vector == Approx(40 * 0.25));
  // 60 cycles at 1 GHz = 60 ns x (16 PEs x 0.01 + 3 KiB x 0.1) pJ/ns
  CHECK(e.leakage == Approx(60 * (16 * 0.01 + 3 * 0.1)));
  // Leakage is power: at half the clock the same cycles take twice as long.
  AcceleratorSpec slow = a;
  slow.clock_ghz = 0.5;
  CHECK(price(s, slow).leakage == Approx(2 * e.leakage));
  CHECK(e.total() == Approx(e.mac + e.rf + e.noc + e.buffer + e.dram + e.vector + e.leakage));
  CHECK(e.accumulator == 0);
  // Re-pricing the same counts with another table changes only the energy.
  AcceleratorSpec b = a;
  b.energy.mac = {{32, 1.0}};
  CHECK(price(s, b).mac == Approx(100 * 1.0));
  b.energy.mac = {{8, 1.0}};
  CHECK_THROWS_AS(price(s, b), UserError);  // no entry wide enough for 16-bit words
  // An output accumulator: its accesses priced as an SRAM of its size and word width from
  // the buffer's table, and its KiB leaking as the buffer's do. 2,048 words of 32 bits =
  // 8 KiB, past the tables' last entries (read 16 pJ/64b, write 8 pJ/64b): 8 and 4 pJ per
  // 32-bit word.
  AcceleratorSpec c = a;
  c.accumulator.words = 2048;
  c.accumulator.bits = 32;
  s.acc.reads = {0, 0, 6};
  s.acc.writes = {0, 0, 7};
  const EnergyBreakdown ea = price(s, c);
  CHECK(ea.accumulator == Approx(6 * 8.0 + 7 * 4.0));
  CHECK(ea.buffer == e.buffer);
  CHECK(ea.leakage == Approx(60 * (16 * 0.01 + (3 + 8) * 0.1)));
  CHECK(ea.total() == Approx(e.total() + ea.accumulator + ea.leakage - e.leakage));
  CHECK(ea.memory() == Approx(ea.buffer + ea.accumulator + ea.dram));
  CHECK(price(s, a).accumulator == 0);  // none configured: nothing to price
}
