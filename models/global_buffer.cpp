#include "models/global_buffer.h"

namespace trainsim {

void GlobalBuffer::configure(const AcceleratorSpec& acc) {
  acc_ = &acc;
  accesses_ = AccessCounts{};
}

}  // namespace trainsim
