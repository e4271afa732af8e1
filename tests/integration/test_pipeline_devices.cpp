// Pipelines whose devices are of any kind (`device:` entries of `system:`): a GPU as a stage
// costs what its model says its ops cost (the Hype engine agrees exactly on a GPU alone); a
// trainsim accelerator beside a GPU costs what it costs beside another accelerator; the
// stages are balanced on each stage's own device; bad device entries fail with one line.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// LeNet-5 on the first 640 / 100 Fashion-MNIST samples, batch 64 (ten batches), one epoch,
// shape only.
std::string lenet_body(const std::string& extra) {
  return "name: hetero\nnetwork: lenet5\nnumerics: none\n"
         "dataset: {name: fashion-mnist, train_limit: 640, test_limit: 100}\n"
         "training: {epochs: 1, batch_size: 64, seed: 1,\n"
         "           optimizer: {kind: sgd, lr: 0.02, momentum: 0.9, reduction: mean}}\n"
         "accelerator: adagp_ws180\n" +
         extra;
}

// The shipped Stratix 10 with its MatMul kernel only (its `kernels:` block replaced).
std::string gemm_only_fpga() {
  std::string text =
      read_file(std::string(TRAINSIM_SOURCE_DIR) + "/configs/devices/s10_gx2500.yaml");
  const std::size_t from = text.find("\nkernels:\n");
  REQUIRE(from != std::string::npos);
  std::size_t to = from + 1;
  do {
    to = text.find('\n', to) + 1;
  } while (to < text.size() && (text[to] == ' ' || text[to] == '#'));
  return text.substr(0, from) + "\nkernels:\n  matmul: search\n" + text.substr(to);
}

nlohmann::json run_stats(const std::string& exp, const std::string& out) {
  const auto r = run_trainsim({"run", exp, "--out", out, "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_file(out + "/stats.json"));
}

}  // namespace

TEST_CASE("A V100 alone as a pipeline costs exactly what Hype's GPU-only run costs",
          "[pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-devices-v100");
  // One device, one micro-batch: every op of each batch back to back on the GPU. Hype's
  // engine, gpu-only without TensorFlow's separate bias ops, runs the same op stream on the
  // same model: two engines, one answer.
  const auto piped =
      run_stats(write_experiment(dir, lenet_body("system: {devices: [{device: v100}]}\n"
                                                 "pipeline: {micro_batches: 1}\n")),
                dir + "/piped");
  const std::string hype_dir = fresh_dir("pipeline-devices-hype");
  const auto hype =
      run_stats(write_experiment(
                    hype_dir, lenet_body("hype: {gpu: v100, policy: gpu-only, bias_ops: false}\n")),
                hype_dir + "/out");
  CHECK(piped["devices"][0]["kind"] == "gpu");
  CHECK(piped["devices"][0]["accelerator"] == "v100");
  CHECK(piped["totals"]["device_energy_unit"] == "pJ");
  const double hype_seconds = hype["epochs"][0]["seconds"].get<double>();
  const double hype_joules = hype["epochs"][0]["energy_j"].get<double>();
  CHECK(hype_seconds > 0);
  // Hype's engine rounds each op's time to a whole picosecond (half a picosecond at most, on
  // ops of microseconds), the pipeline each stage's sum: equal to 1e-6.
  CHECK(piped["totals"]["train_seconds"].get<double>() == Approx(hype_seconds).epsilon(1e-6));
  CHECK(piped["totals"]["device_energy"].get<double>() * 1e-12 ==
        Approx(hype_joules).epsilon(1e-9));
  CHECK(piped["totals"]["idle_fraction"].get<double>() == 0);
}

