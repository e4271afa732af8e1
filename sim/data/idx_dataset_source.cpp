#include "sim/data/idx_dataset_source.h"

#include <sys/stat.h>

#include <array>
#include <cstdint>
#include <future>

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/data/idx.h"

namespace trainsim {

namespace {

constexpr int kSide = 28;
constexpr int kClasses = 10;
constexpr const char* kFetchHint = "run ./run.sh or tools/fetch_data.sh to fetch it";

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The plain file if present (it is what a user who unpacked the archives has), else .gz.
std::string find_idx_file(const std::string& dir, const std::string& base) {
  const std::string plain = dir + "/" + base;
  if (is_regular_file(plain)) return plain;
  if (is_regular_file(plain + ".gz")) return plain + ".gz";
  throw UserError(plain + ": no such file (nor " + base + ".gz); " + kFetchHint);
}

std::string shape_string(const std::vector<std::uint32_t>& dims) {
  std::string s;
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? " x " : "") + std::to_string(dims[i]);
  return s;
}

// byte -> byte / 255 as a table: exact division (not multiplication by a rounded 1/255) and
// one load per pixel, which keeps 47 million conversions to a few tens of milliseconds.
const std::array<float, 256>& byte_to_unit() {
  static const std::array<float, 256> table = [] {
    std::array<float, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = static_cast<float>(i) / 255.0f;
    return t;
  }();
  return table;
}

DataSplit load_split(const std::string& dir, const std::string& prefix, std::int64_t limit,
                     const std::string& limit_key, const std::string& split_name) {
  const std::string images_path = find_idx_file(dir, prefix + "-images-idx3-ubyte");
  const std::string labels_path = find_idx_file(dir, prefix + "-labels-idx1-ubyte");
  const IdxArray images = read_idx(images_path, "pixel data");
  const IdxArray labels = read_idx(labels_path, "label data");

  if (images.dims.size() != 3 || images.dims[1] != kSide || images.dims[2] != kSide) {
    throw UserError(images_path + ": expected N x 28 x 28 images, found " +
                    shape_string(images.dims));
  }
  if (labels.dims.size() != 1) {
    throw UserError(labels_path + ": expected a 1-dimensional array of labels, found " +
                    shape_string(labels.dims));
  }
  const std::int64_t count = images.dims[0];
  if (labels.dims[0] != images.dims[0]) {
    throw UserError(images_path + ": holds " + std::to_string(count) + " images but " +
                    labels_path + " holds " + std::to_string(labels.dims[0]) + " labels");
  }
  for (std::size_t i = 0; i < labels.data.size(); ++i) {
    if (labels.data[i] >= kClasses) {
      throw UserError(labels_path + ": label " + std::to_string(labels.data[i]) + " at index " +
                      std::to_string(i) + " is out of range (expected 0 to " +
                      std::to_string(kClasses - 1) + ")");
    }
  }

  if (limit < 0)
    throw UserError(limit_key + " must be >= 0 (0 = all), got " + std::to_string(limit));
  if (limit > count) {
    throw UserError(limit_key + " = " + std::to_string(limit) + " exceeds the " +
                    std::to_string(count) + " " + split_name + " samples in " + dir);
  }
  const std::int64_t used = limit > 0 ? limit : count;

  DataSplit split;
  split.count = used;
  split.labels.assign(labels.data.begin(), labels.data.begin() + used);
  const std::size_t pixels = static_cast<std::size_t>(used) * kSide * kSide;
  split.images.resize(pixels);
  const auto& table = byte_to_unit();
  const std::uint8_t* src = images.data.data();
  float* dst = split.images.data();
  for (std::size_t i = 0; i < pixels; ++i) dst[i] = table[src[i]];
  return split;
}

}  // namespace

std::array<int, 4> IdxDatasetSource::sample_format() const {
  return {1, kSide, kSide, kClasses};
}

std::string IdxDatasetSource::identity(const DatasetSpec& spec) const {
  const std::string dir = spec.path.empty() ? data_root() + "/" + name_ : spec.path;
  std::string id = name_ + "|" + dir + "|" + std::to_string(spec.train_limit) + "|" +
                   std::to_string(spec.test_limit);
  for (const char* base : {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                           "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"})
    for (const std::string& path : {dir + "/" + base, dir + "/" + base + ".gz"}) {
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) continue;
      id += "|" + path + ":" + std::to_string(st.st_size) + ":" +
            std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec) + ":" +
            std::to_string(st.st_ino);
    }
  return id;
}

Dataset IdxDatasetSource::load(const DatasetSpec& spec) const {
  const bool default_dir = spec.path.empty();
  const std::string dir = default_dir ? data_root() + "/" + name_ : spec.path;
  if (!is_directory(dir)) {
    throw UserError("dataset '" + name_ + "': directory " + dir + " does not exist; " +
                    (default_dir
                         ? std::string(kFetchHint)
                         : std::string("dataset.path must name a directory holding the four IDX "
                                       "files (or leave it unset and ") +
                               kFetchHint + ")"));
  }

  Dataset ds;
  ds.name = name_;
  ds.path = dir;
  ds.channels = 1;
  ds.height = kSide;
  ds.width = kSide;
  ds.classes = kClasses;
  // Inflating the 26 MB of Fashion-MNIST training images dominates the load; reading the
  // test split on a second thread meanwhile hides its cost. Errors stay deterministic: a
  // training-split error wins (the future's destructor waits for the test thread).
  auto test = std::async(std::launch::async, [&] {
    return load_split(dir, "t10k", spec.test_limit, "dataset.test_limit", "test");
  });
  ds.train = load_split(dir, "train", spec.train_limit, "dataset.train_limit", "training");
  ds.test = test.get();
  return ds;
}

}  // namespace trainsim
