#include "models/dma_engine.h"

namespace trainsim {

DmaEngine::DmaEngine(DramChannel& dram) : dram_(dram) {}

sc_core::sc_time DmaEngine::move(const sc_core::sc_time& issue, const OpStats& op) {
  count(op);
  return dram_.transfer(issue, op.dram_bytes());
}

void DmaEngine::count(const OpStats& op) {
  for (int o = 0; o < kNumOperands; ++o) {
    read_bytes_[o] += op.dram_read_bytes[o];
    write_bytes_[o] += op.dram_write_bytes[o];
  }
}

void DmaEngine::reset() {
  read_bytes_.fill(0);
  write_bytes_.fill(0);
}

std::int64_t DmaEngine::read_bytes() const {
  return read_bytes_[0] + read_bytes_[1] + read_bytes_[2];
}
std::int64_t DmaEngine::write_bytes() const {
  return write_bytes_[0] + write_bytes_[1] + write_bytes_[2];
}

}  // namespace trainsim
