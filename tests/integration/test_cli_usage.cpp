// The command line as a newcomer meets it, through the real binary: --help / -h on every
// subcommand, short options, `--`, `trainsim validate`, what `trainsim list` says of each
// preset, and what happens when a results directory already exists.
#include <catch2/catch.hpp>
#include <filesystem>

#include "sim/cli/commands.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

const std::string kExperiments = std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/";
const std::string kQuickstart = kExperiments + "quickstart.yaml";
// A small quickstart: 300 training digits, 100 test digits.
const std::vector<std::string> kSmall = {"-s", "dataset.train_limit=300", "-s",
                                         "dataset.test_limit=100"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void require_one_line_error(const CliResult& r, const std::vector<std::string>& mentions) {
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 2);
  CHECK(line_count(r.err) == 1);
  for (const auto& m : mentions) CHECK(r.err.find(m) != std::string::npos);
}

}  // namespace

TEST_CASE("Every subcommand answers --help and -h with usage, options and an example",
          "[cli][help]") {
  REQUIRE(commands().size() >= 6);
  for (const Command& c : commands()) {
    for (const char* flag : {"--help", "-h"}) {
      const CliResult r = run_trainsim({c.name, flag});
      INFO(c.name << " " << flag << "\nstdout: " << r.out << "\nstderr: " << r.err);
      CHECK(r.exit_code == 0);
      CHECK(r.err.empty());
      CHECK(r.out.rfind("usage: trainsim " + c.name, 0) == 0);
      CHECK(r.out.find("\noptions:\n") != std::string::npos);
      CHECK(r.out.find("-h, --help") != std::string::npos);
      CHECK(r.out.find("\nexample:\n  trainsim " + c.name) != std::string::npos);
    }
    // Help wins over anything else on the line, even arguments that are wrong.
    CHECK(run_trainsim({c.name, "--no-such-option", "-h"}).exit_code == 0);
  }
  const CliResult r = run_trainsim({"help", "compare"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("--techniques LIST") != std::string::npos);
}

TEST_CASE("A missing experiment file is named as such, not as a hidden option", "[cli]") {
  for (const char* cmd : {"run", "train", "compare", "validate"}) {
    const CliResult r = run_trainsim({cmd, "--quiet"});
    INFO(cmd);
    // validate takes no --quiet: its error is the unknown option.
    if (std::string(cmd) != "validate")
      require_one_line_error(r, {"missing EXPERIMENT.yaml", std::string("trainsim ") + cmd});
    CHECK(r.err.find("--experiment") == std::string::npos);
  }
  require_one_line_error(run_trainsim({"run", "--experiment", kQuickstart}),
                         {"unrecognised option '--experiment'"});
  require_one_line_error(run_trainsim({"run", kQuickstart, kQuickstart}), {"too many arguments"});
}

TEST_CASE("Short options -o, -s and -q work as their long forms", "[cli]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("short-options");
  const CliResult r =
      run_trainsim(with({"train", kQuickstart, "-q", "-o", dir + "/t", "-s", "seed=1"}, kSmall));
  // training.seed, not seed: the error names the unknown key.
  CHECK(r.exit_code == 2);
  const CliResult ok = run_trainsim(
      with({"train", kQuickstart, "-q", "-o", dir + "/t", "-s", "training.seed=3"}, kSmall));
  INFO("stdout: " << ok.out << "\nstderr: " << ok.err);
  REQUIRE(ok.exit_code == 0);
  CHECK(line_count(ok.out) == 1);  // -q: the final line only
  CHECK(ok.out.rfind("final:", 0) == 0);
  CHECK(read_file(dir + "/t/config.resolved.yaml").find("seed: 3") != std::string::npos);
}

TEST_CASE("`--` ends the options: what follows is a file name", "[cli]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("double-dash");
  const std::string odd = dir + "/-h.yaml";  // a file whose name looks like an option
  std::filesystem::copy_file(kQuickstart, odd);
  const CliResult r = run_trainsim(with({"validate", "-s", "training.epochs=2", "--", odd}, {}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("2 epoch(s)") != std::string::npos);
  // After `--` an option is an argument: here a second file, one too many.
  require_one_line_error(run_trainsim({"validate", "--", odd, "-q"}), {"too many arguments"});
}

TEST_CASE("trainsim validate checks a config and its data without running", "[cli][validate]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("validate");
  CliResult r = run_trainsim({"validate", kQuickstart, "-s", "output.dir=" + dir + "/out"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(line_count(r.out) == 1);
  CHECK(r.out.find("quickstart: ok") != std::string::npos);
  CHECK(r.out.find("seed_mlp") != std::string::npos);
  CHECK(r.out.find("adagp_ws180") != std::string::npos);
  CHECK_FALSE(exists(dir + "/out"));  // nothing trained, nothing written
  CHECK_FALSE(exists(dir + "/out.partial"));
  // Bad input is the usual one-line error, exit 2: a bad value, missing data, a store that
  // cannot fit where it is configured.
  require_one_line_error(run_trainsim({"validate", kQuickstart, "-s", "training.batch_size=0"}),
                         {"training.batch_size"});
  require_one_line_error(
      run_trainsim({"validate", kQuickstart, "-s", "dataset.path=" + dir + "/nowhere"}),
      {dir + "/nowhere"});
  require_one_line_error(run_trainsim({"validate", kExperiments + "lenet5_mnist.yaml", "-s",
                                       "technique={kind: specbp, store: buffer}"}),
                         {"per-label store", "315920 bytes", "110592", "technique.store: dram"});
  r = run_trainsim({"validate", kExperiments + "lenet5_mnist.yaml", "-s",
                    "technique={kind: specbp, store: dram}"});
  CHECK(r.exit_code == 0);
  // The advice as a newcomer takes it, on a technique given by name.
  const std::vector<std::string> specbp = {"validate", kExperiments + "lenet5_mnist.yaml", "-s",
                                           "technique=specbp@0.25"};
  require_one_line_error(run_trainsim(specbp), {"per-label store", "technique.store: dram",
                                                "--set technique.store=dram"});
  r = run_trainsim(with(specbp, {"-s", "technique.store=dram"}));
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("technique specbp@0.25") != std::string::npos);
  // compare checks every variant before any runs: bp would run, specbp@0.1 could not.
  require_one_line_error(run_trainsim({"compare", kExperiments + "lenet5_mnist.yaml",
                                       "--techniques", "bp,specbp@0.1", "-o", dir + "/cmp"}),
                         {"per-label store"});
  CHECK_FALSE(exists(dir + "/cmp"));
  CHECK_FALSE(exists(dir + "/cmp.partial"));
  // Shape-only experiments validate too (no data to load).
  r = run_trainsim({"validate", kExperiments + "adagp_zoo.yaml"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("shape only") != std::string::npos);
}

TEST_CASE("A technique set by name keeps the experiment's technique keys it has too", "[cli]") {
  const std::string dir = fresh_dir("technique-merge");
  const std::string exp = dir + "/exp.yaml";
  write_file(exp, read_file(kQuickstart) +
                      "technique: {kind: adagp-max, warmup_epochs: 10, phase_gp: skip, unit: "
                      "{rows: 4, cols: 4}}\n");
  require_dataset("mnist");
  CliResult r = run_trainsim({"validate", exp, "-s", "technique=adagp-efficient"});
  INFO("stdout: " << r.out << "\nstderr: " << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("technique adagp-efficient@10") != std::string::npos);  // warm-up kept
  CHECK(r.out.find("note: --set technique=adagp-efficient drops the experiment's technique keys "
                   "unit (not keys of adagp-efficient)") != std::string::npos);
  r = run_trainsim({"validate", exp, "-s", "technique=adagp-low@3"});
  CHECK(r.out.find("technique adagp-low@3") != std::string::npos);  // the shorthand wins
  r = run_trainsim({"validate", exp, "-s", "technique=bp"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("drops the experiment's technique keys warmup_epochs, phase_gp, unit") !=
        std::string::npos);
}

TEST_CASE("trainsim list gives each preset's key figures and description", "[cli][list]") {
  CliResult r = run_trainsim({"list", "accelerators"});
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("adagp_ws180") != std::string::npos);
  CHECK(r.out.find("12x15 ws, 108 KiB buffer, 1 GHz, 16-bit") != std::string::npos);
  CHECK(r.out.find("ADA-GP baseline") != std::string::npos);
  CHECK(r.out.find("12x14 rs") != std::string::npos);  // eyeriss_like
  r = run_trainsim({"list", "networks"});
  CHECK(r.exit_code == 0);
  auto line_of = [&](const std::string& name) {
    const auto at = r.out.find("  " + name + " ");
    REQUIRE(at != std::string::npos);
    return r.out.substr(at, r.out.find('\n', at) - at);
  };
  CHECK(line_of("lenet5").find("61,706 params") != std::string::npos);
  CHECK(line_of("lenet5").find("trainable on real data: mnist, fashion-mnist") !=
        std::string::npos);
  CHECK(line_of("seed_mlp").find("13,002 params") != std::string::npos);
  CHECK(line_of("vgg16_cifar10").find("shape only (numerics: none): cifar10") != std::string::npos);
  CHECK(line_of("resnet50_imagenet").find("shape only") != std::string::npos);
  r = run_trainsim({"list", "energy"});
  CHECK(r.out.find("unit normalized") != std::string::npos);
  CHECK(r.out.find("unit pJ") != std::string::npos);
  CHECK(run_trainsim({"list", "networks", "datasets"}).exit_code == 2);
}

TEST_CASE("trainsim list devices gives the device kinds and the shipped devices",
          "[cli][list][devices]") {
  CliResult r = run_trainsim({"list", "devices"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  for (const char* kind : {"gpu", "fpga", "accelerator"})
    CHECK(r.out.find(std::string("\n  ") + kind + " ") != std::string::npos);
  CHECK(r.out.find("v100                   gpu: 80 SMs, TFLOP/s 15.7 fp32, 125 fp16 (runs fp32)") !=
        std::string::npos);
  CHECK(r.out.find("h100                   gpu: 132 SMs, TFLOP/s 66.9 fp32") != std::string::npos);
  CHECK(r.out.find("s10_gx2500             fpga: 1000 MHz, 14.9 GB/s") != std::string::npos);
  CHECK(r.out.find("20480 designs") != std::string::npos);
  CHECK(r.out.find("adagp_ws180            accelerator: accelerator adagp_ws180") !=
        std::string::npos);
  // A device file of a kind that does not exist: one line naming the file, exit 2.
  const std::string root = fresh_dir("list-devices");
  std::filesystem::create_directories(root + "/devices");
  write_file(root + "/devices/bad.yaml", "kind: tpu\n");
  r = run_trainsim({"list", "devices"}, {"TRAINSIM_CONFIGS=" + root});
  require_one_line_error(r, {"bad.yaml:1:7: kind: unknown device kind 'tpu' (known: gpu, fpga, "
                             "accelerator)"});
}

TEST_CASE("An existing results directory needs --force", "[cli][outputs]") {
  require_dataset("mnist");
  const std::string dir = fresh_dir("force") + "/r";
  const auto args = with({"run", kQuickstart, "-q", "-o", dir}, kSmall);
  REQUIRE(run_trainsim(args).exit_code == 0);
  const std::string before = read_file(dir + "/stats.json");
  require_one_line_error(run_trainsim(args), {"'" + dir + "' exists", "--force"});
  CHECK(read_file(dir + "/stats.json") == before);  // untouched
  const CliResult forced = run_trainsim(with(args, {"-f", "-s", "training.seed=2"}));
  CHECK(forced.exit_code == 0);
  CHECK(read_file(dir + "/stats.json") != before);
  CHECK_FALSE(exists(dir + ".partial"));
}

TEST_CASE(
    "The Hype-training workloads list, validate and run shape-only, and their bad layers exit 2",
    "[cli][list][hype]") {
  const CliResult list = run_trainsim({"list", "networks"});
  CHECK(list.exit_code == 0);
  const std::string dir = fresh_dir("hype-workloads");
  const std::string exp = dir + "/exp.yaml";
  write_file(exp,
             "name: hype\nnetwork: bert_large_squad\ndataset: {name: squad}\nnumerics: none\n"
             "training: {epochs: 1, batch_size: 2, optimizer: {kind: adam, lr: 0.0001}}\n"
             "accelerator: adagp_ws180\n");
  struct Case {
    const char *network, *dataset, *listed;
  };
  for (const Case& c : {Case{"bert_large_squad", "squad", "334,094,338 params  1x384x1 -> 768"},
                        Case{"dcgan_d_celeba", "celeba", "17,232,897 params  3x64x64 -> 2"},
                        Case{"dcgan_gd_celeba", "celeba-latent", "36,087,940 params  100x1x1 -> 2"},
                        Case{"alexnet_imagenet", "imagenet", "61,100,840 params"}}) {
    INFO(c.network);
    CHECK(list.out.find(std::string("  ") + c.network + " ") != std::string::npos);
    CHECK(list.out.find(c.listed) != std::string::npos);
    const std::vector<std::string> set = {"-s", std::string("network=") + c.network,
                                          "-s", std::string("dataset.name=") + c.dataset,
                                          "-s", "dataset.train_limit=4",
                                          "-s", "dataset.test_limit=2"};
    CliResult r = run_trainsim(with({"validate", exp}, set));
    CHECK(r.exit_code == 0);
    r = run_trainsim(with({"run", exp, "-q", "-o", dir + "/" + c.network}, set));
    INFO("stdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.exit_code == 0);
    CHECK(r.out.find("shape only") != std::string::npos);
    CHECK(exists(dir + "/" + c.network + "/stats.json"));
  }
  // A layer that does not fit is one line naming the network file and the layer, exit 2.
  write_file(dir + "/bad.yaml",
             "input: [1, 384, 1]\nclasses: 768\nlayers:\n"
             "  - {type: embedding, name: e, vocab: 10, units: 8}\n"
             "  - {type: reshape, name: r, shape: [8, 383, 1]}\n"
             "  - {type: linear, units: 2}\n  - {type: softmax}\n");
  require_one_line_error(run_trainsim({"validate", exp, "-s", "network=" + dir + "/bad.yaml"}),
                         {"bad.yaml", "layer 'r' (reshape): shape 8x383x1 has 3064 values"});
  require_one_line_error(
      run_trainsim({"validate", exp, "-s",
                    "network={input: [1, 384, 1], classes: 768, layers: [{type: linear, "
                    "units: 2, heads: 4}, {type: softmax}]}"}),
      {"heads", "unknown key 'heads'"});
}
