#include "sim/run/timed_training.h"

#include <cstdio>
#include <string>

#include "sim/core/format.h"
#include "sim/core/terminal_lines.h"

namespace trainsim {

std::unique_ptr<Trainer> real_trainer(const ExperimentSpec& spec,
                                      std::shared_ptr<const Dataset>& dataset) {
  if (spec.numerics == "none") return nullptr;
  dataset = load_dataset(spec.dataset);
  return std::make_unique<Trainer>(spec, *dataset);
}

void print_run_line(const ExperimentSpec& spec, const DatasetShape& data, bool real) {
  std::fputs(
      wrap_parts({"trainsim run: " + spec.name, "network " + spec.network.name,
                  sformat("dataset %s (%lld train, %lld test)", spec.dataset.name.c_str(),
                          static_cast<long long>(data.train), static_cast<long long>(data.test)),
                  sformat("batch %d", spec.training.batch_size),
                  sformat("epochs %d", spec.training.epochs), real ? "" : "shape only"})
          .c_str(),
      stdout);
}

EpochMetrics train_epoch(Trainer& trainer, const ExperimentSpec& spec, const RunOptions& options,
                         int e, const EtaClock& clock) {
  const std::string label = (options.label.empty() ? "" : options.label + " ") + "epoch " +
                            std::to_string(e + 1) + "/" + std::to_string(spec.training.epochs);
  ProgressBar bar(label);
  EpochMetrics m = trainer.run_epoch([&](const BatchProgress& b) {
    if (!bar.enabled()) return;
    char extra[64];
    std::snprintf(extra, sizeof extra, "loss %.4f acc %.2f%%", b.loss, 100 * b.accuracy);
    const double f = static_cast<double>(b.batch) / static_cast<double>(b.batches);
    bar.update(b.batch, b.batches, clock.elapsed(), clock.eta(e, f), extra);
  });
  bar.clear();
  return m;
}

}  // namespace trainsim
