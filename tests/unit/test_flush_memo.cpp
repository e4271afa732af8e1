// Replaying repeated flushes (AcceleratorSession): a training run whose repeated batches are
// replayed from the first one's results reports exactly what running every batch on the
// SystemC model reports: every sum, per phase, layer, role, unit and ADA-GP phase, the
// simulated time and the shared channels' counters.
#include <catch2/catch.hpp>

#include "sim/core/paths.h"
#include "sim/run/experiment_file.h"
#include "sim/train/accel_session.h"
#include "tests/unit/adagp_fixtures.h"

using namespace trainsim;
using namespace trainsim::test;

namespace {

struct Observed {
  std::array<OpTotals, kNumPhases> totals;
  std::vector<std::array<OpTotals, kNumRoles>> layer_roles;
  std::array<OpTotals, 2> units;
  std::vector<OpTotals> phases;
  OpTotals discarded;
  std::int64_t step_cycles = 0, steps = 0;
  AcceleratorNode::Carried carried;
  std::int64_t replayed = 0, run = 0;
};

Observed train(const ExperimentSpec& spec, const Dataset& data, bool memo) {
  Trainer trainer(spec, data);
  AcceleratorSession session(spec, trainer.network());
  session.set_flush_memo(memo);
  for (int e = 0; e < spec.training.epochs; ++e) trainer.run_epoch();
  Observed o;
  o.totals = session.record().totals();
  o.layer_roles = session.record().layer_roles(Phase::kTrain);
  o.units = session.record().unit_totals();
  o.phases = session.record().phase_totals();
  o.discarded = session.record().discarded();
  o.step_cycles = session.record().step_cycles();
  o.steps = session.record().steps();
  o.carried = session.node().carried();
  o.replayed = session.flushes_replayed();
  o.run = session.flushes_run();
  return o;
}

}  // namespace

TEST_CASE("replayed flushes report exactly what running every flush reports", "[session][memo]") {
  const Dataset data = band_data(70, 28, 10);  // 2 batches of 32 and one of 6 per epoch
  for (const char* technique :
       {"bp", "{kind: specbp, threshold: 0.5}", "{kind: specbp, unit: {array: shared}}",
        "{kind: adagp-max, warmup_epochs: 1, schedule: [[1, 1, 0]], predictor: {size: 4, "
        "channels: 2}}",
        "{kind: adagp-low, warmup_epochs: 1, schedule: [[1, 1, 0]]}", "bp-sample"}) {
    INFO(technique);
    const ExperimentSpec spec = load_experiment(
        configs_root() + "/experiments/lenet5_mnist.yaml",
        {"training.epochs=3", std::string("technique=") + technique, "training.batch_size=32"});
    const Observed replay = train(spec, data, true);
    const Observed all = train(spec, data, false);
    CHECK(all.replayed == 0);
    CHECK(replay.replayed > 0);
    CHECK(replay.run < all.run);
    CHECK(replay.run + replay.replayed == all.run);
    CHECK(replay.totals == all.totals);
    CHECK(replay.layer_roles == all.layer_roles);
    CHECK(replay.units == all.units);
    CHECK(replay.phases == all.phases);
    CHECK(replay.discarded == all.discarded);
    CHECK(replay.step_cycles == all.step_cycles);
    CHECK(replay.steps == all.steps);
    CHECK(replay.carried.cycles == all.carried.cycles);
    CHECK(replay.carried.channels == all.carried.channels);
  }
}
