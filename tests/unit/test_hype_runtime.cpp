// Hype-training's runtime (sim/hype/runtime.h) on hand DAGs whose costs are given: an op the
// FPGA runs faster moves there; the overlap rule keeps it on the GPU when moving its inputs
// takes longer than the GPU op before it; an idle GPU runs a ready op planned for a busy FPGA;
// a power cap holds at every instant and a cap no op fits is an error. Then the whole model
// (sim/hype/hype_model.h) on LeNet-5 with the shipped V100 and S10s: the energy policy is never
// slower than gpu-only, the power-cap policy never exceeds its cap, runs are deterministic.
#include <catch2/catch.hpp>

#include "models/platform/interconnect.h"
#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/devices/device_config.h"
#include "sim/hype/hype_model.h"
#include "sim/hype/runtime.h"
#include "sim/run/experiment_file.h"
#include "tests/integration/cli_runner.h"
#include "tests/support/dag_edges.h"

using namespace trainsim;
using trainsim::test::fresh_dir;
using trainsim::test::write_file;

namespace {

struct Cost {
  double ms, avg_w, peak_w;
};
OpCost cost_of(const Cost& c) {
  OpCost o;
  o.time_s = c.ms * 1e-3;
  o.avg_w = c.avg_w;
  o.peak_w = c.peak_w;
  o.energy_j = c.avg_w * o.time_s;
  return o;
}

// A fixed-static device whose costs the test writes into the characterization itself.
class StaticDevice final : public DeviceModel {
 public:
  explicit StaticDevice(double w) : w_(w) {}
  const std::string& name() const override { return name_; }
  const std::string& kind() const override { return name_; }
  double static_w() const override { return w_; }
  int word_bytes() const override { return 4; }  // unused: it prices no op
  OpCost cost(const Op&) override { return unsupported_cost(); }

 private:
  std::string name_ = "static";
  double w_;
};

// A DAG of `n` GEMMs (every input is a 1 KB edge, no weights) with the given edges.
OpDag hand_dag(int n, const std::vector<std::pair<int, int>>& edges) {
  OpDag dag;
  for (int i = 0; i < n; ++i) {
    DagNode node;
    node.op = Op::make_gemm({8, 8, 8}, OpRole::kForward, i);
    node.op.word_bits = 32;
    node.type = PaperOpType::kRelu;  // small: one FPGA
    dag.add_node(node);
  }
  for (auto [a, b] : edges) dag.add_edge(a, b, EdgeData::kTensor, 1024);
  return dag;
}

struct Hand {
  OpDag dag;
  Characterization c;
  std::vector<OpSite> plan;
};

Hand hand(int n, const std::vector<std::pair<int, int>>& edges, const std::vector<Cost>& gpu,
          const std::vector<Cost>& fpga, const std::vector<int>& offloaded) {
  Hand h{hand_dag(n, edges), {}, std::vector<OpSite>(static_cast<std::size_t>(n))};
  for (int i = 0; i < n; ++i) {
    OpCharacter o;
    o.gpu = cost_of(gpu[static_cast<std::size_t>(i)]);
    o.offload = cost_of(fpga[static_cast<std::size_t>(i)]);
    o.offload_devices = 1;
    h.c.ops.push_back(o);
  }
  for (int i : offloaded) h.plan[static_cast<std::size_t>(i)] = OpSite::kOffload;
  return h;
}

// The paper's system: one V100 and three Stratix 10s, the shipped presets.
HypeSpec v100_and_three_s10() {
  HypeSpec spec;
  spec.gpu = load_device("v100");
  spec.offload = load_device("s10_gx2500");
  spec.offloads = 3;
  return spec;
}

RuntimeSystem system_of(StaticDevice& gpu, StaticDevice& fpga, int fpgas, double latency_s = 0) {
  RuntimeSystem s;
  s.gpu = &gpu;
  s.offload = &fpga;
  s.offload_count = fpgas;
  s.gpu_link.bandwidth_gbps = s.offload_link.bandwidth_gbps = 10;
  s.gpu_link.latency_s = latency_s;
  s.offload_link.latency_s = 0;
  return s;
}

}  // namespace

