// `trainsim hype-calibrate` through the real binary: the comparison it prints, the files it
// writes (calibration.csv and the fitted fit: blocks, which are the shipped presets' values),
// and its bad input: a device of the wrong kind, a broken table, an existing directory.
#include <catch2/catch.hpp>

#include "sim/devices/device_config.h"
#include "sim/devices/gpu_model.h"
#include "tests/integration/cli_runner.h"

using namespace trainsim;
using namespace trainsim::test;

TEST_CASE("trainsim hype-calibrate writes calibration.csv and the fitted values", "[cli][hype]") {
  const std::string dir = fresh_dir("hype-calibrate") + "/c";
  const CliResult r = run_trainsim({"hype-calibrate", "-o", dir});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("held-out rows whose faster device is the table's: 8 of 15") !=
        std::string::npos);
  CHECK(r.out.find("MatMul small               fitted") != std::string::npos);
  CHECK(r.out.find("Conv2DBackpropFilter large held-out") != std::string::npos);
  const auto rows = csv_rows(read_file(dir + "/calibration.csv"));
  CHECK(rows.size() == 21 * 8);
  CHECK(rows.front().at("metric") == "time_ms");
  // The fit: block it writes is what configs/devices/v100.yaml holds.
  const std::string fit = read_file(dir + "/v100.fit.yaml");
  const auto v100 = load_device("v100");  // kept: g refers into it
  const auto& g = dynamic_cast<const GpuSpec&>(*v100);
  char line[64];
  std::snprintf(line, sizeof line, "    gemm_efficiency: %.6g\n", g.fit().gemm_efficiency);
  CHECK(fit.rfind("fit:\n  fp32:\n", 0) == 0);
  CHECK(fit.find(line) != std::string::npos);
  CHECK(exists(dir + "/s10_gx2500.fit.yaml"));
  // Again into the same directory: refused without --force, untouched.
  const std::string before = read_file(dir + "/calibration.csv");
  const CliResult again = run_trainsim({"hype-calibrate", "-o", dir});
  CHECK(again.exit_code == 2);
  CHECK(line_count(again.err) == 1);
  CHECK(again.err.find("--force") != std::string::npos);
  CHECK(read_file(dir + "/calibration.csv") == before);
}

TEST_CASE("trainsim hype-calibrate: bad devices and tables are one-line errors", "[cli][hype]") {
  const std::string root = fresh_dir("hype-calibrate-errors");
  require_clean_failure(run_trainsim({"hype-calibrate", "--gpu", "s10_gx2500", "-o", root + "/a"}),
                        root + "/a", {"device 's10_gx2500' is of kind fpga, expected gpu"});
  require_clean_failure(run_trainsim({"hype-calibrate", "--fpga", "nope", "-o", root + "/b"}),
                        root + "/b", {"unknown device 'nope'"});
  write_file(root + "/t.csv", "op,size\nMatMul,small\n");
  require_clean_failure(
      run_trainsim({"hype-calibrate", "--table", root + "/t.csv", "-o", root + "/c"}), root + "/c",
      {"t.csv:1: expected the header"});
}
