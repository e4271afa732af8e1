#include "sim/train/model_session.h"

#include <algorithm>

#include "sim/spec/op_stats.h"

namespace trainsim {

StreamTotals& StreamTotals::operator+=(const StreamTotals& o) {
  work += o.work;
  stream_s[0] += o.stream_s[0];
  stream_s[1] += o.stream_s[1];
  discarded += o.discarded;
  return *this;
}

ModelSession::ModelSession(const ExperimentSpec& spec, Network<float>& net, DeviceModel& model,
                           std::string where)
    : OpStream(spec, static_cast<OpSink&>(*this)),
      net_(net),
      static_w_(model.static_w()),
      costs_(model, std::move(where), spec.network.name) {
  net_.set_observer(this);
}

ModelSession::~ModelSession() {
  net_.set_observer(nullptr);
}

void ModelSession::take(const Op& op, int unit, bool discarded) {
  pending_[static_cast<std::size_t>(unit)].push_back({&op, &costs_.cost(op), discarded});
}

void ModelSession::step(bool begin) {
  if (begin) {
    step_begin_s_ = clock_s_;
    return;
  }
  epoch_step_s_ += clock_s_ - step_begin_s_;
  ++epoch_steps_;
}

void ModelSession::complete(Phase phase, bool whole_step) {
  (void)whole_step;
  if (pending_[0].empty() && pending_[1].empty()) return;
  StreamTotals flush;
  double packed = 0;  // the device's busy share summed: sum of t x occupancy
  double dynamic_j = 0;
  for (std::size_t u = 0; u < 2; ++u)
    for (const Pending& p : pending_[u]) {
      const OpCost& c = *p.cost;
      flush.stream_s[u] += c.time_s;
      packed += c.time_s * c.occupancy;
      dynamic_j += std::max(0.0, c.energy_j - static_w_ * c.time_s);
      flush.work.bytes += c.bytes;
      flush.work.macs = checked_add(flush.work.macs, p.op->macs());
      ++flush.work.ops;
      if (p.discarded && phase == Phase::kTrain) {
        flush.discarded.seconds += c.time_s;
        flush.discarded.joules += c.energy_j;
        flush.discarded.bytes += c.bytes;
        flush.discarded.macs = checked_add(flush.discarded.macs, p.op->macs());
        ++flush.discarded.ops;
      }
    }
  // A second unit of its own is a second stream; a shared one runs after the main stream.
  const double elapsed = own_unit() ? std::max({flush.stream_s[0], flush.stream_s[1], packed})
                                    : flush.stream_s[0] + flush.stream_s[1];
  flush.work.seconds = elapsed;
  flush.work.joules = dynamic_j + static_w_ * elapsed;
  if (trace_flushes_ < kTraceFlushes) {
    ++trace_flushes_;
    for (std::size_t u = 0; u < 2; ++u) {
      // Each stream's ops back to back from the flush's start (a shared unit's after the
      // main stream's).
      double t = clock_s_ + (u == 1 && !own_unit() ? flush.stream_s[0] : 0);
      for (const Pending& p : pending_[u]) {
        trace_.push_back({t, t + p.cost->time_s, p.op->layer, static_cast<std::uint8_t>(u),
                          static_cast<std::uint8_t>(p.op->role), p.discarded});
        t += p.cost->time_s;
      }
    }
  }
  clock_s_ += elapsed;
  const auto k = static_cast<std::size_t>(phase);
  totals_[k] += flush;
  epoch_[k] += flush;
  pending_[0].clear();
  pending_[1].clear();
}

std::array<StreamTotals, 2> ModelSession::take_epoch() {
  std::array<StreamTotals, 2> e = epoch_;
  epoch_ = {};
  return e;
}

std::pair<double, std::int64_t> ModelSession::take_epoch_steps() {
  auto r = std::make_pair(epoch_step_s_, epoch_steps_);
  epoch_step_s_ = 0;
  epoch_steps_ = 0;
  return r;
}

}  // namespace trainsim
