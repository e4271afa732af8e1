#include "sim/train/flush_memo.h"

#include <utility>

namespace trainsim {

std::size_t FlushMemo::KeyHash::operator()(const std::vector<std::uintptr_t>& key) const {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a over the words
  for (std::uintptr_t v : key) h = (h ^ static_cast<std::uint64_t>(v)) * 0x100000001b3ULL;
  return static_cast<std::size_t>(h);
}

const FlushResult* FlushMemo::find(bool whole_step) {
  key_.push_back(whole_step ? 1 : 0);
  auto it = results_.find(key_);
  return it == results_.end() ? nullptr : &it->second;
}

void FlushMemo::record(const std::array<std::vector<OpRequest>, 2>& ran,
                       const AcceleratorNode::Carried& before,
                       const AcceleratorNode::Carried& after, const sc_core::sc_time& start) {
  FlushResult f;
  for (std::size_t u = 0; u < 2; ++u)
    for (const OpRequest& r : ran[u]) {
      // The session's sums ignore an op's mapping summary (OpStats::operator+=); not keeping
      // it spares a replay a vector of strings per op.
      OpStats& kept = f.stats[u].emplace_back(r.stats);
      kept.mapping.clear();
      f.times[u].emplace_back(r.start - start, r.end - start);
    }
  f.delta.cycles = after.cycles - before.cycles;
  for (std::size_t c = 0; c < after.channels.size(); ++c)
    for (std::size_t i = 0; i < after.channels[c].size(); ++i)
      f.delta.channels[c][i] = after.channels[c][i] - before.channels[c][i];
  results_.emplace(key_, std::move(f));
}

AcceleratorNode::Carried FlushMemo::advanced(AcceleratorNode::Carried before,
                                             const AcceleratorNode::Carried& delta) {
  before.cycles += delta.cycles;
  for (std::size_t c = 0; c < before.channels.size(); ++c)
    for (std::size_t i = 0; i < before.channels[c].size(); ++i)
      before.channels[c][i] += delta.channels[c][i];
  return before;
}

}  // namespace trainsim
