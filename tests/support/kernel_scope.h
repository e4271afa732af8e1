#pragma once
// Running a test on each kernel set this CPU has (sim/nn/kernels.h): native, avx2 where it has
// AVX2 and FMA, baseline.
#include <string>
#include <vector>

#include "sim/nn/kernels.h"

namespace trainsim::test {

/// Makes `name` the active kernel set until destroyed, then `native` again.
class KernelScope {
 public:
  explicit KernelScope(const std::string& name) { use_kernels(name); }
  ~KernelScope() { use_kernels("native"); }
  KernelScope(const KernelScope&) = delete;
  KernelScope& operator=(const KernelScope&) = delete;
};

/// The names of the kernel sets this CPU runs, native first.
inline const std::vector<std::string>& kernel_set_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const KernelSet* s : kernel_sets()) v.push_back(s->name());
    return v;
  }();
  return names;
}

}  // namespace trainsim::test
