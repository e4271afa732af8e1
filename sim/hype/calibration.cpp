#include "sim/hype/calibration.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/param_fit.h"

namespace trainsim {

namespace {

using Param = FitParam;

double log_ratio2(double model, double table) {
  const double r = std::log(model / table);
  return r * r;
}

// Fits `params` by minimising `objective` (which reads them through their pointers) and leaves
// them at the best point found.
FitStage fit(const std::string& device, const std::string& name, const std::vector<Param>& params,
             const std::function<double()>& objective) {
  const NelderMeadResult r = fit_params(params, objective);
  FitStage s;
  s.device = device;
  s.name = name;
  for (const Param& p : params) s.params.push_back(p.key);
  s.objective = r.f;
  s.evaluations = r.evaluations;
  return s;
}

struct FitRow {
  const HypeTable1Row* row;
  const Op* op;
  int fpgas;
};

OpCost fpga_cost(FpgaModel& m, const FitRow& r) {
  return m.cost_split(*r.op, r.fpgas);
}

// The gpu parameters Table 1's six rows determine; the rest keep the device file's values (the
// same form fitted on an H100's measured ops, docs/gpu.md).
std::vector<Param> gpu_time_params(GpuFit& f) {
  return {{"gemm_efficiency", &f.gemm_efficiency, true}, {"conv_forward", &f.conv_forward}};
}
// busy_w is kept: the six rows all run near the same utilisation, so a fit of both busy_w and
// compute_w puts everything in busy_w and prices a microsecond op like a GEMM.
std::vector<Param> gpu_power_params(GpuFit& f) {
  return {{"compute_w", &f.compute_w}, {"peak_over_average_w", &f.peak_over_average_w}};
}
std::vector<Param> gpu_ipc_params(GpuFit& f) {
  return {{"ipc_max", &f.ipc_max}};
}

void fit_gpu(GpuSpec& g, const std::vector<FitRow>& rows, std::vector<FitStage>& stages) {
  auto each = [&](const std::function<double(const OpCost&, const HypeTable1Row&)>& term) {
    GpuModel model(g);
    double sum = 0;
    for (const FitRow& r : rows) sum += term(model.cost(*r.op), *r.row);
    return sum;
  };
  GpuFit& f = g.fit();
  stages.push_back(fit("gpu", "time", gpu_time_params(f), [&] {
    return each([](const OpCost& c, const HypeTable1Row& t) {
      return log_ratio2(c.time_s * 1e3, t.gpu_ms) + log_ratio2(c.bandwidth_gbps, t.gpu_bw_gbps);
    });
  }));
  stages.push_back(fit("gpu", "power", gpu_power_params(f), [&] {
    return each([](const OpCost& c, const HypeTable1Row& t) {
      return log_ratio2(c.avg_w, t.gpu_avg_w) + log_ratio2(c.peak_w, t.gpu_peak_w);
    });
  }));
  stages.push_back(fit("gpu", "ipc", gpu_ipc_params(f), [&] {
    return each(
        [](const OpCost& c, const HypeTable1Row& t) { return log_ratio2(c.ipc, t.gpu_ipc); });
  }));
}

void fit_fpga(FpgaSpec& f, const std::vector<FitRow>& rows, std::vector<FitStage>& stages) {
  auto each = [&](const FpgaSpec& spec,
                  const std::function<double(const OpCost&, const HypeTable1Row&)>& term) {
    FpgaModel model(spec);
    double sum = 0;
    for (const FitRow& r : rows) sum += term(fpga_cost(model, r), *r.row);
    return sum;
  };
  // The fit rows need the GEMM-shaped kernels only: the element-wise ones are not searched.
  FpgaSpec gemm = f;
  gemm.kernels[static_cast<std::size_t>(KernelType::kElementwise)].present = false;
  stages.push_back(
      fit("fpga", "time",
          {{"fmax_base_mhz", &gemm.fmax.base_mhz}, {"traffic_factor", &gemm.traffic_factor}}, [&] {
            return each(gemm, [](const OpCost& c, const HypeTable1Row& t) {
              return log_ratio2(c.time_s * 1e3, t.fpga_ms);
            });
          }));
  // Power does not change which design the search picks: pin the designs found, so that the
  // power stage builds its models without searching.
  const FpgaModel searched(gemm);
  for (int t = 0; t < kNumKernelTypes; ++t)
    for (int c = 0; c < kNumSizeClasses; ++c)
      if (const FpgaKernel* k =
              searched.kernel(static_cast<KernelType>(t), static_cast<SizeClass>(c)))
        gemm.kernels[static_cast<std::size_t>(t)].pinned[static_cast<std::size_t>(c)] =
            k->design.design;
  stages.push_back(fit("fpga", "power",
                       {{"power_dsp", &gemm.power_dsp},
                        {"power_ram", &gemm.power_ram},
                        {"power_memory", &gemm.power_memory}},
                       [&] {
                         return each(gemm, [](const OpCost& c, const HypeTable1Row& t) {
                           return log_ratio2(c.avg_w, t.fpga_avg_w);
                         });
                       }));
  const std::vector<FitParameter> to = fit_parameters(f), from = fit_parameters(gemm);
  for (std::size_t i = 0; i < to.size(); ++i) *to[i].value = *from[i].value;
}

// Six significant digits; a value the fit drove to zero (a parameter searched as a logarithm
// only approaches it) is written as 0.
std::string number(double v) {
  if (std::abs(v) < 1e-9) return "0";
  char s[32];
  std::snprintf(s, sizeof s, "%.6g", v);
  return s;
}

// The initial values of the fitted parameters: the spec's defaults.
void reset_fit(FpgaSpec& s) {
  FpgaSpec initial;
  const std::vector<FitParameter> to = fit_parameters(s), from = fit_parameters(initial);
  for (std::size_t i = 0; i < to.size(); ++i) *to[i].value = *from[i].value;
}

// The GPU's: only those Table 1 fits (GpuFit's defaults); the kept ones stay the file's.
void reset_fit(GpuSpec& s) {
  GpuFit initial;
  for (auto params : {gpu_time_params, gpu_power_params, gpu_ipc_params}) {
    const std::vector<Param> to = params(s.fit()), from = params(initial);
    for (std::size_t i = 0; i < to.size(); ++i) *to[i].value = *from[i].value;
  }
}

template <class Spec>
std::string fit_yaml(Spec& s) {
  std::string out = "fit:\n";
  for (const FitParameter& p : fit_parameters(s))
    out += "  " + p.key + ": " + number(*p.value) + "\n";
  return out;
}

const char* winner(double fpga, double gpu) {
  return fpga < gpu ? "fpga" : gpu < fpga ? "gpu" : "tie";
}

}  // namespace

int table1_fpgas(PaperOpType type) {
  return type == PaperOpType::kMul || type == PaperOpType::kTranspose ? 1 : 3;
}

bool table1_fit_row(const HypeTable1Row& row) {
  return row.op == "MatMul" || row.op == "Conv2D";
}

CalibrationResult calibrate(const GpuSpec& gpu, const FpgaSpec& fpga,
                            const std::vector<HypeTable1Row>& table,
                            const Table1Workload& workload) {
  CalibrationResult r;
  r.table = table;
  r.reps = table1_representatives(table1_ops(workload), table);
  std::vector<FitRow> fit_rows, all_rows;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const FitRow fr{&r.table[i], &r.reps[i].op.op, table1_fpgas(r.reps[i].type)};
    all_rows.push_back(fr);
    if (table1_fit_row(table[i])) fit_rows.push_back(fr);
  }
  if (fit_rows.empty()) throw UserError("Table 1 has no MatMul or Conv2D row to fit on");

