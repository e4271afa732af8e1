#include "models/sc_asan.h"

#include "sim/core/sanitizers.h"

#ifdef TRAINSIM_ASAN
#include <pthread.h>
#include <sanitizer/common_interface_defs.h>

#include <cstddef>
#include <utility>
#endif

namespace trainsim {

void restore_main_stack_for_asan() {
#ifdef TRAINSIM_ASAN
  static const std::pair<void*, std::size_t> main_stack = [] {
    pthread_attr_t attr;
    void* bottom = nullptr;
    std::size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
      pthread_attr_getstack(&attr, &bottom, &size);
      pthread_attr_destroy(&attr);
    }
    return std::make_pair(bottom, size);
  }();
  if (main_stack.second == 0) return;
  // A switch from the main stack to itself, with its bounds: ASan takes them as the stack's.
  void* fake_stack = nullptr;
  __sanitizer_start_switch_fiber(&fake_stack, main_stack.first, main_stack.second);
  __sanitizer_finish_switch_fiber(fake_stack, nullptr, nullptr);
#endif
}

}  // namespace trainsim
