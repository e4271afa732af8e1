// Training on a Hype-training system through the real binary: LeNet-5 on Fashion-MNIST on a
// V100 and three S10s reaches exactly the accuracy of the run without the system (placement
// never changes numerics) and writes every report; the energy policy is no slower than
// gpu-only on the paper's four CNNs; the power-cap policy keeps its cap; bad systems fail with
// one line, exit 2 and no output.
#include <catch2/catch.hpp>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/core/csv.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

const std::string kZoo = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/hype_zoo.yaml";

const char* kHype = "hype: {gpu: v100, offload: s10_gx2500, offloads: 3, policy: energy}\n";

std::string lenet_body(const std::string& extra) {
  return "name: hype\nnetwork: lenet5\n"
         "dataset: {name: fashion-mnist, train_limit: 2000, test_limit: 500}\n"
         "training: {epochs: 2, batch_size: 64, seed: 3, threads: 1,\n"
         "           optimizer: {kind: sgd, lr: 0.02, momentum: 0.9, reduction: mean}}\n" +
         extra;
}

std::string column(const std::string& csv, const std::string& name) {
  const auto rows = parse_csv(csv);
  std::size_t c = 0;
  while (c < rows[0].size() && rows[0][c] != name) ++c;
  std::string out;
  for (std::size_t r = 1; r < rows.size(); ++r) out += rows[r].at(c) + "\n";
  return out;
}

}  // namespace

