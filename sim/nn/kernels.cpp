// The registry of kernel builds (sim/nn/kernels.h) and the one the layers use.
#include "sim/nn/kernels.h"

#include <atomic>
#include <cstdlib>

#include "sim/core/error.h"
#include "sim/core/named_registry.h"

namespace trainsim {

namespace kernels_native {
const KernelSet& kernel_set();
}
namespace kernels_baseline {
const KernelSet& kernel_set();
}
#if defined(TRAINSIM_HAVE_AVX2_KERNELS)
namespace kernels_avx2 {
const KernelSet& kernel_set();
}
#endif

namespace {
// The set every layer's next kernel call goes to; null until first asked for or chosen.
// Relaxed: the set is chosen between runs, not while layers run, and the thread pool's task
// hand-offs order that choice before any task.
std::atomic<const KernelSet*> active{nullptr};

// The set a program starts with: TRAINSIM_KERNELS, else `native`.
const KernelSet& initial_set() {
  const char* env = std::getenv("TRAINSIM_KERNELS");
  if (env == nullptr || *env == '\0') return *kernel_sets().front();
  if (const KernelSet* s = registry_find(kernel_sets(), env)) return *s;
  throw UserError("environment variable TRAINSIM_KERNELS: unknown kernel set '" + std::string(env) +
                  "' (known: " + registry_names(kernel_sets()) + ")");
}
}  // namespace

const std::vector<const KernelSet*>& kernel_sets() {
  static const std::vector<const KernelSet*> all = [] {
    std::vector<const KernelSet*> v{&kernels_native::kernel_set()};
#if defined(TRAINSIM_HAVE_AVX2_KERNELS)
    // Only where the CPU runs them (they would stop the program with an illegal instruction).
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
      v.push_back(&kernels_avx2::kernel_set());
#endif
    v.push_back(&kernels_baseline::kernel_set());
    return v;
  }();
  return all;
}

void use_kernels(const std::string& name) {
  active.store(&registry_get(kernel_sets(), name, "kernel set"), std::memory_order_relaxed);
}

const KernelSet& active_kernel_set() {
  if (const KernelSet* s = active.load(std::memory_order_relaxed)) return *s;
  const KernelSet* first = &initial_set();
  const KernelSet* expected = nullptr;
  // A use_kernels() that came first wins.
  return active.compare_exchange_strong(expected, first, std::memory_order_relaxed) ? *first
                                                                                    : *expected;
}

}  // namespace trainsim
