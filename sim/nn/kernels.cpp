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
  static const std::vector<const KernelSet*> all{&kernels_native::kernel_set(),
                                                 &kernels_baseline::kernel_set()};
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
