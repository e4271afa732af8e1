// `trainsim replay`: Chakra traces run on a system (sim/pipeline/trace_replay.h).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "et_def.pb.h"
#include "models/platform/interconnect.h"
#include "sim/devices/system_config.h"
#include "sim/devices/work_op.h"
#include "sim/interop/chakra_trace.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

using ChakraProtoMsg::Node;

ChakraProtoMsg::AttributeProto int_attr(const std::string& name, std::int64_t v) {
  ChakraProtoMsg::AttributeProto a;
  a.set_name(name);
  a.set_int64_val(v);
  return a;
}

Node node(std::uint64_t id, const std::string& name, ChakraProtoMsg::NodeType type,
          std::vector<std::uint64_t> deps, std::vector<std::pair<std::string, std::int64_t>> ints) {
  Node n;
  n.set_id(id);
  n.set_name(name);
  n.set_type(type);
  for (auto d : deps) n.add_data_deps(d);
  for (const auto& [k, v] : ints) *n.add_attr() = int_attr(k, v);
  return n;
}

Node send(std::uint64_t id, std::vector<std::uint64_t> deps, int src, int dst, int tag,
          std::int64_t bytes) {
  return node(id, "send" + std::to_string(id), ChakraProtoMsg::COMM_SEND_NODE, deps,
              {{"comm_src", src}, {"comm_dst", dst}, {"comm_tag", tag}, {"comm_size", bytes}});
}

Node recv(std::uint64_t id, std::vector<std::uint64_t> deps, int src, int dst, int tag,
          std::int64_t bytes) {
  return node(id, "recv" + std::to_string(id), ChakraProtoMsg::COMM_RECV_NODE, deps,
              {{"comm_src", src}, {"comm_dst", dst}, {"comm_tag", tag}, {"comm_size", bytes}});
}

// The makespan of the run's traced stretch, ps, from its timeline (microseconds).
double timeline_end_ps(const std::string& file) {
  const auto trace = nlohmann::json::parse(read_file(file));
  double end = 0;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == "X") end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
  return end * 1e6;
}

}  // namespace

