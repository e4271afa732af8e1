// Lower bounds on DRAM traffic (mapping/bounds.h, `trainsim layer --bound`):
//   * by hand: the compulsory traffic and the GEMM bound 2 M N K / sqrt(S) - 2 S, and a
//     convolution's input reuse R;
//   * every mapping respects them: random ops and buffers, the searched mapping and random
//     ones;
//   * every pass of every VGG-16 convolution at CIFAR-10 sizes, batch 32, on eyeriss_like
//     with row stationary moves at least the bound (docs/accelerator.md has the ratios).
#include <catch2/catch.hpp>

#include <cmath>

#include "dataflows/registry.h"
#include "mapping/bounds.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/accel/tiled_memory.h"
#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/core/rng.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"

using namespace trainsim;

namespace {

std::int64_t pick(Rng& rng, std::int64_t lo, std::int64_t hi) {
  return lo + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(hi - lo + 1)));
}

std::int64_t buffer_words(const AcceleratorSpec& a) {
  const BufferCapacity c = BufferCapacity::of(a);
  return c.shared ? c.total_words
                  : c.partition_words[0] + c.partition_words[1] + c.partition_words[2];
}

}  // namespace

TEST_CASE("Traffic bounds by hand", "[memory][bound]") {
  // A 512^3 GEMM at a 1,024-word buffer: 2 * 512^3 / 32 - 2,048 = 8,386,560 words, far above
  // the 786,432 words of its three matrices.
  Op gemm = Op::make_gemm({512, 512, 512});
  const TrafficBound g = traffic_bound(make_problem(gemm, true), 1024);
  CHECK(g.compulsory_words == 3 * 512 * 512);
  CHECK(g.stored_macs == 512LL * 512 * 512);
  CHECK(g.reuse == 1);
  CHECK(g.communication_words == Approx(2.0 * 512 * 512 * 512 / 32 - 2048));
  CHECK(g.words() == g.communication_words);
  // A buffer that holds the GEMM: only the compulsory traffic.
  CHECK(traffic_bound(make_problem(gemm, true), 1 << 22).words() == 3 * 512 * 512);

  // 3x3 convolution, stride 1, padding 1: an interior input word falls into 9 windows.
  ConvShape c;
  c.batch = 2, c.channels = 4, c.height = c.width = 8, c.filters = 5;
  c.kernel_h = c.kernel_w = 3, c.pad = 1;
  const TrafficBound s1 =
      traffic_bound(make_problem(Op::make_conv(c, OpRole::kForward), false), 16);
  CHECK(s1.reuse == 9);
  // Pairs (output row, kernel row) that read a stored row: 8 * 3 minus the two at the
  // padded edges.
  CHECK(s1.stored_macs == 2 * 5 * 4 * 22 * 22);
  CHECK(s1.compulsory_words == 2 * 4 * 64 + 5 * 4 * 9 + 2 * 5 * 64);
  CHECK(s1.communication_words == Approx(2.0 * s1.stored_macs / std::sqrt(9.0 * 16) - 32));
  // Stride 2: a word falls into at most ceil(3 / 2) = 2 windows per axis.
  c.stride = 2;
  CHECK(traffic_bound(make_problem(Op::make_conv(c, OpRole::kForward), false), 16).reuse == 4);
}

