// The dataset registry and the MNIST-style IDX sources: layout, validation, limits, and
// (when fetched) the real mnist and fashion-mnist data.
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include "tests/support/temp_dir.h"

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/data/dataset_registry.h"
#include "sim/data/idx.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using trainsim::Dataset;
using trainsim::DatasetSpec;
using trainsim::load_dataset;
using trainsim::UserError;
using Bytes = std::vector<std::uint8_t>;

using trainsim::test::TempDir;

namespace {

constexpr std::uint32_t kPixels = 28 * 28;

// Image i of a synthetic split has every pixel equal to (base + i) % 256 and label i % 10,
// so tests can tell which sample ended up where.
Bytes synthetic_images(std::uint32_t n, int base) {
  Bytes b(static_cast<std::size_t>(n) * kPixels);
  for (std::uint32_t i = 0; i < n; ++i) {
    std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(i) * kPixels, kPixels,
                static_cast<std::uint8_t>((base + i) % 256));
  }
  return b;
}

Bytes synthetic_labels(std::uint32_t n) {
  Bytes b(n);
  for (std::uint32_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i % 10);
  return b;
}

void gzip_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const Bytes raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  gzFile f = gzopen((path + ".gz").c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, raw.data(), static_cast<unsigned>(raw.size())) ==
          static_cast<int>(raw.size()));
  REQUIRE(gzclose(f) == Z_OK);
  fs::remove(path);
}

// Writes the four files of an MNIST-style directory with n_train / n_test samples.
void write_dataset(const std::string& dir, std::uint32_t n_train, std::uint32_t n_test,
                   bool gz = false) {
  fs::create_directories(dir);
  trainsim::write_idx(dir + "/train-images-idx3-ubyte", {n_train, 28, 28},
                      synthetic_images(n_train, 0));
  trainsim::write_idx(dir + "/train-labels-idx1-ubyte", {n_train}, synthetic_labels(n_train));
  trainsim::write_idx(dir + "/t10k-images-idx3-ubyte", {n_test, 28, 28},
                      synthetic_images(n_test, 100));
  trainsim::write_idx(dir + "/t10k-labels-idx1-ubyte", {n_test}, synthetic_labels(n_test));
  if (gz) {
    for (const char* f : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                          "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"}) {
      gzip_file(dir + "/" + f);
    }
  }
}

DatasetSpec spec_for(const std::string& name, const std::string& path) {
  DatasetSpec spec;
  spec.name = name;
  spec.path = path;
  return spec;
}

// Sets an environment variable for one scope, restoring the previous value afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_, old_.c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

}  // namespace

TEST_CASE("dataset registry lists mnist and fashion-mnist, and the shape-only ones", "[data]") {
  const auto& sources = trainsim::dataset_sources();
  REQUIRE(sources.size() == 8);
  CHECK(sources[0]->name() == "mnist");
  CHECK(sources[1]->name() == "fashion-mnist");
  CHECK_THAT(sources[0]->description(), Contains("10k subset") && Contains("dataset.path"));
  CHECK_THAT(sources[1]->description(), Contains("60,000"));
  CHECK(trainsim::find_dataset_source("fashion-mnist") == sources[1]);
  CHECK(sources[0]->declared_shape() == nullptr);
  CHECK(trainsim::find_dataset_source("svhn") == nullptr);
  CHECK_THROWS_WITH(
      load_dataset(spec_for("svhn", "")),
      Contains("unknown dataset 'svhn'") && Contains("mnist, fashion-mnist, cifar10"));
  // CIFAR and ImageNet: shapes for numerics: none, no images.
  CHECK_THROWS_WITH(load_dataset(spec_for("cifar10", "")),
                    Contains("shape only") && Contains("numerics: none"));
  trainsim::DatasetSpec imagenet = spec_for("imagenet", "");
  imagenet.train_limit = 1000;
  const trainsim::DatasetShape s = trainsim::dataset_shape(imagenet);
  CHECK(s.channels == 3);
  CHECK(s.height == 224);
  CHECK(s.classes == 1000);
  CHECK(s.train == 1000);
  CHECK(s.test == 50000);
  CHECK(trainsim::dataset_shape(spec_for("cifar100", "")).classes == 100);
  // Hype-training's: CelebA (and DCGAN's z per image), SQuAD at 384 tokens.
  const trainsim::DatasetShape celeba = trainsim::dataset_shape(spec_for("celeba", ""));
  CHECK(celeba.channels == 3);
  CHECK(celeba.height == 64);
  CHECK(celeba.classes == 2);
  CHECK(celeba.train == 202599);
  CHECK(celeba.test == 0);
  CHECK(trainsim::dataset_shape(spec_for("celeba-latent", "")).channels == 100);
  const trainsim::DatasetShape squad = trainsim::dataset_shape(spec_for("squad", ""));
  CHECK(squad.height == 384);
  CHECK(squad.classes == 768);
  CHECK(squad.train == 87599);
  CHECK(squad.test == 10570);
  CHECK_THROWS_WITH(load_dataset(spec_for("squad", "")), Contains("shape only"));
}