TEST_CASE("Hype runtime: a faster FPGA op moves, and the overlap rule", "[hype][runtime]") {
  // 0 -> 1 -> 2; op 1 takes 4 ms on the GPU and 1 ms on the FPGA.
  const Hand h = hand(3, {{0, 1}, {1, 2}}, {{2, 200, 220}, {4, 200, 220}, {1, 150, 160}},
                      {{9, 30, 33}, {1, 30, 33}, {9, 30, 33}}, {1});
  StaticDevice gpu(40), fpga(10);
  const auto energy = make_energy_policy({});
  const auto gpu_only = make_gpu_only_policy({});

  const RuntimeResult base = run_iteration(h.dag, h.c, std::vector<OpSite>(3, OpSite::kGpu),
                                           *gpu_only, system_of(gpu, fpga, 1));
  CHECK(base.makespan_s == Approx(7e-3));
  CHECK(base.offloaded == 0);
  // GPU busy 7 ms at the ops' power; the FPGA idles at 10 W.
  CHECK(base.device_energy_j == Approx(2e-3 * 200 + 4e-3 * 200 + 1e-3 * 150 + 7e-3 * 10));

  const RuntimeResult r = run_iteration(h.dag, h.c, h.plan, *energy, system_of(gpu, fpga, 1));
  CHECK(r.offloaded == 1);
  CHECK(r.ops[1].place == OpSite::kOffload);
  // 1 KB over two 10 GB/s hops each way.
  const double hop = 1024 / 10e9;
  CHECK(r.ops[1].start_s == Approx(2e-3 + 2 * hop));
  CHECK(r.makespan_s == Approx(4e-3 + 4 * hop));
  CHECK(r.makespan_s < base.makespan_s);
  CHECK(r.energy_j() < base.energy_j());
  CHECK(r.links[0].bytes == 1024);  // gpu:to-host, op 0's result
  CHECK(r.transfers.size() == 4);

  // With 3 ms of latency on the GPU's link, moving op 1's input takes longer than the 3 ms op 1
  // gains on the FPGA, and no other GPU op runs beside the move: op 1 stays on the GPU, and the
  // run is gpu-only's. Read literally ("the GPU op that ran last": op 0's 2 ms), the rule
  // blocks it as well.
  const RuntimeResult blocked =
      run_iteration(h.dag, h.c, h.plan, *energy, system_of(gpu, fpga, 1, 3e-3));
  CHECK(blocked.overlap_blocked == 1);
  CHECK(blocked.ops[1].overlap_blocked);
  CHECK(blocked.ops[1].place == OpSite::kGpu);
  CHECK(blocked.offloaded == 0);
  CHECK(blocked.makespan_s == Approx(base.makespan_s));
  RuntimeSystem previous = system_of(gpu, fpga, 1, 1e-3);
  previous.overlap = OverlapRule::kPrevious;
  // 1 ms of latency: within op 1's 3 ms gain (window) and op 0's 2 ms (previous).
  CHECK(run_iteration(h.dag, h.c, h.plan, *energy, previous).offloaded == 1);
  CHECK(run_iteration(h.dag, h.c, h.plan, *energy, system_of(gpu, fpga, 1, 1e-3)).offloaded == 1);
  // 2.5 ms: still within the gain, no longer within op 0.
  previous.gpu_link.latency_s = 2.5e-3;
  CHECK(run_iteration(h.dag, h.c, h.plan, *energy, previous).offloaded == 0);
  CHECK(run_iteration(h.dag, h.c, h.plan, *energy, system_of(gpu, fpga, 1, 2.5e-3)).offloaded == 1);
  // Off: it moves whatever the link.
  RuntimeSystem off = system_of(gpu, fpga, 1, 3e-3);
  off.overlap = OverlapRule::kOff;
  CHECK(run_iteration(h.dag, h.c, h.plan, *energy, off).offloaded == 1);
}

