#include "models/global_buffer.h"

namespace trainsim {

GlobalBuffer::GlobalBuffer(sc_core::sc_module_name name) : sc_module(name) {}

void GlobalBuffer::configure(const AcceleratorSpec& acc) {
  acc_ = &acc;
  accesses_ = AccessCounts{};
}

void GlobalBuffer::plan(const Op& op, OpStats& s) {
  check_buffer_fits(op, *acc_);
  account_dram(op, *acc_, s);
}

}  // namespace trainsim