TEST_CASE("IDX dataset loads shapes, scaled pixels and labels", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 12, 5);
  const Dataset ds = *load_dataset(spec_for("mnist", tmp / "d"));
  CHECK(ds.name == "mnist");
  CHECK(ds.path == tmp / "d");
  CHECK(ds.channels == 1);
  CHECK(ds.height == 28);
  CHECK(ds.width == 28);
  CHECK(ds.classes == 10);
  CHECK(ds.sample_size() == 784);
  REQUIRE(ds.train.count == 12);
  REQUIRE(ds.test.count == 5);
  REQUIRE(ds.train.images.size() == 12 * 784u);
  REQUIRE(ds.test.images.size() == 5 * 784u);
  CHECK(ds.train.labels == synthetic_labels(12));
  CHECK(ds.train.images[0] == 0.0f);
  CHECK(ds.train.images[3 * 784 + 17] == 3.0f / 255.0f);
  CHECK(ds.test.images[0] == 100.0f / 255.0f);
  CHECK(ds.test.images[4 * 784 + 783] == 104.0f / 255.0f);
}

TEST_CASE("IDX dataset reads .gz files and prefers plain ones", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "gz", 7, 3, /*gz=*/true);
  const Dataset gz = *load_dataset(spec_for("fashion-mnist", tmp / "gz"));
  CHECK(gz.train.count == 7);
  CHECK(gz.test.images[784] == 101.0f / 255.0f);

  // Put a different, plain copy of the training images next to the .gz: it must win.
  trainsim::write_idx(tmp / "gz/train-images-idx3-ubyte", {7, 28, 28}, synthetic_images(7, 50));
  const Dataset mixed = *load_dataset(spec_for("fashion-mnist", tmp / "gz"));
  CHECK(mixed.train.images[0] == 50.0f / 255.0f);
}

TEST_CASE("A dataset loaded again from unchanged files is the one already loaded", "[data]") {
  // A sweep worker runs point after point on one dataset: the second load reuses the first,
  // and a file that changed (or other limits) loads afresh.
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 9, 4);
  DatasetSpec spec = spec_for("mnist", tmp / "d");
  const auto first = load_dataset(spec);
  CHECK(load_dataset(spec) == first);
  spec.train_limit = 5;
  const auto limited = load_dataset(spec);
  CHECK(limited != first);
  CHECK(limited->train.count == 5);
  spec.train_limit = 0;
  trainsim::write_idx(tmp / "d/train-images-idx3-ubyte", {9, 28, 28}, synthetic_images(9, 60));
  const auto changed = load_dataset(spec);
  CHECK(changed != first);
  CHECK(changed->train.images[0] == 60.0f / 255.0f);
  CHECK(first->train.images[0] == 0.0f);  // what a holder has is never changed under it
}

TEST_CASE("IDX dataset applies train and test limits", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 10, 6);
  DatasetSpec spec = spec_for("mnist", tmp / "d");
  spec.train_limit = 4;
  spec.test_limit = 6;
  const Dataset ds = *load_dataset(spec);
  CHECK(ds.train.count == 4);
  CHECK(ds.train.images.size() == 4 * 784u);
  CHECK(ds.train.labels == Bytes{0, 1, 2, 3});
  CHECK(ds.train.images.back() == 3.0f / 255.0f);  // the first N samples, in file order
  CHECK(ds.test.count == 6);

  spec.train_limit = 11;
  CHECK_THROWS_WITH(load_dataset(spec),
                    Contains("dataset.train_limit = 11") && Contains("10 training samples"));
  spec.train_limit = 0;
  spec.test_limit = 7;
  CHECK_THROWS_WITH(load_dataset(spec), Contains("dataset.test_limit = 7"));
  spec.test_limit = -1;
  CHECK_THROWS_WITH(load_dataset(spec), Contains("dataset.test_limit must be >= 0"));
}

TEST_CASE("IDX dataset rejects image/label count mismatch", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 10, 5);
  trainsim::write_idx(tmp / "d/t10k-labels-idx1-ubyte", {4}, synthetic_labels(4));
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")),
                    Contains("t10k-images-idx3-ubyte: holds 5 images but") &&
                        Contains("t10k-labels-idx1-ubyte holds 4 labels"));
}