TEST_CASE("Hype runtime: an idle GPU runs ops planned for a busy FPGA", "[hype][runtime]") {
  // 0 -> {1, 2} -> 3: ops 1 and 2 are planned for the one FPGA; the GPU takes the second.
  const Hand h = hand(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}},
                      {{1, 200, 220}, {3, 200, 220}, {3, 200, 220}, {1, 200, 220}},
                      {{9, 30, 33}, {2, 30, 33}, {2, 30, 33}, {9, 30, 33}}, {1, 2});
  StaticDevice gpu(40), fpga(10);
  const RuntimeResult r =
      run_iteration(h.dag, h.c, h.plan, *make_energy_policy({}), system_of(gpu, fpga, 1));
  CHECK(r.offloaded == 1);
  CHECK(r.demoted == 1);
  CHECK(r.ops[1].place == OpSite::kOffload);  // equal ranks: the lower index first
  CHECK(r.ops[2].place == OpSite::kGpu);
  CHECK(r.ops[2].demoted);
  CHECK(r.ops[2].start_s == Approx(1e-3));
  // Deterministic: the same run twice is the same run.
  const RuntimeResult again =
      run_iteration(h.dag, h.c, h.plan, *make_energy_policy({}), system_of(gpu, fpga, 1));
  CHECK(again.makespan_s == r.makespan_s);
  CHECK(again.energy_j() == r.energy_j());

  // Two FPGAs: both ops move, and the GPU idles.
  const RuntimeResult two =
      run_iteration(h.dag, h.c, h.plan, *make_energy_policy({}), system_of(gpu, fpga, 2));
  CHECK(two.offloaded == 2);
  CHECK(two.demoted == 0);
  CHECK(two.devices.size() == 3);
  CHECK(two.links.size() == 6);
}

TEST_CASE("Hype runtime: a result moves between offload devices through the host once",
          "[hype][runtime]") {
  // 0 -> 1 -> 2 with op 1 on both FPGAs (a gang) and op 2 on one: op 1's result goes up to the
  // host when it is done (half from each FPGA) and down to op 2's FPGA when op 2 is taken.
  Hand h = hand(3, {{0, 1}, {1, 2}}, {{1, 200, 220}, {4, 200, 220}, {4, 200, 220}},
                {{9, 30, 33}, {1, 30, 33}, {1, 30, 33}}, {1, 2});
  h.c.ops[1].offload_devices = 2;
  StaticDevice gpu(40), fpga(10);
  const RuntimeResult r =
      run_iteration(h.dag, h.c, h.plan, *make_energy_policy({}), system_of(gpu, fpga, 2));
  REQUIRE(r.offloaded == 2);
  CHECK(r.ops[1].devices == 2);
  CHECK(r.ops[2].devices == 1);
  // links: gpu up/down, offload0 up/down, offload1 up/down.
  // op 1's result, half from each FPGA, once (op 2's has no reader to go back to).
  CHECK(r.links[2].bytes + r.links[4].bytes == 1024);
  for (const TransferRun& t : r.transfers) {
    const OpRun& o = r.ops[static_cast<std::size_t>(t.op)];
    // A transfer into an op's device starts once the device took it and ends before it starts;
    // a result leaves after its op ends.
    if (t.link % 2 == 1 && t.link > 1) {
      CHECK(t.start_s >= o.dispatch_s);
      CHECK(t.end_s <= o.start_s + 1e-15);
    }
    if (t.link % 2 == 0 && t.link > 0) CHECK(t.start_s >= o.end_s);
  }
  CHECK(r.ops[2].start_s >= r.ops[1].end_s);
  // The same run again is the same run, transfer by transfer (what ends at one instant takes
  // effect in a fixed order, whatever order the kernel runs the processes in).
  const RuntimeResult again =
      run_iteration(h.dag, h.c, h.plan, *make_energy_policy({}), system_of(gpu, fpga, 2));
  REQUIRE(again.transfers.size() == r.transfers.size());
  for (std::size_t k = 0; k < r.transfers.size(); ++k) {
    CHECK(again.transfers[k].link == r.transfers[k].link);
    CHECK(again.transfers[k].op == r.transfers[k].op);
    CHECK(again.transfers[k].start_s == r.transfers[k].start_s);
    CHECK(again.transfers[k].end_s == r.transfers[k].end_s);
  }
}