TEST_CASE("Chakra traces of a system run replay on the same system in the run's time",
          "[chakra][replay]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("chakra_replay");
  write_file(dir + "/exp.yaml",
             "name: pipe\nnetwork: lenet5\nnumerics: none\n"
             "dataset: {name: fashion-mnist, train_limit: 640, test_limit: 100}\n"
             "training: {epochs: 1, batch_size: 64}\naccelerator: adagp_ws180\n"
             "system: four_ws180_chain\npipeline: {schedule: gpipe, micro_batches: 4}\n");
  const auto run = run_trainsim(
      {"run", dir + "/exp.yaml", "--out", dir + "/out", "--quiet", "--chakra", dir + "/et"});
  INFO(run.err);
  REQUIRE(run.exit_code == 0);
  const double run_ps = timeline_end_ps(dir + "/out/timeline.json");
  REQUIRE(run_ps > 0);
  // The traces' own dependencies and transfers.
  std::int64_t deps = 0, sends = 0;
  for (int d = 0; d < 4; ++d) {
    const ChakraTrace t = read_chakra_trace(dir + "/et/pipe." + std::to_string(d) + ".et");
    for (const ChakraNodeRecord& n : t.nodes) {
      std::set<std::uint64_t> on(n.data_deps.begin(), n.data_deps.end());
      on.insert(n.ctrl_deps.begin(), n.ctrl_deps.end());
      deps += static_cast<std::int64_t>(on.size());
      sends += n.type == "COMM_SEND_NODE";
    }
  }

  // With the recorded durations the replay is the run: the same tasks, each device's order
  // kept by the ctrl_deps, the same links; the timeline's microseconds carry the run's end
  // to well under a picosecond per microsecond.
  const auto trace = run_trainsim({"replay", dir + "/et/pipe", "--system", "four_ws180_chain",
                                   "--timing", "trace", "--json", "-o", dir + "/replay"});
  INFO(trace.err);
  REQUIRE(trace.exit_code == 0);
  const auto tj = nlohmann::json::parse(trace.out);
  CHECK(tj["kind"] == "replay");
  CHECK(tj["totals"]["dependencies"].get<std::int64_t>() == deps);
  CHECK(tj["totals"]["transfers"].get<std::int64_t>() == sends);
  const double trace_ps = tj["totals"]["makespan_ps"].get<double>();
  CHECK(std::abs(trace_ps - run_ps) <= 1e-9 * run_ps);
  CHECK(nlohmann::json::parse(read_file(dir + "/replay/stats.json")) == tj);
  CHECK(std::filesystem::exists(dir + "/replay/devices.csv"));
  // Its report.html, drawn from those files, carries the makespan stats.json holds.
  const std::string html = read_file(dir + "/replay/report.html");
  CHECK(html.find("trainsim replay: ") != std::string::npos);
  const std::string key = "data-key=\"makespan_seconds\" data-v=\"";
  const auto at = html.find(key);
  REQUIRE(at != std::string::npos);
  CHECK(std::stod(html.substr(at + key.size())) ==
        Approx(tj["totals"]["makespan_seconds"].get<double>()).epsilon(1e-12));
  CHECK(html.find("Time per device") != std::string::npos);

  // Priced by the device (each COMP node one GEMM of the stage's MACs and bytes on the
  // accelerator's fast fidelity, each MEM node a stream of its bytes) the time is the model's
  // estimate of the same work, not the run's SystemC simulation of each op: stated, and held
  // within the bound docs/interop.md gives.
  const auto device =
      run_trainsim({"replay", dir + "/et/pipe", "--system", "four_ws180_chain", "--json"});
  INFO(device.err);
  REQUIRE(device.exit_code == 0);
  const auto dj = nlohmann::json::parse(device.out);
  CHECK(dj["totals"]["dependencies"].get<std::int64_t>() == deps);
  const double device_ps = dj["totals"]["makespan_ps"].get<double>();
  const double ratio = device_ps / run_ps;
  WARN("run " << run_ps << " ps, replay (trace timing) " << trace_ps
              << " ps, replay (device timing) " << device_ps << " ps, ratio " << ratio);
  CHECK(ratio > 0.5);
  CHECK(ratio < 2.0);
  for (const auto& d : dj["devices"]) CHECK(d["compute_energy_j"].get<double>() > 0);
}

