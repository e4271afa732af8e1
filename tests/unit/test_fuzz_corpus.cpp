// The committed fuzz corpus (tests/fuzz/corpus/<target>/: the seeds and every input a
// fuzzer ever crashed on), replayed through the fuzz targets in the normal build, so that a
// fixed crash stays fixed without clang or libFuzzer. The shipped experiments are seeds of
// the experiment target too. IDX inputs also go through the file reader (read_idx), which
// adds gzip.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "sim/core/error.h"
#include "sim/core/paths.h"
#include "sim/data/idx.h"
#include "sim/interop/onnx_import.h"
#include "sim/run/experiment_file.h"
#include "tests/fuzz/targets.h"

using namespace trainsim;

namespace {

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::uint8_t> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string corpus_dir(const std::string& target) {
  return std::string(TRAINSIM_SOURCE_DIR) + "/tests/fuzz/corpus/" + target;
}

}  // namespace

TEST_CASE("every committed fuzz input is accepted or a clean UserError", "[fuzz]") {
  for (const fuzz::Target& t : fuzz::targets()) {
    std::vector<std::string> inputs = files_in(corpus_dir(t.name));
    CHECK(inputs.size() >= 5);  // the seeds are there
    if (t.name == "experiment") {
      for (const auto& f : files_in(configs_root() + "/experiments")) inputs.push_back(f);
    }
    for (const std::string& path : inputs) {
      INFO(t.name << ": " << path);
      const std::vector<std::uint8_t> data = bytes_of(path);
      CHECK_NOTHROW(t.run(data.data(), data.size()));
    }
  }
}

TEST_CASE("the corpus holds inputs the loaders accept and inputs they reject", "[fuzz]") {
  // The targets return normally either way; the same inputs through the loaders show that
  // the replay covers both outcomes (and that the seeds still mean what their names say).
  const std::string exp = corpus_dir("experiment");
  CHECK_NOTHROW(load_experiment(exp + "/graph_inline.yaml"));
  CHECK_NOTHROW(load_experiment(exp + "/accel_inline.yaml"));
  CHECK_THROWS_WITH(load_experiment(exp + "/adagp_predictor_65536.yaml"),
                    Catch::Contains("technique.predictor.size: must be in [1, 256], got 65536"));
  CHECK_THROWS_AS(load_experiment(exp + "/huge_sizes.yaml"), UserError);
  // Figures that became times: a subnormal GPU peak, a link at 1e-12 GB/s (issue 28).
  CHECK_THROWS_WITH(load_experiment(exp + "/gpu_subnormal_peak.yaml"),
                    Catch::Contains("peak_tflops.fp32: must be >= 1e-06, got 1.0e-310"));
  CHECK_THROWS_WITH(load_experiment(exp + "/links_custom_tiny.yaml"),
                    Catch::Contains("system.links.0.bandwidth_gbps: must be in [0.001, "));

  const std::string idx = corpus_dir("idx");
  for (const char* ok : {"labels_10.idx", "labels_10.idx.gz", "images_2x3x3.idx"}) {
    INFO(ok);
    CHECK_FALSE(read_idx(idx + "/" + ok).data.empty());
  }
  for (const char* bad : {"truncated.idx", "trailing.idx", "huge_claim.idx", "bad_type.idx",
                          "zero_dim.idx", "five_dims.idx", "header_only.idx"}) {
    INFO(bad);
    CHECK_THROWS_AS(read_idx(idx + "/" + bad), UserError);
  }

  const std::string onnx = corpus_dir("onnx");
  for (const char* ok : {"resnet8_fashion.onnx", "vgg16_cifar10.onnx"}) {
    INFO(ok);
    CHECK_FALSE(import_onnx(onnx + "/" + ok).network.layers.empty());
  }
  // Found by the fuzzer: maxpool_stride_0.onnx, a stride of 0 that ONNX's own shape inference
  // divided by (SIGFPE), now refused before it runs; gemm_weight_1d.onnx, a Gemm whose weight
  // has one dimension (read out of bounds), now refused as not 2-D; dangling_input.onnx, a
  // MaxPool reading a tensor nothing produces (a SEGV in ONNX's shape inference), now refused
  // before it runs.
  for (const char* bad :
       {"truncated.onnx", "bad_operator.onnx", "bad_two_outputs.onnx", "bad_dynamic_shape.onnx",
        "maxpool_stride_0.onnx", "gemm_weight_1d.onnx", "dangling_input.onnx"}) {
    INFO(bad);
    CHECK_THROWS_AS(import_onnx(onnx + "/" + bad), UserError);
  }
}

TEST_CASE("parse_idx reads memory as read_idx reads files", "[fuzz][idx]") {
  // The IDX fuzz target feeds parse_idx from memory; read_idx is parse_idx on a file.
  const std::string idx = corpus_dir("idx");
  for (const std::string& path : files_in(idx)) {
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0) continue;
    INFO(path);
    std::string from_file, from_memory;
    IdxArray a, b;
    try {
      a = read_idx(path);
    } catch (const UserError& e) {
      from_file = e.what();
    }
    const std::vector<std::uint8_t> data = bytes_of(path);
    MemorySource memory(data.data(), data.size());
    try {
      b = parse_idx(memory, path);
    } catch (const UserError& e) {
      from_memory = e.what();
    }
    CHECK(from_file == from_memory);
    CHECK(a.dims == b.dims);
    CHECK(a.data == b.data);
  }
}
