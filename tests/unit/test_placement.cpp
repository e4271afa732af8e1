// Placements (models/platform/placement.h): both families, orders decided ahead of the run and
// Hype's policies deciding as it goes, run on the one executor and come back as the same data,
// per-device orders over the iteration's task graph. Decided ahead, the orders that ran are the
// orders given; decided online, every op is in the order of the device that ran it, at its
// start; and an online placement's orders, replayed ahead of the run, time every op as the
// runtime did.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/platform/placement.h"
#include "models/platform/platform.h"
#include "models/platform/topology.h"
#include "sim/core/paths.h"
#include "sim/devices/device_config.h"
#include "sim/hype/hype_model.h"
#include "sim/hype/runtime.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_config.h"

using namespace trainsim;

namespace {

std::int64_t ps(double s) {
  return std::llround(s * 1e12);
}

// LeNet-5 at batch 64 on the paper's system: one V100 and three Stratix 10s.
HypeIteration lenet_hype(const std::string& policy) {
  const NetworkSpec lenet = load_network(configs_root() + "/networks/lenet5.yaml");
  HypeSpec spec;
  spec.gpu = load_device("v100");
  spec.offload = load_device("s10_gx2500");
  spec.offloads = 3;
  spec.policy = policy;
  return simulate_hype(spec, NetShape(lenet), 64, OptimizerSpec{});
}

}  // namespace

TEST_CASE("A placement decided ahead runs the orders it was given, as data", "[placement]") {
  // Two devices on a 1 GB/s, 100 ns chain. Device 0 runs tasks 0 then 2, device 1 runs 1 then
  // 3; 1 waits for 0 (1000 bytes across), 3 for 2 (on device 0 as well: across again).
  std::vector<Task> tasks(4);
  for (int i = 0; i < 4; ++i) {
    tasks[static_cast<std::size_t>(i)].micro = i;
    tasks[static_cast<std::size_t>(i)].device = i % 2;
  }
  std::vector<std::vector<Edge>> deps(4);
  deps[1].push_back({0, EdgeData::kTensor, 1000});
  deps[3].push_back({2, EdgeData::kTensor, 1000});
  const TaskGraph g = TaskGraph::given(2, tasks, deps);
  const DeviceOrders orders = {{0, 2}, {1, 3}};
  LinkSpec link;
  link.bandwidth_gbps = 1;
  link.latency_ns = 100;
  const Interconnect net(find_topology("chain")->build(2, link));
  PlatformWork work;
  work.graph = &g;
  work.orders = &orders;
  work.duration_ps = {1'000'000, 2'000'000, 3'000'000, 4'000'000};
  const PlatformResult r = run_platform(net, work);
  CHECK(r.orders == orders);
  // 0: [0, 1 us]; its 1000 bytes arrive at 2.1 us: 1 runs to 4.1 us; 2: [1, 4 us], its bytes
  // arrive at 5.1 us: 3 runs to 9.1 us.
  CHECK(r.tasks[1].start_ps == 2'100'000);
  CHECK(r.tasks[3].start_ps == 5'100'000);
  CHECK(r.makespan_ps == 9'100'000);
}

TEST_CASE("A placement decided online comes back as per-device orders", "[placement][hype]") {
  const HypeIteration it = lenet_hype("energy");
  const RuntimeResult& run = it.policy.run;
  REQUIRE(run.offloaded > 0);  // the test is of a placement over several devices
  REQUIRE(run.orders.size() == 4);
  // The executor's record against the runtime's own account of every op: per device, the ops
  // the runtime put there (a gang's on its first device), by the time it started them.
  for (std::size_t d = 0; d < run.orders.size(); ++d) {
    std::vector<int> expected;
    for (std::size_t i = 0; i < run.ops.size(); ++i)
      if (run.ops[i].first_device == static_cast<int>(d)) expected.push_back(static_cast<int>(i));
    std::stable_sort(expected.begin(), expected.end(), [&](int x, int y) {
      return run.ops[static_cast<std::size_t>(x)].start_s <
             run.ops[static_cast<std::size_t>(y)].start_s;
    });
    INFO("device " << d);
    CHECK(run.orders[d] == expected);
  }
  // Every op once, the GPU's order every op the GPU ran.
  std::size_t listed = 0;
  for (const auto& order : run.orders) listed += order.size();
  CHECK(listed == run.ops.size());
  const auto on_gpu = std::count_if(run.ops.begin(), run.ops.end(),
                                    [](const OpRun& o) { return o.place == OpSite::kGpu; });
  CHECK(static_cast<std::ptrdiff_t>(run.orders[0].size()) == on_gpu);
}

