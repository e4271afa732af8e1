// A one-device system timed from the ops its numerics issue (sim/run/streamed_device.h) and
// the same system timed by its schedule over shapes (sim/pipeline/pipeline_model.h) are two
// paths to one answer when the technique does not depend on the data: backprop's batches on a
// GPU take the same time and energy either way, so what speculative backprop measures on a
// GPU compares with what a scheduled run of bp does.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/core/paths.h"
#include "sim/core/rng.h"
#include "sim/run/experiment_file.h"
#include "sim/run/streamed_device.h"
#include "sim/train/model_session.h"
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

namespace {

// Every op takes 1 us at 100 W (10 W of it static) and keeps `occupancy` of the device busy.
class FlatModel final : public DeviceModel {
 public:
  explicit FlatModel(double occupancy) : occupancy_(occupancy) {}
  const std::string& name() const override { return name_; }
  const std::string& kind() const override { return kind_; }
  double static_w() const override { return 10; }
  int word_bytes() const override { return 4; }
  OpCost cost(const Op& op) override {
    (void)op;
    OpCost c;
    c.time_s = 1e-6;
    c.avg_w = c.peak_w = 100;
    c.energy_j = 100e-6;
    c.occupancy = occupancy_;
    return c;
  }

 private:
  double occupancy_;
  std::string name_ = "flat", kind_ = "gpu";
};

}  // namespace

TEST_CASE("Two streams: elapsed is the longer stream or the packed busy time, static paid once",
          "[gpu][streamed]") {
  struct Case {
    double occupancy;
    std::string unit;
  };
  for (const Case& c :
       {Case{0.25, "own"}, Case{0.75, "own"}, Case{1, "own"}, Case{0.25, "shared"}}) {
    INFO("occupancy " << c.occupancy << ", unit " << c.unit);
    const ExperimentSpec spec = load_experiment(
        configs_root() + "/experiments/quickstart.yaml",
        {"system=h100_alone", "pipeline.micro_batches=1",
         "technique={kind: specbp, threshold: 0.25, unit: {array: " + c.unit + "}}"});
    const Dataset data = noise_data(15, 10);
    Trainer trainer(spec, data);
    FlatModel model(c.occupancy);
    ModelSession s(spec, trainer.network(), model, "system.devices[0]");
    // A hit step's shape: the forward pass on the main stream, a backward pass on the second.
    const std::size_t layers = s.shape().size();
    for (std::size_t l = 0; l < layers; ++l) s.on_forward(l, 1);
    s.on_unit(1, false);
    for (std::size_t l = layers; l-- > 1;) {
      s.on_backward_weight(l, 1);
      s.on_backward_data(l, 1);
    }
    s.on_unit(0, false);
    s.on_join();
    const StreamTotals t = s.take_epoch()[0];
    const double t0 = t.stream_s[0], t1 = t.stream_s[1];
    REQUIRE(t0 > 0);
    REQUIRE(t1 > 0);
    CHECK(t0 + t1 == Approx(1e-6 * static_cast<double>(t.work.ops)));
    const double expect =
        c.unit == "shared" ? t0 + t1 : std::max({t0, t1, c.occupancy * (t0 + t1)});
    CHECK(t.work.seconds == Approx(expect));
    // Which bound holds: the longer stream (few SMs each), the packed busy time (most of
    // them), or the two one after another (the whole device each, or a shared unit).
    if (c.unit == "own" && c.occupancy == 0.75) CHECK(expect > std::max(t0, t1));
    // Dynamic energy of every op (90 W x 1 us), static power once over the elapsed time.
    CHECK(t.work.joules == Approx(90e-6 * (t0 + t1) / 1e-6 + 10 * expect));
  }
}
