#pragma once
// The SystemC kernel every device of trainsim runs on. SystemC has one kernel per process
// (its scheduler and simulated time are the library's global state); what trainsim builds
// on it is not global: devices, drivers and the multi-device platform are plain objects
// whose processes are spawned (sc_spawn) when they are built, so a process may hold any
// number of them, one after another or side by side. Nothing here holds state of its own:
// whether the kernel has started is the kernel's own answer.
namespace trainsim {

/// Silences SystemC's banner and informational reports (they would corrupt --json output on
/// stdout); call before the first SystemC object of the process is built. Idempotent.
void prepare_kernel();

/// Whether elaboration has ended: from then on nothing can be added to a waveform.
bool kernel_started();

/// Ends elaboration if it has not ended yet, so that spawned processes run.
void start_kernel();

/// Runs the kernel until no process has anything left to do (every queued op and transfer
/// has completed), on the caller's stack: not from inside a SystemC process.
void run_kernel();

}  // namespace trainsim
