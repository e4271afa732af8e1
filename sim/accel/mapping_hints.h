#pragma once
// Mappings the buffer-mapping search chose, kept for the next search of the same op on
// hardware that differs only in its buffer (a sweep's buffer sizes, run one after another by
// the same worker): search_mapping prices such a mapping first, when it is one of its own
// candidates, so that its cut-off starts low (mapping/search.h, `hint`). The choice does not
// depend on the hint, so neither does anything a run reports: a sweep's tables are the same
// whichever points a worker ran before.
#include <array>
#include <cstddef>
#include <cstdint>
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
  /// What names the same pass of the same layer at any batch size (a run's training steps,
  /// its epoch's last, partial step and its test passes): key_of without the loop nest's
  /// extents, which the batch enters. Empty for an op of no layer.
  static std::string layer_key_of(const NestProblem& p, const OperandResidency& res,
                                  const AcceleratorSpec& acc, const Dataflow& df);
  /// The mapping last chosen under `key`, or nullptr.
  const BufferMapping* find(const std::string& key) const;
  /// The mapping last chosen under `layer_key` carried over to a nest of `extent` whose
  /// tiles are multiples of `granule`: each dimension's tile the candidate with the same
  /// trip count (tile_for_trips), so that the same loops iterate as often where they can.
  /// False if there is none.
  bool find_for_layer(const std::string& layer_key,
                      const std::array<std::int64_t, kNumDims>& extent,
                      const std::array<std::int64_t, kNumDims>& granule, BufferMapping& out) const;
  void remember(const std::string& key, const std::string& layer_key,
                const std::array<std::int64_t, kNumDims>& extent, const BufferMapping& m);
  void clear() {
    chosen_.clear();
    by_layer_.clear();
  }
  std::size_t size() const { return chosen_.size() + by_layer_.size(); }

 private:
  struct LayerChoice {
    std::array<std::int64_t, kNumDims> extent;  ///< the nest it was chosen for
    BufferMapping mapping;
  };
  std::unordered_map<std::string, BufferMapping> chosen_;
  std::unordered_map<std::string, LayerChoice> by_layer_;
};

/// This thread's hints. Bounded: past kMaxMappingHints entries (a long sweep over many
/// networks and arrays) they are dropped and gathered again, so memory stays flat (about
/// 1 MB at most). A hint serves the next few points of a run; a network has a few hundred
/// distinct array ops and residencies.
MappingHints& thread_mapping_hints();
inline constexpr std::size_t kMaxMappingHints = 4096;

}  // namespace trainsim
