#pragma once
// Keeps AddressSanitizer's idea of the main stack right across SystemC's coroutine switches.
//
// Debian's SystemC 2.3.4 tells ASan about each QuickThreads switch
// (__sanitizer_start_switch_fiber), but announces the main coroutine's stack as [0, 0): it
// never learned the main stack's bounds (SystemC 3.0 records them on the first switch). Once
// sc_start() has switched back to the main stack, ASan thinks that stack is empty, so the
// next exception thrown on it ("ASan is ignoring requested __asan_handle_no_return ... top:
// 0x000000000000") leaves the redzones of the frames it unwinds poisoned, and later frames
// that reuse that memory report a stack-buffer-underflow that is not there
// (docs/validation.md, "Sanitizers").
namespace trainsim {

/// Announces the main thread's real stack to ASan again. Call on the main stack right after
/// every sc_start(); does nothing in builds without ASan.
void restore_main_stack_for_asan();

}  // namespace trainsim
