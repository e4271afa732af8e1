// Characterization (sim/hype/characterize.h): on a hand DAG with devices of given figures, the
// auto thresholds, candidates under "and" and "or", fast ops, and a small op offloaded into
// its slack only while its transfers fit; on LeNet-5 with the shipped V100 and S10, the
// properties every characterization has; BERT-Large's and DCGAN's ops priced on both.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <memory>

#include "sim/core/paths.h"
#include "sim/devices/device_config.h"
#include "sim/hype/characterize.h"
#include "sim/workload/network_config.h"

using namespace trainsim;

namespace {

// A device whose cost of an op is a row of given figures, looked up by the op's layer.
struct Figures {
  double ms, gbps, ipc;
};
class TableDevice final : public DeviceModel {
 public:
  explicit TableDevice(std::map<int, Figures> rows) : rows_(std::move(rows)) {}
  const std::string& name() const override { return name_; }
  const std::string& kind() const override { return name_; }
  double static_w() const override { return 0; }
  int word_bytes() const override { return 4; }  // unused: its costs come from the table
  OpCost cost(const Op& op) override {
    const Figures& f = rows_.at(op.layer);
    OpCost c;
    c.time_s = f.ms * 1e-3;
    c.bandwidth_gbps = f.gbps;
    c.ipc = f.ipc;
    return c;
  }

 private:
  std::string name_ = "table";
  std::map<int, Figures> rows_;
};

int add(OpDag& dag, int layer, PaperOpType type) {
  DagNode n;
  n.op = Op::make_gemm({64, 64, 64}, OpRole::kForward, layer);
  n.type = type;
  return dag.add_node(n);
}

// The shipped V100 and three S10s in their roles.
struct ShippedDevices {
  ShippedDevices() {
    roles.gpu = gpu.get();
    roles.offload = fpga.get();
    roles.offload_count = 3;
  }
  std::unique_ptr<DeviceModel> gpu = load_device("v100")->build();
  std::unique_ptr<DeviceModel> fpga = load_device("s10_gx2500")->build();
  CharacterizeDevices roles;
};

}  // namespace

TEST_CASE("Characterization of a hand DAG", "[hype][characterize]") {
  // 0 -> {1, 2, 3} -> 4: the Conv2D (1) is the critical path, the small ops 2 and 3 have
  // 4 - 0.5 = 3.5 ms of slack.
  OpDag dag;
  add(dag, 0, PaperOpType::kMatMul);
  add(dag, 1, PaperOpType::kConv2D);
  add(dag, 2, PaperOpType::kRelu);
  add(dag, 3, PaperOpType::kMul);
  add(dag, 4, PaperOpType::kMatMul);
  for (int mid : {1, 2, 3}) {
    dag.add_edge(0, mid, EdgeData::kTensor, 1000000);
    dag.add_edge(mid, 4, EdgeData::kTensor, 1000000);
  }
  TableDevice gpu(
      {{0, {1, 40, 5}}, {1, {4, 50, 3}}, {2, {0.5, 30, 1}}, {3, {0.5, 100, 1}}, {4, {2, 200, 6}}});
  TableDevice fpga({{0, {0.5, 0, NAN}},
                    {1, {3, 0, NAN}},
                    {2, {2, 0, NAN}},
                    {3, {0.3, 0, NAN}},
                    {4, {3, 0, NAN}}});
  CharacterizeDevices d;
  d.gpu = &gpu;
  d.offload = &fpga;
  d.link_gbps = 16;

  // The MatMul and Conv2D the FPGA wins (0, 1) set the thresholds; the faster GPU MatMul (4)
  // and the small ops do not.
  const OffloadThresholds t = auto_thresholds(dag, d, ThresholdCombine::kAnd);
  CHECK(t.bandwidth_gbps == 50);
  CHECK(t.ipc == 5);

  const Characterization c = characterize(dag, d, t);
  CHECK(c.gpu_makespan_s == Approx(7e-3));
  CHECK(c.ops[2].slack_s == Approx(3.5e-3));
  CHECK(c.ops[1].slack_s == 0);
  // Two edges of 1 MB each way, over two 16 GB/s hops.
  CHECK(c.ops[2].transfer_s == Approx(2 * 2e6 / 16e9));
  auto flags = [&](const Characterization& x, bool OpCharacter::*f) {
    std::vector<int> on;
    for (std::size_t i = 0; i < x.ops.size(); ++i)
      if (x.ops[i].*f) on.push_back(static_cast<int>(i));
    return on;
  };
  CHECK(flags(c, &OpCharacter::candidate) == std::vector<int>{0, 1, 2});
  CHECK(flags(c, &OpCharacter::fast) == std::vector<int>{0, 1});
  // Relu: 2 ms on the FPGA + 0.25 ms of transfers <= 0.5 ms + 3.5 ms of slack.
  CHECK(flags(c, &OpCharacter::slack_eligible) == std::vector<int>{2});

  // "or": Mul (bandwidth 100 over, IPC 1 under) becomes a candidate, and is fast.
  OffloadThresholds any = t;
  any.combine = ThresholdCombine::kOr;
  const Characterization o = characterize(dag, d, any);
  CHECK(flags(o, &OpCharacter::candidate) == std::vector<int>{0, 1, 2, 3});
  CHECK(flags(o, &OpCharacter::fast) == std::vector<int>{0, 1, 3});

  // A slow link: the Relu's 2 ms + 4 ms of transfers exceed its slack.
  d.link_gbps = 1;
  CHECK(characterize(dag, d, t).ops[2].slack_eligible == false);
  ThresholdCombine parsed;
  CHECK(parse_threshold_combine("or", parsed));
  CHECK(parsed == ThresholdCombine::kOr);
  CHECK_FALSE(parse_threshold_combine("xor", parsed));
}

