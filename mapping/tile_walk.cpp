#include "mapping/tile_walk.h"

namespace trainsim {

TileWalk::TileWalk(const NestProblem& p, const BufferMapping& m, const OperandResidency& res)
    : p_(p), res_(res), tile_(m.tile), trips_(trip_counts(p, m)), total_(p.total_words()) {
  int pos = 0;
  for (int block : m.order) {
    int n = 0;
    const auto& dims = block_dims(block, n);
    for (int i = 0; i < n; ++i) loop_dim_[pos++] = dims[i];
  }
  for (std::int64_t t : trips_) tiles_ *= t;
}

int TileWalk::advancing(std::array<int, kNumDims>& dims) const {
  int pos = kNumDims - 1;
  while (pos >= 0 && idx_[loop_dim_[pos]] == trips_[loop_dim_[pos]] - 1) --pos;
  if (pos < 0) return 0;
  int n = 0;
  dims[n++] = loop_dim_[pos];
  for (int q = pos + 1; q < kNumDims; ++q)
    if (trips_[loop_dim_[q]] > 1) dims[n++] = loop_dim_[q];
  return n;
}

bool TileWalk::next(TileStep& step) {
  if (count_ == tiles_) return false;
  std::array<bool, kNumOperands> changed{true, true, true};
  if (count_ > 0) {
    std::array<int, kNumDims> dims{};
    const int n = advancing(dims);
    // Advance the odometer: the changing loop steps, the ones inside it wrap to 0.
    ++idx_[dims[0]];
    for (int q = 0; q < kNumDims; ++q) {
      const int d = loop_dim_[q];
      bool inner = false;
      for (int i = 1; i < n; ++i) inner |= dims[i] == d;
      if (inner) idx_[d] = 0;
    }
    changed = {false, false, false};
    for (int i = 0; i < n; ++i)
      for (int o = 0; o < kNumOperands; ++o)
        if (irrelevant_operand(dims[i]) != o) changed[o] = true;
  }
  step = TileStep{};
  step.index = count_;
  for (int d = 0; d < kNumDims; ++d) {
    step.box.origin[d] = idx_[d] * tile_[d];
    step.box.extent[d] = std::min(tile_[d], p_.extent[d] - step.box.origin[d]);
  }
  for (int o : {kIfmap, kFilter}) {
    if (res_.kind[o] == OperandResidency::kStream && changed[o])
      step.fetch_words[o] = p_.tile_words(o, step.box);
    else if (res_.kind[o] == OperandResidency::kLoadKeep && count_ == 0)
      step.fetch_words[o] = total_[o];
  }
  const bool reduction_start = idx_[kDimC] == 0 && idx_[kDimR] == 0 && idx_[kDimS] == 0;
  const bool reduction_end = idx_[kDimC] == trips_[kDimC] - 1 && idx_[kDimR] == trips_[kDimR] - 1 &&
                             idx_[kDimS] == trips_[kDimS] - 1;
  const bool keep = res_.kind[kOfmap] == OperandResidency::kKeep;
  step.new_output = changed[kOfmap];
  if (changed[kOfmap] && !keep && !reduction_start)
    step.fetch_words[kOfmap] = p_.tile_words(kOfmap, step.box);
  // Does the output tile change after this one (or is this the last tile)?
  std::array<int, kNumDims> dims{};
  const int n = advancing(dims);
  bool output_ends = n == 0;
  for (int i = 0; i < n; ++i) output_ends |= irrelevant_operand(dims[i]) != kOfmap;
  if (output_ends) {
    if (!keep)
      step.write_words = p_.tile_words(kOfmap, step.box);
    else if (res_.write_out && reduction_end)
      step.write_words = p_.tile_words(kOfmap, step.box);
  }
  ++count_;
  return true;
}

}  // namespace trainsim
