#pragma once
// A design-space sweep (`trainsim sweep SWEEP.yaml`): a base experiment, the axes to vary
// (any config key, as --set takes it) and how to pick points from their product.
//
//   experiment: ../experiments/adagp_zoo.yaml    # relative to the sweep file
//   set: [training.epochs=1]                     # for every point (optional)
//   axes:
//     - {key: dataflow, values: [ws, os, is, rs]}
//     - {key: accelerator.array.rows, range: {from: 8, to: 32, step: 8}}
//     - zip: {accelerator.array.rows: [8, 16], accelerator.array.cols: [8, 16]}
//   baseline: {dataflow: ws}                     # speedup relative to the first such point
//   search: {mode: random, budget: 20, seed: 1}  # default {mode: grid}
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace trainsim {

/// One axis: one key (or several zipped keys) and its values, as --set texts.
struct SweepAxis {
  std::vector<std::string> keys;
  std::vector<std::vector<std::string>> values;  ///< [value index][key index]
  std::size_t size() const { return values.size(); }
};

struct SweepSpec {
  std::string source;      ///< the sweep file
  std::string text;        ///< its content (a results directory remembers it)
  std::string experiment;  ///< resolved path of the base experiment
  std::vector<std::string> set;
  std::vector<SweepAxis> axes;
  std::vector<std::pair<std::string, std::string>> baseline;  ///< key -> value
  std::string mode = "grid";                                  ///< grid | random
  std::int64_t budget = 0;                                    ///< random: points to sample
  std::uint64_t seed = 1;
  /// Every key of every axis, in axis order (the sweep.csv columns).
  std::vector<std::string> keys() const;
};

/// Reads and checks a sweep file; UserError (file:line:col: key: what) on bad input.
SweepSpec load_sweep(const std::string& path);

}  // namespace trainsim
