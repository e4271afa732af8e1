#pragma once
// The fast fidelity: the cost of an op on one accelerator with one dataflow and the
// accelerator's memory model (sim/accel/memory_model.h), run in closed form
// (FastContext) and memoized by op shape. A training run repeats the same few shapes every
// batch, so after the first batch timing an op is one hash lookup.
//
// GEMM and conv ops go to the dataflow; element-wise ops (weight update, activation
// derivative) run on the vector unit beside the array (sim/accel/vector_unit.h).
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

#include "dataflows/dataflow.h"
#include "sim/io/memo_store.h"
#include "sim/spec/accel_spec.h"
#include "sim/spec/op_stats.h"
#include "sim/workload/op.h"

namespace trainsim {

/// Full fast-fidelity cost of `op`: array side (dataflow or vector unit), buffer and DRAM
/// traffic, and its cycles when it has the DRAM channel and the buffer port to itself.
OpStats evaluate_op(const Op& op, const AcceleratorSpec& acc, const Dataflow& df);

/// The compulsory DRAM traffic of `op` in bytes (OpStats::compulsory_dram_bytes): an array
/// op's stored words as the dataflow executes it (mapping/bounds.h), an element-wise op's
/// inputs and outputs (none for one whose operands stay in the buffer).
Count compulsory_dram_bytes(const Op& op, const AcceleratorSpec& acc, const Dataflow& df);

class CostModel {
 public:
  CostModel(const AcceleratorSpec& acc, const Dataflow& df);
  /// evaluate_op(), memoized. The reference stays valid for the model's lifetime.
  const OpStats& cost(const Op& op);
  const AcceleratorSpec& accelerator() const { return acc_; }
  const Dataflow& dataflow() const { return df_; }

 private:
  struct Key {
    OpKind kind;
    OpRole role;
    int word_bits;
    bool resident_filter;
    Residency residency;
    std::int64_t repeat;
    std::int64_t d[9];
    std::int64_t words[kMaxOpInputs + kMaxOpOutputs];  ///< element-wise ops' tensors
    bool operator==(const Key& o) const;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  static Key key_of(const Op& op);
  /// A memo record of an op's key and cost, and back (false: not a record of this layout).
  static std::string encode(const Key& k, const OpStats& s);
  static bool decode(const std::string& record, Key& k, OpStats& s);

  struct Cache {
    std::unordered_map<Key, OpStats, KeyHash> costs;
    std::string counts_key;
    /// The memo scope whose store it last read (active_memo_generation), 0: none.
    std::uint64_t memo_generation = 0;
    /// How far it has read each file of the memo (MemoStore::load).
    MemoStore::ReadTo memo_read;
  };
  /// The memo of every cost model of the thread with the same counts_key(): a `compare` or a
  /// sweep point configures one per technique, whose ops are mostly the same (the key holds
  /// everything of the accelerator and dataflow that an op's counts and cycles depend on, so
  /// every memoized result is what evaluate_op would give). With a memo scope open
  /// (sim/io/memo_store.h) it also holds what other processes of the same build stored for
  /// the same counts_key, and stores what this one prices.
  static std::shared_ptr<Cache> shared_cache(const std::string& key);
  /// Reads the open memo scope's store into the cache, once per scope.
  void read_memo();

  const AcceleratorSpec& acc_;
  const Dataflow& df_;
  std::shared_ptr<Cache> cache_;
};

/// Everything of an accelerator and a dataflow that evaluate_op's results depend on (all but
/// names, descriptions and the energy table, which prices counts afterwards), as text.
std::string counts_key(const AcceleratorSpec& acc, const Dataflow& df);

}  // namespace trainsim
