// `trainsim gpu-calibrate`: fits a gpu device on measured per-op times and energies of a real
// GPU (tests/data/gpu_h100/), prints the per-op error tables (in-sample and leave-one-out) and
// the whole training iterations priced on the fitted device against their measurements, and
// writes DIR/gpu_ops.csv, DIR/<gpu>.fit.yaml and one per-op CSV per iteration
// (sim/gpu/calibration.h, sim/gpu/iteration.h).
#include <cmath>
#include <cstdio>

#include "sim/cli/arg_parse.h"
#include "sim/cli/commands.h"
#include "sim/core/error.h"
#include "sim/devices/device_config.h"
#include "sim/gpu/calibration.h"
#include "sim/gpu/iteration.h"
#include "sim/io/staged_dir.h"

namespace po = boost::program_options;

namespace trainsim {

namespace {

std::string pct(double v) {
  if (std::isnan(v)) return "-";
  char s[32];
  std::snprintf(s, sizeof s, "%.1f%%", v);
  return s;
}

void print_errors(const GpuCalibrationResult& r) {
  std::printf("%-9s %-19s %5s %10s %10s %16s %7s %10s %10s %16s\n", "precision", "class", "rows",
              "time MAPE", "leave-out", "on device (MAPE)", "energy", "energy", "leave-out",
              "<= limit (MAPE)");
  for (const GpuClassError& e : r.errors) {
    char device[32];
    std::snprintf(device, sizeof device, "%d (%s)", e.device_rows, pct(e.device_time_mape).c_str());
    char plausible[32];
    std::snprintf(plausible, sizeof plausible, "%d (%s)", e.plausible_energy_rows,
                  pct(e.plausible_energy_mape).c_str());
    std::printf("%-9s %-19s %5d %10s %10s %16s %7d %10s %10s %16s\n",
                gpu_precision_name(e.precision), e.cls.c_str(), e.rows, pct(e.time_mape).c_str(),
                pct(e.time_lomo_mape).c_str(), device, e.energy_rows, pct(e.energy_mape).c_str(),
                pct(e.energy_lomo_mape).c_str(), plausible);
  }
}

}  // namespace

int cmd_gpu_calibrate(const std::vector<std::string>& args) {
  po::options_description opts;
  opts.add_options()("data", po::value<std::string>()->required()->value_name("DIR"),
                     "the measurements: matmul.csv, conv.csv, elementwise.csv, models.csv, "
                     "model_ops.csv (e.g. tests/data/gpu_h100)")(
      "gpu", po::value<std::string>()->default_value("h100")->value_name("DEVICE"),
      "the gpu device whose hardware figures to fit on (a name in configs/devices or a YAML "
      "path)")("no-leave-out", po::bool_switch(), "skip the leave-one-out fits")(
      "out,o", po::value<std::string>()->value_name("DIR"),
      "results directory (default runs/gpu-calibration)")("force,f", po::bool_switch(),
                                                          "replace DIR if it exists");
  const po::variables_map vm = parse_args("gpu-calibrate", args, opts);
  const std::string ref = vm["gpu"].as<std::string>();
  const auto spec = load_device(ref);
  const auto* gpu = dynamic_cast<const GpuSpec*>(spec.get());
  if (gpu == nullptr)
    throw UserError("gpu-calibrate: device '" + ref + "' is of kind " + spec->kind +
                    ", expected gpu");
  const GpuMeasurements data = load_gpu_measurements(vm["data"].as<std::string>());
  const std::string dir =
      vm.count("out") ? vm["out"].as<std::string>() : std::string("runs/gpu-calibration");
  StagedDir out(dir, vm["force"].as<bool>() ? StagedDir::Mode::kReplace : StagedDir::Mode::kNew,
                "gpu-calibrate");

  std::printf("trainsim gpu-calibrate: %s on %s (%zu ops, %zu iterations)\n", gpu->name.c_str(),
              data.dir.c_str(), data.ops.size(), data.iterations.size());
  std::fflush(stdout);
  GpuCalibrationOptions options;
  options.leave_one_out = !vm["no-leave-out"].as<bool>();
  const GpuCalibrationResult r = calibrate_gpu(*gpu, data, options);
  for (GpuPrecision p : r.precisions) {
    std::string hosts;
    for (const auto& [cls, s] : r.host_s[static_cast<std::size_t>(p)]) {
      char h[64];
      std::snprintf(h, sizeof h, "%s%s %.1f", hosts.empty() ? "" : ", ", cls.c_str(), s * 1e6);
      hosts += h;
    }
    std::printf("%s: host time per call of the measuring loop, us: %s\n", gpu_precision_name(p),
                hosts.c_str());
  }
  std::printf(
      "per-op errors (mean absolute percentage; leave-out: fitted without the row's "
      "network or GEMM group)\n");
  print_errors(r);

  const std::vector<GpuIterationResult> its = price_gpu_iterations(r.gpu, data);
  if (!its.empty()) {
    std::printf("whole training iterations on the fitted %s (batch 256):\n", gpu->name.c_str());
    std::printf("%-9s %-5s %11s %11s %8s %10s %10s %8s %9s\n", "model", "prec", "measured ms",
                "model ms", "error", "measured J", "model J", "error", "device ms");
    for (const GpuIterationResult& it : its)
      std::printf("%-9s %-5s %11.3f %11.3f %+7.1f%% %10.3f %10.3f %+7.1f%% %9.3f\n",
                  it.model.c_str(), gpu_precision_name(it.precision), it.measured_s * 1e3,
                  it.seconds * 1e3, (it.seconds / it.measured_s - 1) * 100, it.measured_j,
                  it.joules, (it.joules / it.measured_j - 1) * 100, it.device_s * 1e3);
  }

  const std::string yaml = gpu_calibration_fit_yaml(r);
  std::printf("fitted values for %s:\n%s", gpu->name.c_str(), yaml.c_str());
  write_text_file(out.file("gpu_ops.csv"), gpu_calibration_csv(r, data));
  write_text_file(out.file(gpu->name + ".fit.yaml"), yaml);
  for (const GpuIterationResult& it : its) {
    const std::string base = it.model + "_" + gpu_precision_name(it.precision);
    write_text_file(out.file(base + "_ops.csv"), it.ops_csv);
    write_text_file(out.file(base + "_types.csv"), it.types_csv);
  }
  out.commit();
  std::printf("wrote %s/gpu_ops.csv, %s.fit.yaml and per-op CSVs of %zu iterations\n",
              out.final_dir().c_str(), gpu->name.c_str(), its.size());
  return 0;
}

}  // namespace trainsim
