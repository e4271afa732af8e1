#include "sim/report/train_report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "sim/core/csv.h"
#include "sim/core/format.h"
#include "sim/report/stats_header.h"
#include "sim/techniques/technique.h"

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

void add_layer_stats(const TechniqueSpec& technique, const std::shared_ptr<const LayerStats>& stats,
                     const Network<float>& net, nlohmann::ordered_json& epoch) {
  const TechniqueInfo::LayerStatsReport& r = technique_info(technique).layer_stats;
  if (r.key != nullptr && r.json != nullptr && stats) epoch[r.key] = r.json(*stats, net);
}

bool layer_stats_file(const TechniqueSpec& technique, const std::vector<EpochMetrics>& epochs,
                      const Network<float>& net, std::string& name, std::string& text) {
  const TechniqueInfo::LayerStatsReport& r = technique_info(technique).layer_stats;
  if (r.key == nullptr || r.csv == nullptr) return false;
  std::vector<std::pair<int, const LayerStats*>> rows;
  bool any = false;
  for (const EpochMetrics& e : epochs) {
    rows.push_back({e.epoch, e.layer_stats.get()});
    any = any || e.layer_stats != nullptr;
  }
  if (!any) return false;
  name = std::string(r.key) + ".csv";
  text = r.csv(rows, net);
  return true;
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
    add_layer_stats(spec.sim.technique, e.layer_stats, net, je);
    j["epochs"].push_back(std::move(je));
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
