// `trainsim gpu-calibrate` through the real binary: the error tables and iterations it prints,
// the files it writes (gpu_ops.csv, the fit: block, per-op CSVs of the iterations), and its bad
// input: measurement files with a missing column or an op without a kernel class, a device
// without a measured precision's peak, a device of another kind.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/integration/cli_runner.h"

using namespace trainsim::test;

namespace {

const std::string kData = TRAINSIM_SOURCE_DIR "/tests/data/gpu_h100";

// A copy of the measurements with `file` replaced by `text`.
std::string measurements_with(const std::string& root, const std::string& file,
                              const std::string& text) {
  const std::string dir = root + "/data-" + file;
  std::filesystem::create_directories(dir);
  for (const char* f : {"matmul.csv", "conv.csv", "elementwise.csv", "models.csv", "model_ops.csv"})
    write_file(dir + "/" + f, read_file(kData + "/" + f));
  write_file(dir + "/" + file, text);
  return dir;
}

}  // namespace

TEST_CASE("trainsim gpu-calibrate prints the error tables and writes its files", "[cli][gpu]") {
  const std::string dir = fresh_dir("gpu-calibrate") + "/c";
  const CliResult r = run_trainsim({"gpu-calibrate", "--data", kData, "-o", dir});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("per-op errors") != std::string::npos);
  CHECK(r.out.find("fp32      gemm") != std::string::npos);
  CHECK(r.out.find("bf16      all element-wise") != std::string::npos);
  CHECK(r.out.find("alexnet   fp32") != std::string::npos);
  CHECK(r.out.find("dcgan     bf16") != std::string::npos);
  const auto rows = csv_rows(read_file(dir + "/gpu_ops.csv"));
  CHECK(rows.size() == 322);
  CHECK(rows.front().at("class") == "gemm");
  CHECK_FALSE(rows.front().at("lomo_seconds").empty());
  // The fit: block is configs/devices/h100.yaml's.
  const std::string fit = read_file(dir + "/h100.fit.yaml");
  CHECK(fit.rfind("fit:\n  fp32:\n", 0) == 0);
  CHECK(read_file(TRAINSIM_SOURCE_DIR "/configs/devices/h100.yaml").find(fit) != std::string::npos);
  for (const char* f : {"alexnet_fp32_ops.csv", "alexnet_bf16_types.csv", "dcgan_fp32_ops.csv",
                        "dcgan_bf16_types.csv"})
    CHECK(exists(dir + "/" + f));
  CHECK(csv_rows(read_file(dir + "/alexnet_fp32_ops.csv")).front().at("type") == "Conv2D");
  // --help answers.
  const CliResult help = run_trainsim({"gpu-calibrate", "--help"});
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("--data") != std::string::npos);
}

TEST_CASE("trainsim gpu-calibrate: bad measurements and devices are one-line errors",
          "[cli][gpu]") {
  const std::string root = fresh_dir("gpu-calibrate-errors");
  // A measurement file without a column it needs.
  const std::string no_joules =
      measurements_with(root, "matmul.csv", "op,precision,mkn,seconds\nMatMul,fp32,2x2x2,1\n");
  require_clean_failure(run_trainsim({"gpu-calibrate", "--data", no_joules, "-o", root + "/a"}),
                        root + "/a", {"matmul.csv:1: missing column 'joules'"});
  // An op with no kernel class.
  const std::string conv3d = measurements_with(
      root, "elementwise.csv", "op,precision,elements,seconds,joules\nConv3D,fp32,64,1e-5,1e-3\n");
  require_clean_failure(run_trainsim({"gpu-calibrate", "--data", conv3d, "-o", root + "/b"}),
                        root + "/b", {"elementwise.csv:2: op 'Conv3D' has no kernel class"});
  // A device without the peak of a precision it is asked to run: the data has bf16 rows.
  write_file(root + "/fp32only.yaml",
             "kind: gpu\nclock_mhz: 1980\nsm_count: 132\npeak_tflops: {fp32: 66.9}\n"
             "memory_gbps: 3350\npower: {static_w: 70, dynamic_max_w: 630}\n");
  require_clean_failure(run_trainsim({"gpu-calibrate", "--data", kData, "--gpu",
                                      root + "/fp32only.yaml", "-o", root + "/c"}),
                        root + "/c", {"has no peak_tflops.bf16"});
  // A device file that names a precision without its peak.
  write_file(root + "/nobf16.yaml",
             "kind: gpu\nclock_mhz: 1980\nsm_count: 132\npeak_tflops: {fp32: 66.9}\n"
             "precision: bf16\nmemory_gbps: 3350\npower: {static_w: 70, dynamic_max_w: 630}\n");
  require_clean_failure(run_trainsim({"gpu-calibrate", "--data", kData, "--gpu",
                                      root + "/nobf16.yaml", "-o", root + "/d"}),
                        root + "/d", {"precision bf16 needs peak_tflops.bf16"});
  require_clean_failure(
      run_trainsim({"gpu-calibrate", "--data", kData, "--gpu", "s10_gx2500", "-o", root + "/e"}),
      root + "/e", {"device 's10_gx2500' is of kind fpga, expected gpu"});
  // --data is required.
  const CliResult none = run_trainsim({"gpu-calibrate", "-o", root + "/f"});
  CHECK(none.exit_code == 2);
  CHECK(line_count(none.err) == 1);
}
