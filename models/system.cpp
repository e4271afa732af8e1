#include "models/system.h"

#include <cstdlib>
#include <stdexcept>

#include "models/sc_asan.h"
#include "models/sim_time.h"
#include "sim/core/error.h"

namespace trainsim {

namespace {
AcceleratorSpec placeholder_spec() {
  return AcceleratorSpec{};
}
}  // namespace

SimSystem& SimSystem::instance() {
  // SystemC prints a banner when its kernel starts unless told not to.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  // SystemC's informational reports (e.g. the trace timescale) go to stdout, where they would
  // corrupt --json output; warnings and errors still show.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  static SimSystem system;
  return system;
}

SimSystem::SimSystem()
    : dram_("dram", placeholder_spec()),
      port_("buffer_port", placeholder_spec()),
      accel_("accelerator", dram_, port_),
      driver_("driver"),
      unit2_("second_unit", dram_, port_),
      driver2_("second_driver") {
  driver_.socket.bind(accel_.socket);
  driver2_.socket.bind(unit2_.socket);
}

void SimSystem::configure_second_unit(const AcceleratorSpec& acc) {
  unit2_.configure(acc, accel_.dataflow(), accel_.fidelity());
}

void SimSystem::run_parallel(std::vector<OpRequest>& main, std::vector<OpRequest>& second) {
  if (second.empty()) return run(main);
  driver_.submit(main, /*sync_each_op=*/true);
  driver2_.submit(second, /*sync_each_op=*/true);
  sc_core::sc_start();  // returns when both drivers are idle
  restore_main_stack_for_asan();
  if (std::exception_ptr e = driver_.take_error()) std::rethrow_exception(e);
  if (std::exception_ptr e = driver2_.take_error()) std::rethrow_exception(e);
}

void SimSystem::configure(const AcceleratorSpec& acc, const Dataflow& df, Fidelity fidelity,
                          const std::string& vcd_path) {
  dram_.configure(acc);
  port_.configure(acc);
  accel_.configure(acc, df, fidelity);
  if (!vcd_path.empty()) {
    if (started_) throw UserError("a waveform can only be opened before the first run");
    std::string base = vcd_path;
    if (base.size() > 4 && base.substr(base.size() - 4) == ".vcd") base.resize(base.size() - 4);
    trace_ = sc_core::sc_create_vcd_trace_file(base.c_str());
    if (trace_ == nullptr) throw UserError("cannot create waveform '" + vcd_path + "'");
    trace_->set_time_unit(1, sc_core::SC_PS);
    accel_.trace(trace_);
  }
  ensure_started();
  epoch_start_ = sc_core::sc_time_stamp();
}

void SimSystem::ensure_started() {
  if (started_) return;
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // finish elaboration, start the threads
  restore_main_stack_for_asan();
  started_ = true;
}

void SimSystem::run(std::vector<OpRequest>& batch) {
  if (batch.empty()) return;
  driver_.submit(batch);
  sc_core::sc_start();  // returns when the driver has drained the batch
  restore_main_stack_for_asan();
  if (std::exception_ptr e = driver_.take_error()) std::rethrow_exception(e);
}

void SimSystem::close_trace() {
  if (trace_ != nullptr) {
    sc_core::sc_close_vcd_trace_file(trace_);
    trace_ = nullptr;
  }
}

std::int64_t SimSystem::cycles() const {
  const sc_core::sc_time period = clock_period(accel_.spec());
  return static_cast<std::int64_t>((sc_core::sc_time_stamp() - epoch_start_) / period + 0.5);
}

SimSystem::Carried SimSystem::carried() const {
  Carried c;
  c.cycles = cycles();
  const SharedChannel* channels[] = {&dram_, &port_};
  for (std::size_t i = 0; i < 2; ++i)
    c.channels[i] = {channels[i]->units_moved(), channels[i]->busy_cycles(),
                     channels[i]->contention_cycles()};
  return c;
}

void SimSystem::restore(const Carried& state) {
  const std::int64_t now = cycles();
  if (state.cycles < now) throw UserError("simulated time cannot run backwards");
  if (state.cycles > now) {
    const sc_core::sc_time period = clock_period(accel_.spec());
    // Only the check: the time is advanced in whole periods, as the run itself advanced it.
    after_cycles(sc_core::sc_time_stamp(), static_cast<double>(state.cycles - now), period);
    sc_core::sc_start(sc_core::sc_time::from_value(period.value() *
                                                   static_cast<std::uint64_t>(state.cycles - now)));
    restore_main_stack_for_asan();
  }
  if (cycles() != state.cycles)
    throw std::logic_error("simulated time restored to " + std::to_string(cycles()) +
                           ", expected " + std::to_string(state.cycles));
  SharedChannel* channels[] = {&dram_, &port_};
  for (std::size_t i = 0; i < 2; ++i)
    channels[i]->restore_counters(state.channels[i][0], state.channels[i][1], state.channels[i][2]);
}

}  // namespace trainsim
