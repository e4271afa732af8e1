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

/// The value an axis value's text stands for: numbers by their value (108, 108.0 and 1.08e2
/// are one "108"; integers exactly, others as the shortest round-trip double), any other text
/// as it is. Two values of a key are the same point when these are equal.
std::string canonical_value(const std::string& text);
/// Whether two value texts stand for the same value.
bool same_value(const std::string& a, const std::string& b);
/// The baseline as "{key: value, ...}", for messages.
std::string baseline_text(const SweepSpec& s);

}  // namespace trainsim