TEST_CASE("Characterization of LeNet-5 on a V100 and three S10s", "[hype][characterize]") {
  const NetworkSpec spec = load_network(configs_root() + "/networks/lenet5.yaml");
  const NetShape net(spec);
  const OpDag dag = build_op_dag(net, 256, 32, OptimizerSpec{});
  ShippedDevices shipped;
  const CharacterizeDevices& d = shipped.roles;
  const OffloadThresholds t = auto_thresholds(dag, d, ThresholdCombine::kAnd);
  const Characterization c = characterize(dag, d, t);
  REQUIRE(static_cast<int>(c.ops.size()) == dag.size());
  int winners = 0;
  for (int i = 0; i < dag.size(); ++i) {
    const OpCharacter& o = c.ops[static_cast<std::size_t>(i)];
    const PaperOpType type = dag.node(i).type;
    INFO(i << " " << paper_op_type_name(type) << ": gpu " << o.gpu.time_s << " s, "
           << o.gpu.bandwidth_gbps << " GB/s, IPC " << o.gpu.ipc << "; offload " << o.offload.time_s
           << " s on " << o.offload_devices);
    CHECK(o.gpu.time_s > 0);
    CHECK(o.offload_devices == (big_offload_type(type) ? 3 : 1));
    CHECK(o.slack_s >= 0);
    CHECK(o.transfer_s > 0);
    // Fast and slack-eligible ops are candidates; slack-eligible ones are small, not fast.
    if (o.fast) CHECK(o.candidate);
    if (o.slack_eligible) CHECK((o.candidate && !o.fast && !big_offload_type(type)));
    // Every MatMul or Conv2D the FPGA wins sets, or is within, the thresholds.
    const bool deriving = type == PaperOpType::kMatMul || type == PaperOpType::kConv2D;
    if (deriving && o.offload.time_s < o.gpu.time_s) {
      ++winners;
      CHECK(o.candidate);
      CHECK(o.fast);
    }
  }
  // The thresholds are the figures of winning MatMul / Conv2D ops, or 0 if there are none.
  if (winners == 0) CHECK((t.bandwidth_gbps == 0 && t.ipc == 0));
  // "or" offloads a superset of "and".
  OffloadThresholds any = t;
  any.combine = ThresholdCombine::kOr;
  const Characterization o = characterize(dag, d, any);
  for (std::size_t i = 0; i < c.ops.size(); ++i)
    if (c.ops[i].candidate) CHECK(o.ops[i].candidate);
}

TEST_CASE("Characterization of BERT-Large and DCGAN on a V100 and three S10s",
          "[hype][characterize]") {
  // The new layer types' ops (BatchMatMul repeated per head, transposed convolutions, the
  // element-wise types) are priced on both devices like the CNNs' ops.
  ShippedDevices shipped;
  const CharacterizeDevices& d = shipped.roles;
  OptimizerSpec adam;
  adam.kind = "adam";
  for (const auto& [name, batch] : {std::pair<const char*, int>{"bert_large_squad", 10},
                                    std::pair<const char*, int>{"dcgan_gd_celeba", 256}}) {
    INFO(name);
    const NetworkSpec spec = load_network(configs_root() + "/networks/" + name + ".yaml");
    const NetShape net(spec);
    const OpDag dag = build_op_dag(net, batch, 32, adam);
    const Characterization c =
        characterize(dag, d, auto_thresholds(dag, d, ThresholdCombine::kAnd));
    REQUIRE(static_cast<int>(c.ops.size()) == dag.size());
    double gpu_s = 0, batch_matmul_s = 0;
    for (int i = 0; i < dag.size(); ++i) {
      const OpCharacter& o = c.ops[static_cast<std::size_t>(i)];
      INFO(i << " " << paper_op_type_name(dag.node(i).type));
      CHECK(std::isfinite(o.gpu.time_s));
      CHECK(o.gpu.time_s > 0);
      CHECK(o.slack_s >= 0);
      gpu_s += o.gpu.time_s;
      if (dag.node(i).type == PaperOpType::kBatchMatMul) batch_matmul_s += o.gpu.time_s;
    }
    // One iteration on the GPU alone: BERT-Large's attention products are a part of it, not
    // most of it (its projections and feed-forward GEMMs dominate at 384 tokens).
    CHECK(gpu_s > 0);
    if (batch_matmul_s > 0) CHECK(batch_matmul_s < 0.5 * gpu_s);
  }
}