TEST_CASE("IDX dataset rejects labels outside 0..9", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 10, 5);
  Bytes labels = synthetic_labels(10);
  labels[6] = 10;
  trainsim::write_idx(tmp / "d/train-labels-idx1-ubyte", {10}, labels);
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")),
                    Contains("train-labels-idx1-ubyte: label 10 at index 6 is out of range"));
}

TEST_CASE("IDX dataset rejects wrongly shaped files", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 4, 2);
  trainsim::write_idx(tmp / "d/train-images-idx3-ubyte", {4, 32, 32}, Bytes(4 * 32 * 32));
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")),
                    Contains("expected N x 28 x 28 images, found 4 x 32 x 32"));
  trainsim::write_idx(tmp / "d/train-images-idx3-ubyte", {4, 784}, Bytes(4 * 784));
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")), Contains("found 4 x 784"));
  write_dataset(tmp / "d", 4, 2);
  trainsim::write_idx(tmp / "d/train-labels-idx1-ubyte", {4, 1}, Bytes(4));
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")),
                    Contains("expected a 1-dimensional array of labels"));
}

TEST_CASE("IDX dataset reports corrupt files by path", "[data]") {
  TempDir tmp("datasets");
  write_dataset(tmp / "d", 4, 2);
  fs::resize_file(tmp / "d/t10k-images-idx3-ubyte", 100);
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")),
                    Contains(tmp / "d/t10k-images-idx3-ubyte") &&
                        Contains("expected 1568 bytes of pixel data, found 84"));
}

TEST_CASE("IDX dataset explains a missing directory or file", "[data]") {
  TempDir tmp("datasets");
  CHECK_THROWS_AS(load_dataset(spec_for("mnist", tmp / "nowhere")), UserError);
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "nowhere")),
                    Contains(tmp / "nowhere") && Contains("does not exist") &&
                        Contains("dataset.path") && Contains("tools/fetch_data.sh"));

  {  // The default directory is <data root>/<name>.
    ScopedEnv env("TRAINSIM_DATA", tmp.path());
    CHECK_THROWS_WITH(load_dataset(spec_for("fashion-mnist", "")),
                      Contains(tmp / "fashion-mnist") && Contains("run ./run.sh"));
    write_dataset(tmp / "fashion-mnist", 3, 2);
    CHECK(load_dataset(spec_for("fashion-mnist", ""))->train.count == 3);
  }

  write_dataset(tmp / "d", 4, 2);
  fs::remove(tmp / "d/t10k-labels-idx1-ubyte");
  CHECK_THROWS_WITH(load_dataset(spec_for("mnist", tmp / "d")),
                    Contains(tmp / "d/t10k-labels-idx1-ubyte") && Contains("no such file") &&
                        Contains("tools/fetch_data.sh"));
}

namespace {

// Checks a fetched dataset and returns it, or warns and returns nothing if it has not been
// fetched (the unit tests must pass on a fresh checkout).
std::optional<Dataset> check_real_dataset(const std::string& name, std::int64_t n_train,
                                          std::int64_t n_test) {
  const std::string dir = trainsim::data_root() + "/" + name;
  if (!fs::is_directory(dir)) {
    WARN(dir << " not found; skipping (run tools/fetch_data.sh to fetch " << name << ")");
    return std::nullopt;
  }
  const auto start = std::chrono::steady_clock::now();
  const Dataset ds = *load_dataset(spec_for(name, ""));
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(name << " loaded in " << secs << " s");
  REQUIRE(ds.train.count == n_train);
  REQUIRE(ds.test.count == n_test);
  for (const auto* split : {&ds.train, &ds.test}) {
    REQUIRE(split->images.size() == static_cast<std::size_t>(split->count) * 784);
    const auto [lo, hi] = std::minmax_element(split->images.begin(), split->images.end());
    CHECK(*lo == 0.0f);
    CHECK(*hi <= 1.0f);
    CHECK(*hi > 0.5f);  // not all (near) zero
    const std::set<int> classes(split->labels.begin(), split->labels.end());
    CHECK(classes.size() == 10);
  }
  return ds;
}

}  // namespace

TEST_CASE("fetched mnist subset has 8000/2000 real digits", "[data]") {
  check_real_dataset("mnist", 8000, 2000);
}

TEST_CASE("fetched fashion-mnist has 60000/10000 images", "[data]") {
  if (const auto ds = check_real_dataset("fashion-mnist", 60000, 10000)) {
    // The first training and test images of Fashion-MNIST are both ankle boots (class 9).
    CHECK(ds->train.labels[0] == 9);
    CHECK(ds->test.labels[0] == 9);
  }
}
