// The tiled memory model on a training workload: every convolution of VGG-13 (CIFAR-10
// shapes, batch 32) in all three passes on adagp_ws180 (12x15 WS, one 108 KiB buffer).
//   * mapped for the least energy (`mapping.objective: energy`), DRAM traffic within 3x of
//     the compulsory traffic (each operand once) for the forward and backward-data passes;
//     the backward-weight pass of the 8x8x256 layer needs 3.2x: its 590 K-word weight
//     gradient is 10x the buffer, so the output tiles that fit force dY and X to be re-read
//     several times (docs/validation.md), and the bound is 3.5x;
//   * mapped for time (the default), the array waits for DRAM less than 5% of the time in
//     every op (the old per-op model stalled 60-65% of VGG training on DRAM), and no op takes
//     longer than mapped for energy (beyond the time objective's 0.5% tolerance), nor moves
//     less DRAM traffic than the compulsory.
#include <catch2/catch.hpp>

#include "dataflows/registry.h"
#include "mapping/problem.h"
#include "mapping/search.h"
#include "sim/accel/accelerator_config.h"
#include "sim/accel/cost_model.h"
#include "sim/core/paths.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"

using namespace trainsim;

TEST_CASE("VGG-13 training convs on adagp_ws180: DRAM within 3x of compulsory, few stalls",
          "[memory][validation][vgg]") {
  const AcceleratorSpec a = load_accelerator("adagp_ws180");
  const AcceleratorSpec frugal = load_accelerator("adagp_ws180", {"mapping.objective=energy"});
  const Dataflow& ws = dataflow_or_throw("ws");
  const NetworkSpec spec = load_network(configs_root() + "/networks/vgg13_cifar10.yaml");
  const NetShape net(spec);
  const auto ops = lower_network(net, 32, a.word_bits, OptimizerSpec{});
  int convs = 0;
  double worst = 0;
  for (std::size_t i = 0; i < net.size(); ++i) {
    if (net.layer_spec(i).type != "conv2d") continue;
    ++convs;
    for (const auto& op : {ops[i].forward, ops[i].backward_data, ops[i].backward_weight}) {
      if (!op) continue;
      const OpStats s = evaluate_op(*op, a, ws), e = evaluate_op(*op, frugal, ws);
      const auto total = make_problem(*op, true).total_words();
      const double compulsory =
          static_cast<double>(a.word_bytes() * (total[0] + total[1] + total[2]));
      const double ratio = static_cast<double>(e.dram_bytes()) / compulsory;
      INFO(op->describe() << ": " << ratio << "x the compulsory traffic mapped for energy; mapped "
                          << "for time, " << s.dram_bytes() / compulsory << "x and stalls "
                          << s.stall_cycles << " of " << s.cycles() << " cycles (for energy "
                          << e.cycles() << ")");
      CHECK(ratio >= 1.0);
      CHECK(ratio <= (op->role == OpRole::kBackwardWeight ? 3.5 : 3.0));
      CHECK(static_cast<double>(s.dram_bytes()) >= compulsory);
      CHECK(s.stall_cycles < 0.05 * static_cast<double>(s.cycles()));
      CHECK(static_cast<double>(s.cycles()) <=
            (1 + kTimeTolerance) * static_cast<double>(e.cycles()) + 1);
      worst = std::max(worst, ratio);
    }
  }
  CHECK(convs == 10);
  WARN("VGG-13 convs mapped for energy: worst DRAM traffic " << worst
                                                             << "x the compulsory traffic");
}