  r.gpu = gpu;
  r.fpga = fpga;
  reset_fit(r.gpu);
  reset_fit(r.fpga);
  fit_gpu(r.gpu, fit_rows, r.stages);
  fit_fpga(r.fpga, fit_rows, r.stages);

  GpuModel g(r.gpu);
  FpgaModel f(r.fpga);
  for (std::size_t i = 0; i < all_rows.size(); ++i) {
    const HypeTable1Row& t = r.table[i];
    const bool fitted = table1_fit_row(t);
    const OpCost gc = g.cost(*all_rows[i].op), fc = fpga_cost(f, all_rows[i]);
    const int row = static_cast<int>(i);
    auto add = [&](const char* device, int devices, const char* metric, double table_value,
                   double predicted) {
      r.entries.push_back({row, fitted, device, metric, table_value, predicted, devices});
    };
    const int fpgas = all_rows[i].fpgas;
    add("gpu", 1, "time_ms", t.gpu_ms, gc.time_s * 1e3);
    add("gpu", 1, "avg_w", t.gpu_avg_w, gc.avg_w);
    add("gpu", 1, "peak_w", t.gpu_peak_w, gc.peak_w);
    add("gpu", 1, "bandwidth_gbps", t.gpu_bw_gbps, gc.bandwidth_gbps);
    add("gpu", 1, "ipc", t.gpu_ipc, gc.ipc);
    add("fpga", fpgas, "time_ms", t.fpga_ms, fc.time_s * 1e3);
    add("fpga", fpgas, "avg_w", t.fpga_avg_w, fc.avg_w);
    add("fpga", fpgas, "peak_w", t.fpga_peak_w, fc.peak_w);
    r.table_winner.push_back(winner(t.fpga_ms, t.gpu_ms));
    r.predicted_winner.push_back(winner(fc.time_s, gc.time_s));
    if (!fitted) {
      ++r.held_out;
      if (r.table_winner.back() == r.predicted_winner.back()) ++r.held_out_agree;
    }
  }
  return r;
}

