#include "sim/gpu/calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <set>

#include "sim/core/csv.h"
#include "sim/core/error.h"
#include "sim/core/param_fit.h"
#include "sim/gpu/iteration.h"

namespace trainsim {

namespace {

using Param = FitParam;

double fit(const std::vector<Param>& params, const std::function<double()>& objective) {
  NelderMeadOptions o;
  o.max_evaluations = 3000;
  o.f_tolerance = 1e-9;
  o.x_tolerance = 1e-6;
  return fit_params(params, objective, o).f;
}

double abs_log(double model, double measured) {
  return std::abs(std::log(model / measured));
}

const char* kGemmHost = "gemm";

std::string host_key(const GpuMeasuredOp& r) {
  return r.cls.kind == GpuOpClass::Kind::kEltwise ? r.cls.name() : kGemmHost;
}

// Everything one precision's fit works on.
struct Work {
  const GpuMeasurements* data;
  GpuPrecision precision;
  GpuSpec spec;  // at `precision`; spec.fit() is what the stages move
  std::map<std::string, double> host;
  std::vector<std::size_t> rows;  // this precision's rows
};

GpuRowPrediction predict(const Work& w, std::size_t i) {
  const GpuMeasuredOp& r = w.data->ops[i];
  return predict_gpu_row(w.spec, r, w.host.at(host_key(r)));
}

// Sum of |log| time errors over the rows `use` selects.
double time_objective(const Work& w, const std::function<bool(const GpuMeasuredOp&)>& use) {
  double sum = 0;
  for (std::size_t i : w.rows) {
    const GpuMeasuredOp& r = w.data->ops[i];
    if (use(r)) sum += abs_log(predict(w, i).seconds, r.seconds);
  }
  return sum;
}

bool is_gemm(const GpuMeasuredOp& r) {
  return r.cls.kind == GpuOpClass::Kind::kGemm;
}
bool is_conv(const GpuMeasuredOp& r) {
  return r.cls.kind == GpuOpClass::Kind::kConv;
}

std::vector<Param> gemm_params(Work& w) {
  GpuFit& f = w.spec.fit();
  return {{"launch_us", &f.launch_us},
          {"gemm_efficiency", &f.gemm_efficiency, true},
          {"gemm_tile_overhead", &f.gemm_tile_overhead},
          {"gemm_pipeline_depth", &f.gemm_pipeline_depth},
          {"split_k_min_depth", &f.split_k_min_depth},
          {"memory_efficiency", &f.memory_efficiency, true},
          {"host gemm", &w.host[kGemmHost]}};
}

// `use`: the rows the stage fits. A parameter of a kernel class none of them can run would
// drift with the search to a value nothing measured chose (the NCHW 1x1 kernels' traffic
// with ResNet-50 left out: no other network has a 1x1 filter); it keeps its value instead.
std::vector<Param> conv_params(Work& w, const std::function<bool(const GpuMeasuredOp&)>& use) {
  GpuFit& f = w.spec.fit();
  std::vector<Param> p = {{"conv_forward", &f.conv_forward},
                          {"conv_backward_data", &f.conv_backward_data},
                          {"conv_backward_weight", &f.conv_backward_weight},
                          {"conv_weight_split_k_min_depth", &f.conv_weight_split_k_min_depth}};
  if (!w.spec.tensor()) p.push_back({"conv_unaligned", &f.conv_unaligned});
  if (w.spec.tensor())
    for (Param q : std::vector<Param>{{"conv_layout_traffic", &f.conv_layout_traffic},
                                      {"simt_forward", &f.simt_forward},
                                      {"simt_backward_data", &f.simt_backward_data},
                                      {"simt_backward_weight", &f.simt_backward_weight}})
      p.push_back(q);
  for (std::size_t i : w.rows) {
    const GpuMeasuredOp& r = w.data->ops[i];
    if (is_conv(r) && use(r) && gpu_conv_runs_nchw(w.spec, r.model_op.conv)) {
      p.push_back({"nchw_traffic", &f.nchw_traffic});
      break;
    }
  }
  // A 16-bit fit's convolutions run on the tensor cores, which run no transform (gpu_model.cpp).
  const bool transform =
      !w.spec.tensor() && (f.transform_forward_min <= f.transform_forward_max ||
                           f.transform_backward_data_min <= f.transform_backward_data_max ||
                           f.transform_backward_weight_min <= f.transform_backward_weight_max);
  if (transform)
    for (Param q : std::vector<Param>{
             {"transform_efficiency", &f.transform_efficiency},
             // One traffic factor for the three passes: the transforms are the same
             // streams, and a factor per pass would follow one network's layers.
             {"transform_traffic_*",
              &f.transform_traffic_forward,
              false,
              {&f.transform_traffic_backward_data, &f.transform_traffic_backward_weight}}})
      p.push_back(q);
  return p;
}

std::vector<std::string> keys(const std::vector<Param>& p) {
  std::vector<std::string> out;
  for (const Param& q : p) out.push_back(q.key);
  return out;
}

void fit_gemm(Work& w, const std::string& leave_out, std::vector<GpuFitStage>* stages) {
  auto use = [&](const GpuMeasuredOp& r) { return is_gemm(r) && r.group != leave_out; };
  const std::vector<Param> p = gemm_params(w);
  const double obj = fit(p, [&] { return time_objective(w, use); });
  if (stages) stages->push_back({w.precision, "gemm", keys(p), obj, 0});
}

void fit_conv(Work& w, const std::string& leave_out, std::vector<GpuFitStage>* stages) {
  auto use = [&](const GpuMeasuredOp& r) { return is_conv(r) && r.group != leave_out; };
  auto objective = [&] { return time_objective(w, use); };
  GpuFit& f = w.spec.fit();
  // Candidate bounds: "none" at either end and the midpoints between the sizes the rows have,
  // so that a bound the rows leave anywhere between two sizes sits halfway, not on the size a
  // held-out network might have.
  std::set<double> seen;
  for (std::size_t i : w.rows) {
    const GpuMeasuredOp& r = w.data->ops[i];
    if (!use(r)) continue;
    seen.insert(double(r.model_op.conv.out_h()));
    seen.insert(double(r.model_op.conv.height));
  }
  std::set<double> sizes = {0, GpuFit::kNoLimit};
  for (auto it = seen.begin(); it != seen.end(); ++it) {
    const auto next = std::next(it);
    if (next != seen.end()) sizes.insert((*it + *next) / 2);
  }
  double* bounds[] = {&f.transform_forward_min,         &f.transform_forward_max,
                      &f.transform_backward_data_min,   &f.transform_backward_data_max,
                      &f.transform_backward_weight_min, &f.transform_backward_weight_max};
  double obj = fit(conv_params(w, use), objective);
  // (The bounds say where a transform runs: nowhere on the tensor cores.)
  const int rounds = w.spec.tensor() ? 0 : 2;
  for (int round = 0; round < rounds; ++round) {
    for (double* b : bounds) {
      double best = *b, best_obj = objective();
      for (double s : sizes) {
        *b = s;
        const double o = objective();
        if (o < best_obj - 1e-12) best = s, best_obj = o;
      }
      *b = best;
    }
    obj = fit(conv_params(w, use), objective);
  }
  if (stages) {
    std::vector<std::string> k = keys(conv_params(w, use));
    if (rounds > 0)
      for (const char* b : {"transform_*_min", "transform_*_max"}) k.push_back(b);
    stages->push_back({w.precision, "conv", k, obj, 0});
  }
}

void fit_eltwise(Work& w, std::vector<GpuFitStage>* stages) {
  GpuFit& f = w.spec.fit();
  for (int k = 0; k < kNumEltwiseKernels; ++k) {
    const auto cls = static_cast<EltwiseKernel>(k);
    auto use = [&](const GpuMeasuredOp& r) {
      return r.cls.kind == GpuOpClass::Kind::kEltwise && r.cls.eltwise == cls;
    };
    bool any = false;
    for (std::size_t i : w.rows) any = any || use(w.data->ops[i]);
    if (!any) continue;
    GpuEltwiseFit& e = f.eltwise[static_cast<std::size_t>(k)];
    const std::string name = eltwise_kernel_name(cls);
    const std::vector<Param> p = {{"bandwidth", &e.bandwidth, true},
                                  {"words_per_ns", &e.words_per_ns},
                                  {"host " + name, &w.host[name]}};
    const double obj = fit(p, [&] { return time_objective(w, use); });
    if (stages) stages->push_back({w.precision, "eltwise " + name, keys(p), obj, 0});
  }
  const auto at = [&](EltwiseKernel c) -> GpuEltwiseFit& {
    return f.eltwise[static_cast<std::size_t>(c)];
  };
  at(EltwiseKernel::kNormalizationGrad) = at(EltwiseKernel::kNormalization);
  at(EltwiseKernel::kUpdate) = at(EltwiseKernel::kMap);
  at(EltwiseKernel::kUpdate).bandwidth = at(EltwiseKernel::kMap).bandwidth * 5 / 8;
}

// Whether a row's measured energy can be the board's: its average power within the limit.
bool plausible_energy(const GpuSpec& g, const GpuMeasuredOp& r) {
  return r.joules > 0 && r.joules / r.seconds <= g.static_w + g.dynamic_max_w;
}

void fit_power(Work& w, const std::string& leave_out, std::vector<GpuFitStage>* stages) {
  GpuFit& f = w.spec.fit();
  auto use = [&](const GpuMeasuredOp& r) {
    return plausible_energy(w.spec, r) && r.group != leave_out;
  };
  // The device times do not depend on the power parameters: compute them once.
  const std::vector<Param> p = {{"busy_w", &f.busy_w},
                                {"compute_w", &f.compute_w},
                                {"memory_w", &f.memory_w},
                                {"active_idle_w", &f.active_idle_w}};
  const double obj = fit(p, [&] {
    double sum = 0;
    for (std::size_t i : w.rows) {
      const GpuMeasuredOp& r = w.data->ops[i];
      // Weighted by the row's time: long ops are what an iteration's energy is made of.
      if (use(r)) sum += r.seconds * abs_log(predict(w, i).joules, r.joules);
    }
    return sum;
  });
  if (stages) stages->push_back({w.precision, "power", keys(p), obj, 0});
}

// A fresh fit of one precision: GpuFit's initial values, host times of 10 us.
Work start(const GpuSpec& gpu, const GpuMeasurements& data, GpuPrecision p) {
  Work w{&data, p, gpu.with_precision(p), {}, {}};
  w.spec.fit() = GpuFit{};
  w.host[kGemmHost] = 10e-6;
  for (int k = 0; k < kNumEltwiseKernels; ++k)
    w.host[eltwise_kernel_name(static_cast<EltwiseKernel>(k))] = 10e-6;
  for (std::size_t i = 0; i < data.ops.size(); ++i)
    if (data.ops[i].precision == p) w.rows.push_back(i);
  return w;
}

double pct(double model, double measured) {
  return std::abs(model - measured) / measured * 100;
}

std::string num(const char* f, double v) {
  char s[64];
  std::snprintf(s, sizeof s, f, v);
  return s;
}

}  // namespace

GpuRowPrediction predict_gpu_row(const GpuSpec& spec, const GpuMeasuredOp& row, double host_s) {
  const GpuModel model(spec);
  GpuKernelChoice choice;
  const OpCost c = model.cost(row.model_op, choice);
  GpuRowPrediction p;
  p.device_s = c.time_s;
  p.seconds = std::max(host_s, c.time_s);
  // The op's power while it runs; between calls (a host-bound loop) the GPU idles at its
  // clocks: static power plus active_idle_w.
  p.joules =
      (spec.static_w + spec.fit().active_idle_w) * (p.seconds - c.time_s) + c.avg_w * c.time_s;
  p.algorithm = choice.algorithm;
  return p;
}

GpuCalibrationResult calibrate_gpu(const GpuSpec& gpu, const GpuMeasurements& data,
                                   const GpuCalibrationOptions& options) {
  GpuCalibrationResult r;
  r.gpu = gpu;
  r.rows.resize(data.ops.size());
  // Per left-out group, the fits without it so far: a later precision's CUDA-core fallback
  // (its RGB stems) runs on the fp32 block, which must not have seen the group either.
  std::map<std::string, std::array<GpuFit, kNumGpuPrecisions>> lomo_fits;
  for (int pi = 0; pi < kNumGpuPrecisions; ++pi) {
    const auto p = static_cast<GpuPrecision>(pi);
    bool any = false;
    for (const GpuMeasuredOp& o : data.ops) any = any || o.precision == p;
    if (!any) continue;
    if (gpu.peak(p) <= 0)
      throw UserError("gpu-calibrate: the measurements hold " + std::string(gpu_precision_name(p)) +
                      " rows, but device '" + gpu.name + "' has no peak_tflops." +
                      gpu_precision_name(p));
    r.precisions.push_back(p);
    Work w = start(gpu, data, p);
    w.spec.fits = r.gpu.fits;  // the precisions fitted so far (fp32's CUDA-core kernels)
    w.spec.fit() = GpuFit{};
    fit_gemm(w, "", &r.stages);
    fit_conv(w, "", &r.stages);
    fit_eltwise(w, &r.stages);
    fit_power(w, "", &r.stages);
    for (GpuFitStage& s : r.stages)
      if (s.precision == p) s.rows = static_cast<int>(w.rows.size());
    for (std::size_t i : w.rows) r.rows[i] = predict(w, i);
    r.gpu.fits[static_cast<std::size_t>(pi)] = w.spec.fit();
    r.gpu.has_fit[static_cast<std::size_t>(pi)] = true;
    r.host_s[static_cast<std::size_t>(pi)] = w.host;

    if (options.leave_one_out) {
      std::set<std::string> groups;
      for (std::size_t i : w.rows)
        if (!is_conv(data.ops[i]) && !is_gemm(data.ops[i]))
          continue;
        else
          groups.insert(data.ops[i].group);
      for (const std::string& g : groups) {
        Work lo = w;  // the in-sample fit, then the stages the group is in refitted without it
        if (lomo_fits.count(g)) lo.spec.fits = lomo_fits[g];
        bool conv = false;
        for (std::size_t i : w.rows)
          if (data.ops[i].group == g) conv = is_conv(data.ops[i]);
        if (conv) {
          lo.spec.fit() = GpuFit{};
          // The gemm stage has no convolution rows: keep its values.
          const GpuFit& fitted = w.spec.fit();
          GpuFit& f = lo.spec.fit();
          f.launch_us = fitted.launch_us, f.gemm_efficiency = fitted.gemm_efficiency;
          f.gemm_tile_overhead = fitted.gemm_tile_overhead;
          f.gemm_pipeline_depth = fitted.gemm_pipeline_depth;
          f.split_k_min_depth = fitted.split_k_min_depth;
          f.memory_efficiency = fitted.memory_efficiency;
          f.eltwise = fitted.eltwise;
          fit_conv(lo, g, nullptr);
        } else {
          const GpuFit fitted = w.spec.fit();
          lo.spec.fit() = GpuFit{};
          lo.host[kGemmHost] = 10e-6;
          fit_gemm(lo, g, nullptr);
          // Keep the conv and element-wise stages as fitted (no row of the group is in them).
          GpuFit& f = lo.spec.fit();
          const GpuFit gemm = f;
          f = fitted;
          f.launch_us = gemm.launch_us, f.gemm_efficiency = gemm.gemm_efficiency;
          f.gemm_tile_overhead = gemm.gemm_tile_overhead;
          f.gemm_pipeline_depth = gemm.gemm_pipeline_depth;
          f.split_k_min_depth = gemm.split_k_min_depth;
          f.memory_efficiency = gemm.memory_efficiency;
        }
        fit_power(lo, g, nullptr);
        if (!lomo_fits.count(g)) lomo_fits[g] = r.gpu.fits;
        lomo_fits[g][static_cast<std::size_t>(pi)] = lo.spec.fit();
        for (std::size_t i : w.rows)
          if (data.ops[i].group == g) {
            const GpuRowPrediction q = predict(lo, i);
            r.rows[i].lomo_seconds = q.seconds;
            r.rows[i].lomo_joules = q.joules;
          }
      }
    }

    // The tables: per class, and all element-wise classes together.
    std::vector<std::string> classes = {"gemm", "conv"};
    for (int k = 0; k < kNumEltwiseKernels; ++k)
      classes.push_back(eltwise_kernel_name(static_cast<EltwiseKernel>(k)));
    classes.push_back("all element-wise");
    for (const std::string& cls : classes) {
      GpuClassError e;
      e.precision = p;
      e.cls = cls;
      double t = 0, tl = 0, en = 0, enl = 0, dev = 0, enp = 0;
      int lomo = 0, lomo_e = 0;
      for (std::size_t i : w.rows) {
        const GpuMeasuredOp& o = data.ops[i];
        const bool member = cls == "all element-wise" ? o.cls.kind == GpuOpClass::Kind::kEltwise
                                                      : o.cls.name() == cls;
        if (!member) continue;
        const GpuRowPrediction& q = r.rows[i];
        ++e.rows;
        t += pct(q.seconds, o.seconds);
        if (q.device_s >= w.host.at(host_key(o))) {
          ++e.device_rows;
          dev += pct(q.seconds, o.seconds);
        }
        if (!std::isnan(q.lomo_seconds)) ++lomo, tl += pct(q.lomo_seconds, o.seconds);
        if (plausible_energy(w.spec, o)) {
          ++e.plausible_energy_rows;
          enp += pct(q.joules, o.joules);
        }
        if (o.joules > 0) {
          ++e.energy_rows;
          en += pct(q.joules, o.joules);
          if (!std::isnan(q.lomo_joules)) ++lomo_e, enl += pct(q.lomo_joules, o.joules);
        }
      }
      if (e.rows == 0) continue;
      e.time_mape = t / e.rows;
      e.device_time_mape = e.device_rows ? dev / e.device_rows : 0;
      if (lomo == e.rows) e.time_lomo_mape = tl / lomo;
      if (e.energy_rows) e.energy_mape = en / e.energy_rows;
      if (e.plausible_energy_rows) e.plausible_energy_mape = enp / e.plausible_energy_rows;
      if (lomo_e && lomo_e == e.energy_rows) e.energy_lomo_mape = enl / lomo_e;
      r.errors.push_back(e);
    }
  }
  if (options.fit_host && !data.iterations.empty()) {
    double host_us = GpuFit{}.host_op_us > 0 ? GpuFit{}.host_op_us : 10;
    auto set = [&](double v) {
      for (GpuPrecision p : r.precisions) r.gpu.fits[static_cast<std::size_t>(p)].host_op_us = v;
    };
    const Param p{"host_op_us", &host_us};
    const double obj = fit({p}, [&] {
      set(host_us);
      double sum = 0;
      for (const GpuIterationResult& it : price_gpu_iterations(r.gpu, data))
        sum += abs_log(it.seconds, it.measured_s);
      return sum;
    });
    set(host_us);
    r.stages.push_back({r.precisions.front(),
                        "host",
                        {"host_op_us"},
                        obj,
                        static_cast<int>(data.iterations.size())});
  }
  return r;
}

std::string gpu_calibration_csv(const GpuCalibrationResult& r, const GpuMeasurements& data) {
  CsvTable csv({"where", "op", "precision", "class", "group", "label", "algorithm", "seconds",
                "model_seconds", "device_seconds", "error_pct", "lomo_seconds", "lomo_error_pct",
                "joules", "model_joules", "energy_error_pct", "lomo_joules"});
  for (std::size_t i = 0; i < data.ops.size(); ++i) {
    const GpuMeasuredOp& o = data.ops[i];
    const GpuRowPrediction& q = r.rows[i];
    auto opt = [](double v, const char* f) { return std::isnan(v) ? std::string() : num(f, v); };
    csv.row()
        .cell(o.where)
        .cell(o.op)
        .cell(gpu_precision_name(o.precision))
        .cell(o.cls.name())
        .cell(o.group)
        .cell(o.label)
        .cell(q.algorithm)
        .num("%.9g", o.seconds)
        .num("%.9g", q.seconds)
        .num("%.9g", q.device_s)
        .num("%.2f", (q.seconds - o.seconds) / o.seconds * 100)
        .cell(opt(q.lomo_seconds, "%.9g"))
        .cell(opt((q.lomo_seconds - o.seconds) / o.seconds * 100, "%.2f"))
        .num("%.6g", o.joules)
        .num("%.6g", q.joules)
        .cell(o.joules > 0 ? num("%.2f", (q.joules - o.joules) / o.joules * 100) : "")
        .cell(opt(q.lomo_joules, "%.6g"));
  }
  return csv.text();
}

std::string gpu_calibration_fit_yaml(const GpuCalibrationResult& r) {
  std::string out = "fit:\n";
  for (GpuPrecision p : r.precisions) {
    out += std::string("  ") + gpu_precision_name(p) + ":\n";
    out += gpu_fit_yaml(r.gpu.fits[static_cast<std::size_t>(p)], 4);
  }
  return out;
}

}  // namespace trainsim