TEST_CASE("Hype runtime: a power cap holds at every instant", "[hype][runtime]") {
  // The same fork on one FPGA; GPU ops peak at 200 W, FPGA ops at 30 W, statics 40 W and 10 W.
  const Hand h = hand(4, {{0, 1}, {0, 2}, {1, 3}, {2, 3}},
                      {{1, 190, 200}, {3, 190, 200}, {3, 190, 200}, {1, 190, 200}},
                      {{9, 25, 30}, {4, 25, 30}, {4, 25, 30}, {9, 25, 30}}, {1, 2});
  StaticDevice gpu(40), fpga(10);
  PolicyParams loose, tight;
  loose.power_cap_w = 1000;
  tight.power_cap_w = 225;  // 200 + 30 = 230 > 225: GPU and FPGA cannot both run ops
  // Without the overlap rule, which would otherwise keep op 1 on the idle GPU (nothing hides
  // its move and the FPGA is slower): this test is about the cap.
  RuntimeSystem sys = system_of(gpu, fpga, 1);
  sys.overlap = OverlapRule::kOff;
  const RuntimeResult free_run =
      run_iteration(h.dag, h.c, h.plan, *make_power_cap_policy(loose), sys);
  const RuntimeResult capped =
      run_iteration(h.dag, h.c, h.plan, *make_power_cap_policy(tight), sys);
  // Uncapped, the GPU runs op 2 beside the FPGA's op 1 (230 W).
  CHECK(free_run.peak_w == Approx(230));
  CHECK(free_run.demoted == 1);
  CHECK(capped.peak_w <= 225);
  for (const PowerStep& p : capped.power) CHECK(p.peak_w <= 225);
  // Capped, the GPU may not start op 2 beside op 1, so op 2 waits for the FPGA: 1 + 4 + 4 + 1.
  CHECK(capped.offloaded == 2);
  CHECK(capped.demoted == 0);
  CHECK(capped.makespan_s > free_run.makespan_s);
  CHECK(capped.makespan_s == Approx(10e-3).epsilon(1e-3));
  // The average trace integrates to the devices' energy.
  double integral = 0;
  for (std::size_t i = 0; i < capped.power.size(); ++i) {
    const double end = i + 1 < capped.power.size() ? capped.power[i + 1].t_s : capped.makespan_s;
    integral += capped.power[i].avg_w * (end - capped.power[i].t_s);
  }
  CHECK(integral == Approx(capped.device_energy_j).epsilon(1e-9));

  // A cap below a GPU op's 200 W with the FPGA idle (200 + 10 > 150), and op 0 runs nowhere
  // else: an error naming the cap.
  PolicyParams low;
  low.power_cap_w = 150;
  Hand only_gpu = h;
  for (OpCharacter& o : only_gpu.c.ops) o.offload = unsupported_cost();
  only_gpu.plan.assign(4, OpSite::kGpu);
  CHECK_THROWS_WITH(run_iteration(only_gpu.dag, only_gpu.c, only_gpu.plan,
                                  *make_power_cap_policy(low), system_of(gpu, fpga, 1)),
                    Catch::Contains("power cap 150 W") && Catch::Contains("no device may start"));
}

