// A one-device system timed from the ops its numerics issue (sim/run/streamed_device.h) and
// the same system timed by its schedule over shapes (sim/pipeline/pipeline_model.h) are two
// paths to one answer when the technique does not depend on the data: backprop's batches on a
// GPU take the same time and energy either way, so what speculative backprop measures on a
// GPU compares with what a scheduled run of bp does.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/config/experiment_config.h"
#include "sim/core/paths.h"
#include "sim/core/rng.h"
#include "sim/run/streamed_device.h"
#include "sim/train/trainer.h"

using namespace trainsim;

namespace {

// MNIST-shaped noise: the timing depends on the shapes only.
Dataset noise_data(int train, int test) {
  Dataset d;
  d.name = "noise";
  d.channels = 1, d.height = 28, d.width = 28, d.classes = 10;
  Rng rng(3);
  for (auto [split, count] : {std::make_pair(&d.train, train), std::make_pair(&d.test, test)}) {
    split->count = count;
    for (int i = 0; i < count; ++i) {
      split->labels.push_back(static_cast<std::uint8_t>(i % 10));
      for (int p = 0; p < 28 * 28; ++p) split->images.push_back(static_cast<float>(rng.uniform()));
    }
  }
  return d;
}

}  // namespace

TEST_CASE("Backprop on a GPU: timed from its ops or by its schedule, the same time and energy",
          "[gpu][streamed]") {
  const std::string device = GENERATE(as<std::string>{}, "h100", "s10_gx2500");
  INFO(device);
  const ExperimentSpec spec =
      load_experiment(configs_root() + "/experiments/quickstart.yaml",
                      {"system.devices=[{device: " + device + "}]", "pipeline.micro_batches=1"});
  const Dataset data = noise_data(50, 10);  // 3 batches of 15 and one of 5
  Trainer trainer(spec, data);
  StreamedDevice stream(spec, trainer);
  trainer.run_epoch();
  const PipelineEpoch e = stream.take_epoch(4, 0);

  const NetShape shape(spec.network);
  PipelineModel model(spec, shape);
  const PipelineEpoch s = model.epoch({0, 0, 0, 0}, 5);
  // The schedule rounds each task (forward, backward, update of 4 batches) to whole
  // picoseconds.
  CHECK(e.time_s == Approx(s.time_s).margin(12 * 0.5e-12).epsilon(0));
  CHECK(e.device_priced[0].joules == Approx(s.device_priced[0].joules).epsilon(1e-9));
  CHECK(e.device_priced[0].bytes == Approx(s.device_priced[0].bytes).epsilon(1e-12));
  CHECK(e.device_priced[0].macs == s.device_priced[0].macs);
  CHECK(e.device_priced[0].ops == s.device_priced[0].ops);
  // Without sample steps there is no step time of its own.
  CHECK(stream.step_seconds() < 0);
}