TEST_CASE("An accelerator stage beside a GPU costs what it costs beside an accelerator",
          "[pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-devices-mixed");
  const std::string stages = "pipeline: {micro_batches: 4, stages: [[0, 3], [4, 12]]}\n";
  const auto mixed =
      run_stats(write_experiment(dir, lenet_body("system: {devices: [{device: adagp_ws180}, "
                                                 "{device: v100}]}\n" +
                                                 stages)),
                dir + "/mixed");
  const std::string same_dir = fresh_dir("pipeline-devices-same");
  const auto same = run_stats(
      write_experiment(same_dir, lenet_body("system: {devices: [{accelerator: adagp_ws180}, "
                                            "{accelerator: adagp_ws180}]}\n" +
                                            stages)),
      same_dir + "/out");
  // Device 0 holds the same stage in both: the same work, whatever its neighbour is.
  for (const char* key : {"busy_seconds", "macs", "dram_bytes", "energy"})
    CHECK(mixed["devices"][0][key].get<double>() == same["devices"][0][key].get<double>());
  CHECK(mixed["devices"][0]["kind"] == "accelerator");
  CHECK(mixed["devices"][1]["kind"] == "gpu");
  CHECK(mixed["devices"][1]["macs"].get<double>() == same["devices"][1]["macs"].get<double>());
  // Idle time is priced apart, at each device's static power: the V100's 39 W
  // (configs/devices/v100.yaml), the accelerator's leakage.
  CHECK(mixed["devices"][1]["idle_energy_pj"].get<double>() ==
        Approx(39.0 * mixed["devices"][1]["idle_seconds"].get<double>() * 1e12).epsilon(1e-9));
  CHECK(mixed["devices"][0]["idle_energy_pj"].get<double>() > 0);
  CHECK(mixed["totals"]["device_energy_unit"] == "pJ");
  CHECK(mixed["totals"]["device_energy"].get<double>() ==
        Approx(mixed["devices"][0]["energy"].get<double>() +
               mixed["devices"][1]["energy"].get<double>())
            .epsilon(1e-12));
  // The GPU's stage has no cycles of a trainsim clock, and its device no PE utilization.
  const auto stage_rows = csv_rows(read_file(dir + "/mixed/stages.csv"));
  REQUIRE(stage_rows.size() == 2);
  CHECK(!stage_rows[0].at("forward_cycles").empty());
  CHECK(stage_rows[1].at("forward_cycles").empty());
  // Seconds on both: the accelerator's at its 1 GHz clock, the GPU's from its model.
  CHECK(std::stod(stage_rows[0].at("forward_seconds")) ==
        Approx(std::stod(stage_rows[0].at("forward_cycles")) * 1e-9).epsilon(1e-8));
  for (const char* pass :
       {"forward_seconds", "backward_data_seconds", "backward_weight_seconds", "update_seconds"})
    CHECK(std::stod(stage_rows[1].at(pass)) > 0);
  const auto device_rows = csv_rows(read_file(dir + "/mixed/devices.csv"));
  REQUIRE(device_rows.size() == 2);
  CHECK(device_rows[1].at("dataflow") == "gpu");
  CHECK(device_rows[1].at("util").empty());
  // config.resolved.yaml runs again to the same result.
  const auto again = run_stats(dir + "/mixed/config.resolved.yaml", dir + "/again");
  CHECK(again["totals"]["train_seconds"] == mixed["totals"]["train_seconds"]);
  CHECK(again["totals"]["device_energy"] == mixed["totals"]["device_energy"]);
}

TEST_CASE("Stages are balanced on each stage's own device", "[pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-devices-balance");
  const std::string system = "system: {devices: [{device: adagp_ws180}, {device: v100}]}\n";
  const auto automatic = run_stats(
      write_experiment(dir, lenet_body(system + "pipeline: {micro_batches: 4}\n")), dir + "/auto");
  // Every cut of LeNet-5's 13 layers into two stages: the automatic one is within 5% of the
  // best (it balances forward and backward per micro-batch; the run also has updates and
  // transfers). Balancing both stages on device 0's costs, as if the GPU were a second
  // accelerator, is 8% slower than the best here.
  double best = 1e300;
  for (int cut = 1; cut < 13; ++cut) {
    const std::string sub = fresh_dir("pipeline-devices-cut-" + std::to_string(cut));
    const auto r = run_stats(
        write_experiment(
            sub, lenet_body(system + "pipeline: {micro_batches: 4, stages: [[0, " +
                            std::to_string(cut - 1) + "], [" + std::to_string(cut) + ", 12]]}\n")),
        sub + "/out");
    best = std::min(best, r["totals"]["train_seconds"].get<double>());
  }
  CHECK(automatic["totals"]["train_seconds"].get<double>() <= best * 1.05);
}