TEST_CASE("Hype model: LeNet-5 on a V100 and three S10s", "[hype][runtime]") {
  const NetworkSpec lenet = load_network(configs_root() + "/networks/lenet5.yaml");
  const NetShape net(lenet);
  HypeSpec spec = v100_and_three_s10();
  for (int batch : {32, 256}) {
    INFO("batch " << batch);
    const HypeIteration it = simulate_hype(spec, net, batch, OptimizerSpec{});
    CHECK(it.policy.iteration_s <= it.gpu_only.iteration_s);
    CHECK(it.gpu_only.run.offloaded == 0);
    // The baseline is the GPU alone: the offload devices are no part of its system.
    CHECK(it.gpu_only.run.devices.size() == 1);
    CHECK(it.policy.run.devices.size() == 4);
    // Every op ran once, after its producers.
    for (const test::DagEdgeView& e : test::dag_edges(it.dag))
      CHECK(it.policy.run.ops[static_cast<std::size_t>(e.to)].start_s >=
            it.policy.run.ops[static_cast<std::size_t>(e.from)].end_s);
    const HypeIteration again = simulate_hype(spec, net, batch, OptimizerSpec{});
    CHECK(again.policy.iteration_s == it.policy.iteration_s);
    CHECK(again.policy.energy_j == it.policy.energy_j);

    // A cap between the static floor and gpu-only's peak: never exceeded, zero violations.
    HypeSpec capped = spec;
    capped.policy = "power-cap";
    capped.power_cap_w = 0.5 * (spec.static_w() + it.gpu_only.peak_w) + 30;
    const HypeIteration c = simulate_hype(capped, net, batch, OptimizerSpec{});
    CHECK(c.policy.peak_w <= capped.power_cap_w * (1 + 1e-9));
    CHECK(c.policy.violations == 0);
    CHECK(c.gpu_only.violations >= 0);
  }
  // Two GPUs, each with three FPGAs and half the batch, then the all-reduce.
  HypeSpec two = spec;
  two.gpus = 2;
  two.offloads = 6;
  const HypeIteration dp = simulate_hype(two, net, 256, OptimizerSpec{});
  CHECK(dp.batch_per_gpu == 128);
  CHECK(dp.allreduce_bytes == 4.0 * static_cast<double>(net.param_count()));
  CHECK(dp.allreduce_s > 0);
  CHECK(dp.policy.iteration_s <= dp.gpu_only.iteration_s);
  CHECK_THROWS_AS(simulate_hype(two, net, 255, OptimizerSpec{}), UserError);
}

TEST_CASE("GPU at a lower clock: compute roofs and dynamic power scale", "[hype][runtime][gpu]") {
  auto gpu = load_device("v100")->build();
  auto half = gpu->at_clock(0.5, 3);
  REQUIRE(half);
  // A large GEMM is compute-bound: twice the time less the unscaled launch.
  const Op big = [] {
    Op op = Op::make_gemm({4096, 4096, 4096});
    op.word_bits = 32;
    return op;
  }();
  const OpCost full = gpu->cost(big), slow = half->cost(big);
  CHECK(slow.time_s == Approx(2 * full.time_s).epsilon(0.01));
  CHECK(slow.avg_w < full.avg_w);
  CHECK(slow.avg_w - gpu->static_w() <= (full.avg_w - gpu->static_w()) / 8 * 1.0001);
  // A streaming element-wise op is memory-bound: its time does not change.
  Op stream = Op::make_eltwise({std::int64_t{1} << 26, 2, 1, 1}, OpRole::kUpdate, 0);
  stream.word_bits = 32;
  CHECK(half->cost(stream).time_s == Approx(gpu->cost(stream).time_s).epsilon(1e-9));
  // Devices without a clock to scale say so.
  auto fpga = load_device("s10_gx2500")->build();
  CHECK_FALSE(fpga->at_clock(0.5, 3));
}

