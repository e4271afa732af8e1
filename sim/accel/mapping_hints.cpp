#include "sim/accel/mapping_hints.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include "mapping/search.h"

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

std::string MappingHints::layer_key_of(const NestProblem& p, const OperandResidency& res,
                                       const AcceleratorSpec& acc, const Dataflow& df) {
  const Op& op = p.op;
  if (op.layer < 0) return {};
  std::string key = df.name();
  key += '|';
  auto put = [&key](std::initializer_list<std::int64_t> values) {
    for (std::int64_t v : values) key.append(reinterpret_cast<const char*>(&v), sizeof v);
  };
  put({static_cast<std::int64_t>(op.kind), static_cast<std::int64_t>(op.role), op.layer,
       op.word_bits, op.resident_filter, op.repeat, p.gemm_based, acc.rows, acc.cols,
       res.write_out});
  // A convolution's geometry but its batch; a GEMM's sizes all may hold the batch.
  if (op.kind == OpKind::kConv) {
    const ConvShape& c = op.conv;
    put({c.channels, c.height, c.width, c.filters, c.kernel_h, c.kernel_w, c.stride, c.pad});
  }
  for (auto k : res.kind) put({static_cast<std::int64_t>(k)});
  return key;
}

const BufferMapping* MappingHints::find(const std::string& key) const {
  const auto it = chosen_.find(key);
  return it == chosen_.end() ? nullptr : &it->second;
}

bool MappingHints::find_for_layer(const std::string& layer_key,
                                  const std::array<std::int64_t, kNumDims>& extent,
                                  const std::array<std::int64_t, kNumDims>& granule,
                                  BufferMapping& out) const {
  if (layer_key.empty()) return false;
  const auto it = by_layer_.find(layer_key);
  if (it == by_layer_.end()) return false;
  const LayerChoice& c = it->second;
  out = c.mapping;
  for (int d = 0; d < kNumDims; ++d) {
    if (c.extent[d] == extent[d]) continue;
    const std::int64_t trips = (c.extent[d] + out.tile[d] - 1) / out.tile[d];
    out.tile[d] = tile_for_trips(extent[d], std::min(trips, extent[d]), granule[d]);
  }
  return true;
}

void MappingHints::remember(const std::string& key, const std::string& layer_key,
                            const std::array<std::int64_t, kNumDims>& extent,
                            const BufferMapping& m) {
  if (size() >= kMaxMappingHints && chosen_.find(key) == chosen_.end()) clear();
  chosen_[key] = m;
  if (!layer_key.empty()) by_layer_[layer_key] = {extent, m};
}

MappingHints& thread_mapping_hints() {
  thread_local MappingHints hints;
  return hints;
}

}  // namespace trainsim
