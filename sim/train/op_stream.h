#pragma once
// The op stream of a training run: it observes the network's passes (PassObserver), turns
// each into the op the lowering assigns it (or the technique's own: a predictor's ops, a
// compare, a store), decides which unit of the device runs it (the technique's hardware
// routes some roles to its second unit), and hands the ops to a sink in issue order with
// the points where everything issued so far must complete.
//
// One stream, several consumers: the accelerator session runs the ops on the SystemC
// accelerator (sim/train/accel_session.h); a device of another kind prices them with its
// own model (sim/pipeline/device_stage_costs.h). The op stream is the same either way, so a
// technique's work reaches every kind of device.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

#include "sim/nn/pass_observer.h"
#include "sim/spec/specs.h"
#include "sim/techniques/technique.h"
#include "sim/workload/lowering.h"
#include "sim/workload/net_shape.h"

namespace trainsim {

/// Where an op stream's ops go.
class OpSink {
 public:
  virtual ~OpSink() = default;
  /// The next op. `op` lives as long as the stream that issued it (its address may key a
  /// memo). `unit`: 0 the device's main unit, 1 the technique's second unit. `discarded`:
  /// speculative work whose result is thrown away (still timed and priced).
  virtual void take(const Op& op, int unit, bool discarded) = 0;
  /// Everything taken so far completes before anything taken next; it belongs to `phase`.
  /// `whole_step`: it ends a training step or an evaluation batch.
  virtual void complete(Phase phase, bool whole_step) = 0;
  /// A sample step begins or ends (after complete()): per-step timing.
  virtual void step(bool begin) { (void)begin; }
};

class OpStream : public PassObserver {
 public:
  /// The ops of spec.network at spec.sim.accelerator's word width with spec.training's
  /// optimizer, on the hardware spec.sim.technique adds; sent to `sink`, which must outlive
  /// the stream (it may be the derived object, still under construction here).
  OpStream(const ExperimentSpec& spec, OpSink& sink);

  void on_forward(std::size_t layer, int batch) override;
  void on_loss_grad(std::size_t layer, int batch) override;
  void on_backward_data(std::size_t layer, int batch) override;
  void on_backward_weight(std::size_t layer, int batch) override;
  void on_update(std::size_t layer, int batch) override;
  void on_batch_end(Phase phase, int batch) override;
  void on_unit(int unit, bool discarded) override;
  void on_join() override;
  void on_step(bool begin) override;
  void on_technique_op(std::size_t layer, int what, std::int64_t n) override;
  void on_phase(int phase) override;
  void on_grad_sum(std::size_t layer, int batch) override;

  const NetShape& shape() const { return shape_; }
  /// What the technique adds to the device: its second unit, memory and model of its own.
  const TechniqueHardware& hardware() const { return hw_; }
  /// Whether the second unit has an array of its own, running beside the main one.
  bool own_unit() const { return own_unit_; }
  /// The technique phase the batches run in now (TechniqueInfo::phases; 0 without phases).
  int phase() const { return phase_; }

 protected:
  // The phase is part of a run's state at an epoch boundary (checkpoints restore it).
  int phase_ = 0;

 private:
  const std::vector<LayerOps>& ops_for(int batch);
  void push(const std::optional<Op>& op);
  /// `op` must live as long as the stream: a lowered op or one of the technique's.
  void push_op(const Op& op);
  void finish(Phase phase, bool whole_step);

  OpSink& sink_;
  NetShape shape_;
  int word_bits_ = 32;
  OptimizerSpec optimizer_;
  TechniqueHardware hw_;
  bool own_unit_ = false;
  std::array<bool, kNumRoles> second_unit_role_{};  // roles that always run on unit 1
  std::map<int, std::vector<LayerOps>> lowered_;    // by batch size
  const std::vector<LayerOps>* current_ = nullptr;
  int current_batch_ = -1;
  // The technique's own ops (TechniqueInfo::lower_ops), made on first use: by layer, operation,
  // size and batch size.
  decltype(TechniqueInfo::lower_ops) lower_ops_ = nullptr;
  std::map<std::tuple<std::size_t, int, std::int64_t, int>, std::vector<Op>> technique_ops_;
  int unit_ = 0;
  bool discarding_ = false;
  std::size_t lockstep_layer_ = static_cast<std::size_t>(-1);  // layer of pending unit-1 work
  bool second_pending_ = false;  // unit-1 ops taken since the last completion
};

}  // namespace trainsim
