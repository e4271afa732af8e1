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
  std::int64_t inside = 1;
  for (int q = kNumDims; q-- > 0;) {
    inside_[q] = inside;
    inside *= trips_[loop_dim_[q]];
  }
  // Sized up front: the mapping search walks tens of thousands of candidates per sweep.
  for (int d = 0; d < kNumDims; ++d) extent_[d].reserve(static_cast<std::size_t>(trips_[d]));
  in_rows_.reserve(static_cast<std::size_t>(trips_[kDimP] * trips_[kDimR]));
  in_cols_.reserve(static_cast<std::size_t>(trips_[kDimQ] * trips_[kDimS]));
  k_rows_.reserve(static_cast<std::size_t>(trips_[kDimR]));
  k_cols_.reserve(static_cast<std::size_t>(trips_[kDimS]));
  for (int d = 0; d < kNumDims; ++d)
    for (std::int64_t i = 0; i < trips_[d]; ++i)
      extent_[d].push_back(std::min(tile_[d], p.extent[d] - i * tile_[d]));
  for (std::int64_t i = 0; i < trips_[kDimP]; ++i)
    for (std::int64_t j = 0; j < trips_[kDimR]; ++j)
      in_rows_.push_back(touched_positions(p.in_rows, i * tile_[kDimP], extent_[kDimP][i], p.stride,
                                           j * tile_[kDimR], extent_[kDimR][j]));
  for (std::int64_t i = 0; i < trips_[kDimQ]; ++i)
    for (std::int64_t j = 0; j < trips_[kDimS]; ++j)
      in_cols_.push_back(touched_positions(p.in_cols, i * tile_[kDimQ], extent_[kDimQ][i], p.stride,
                                           j * tile_[kDimS], extent_[kDimS][j]));
  for (std::int64_t j = 0; j < trips_[kDimR]; ++j)
    k_rows_.push_back(p.k_rows.real_in(j * tile_[kDimR], extent_[kDimR][j]));
  for (std::int64_t j = 0; j < trips_[kDimS]; ++j)
    k_cols_.push_back(p.k_cols.real_in(j * tile_[kDimS], extent_[kDimS][j]));
}

std::int64_t TileWalk::words(int o) const {
  auto ext = [&](int d) { return extent_[d][idx_[d]]; };
  switch (o) {
    case kIfmap:
      return ext(kDimN) * ext(kDimC) * in_rows_[idx_[kDimP] * trips_[kDimR] + idx_[kDimR]] *
             in_cols_[idx_[kDimQ] * trips_[kDimS] + idx_[kDimS]];
    case kFilter:
      if (p_.filter_elsewhere) return 0;
      return ext(kDimK) * ext(kDimC) * k_rows_[idx_[kDimR]] * k_cols_[idx_[kDimS]];
    default:
      return ext(kDimN) * ext(kDimK) * ext(kDimP) * ext(kDimQ);
  }
}

bool TileWalk::same_iterations(int loop, std::int64_t i, std::int64_t j) const {
  const int d = loop_dim_[loop];
  const std::int64_t last = trips_[d] - 1;
  if (i < 1 || j < 1 || i >= last || j >= last) return false;
  if (i == j) return true;
  // A step's words and tile op read these per-index values of the loop's dimension: its
  // extent and, for output rows (columns), the input rows (columns) each kernel tile
  // touches. Kernel rows and columns (R, S) also decide the stored kernel positions: not
  // skipped.
  if (extent_[d][i] != extent_[d][j]) return false;
  auto rows_equal = [&](const std::vector<std::int64_t>& table, std::int64_t inner) {
    for (std::int64_t r = 0; r < inner; ++r)
      if (table[i * inner + r] != table[j * inner + r]) return false;
    return true;
  };
  switch (d) {
    case kDimN:
    case kDimK:
    case kDimC:
      return true;
    case kDimP:
      return rows_equal(in_rows_, trips_[kDimR]);
    case kDimQ:
      return rows_equal(in_cols_, trips_[kDimS]);
    default:
      return false;
  }
}

std::int64_t TileWalk::last_same(int loop, std::int64_t i) const {
  std::int64_t j = i;
  while (same_iterations(loop, i, j + 1)) ++j;
  return j;
}

void TileWalk::seek(int loop, std::int64_t i) {
  // The last tile of iteration i - 1: every loop inside `loop` at its last index.
  const int d = loop_dim_[loop];
  count_ += (i - idx_[d]) * inside_[loop] - 1;
  idx_[d] = i - 1;
  for (int q = loop + 1; q < kNumDims; ++q) idx_[loop_dim_[q]] = trips_[loop_dim_[q]] - 1;
}

int TileWalk::advancing(std::array<int, kNumDims>& dims, int* loop) const {
  int pos = kNumDims - 1;
  while (pos >= 0 && idx_[loop_dim_[pos]] == trips_[loop_dim_[pos]] - 1) --pos;
  if (pos < 0) return 0;
  if (loop) *loop = pos;
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
    const int n = advancing(dims, &advanced_);
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
    step.box.extent[d] = extent_[d][idx_[d]];
  }
  for (int o : {kIfmap, kFilter}) {
    if (res_.kind[o] == OperandResidency::kStream && changed[o])
      step.fetch_words[o] = words(o);
    else if (res_.kind[o] == OperandResidency::kLoadKeep && count_ == 0)
      step.fetch_words[o] = total_[o];
  }
  const bool reduction_start = idx_[kDimC] == 0 && idx_[kDimR] == 0 && idx_[kDimS] == 0;
  const bool reduction_end = idx_[kDimC] == trips_[kDimC] - 1 && idx_[kDimR] == trips_[kDimR] - 1 &&
                             idx_[kDimS] == trips_[kDimS] - 1;
  const bool keep = res_.kind[kOfmap] == OperandResidency::kKeep;
  step.new_output = changed[kOfmap];
  if (changed[kOfmap] && !keep && !reduction_start) step.fetch_words[kOfmap] = words(kOfmap);
  // Does the output tile change after this one (or is this the last tile)?
  std::array<int, kNumDims> dims{};
  const int n = advancing(dims);
  bool output_ends = n == 0;
  for (int i = 0; i < n; ++i) output_ends |= irrelevant_operand(dims[i]) != kOfmap;
  if (output_ends) {
    if (!keep || (res_.write_out && reduction_end)) step.write_words = words(kOfmap);
  }
  ++count_;
  return true;
}

}  // namespace trainsim
