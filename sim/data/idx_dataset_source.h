#pragma once
// A dataset of 28x28 greyscale images in 10 classes stored as the four standard MNIST-style
// IDX files. MNIST and Fashion-MNIST share this layout, so one class serves both.
#include <string>
#include <utility>

#include "sim/data/dataset.h"

namespace trainsim {

class IdxDatasetSource : public DatasetSource {
 public:
  IdxDatasetSource(std::string name, std::string description)
      : name_(std::move(name)), description_(std::move(description)) {}

  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  std::array<int, 4> sample_format() const override;

  /// Reads <dir>/{train,t10k}-{images-idx3,labels-idx1}-ubyte, each plain or with .gz
  /// appended (plain wins if both exist), where dir is spec.path or <data root>/<name>.
  Dataset load(const DatasetSpec& spec) const override;
  /// The directory, the limits, and each of the four files' path, size and modification time.
  std::string identity(const DatasetSpec& spec) const override;

 private:
  std::string name_;
  std::string description_;
};

}  // namespace trainsim
