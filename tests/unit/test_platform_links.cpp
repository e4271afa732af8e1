// The platform's links: the topologies' link graphs and routes, and transfers on the SystemC
// platform, serialised per link direction at its bandwidth and delivered after its latency.
#include <catch2/catch.hpp>

#include "models/platform/interconnect.h"
#include "models/platform/platform.h"
#include "models/platform/stuck.h"
#include "models/platform/topology.h"
#include "sim/core/error.h"
#include "sim/pipeline/replicas.h"
#include "sim/pipeline/schedule.h"
#include "tests/support/spec_values.h"

using namespace trainsim;
using trainsim::test::link_between;
using trainsim::test::schedule_params;

namespace {
InterconnectSpec build(const std::string& topology, int devices, LinkSpec link = {}) {
  return find_topology(topology)->build(devices, link);
}
}  // namespace

TEST_CASE("Topologies: links, hops and uncontended transfer times", "[platform]") {
  CHECK(build("chain", 5).links.size() == 4);
  CHECK(build("ring", 5).links.size() == 5);
  CHECK(build("switch", 5).links.size() == 5);
  CHECK(build("switch", 5).has_switch);
  CHECK(build("fully_connected", 5).links.size() == 10);
  CHECK(find_topology("custom")->build == nullptr);
  CHECK(find_topology("torus") == nullptr);

  CHECK(Interconnect(build("chain", 5)).hops(0, 4) == 4);
  CHECK(Interconnect(build("ring", 5)).hops(0, 4) == 1);
  CHECK(Interconnect(build("ring", 5)).hops(0, 2) == 2);
  CHECK(Interconnect(build("switch", 5)).hops(1, 3) == 2);
  CHECK(Interconnect(build("fully_connected", 5)).hops(1, 3) == 1);

  // 1 GB/s moves a byte per ns: 1000 bytes take 1 us, plus 100 ns latency, per hop.
  LinkSpec slow;
  slow.bandwidth_gbps = 1;
  slow.latency_ns = 100;
  CHECK(Interconnect(build("chain", 3, slow)).transfer_ps(0, 2, 1000) == 2 * (1'000'000 + 100'000));
  CHECK(serialise_ps(1, 3) == 334);  // rounded up
}

TEST_CASE("Interconnects refuse links that cannot exist", "[platform]") {
  InterconnectSpec s;
  s.devices = 3;
  s.links = {link_between(0, 3)};
  CHECK_THROWS_WITH(Interconnect(s), Catch::Contains("device 3, which does not exist"));
  s.links = {link_between(1, 1)};
  CHECK_THROWS_WITH(Interconnect(s), Catch::Contains("to itself"));
  s.links = {link_between(0, 1)};
  CHECK_THROWS_WITH(Interconnect(s), Catch::Contains("not connected"));
  s.links = {link_between(0, 1), link_between(1, 2)};
  s.links[1].bandwidth_gbps = 0;
  CHECK_THROWS_WITH(Interconnect(s), Catch::Contains("bandwidth_gbps must be positive"));
}

TEST_CASE("The platform serialises transfers on a link and adds its latency", "[platform]") {
  // Two stages on two devices, two micro-batches forward only (a Phase GP batch): each
  // forward takes 10 ps, each activation 1000 bytes over one 1 GB/s link with 100 ns latency.
  const PipelineLayout layout = straight_layout(schedule_params(2, 2, 1));
  GraphSpec spec;
  spec.micro_batches = 2;
  spec.batches = {BatchKind::kForwardOnly};
  TaskGraph g(layout, spec);
  DeviceOrders orders(2);
  for (int s = 0; s < 2; ++s) {
    for (int m = 0; m < 2; ++m)
      orders[static_cast<std::size_t>(s)].push_back(g.find(Pass::kForward, 0, m, s));
    orders[static_cast<std::size_t>(s)].push_back(g.find(Pass::kUpdate, 0, -1, s));
  }
  std::vector<std::int64_t> durations;
  for (const Task& t : g.tasks()) durations.push_back(t.pass == Pass::kForward ? 10 : 0);
  LinkSpec link;
  link.bandwidth_gbps = 1;
  link.latency_ns = 100;
  link.pj_per_bit = 2;
  const Interconnect net(build("chain", 2, link));
  g.set_edge_bytes([](const Task&, EdgeData d) -> std::int64_t {
    return d == EdgeData::kActivation ? 1000 : 0;
  });
  PlatformWork work{&g, &orders, durations};
  const PlatformResult r = run_platform(net, work);
  const auto at = [&](int m, int s) {
    return r.tasks[static_cast<std::size_t>(g.find(Pass::kForward, 0, m, s))];
  };
  // Micro-batch 0 leaves at 10 ps, is on the wire for 1 us and arrives 100 ns later.
  CHECK(at(0, 1).start_ps == 10 + 1'000'000 + 100'000);
  // Micro-batch 1 leaves at 20 ps but waits for the wire: it starts sending at 1'000'010.
  CHECK(at(1, 1).start_ps == 10 + 2'000'000 + 100'000);
  CHECK(r.makespan_ps == at(1, 1).end_ps);
  REQUIRE(r.channels.size() == 2);
  CHECK(r.channels[0].bytes == 2000);
  CHECK(r.channels[0].transfers == 2);
  CHECK(r.channels[0].busy_ps == 2'000'000);
  CHECK(r.channels[0].energy_pj == 2000 * 8 * 2.0);
  CHECK(r.channels[1].bytes == 0);
  REQUIRE(r.transfers.size() == 2);
  CHECK(r.transfers[1].start_ps == 1'000'010);
  CHECK(r.busy_ps == std::vector<std::int64_t>{20, 20});
}

TEST_CASE("A system whose orders cannot finish names each device, task and missing input",
          "[platform][stuck]") {
  // Two stages on two devices, one micro-batch of a predicted batch: F s0 -> F s1, then the
  // updates. Device 1's update is put before its forward; device 0 runs normally: the run
  // can never end, and says why instead of hanging.
  const PipelineLayout layout = straight_layout(schedule_params(2, 1, 1));
  GraphSpec spec;
  spec.micro_batches = 1;
  spec.batches = {BatchKind::kForwardOnly};
  TaskGraph g(layout, spec);
  const int f0 = g.find(Pass::kForward, 0, 0, 0), f1 = g.find(Pass::kForward, 0, 0, 1);
  const int u0 = g.find(Pass::kUpdate, 0, -1, 0), u1 = g.find(Pass::kUpdate, 0, -1, 1);
  REQUIRE((f0 >= 0 && f1 >= 0 && u0 >= 0 && u1 >= 0));
  const Interconnect net(build("chain", 2));
  std::vector<std::int64_t> durations(g.size(), 10);
  const auto no_bytes = [](const Task&, EdgeData) -> std::int64_t { return 8; };
  {
    DeviceOrders orders = {{f0, u0}, {u1, f1}};
    const bool u1_needs_f1 = [&] {
      for (const Edge& e : g.deps(u1))
        if (e.from == f1) return true;
      return false;
    }();
    REQUIRE(u1_needs_f1);
    g.set_edge_bytes(no_bytes);
    PlatformWork work{&g, &orders, durations};
    CHECK_THROWS_AS(run_platform(net, work), StuckError);
    CHECK_THROWS_WITH(
        run_platform(net, work),
        Catch::Contains("dev1 waits in '" + g.task(u1).label() + "' for '" + g.task(f1).label() +
                        "' on dev1, ordered after '" + g.task(u1).label() + "' there"));
  }
  {
    // A task no device runs: named with the device it was placed on.
    DeviceOrders orders = {{f0, u0}, {u1}};
    g.set_edge_bytes(no_bytes);
    PlatformWork work{&g, &orders, durations};
    CHECK_THROWS_WITH(
        run_platform(net, work),
        Catch::Contains("no device's order runs '" + g.task(f1).label() + "' (placed on dev1)"));
  }
  {
    // The state of a run that stopped with a transfer lost on the way: the report names the
    // transfer and where it came from.
    const std::vector<std::size_t> next = {2, 0};
    std::vector<char> done(g.size(), 0);
    done[static_cast<std::size_t>(f0)] = done[static_cast<std::size_t>(u0)] = 1;
    const DeviceOrders orders = {{f0, u0}, {f1, u1}};
    CHECK(stuck_report(g, orders, next, done) ==
          "dev1 waits in '" + g.task(f1).label() + "' for the transfer of '" + g.task(f0).label() +
              "' from dev0, which never arrived");
  }
}

TEST_CASE("A ring all-reduce over p replicas takes 2(p-1)/p S/B + 2(p-1) latencies",
          "[platform][replicas]") {
  // p data-parallel replicas of a 2-stage pipeline (one micro-batch each, a backprop batch)
  // on fully connected links, so no two transfers share a link: each stage's gradients of
  // S bytes are all-reduced over a ring of its p replicas before its update.
  const std::int64_t S = 12'000;  // bytes of each stage's gradients
  for (int p : {2, 3, 4}) {
    INFO(p << " replicas");
    const PipelineLayout base = straight_layout(schedule_params(2, 1, 1));
    GraphSpec spec;
    spec.micro_batches = 1;
    spec.batches = {BatchKind::kBackprop};
    const TaskGraph one(base, spec);
    DeviceOrders base_orders(2);
    for (int s = 0; s < 2; ++s) {
      auto& o = base_orders[static_cast<std::size_t>(s)];
      o = {one.find(Pass::kForward, 0, 0, s), one.find(Pass::kBackward, 0, 0, s),
           one.find(Pass::kUpdate, 0, -1, s)};
    }
    spec.micro_batches = p;
    TaskGraph g(replicate_layout(base, p), spec);
    REQUIRE(g.reduce_steps() == 2 * (p - 1));
    const DeviceOrders orders = replicate_orders(one, base_orders, g, p);
    std::vector<std::int64_t> durations;
    for (const Task& t : g.tasks())
      durations.push_back(t.pass == Pass::kForward || t.pass == Pass::kBackward ? 50 : 0);
    LinkSpec link;
    link.bandwidth_gbps = 1;  // a byte per ns
    link.latency_ns = 100;
    link.pj_per_bit = 3;
    const Interconnect net(build("fully_connected", 2 * p, link));
    g.set_edge_bytes([&](const Task&, EdgeData d) -> std::int64_t {
      return d == EdgeData::kReduceChunk ? S / p : 0;
    });
    PlatformWork work{&g, &orders, durations};
    const PlatformResult r = run_platform(net, work);
    const double expected_ps =
        2.0 * (p - 1) / p * static_cast<double>(S) * 1000 + 2.0 * (p - 1) * 100'000;
    for (int s = 0; s < 2; ++s)
      for (int q = 0; q < p; ++q) {
        // Every replica's gradients are complete at the same time (identical replicas).
        const TaskTiming& done =
            r.tasks[static_cast<std::size_t>(g.find(Pass::kGradDone, 0, -1, s, q))];
        const TaskTiming& update =
            r.tasks[static_cast<std::size_t>(g.find(Pass::kUpdate, 0, -1, s, q))];
        CHECK(static_cast<double>(update.start_ps - done.end_ps) == expected_ps);
      }
    // Each replica sends its 2(p-1) chunks: 2(p-1) S bytes per stage cross the links.
    std::int64_t bytes = 0;
    double pj = 0;
    for (const ChannelStats& c : r.channels) bytes += c.bytes, pj += c.energy_pj;
    CHECK(bytes == 2 * 2 * (p - 1) * S);
    CHECK(pj == static_cast<double>(bytes) * 8 * 3);
  }
}

TEST_CASE("A stuck all-reduce is traced back to the task that holds it", "[platform][replicas]") {
  // Two replicas of a 1-stage pipeline; replica 0's device runs its update before the gradient
  // marker its all-reduce starts from: the ring's steps (in no order) can never run.
  const PipelineLayout base = straight_layout(schedule_params(1, 1, 1));
  GraphSpec spec;
  spec.micro_batches = 1;
  spec.batches = {BatchKind::kBackprop};
  spec.micro_batches = 2;
  const TaskGraph g(replicate_layout(base, 2), spec);
  DeviceOrders orders(2);
  for (int r = 0; r < 2; ++r) {
    auto& o = orders[static_cast<std::size_t>(r)];
    o = {g.find(Pass::kForward, 0, r, 0, r), g.find(Pass::kBackward, 0, r, 0, r)};
    const int done = g.find(Pass::kGradDone, 0, -1, 0, r);
    const int update = g.find(Pass::kUpdate, 0, -1, 0, r);
    if (r == 0)
      o.insert(o.end(), {update, done});
    else
      o.insert(o.end(), {done, update});
  }
  try {
    check_orders(g, orders);
    FAIL("the orders cannot finish");
  } catch (const StuckError& e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(what.find("dev0 waits in 'U b0 s0 r0' for 'R b0 k1 s0 r0' on dev0 (beside compute)") !=
          std::string::npos);
    CHECK(what.find("'G b0 s0 r0' on dev0, ordered after 'U b0 s0 r0' there") != std::string::npos);
  }
}
