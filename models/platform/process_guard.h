#pragma once
// The error discipline of a run's SystemC processes. An exception (a time past the
// simulation's range, an interrupt, a user error found mid-run) must not leave a SystemC
// process, which the kernel would report as its own error: the first one is kept, the run is
// told to stop (every process wakes and returns), and the caller rethrows it once the kernel
// has run out of events. Killing the processes from outside the simulation instead crashes
// SystemC.
#include <exception>
#include <functional>
#include <systemc>
#include <utility>

namespace trainsim {

class ProcessGuard {
 public:
  /// `abandon` wakes every process of the run so that it returns.
  explicit ProcessGuard(std::function<void()> abandon) : abandon_(std::move(abandon)) {}

  /// Runs a process's body under the discipline above.
  template <typename Body>
  void run(const Body& body) {
    try {
      body();
    } catch (const sc_core::sc_unwind_exception&) {
      throw;  // SystemC's own: a process being killed must let it pass
    } catch (...) {
      if (!error_) error_ = std::current_exception();
      abandon_();
    }
  }

  bool failed() const { return static_cast<bool>(error_); }
  /// After the kernel has returned: the kept exception, if any, is thrown.
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::function<void()> abandon_;
  std::exception_ptr error_;
};

}  // namespace trainsim