std::string calibration_csv(const CalibrationResult& r) {
  CsvTable csv({"row", "op", "size", "set", "device", "metric", "table", "predicted", "error_pct",
                "devices", "representative"});
  for (const CalibrationEntry& e : r.entries) {
    const HypeTable1Row& t = r.table[static_cast<std::size_t>(e.row)];
    const Table1Representative& rep = r.reps[static_cast<std::size_t>(e.row)];
    csv.row()
        .cell(e.row + 1)
        .cell(t.op)
        .cell(size_class_name(t.size))
        .cell(e.fitted ? "fitted" : "held-out")
        .cell(e.device)
        .cell(e.metric)
        .num("%.6g", e.table)
        .num("%.6g", e.predicted)
        .num("%.2f", e.error_pct())
        .cell(e.devices)
        .cell((rep.op.built ? "built: " : "") + rep.op.describe());
  }
  return csv.text();
}

std::vector<FitParameter> fit_parameters(GpuSpec& g) {
  std::vector<FitParameter> out;
  for (const GpuFitParameter& p : gpu_fit_parameters(g.fit())) out.push_back({p.key, p.value});
  return out;
}

std::vector<FitParameter> fit_parameters(FpgaSpec& f) {
  return {{"fmax_base_mhz", &f.fmax.base_mhz},
          {"fmax_dsp", &f.fmax.dsp},
          {"fmax_ram", &f.fmax.ram},
          {"fmax_cu", &f.fmax.cu},
          {"efficiency", &f.efficiency},
          {"work_group_half", &f.work_group_half},
          {"traffic_factor", &f.traffic_factor},
          {"launch_us", &f.launch_us},
          {"power_dsp", &f.power_dsp},
          {"power_ram", &f.power_ram},
          {"power_memory", &f.power_memory}};
}

std::string gpu_fit_yaml(const GpuSpec& g) {
  return std::string("fit:\n  ") + gpu_precision_name(g.precision) + ":\n" +
         gpu_fit_yaml(g.fit(), 4);
}

std::string fpga_fit_yaml(const FpgaSpec& f) {
  FpgaSpec copy = f;
  return fit_yaml(copy);
}

}  // namespace trainsim
