#include "sim/report/train_report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "sim/core/csv.h"
#include "sim/core/format.h"
#include "sim/report/stats_header.h"

namespace trainsim {

namespace {
// Peak resident memory of this process so far (Linux VmHWM), 0 if unknown.
std::int64_t peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  return 0;
}

nlohmann::ordered_json eval_json(const EvalMetrics& e) {
  return {{"samples", e.samples}, {"loss", e.loss}, {"accuracy", e.accuracy}};
}
}  // namespace

std::string epochs_csv(const std::vector<EpochMetrics>& epochs) {
  // Numerics only: nothing is simulated, so no time or energy.
  EpochTable table("", {"batches"});
  for (const auto& e : epochs) {
    EpochCells c = metrics_cells(e);
    table.row(c).cell(e.batches);
  }
  return table.text();
}

EpochCells metrics_cells(const EpochMetrics& e) {
  EpochCells c;
  c.epoch = e.epoch;
  c.train_loss = e.train.loss;
  c.train_accuracy = e.train.accuracy;
  c.test_loss = e.test.loss;
  c.test_accuracy = e.test.accuracy;
  return c;
}

bool has_predictor_stats(const std::vector<EpochMetrics>& epochs) {
  for (const auto& e : epochs)
    if (!e.predictor.empty()) return true;
  return false;
}

std::string predictor_csv(const std::vector<EpochMetrics>& epochs, Network<float>& net) {
  CsvTable csv({"epoch", "layer", "name", "type", "batches", "mse", "mape", "cosine", "gain",
                "gp_batches", "gp_cosine", "gp_magnitude", "gp_persistence", "grad_prev_cosine",
                "grad_mean_cosine"});
  // The diagnostics' cells are empty where nothing was measured (diagnostics off, or no
  // batch of that kind this epoch).
  auto measured = [&csv](double v) -> CsvTable& {
    return std::isnan(v) ? csv.cell("") : csv.num("%.6f", v);
  };
  for (const auto& e : epochs)
    for (const PredictorLayerStats& p : e.predictor) {
      csv.row()
          .cell(e.epoch)
          .cell(static_cast<std::int64_t>(p.layer))
          .cell(net.layer_spec(p.layer).name)
          .cell(net.layer(p.layer).type())
          .cell(p.batches)
          .num("%.6f", p.mse)
          .num("%.6f", p.mape)
          .num("%.6f", p.cosine)
          .num("%.6f", p.gain)
          .cell(p.gp_batches);
      for (double v :
           {p.gp_cosine, p.gp_magnitude, p.gp_persistence, p.grad_prev_cosine, p.grad_mean_cosine})
        measured(v);
    }
  return csv.text();
}

nlohmann::ordered_json predictor_json(const std::vector<PredictorLayerStats>& stats,
                                      Network<float>& net) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const PredictorLayerStats& p : stats)
    j.push_back({{"layer", p.layer},
                 {"name", net.layer_spec(p.layer).name},
                 {"batches", p.batches},
                 {"mse", p.mse},
                 {"mape", p.mape},
                 {"cosine", p.cosine},
                 {"gain", p.gain},
                 {"gp_batches", p.gp_batches},
                 {"gp_cosine", p.gp_cosine},  // NaN (not measured) is written as null
                 {"gp_magnitude", p.gp_magnitude},
                 {"gp_persistence", p.gp_persistence},
                 {"grad_prev_cosine", p.grad_prev_cosine},
                 {"grad_mean_cosine", p.grad_mean_cosine}});
  return j;
}

std::string stats_json(const ExperimentSpec& spec, const Dataset& data, Network<float>& net,
                       const std::vector<EpochMetrics>& epochs, const std::string& status) {
  nlohmann::ordered_json j = stats_header(RunKind::kTrain, spec.name);
  j["status"] = status;
  auto& jn = j["network"];
  jn["name"] = spec.network.name;
  jn["parameters"] = net.param_count();
  for (std::size_t i = 0; i < net.size(); ++i) {
    auto& l = net.layer(i);
    std::int64_t params = 0;
    for (auto* p : l.params()) params += static_cast<std::int64_t>(p->value.size());
    jn["layers"].push_back({{"name", net.layer_spec(i).name},
                            {"type", l.type()},
                            {"input", l.in_shape().str()},
                            {"output", l.out_shape().str()},
                            {"parameters", params},
                            {"forward_macs_per_sample", l.forward_macs()}});
  }
  j["dataset"] = {
      {"name", data.name}, {"train_samples", data.train.count}, {"test_samples", data.test.count}};
  for (const auto& e : epochs) {
    nlohmann::ordered_json je = {{"epoch", e.epoch},
                                 {"batches", e.batches},
                                 {"train", eval_json(e.train)},
                                 {"test", eval_json(e.test)}};
    if (!e.predictor.empty()) je["predictor"] = predictor_json(e.predictor, net);
    j["epochs"].push_back(je);
  }
  if (!epochs.empty()) {
    j["final"] = {{"epochs", epochs.back().epoch},
                  {"train_loss", epochs.back().train.loss},
                  {"test_loss", epochs.back().test.loss},
                  {"test_accuracy", epochs.back().test.accuracy}};
  }
  return j.dump(2) + "\n";
}

std::string timing_json(const std::vector<EpochMetrics>& epochs, double load_seconds, int threads) {
  nlohmann::ordered_json j;
  j["threads"] = threads;
  j["dataset_load_seconds"] = load_seconds;
  double total = 0;
  for (const auto& e : epochs) {
    j["epochs"].push_back({{"epoch", e.epoch},
                           {"train_seconds", e.train_seconds},
                           {"train_macs", e.train_macs},
                           {"test_seconds", e.test_seconds}});
    total += e.train_seconds + e.test_seconds;
  }
  j["total_seconds"] = total;
  j["peak_rss_kib"] = peak_rss_kib();
  return j.dump(2) + "\n";
}

}  // namespace trainsim
