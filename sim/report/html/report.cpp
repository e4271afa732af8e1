#include "sim/report/html/report.h"

#include "sim/core/error.h"
#include "sim/io/staged_dir.h"
#include "sim/report/html/report_pages.h"

namespace trainsim {

namespace {

std::string stats_kind(const ResultsDir& d) {
  return json_text(d.stats(), "kind");
}

}  // namespace

const std::vector<ReportKind>& report_kinds() {
  static const std::vector<ReportKind> kinds = {
      {"compare", "trainsim compare: variants side by side, linked to their own reports",
       [](const ResultsDir& d) { return d.has("compare.csv"); }, compare_page},
      {"sweep", "trainsim sweep: every design point, the Pareto front, the failed points",
       [](const ResultsDir& d) { return d.has("sweep.csv"); }, sweep_page},
      {"system", "a pipeline on a system of devices: stages, devices, links, timeline",
       [](const ResultsDir& d) { return stats_kind(d) == "system"; }, system_page},
      {"hype", "Hype-training: placement, devices, power, ops, timeline",
       [](const ResultsDir& d) { return stats_kind(d) == "hype"; }, hype_page},
      {"replay", "trainsim replay: Chakra traces run on a system: makespan, devices, energy",
       [](const ResultsDir& d) { return stats_kind(d) == "replay"; }, replay_page},
      {"run", "one device (run, shape-only, train): curves, time, energy, layers, units",
       [](const ResultsDir& d) {
         const std::string k = stats_kind(d);
         return k == "run" || k == "shape-only" || k == "train";
       },
       run_page},
  };
  return kinds;
}

std::string render_report(const std::string& dir) {
  const ResultsDir d(dir);
  for (const ReportKind& k : report_kinds())
    if (k.claims(d)) return k.page(d).render();
  throw UserError("report: '" + dir +
                  "' is not a trainsim results directory (no stats.json of a known kind, "
                  "compare.csv or sweep.csv)");
}

void add_report(StagedDir& out) {
  StagedDir::Update u;
  u.write("report.html", render_report(out.path()));
  out.apply(u);
}

}  // namespace trainsim