TEST_CASE("Hype DVFS baseline: the clock follows the cap", "[hype][runtime]") {
  const NetworkSpec alexnet = load_network(configs_root() + "/networks/alexnet_imagenet.yaml");
  const NetShape net(alexnet);
  HypeSpec spec;
  spec.gpu = load_device("v100");
  spec.policy = "dvfs";
  // Far above any draw: the clock never leaves the top, and the run is gpu-only's.
  spec.power_cap_w = 1000;
  const HypeIteration free_run = simulate_hype(spec, net, 256, OptimizerSpec{});
  CHECK(free_run.policy.run.mean_clock == 1);
  CHECK(free_run.policy.iteration_s == free_run.gpu_only.iteration_s);
  CHECK(free_run.policy.violations == 0);
  // Under gpu-only's average power: a lower clock, a slower iteration, less average power.
  spec.power_cap_w = 0.8 * free_run.gpu_only.avg_w();
  const HypeIteration capped = simulate_hype(spec, net, 256, OptimizerSpec{});
  CHECK(capped.policy.run.mean_clock < 1);
  CHECK(capped.policy.iteration_s > capped.gpu_only.iteration_s);
  CHECK(capped.policy.avg_w() < capped.gpu_only.avg_w());
  // The controller reacts to averages, so peaks between its decisions go over the cap.
  CHECK(capped.policy.violations > 0);
  for (const OpRun& o : capped.policy.run.ops) CHECK((o.clock > 0.49 && o.clock <= 1));
}

TEST_CASE("Hype power-cap-dvfs: GPU ops the cap holds back run at a lower clock, under the cap",
          "[hype][runtime]") {
  // AlexNet's large convolutions peak near the V100's 300 W: at 230 W with three FPGAs' static
  // power, power-cap sends them to the FPGAs; at a lower clock they fit on the GPU.
  const NetworkSpec alexnet = load_network(configs_root() + "/networks/alexnet_imagenet.yaml");
  const NetShape net(alexnet);
  HypeSpec spec = v100_and_three_s10();
  spec.power_cap_w = 230;
  spec.policy = "power-cap";
  const HypeIteration capped = simulate_hype(spec, net, 256, OptimizerSpec{});
  spec.policy = "power-cap-dvfs";
  const HypeIteration clocked = simulate_hype(spec, net, 256, OptimizerSpec{});
  CHECK(clocked.policy.peak_w <= 230 * (1 + 1e-9));
  CHECK(clocked.policy.violations == 0);
  CHECK(clocked.policy.run.mean_clock < 1);
  CHECK(clocked.policy.run.offloaded < capped.policy.run.offloaded);
  CHECK(clocked.policy.iteration_s < capped.policy.iteration_s);
  // Each GPU op runs at one of the controller's levels, never below the lowest.
  for (const OpRun& o : clocked.policy.run.ops)
    if (o.place == OpSite::kGpu) CHECK((o.clock >= spec.dvfs.min_scale - 1e-9 && o.clock <= 1));
  // No cap to hold anything back: every op at full clock, as power-cap's run.
  spec.power_cap_w = 1e6;
  spec.policy = "power-cap-dvfs";
  const HypeIteration free_clock = simulate_hype(spec, net, 256, OptimizerSpec{});
  spec.policy = "power-cap";
  const HypeIteration free_cap = simulate_hype(spec, net, 256, OptimizerSpec{});
  CHECK(free_clock.policy.run.mean_clock == 1);
  CHECK(free_clock.policy.iteration_s == free_cap.policy.iteration_s);
}

TEST_CASE("Hype public-code: every MatMul and forward Conv2D off the GPU, nothing moved back",
          "[hype][runtime]") {
  const NetworkSpec alexnet = load_network(configs_root() + "/networks/alexnet_imagenet.yaml");
  const NetShape net(alexnet);
  HypeSpec spec = v100_and_three_s10();
  spec.policy = "public-code";
  const HypeIteration it = simulate_hype(spec, net, 256, OptimizerSpec{});
  int planned = 0;
  for (std::size_t i = 0; i < it.plan.size(); ++i) {
    const OpCharacter& c = it.character.ops[i];
    const bool type = c.type == PaperOpType::kMatMul || c.type == PaperOpType::kConv2D;
    INFO("op " << i << " " << paper_op_type_name(c.type));
    CHECK((it.plan[i] == OpSite::kOffload) == (type && c.offload.supported));
    // No overlap rule, no idle GPU taking its ops, no guard: they all ran where planned.
    CHECK(it.policy.run.ops[i].place == it.plan[i]);
    planned += it.plan[i] == OpSite::kOffload;
  }
  CHECK(planned > 0);
  CHECK(it.policy.run.demoted == 0);
  CHECK(it.policy.run.overlap_blocked == 0);
  CHECK(it.guard_demotions == 0);
  CHECK(hype_policy_info("green-training").name == "public-code");
}

