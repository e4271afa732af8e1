// The per-layer size limits NetShape enforces (sim/workload/size_limits.h) and the range of
// every integer key (sim/yaml/key_ranges.h): together they keep every product the model
// forms inside 64 bits. Under the sanitizer build (TRAINSIM_SANITIZE) these also prove that
// checking a too-large network overflows nothing on the way to its error.
#include <catch2/catch.hpp>

#include <climits>
#include <limits>

#include "sim/core/paths.h"
#include "sim/run/experiment_file.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/predictor_ops.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"
#include "sim/workload/network_lookup.h"
#include "sim/workload/size_limits.h"
#include "sim/yaml/key_ranges.h"
#include "tests/support/config_errors.h"

#include "tests/support/layer_spec.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

// input -> `body` -> flatten -> dense(classes) -> softmax
NetworkSpec net(std::array<int, 3> input, std::vector<LayerSpec> body) {
  NetworkSpec n;
  n.name = "big";
  n.source = "<test>";
  n.input = input;
  n.classes = 2;
  n.layers = std::move(body);
  n.layers.push_back(test::layer_spec("flatten", "flat"));
  LayerSpec fc = test::layer_spec("dense", "fc");
  fc.units = 2;
  n.layers.push_back(fc);
  n.layers.push_back(test::layer_spec("softmax", "out"));
  return n;
}

std::string shape_error(const NetworkSpec& spec) {
  return error_of([&] { NetShape s(spec); });
}

}  // namespace

TEST_CASE("saturating_product stops at INT64_MAX instead of overflowing", "[sizes]") {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  CHECK(saturating_product({}) == 1);
  CHECK(saturating_product({3, 5, 7}) == 105);
  CHECK(saturating_product({std::int64_t{1} << 31, std::int64_t{1} << 31}) == std::int64_t{1}
                                                                                  << 62);
  CHECK(saturating_product({std::int64_t{1} << 32, std::int64_t{1} << 31}) == kMax);
  CHECK(saturating_product({kMax, 2, 0}) == 0);
  CHECK(saturating_product({1 << 20, 1 << 20, 1 << 20, 1 << 20}) == kMax);
}

TEST_CASE("NetShape names the layer whose sizes pass a limit", "[sizes][shape]") {
  // The largest input allowed: 2^30 values.
  const NetworkSpec largest =
      net({1 << 10, 1 << 10, 1 << 10}, {test::layer_spec("global_avgpool", "gap")});
  CHECK_NOTHROW(NetShape(largest));
  std::string msg = shape_error(net({2, 1 << 15, 1 << 15}, {}));
  CHECK(msg.find("network 'big' (<test>): the input 2x32768x32768 produces 2147483648 values "
                 "per sample, more than the limit of 1073741824 (2^30)") != std::string::npos);

  // A resize of a flattened 2^30 values to 2^20 x 2^20: 2^70 values overflow int64 if
  // multiplied naively.
  LayerSpec resize = test::layer_spec("resize", "up");
  resize.size = {{1 << 20, 1 << 20}};
  NetworkSpec n = net({1 << 10, 1 << 10, 1 << 10}, {test::layer_spec("flatten", "f0"), resize});
  msg = shape_error(n);
  CHECK(msg.find("layer 'up' (resize): produces more than 2^63 values per sample") !=
        std::string::npos);

  // A concat whose channel sum leaves int: clamped, then over the volume limit.
  n = net({1 << 29, 1, 1}, {});
  n.layers.insert(n.layers.begin(), test::layer_spec("relu", "a"));
  LayerSpec cat = test::layer_spec("concat", "cat");
  cat.from = {"a", "a", "a", "a", "a"};
  n.layers.insert(n.layers.begin() + 1, cat);
  msg = shape_error(n);
  CHECK(msg.find("layer 'cat' (concat): produces 2147483647 values per sample") !=
        std::string::npos);

  // Parameters: a conv with 4096 filters of 2^14 x 11 x 11 weights and a bias (8e9 > 2^30).
  LayerSpec conv = test::layer_spec("conv2d", "c");
  conv.filters = 4096, conv.kernel = 11;
  msg = shape_error(net({1 << 14, 11, 11}, {conv}));
  CHECK(msg.find("layer 'c' (conv2d): has 8120176640 parameters, more than the limit of "
                 "1073741824 (2^30)") != std::string::npos);

  // MACs: few parameters and a small output, but the backward-data pass convolves the whole
  // padded input: 2052^2 x 64^2 x 8 x 64 MACs per sample.
  conv.filters = 64, conv.kernel = 64, conv.stride = 64, conv.padding = 2;
  msg = shape_error(net({8, 2048, 2048}, {conv}));
  CHECK(msg.find("layer 'c' (conv2d): forms 8830486315008 MACs or values per sample, more than "
                 "the limit of 68719476736 (2^36)") != std::string::npos);

  // A pooling window over a large output: 2^22 outputs x 4096^2 reads.
  LayerSpec pool = test::layer_spec("maxpool2d", "p");
  pool.kernel = 4096, pool.stride = 1, pool.padding = 2048;
  msg = shape_error(net({1 << 20, 1, 1}, {pool}));
  CHECK(msg.find("layer 'p' (maxpool2d): forms") != std::string::npos);

  // Summing the gradients of many readers of a large layer.
  n = net({1 << 24, 1, 1}, {test::layer_spec("relu", "r")});
  for (int i = 0; i < 5000; ++i) {
    LayerSpec reader = test::layer_spec("relu", "read" + std::to_string(i));
    reader.from = {"r"};
    n.layers.insert(n.layers.begin() + 1, reader);
  }
  n.layers[n.layers.size() - 3].from = {"r"};  // flatten reads r as well
  msg = shape_error(n);
  CHECK(msg.find("layer 'r' (relu): 5001 layers read it: summing their gradients forms "
                 "83902857216 MACs or values per sample") != std::string::npos);
}

