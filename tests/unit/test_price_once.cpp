// Energy is priced once, by the device that counted the events (issue 29: "device kinds count
// events and price them once; writers only format"): every sum a run records carries the energy
// of its own counts, and no code outside the accelerator's energy code calls price().
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/accel/energy.h"
#include "sim/core/paths.h"
#include "sim/data/dataset_registry.h"
#include "sim/run/experiment_file.h"
#include "sim/train/shape_only_run.h"

using namespace trainsim;
namespace fs = std::filesystem;

namespace {

void check_priced(const OpTotals& t, const AcceleratorSpec& acc, const std::string& what) {
  INFO(what);
  const EnergyBreakdown e = price(t.stats, acc);
  CHECK(t.energy.total() == e.total());
  CHECK(t.energy.dram == e.dram);
  CHECK(t.energy.leakage == e.leakage);
}

}  // namespace

TEST_CASE("Every sum of a shape-only run carries the energy of its counts", "[energy][shape]") {
  const ExperimentSpec spec =
      load_experiment(configs_root() + "/experiments/quickstart.yaml",
                      {"numerics=none", "network=lenet5", "training.epochs=2",
                       "dataset.train_limit=300", "dataset.test_limit=100", "technique=adagp-max"});
  AcceleratorSession session(spec);
  const ShapeOnlyResult r = run_shape_only(spec, dataset_shape(spec.dataset), session);
  const AcceleratorSpec& acc = spec.sim.accelerator;
  REQUIRE(r.epochs.size() == 2);
  CHECK(r.train.energy.total() > 0);
  check_priced(r.train, acc, "train");
  check_priced(r.eval, acc, "eval");
  for (std::size_t e = 0; e < r.epochs.size(); ++e) {
    check_priced(r.epochs[e].train, acc, "epoch train " + std::to_string(e));
    check_priced(r.epochs[e].eval, acc, "epoch eval " + std::to_string(e));
  }
  for (const OpTotals& t : r.kinds) check_priced(t, acc, "kind");
  REQUIRE(!r.per_batch.empty());
  REQUIRE(r.all_batches.size() == r.per_batch.size());
  for (const auto& [key, t] : r.per_batch) {
    check_priced(t, acc, "one batch");
    check_priced(r.all_batches.at(key), acc, "all batches");
    CHECK(r.all_batches.at(key).elapsed_cycles == t.elapsed_cycles * r.batch_counts.at(key));
  }
  // The session's own running sums (per phase, unit, ADA-GP phase and layer x role) are
  // priced once the run ends: run_shape_only takes each batch's sums without pricing them.
  check_priced(session.record().totals()[0], acc, "session train");
  check_priced(session.record().unit_totals()[1], acc, "session unit 1");
  for (const OpTotals& t : session.record().phase_totals()) check_priced(t, acc, "ADA-GP phase");
  for (const auto& roles : session.record().layer_roles(Phase::kTrain))
    for (const OpTotals& t : roles) check_priced(t, acc, "layer x role");
}

TEST_CASE("Only the accelerator's own code prices counts", "[energy]") {
  // A call of price( (not price_totals, not a name ending in price) outside the files that
  // are the accelerator device's energy code.
  const std::regex call(R"((^|[^A-Za-z0-9_])price\()");
  const fs::path root = TRAINSIM_SOURCE_DIR;
  std::vector<std::string> offenders;
  int scanned = 0;
  for (const char* dir : {"sim", "models", "dataflows", "mapping", "python"}) {
    for (const auto& e : fs::recursive_directory_iterator(root / dir)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cpp" && ext != ".h")) continue;
      const std::string rel = fs::relative(e.path(), root).generic_string();
      ++scanned;
      if (rel.rfind("sim/accel/energy.", 0) == 0 || rel == "sim/devices/accel_device.cpp") continue;
      std::ifstream in(e.path());
      std::string line;
      for (int n = 1; std::getline(in, line); ++n) {
        const std::string code = line.substr(0, line.find("//"));
        if (std::regex_search(code, call)) offenders.push_back(rel + ":" + std::to_string(n));
      }
    }
  }
  CHECK(scanned > 100);
  std::string report;
  for (const std::string& o : offenders) report += o + "\n";
  INFO("price( outside the accelerator's energy code (read OpTotals::energy instead):\n" + report);
  CHECK(offenders.empty());
}