TEST_CASE("Hype energy policy without its guard: where offload pays by itself", "[hype][runtime]") {
  // The policy's own plan run as it is, without the never-slower guard, on the paper's system
  // and links (configs/experiments/hype_zoo.yaml): DCGAN's discriminator gains from its
  // offloads by themselves, and that is what the guarded run keeps; where the raw plan is
  // slower than gpu-only, the guard (not the policy) is what keeps the promise.
  struct Case {
    const char* network;
    const char* dataset;
  };
  int pays = 0, guarded = 0;
  for (const Case& c : {Case{"dcgan_d_celeba", "celeba"}, Case{"alexnet_imagenet", "imagenet"},
                        Case{"vgg16_imagenet", "imagenet"}}) {
    const ExperimentSpec e = load_experiment(
        configs_root() + "/experiments/hype_zoo.yaml",
        {std::string("network=") + c.network, std::string("dataset.name=") + c.dataset});
    const HypeSpec& spec = *e.hype;
    const NetShape net(e.network);
    const HypeIteration it = simulate_hype(spec, net, 256, OptimizerSpec{});
    const auto gpu = spec.gpu->build();
    const auto fpga = spec.offload->build();
    RuntimeSystem sys;
    sys.gpu = gpu.get();
    sys.offload = fpga.get();
    sys.offload_count = spec.offloads;
    sys.gpu_link = spec.gpu_link;
    sys.offload_link = spec.offload_link;
    sys.overlap = spec.overlap_rule;
    const RuntimeResult raw =
        run_iteration(it.dag, it.character, it.plan, *make_energy_policy({}), sys);
    const double gain = it.gpu_only.run.makespan_s / raw.makespan_s - 1;
    INFO(c.network << ": the raw plan " << raw.makespan_s << " s against gpu-only "
                   << it.gpu_only.run.makespan_s << " s (" << 100 * gain << "%), " << raw.offloaded
                   << " ops offloaded, guard moved " << it.guard_demotions);
    CHECK(raw.offloaded > 0);
    // The guarded run is never slower, and no slower than the raw plan when that pays.
    CHECK(it.policy.run.makespan_s <= it.gpu_only.run.makespan_s * (1 + 1e-9));
    if (gain > 0) {
      ++pays;
      CHECK(it.policy.run.makespan_s <= raw.makespan_s * (1 + 1e-9));
    } else {
      ++guarded;
      CHECK(it.guard_demotions > 0);
    }
    if (std::string(c.network) == "dcgan_d_celeba") CHECK(gain > 0.3);
  }
  CHECK(pays >= 1);
  CHECK(guarded >= 1);
}

TEST_CASE("Hype runtime: weights of planned offloads are staged at the host from the start",
          "[hype][runtime]") {
  // 0 -> 1; op 1 (planned for the FPGA) reads its 10 MB of weights. At 10 GB/s a hop of them
  // takes 1 ms: staged up to the host from the iteration's start (in the background, beside
  // op 0's 5 ms), only the down hop is left when op 1 is taken at 5 ms.
  Hand h = hand(2, {{0, 1}}, {{5, 200, 220}, {8, 200, 220}}, {{9, 30, 33}, {1, 30, 33}}, {1});
  OpDag dag;
  for (int i = 0; i < 2; ++i) {
    DagNode node = h.dag.node(i);
    if (i == 1) node.op.inputs[1] = {tensor_id(TensorKind::kWeight, 1), 10'000'000 / 4};
    dag.add_node(node);
  }
  dag.add_edge(0, 1, EdgeData::kTensor, 1024);
  h.dag = dag;
  StaticDevice gpu(40), fpga(10);
  RuntimeSystem sys = system_of(gpu, fpga, 1);
  sys.overlap = OverlapRule::kOff;
  const RuntimeResult r = run_iteration(h.dag, h.c, h.plan, *make_energy_policy({}), sys);
  REQUIRE(r.ops[1].place == OpSite::kOffload);
  const double hop_w = 10e6 / 10e9, hop_in = 1024 / 10e9;
  // The weights come down from the host in 1 ms; op 0's result goes up to the host and then
  // down the same link behind them (one transfer at a time, in the order they reach it).
  CHECK(r.ops[1].dispatch_s == Approx(5e-3));
  CHECK(r.ops[1].start_s == Approx(5e-3 + hop_w + hop_in));
  // Staging went up once, at the start; the GPU's link carried it in the background.
  int up = 0;
  for (const TransferRun& t : r.transfers)
    if (t.link == 0 && t.bytes == 10e6) {
      ++up;
      CHECK(t.start_s == 0);
    }
  CHECK(up == 1);
}

