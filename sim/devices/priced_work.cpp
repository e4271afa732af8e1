#include "sim/devices/priced_work.h"

#include "sim/spec/op_stats.h"

namespace trainsim {

PricedWork& PricedWork::operator+=(const PricedWork& o) {
  seconds += o.seconds;
  joules += o.joules;
  bytes += o.bytes;
  macs = checked_add(macs, o.macs);
  ops = checked_add(ops, o.ops);
  return *this;
}

PricedWork PricedWork::times(std::int64_t n) const {
  PricedWork r;
  const double k = static_cast<double>(n);
  r.seconds = seconds * k;
  r.joules = joules * k;
  r.bytes = bytes * k;
  r.macs = checked_mul(macs, n);
  r.ops = checked_mul(ops, n);
  return r;
}

}  // namespace trainsim
