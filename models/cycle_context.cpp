#include "models/cycle_context.h"

#include "dataflows/tile_values.h"
#include "models/dram_channel.h"
#include "models/sim_time.h"

namespace trainsim {

CycleContext::CycleContext(PeArray& array, DmaEngine& dma, const AcceleratorSpec& acc,
                           const Dataflow& df, const OperandValues& values)
    : array_(array),
      dma_(dma),
      acc_(acc),
      df_(df),
      values_(values),
      start_(sc_core::sc_time_stamp()),
      period_(clock_period(acc)) {}

std::int64_t CycleContext::cycles_at(const sc_core::sc_time& t) const {
  return static_cast<std::int64_t>((t - start_) / period_ + 0.5);
}

std::int64_t CycleContext::now() const {
  return cycles_at(sc_core::sc_time_stamp());
}

void CycleContext::wait_until(std::int64_t cycle) {
  const sc_core::sc_time t = after_cycles(start_, static_cast<double>(cycle), period_);
  if (t > sc_core::sc_time_stamp()) sc_core::wait(t - sc_core::sc_time_stamp());
}

std::int64_t CycleContext::transfer(std::int64_t bytes) {
  return cycles_at(dma_.transfer(sc_core::sc_time_stamp(), bytes));
}

const OpStats& CycleContext::compute(const Op& tile, const NestProblem* p, const TileBox* box) {
  std::unique_ptr<ArrayEngine> engine =
      df_.engine(tile, acc_, box ? tile_operands(*p, *box, values_) : values_);
  array_.run_clocked(*engine);
  if (box) {
    result_.resize(static_cast<std::size_t>(result_size(*p)), 0.0);
    accumulate_tile(*p, *box, engine->result(), result_);
  } else {
    result_ = engine->result();
  }
  last_ = engine->stats();
  return last_;
}

void CycleContext::busy(std::int64_t cycles) {
  if (cycles > 0) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::wait(after_cycles(now, static_cast<double>(cycles), period_) - now);
  }
}

}  // namespace trainsim
