// The timeline of the ADA-GP paper's §3.7 (Figs. 7-9), through the real session and SystemC system:
// a 4-layer model whose backward pass takes twice its forward pass takes 12 steps per batch
// with backprop, 12 + 12 alpha in ADA-GP's Phase BP (and Warm Up) and 4 + 4 alpha in Phase
// GP, where a step is one layer's forward time and alpha the predictor's forward time over
// it (the Efficient hardware: predictor and model share the array, so times add).
//
// A test dataflow sets each op's cycles by its role: forward T, backward-data and
// backward-weight T each (the first layer, which needs no backward-data, 2T), predictor
// forward alpha T and backward 2 alpha T in total. Element-wise ops run on a vector unit so
// wide that each takes exactly one cycle, and DRAM is fast enough never to stall, so each
// batch's elapsed cycles are steps x T plus its number of element-wise ops, exactly.
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/techniques/adagp_settings.h"
#include "sim/techniques/technique.h"
#include "sim/train/accel_session.h"
#include "sim/train/trainer.h"

using namespace trainsim;

namespace {

constexpr std::int64_t kT = 600;          // one step: a layer's forward pass
constexpr std::int64_t kAlphaT = kT / 2;  // alpha = 0.5

class RoleTimed final : public Dataflow {
 public:
  std::string name() const override { return "role-timed"; }
  std::string description() const override { return "test: cycles set by the op's role"; }
  bool gemm_based() const override { return true; }
  OpStats evaluate(const Op& op, const AcceleratorSpec& acc) const override {
    OpStats s;
    s.pes = acc.pes();
    s.macs = lower_to_gemm(op).macs();
    if (op.role == technique_role("pred-fw")) {  // a conv and a dense op
      s.compute_cycles = kAlphaT / 2;
      return s;
    }
    if (op.role == technique_role("pred-bw")) {  // two dense ops and a conv
      s.compute_cycles = 2 * kAlphaT / 3;
      return s;
    }
    switch (op.role) {
      case OpRole::kForward:
      case OpRole::kBackwardData:
        s.compute_cycles = kT;
        break;
      case OpRole::kBackwardWeight:
        s.compute_cycles = op.layer == 0 ? 2 * kT : kT;
        break;
      default:
        throw std::logic_error("unexpected array op");
    }
    return s;
  }
  std::unique_ptr<ArrayEngine> engine(const Op&, const AcceleratorSpec&,
                                      OperandValues) const override {
    throw std::logic_error("fast fidelity only");
  }
};

LayerSpec dense(int units) {
  LayerSpec l;
  l.type = "dense";
  l.units = units;
  return l;
}

LayerSpec softmax() {
  LayerSpec l;
  l.type = "softmax";
  return l;
}

Dataset data(int count) {
  Dataset d;
  d.name = "timeline";
  d.channels = 1, d.height = 2, d.width = 2, d.classes = 3;
  Rng rng(3);
  for (DataSplit* s : {&d.train, &d.test}) {
    s->count = count;
    for (int i = 0; i < count; ++i) {
      s->labels.push_back(static_cast<std::uint8_t>(i % 3));
      for (int p = 0; p < 4; ++p) s->images.push_back(static_cast<float>(rng.uniform()));
    }
  }
  return d;
}

ExperimentSpec spec(const std::string& technique) {
  ExperimentSpec e;
  e.network.name = "four_layers";
  e.network.input = {1, 2, 2};
  e.network.classes = 3;
  e.network.layers = {dense(8), dense(8), dense(8), dense(3), softmax()};
  for (std::size_t i = 0; i < e.network.layers.size(); ++i)
    e.network.layers[i].name = "l" + std::to_string(i);
  e.training.batch_size = 10;
  e.training.optimizer.kind = "sgd";
  e.sim.technique.kind = technique;
  e.sim.technique.own<AdaGpSettings>().warmup_epochs = 1;
  e.sim.technique.own<AdaGpSettings>().schedule = {
      {{1, 1, 0}}};  // after the warm-up: GP, BP, GP, BP, ...
  AcceleratorSpec& a = e.sim.accelerator;
  a.name = "timeline";
  a.vector_lanes = 1 << 30;     // every element-wise op takes one cycle
  a.dram.bandwidth_gbps = 1e9;  // and DRAM never stalls
  a.dram.latency_cycles = 0;
  // Operands stream alongside each op (SCALE-Sim's model), so no transfer is ever exposed;
  // the tiled model would add each op's first fetch and last write-back, a cycle each.
  a.memory = "scalesim";
  a.energy.mac = {{16, 1.0}};
  return e;
}

}  // namespace

