// `trainsim hype-calibrate`: fits a gpu and an fpga device on Table 1 of Hype-training (He et al.,
// ICS 2021; MatMul and Conv2D rows only), predicts the other rows, prints the comparison and the
// fitted `fit:` blocks, and writes DIR/calibration.csv (sim/hype/calibration.h).
#include <cmath>
#include <cstdio>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/devices/device_config.h"
#include "sim/hype/calibration.h"
#include "sim/io/staged_dir.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

template <class Spec>
Spec device_of_kind(const std::string& ref, const std::string& kind) {
  const auto spec = load_device(ref);
  const auto* s = dynamic_cast<const Spec*>(spec.get());
  if (s == nullptr)
    throw UserError("hype-calibrate: device '" + ref + "' is of kind " + spec->kind +
                    ", expected " + kind);
  return *s;
}

const CalibrationEntry& entry(const CalibrationResult& r, int row, const char* device,
                              const char* metric) {
  for (const CalibrationEntry& e : r.entries)
    if (e.row == row && e.device == device && e.metric == metric) return e;
  throw std::logic_error("hype-calibrate: no entry");
}

void print_rows(const CalibrationResult& r) {
  std::printf("%-26s %-8s %23s %23s %9s %9s %9s %11s\n", "row", "set", "GPU ms table/model",
              "FPGA ms table/model", "GPU W", "GPU IPC", "FPGA W", "faster");
  for (std::size_t i = 0; i < r.table.size(); ++i) {
    const int row = static_cast<int>(i);
    const auto& gt = entry(r, row, "gpu", "time_ms");
    const auto& ft = entry(r, row, "fpga", "time_ms");
    auto pct = [](const CalibrationEntry& e) { return e.error_pct(); };
    char name[64];
    std::snprintf(name, sizeof name, "%s %s", r.table[i].op.c_str(),
                  size_class_name(r.table[i].size));
    std::printf(
        "%-26s %-8s %8.3f/%7.3f %+5.0f%% %8.3f/%7.3f %+5.0f%% %+8.0f%% %+8.0f%% %+8.0f%% "
        "%5s/%-5s\n",
        name, gt.fitted ? "fitted" : "held-out", gt.table, gt.predicted, pct(gt), ft.table,
        ft.predicted, pct(ft), pct(entry(r, row, "gpu", "avg_w")), pct(entry(r, row, "gpu", "ipc")),
        pct(entry(r, row, "fpga", "avg_w")), r.table_winner[i].c_str(),
        r.predicted_winner[i].c_str());
  }
}

}  // namespace

int cmd_hype_calibrate(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("gpu", po::value<std::string>()->default_value("v100")->value_name("DEVICE"),
                     "the gpu device to fit (a name in configs/devices or a YAML path)")(
      "fpga", po::value<std::string>()->default_value("s10_gx2500")->value_name("DEVICE"),
      "the fpga device to fit")("table", po::value<std::string>()->value_name("FILE.csv"),
                                "the table to fit and compare with (default: the shipped "
                                "configs/devices/hype_table1.csv)")(
      "out,o", po::value<std::string>()->value_name("DIR"),
      "results directory (default runs/hype-calibration)")("force,f", po::bool_switch(),
                                                           "replace DIR if it exists");
  const po::variables_map vm = parse_args("hype-calibrate", args, opts);
  const GpuSpec gpu = device_of_kind<GpuSpec>(vm["gpu"].as<std::string>(), "gpu");
  const FpgaSpec fpga = device_of_kind<FpgaSpec>(vm["fpga"].as<std::string>(), "fpga");
  const std::string table_path =
      vm.count("table") ? vm["table"].as<std::string>() : hype_table1_path();
  const std::vector<HypeTable1Row> table = load_hype_table1(table_path);
  const std::string dir =
      vm.count("out") ? vm["out"].as<std::string>() : std::string("runs/hype-calibration");
  StagedDir out(dir, vm["force"].as<bool>() ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                "hype-calibrate");

  const Table1Workload workload;
  std::string networks;
  for (const std::string& n : workload.networks) networks += (networks.empty() ? "" : ", ") + n;
  std::printf("trainsim hype-calibrate: %s (gpu) and %s (fpga) on %s\n", gpu.name.c_str(),
              fpga.name.c_str(), table_path.c_str());
  std::printf(
      "each row is the op of its type nearest the bytes its GPU moved, from %s at batch %d\n",
      networks.c_str(), workload.batch);
  std::fflush(stdout);
  const CalibrationResult r = calibrate(gpu, fpga, table, workload);
  for (const FitStage& s : r.stages) {
    std::string params;
    for (const std::string& p : s.params) params += (params.empty() ? "" : ", ") + p;
    std::printf("fit %s %s (%s): sum of squared log errors %.4f, %d evaluations\n",
                s.device.c_str(), s.name.c_str(), params.c_str(), s.objective, s.evaluations);
  }
  print_rows(r);
  std::printf("held-out rows whose faster device is the table's: %d of %d\n", r.held_out_agree,
              r.held_out);
  const std::string gpu_yaml = gpu_fit_yaml(r.gpu), fpga_yaml = fpga_fit_yaml(r.fpga);
  std::printf("fitted values for %s:\n%sfitted values for %s:\n%s", gpu.name.c_str(),
              gpu_yaml.c_str(), fpga.name.c_str(), fpga_yaml.c_str());
  write_text_file(out.file("calibration.csv"), calibration_csv(r));
  write_text_file(out.file(gpu.name + ".fit.yaml"), gpu_yaml);
  write_text_file(out.file(fpga.name + ".fit.yaml"), fpga_yaml);
  out.commit();
  std::printf("wrote %s/calibration.csv, %s.fit.yaml, %s.fit.yaml\n", out.final_dir().c_str(),
              gpu.name.c_str(), fpga.name.c_str());
  return 0;
}

}  // namespace trainsim