TEST_CASE("A hand-built Chakra trace replays to the devices' own prices", "[chakra][replay]") {
  const std::string dir = fresh_dir("chakra_replay_hand");
  // Device 0 (adagp_ws180): two GEMM-like nodes in a chain, then a send of 1 MB to device 1
  // (a V100), which loads 4 MB after the recv and then computes.
  const std::int64_t ops_a = 2 * 64 * 64 * 64, bytes_a = 3 * 64 * 64 * 2;
  const std::int64_t ops_b = 2'000'000'000, bytes_b = 50'000'000;
  const std::int64_t ops_c = 1'000'000'000, bytes_c = 10'000'000, sent = 1'000'000,
                     loaded = 4'000'000;
  write_chakra_trace(
      dir + "/t.0.et",
      {node(0, "a", ChakraProtoMsg::COMP_NODE, {}, {{"num_ops", ops_a}, {"tensor_size", bytes_a}}),
       node(1, "b", ChakraProtoMsg::COMP_NODE, {0}, {{"num_ops", ops_b}, {"tensor_size", bytes_b}}),
       send(2, {1}, 0, 1, 7, sent)});
  write_chakra_trace(dir + "/t.1.et", {recv(0, {}, 0, 1, 7, sent),
                                       node(1, "load", ChakraProtoMsg::MEM_LOAD_NODE, {0},
                                            {{"tensor_size", loaded}}),
                                       node(2, "c", ChakraProtoMsg::COMP_NODE, {1},
                                            {{"num_ops", ops_c}, {"tensor_size", bytes_c}})});
  const auto r = run_trainsim({"replay", dir + "/t", "--system", "ws180_v100_chain", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);

  // The same prices, asked of the devices here.
  const SystemSpec sys = load_system("ws180_v100_chain");
  auto d0 = entry_device_model(sys.devices[0])->build();
  auto d1 = entry_device_model(sys.devices[1])->build();
  auto ps = [](const OpCost& c) { return std::llround(c.time_s * 1e12); };
  const OpCost a = d0->cost(op_for_work(ops_a / 2.0, bytes_a, d0->word_bytes()));
  const OpCost b = d0->cost(op_for_work(ops_b / 2.0, bytes_b, d0->word_bytes()));
  const OpCost load = d1->cost(op_for_work(0, loaded, d1->word_bytes()));
  const OpCost c = d1->cost(op_for_work(ops_c / 2.0, bytes_c, d1->word_bytes()));
  const Interconnect net(sys.net);
  const std::int64_t link = net.transfer_ps(0, 1, sent);
  CHECK(link == 1'000'000 + 31'250'000);  // 1 us latency + 1 MB at 32 GB/s
  CHECK(j["totals"]["makespan_ps"].get<std::int64_t>() == ps(a) + ps(b) + link + ps(load) + ps(c));
  CHECK(j["totals"]["dependencies"] == 4);
  CHECK(j["totals"]["transfers"] == 1);
  const auto& dev = j["devices"];
  CHECK(dev[0]["kind"] == "accelerator");
  CHECK(dev[1]["kind"] == "gpu");
  CHECK(dev[0]["busy_ps"].get<std::int64_t>() == ps(a) + ps(b));
  CHECK(dev[1]["busy_ps"].get<std::int64_t>() == ps(load) + ps(c));
  CHECK(dev[1]["memory_ps"].get<std::int64_t>() == ps(load));
  CHECK(dev[0]["compute_energy_j"].get<double>() == Approx(a.energy_j + b.energy_j));
  CHECK(dev[1]["compute_energy_j"].get<double>() == Approx(c.energy_j));
  CHECK(dev[1]["memory_energy_j"].get<double>() == Approx(load.energy_j));
  CHECK(dev[0]["comm_energy_j"].get<double>() == Approx(sent * 8 * 5e-12));
  // The GEMM a node becomes has its MACs, to the rounding of whole dimensions.
  const GemmShape g = gemm_for_work(ops_b / 2.0, bytes_b / 2.0);
  CHECK(static_cast<double>(g.macs()) == Approx(ops_b / 2.0).epsilon(1e-3));
}

TEST_CASE("Chakra traces a replay cannot run are refused, naming the file and the node",
          "[chakra][replay]") {
  const std::string dir = fresh_dir("chakra_replay_bad");
  auto comp = [](std::uint64_t id, std::vector<std::uint64_t> deps) {
    return node(id, "c" + std::to_string(id), ChakraProtoMsg::COMP_NODE, deps,
                {{"num_ops", 2000}, {"tensor_size", 3000}});
  };
  // A good pair first, to show that what the cases change is what is refused.
  write_chakra_trace(dir + "/good.0.et", {comp(0, {}), send(1, {0}, 0, 1, 1, 100)});
  write_chakra_trace(dir + "/good.1.et", {recv(0, {}, 0, 1, 1, 100), comp(1, {0})});
  REQUIRE(run_trainsim({"replay", dir + "/good", "--system", "ws180_v100_chain", "-q"}).exit_code ==
          0);

  write_chakra_trace(dir + "/nosend.0.et", {comp(0, {})});
  write_chakra_trace(dir + "/nosend.1.et", {recv(0, {}, 0, 1, 1, 100), comp(1, {0})});
  write_chakra_trace(dir + "/norecv.0.et", {comp(0, {}), send(1, {0}, 0, 1, 1, 100)});
  write_chakra_trace(dir + "/norecv.1.et", {comp(0, {})});
  write_chakra_trace(dir + "/cycle.0.et", {recv(0, {}, 1, 0, 1, 10), send(1, {0}, 0, 1, 2, 10)});
  write_chakra_trace(dir + "/cycle.1.et", {recv(0, {}, 0, 1, 2, 10), send(1, {0}, 1, 0, 1, 10)});
  write_chakra_trace(dir + "/bare.0.et", {comp(0, {})});
  write_chakra_trace(dir + "/bare.1.et",
                     {node(0, "bare", ChakraProtoMsg::COMP_NODE, {}, {{"tensor_size", 8}})});
  write_chakra_trace(dir + "/three.0.et", {comp(0, {})});
  write_chakra_trace(dir + "/three.1.et", {comp(0, {})});
  write_chakra_trace(dir + "/three.2.et", {comp(0, {})});
  write_chakra_trace(dir + "/one.0.et", {comp(0, {})});
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nosend",
       "nosend.1.et: node 0 (id 0, 'recv0'): a recv from device 0 with comm_tag 1 "
       "that no send of that device matches"},
      {"norecv",
       "norecv.0.et: node 1 (id 1, 'send1'): a send to device 1 with comm_tag 1 "
       "that no recv of that device matches"},
      {"cycle", "cycle.0.et: node 0 (id 0, 'recv0'): on a dependency cycle"},
      {"bare",
       "bare.1.et: node 0 (id 0, 'bare'): a COMP node with neither num_ops nor a "
       "duration"},
      {"three", "three.2.et: a trace for device 2, but system 'ws180_v100_chain' has 2 devices"},
      {"one", "one.1.et: no such trace; system 'ws180_v100_chain' has 2 devices"},
      {"absent", "absent.0.et: no such trace"},
  };
  for (const auto& [prefix, message] : cases) {
    INFO(prefix);
    const auto r = run_trainsim(
        {"replay", dir + "/" + prefix, "--system", "ws180_v100_chain", "-o", dir + "/out"});
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(message));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);  // one line
    CHECK(r.out.empty());
    CHECK_FALSE(std::filesystem::exists(dir + "/out"));  // no partial output
    CHECK_FALSE(std::filesystem::exists(dir + "/out.partial"));
  }
  // A directory trainsim did not write is never replaced, --force or not.
  std::filesystem::create_directories(dir + "/mine");
  write_file(dir + "/mine/notes.txt", "keep");
  for (bool force : {false, true}) {
    std::vector<std::string> args = {"replay", dir + "/good", "--system", "ws180_v100_chain",
                                     "-o",     dir + "/mine", "-q"};
    if (force) args.push_back("-f");
    const auto r = run_trainsim(args);
    CHECK(r.exit_code == 2);
    CHECK(read_file(dir + "/mine/notes.txt") == "keep");
  }
  // What trainsim wrote, --force replaces.
  REQUIRE(run_trainsim(
              {"replay", dir + "/good", "--system", "ws180_v100_chain", "-o", dir + "/ours", "-q"})
              .exit_code == 0);
  CHECK(run_trainsim(
            {"replay", dir + "/good", "--system", "ws180_v100_chain", "-o", dir + "/ours", "-q"})
            .exit_code == 2);
  CHECK(run_trainsim({"replay", dir + "/good", "--system", "ws180_v100_chain", "-o", dir + "/ours",
                      "-q", "-f"})
            .exit_code == 0);
}