TEST_CASE("Every mapping moves at least the traffic bounds", "[memory][bound]") {
  Rng rng(51);
  int above_compulsory = 0;
  for (int i = 0; i < 600; ++i) {
    const Dataflow& df =
        dataflow_or_throw(std::array<const char*, 4>{"ws", "os", "is", "rs"}[rng.below(4)]);
    Op op;
    if (rng.below(3) == 0) {
      op = Op::make_gemm({pick(rng, 1, 64), pick(rng, 1, 48), pick(rng, 1, 96)});
    } else {
      ConvShape c;
      c.batch = pick(rng, 1, 3);
      c.channels = pick(rng, 1, 12);
      c.filters = pick(rng, 1, 12);
      c.kernel_h = pick(rng, 1, 3);
      c.kernel_w = pick(rng, 1, 3);
      c.stride = pick(rng, 1, 2);
      c.pad = pick(rng, 0, std::min(c.kernel_h, c.kernel_w) - 1);
      c.height = pick(rng, c.kernel_h, 12);
      c.width = pick(rng, c.kernel_w, 12);
      const OpRole roles[] = {OpRole::kForward, OpRole::kBackwardData, OpRole::kBackwardWeight};
      op = Op::make_conv(c, roles[rng.below(3)]);
    }
    op.word_bits = 16;
    AcceleratorSpec a;
    a.rows = static_cast<int>(pick(rng, 2, 6));
    a.cols = static_cast<int>(pick(rng, 2, 6));
    a.rf = {6, 48, 8};
    a.buffer.shared = rng.below(2) == 0;
    a.buffer.kib = 0.1 + 0.05 * static_cast<double>(rng.below(40));
    a.buffer.ifmap_kib = a.buffer.filter_kib = a.buffer.ofmap_kib = a.buffer.kib / 3;
    a.energy.mac = {{16, 1.0}};
    a.mapping.objective = static_cast<MappingObjective>(rng.below(3));
    const NestProblem p = make_problem(op, df.gemm_based());
    const TrafficBound b = traffic_bound(p, buffer_words(a));
    INFO(df.name() << " " << op.describe() << " " << a.buffer.kib << " KiB");
    try {
      const SearchResult r = tiled_mapping(op, a, df);
      CHECK(static_cast<double>(r.cost.dram_words()) >= b.words());
      above_compulsory += b.communication_words > static_cast<double>(b.compulsory_words);
    } catch (const UserError&) {
      continue;  // not even the smallest tile fits
    }
    // Any mapping that fits.
    BufferMapping m;
    for (int d = 0; d < kNumDims; ++d) m.tile[d] = pick(rng, 1, p.extent[d]);
    const MappingCost c = analyze_mapping(p, m, OperandResidency{}, BufferCapacity::of(a));
    if (c.fits) CHECK(static_cast<double>(c.dram_words()) >= b.words());
  }
  CHECK(above_compulsory >= 40);  // the communication bound binds in many of them
}

TEST_CASE("VGG-16 CIFAR-10 convolutions on eyeriss_like move at least the bound in every pass",
          "[memory][bound][validation]") {
  const AcceleratorSpec a = load_accelerator("eyeriss_like");
  const Dataflow& rs = dataflow_or_throw("rs");
  const NetworkSpec spec = load_network(configs_root() + "/networks/vgg16_cifar10.yaml");
  const NetShape net(spec);
  const auto ops = lower_network(net, 32, a.word_bits, OptimizerSpec{});
  int passes = 0;
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (net.layer_spec(i).type != "conv2d") continue;
    for (const auto& op : {ops[i].forward, ops[i].backward_data, ops[i].backward_weight}) {
      if (!op) continue;
      ++passes;
      const TrafficBound b = traffic_bound(make_problem(*op, false), buffer_words(a));
      const double achieved = static_cast<double>(evaluate_op(*op, a, rs).dram_bytes()) / 2;
      INFO(op->describe() << ": " << achieved << " words, bound " << b.words() << " (compulsory "
                          << b.compulsory_words << ", communication " << b.communication_words
                          << ")");
      CHECK(achieved >= b.words());
    }
  }
  CHECK(passes == 13 * 3);
}

TEST_CASE("Every op's stats carry its compulsory DRAM traffic, which no mapping undercuts",
          "[memory][bound]") {
  const AcceleratorSpec acc = load_accelerator("adagp_ws180");
  const std::int64_t wb = acc.word_bytes();
  // A GEMM: its three matrices once, on every dataflow.
  const Op gemm = Op::make_gemm({96, 200, 64});
  for (const Dataflow* df : dataflows()) {
    INFO(df->name());
    const OpStats s = evaluate_op(gemm, acc, *df);
    CHECK(s.compulsory_dram_bytes == static_cast<Count>((96 * 64 + 64 * 200 + 96 * 200) * wb));
    CHECK(s.dram_bytes() + s.onchip_read_bytes + s.skipped_write_bytes >= s.compulsory_dram_bytes);
  }
  // Grouped: each group's operands, one after another.
  Op grouped = gemm;
  grouped.repeat = 3;
  CHECK(evaluate_op(grouped, acc, *dataflows().front()).compulsory_dram_bytes ==
        3 * evaluate_op(gemm, acc, *dataflows().front()).compulsory_dram_bytes);
  // An element-wise op: what it reads and writes, nothing when it stays in the buffer.
  ElementwiseShape shape;
  shape.elements = 1000, shape.reads = 2, shape.writes = 1;
  Op e = Op::make_eltwise(shape, OpRole::kUpdate);
  CHECK(compulsory_dram_bytes(e, acc, *dataflows().front()) == static_cast<Count>(3000 * wb));
  e.eltwise.dram = false;
  CHECK(compulsory_dram_bytes(e, acc, *dataflows().front()) == 0);
}