TEST_CASE("the shipped networks are far inside the size limits", "[sizes][shape]") {
  for (const std::string& name : shipped_network_names()) {
    INFO(name);
    const NetworkSpec spec = load_network(configs_root() + "/networks/" + name + ".yaml");
    const NetShape s(spec);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const LayerShape& l = s.layer(i);
      CHECK(l.out.size() * 64 <= kMaxSampleValues);
      CHECK(l.params * 8 <= kMaxLayerParams);
      CHECK(l.work * 16 <= kMaxSampleWork);
    }
  }
}

TEST_CASE("a predictor larger than int's square root lowers without dividing by zero",
          "[sizes][adagp]") {
  // size^2 = 2^32 was cast to int (0) and divided by: SIGFPE. The config range now stops
  // such sizes, and the lowering computes in 64 bits regardless.
  const PredictorOps p = lower_predictor(0, 4, 28, 28, 2, 65536, 1, 10, 10, 16, true);
  REQUIRE(p.forward.size() >= 2);
  CHECK(p.forward[1].eltwise.elements == 4 * (std::int64_t{1} << 32));
  CHECK(p.forward[1].eltwise.reads == 1);
}

TEST_CASE("every integer key rejects values outside its range, naming the range",
          "[sizes][config]") {
  const std::string quickstart = configs_root() + "/experiments/quickstart.yaml";
  struct Key {
    std::string override_prefix;  // before the value
    std::string suffix;           // after it
    std::string key;              // as the error names it
    IntRange range;
  };
  const std::string adagp = "technique={kind: adagp-max, ";
  const std::string specbp = "technique={kind: specbp, ";
  const std::vector<Key> keys = {
      {"training.epochs=", "", "training.epochs", key_range::kEpochs},
      {"training.batch_size=", "", "training.batch_size", key_range::kBatch},
      {"dataset.train_limit=", "", "dataset.train_limit", key_range::kSampleLimit},
      {"dataset.test_limit=", "", "dataset.test_limit", key_range::kSampleLimit},
      {"network.input=[", ", 28, 28]", "network.input.0", key_range::kExtent},
      {"network.input=[1, ", ", 28]", "network.input.1", key_range::kExtent},
      {"network.input=[1, 28, ", "]", "network.input.2", key_range::kExtent},
      {"network.classes=", "", "network.classes", key_range::kClasses},
      {"network.layers.1.units=", "", "network.layers.1.units", key_range::kExtent},
      {"network.layers.1={type: conv2d, kernel: 1, filters: ", "}", "network.layers.1.filters",
       key_range::kExtent},
      {"network.layers.1={type: conv2d, filters: 1, kernel: ", "}", "network.layers.1.kernel",
       key_range::kWindow},
      {"network.layers.1={type: conv2d, filters: 1, kernel: [1, ", "]}",
       "network.layers.1.kernel.1", key_range::kWindow},
      {"network.layers.1={type: conv2d, filters: 1, kernel: 1, stride: ", "}",
       "network.layers.1.stride", key_range::kWindow},
      {"network.layers.1={type: conv2d, filters: 1, kernel: 1, padding: ", "}",
       "network.layers.1.padding", key_range::kPadding},
      {"network.layers.1={type: conv2d, filters: 1, kernel: 1, groups: ", "}",
       "network.layers.1.groups", key_range::kExtent},
      {"network.layers.1={type: maxpool2d, kernel: ", "}", "network.layers.1.kernel",
       key_range::kWindow},
      {"network.layers.1={type: resize, size: [", ", 2]}", "network.layers.1.size.0",
       key_range::kExtent},
      {adagp + "warmup_epochs: ", "}", "technique.warmup_epochs", key_range::kEpochsOrZero},
      {adagp + "schedule: [[", ", 1, 0]]}", "technique.schedule.0.0", key_range::kGpBatches},
      {adagp + "schedule: [[1, ", ", 0]]}", "technique.schedule.0.1", key_range::kBpBatches},
      {adagp + "schedule: [[1, 1, ", "]]}", "technique.schedule.0.2", key_range::kEpochsOrZero},
      {adagp + "predictor: {size: ", "}}", "technique.predictor.size", key_range::kPredictorSize},
      {adagp + "predictor: {channels: ", "}}", "technique.predictor.channels",
       key_range::kPredictorChannels},
      {adagp + "unit: {rows: ", "}}", "technique.unit.rows", key_range::kUnitExtent},
      {specbp + "unit: {cols: ", "}}", "technique.unit.cols", key_range::kUnitExtent},
      {"accelerator.array.rows=", "", "accelerator.array.rows", key_range::kArrayExtent},
      {"accelerator.array.cols=", "", "accelerator.array.cols", key_range::kArrayExtent},
      {"accelerator.rf.input_words=", "", "accelerator.rf.input_words", key_range::kRfWords},
      {"accelerator.rf.weight_words=", "", "accelerator.rf.weight_words", key_range::kRfWords},
      {"accelerator.rf.psum_words=", "", "accelerator.rf.psum_words", key_range::kRfWords},
      {"accelerator.buffer.banks=", "", "accelerator.buffer.banks", key_range::kBanks},
      {"accelerator.buffer.words_per_cycle=", "", "accelerator.buffer.words_per_cycle",
       key_range::kPerCycle},
      {"accelerator.noc.words_per_cycle=", "", "accelerator.noc.words_per_cycle",
       key_range::kPerCycle},
      {"accelerator.vector_unit.lanes=", "", "accelerator.vector_unit.lanes", key_range::kPerCycle},
      {"accelerator.dram.latency_cycles=", "", "accelerator.dram.latency_cycles",
       key_range::kLatencyCycles},
      {"accelerator.energy.noc.per_bits=", "", "accelerator.energy.noc.per_bits", key_range::kBits},
  };
  for (const Key& k : keys) {
    const std::string range =
        "must be in [" + std::to_string(k.range.min) + ", " + std::to_string(k.range.max) + "]";
    for (std::int64_t bad : {k.range.min - 1, k.range.max + 1}) {
      const std::string o = k.override_prefix + std::to_string(bad) + k.suffix;
      INFO(o);
      const std::string msg = error_of([&] { load_experiment(quickstart, {o}); });
      CHECK(msg.find(k.key + ": " + range + ", got " + std::to_string(bad)) != std::string::npos);
    }
  }
  // Beyond 64 bits, the same message.
  const std::string msg =
      error_of([&] { load_experiment(quickstart, {"training.epochs=1" + std::string(30, '0')}); });
  CHECK(msg.find("training.epochs: must be in [1, 10000], got 1000000000000000000000000000000") !=
        std::string::npos);
  // The limits themselves are accepted where no product is formed with them.
  CHECK(load_experiment(quickstart, {"training.batch_size=65536"}).training.batch_size == 65536);
  CHECK(load_experiment(quickstart, {"accelerator.array.rows=4096"}).sim.accelerator.rows == 4096);
  CHECK(load_experiment(quickstart, {adagp + "predictor: {size: 256, channels: 256}}"})
            .sim.technique.get<AdaGpSettings>()
            .predictor_size == 256);
}
