#include "models/platform/executor.h"

#include <stdexcept>

#include "models/sc_kernel.h"
#include "models/sim_time.h"
#include "sim/core/interrupt.h"

namespace trainsim {

Executor::Executor(const Interconnect& net, Dispatcher& d)
    : net_(net), d_(d), guard_([this] { abandon(); }) {
  if (d.executor_ != nullptr) throw std::logic_error("executor: the dispatcher runs already");
  prepare_kernel();  // before the run's first SystemC object (its events)
  events_.resize(static_cast<std::size_t>(net.spec().devices));
  for (auto& e : events_) e = std::make_unique<sc_core::sc_event>();
  d.executor_ = this;  // last: a constructor that throws leaves the dispatcher unbound
}

Executor::~Executor() {
  // The dispatcher may outlive its run (its results are read after it): it must not keep
  // pointing here.
  if (d_.executor_ == this) d_.executor_ = nullptr;
}

void Dispatcher::unbound() {
  throw std::logic_error("dispatcher: no executor runs it");
}

void Executor::spawn(std::function<void()> body, const char* name) {
  sc_core::sc_spawn_options opts;
  sc_core::sc_spawn([this, body = std::move(body)] { guard_.run(body); },
                    sc_core::sc_gen_unique_name(name), &opts);
}

void Executor::wake(int device, bool next_delta) {
  sc_core::sc_event& e = *events_[static_cast<std::size_t>(device)];
  if (next_delta)
    e.notify(sc_core::SC_ZERO_TIME);
  else
    e.notify();
}

void Executor::abandon() {
  stopping_ = true;
  for (auto& e : events_) e->notify(sc_core::SC_ZERO_TIME);
  d_.abandon();
  if (links_) links_->stop();
}

void Executor::run() {
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  std::exception_ptr error;
  try {
    d_.spawn(*this, true);
    for (int d = 0; d < devices(); ++d) spawn([this, d] { device(d); }, "device");
    d_.spawn(*this, false);
    // The links' processes come last, and their clock starts with the run.
    links_ = std::make_unique<LinkBank>(
        net_, start, guard_,
        [this](int c, std::int64_t tag, std::int64_t bytes) { d_.delivered(c, tag, bytes); });
    run_kernel();
    guard_.rethrow();
    error = d_.unfinished();
  } catch (...) {
    error = std::current_exception();
  }
  if (!error) return;
  // Every process still waiting is woken to return before the error leaves (SystemC cannot
  // kill a process from outside the simulation, and one left waiting would outlive the
  // executor and the dispatcher it points to).
  abandon();
  run_kernel();
  std::rethrow_exception(error);
}

void Executor::device(int d) {
  sc_core::sc_event& changed = *events_[static_cast<std::size_t>(d)];
  d_.device_started(d);
  for (;;) {
    check_interrupt();  // a run may hold many tasks per device
    int i = Dispatcher::kWait;
    while (!stopping() && (i = d_.next(d)) == Dispatcher::kWait) sc_core::wait(changed);
    if (stopping()) return;
    if (i == Dispatcher::kDone) {
      d_.device_done(d);
      return;
    }
    const std::int64_t start_ps = now_ps();
    const std::int64_t dur = d_.start(i, d);
    if (dur > 0) {
      const sc_core::sc_time now = sc_core::sc_time_stamp();
      sc_core::wait(after_ps(now, dur) - now);
    }
    // Recorded in the order the tasks started: a device's record is its order.
    runs_.push_back({i, d, start_ps, now_ps()});
    d_.ended(i, d);
  }
}

}  // namespace trainsim
