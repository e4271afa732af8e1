#pragma once
// An image-classification dataset held in memory, pixels already scaled to [0, 1].
// Sources (one per dataset name) live behind DatasetSource and are listed by the
// registry in dataset_registry.h.
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/spec/specs.h"

namespace trainsim {

/// One split (train or test): `count` samples of channels x height x width floats, NCHW.
struct DataSplit {
  std::int64_t count = 0;
  std::vector<float> images;         ///< count * channels * height * width, scaled by 1/255
  std::vector<std::uint8_t> labels;  ///< count labels in [0, classes)
};

struct Dataset {
  std::string name;
  std::string path;  ///< directory the files were read from
  int channels = 1, height = 0, width = 0, classes = 10;
  DataSplit train, test;

  std::int64_t sample_size() const { return static_cast<std::int64_t>(channels) * height * width; }
};

/// What a shape-only run needs to know of a dataset: sample shape, classes, split sizes.
struct DatasetShape {
  int channels = 1, height = 0, width = 0, classes = 10;
  std::int64_t train = 0, test = 0;
};

/// A named dataset trainsim knows how to load.
class DatasetSource {
 public:
  virtual ~DatasetSource() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  /// Channels, height, width and classes of its samples: what a network must take.
  virtual std::array<int, 4> sample_format() const = 0;
  /// Datasets trainsim has no images of (CIFAR, ImageNet) declare their shape instead, for
  /// shape-only runs (numerics: none); nullptr for datasets that load.
  virtual const DatasetShape* declared_shape() const { return nullptr; }
  /// Loads the dataset described by `spec` (its `path`, else <data root>/<name>), applying
  /// train_limit / test_limit. Throws UserError naming the file on missing/corrupt data.
  virtual Dataset load(const DatasetSpec& spec) const = 0;
  /// What `load(spec)` would read, as a text that changes when the data does (the files'
  /// names, sizes and modification times, and the limits): a process that loads the same
  /// identity again may reuse what it loaded (dataset_registry.h). Empty: never reused.
  virtual std::string identity(const DatasetSpec& spec) const {
    (void)spec;
    return "";
  }
};

}  // namespace trainsim