TEST_CASE("ADA-GP timeline: 12 steps for BP, 12 + 12 alpha in Phase BP, 4 + 4 alpha in GP",
          "[adagp][timeline]") {
  const RoleTimed timed;
  const Dataset d = data(40);  // 4 batches of 10 per epoch

  // Backprop: per batch 4 forward + 4 x 2 backward = 12 steps; element-wise: softmax, loss
  // gradient and 4 updates = 6.
  {
    const ExperimentSpec s = spec("bp");
    Trainer trainer(s, d);
    AcceleratorSession session(s, trainer.network(), &timed);
    trainer.run_epoch();
    const std::int64_t per_batch = session.record().take_epoch()[0].elapsed_cycles / 4;
    CHECK(per_batch == 12 * kT + 6);
  }

  // ADA-GP-Efficient. Warm Up and Phase BP: 12 steps + 4 predictions (alpha each) + 4
  // predictor trainings (2 alpha each) = 12 + 12 alpha; element-wise: the model's 6 plus,
  // per layer, the predictor's batch average, resize, ReLU, MSE gradient, ReLU derivative
  // and update (6 x 4 = 24) = 30. Phase GP: 4 forward steps + 4 predictions = 4 + 4 alpha;
  // element-wise: softmax, 4 updates and 3 per prediction (12) = 17.
  const ExperimentSpec s = spec("adagp-efficient");
  Trainer trainer(s, d);
  AcceleratorSession session(s, trainer.network(), &timed);
  trainer.run_epoch();  // warm-up: 4 batches
  trainer.run_epoch();  // GP, BP, GP, BP
  const auto& phases = session.record().phase_totals();
  CHECK(phases[0].elapsed_cycles == 4 * (12 * kT + 12 * kAlphaT + 30));
  CHECK(phases[1].elapsed_cycles == 2 * (12 * kT + 12 * kAlphaT + 30));
  CHECK(phases[2].elapsed_cycles == 2 * (4 * kT + 4 * kAlphaT + 17));
  // Two batches, one of each phase (Fig. 5): 16 + 16 alpha steps against backprop's 24.
  CHECK((phases[1].elapsed_cycles + phases[2].elapsed_cycles) / 2 ==
        16 * kT + 16 * kAlphaT + 30 + 17);
}

TEST_CASE("ADA-GP-MAX hides each prediction behind the next layer in Phase GP",
          "[adagp][timeline]") {
  // With the predictor on its own array, layer l's prediction (alpha <= 1 step) overlaps
  // layer l+1's forward pass; only the last layer's prediction is exposed: a Phase GP batch
  // takes between 4 + alpha and 4 + 4 alpha steps (plus element-wise work).
  const RoleTimed timed;
  const Dataset d = data(40);
  const ExperimentSpec s = spec("adagp-max");
  Trainer trainer(s, d);
  AcceleratorSession session(s, trainer.network(), &timed);
  trainer.run_epoch();
  trainer.run_epoch();
  const std::int64_t gp = session.record().phase_totals()[2].elapsed_cycles / 2;
  CHECK(gp >= 4 * kT + kAlphaT);
  CHECK(gp < 4 * kT + 4 * kAlphaT);
}
