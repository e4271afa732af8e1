#include "models/platform/interconnect.h"

#include <cmath>
#include <deque>
#include <utility>

#include "sim/core/checked_span.h"
#include "sim/core/error.h"

namespace trainsim {

std::string node_name(const InterconnectSpec& spec, int node) {
  if (spec.has_switch && node == spec.devices) return "switch";
  return "dev" + std::to_string(node);
}

std::int64_t serialise_ps(std::int64_t bytes, double gbps, std::string_view key) {
  // 1 GB/s moves one byte per nanosecond: bytes / gbps ns = 1000 * bytes / gbps ps. In
  // floating point, then checked: at 1e-12 GB/s an ordinary tensor takes 1e27 ps, which an
  // unchecked conversion once turned into a negative time.
  return checked_ceil(1000.0 * static_cast<double>(bytes) / gbps,
                      {key, gbps, "a transfer over the link", "ps"});
}

std::int64_t latency_ps(const Channel& ch) {
  // An error quotes the figure as its key gives it.
  const double given = ch.link.latency_in_us ? ch.link.latency_ns / 1000 : ch.link.latency_ns;
  return checked_round(ch.link.latency_ns * 1000.0,
                       {ch.latency_key, given, "the link's latency", "ps"});
}

Interconnect::Interconnect(const InterconnectSpec& spec) : spec_(spec) {
  const int n = spec_.nodes();
  for (std::size_t i = 0; i < spec_.links.size(); ++i) {
    const LinkSpec& l = spec_.links[i];
    const std::string where = l.key.empty() ? "system.links[" + std::to_string(i) + "]" : l.key;
    for (int end : {l.a, l.b})
      if (end < 0 || end >= n)
        throw UserError(where + " joins device " + std::to_string(end) +
                        ", which does not exist (" + std::to_string(spec_.devices) + " devices" +
                        (spec_.has_switch ? " and a switch" : "") + ")");
    if (l.a == l.b) throw UserError(where + " joins device " + std::to_string(l.a) + " to itself");
    if (!(l.bandwidth_gbps > 0)) throw UserError(where + ": bandwidth_gbps must be positive");
    if (!(l.latency_ns >= 0) || !(l.pj_per_bit >= 0))
      throw UserError(where + ": latency_ns and pj_per_bit cannot be negative");
    const std::string key = l.key.empty() ? "system.link" : l.key;
    for (const auto& [from, to] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      channels_.push_back({from, to, l, node_name(spec_, from) + "->" + node_name(spec_, to),
                           key + ".bandwidth_gbps",
                           key + (l.latency_in_us ? ".latency_us" : ".latency_ns")});
  }
  // Breadth-first search from every destination backwards gives each node's next hop.
  next_.assign(static_cast<std::size_t>(n * n), -1);
  for (int to = 0; to < n; ++to) {
    std::vector<int> dist(static_cast<std::size_t>(n), -1);
    std::deque<int> queue{to};
    dist[static_cast<std::size_t>(to)] = 0;
    while (!queue.empty()) {
      const int v = queue.front();
      queue.pop_front();
      for (std::size_t c = 0; c < channels_.size(); ++c) {
        const Channel& ch = channels_[c];
        if (ch.to != v || dist[static_cast<std::size_t>(ch.from)] >= 0) continue;
        // Devices relay too: on a chain or ring a transfer hops through the devices between.
        dist[static_cast<std::size_t>(ch.from)] = dist[static_cast<std::size_t>(v)] + 1;
        next_[static_cast<std::size_t>(ch.from * n + to)] = static_cast<int>(c);
        queue.push_back(ch.from);
      }
    }
  }
  for (int a = 0; a < spec_.devices; ++a)
    for (int b = 0; b < spec_.devices; ++b)
      if (a != b && next_channel(a, b) < 0)
        throw UserError("devices " + std::to_string(a) + " and " + std::to_string(b) +
                        " are not connected by any link");
}

int Interconnect::hops(int a, int b) const {
  int h = 0;
  for (int at = a; at != b; ++h) at = channels_[static_cast<std::size_t>(next_channel(at, b))].to;
  return h;
}

std::int64_t Interconnect::transfer_ps(int a, int b, std::int64_t bytes) const {
  std::int64_t t = 0;
  for (int at = a; at != b;) {
    const Channel& ch = channels_[static_cast<std::size_t>(next_channel(at, b))];
    const SpanBlame blame{ch.bandwidth_key, ch.link.bandwidth_gbps, "a transfer over the path",
                          "ps"};
    t = add_span(t,
                 add_span(serialise_ps(bytes, ch.link.bandwidth_gbps, ch.bandwidth_key),
                          latency_ps(ch), blame),
                 blame);
    at = ch.to;
  }
  return t;
}

}  // namespace trainsim