TEST_CASE("A device file is found from the experiment's folder and resolved for good",
          "[pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-devices-relative");
  write_file(dir + "/my_v100.yaml",
             read_file(std::string(TRAINSIM_SOURCE_DIR) + "/configs/devices/v100.yaml"));
  const std::string exp = write_experiment(
      dir, lenet_body("system: {devices: [{device: adagp_ws180}, {device: my_v100.yaml}]}\n"));
  // From another working directory: the file is next to the experiment, not here.
  const std::string elsewhere = fresh_dir("pipeline-devices-relative-cwd");
  const auto r = run_trainsim_in(elsewhere, {"run", exp, "--out", dir + "/out", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // config.resolved.yaml names the file by an absolute path: it runs from anywhere.
  const auto again = run_trainsim_in(
      fresh_dir("pipeline-devices-relative-cwd2"),
      {"run", dir + "/out/config.resolved.yaml", "--out", dir + "/again", "--quiet"});
  INFO(again.err);
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(dir + "/again/stats.json").find("\"my_v100\"") != std::string::npos);
}

TEST_CASE("Bad device entries: one line, exit 2, no output", "[pipeline][devices][errors]") {
  struct Case {
    std::string system;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      {"{devices: [{device: tpu9000}, {device: v100}]}", {"system.devices.0.device", "tpu9000"}},
      {"{devices: [{device: v100, accelerator: adagp_ws180}]}",
       {"system.devices.0.accelerator", "either `device:`"}},
      {"{devices: [{device: v100, dataflow: ws}]}", {"system.devices.0.dataflow"}},
      {"{devices: [{device: {kind: quantum}}]}", {"unknown device kind 'quantum'"}},
      {"{devices: 3}\npipeline: {replicas: 2}",
       {"pipeline.replicas", "must divide the system's 3"}},
      {"{devices: 4}\npipeline: {replicas: 2, micro_batches: 64}",
       {"pipeline.replicas", "2 x 64", "must divide training.batch_size"}},
      {"{devices: 4}\npipeline: {replicas: 4, schedule: chimera}",
       {"even number of devices (got 1)", "on 1 devices (each of 4 replicas) of the system's 4"}},
      // An FPGA with a GEMM kernel only cannot hold a stage with pooling and activations.
      {"{devices: [{accelerator: adagp_ws180}, {device: gemm_only_fpga.yaml}]}",
       {"system.devices.1", "has no kernel for"}},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].system);
    const std::string sub = fresh_dir("pipeline-devices-errors-" + std::to_string(i));
    write_file(sub + "/gemm_only_fpga.yaml", gemm_only_fpga());
    const std::string exp = write_experiment(sub, lenet_body("system: " + cases[i].system + "\n"));
    require_clean_failure(run_trainsim({"run", exp, "--out", sub + "/out"}), sub + "/out",
                          cases[i].mentions);
  }
}

TEST_CASE("Data parallel x pipeline: two replicas of a 2-stage GPipe all-reduce over a ring",
          "[pipeline][replicas]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-replicas");
  const std::string links =
      "topology: fully_connected, link: {bandwidth_gbps: 16, "
      "latency_ns: 500, pj_per_bit: 4}";
  // 2 replicas x 2 stages on 4 devices, 4 micro-batches of 8 each per batch of 64.
  const auto dp =
      run_stats(write_experiment(dir, lenet_body("system: {devices: 4, " + links + "}\n" +
                                                 "pipeline: {micro_batches: 4, replicas: 2, "
                                                 "stages: [[0, 3], [4, 12]]}\n")),
                dir + "/dp");
  CHECK(dp["pipeline"]["replicas"] == 2);
  CHECK(dp["pipeline"]["micro_batch_size"] == 8);
  REQUIRE(dp["devices"].size() == 4);
  // One replica alone: the same pipeline on batches of 32 (twice as many), the same
  // micro-batches of 8.
  const std::string one_dir = fresh_dir("pipeline-replicas-one");
  std::string body = lenet_body("system: {devices: 2, " + links + "}\n" +
                                "pipeline: {micro_batches: 4, stages: [[0, 3], [4, 12]]}\n");
  body.replace(body.find("batch_size: 64"), 14, "batch_size: 32");
  const auto one = run_stats(write_experiment(one_dir, body), one_dir + "/out");
  // Each device of a replica does its stage's work for half of every batch: half of what a
  // device of the lone pipeline does over the whole epoch.
  for (int d = 0; d < 4; ++d)
    CHECK(dp["devices"][d]["macs"].get<double>() ==
          one["devices"][d % 2]["macs"].get<double>() / 2);
  // The links carry the replicas' activations and gradients, as the lone pipeline's, plus per
  // batch and stage the ring all-reduce's 2 (p - 1) S = 2 S bytes (S: the stage's weights).
  const auto stage_rows = csv_rows(read_file(dir + "/dp/stages.csv"));
  REQUIRE(stage_rows.size() == 2);
  double weights = 0;
  for (const auto& row : stage_rows) weights += std::stod(row.at("weight_bytes"));
  const double batches = 10;  // 640 samples in batches of 64
  const double dp_bytes = dp["totals"]["link_bytes"].get<double>();
  CHECK(dp_bytes == one["totals"]["link_bytes"].get<double>() + batches * 2 * weights);
  CHECK(dp["totals"]["link_energy_pj"].get<double>() == Approx(dp_bytes * 8 * 4).epsilon(1e-12));
  // The all-reduce holds the update back: the replicated run takes longer than half the lone
  // pipeline's time on twice the batches, by at most what the all-reduces cost one after
  // another (per batch: 2 (p-1)/p S/B + 2 (p-1) latency for each stage).
  const double half = one["totals"]["train_seconds"].get<double>() / 2;
  const double dp_seconds = dp["totals"]["train_seconds"].get<double>();
  const double allreduce = batches * (weights / 16e9 + 2 * 2 * 500e-9);
  CHECK(dp_seconds > half);
  CHECK(dp_seconds <= half + allreduce + 1e-12);
}

