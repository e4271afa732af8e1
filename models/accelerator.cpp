#include "models/accelerator.h"

#include "models/cycle_context.h"
#include "models/sim_time.h"
#include "sim/core/error.h"

namespace trainsim {

using sc_core::sc_time;

Accelerator::Accelerator(const std::string& name, DramChannel& dram, BufferPort& port)
    : array_(name + ".array"), dma_(dram), port_(port) {}

void Accelerator::configure(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity) {
  acc_ = acc;
  df_ = &df;
  fidelity_ = fidelity;
  period_ = clock_period(acc_);
  memory_ = &memory_model_or_throw(acc_.memory);
  cost_ = std::make_unique<CostModel>(acc_, df);
  array_.configure(acc_);
  buffer_.configure(acc_);
  dma_.reset();
  totals_ = OpStats{};
}

void Accelerator::b_transport(tlm::tlm_generic_payload& trans, sc_time& delay) {
  auto& req = *reinterpret_cast<OpRequest*>(trans.get_data_ptr());
  if (fidelity_ == Fidelity::kCycle && req.op.kind != OpKind::kElementwise)
    execute_cycle(req, delay);
  else
    execute_fast(req, delay);
  totals_ += req.stats;
  trans.set_response_status(tlm::TLM_OK_RESPONSE);
}

tlm::tlm_sync_enum Accelerator::nb_transport_fw(tlm::tlm_generic_payload& trans, tlm::tlm_phase&,
                                                sc_time&) {
  trans.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
  return tlm::TLM_COMPLETED;
}

bool Accelerator::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) {
  return false;  // an op is not memory: nothing to access directly
}

unsigned int Accelerator::transport_dbg(tlm::tlm_generic_payload&) {
  return 0;
}

void Accelerator::execute_fast(OpRequest& req, sc_time& delay) {
  req.stats = cost_->cost(req.op);
  // The closed form is the op's time with the DRAM channel and the buffer port to itself;
  // booking its traffic on the shared channel adds whatever other units make it wait.
  const sc_time start = sc_core::sc_time_stamp() + delay;
  const sc_time alone = after_cycles(start, static_cast<double>(req.stats.cycles()), period_);
  const sc_time dram_end = dma_.move(start, req.stats);
  const sc_time port_end =
      port_.transfer(start, req.stats.buffer.total_reads() + req.stats.buffer.total_writes());
  sc_time end = dram_end > alone ? dram_end : alone;
  if (port_end > end) end = port_end;
  req.stats.stall_cycles =
      static_cast<std::int64_t>((end - start) / period_ + 0.5) - req.stats.compute_cycles;
  buffer_.record(req.stats);
  req.start = start;
  req.end = end;
  delay += end - start;
}

void Accelerator::execute_cycle(OpRequest& req, sc_time& delay) {
  if (req.values == nullptr)
    throw UserError("cycle fidelity needs operand values for " + req.op.describe());
  if (req.op.repeat > 1)
    throw UserError("cycle fidelity does not clock grouped convolutions (" + req.op.describe() +
                    "): use fidelity: fast");
  sc_core::wait(delay);  // a clocked model runs in simulated time, not ahead of it
  delay = sc_core::SC_ZERO_TIME;
  const sc_time start = sc_core::sc_time_stamp();
  // The memory model's schedule, run in SystemC time: the array clocked tile by tile, each
  // DRAM transfer booked on the shared channel when the schedule issues it.
  CycleContext ctx(array_, dma_, acc_, *df_, *req.values);
  req.stats = memory_->run(req.op, acc_, *df_, ctx);
  req.stats.compulsory_dram_bytes = compulsory_dram_bytes(req.op, acc_, *df_);
  dma_.count(req.stats);
  const sc_time port_end =
      port_.transfer(start, req.stats.buffer.total_reads() + req.stats.buffer.total_writes());
  if (port_end > sc_core::sc_time_stamp()) sc_core::wait(port_end - sc_core::sc_time_stamp());
  req.stats.stall_cycles =
      static_cast<std::int64_t>((sc_core::sc_time_stamp() - start) / period_ + 0.5) -
      req.stats.compute_cycles;
  req.result = std::move(ctx.result());
  buffer_.record(req.stats);
  req.start = start;
  req.end = sc_core::sc_time_stamp();
}

}  // namespace trainsim
