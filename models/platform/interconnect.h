#pragma once
// The links between the devices of a system, as a graph the platform routes over: nodes are
// the devices (0..devices-1) and, for a switched topology, the switch (node `devices`).
// Every link is full duplex: two channels, one per direction, each serialising its
// transfers at the link's bandwidth. A transfer takes the path of fewest hops.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/spec/system_spec.h"

namespace trainsim {

struct Channel {
  int from = 0, to = 0;
  LinkSpec link;     // a copy: channels outlive nothing they point to
  std::string name;  ///< e.g. "dev0->dev1", "dev2->switch"
  /// The keys its figures come from, for errors: "system.link.bandwidth_gbps", or its link's
  /// own key's ("system.links.2.bandwidth_gbps" for topology: custom, "hype.links.gpu...").
  std::string bandwidth_key, latency_key;
};

class Interconnect {
 public:
  /// UserError if a link names a node that does not exist, joins a node to itself, has a
  /// bandwidth that is not positive, or leaves two devices with no path between them.
  explicit Interconnect(const InterconnectSpec& spec);
  const InterconnectSpec& spec() const { return spec_; }
  const std::vector<Channel>& channels() const { return channels_; }
  /// The channel a transfer at node `at` headed for node `to` takes next (at != to).
  int next_channel(int at, int to) const {
    return next_[static_cast<std::size_t>(at * spec_.nodes() + to)];
  }
  /// Hops from device a to device b.
  int hops(int a, int b) const;
  /// Uncontended time in picoseconds to move `bytes` from device a to device b
  /// (store-and-forward at every hop).
  std::int64_t transfer_ps(int a, int b, std::int64_t bytes) const;

 private:
  InterconnectSpec spec_;
  std::vector<Channel> channels_;
  std::vector<int> next_;  // [at * nodes + to] -> channel
};

/// Picoseconds to serialise `bytes` at `gbps` GB/s, rounded up; UserError naming `key` past
/// 2^62 ps (sim/core/checked_span.h).
std::int64_t serialise_ps(std::int64_t bytes, double gbps,
                          std::string_view key = "system.link.bandwidth_gbps");
/// A link's latency in picoseconds, rounded.
std::int64_t latency_ps(const Channel& ch);
std::string node_name(const InterconnectSpec& spec, int node);

}  // namespace trainsim