TEST_CASE("Hype runtime: the host's links name the hype.links keys in errors", "[hype][runtime]") {
  RuntimeSystem sys;
  sys.offload_count = 2;
  sys.gpu_link = {1e-3, 0, 6};  // 1 MB/s: 2^50 bytes would take longer than the clock holds
  const Interconnect net(host_star(sys, 3));
  REQUIRE(net.channels().size() == 6);
  CHECK(net.channels()[0].bandwidth_key == "hype.links.gpu.bandwidth_gbps");
  CHECK(net.channels()[5].latency_key == "hype.links.offload.latency_us");
  CHECK_THROWS_WITH(net.transfer_ps(0, 1, std::int64_t{1} << 50),
                    Catch::StartsWith("hype.links.gpu.bandwidth_gbps: at 0.001 "));
}

TEST_CASE("A hype: that names its own devices has them as the experiment's one system",
          "[hype][config]") {
  // configs/experiments/hype_zoo.yaml: hype: {gpu: v100, offload: s10_gx2500, offloads: 3}.
  const ExperimentSpec e = load_experiment(configs_root() + "/experiments/hype_zoo.yaml", {});
  REQUIRE(e.hype != nullptr);
  REQUIRE(e.system.present());
  CHECK(e.system.implied_by == "hype");
  REQUIRE(e.system.devices.size() == 4);
  CHECK(e.system.devices[0].name() == e.hype->gpu->name);
  CHECK(e.system.devices[0].where == "hype.gpu");
  for (std::size_t d = 1; d < 4; ++d) {
    CHECK(e.system.devices[d].name() == e.hype->offload->name);
    CHECK(e.system.devices[d].where == "hype.offload");
  }
  // config.resolved.yaml writes the block that named the devices, so it loads again to the
  // same system.
  const std::string resolved = resolved_yaml(e);
  CHECK(resolved.find("\nsystem:") == std::string::npos);
  CHECK(resolved.find("\nhype:") != std::string::npos);
  const std::string file = fresh_dir("hype-implied-system") + "/config.resolved.yaml";
  write_file(file, resolved);
  const ExperimentSpec again = load_experiment(file, {});
  REQUIRE(again.system.devices.size() == 4);
  CHECK(again.system.implied_by == "hype");
  for (std::size_t d = 0; d < 4; ++d) {
    CHECK(again.system.devices[d].name() == e.system.devices[d].name());
    CHECK(again.system.devices[d].where == e.system.devices[d].where);
  }
  // A hype: over a system: written in the experiment: that system, implied by nothing.
  const ExperimentSpec over =
      load_experiment(configs_root() + "/experiments/hype_zoo.yaml",
                      {"hype={policy: energy}",
                       "system={devices: [{device: v100}, {device: s10_gx2500, count: 3}]}"});
  REQUIRE(over.hype != nullptr);
  CHECK(over.system.implied_by.empty());
  CHECK(over.system.devices.size() == 4);
  // GPUs alone: the system is the GPUs.
  const ExperimentSpec alone = load_experiment(configs_root() + "/experiments/hype_zoo.yaml",
                                               {"hype.gpus=2", "hype.offloads=0"});
  REQUIRE(alone.system.devices.size() == 2);
  CHECK(alone.system.devices[1].where == "hype.gpu");
}
