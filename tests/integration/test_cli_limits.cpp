// Legal-looking inputs that once wrapped a counter, ended in "internal error", never finished
// or exited 0 without writing, through the real binary (issue 28): each is one line naming the
// key and the limit with exit code 2 and no output, or runs to a correct result; SIGTERM stops
// every kind of run; a failed write to stdout is exit 1; sweep axes and baselines compare
// values as numbers.
#include <catch2/catch.hpp>

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "tests/integration/cli_runner.h"

using namespace trainsim::test;

namespace {

const std::string kExperiments = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";
const std::string kZoo = kExperiments + "adagp_zoo.yaml";  // VGG-16 / CIFAR-10, shape only
const std::string kHype = kExperiments + "hype_zoo.yaml";  // AlexNet on a V100 + 3 FPGAs
const std::string kPipeline = kExperiments + "lenet5_fashion_pipeline.yaml";

// `trainsim run EXPERIMENT --set ...` into `out`.
CliResult run_with(const std::string& experiment, const std::string& out,
                   const std::vector<std::string>& overrides) {
  std::vector<std::string> args = {"run", experiment, "--out", out, "--quiet"};
  for (const auto& o : overrides) {
    args.push_back("--set");
    args.push_back(o);
  }
  return run_trainsim(args);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct Shell {
  int exit_code = -1;
  double seconds = 0;
  std::string err;
};

// Runs `trainsim <args>` through the shell with `redirect` for its stdout; stderr is kept.
Shell run_shell(const std::vector<std::string>& args, const std::string& prefix,
                const std::string& redirect, const std::string& dir) {
  std::string cmd = prefix + shell_quote(TRAINSIM_BINARY);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  cmd += " </dev/null " + redirect + " 2>" + shell_quote(dir + "/stderr");
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(cmd.c_str());
  Shell r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(dir + "/stderr");
  return r;
}

// Runs trainsim in the background and sends it SIGTERM half a second after it has installed
// its handler (SigCgt bit 14 in /proc/PID/status): on a loaded machine a fixed delay from the
// start could land before main() and kill it by the default action instead.
Shell run_terminated(const std::vector<std::string>& args, const std::string& dir) {
  std::string cmd = shell_quote(TRAINSIM_BINARY);
  for (const auto& a : args) cmd += " " + shell_quote(a);
  const std::string script =
      cmd + " </dev/null >" + shell_quote(dir + "/stdout") + " 2>" + shell_quote(dir + "/stderr") +
      " & pid=$!\ni=0\nwhile [ $i -lt 2000 ]; do\n"
      "  m=$(awk '/^SigCgt/{print $2}' /proc/$pid/status 2>/dev/null)\n"
      "  [ -n \"$m\" ] && [ $((0x$m & 0x4000)) -ne 0 ] && break\n"
      "  i=$((i+1)); sleep 0.005\ndone\nsleep 0.5\nkill -TERM $pid\nwait $pid\n";
  write_file(dir + "/terminate.sh", script);
  const auto t0 = std::chrono::steady_clock::now();
  const int status = std::system(("sh " + shell_quote(dir + "/terminate.sh")).c_str());
  Shell r;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_file(dir + "/stderr");
  return r;
}

}  // namespace

TEST_CASE("Clocks, bandwidths, latencies and periods outside their ranges name the key",
          "[cli][limits]") {
  const std::string dir = fresh_dir("limits-ranges");
  const std::string out = dir + "/out";
  struct Case {
    std::string experiment;
    std::string set;
    std::vector<std::string> mentions;
  };
  const std::vector<Case> cases = {
      // Once negative stall_cycles with exit 0, and "internal error" at the other end.
      {kZoo, "accelerator.clock_ghz=1e-8", {"accelerator.clock_ghz", "must be in [0.001, 100]"}},
      {kZoo, "accelerator.clock_ghz=1e6", {"accelerator.clock_ghz", "got 1e6"}},
      {kZoo,
       "accelerator.dram.bandwidth_gbps=1e-9",
       {"accelerator.dram.bandwidth_gbps", "must be in [0.001, 1000000000], got 1e-9"}},
      {kZoo, "accelerator.buffer.kib=1e300", {"accelerator.buffer.kib", "1073741824"}},
      // A link at 1e-12 GB/s cost nothing (its time wrapped negative); 1e300 ns was finite.
      {kPipeline,
       "system={devices: 4, link: {bandwidth_gbps: 1.0e-12}}",
       {"system.link.bandwidth_gbps", "must be in [0.001, 1000000000], got 1.0e-12"}},
      {kPipeline,
       "system={devices: 4, link: {latency_ns: 1.0e300}}",
       {"system.link.latency_ns", "must be in [0, 1000000000], got 1.0e300"}},
      {kPipeline,
       "system={devices: 2, topology: custom, links: [{between: [0, 1], bandwidth_gbps: 1.0e-12}]}",
       {"system.links.0.bandwidth_gbps", "must be in [0.001"}},
      // Never finished, and ignored SIGTERM.
      {kHype, "hype.dvfs.period_ms=1e-9", {"hype.dvfs.period_ms", "must be >= 0.01, got 1e-9"}},
      {kHype, "hype.sample_ms=1e-300", {"hype.sample_ms", "must be >= 1e-06"}},
      {kHype,
       "hype.links.gpu={bandwidth_gbps: 5.0e-324}",
       {"hype.links.gpu.bandwidth_gbps", "must be in [0.001"}},
  };
  for (const Case& c : cases) {
    INFO(c.set);
    require_clean_failure(run_with(c.experiment, out, {c.set}), out, c.mentions);
  }
}

TEST_CASE("A GPU with a subnormal peak is one line naming the key", "[cli][limits]") {
  const std::string dir = fresh_dir("limits-gpu");
  const std::string out = dir + "/out";
  // The shipped V100 with one figure replaced: once "internal error: every op needs a finite
  // GPU time".
  const std::string v100 =
      read_file(std::string(TRAINSIM_SOURCE_DIR) + "/configs/devices/v100.yaml");
  for (const auto& [from, to, key] : {std::tuple<std::string, std::string, std::string>{
                                          "fp32: 15.7", "fp32: 1.0e-310", "peak_tflops.fp32"},
                                      {"fp16: 125", "fp16: 4.9e-324", "peak_tflops.fp16"},
                                      {"memory_gbps: 900", "memory_gbps: 1.0e-310", "memory_gbps"},
                                      {"clock_mhz: 1530", "clock_mhz: 1.0e-310", "clock_mhz"}}) {
    INFO(to);
    std::string text = v100;
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), to);
    write_file(dir + "/gpu.yaml", text);
    require_clean_failure(run_with(kHype, out, {"hype.gpu=" + dir + "/gpu.yaml"}), out,
                          {"gpu.yaml:", key, "must be"});
  }
}

