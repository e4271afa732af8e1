#pragma once
// The cycle fidelity's ExecutionContext: a memory model's schedule in SystemC time. Array
// passes are clocked through the dataflow's register-level engine on real operand values
// (a tile's values are cut from the whole op's and its result is added back, so the op's
// result can be checked against a reference); DRAM transfers are booked on the shared
// channel through the accelerator's DMA, so units that share it delay each other transfer
// by transfer.
#include <memory>
#include <systemc>
#include <vector>

#include "models/dma_engine.h"
#include "models/pe_array.h"
#include "sim/accel/memory_model.h"

namespace trainsim {

class CycleContext final : public ExecutionContext {
 public:
  CycleContext(PeArray& array, DmaEngine& dma, const AcceleratorSpec& acc, const Dataflow& df,
               const OperandValues& values);
  std::int64_t now() const override;
  void wait_until(std::int64_t cycle) override;
  std::int64_t transfer(std::int64_t bytes) override;
  const OpStats& compute(const Op& tile, const NestProblem* p, const TileBox* box) override;
  void busy(std::int64_t cycles) override;
  bool clocks_values() const override { return true; }
  /// The whole op's numeric result (layout as reference_result()).
  std::vector<double>& result() { return result_; }

 private:
  std::int64_t cycles_at(const sc_core::sc_time& t) const;
  PeArray& array_;
  DmaEngine& dma_;
  const AcceleratorSpec& acc_;
  const Dataflow& df_;
  const OperandValues& values_;
  sc_core::sc_time start_, period_;
  std::vector<double> result_;
  OpStats last_;  // the last pass's counts
};

}  // namespace trainsim
