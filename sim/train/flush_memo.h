#pragma once
// Replaying repeated flushes of a session (sim/train/accel_session.h). A flush's results
// depend on its ops alone: planning is a function of the op sequence, and between flushes
// only the node's time and its channels' counters carry over (AcceleratorNode::Carried). So a
// flush of the same ops on the same units as an earlier one gets that one's per-op
// statistics and advances time and counters by the same amounts, without running the model
// again: each distinct batch (per size, phase and technique step) runs on the SystemC model
// once. A flush is keyed by its ops' addresses, which are stable (the op stream never drops an
// op), each tagged with its unit, and by whether it completes a step (which changes the
// residency plan).
#include <array>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "models/accel_node.h"

namespace trainsim {

/// What a flush did: each op's statistics, per unit in issue order, and how far it moved the
/// node's time and counters.
struct FlushResult {
  std::array<std::vector<OpStats>, 2> stats;
  /// Each op's start and end after the flush's start, on the node's clock (for timelines).
  std::array<std::vector<std::pair<sc_core::sc_time, sc_core::sc_time>>, 2> times;
  AcceleratorNode::Carried delta;
};

class FlushMemo {
 public:
  /// Adds an op pushed on `unit` (0 or 1) to the key of the flush being built.
  void push(const Op& op, int unit) {
    key_.push_back(reinterpret_cast<std::uintptr_t>(&op) | (unit == 1 ? 1U : 0U));
  }
  /// Ends the key (`whole_step`: the flush completes a step) and returns the result an
  /// earlier flush of the same key recorded, or null.
  const FlushResult* find(bool whole_step);
  /// Records the result of the flush just keyed: the requests as they ran, and the node's
  /// state before and after.
  void record(const std::array<std::vector<OpRequest>, 2>& ran,
              const AcceleratorNode::Carried& before, const AcceleratorNode::Carried& after,
              const sc_core::sc_time& start);
  /// Starts the next flush's key.
  void next() { key_.clear(); }

  /// `before` moved on by `delta`.
  static AcceleratorNode::Carried advanced(AcceleratorNode::Carried before,
                                           const AcceleratorNode::Carried& delta);

 private:
  struct KeyHash {
    std::size_t operator()(const std::vector<std::uintptr_t>& key) const;
  };
  std::unordered_map<std::vector<std::uintptr_t>, FlushResult, KeyHash> results_;
  std::vector<std::uintptr_t> key_;
};

}  // namespace trainsim