TEST_CASE("A run larger than its counters names training.epochs or the predictor",
          "[cli][limits]") {
  const std::string dir = fresh_dir("limits-counters");
  const std::string out = dir + "/out";
  // VGG-19 on ImageNet: its MACs pass 2^64 in epoch 245 (once "internal error").
  const std::vector<std::string> vgg19 = {"network=vgg19_imagenet", "dataset.name=imagenet",
                                          "technique=bp"};
  auto with = [](std::vector<std::string> v, const std::string& more) {
    v.push_back(more);
    return v;
  };
  require_clean_failure(run_with(kZoo, out, with(vgg19, "training.epochs=500")), out,
                        {"training.epochs: 500 epochs of network 'vgg19_imagenet' on imagenet",
                         "(2^64)", "passes it in epoch 245, so at most 244 epochs fit"});
  // The largest predictor the keys allow, on VGG-16 / ImageNet: one epoch is too large.
  require_clean_failure(
      run_with(kZoo, out,
               {"network=vgg16_imagenet", "dataset.name=imagenet", "training.epochs=1",
                "technique.predictor.size=256", "technique.predictor.channels=256"}),
      out,
      {"technique.predictor: one epoch", "(2^64)", "size 256, channels 256",
       "dataset.train_limit"});
}

TEST_CASE("The slowest legal clock and memory run to non-negative counts", "[cli][limits]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("limits-slowest");
  // Real training at 1 MHz: simulated time in SystemC picoseconds is 1e6 per cycle here.
  const auto r = run_with(
      kExperiments + "quickstart.yaml", dir + "/real",
      {"accelerator.clock_ghz=0.001", "dataset.train_limit=300", "dataset.test_limit=100"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto layers = csv_rows(read_file(dir + "/real/layers.csv"));
  REQUIRE_FALSE(layers.empty());
  for (const auto& row : layers) {
    CHECK(std::stoll(row.at("stall_cycles")) >= 0);
    CHECK(std::stoll(row.at("cycles")) >= std::stoll(row.at("compute_cycles")));
  }
  // Shape only at the least DRAM bandwidth: 1 MB/s.
  const auto s =
      run_with(kZoo, dir + "/shape",
               {"technique=bp", "training.epochs=1", "accelerator.dram.bandwidth_gbps=0.001"});
  INFO(s.err);
  REQUIRE(s.exit_code == 0);
  check_epochs_schema(read_file(dir + "/shape/epochs.csv"));  // kind shape-only
  const auto epochs = csv_rows(read_file(dir + "/shape/epochs.csv"));
  REQUIRE(epochs.size() == 1);
  CHECK(std::stod(epochs[0].at("cycles")) > 8e14);  // 870 GB at a byte per microsecond
}

TEST_CASE("SIGTERM stops every kind of run, which leaves nothing behind",
          "[cli][limits][signals]") {
  require_dataset("fashion-mnist");
  const std::string dir = fresh_dir("limits-sigterm");
  const std::string out = dir + "/out";
  // Each takes several seconds alone; `timeout` sends SIGTERM after half a second. These once ran
  // to the end (the Hype-training runtime's events, the platform's tasks, a large op's mapping
  // search and tiles) before the signal was looked at.
  const std::vector<std::vector<std::string>> commands = {
      {"run", kHype, "--set", "network=bert_large_squad", "--set", "dataset.name=squad", "--set",
       "hype.policy=dvfs", "--set", "hype.power_cap_w=230", "--set", "hype.dvfs.period_ms=0.01",
       "--set", "training.epochs=100"},
      {"run", kPipeline, "--set", "numerics=none", "--set", "training.batch_size=16384", "--set",
       "pipeline.micro_batches=16384"},
      {"run", kZoo, "--set", "network=vgg16_imagenet", "--set", "dataset.name=imagenet", "--set",
       "technique.predictor.size=256", "--set", "technique.predictor.channels=256", "--set",
       "dataset.train_limit=1000"},
      {"compare", kZoo, "--techniques", "adagp-max,adagp-low", "--set", "network=vgg16_imagenet",
       "--set", "dataset.name=imagenet", "--set", "technique.predictor.size=256", "--set",
       "technique.predictor.channels=256", "--set", "dataset.train_limit=1000"},
      {"layer", "--accel", "small_8x8", "--conv", "224,224,64,64,3,3", "--fidelity", "cycle"},
  };
  for (std::vector<std::string> args : commands) {
    if (args[0] != "layer") args.insert(args.end(), {"--out", out});
    INFO(args[0] << " " << args[1] << " " << args.back());
    const Shell r = run_terminated(args, dir);
    INFO(r.err);
    CHECK(r.exit_code == 130);
    CHECK(r.err.find("trainsim: interrupted") != std::string::npos);
    CHECK(r.seconds < 10);
    CHECK_FALSE(exists(out));
    CHECK_FALSE(exists(out + ".partial"));
  }
}

TEST_CASE("A failed write to stdout is exit 1 with one line, for every command", "[cli][limits]") {
  const std::string dir = fresh_dir("limits-stdout");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"layer", "--accel", "small_8x8", "--conv", "28,28,128,256,3,3,1,1", "--json"},
           {"list"},
           {"list", "networks"},
           {"validate", kZoo},
           {"--version"},
           {"--help"},
           {"run", kZoo, "--set", "training.epochs=1", "--out", dir + "/run"}}) {
    INFO(args[0]);
    const Shell r = run_shell(args, "", ">/dev/full", dir);
    CHECK(r.exit_code == 1);
    CHECK(line_count(r.err) == 1);
    CHECK(r.err.rfind("trainsim: error: cannot write to standard output: ", 0) == 0);
  }
}