TEST_CASE("An online placement replayed ahead of the run times every op as the runtime did",
          "[placement][hype]") {
  // Gpu-only on LeNet-5: the runtime's choices, given as orders over the same op graph, run on
  // the static orders' dispatcher. One device moves no data, so nothing but the order and the
  // ops' times can set a start: every op must start and end at the same picosecond.
  const HypeIteration it = lenet_hype("gpu-only");
  const RuntimeResult& run = it.gpu_only.run;
  REQUIRE(run.orders.size() == 1);
  REQUIRE(run.orders[0].size() == run.ops.size());
  const TaskGraph& g = it.dag.graph();
  PlatformWork work;
  work.graph = &g;
  work.orders = &run.orders;
  for (const OpRun& o : run.ops) work.duration_ps.push_back(ps(o.end_s) - ps(o.start_s));
  LinkSpec link;
  const Interconnect net(find_topology("chain")->build(1, link));
  const PlatformResult replay = run_platform(net, work);
  CHECK(replay.orders == run.orders);
  for (std::size_t i = 0; i < run.ops.size(); ++i) {
    INFO("op " << i << ": " << it.dag.node(static_cast<int>(i)).op.describe());
    CHECK(replay.tasks[i].start_ps == ps(run.ops[i].start_s));
    CHECK(replay.tasks[i].end_ps == ps(run.ops[i].end_s));
  }
  CHECK(replay.makespan_ps == ps(run.makespan_s));
}

namespace {

// Two devices take jobs 0, 1, 2 online, whichever is idle first; job j takes (j + 1) us; the
// start of job `throw_at` throws.
class Online final : public Placement {
 public:
  explicit Online(int throw_at = -1) : throw_at_(throw_at) {}
  PlacementTiming timing() const override { return PlacementTiming::kOnline; }
  std::int64_t now() const { return executor().now_ps(); }
  int next(int) override { return taken_ < 3 ? taken_++ : kDone; }
  std::int64_t start(int job, int) override {
    if (job == throw_at_) throw std::runtime_error("job " + std::to_string(job));
    return (job + 1) * 1'000'000;
  }
  void ended(int, int) override {}
  void device_done(int) override {
    if (++done_ == 2) executor().links().stop();
  }
  void delivered(int, std::int64_t, std::int64_t) override {}
  std::exception_ptr unfinished() override {
    return done_ == 2 ? nullptr : std::make_exception_ptr(std::runtime_error("not done"));
  }

 private:
  int throw_at_, taken_ = 0, done_ = 0;
};

Interconnect two_devices() {
  LinkSpec link;
  return Interconnect(find_topology("chain")->build(2, link));
}

}  // namespace

TEST_CASE("execute() runs a placement and returns what ran where, or its error", "[placement]") {
  const Interconnect net = two_devices();
  Online p;
  const Realized r = execute(p, net);
  CHECK(r.timing == PlacementTiming::kOnline);
  CHECK(std::string(placement_timing_name(r.timing)) == "online");
  // Device 0 takes job 0 (to 1 us) then job 2 (to 4 us); device 1 job 1 (to 2 us).
  CHECK(r.orders == DeviceOrders{{0, 2}, {1}});
  REQUIRE(r.runs.size() == 3);
  CHECK(r.runs[2].task == 2);
  CHECK(r.runs[2].start_ps == 1'000'000);
  CHECK(r.runs[2].end_ps == 4'000'000);
  // The run is over: the placement no longer has an executor to ask.
  CHECK_THROWS_AS(p.now(), std::logic_error);

  Online fails(1);
  CHECK_THROWS_WITH(execute(fails, net), "job 1");
  CHECK_THROWS_AS(fails.now(), std::logic_error);
}
