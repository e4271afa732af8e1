#pragma once
// Mappings the buffer-mapping search chose, kept for the next search of the same op on
// hardware that differs only in its buffer (a sweep's buffer sizes, run one after another by
// the same worker): search_mapping prices such a mapping first, when it is one of its own
// candidates, so that its cut-off starts low (mapping/search.h, `hint`). The choice does not
// depend on the hint, so neither does anything a run reports: a sweep's tables are the same
// whichever points a worker ran before.
#include <cstddef>
#include <string>
#include <unordered_map>

#include "dataflows/dataflow.h"
#include "mapping/buffer_mapping.h"

namespace trainsim {

class MappingHints {
 public:
  /// What names a search up to the buffer: the dataflow, the array, the op's loop nest and
  /// which operands stay on chip. (A mapping found for another search is only a worse hint.)
  static std::string key_of(const NestProblem& p, const OperandResidency& res,
                            const AcceleratorSpec& acc, const Dataflow& df);
  /// The mapping last chosen under `key`, or nullptr.
  const BufferMapping* find(const std::string& key) const;
  void remember(const std::string& key, const BufferMapping& m);
  void clear() { chosen_.clear(); }
  std::size_t size() const { return chosen_.size(); }

 private:
  std::unordered_map<std::string, BufferMapping> chosen_;
};

/// This thread's hints. Bounded: past kMaxMappingHints entries (a long sweep over many
/// networks and arrays) they are dropped and gathered again, so memory stays flat (about
/// 1 MB at most). A hint serves the next few points of a run; a network has a few hundred
/// distinct array ops and residencies.
MappingHints& thread_mapping_hints();
inline constexpr std::size_t kMaxMappingHints = 4096;

}  // namespace trainsim