TEST_CASE("ADA-GP on a GPU: the predictor's kernels run on the same GPU", "[pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-devices-adagp-gpu");
  // One H100 as a one-device system: compare prices bp's and ADA-GP-MAX's op streams on it
  // (no warm-up, so Phase GP batches start at once: 4 predicted batches per backprop one).
  const std::string exp = write_experiment(
      dir, lenet_body("system: {devices: [{device: h100}]}\npipeline: {micro_batches: 1}\n"
                      "technique: {kind: adagp-max, warmup_epochs: 0}\n"));
  const auto r = run_trainsim(
      {"compare", exp, "--techniques", "bp,adagp-max", "--out", dir + "/cmp", "--quiet"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(dir + "/cmp/compare.csv"));
  REQUIRE(rows.size() == 2);
  const auto& bp = rows[0];
  const auto& gp = rows[1];
  CHECK(gp.at("technique") == "adagp-max");
  // A GPU has no trainsim clock: seconds only.
  CHECK(bp.at("cycles").empty());
  const double speedup = std::stod(gp.at("speedup"));
  CHECK(speedup > 1.0);
  CHECK(std::stod(gp.at("energy_pj")) < std::stod(bp.at("energy_pj")));
  // The predictor's work is on the GPU too: its MACs are in the GPU's total, beside the
  // forwards of the predicted batches and the backprop batch's passes.
  const auto gpu = nlohmann::json::parse(read_file(dir + "/cmp/adagp-max/stats.json"));
  const auto gpu_bp = nlohmann::json::parse(read_file(dir + "/cmp/bp/stats.json"));
  CHECK(gpu["devices"][0]["kind"] == "gpu");
  const double macs = gpu["devices"][0]["macs"].get<double>();
  const double bp_macs = gpu_bp["devices"][0]["macs"].get<double>();
  CHECK(macs < bp_macs);      // predicted batches skip their backward passes
  CHECK(macs > bp_macs / 3);  // forwards, one backprop batch in five, the predictor
}

TEST_CASE("ADA-GP-MAX's hardware is on every accelerator stage, not on a GPU",
          "[pipeline][devices]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("pipeline-devices-adagp-hw");
  // Four devices, GPipe (the setting of Figure 20), one of them a V100.
  const auto s = run_stats(
      write_experiment(dir, lenet_body("system: {devices: [{device: adagp_ws180, count: 3}, "
                                       "{device: v100}]}\n"
                                       "pipeline: {micro_batches: 4}\n"
                                       "technique: {kind: adagp-max, warmup_epochs: 0}\n")),
      dir + "/out");
  REQUIRE(s["devices"].size() == 4);
  for (int d = 0; d < 3; ++d) {
    // MAX: a predictor array as large as the device's (12 x 15) and the predictor's memory.
    CHECK(s["devices"][d]["technique_pes"] == 180);
    CHECK(s["devices"][d]["technique_storage_bytes"].get<double>() > 0);
  }
  CHECK(s["devices"][3]["technique_pes"] == 0);
  CHECK(s["devices"][3]["technique_storage_bytes"] == 0);
}