TEST_CASE("A Chakra send that waits for nothing leaves at the start", "[chakra][replay]") {
  // No task wakes such a send (work beside compute runs when its inputs arrive): the list
  // scheduler and the platform must still start it.
  const std::string dir = fresh_dir("chakra_replay_root");
  const std::int64_t bytes = 64'000, ops = 2'000'000, size = 12'000;
  write_chakra_trace(dir + "/t.0.et", {send(0, {}, 0, 1, 3, bytes)});
  write_chakra_trace(dir + "/t.1.et", {recv(0, {}, 0, 1, 3, bytes),
                                       node(1, "c", ChakraProtoMsg::COMP_NODE, {0},
                                            {{"num_ops", ops}, {"tensor_size", size}})});
  const auto r = run_trainsim({"replay", dir + "/t", "--system", "ws180_v100_chain", "--json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const SystemSpec sys = load_system("ws180_v100_chain");
  auto d1 = entry_device_model(sys.devices[1])->build();
  const OpCost c = d1->cost(op_for_work(ops / 2.0, size, d1->word_bytes()));
  const Interconnect net(sys.net);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["totals"]["makespan_ps"].get<std::int64_t>() ==
        net.transfer_ps(0, 1, bytes) + std::llround(c.time_s * 1e12));
  CHECK(j["devices"][0]["busy_ps"] == 0);
  CHECK(j["devices"][0]["sent_bytes"] == bytes);
}
