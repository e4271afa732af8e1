#include "models/global_buffer.h"

namespace trainsim {

GlobalBuffer::GlobalBuffer(sc_core::sc_module_name name) : sc_module(name) {}

void GlobalBuffer::configure(const AcceleratorSpec& acc) {
  acc_ = &acc;
  accesses_ = AccessCounts{};
}

}  // namespace trainsim
