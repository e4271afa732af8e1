#pragma once
// The links of a system on the SystemC kernel: for every channel of an Interconnect (one
// direction of a full-duplex link) a sender process that serialises one transfer at a time at
// the link's bandwidth and a receiver process that hands each on after the link's latency.
// Every engine that moves data between devices (the pipeline platform, Hype-training's
// runtime) sends through this one model; what a transfer means on arrival is the sender's
// business, told by a tag.
//
// A channel serves its foreground queue first, in the order transfers were queued; a
// background transfer (data staged ahead of need) goes only when the foreground queue is
// empty, and never preempts a transfer already on the wire.
#include <cstdint>
#include <deque>
#include <functional>
#include <systemc>
#include <utility>
#include <vector>

#include "models/platform/interconnect.h"
#include "models/platform/process_guard.h"

namespace trainsim {

struct ChannelStats {
  std::int64_t bytes = 0, transfers = 0, busy_ps = 0;
  double energy_pj = 0;
};

/// One hop of one transfer: when the channel sent it and how large it was.
struct TransferRecord {
  int channel = 0;
  int task = 0;  ///< the tag it was sent with (the platform: the consumer it is for)
  std::int64_t start_ps = 0, end_ps = 0, bytes = 0;
  std::int64_t arrive_ps = 0;  ///< end_ps plus the link's latency
};

class LinkBank {
 public:
  /// Called at a transfer's arrival at the far end of `channel`, with its tag and size.
  using Delivered = std::function<void(int channel, std::int64_t tag, std::int64_t bytes)>;

  /// Times are picoseconds from `start`. The processes are spawned at once, guarded by
  /// `guard`; they return after stop() once their queues are empty.
  LinkBank(const Interconnect& net, sc_core::sc_time start, ProcessGuard& guard,
           Delivered delivered);
  LinkBank(const LinkBank&) = delete;
  LinkBank& operator=(const LinkBank&) = delete;

  /// Queues `bytes` on `channel` now (from a process of the run; std::logic_error after
  /// stop(), when the channel's processes may have returned).
  void send(int channel, std::int64_t bytes, std::int64_t tag, bool background = false);
  /// A background transfer tagged `tag` still queued on `channel` goes next after the
  /// foreground queue (something now waits for it); nothing if there is none.
  void promote(int channel, std::int64_t tag);
  /// Every process returns once it has nothing left to carry (or at once after an error);
  /// background transfers not yet sent are dropped.
  void stop();

  const std::vector<ChannelStats>& stats() const { return stats_; }
  const std::vector<TransferRecord>& records() const { return records_; }
  std::int64_t now_ps() const;

 private:
  struct Queued {
    std::int64_t tag = 0, bytes = 0;
  };
  struct State {
    std::deque<Queued> queue, background;
    std::deque<std::pair<sc_core::sc_time, Queued>> in_flight;  // arrival time order
    sc_core::sc_event queued, sent;
    bool on_wire = false;  // the sender is serialising a transfer
  };
  void sender(int c);
  void receiver(int c);

  const Interconnect& net_;
  sc_core::sc_time start_;
  ProcessGuard& guard_;
  Delivered delivered_;
  std::vector<State> state_;
  std::vector<ChannelStats> stats_;
  std::vector<TransferRecord> records_;
  bool stopping_ = false;
};

}  // namespace trainsim