TEST_CASE("Sweep axis values and baselines compare as numbers", "[cli][limits][sweep]") {
  const std::string dir = fresh_dir("limits-sweep");
  const std::string out = dir + "/out";
  write_file(dir + "/exp.yaml", read_file(kZoo));
  auto sweep = [&](const std::string& body) {
    write_file(dir + "/sweep.yaml",
               "experiment: exp.yaml\nset: [technique=bp, training.epochs=1]\n" + body);
    return run_trainsim({"sweep", dir + "/sweep.yaml", "--out", out, "-j", "1"});
  };
  // Once three points (three ids, three runs) of one buffer size.
  require_clean_failure(
      sweep("axes: [{key: accelerator.buffer.kib, values: [54, 108, 108.0, 1.08e2]}]\n"), out,
      {"sweep.yaml:",
       "axis 'accelerator.buffer.kib' lists the same value 3 times: 108, 108.0 "
       "and 1.08e2"});
  require_clean_failure(
      sweep("axes: [{zip: {accelerator.array.rows: [8, 8.0], accelerator.array.cols: [8, 8]}}]\n"),
      out,
      {"axis 'accelerator.array.rows, accelerator.array.cols' lists the same value twice: "
       "[8, 8] and [8.0, 8]"});
  // A range's values past 2^53 are written as doubles (1e300 was converted to an integer).
  require_clean_failure(
      sweep("axes: [{key: accelerator.buffer.kib, range: {from: 1e300, to: 1e300}}]\n"), out,
      {"accelerator.buffer.kib", "1e+300"});
  // Once an empty speedup column without a word.
  require_clean_failure(
      sweep("axes: [{key: accelerator.buffer.kib, values: [54, 108]}]\n"
            "baseline: {accelerator.buffer.kib: 100}\n"),
      out,
      {"sweep.yaml:", "baseline {accelerator.buffer.kib: 100} matches no point of the sweep",
       "takes 54 and 108"});
  require_clean_failure(
      sweep("axes: [{zip: {accelerator.array.rows: [8, 16], accelerator.array.cols: [8, 16]}}]\n"
            "baseline: {accelerator.array.rows: 8, accelerator.array.cols: 16}\n"),
      out, {"matches no point", "takes [8, 8] and [16, 16]"});
  require_clean_failure(
      sweep("axes: [{key: dataflow, values: [ws, os, is, rs]}]\nbaseline: {dataflow: ws}\n"
            "search: {mode: random, budget: 1, seed: 3}\n"),
      out, {"baseline: {dataflow: ws} is not among the 1 points", "seed 3"});
  // A baseline written as another spelling of an axis value is that point.
  const auto r = sweep(
      "axes: [{key: accelerator.buffer.kib, values: [54, 108]}]\n"
      "baseline: {accelerator.buffer.kib: 108.0}\n");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto rows = csv_rows(read_file(out + "/sweep.csv"));
  REQUIRE(rows.size() == 2);
  CHECK(rows[1].at("speedup") == "1.000000");
  CHECK_FALSE(rows[0].at("speedup").empty());
}