TEST_CASE("LeNet-5 on a V100 and three S10s trains exactly as on one device", "[hype][cli]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("hype-lenet");
  const std::string exp = write_experiment(dir, lenet_body(kHype));
  const auto hype = run_trainsim(
      {"run", exp, "--out", dir + "/hype", "--quiet", "--summary", dir + "/hype.json"});
  INFO(hype.err);
  REQUIRE(hype.exit_code == 0);
  const auto single =
      run_trainsim({"run", exp, "--out", dir + "/single", "--quiet", "--set", "hype=none"});
  INFO(single.err);
  REQUIRE(single.exit_code == 0);
  CHECK(nlohmann::json::parse(read_file(dir + "/hype/stats.json"))["kind"] == "hype");
  // Its devices share no clock: seconds, and no run-wide cycles.
  const auto summary = nlohmann::json::parse(read_file(dir + "/hype.json"));
  CHECK(summary["cycles"].is_null());
  CHECK(summary["seconds"].get<double>() > 0);
  CHECK(nlohmann::json::parse(read_file(dir + "/single/stats.json"))["kind"] == "run");
  // The same test accuracy and loss, to the last digit, every epoch.
  const std::string h = read_file(dir + "/hype/epochs.csv");
  check_epochs_schema(h);                       // kind hype
  CHECK(column(h, "energy_unit") == "J\nJ\n");  // two epochs
  const std::string s = read_file(dir + "/single/epochs.csv");
  CHECK(column(h, "test_accuracy") == column(s, "test_accuracy"));
  CHECK(column(h, "test_loss") == column(s, "test_loss"));
  for (const char* f : {"config.resolved.yaml", "stats.json", "ops.csv", "placement.csv",
                        "devices.csv", "links.csv", "power.csv", "timeline.json"})
    CHECK(std::filesystem::exists(dir + "/hype/" + f));
  const auto j = nlohmann::json::parse(read_file(dir + "/hype/stats.json"));
  CHECK(j["policy"] == "energy");
  CHECK(j["ops_per_iteration"].get<int>() > 20);
  const auto& it = j["iteration"];
  CHECK(it["policy"]["iteration_s"].get<double>() <= it["gpu_only"]["iteration_s"].get<double>());
  CHECK(nlohmann::json::parse(read_file(dir + "/hype/timeline.json"))["traceEvents"].size() > 20);
  // ops.csv: one row per op; placement.csv ends with the totals.
  CHECK(parse_csv(read_file(dir + "/hype/ops.csv")).size() ==
        1 + j["ops_per_iteration"].get<std::size_t>());
  const auto placement = parse_csv(read_file(dir + "/hype/placement.csv"));
  CHECK(placement.back()[0] == "all");
  // An op planned off the GPU that ran on it says why, with exactly one reason.
  for (const auto& op : csv_rows(read_file(dir + "/hype/ops.csv"))) {
    if (op.at("planned") != "offload" || op.at("ran_on") != "gpu") continue;
    INFO("op " << op.at("op"));
    int reasons = 0;
    for (const char* why : {"demoted", "overlap_blocked", "guard_demoted"})
      reasons += op.at(why) == "yes";
    CHECK(reasons == 1);
  }
  // The resolved configuration runs again to the same results.
  const auto again =
      run_trainsim({"run", dir + "/hype/config.resolved.yaml", "--out", dir + "/again", "--quiet"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(dir + "/again/stats.json") == read_file(dir + "/hype/stats.json"));
}

TEST_CASE("Hype Case 1 is never slower than gpu-only on the paper's CNNs", "[hype][cli]") {
  const std::string dir = fresh_dir("hype-zoo");
  for (const char* net :
       {"alexnet_imagenet", "vgg16_imagenet", "resnet50_imagenet", "inceptionv3_imagenet"}) {
    const std::string out = dir + "/" + net;
    const auto r = run_trainsim(
        {"run", kZoo, "--set", std::string("network=") + net, "--out", out, "--quiet"});
    INFO(net << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(read_file(out + "/stats.json"));
    const auto& it = j["iteration"];
    CHECK(it["policy"]["iteration_s"].get<double>() <= it["gpu_only"]["iteration_s"].get<double>());
    CHECK(j["gains"]["throughput"].get<double>() >= 0);
    // The two readings of the paper's energy figure describe one ratio of energies.
    const double ratio =
        it["policy"]["energy_j"].get<double>() / it["gpu_only"]["energy_j"].get<double>();
    CHECK(j["gains"]["energy_reduction"].get<double>() == Approx(1 - ratio));
    CHECK(j["gains"]["energy_efficiency"].get<double>() == Approx(1 / ratio - 1));
    CHECK(it["policy"]["offloaded_ops"].get<int>() > 0);
    CHECK(j["exposed_transfer_s"].get<double>() >= 0);
    CHECK(j["exposed_transfer_s"].get<double>() < it["policy"]["iteration_s"].get<double>());
  }
  // trainsim's own accelerator in the FPGAs' place, two or three of them: a 180-PE array wins
  // no op against the V100, so nothing is offloaded and the run is gpu-only's.
  for (const char* offloads : {"2", "3"}) {
    INFO(offloads << " adagp_ws180 offload devices");
    const std::string out = dir + "/accel" + offloads;
    const auto acc =
        run_trainsim({"run", kZoo, "--set", "hype.offload=adagp_ws180", "--set",
                      std::string("hype.offloads=") + offloads, "--out", out, "--quiet"});
    INFO(acc.err);
    REQUIRE(acc.exit_code == 0);
    const auto j = nlohmann::json::parse(read_file(out + "/stats.json"));
    CHECK(j["system"]["offload"] == "adagp_ws180");
    CHECK(j["system"]["offloads"] == std::stoi(offloads));
    CHECK(j["characterization"]["planned_offload"] == 0);
    CHECK(j["iteration"]["policy"]["iteration_s"] == j["iteration"]["gpu_only"]["iteration_s"]);
  }
}

TEST_CASE("Hype Case 2 keeps its power cap", "[hype][cli]") {
  const std::string dir = fresh_dir("hype-cap");
  for (int cap : {250, 230, 210}) {
    const std::string out = dir + "/cap" + std::to_string(cap);
    const auto r = run_trainsim(
        {"run", kZoo, "--set", "network=resnet50_imagenet", "--set", "hype.policy=power-cap",
         "--set", "hype.power_cap_w=" + std::to_string(cap), "--out", out, "--quiet"});
    INFO(cap << " W: " << r.err);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(read_file(out + "/stats.json"));
    CHECK(j["iteration"]["policy"]["violations"].get<double>() == 0);
    CHECK(j["iteration"]["policy"]["peak_w"].get<double>() <= cap * (1 + 1e-9));
    // Without the cap's admission, gpu-only's peaks go over it.
    CHECK(j["iteration"]["gpu_only"]["violations"].get<double>() > 0);
  }
}

TEST_CASE("A hype: over a system's devices is the hype: that names them", "[hype][cli]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("hype-over-system");
  const auto named = run_trainsim({"run", write_experiment(dir, lenet_body(kHype)), "--out",
                                   dir + "/named", "--quiet", "--set", "numerics=none"});
  INFO(named.err);
  REQUIRE(named.exit_code == 0);
  const std::string sys_dir = fresh_dir("hype-over-system-devices");
  const std::string exp = write_experiment(
      sys_dir, lenet_body("system: {devices: [{device: v100}, {device: s10_gx2500, count: 3}]}\n"
                          "hype: {policy: energy}\n"));
  const auto over =
      run_trainsim({"run", exp, "--out", sys_dir + "/over", "--quiet", "--set", "numerics=none"});
  INFO(over.err);
  REQUIRE(over.exit_code == 0);
  const auto a = nlohmann::json::parse(read_file(dir + "/named/stats.json"));
  const auto b = nlohmann::json::parse(read_file(sys_dir + "/over/stats.json"));
  CHECK(b["kind"] == "hype");
  CHECK(b["system"]["gpu"] == "v100");
  CHECK(b["system"]["offload"] == "s10_gx2500");
  CHECK(b["system"]["offloads"] == 3);
  CHECK(b["iteration"] == a["iteration"]);
  CHECK(b["epochs"] == a["epochs"]);
  // Its resolved config runs again to the same iteration.
  const auto again = run_trainsim(
      {"run", sys_dir + "/over/config.resolved.yaml", "--out", sys_dir + "/again", "--quiet"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(nlohmann::json::parse(read_file(sys_dir + "/again/stats.json"))["iteration"] ==
        b["iteration"]);
}

TEST_CASE("A hype: over a named system keeps a note about its unused links", "[hype][cli]") {
  // A preset system, overridden or not: its topology and links are the file's, unused.
  const std::string dir = fresh_dir("hype-over-named-system");
  const std::string exp =
      write_experiment(dir,
                       "name: hs\nnumerics: none\nnetwork: lenet5\ndataset: {name: fashion-mnist}\n"
                       "training: {epochs: 1, batch_size: 64}\nsystem: ws180_v100_chain\n"
                       "hype: {policy: energy}\n");
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{},
        std::vector<std::string>{"--set", "system.devices.1.count=2"}}) {
    std::vector<std::string> args = {"validate", exp};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_trainsim(args);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out + r.err, Catch::Contains("topology and links are unused under hype:"));
  }
}

TEST_CASE("Bad hype systems fail with one line and no output", "[hype][cli]") {
  const std::string dir = fresh_dir("hype-errors");
  struct Case {
    std::string hype, expect;
  };
  const std::vector<Case> cases = {
      {"hype: {gpu: v100, offload: nope, offloads: 3}", "nope"},
      {"hype: {gpu: {kind: tpu}}", "unknown device kind 'tpu'"},
      {"hype: {gpu: v100, offload: {kind: fpga, clock_mhz: 1000, memory_gbps: 14.9,\n"
       "  resources: {dsp: 100, ram_blocks: 100, ram_block_bytes: 2048},\n"
       "  power: {static_w: 10, dynamic_max_w: 33},\n"
       "  design_space: {compute_units: [1], simd: [1], work_group: [32], unroll: [1, 4]},\n"
       "  kernels: {matmul: {small: {compute_units: 4, simd: 16, work_group: 256, unroll: 64}}}},\n"
       "  offloads: 3}",
       "matmul"},
      {"hype: {gpu: v100, offload: s10_gx2500, offloads: 3, policy: power-cap, power_cap_w: 50}",
       "below the system's static power"},
      {"hype: {gpu: v100, policy: power-cap}", "needs power_cap_w"},
      {"hype: {gpu: v100, links: {offload: {bandwidth_gbps: 10}}}", "a link to nowhere"},
      {"hype: {gpu: v100, links: {fpga9: {bandwidth_gbps: 10}}}", "fpga9"},
      {"hype: {gpu: v100, policy: fastest}", "unknown policy 'fastest'"},
      // A placement given as data (policy listed) and what cannot be one.
      {"hype: {gpu: v100, offload: s10_gx2500, policy: listed}", "needs offload_types"},
      {"hype: {gpu: v100, offload: s10_gx2500, offload_types: [MatMul]}",
       "offload_types is the placement of policy listed (policy is energy)"},
      {"hype: {gpu: v100, offload: s10_gx2500, policy: listed, offload_types: [Conv3D]}",
       "unknown op type 'Conv3D' (known: MatMul, Conv2D,"},
      {"hype: {gpu: v100, gpus: 2, offload: s10_gx2500, offloads: 3}", "do not divide"},
      {"hype: {gpu: v100, overlap_rule: maybe}", "overlap_rule"},
      {"hype: {gpu: v100, sample_ms: 0.0000001}", "sample_ms"},
      {"hype: {gpu: {kind: fpga, clock_mhz: 1000, memory_gbps: 14.9,\n"
       "  resources: {dsp: 5000, ram_blocks: 9000, ram_block_bytes: 2048},\n"
       "  power: {static_w: 10, dynamic_max_w: 33},\n"
       "  design_space: {compute_units: [1], simd: [1], work_group: [32], unroll: [1, 4]},\n"
       "  kernels: {matmul: search}}}",
       "has no kernel for Conv2D"},
      // A hype: over the experiment's system: its devices, in order, are GPUs then one kind of
      // offload device; it takes no device keys and its system no links.
      {"hype: {gpu: v100}\nsystem: {devices: [{device: v100}]}", "takes its devices from"},
      {"hype: {policy: energy}\nsystem: {devices: [{device: v100}, {device: s10_gx2500}, "
       "{device: h100}]}",
       "at most one kind of offload device"},
      {"hype: {policy: energy}\nsystem: {devices: [{device: v100}], topology: ring}",
       "talk over the host"},
      {"hype: {policy: energy}\nsystem: {devices: [{device: v100, count: 2}, "
       "{device: s10_gx2500, count: 3}]}",
       "do not divide"},
      // Kinds are devices, not names: one accelerator with two dataflows is two kinds.
      {"hype: {policy: energy}\nsystem: {devices: [{accelerator: adagp_ws180}, "
       "{accelerator: adagp_ws180, dataflow: os}, {accelerator: adagp_ws180}]}",
       "3 kinds"},
      // DVFS scales the GPUs' clock: trainsim's accelerator has none to scale.
      {"hype: {gpu: adagp_ws180, policy: dvfs, power_cap_w: 100}", "has none to scale"},
      {"hype: {policy: dvfs, power_cap_w: 100}\nsystem: {devices: [{device: adagp_ws180}]}",
       "(system.devices.0, kind accelerator) has none to scale"},
      // Nothing in a hype: run is clocked: a cycle fidelity is refused, not ignored.
      {"hype: {gpu: v100}\nfidelity: cycle", "has no cycle fidelity"},
      // A pipeline: block beside hype: is unused, but still checked.
      {"hype: {policy: energy}\nsystem: {devices: [{device: v100}]}\npipeline: {replicas: 0}",
       "pipeline.replicas"},
      {"hype: {policy: energy}\nsystem: {devices: [{device: {kind: fpga, clock_mhz: 1000,\n"
       "  memory_gbps: 14.9, resources: {dsp: 5000, ram_blocks: 9000, ram_block_bytes: 2048},\n"
       "  power: {static_w: 10, dynamic_max_w: 33},\n"
       "  design_space: {compute_units: [1], simd: [1], work_group: [32], unroll: [1, 4]},\n"
       "  kernels: {matmul: search}}}]}",
       "system.devices.0: device"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string out = dir + "/out" + std::to_string(i);
    const std::string exp = dir + "/c" + std::to_string(i) + ".yaml";
    write_file(exp,
               "name: bad\nnumerics: none\nnetwork: lenet5\ndataset: {name: fashion-mnist}\n"
               "training: {epochs: 1, batch_size: 64}\n" +
                   cases[i].hype + "\n");
    const auto r = run_trainsim({"run", exp, "--out", out});
    INFO(cases[i].hype);
    require_clean_failure(r, out, {cases[i].expect});
  }
}

TEST_CASE("trainsim list policies", "[hype][cli]") {
  const auto r = run_trainsim({"list", "policies"});
  REQUIRE(r.exit_code == 0);
  for (const char* p : {"gpu-only", "energy", "power-cap", "dvfs"})
    CHECK(r.out.find(p) != std::string::npos);
}

TEST_CASE("trainsim compare --systems gpu-only,hype", "[hype][cli]") {
  const std::string dir = fresh_dir("hype-compare");
  const auto r = run_trainsim(
      {"compare", kZoo, "--systems", "gpu-only,hype", "--out", dir + "/cmp", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/cmp/compare.csv"));
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].at("variant") == "gpu-only");
  CHECK(rows[1].at("variant") == "hype");
  CHECK(std::stod(rows[0].at("speedup")) == 1.0);
  // Case 1 on AlexNet: no slower, and the same work for less energy.
  CHECK(std::stod(rows[1].at("speedup")) >= 1.0);
  CHECK(std::stod(rows[1].at("energy_efficiency_rel")) >= 1.0);
  // The ratios are the runs' own figures.
  const auto hype = nlohmann::json::parse(read_file(dir + "/cmp/hype/stats.json"));
  const auto base = nlohmann::json::parse(read_file(dir + "/cmp/gpu-only/stats.json"));
  CHECK(std::stod(rows[1].at("speedup")) == Approx(base["epochs"][0]["seconds"].get<double>() /
                                                   hype["epochs"][0]["seconds"].get<double>())
                                                .epsilon(1e-5));
  // --systems needs a hype: system, and goes alone.
  require_clean_failure(
      run_trainsim({"compare",
                    std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/quickstart.yaml",
                    "--systems", "gpu-only", "--out", dir + "/bad1"}),
      dir + "/bad1", {"no hype: system"});
  require_clean_failure(run_trainsim({"compare", kZoo, "--systems", "gpu-only", "--dataflows",
                                      "ws,os", "--out", dir + "/bad2"}),
                        dir + "/bad2", {"--systems"});
}

TEST_CASE("Hype keys that only offloading reads are noted on GPUs alone", "[hype][cli]") {
  const std::string dir = fresh_dir("hype-notes");
  write_file(dir + "/exp.yaml",
             "name: alone\nnumerics: none\nnetwork: lenet5\ndataset: {name: fashion-mnist}\n"
             "training: {epochs: 1, batch_size: 64}\n"
             "hype: {gpu: v100, overlap_rule: previous, thresholds: {combine: or}}\n");
  const auto r = run_trainsim({"run", dir + "/exp.yaml", "--out", dir + "/out"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("note: hype.overlap_rule: unused") != std::string::npos);
  CHECK(r.out.find("note: hype.thresholds: unused") != std::string::npos);
}

TEST_CASE("A Hype placement given as data runs as the policy with the same plan", "[hype][cli]") {
  // policy: listed places every op of the listed types the offload devices can run there:
  // [MatMul, Conv2D] is the authors' public code (policy public-code), op for op; an empty
  // list keeps every op on the GPU, as gpu-only does, beside idle FPGAs.
  const std::string dir = fresh_dir("hype-listed");
  auto stats = [&](const std::string& name, const std::vector<std::string>& sets) {
    std::vector<std::string> args = {"run", kZoo, "--out", dir + "/" + name, "--quiet"};
    for (const std::string& s : sets) args.insert(args.end(), {"--set", s});
    const auto r = run_trainsim(args);
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(read_file(dir + "/" + name + "/stats.json"));
  };
  const auto code = stats("code", {"hype.policy=public-code"});
  const auto listed =
      stats("listed", {"hype.policy=listed", "hype.offload_types=[MatMul, Conv2D]"});
  CHECK(listed["iteration"]["policy"] == code["iteration"]["policy"]);
  CHECK(listed["epochs"] == code["epochs"]);
  CHECK(code["iteration"]["policy"]["offloaded_ops"].get<int>() > 0);
  const auto none = stats("none", {"hype.policy=listed", "hype.offload_types=[]"});
  const auto& run = none["iteration"]["policy"];
  CHECK(run["offloaded_ops"].get<int>() == 0);
  CHECK(run["iteration_s"] == none["iteration"]["gpu_only"]["iteration_s"]);
}
