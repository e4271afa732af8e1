#include "sim/accel/mapping_hints.h"

#include <cstdint>
#include <initializer_list>

namespace trainsim {

std::string MappingHints::key_of(const NestProblem& p, const OperandResidency& res,
                                 const AcceleratorSpec& acc, const Dataflow& df) {
  // The numbers as raw bytes after the dataflow's name: a key only has to tell searches
  // apart, never to be read.
  std::string key = df.name();
  key += '|';
  auto put = [&key](std::initializer_list<std::int64_t> values) {
    for (std::int64_t v : values) key.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  const Op& op = p.op;
  const ConvShape& c = p.conv;
  put({static_cast<std::int64_t>(op.kind), static_cast<std::int64_t>(op.role), op.word_bits,
       op.resident_filter, p.gemm_based, p.stride, c.height, c.width, c.pad, acc.rows, acc.cols,
       res.write_out});
  for (std::int64_t e : p.extent) put({e});
  for (auto k : res.kind) put({static_cast<std::int64_t>(k)});
  return key;
}

const BufferMapping* MappingHints::find(const std::string& key) const {
  const auto it = chosen_.find(key);
  return it == chosen_.end() ? nullptr : &it->second;
}

void MappingHints::remember(const std::string& key, const BufferMapping& m) {
  if (chosen_.size() >= kMaxMappingHints && chosen_.find(key) == chosen_.end()) chosen_.clear();
  chosen_[key] = m;
}

MappingHints& thread_mapping_hints() {
  thread_local MappingHints hints;
  return hints;
}

}  // namespace trainsim
