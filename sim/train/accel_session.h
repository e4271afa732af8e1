#pragma once
// Times a training run on the simulated accelerator. It observes the network's passes
// (PassObserver), turns each into the op the lowering assigns it, and sends each finished
// batch's ops through the SystemC system, so simulated time advances batch by batch. It
// keeps the sums trainsim run reports: per phase (training, evaluation), per epoch, and per
// layer x role.
#include <array>
#include <map>
#include <vector>

#include "models/system.h"
#include "sim/config/specs.h"
#include "sim/nn/network.h"
#include "sim/nn/pass_observer.h"
#include "sim/workload/lowering.h"

namespace trainsim {

inline constexpr int kNumRoles = 5;  // OpRole values
inline constexpr int kNumPhases = 2;

/// Sum of the ops of one kind of work, and how many there were.
/// Utilization of a sum is MACs over (array PEs x all its cycles, vector-unit ops included).
struct OpTotals {
  OpStats stats;
  std::int64_t ops = 0;
  void add(const OpStats& s, std::int64_t array_pes) {
    stats += s;
    stats.pes = array_pes;
    ++ops;
  }
};

class AcceleratorSession final : public PassObserver {
 public:
  /// Configures the process's SystemC system for spec.sim and attaches to `net`.
  AcceleratorSession(const ExperimentSpec& spec, Network<float>& net);
  ~AcceleratorSession() override;

  void on_forward(std::size_t layer, int batch) override;
  void on_loss_grad(std::size_t layer, int batch) override;
  void on_backward_data(std::size_t layer, int batch) override;
  void on_backward_weight(std::size_t layer, int batch) override;
  void on_update(std::size_t layer, int batch) override;
  void on_batch_end(Phase phase, int batch) override;

  /// The per-epoch sums since the last call, per phase; resets them.
  std::array<OpTotals, kNumPhases> take_epoch();
  const std::array<OpTotals, kNumPhases>& totals() const { return totals_; }
  /// [phase][layer][role]
  const std::vector<std::array<OpTotals, kNumRoles>>& layer_roles(Phase p) const {
    return layer_roles_[static_cast<int>(p)];
  }
  /// Simulated accelerator cycles so far (SystemC time), all phases.
  std::int64_t simulated_cycles() const;
  const AcceleratorSpec& accelerator() const { return spec_.sim.accelerator; }
  const Dataflow& dataflow() const { return *dataflow_; }
  SimSystem& system() { return system_; }

 private:
  const std::vector<LayerOps>& ops_for(int batch);
  void push(const std::optional<Op>& op);

  const ExperimentSpec& spec_;
  Network<float>& net_;
  const Dataflow* dataflow_;
  SimSystem& system_;
  Fidelity fidelity_;
  std::map<int, std::vector<LayerOps>> lowered_;  // by batch size
  const std::vector<LayerOps>* current_ = nullptr;
  int current_batch_ = -1;
  std::vector<OpRequest> pending_;
  std::map<std::string, OperandValues> operands_;  // cycle fidelity: by op description
  std::array<OpTotals, kNumPhases> totals_, epoch_;
  std::array<std::vector<std::array<OpTotals, kNumRoles>>, kNumPhases> layer_roles_;
};

}  // namespace trainsim
