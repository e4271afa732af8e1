#include "models/accelerator.h"

#include "sim/core/error.h"

namespace trainsim {

using sc_core::sc_time;

Accelerator::Accelerator(sc_core::sc_module_name name, DramChannel& dram, BufferPort& port)
    : sc_module(name),
      socket("socket"),
      array_("array"),
      buffer_("buffer"),
      dma_("dma", dram),
      port_(port) {
  socket.register_b_transport(this, &Accelerator::b_transport);
}

void Accelerator::configure(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity) {
  acc_ = acc;
  df_ = &df;
  fidelity_ = fidelity;
  period_ = clock_period(acc_);
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

void Accelerator::execute_fast(OpRequest& req, sc_time& delay) {
  req.stats = cost_->cost(req.op);
  const sc_time start = sc_core::sc_time_stamp() + delay;
  const sc_time compute_end = start + static_cast<double>(req.stats.compute_cycles) * period_;
  const sc_time dram_end = dma_.move(start, req.stats);
  const sc_time port_end =
      port_.transfer(start, req.stats.buffer.total_reads() + req.stats.buffer.total_writes());
  sc_time end = dram_end > compute_end ? dram_end : compute_end;
  if (port_end > end) end = port_end;
  req.stats.stall_cycles =
      static_cast<std::int64_t>((end - start) / period_ + 0.5) - req.stats.compute_cycles;
  buffer_.record(req.stats);
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
  check_buffer_fits(req.op, acc_);
  std::unique_ptr<ArrayEngine> engine = df_->engine(req.op, acc_, *req.values);
  array_.run_clocked(*engine);
  req.stats = engine->stats();
  // The DMA streams alongside the array; its traffic follows from the buffer accesses the
  // run counted, so it is booked on the channel at the op's start once they are known.
  buffer_.plan(req.op, req.stats);
  sc_time end = dma_.move(start, req.stats);
  const sc_time port_end =
      port_.transfer(start, req.stats.buffer.total_reads() + req.stats.buffer.total_writes());
  if (port_end > end) end = port_end;
  if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
  req.stats.stall_cycles =
      static_cast<std::int64_t>((sc_core::sc_time_stamp() - start) / period_ + 0.5) -
      req.stats.compute_cycles;
  req.result = engine->result();
  buffer_.record(req.stats);
}

}  // namespace trainsim
