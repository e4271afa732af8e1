#include "sim/techniques/adagp_report.h"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "sim/core/csv.h"

namespace trainsim {

const std::vector<PredictorLayerStats>& predictor_rows(const LayerStats& stats) {
  const auto* p = dynamic_cast<const PredictorStats*>(&stats);
  if (p == nullptr) throw std::logic_error("ADA-GP's report given another technique's statistics");
  return p->layers;
}

void archive_predictor_stats(StateArchive& a, std::shared_ptr<const LayerStats>& stats) {
  std::vector<PredictorLayerStats> rows;
  if (stats) rows = predictor_rows(*stats);
  a.vector(rows);
  if (!a.loading()) return;
  if (rows.empty()) {
    stats.reset();
    return;
  }
  auto restored = std::make_shared<PredictorStats>();
  restored->layers = std::move(rows);
  stats = std::move(restored);
}

std::string predictor_stats_csv(const std::vector<std::pair<int, const LayerStats*>>& epochs,
                                const Network<float>& net) {
  CsvTable csv({"epoch", "layer", "name", "type", "batches", "mse", "mape", "cosine", "gain",
                "gp_batches", "gp_cosine", "gp_magnitude", "gp_persistence", "grad_prev_cosine",
                "grad_mean_cosine"});
  // The diagnostics' cells are empty where nothing was measured (diagnostics off, or no
  // batch of that kind this epoch).
  auto measured = [&csv](double v) -> CsvTable& {
    return std::isnan(v) ? csv.cell("") : csv.num("%.6f", v);
  };
  for (const auto& [epoch, stats] : epochs) {
    if (stats == nullptr) continue;
    for (const PredictorLayerStats& p : predictor_rows(*stats)) {
      csv.row()
          .cell(epoch)
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
  }
  return csv.text();
}

nlohmann::ordered_json predictor_stats_json(const LayerStats& stats, const Network<float>& net) {
  nlohmann::ordered_json j = nlohmann::ordered_json::array();
  for (const PredictorLayerStats& p : predictor_rows(stats))
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

}  // namespace trainsim
