// A SCALE-Sim topology as a network (sim/interop/scalesim_inputs.h): every row a branch from a
// source to the sink, with the row's three training ops and its update, and nothing for the
// sources and the sink (no loss op).
#include <catch2/catch.hpp>

#include <fstream>

#include "sim/interop/scalesim_inputs.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/step_order.h"

using namespace trainsim;

namespace {

std::string write_topology(const std::string& name, const std::string& text) {
  const std::string path = std::string(TRAINSIM_TEST_TMP) + "/" + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("A SCALE-Sim topology is a network of independent rows", "[interop][scalesim]") {
  const NetworkSpec conv = scalesim_topology_network(
      write_topology("topology_conv.csv",
                     "Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter Width, "
                     "Channels, Num Filter, Strides,\n"
                     "a, 10, 12, 3, 5, 4, 8, 2,\nb, 7, 7, 1, 1, 16, 2, 1,\n"));
  const NetworkSpec gemm = scalesim_topology_network(
      write_topology("topology_gemm.csv", "Layer, M, N, K,\ng, 6, 5, 7,\n"));
  const OptimizerSpec sgd;

  SECTION("conv rows") {
    REQUIRE(conv.layers.size() == 5);  // a.ifmap, a, b.ifmap, b, sink
    const NetShape net(conv);
    CHECK(net.ends_in_sink());
    CHECK_FALSE(net.reads_input());
    CHECK(net.layer(1).in == Shape{4, 10, 12});
    CHECK(net.layer(1).out == Shape{8, 4, 4});    // (10 - 3) / 2 + 1, (12 - 5) / 2 + 1
    CHECK(net.layer(1).params == 8 * 4 * 3 * 5);  // no bias
    CHECK(net.layer(4).inputs == std::vector<int>{1, 3});
    for (std::size_t row : {1, 3}) {
      CHECK(net.needs_input_grad(row));  // its source wants the gradient
      CHECK(net.layer(row).consumers == 1);
    }
    const std::vector<LayerOps> ops = lower_network(net, 3, 8, sgd);
    for (std::size_t l : {0, 2, 4}) {  // the sources and the sink: nothing
      CHECK_FALSE(ops[l].forward);
      CHECK_FALSE(ops[l].backward_data);
      CHECK_FALSE(ops[l].loss_grad);
      CHECK_FALSE(ops[l].update);
    }
    ConvShape a;
    a.batch = 3, a.channels = 4, a.height = 10, a.width = 12, a.filters = 8;
    a.kernel_h = 3, a.kernel_w = 5, a.stride = 2;
    CHECK(ops[1].forward->conv == a);
    CHECK(ops[1].backward_data->role == OpRole::kBackwardData);
    CHECK(ops[1].backward_weight->role == OpRole::kBackwardWeight);
    CHECK(ops[1].update);
    // The step: every row's backward-weight and backward-data, and a loss event that issues
    // nothing (the sink's outputs' gradients come from outside).
    int data = 0, weight = 0;
    for (const StepEvent& e : backward_events(net)) {
      if (e.slot == LayerOpSlot::kLossGrad) CHECK_FALSE(slot_op(ops[e.layer], e.slot));
      data += e.slot == LayerOpSlot::kBackwardData;
      weight += e.slot == LayerOpSlot::kBackwardWeight;
    }
    CHECK(data == 2);
    CHECK(weight == 2);
  }

  SECTION("a GEMM row is a 1x1 convolution whose training GEMMs are the GEMM's") {
    const NetShape net(gemm);
    CHECK(net.layer(0).out == Shape{7, 6, 1});  // A = M x K as K x M x 1
    const std::vector<LayerOps> ops = lower_network(net, 2, 8, sgd);
    // The batch multiplies M.
    CHECK(lower_to_gemm(*ops[1].forward) == GemmShape{12, 5, 7});
    CHECK(lower_to_gemm(*ops[1].backward_data) == GemmShape{12, 7, 5});    // dA = dY B^T
    CHECK(lower_to_gemm(*ops[1].backward_weight) == GemmShape{7, 5, 12});  // dB = A^T dY
  }
}
