#include "models/accel_node.h"

#include <stdexcept>

#include "models/sc_kernel.h"
#include "models/sim_time.h"
#include "sim/core/error.h"

namespace trainsim {

AcceleratorNode::Quiet::Quiet() {
  prepare_kernel();
}

AcceleratorNode::AcceleratorNode(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity,
                                 const std::string& vcd_path)
    : dram_(acc),
      port_(acc),
      accel_("accelerator", dram_, port_),
      unit2_("second_unit", dram_, port_),
      driver_(accel_),
      driver2_(unit2_) {
  accel_.configure(acc, df, fidelity);
  if (!vcd_path.empty()) {
    if (kernel_started())
      throw UserError("a waveform can only be opened before the first run of the process");
    std::string base = vcd_path;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
    trace_ = sc_core::sc_create_vcd_trace_file(base.c_str());
    if (trace_ == nullptr) throw UserError("cannot create waveform '" + vcd_path + "'");
    trace_->set_time_unit(1, sc_core::SC_PS);
    accel_.trace(trace_);
  }
  start_kernel();
}

AcceleratorNode::~AcceleratorNode() {
  close_trace();
}

void AcceleratorNode::configure_second_unit(const AcceleratorSpec& acc) {
  unit2_.configure(acc, accel_.dataflow(), accel_.fidelity());
}

void AcceleratorNode::run_drivers(std::initializer_list<std::vector<OpRequest>*> batches) {
  const sc_core::sc_time begin = sc_core::sc_time_stamp(), before = elapsed_;
  run_kernel();  // returns when the drivers have drained their batches
  elapsed_ += sc_core::sc_time_stamp() - begin;
  if (std::exception_ptr e = driver_.take_error()) std::rethrow_exception(e);
  if (std::exception_ptr e = driver2_.take_error()) std::rethrow_exception(e);
  for (std::vector<OpRequest>* batch : batches)
    for (OpRequest& r : *batch) {
      r.start = before + (r.start - begin);
      r.end = before + (r.end - begin);
    }
}

void AcceleratorNode::run(std::vector<OpRequest>& batch) {
  if (batch.empty()) return;
  driver_.submit(batch);
  run_drivers({&batch});
}

void AcceleratorNode::run_parallel(std::vector<OpRequest>& main, std::vector<OpRequest>& second) {
  if (second.empty()) return run(main);
  driver_.submit(main, /*sync_each_op=*/true);
  driver2_.submit(second, /*sync_each_op=*/true);
  run_drivers({&main, &second});
}

void AcceleratorNode::close_trace() {
  if (trace_ != nullptr) {
    sc_core::sc_close_vcd_trace_file(trace_);
    trace_ = nullptr;
  }
}

std::int64_t AcceleratorNode::cycles() const {
  return static_cast<std::int64_t>(elapsed_ / clock_period(accel_.spec()) + 0.5);
}

AcceleratorNode::Carried AcceleratorNode::carried() const {
  Carried c;
  c.cycles = cycles();
  const SharedChannel* channels[] = {&dram_, &port_};
  for (std::size_t i = 0; i < 2; ++i)
    c.channels[i] = {channels[i]->units_moved(), channels[i]->busy_cycles(),
                     channels[i]->contention_cycles()};
  return c;
}

void AcceleratorNode::restore(const Carried& state) {
  const std::int64_t now = cycles();
  if (state.cycles < now) throw UserError("simulated time cannot run backwards");
  if (state.cycles > now) {
    // In whole periods, as the runs themselves advanced it; after_cycles refuses a time past
    // what the models can represent. Nothing is in flight between runs, so the channels have
    // no transfer the jump could skip: only the node's clock moves, not the kernel's.
    const sc_core::sc_time period = clock_period(accel_.spec());
    after_cycles(elapsed_, static_cast<double>(state.cycles - now), period);
    elapsed_ += sc_core::sc_time::from_value(period.value() *
                                             static_cast<std::uint64_t>(state.cycles - now));
  }
  if (cycles() != state.cycles)
    throw std::logic_error("simulated time restored to " + std::to_string(cycles()) +
                           ", expected " + std::to_string(state.cycles));
  SharedChannel* channels[] = {&dram_, &port_};
  for (std::size_t i = 0; i < 2; ++i)
    channels[i]->restore_counters(state.channels[i][0], state.channels[i][1], state.channels[i][2]);
}

}  // namespace trainsim
