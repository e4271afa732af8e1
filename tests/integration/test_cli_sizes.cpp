// Sizes whose products would leave 64 bits, through the real binary: each is one line
// naming the key and its range (or the layer and the limit), exit code 2, no output. Before
// the key ranges, `predictor: {size: 65536}` killed trainsim with SIGFPE (size^2 overflowed
// int to 0 and was divided by) and sizes from 46,341 up overflowed silently.
#include <catch2/catch.hpp>

#include "tests/integration/cli_runner.h"

using namespace trainsim::test;

namespace {

const std::string kQuickstart =
    std::string(TRAINSIM_SOURCE_DIR) + "/configs/experiments/quickstart.yaml";

// `trainsim run` of the quickstart experiment with `overrides`.
CliResult run_with(const std::string& out, const std::vector<std::string>& overrides) {
  std::vector<std::string> args = {"run", kQuickstart, "--out", out, "--quiet"};
  for (const auto& o : overrides) {
    args.push_back("--set");
    args.push_back(o);
  }
  return run_trainsim(args);
}

}  // namespace

TEST_CASE("An ADA-GP predictor of size 65536 is a one-line error, not SIGFPE", "[cli][sizes]") {
  const std::string dir = fresh_dir("sizes-predictor");
  const std::string out = dir + "/out";
  // In the experiment file: the error points at the value.
  const std::string exp = dir + "/exp.yaml";
  write_file(exp, read_file(kQuickstart) +
                      "technique: {kind: adagp-max, predictor: {size: 65536, channels: 4}}\n");
  const auto r = run_trainsim({"run", exp, "--out", out, "--quiet"});
  require_clean_failure(r, out,
                        {"exp.yaml:", "technique.predictor.size", "must be in [1, 256]", "65536"});
  // Through --set: the override is named instead.
  require_clean_failure(
      run_with(out, {"technique={kind: adagp-low, predictor: {size: 46341}}"}), out,
      {"--set technique", "technique.predictor.size", "must be in [1, 256], got 46341"});
  require_clean_failure(
      run_with(out, {"technique={kind: adagp-efficient, predictor: {channels: 100000}}"}), out,
      {"technique.predictor.channels", "must be in [1, 256], got 100000"});
}

TEST_CASE("Huge batches, channels, images and layers are one-line errors", "[cli][sizes]") {
  const std::string dir = fresh_dir("sizes-kin");
  const std::string out = dir + "/out";
  // Keys out of their own range name the key and the range.
  require_clean_failure(run_with(out, {"training.batch_size=1000000"}), out,
                        {"training.batch_size", "must be in [1, 65536], got 1000000"});
  require_clean_failure(
      run_with(out, {"training.batch_size=99999999999999999999999"}), out,
      {"training.batch_size", "must be in [1, 65536], got 99999999999999999999999"});
  require_clean_failure(run_with(out, {"network.input=[3000000, 28, 28]"}), out,
                        {"network.input.0", "must be in [1, 1048576], got 3000000"});
  require_clean_failure(run_with(out, {"network.layers.1.units=2097152"}), out,
                        {"network.layers.1.units", "must be in [1, 1048576]"});
  require_clean_failure(run_with(out, {"accelerator.array.rows=65536"}), out,
                        {"accelerator.array.rows", "must be in [1, 4096], got 65536"});
  // Keys each in range whose products are too large name the layer and the limit.
  require_clean_failure(run_with(out, {"network.input=[3, 100000, 100000]"}), out,
                        {"seed_mlp", "the input 3x100000x100000", "30000000000 values",
                         "limit of 1073741824 (2^30)"});
  require_clean_failure(run_with(out, {"network.input=[1024, 1024, 1024]"}), out,
                        {"layer 'fc1' (dense)", "17179869200 parameters", "(2^30)"});
  require_clean_failure(
      run_with(out, {"network=lenet5", "network.input=[1, 1024, 1024]", "network.classes=10",
                     "network.layers.0.filters=512", "network.layers.0.kernel=64"}),
      out, {"layer 'conv1' (conv2d)", "MACs or values per sample", "(2^36)"});
}
