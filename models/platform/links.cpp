#include "models/platform/links.h"

#include <stdexcept>

#include "models/sim_time.h"

namespace trainsim {

using sc_core::SC_PS;
using sc_core::sc_time;

LinkBank::LinkBank(const Interconnect& net, sc_time start, ProcessGuard& guard, Delivered delivered)
    : net_(net),
      start_(start),
      guard_(guard),
      delivered_(std::move(delivered)),
      state_(net.channels().size()),
      stats_(net.channels().size()) {
  sc_core::sc_spawn_options opts;
  for (std::size_t c = 0; c < state_.size(); ++c) {
    const int ch = static_cast<int>(c);
    sc_core::sc_spawn([this, ch] { guard_.run([&] { sender(ch); }); },
                      sc_core::sc_gen_unique_name("link_tx"), &opts);
    sc_core::sc_spawn([this, ch] { guard_.run([&] { receiver(ch); }); },
                      sc_core::sc_gen_unique_name("link_rx"), &opts);
  }
}

std::int64_t LinkBank::now_ps() const {
  return static_cast<std::int64_t>((sc_core::sc_time_stamp() - start_).value() /
                                   sc_time(1, SC_PS).value());
}

void LinkBank::send(int channel, std::int64_t bytes, std::int64_t tag, bool background) {
  if (stopping_) throw std::logic_error("LinkBank::send after stop()");
  State& s = state_[static_cast<std::size_t>(channel)];
  (background ? s.background : s.queue).push_back({tag, bytes});
  s.queued.notify();
}

void LinkBank::promote(int channel, std::int64_t tag) {
  State& s = state_[static_cast<std::size_t>(channel)];
  for (auto it = s.background.begin(); it != s.background.end(); ++it)
    if (it->tag == tag) {
      s.queue.push_back(*it);
      s.background.erase(it);
      s.queued.notify();
      return;
    }
}

void LinkBank::stop() {
  stopping_ = true;
  for (State& s : state_) {
    s.background.clear();
    // Delta notifications: stop() may be called from outside the simulation too.
    s.queued.notify(sc_core::SC_ZERO_TIME), s.sent.notify(sc_core::SC_ZERO_TIME);
  }
}

void LinkBank::sender(int c) {
  State& s = state_[static_cast<std::size_t>(c)];
  const Channel& spec = net_.channels()[static_cast<std::size_t>(c)];
  ChannelStats& stats = stats_[static_cast<std::size_t>(c)];
  const std::int64_t latency = latency_ps(spec);
  for (;;) {
    while (s.queue.empty() && s.background.empty()) {
      if (stopping_ || guard_.failed()) {
        s.sent.notify(sc_core::SC_ZERO_TIME);  // the receiver may return once it is empty
        return;
      }
      sc_core::wait(s.queued);
    }
    if (guard_.failed()) return;
    std::deque<Queued>& from = s.queue.empty() ? s.background : s.queue;
    const Queued t = from.front();
    from.pop_front();
    s.on_wire = true;
    const std::int64_t ps = serialise_ps(t.bytes, spec.link.bandwidth_gbps, spec.bandwidth_key);
    const std::int64_t begin = now_ps();
    if (ps > 0) {
      const sc_time now = sc_core::sc_time_stamp();
      sc_core::wait(after_ps(now, ps) - now);
    }
    stats.bytes += t.bytes;
    stats.busy_ps += ps;
    ++stats.transfers;
    stats.energy_pj += static_cast<double>(t.bytes) * 8.0 * spec.link.pj_per_bit;
    const sc_time arrival = after_ps(sc_core::sc_time_stamp(), latency);
    records_.push_back({c, static_cast<int>(t.tag), begin, now_ps(), t.bytes, now_ps() + latency});
    s.in_flight.emplace_back(arrival, t);
    s.on_wire = false;
    s.sent.notify();
  }
}

void LinkBank::receiver(int c) {
  State& s = state_[static_cast<std::size_t>(c)];
  for (;;) {
    while (s.in_flight.empty()) {
      // Returns once nothing more can come: stopped, and the sender has nothing left.
      if (guard_.failed() || (stopping_ && s.queue.empty() && !s.on_wire)) return;
      sc_core::wait(s.sent);
    }
    if (guard_.failed()) return;
    const auto [when, t] = s.in_flight.front();
    s.in_flight.pop_front();
    if (when > sc_core::sc_time_stamp()) sc_core::wait(when - sc_core::sc_time_stamp());
    delivered_(c, t.tag, t.bytes);
  }
}

}  // namespace trainsim
